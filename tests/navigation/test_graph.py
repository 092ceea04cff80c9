"""The tool graph: edges from schemas, weights that move with outcomes and fade with age, what a
run's observations say, persistence beside the index, and what planning takes from it."""

from __future__ import annotations

import time
from datetime import date
from pathlib import Path

import pytest

from toolweave.errors import ConfigError
from toolweave.language import analyse, clause_of
from toolweave.navigation.graph import (
    HALF_LIFE_DAYS,
    NEUTRAL,
    Edge,
    ToolGraph,
    outcomes,
    together,
)
from toolweave.planning.dataflow import link_data_flow
from toolweave.types import Candidate, Observation, Plan, Step

from ..planning.test_dataflow import AIRPORTS, CARS, FLIGHTS, HOTELS, RESERVE, TOOLS

DAY = 86400.0
TODAY = date(2026, 11, 22)
SKY = Edge("feeds", AIRPORTS.key, FLIGHTS.key, "skyId", "originSkyId")


def test_schema_edges_say_which_output_feeds_which_required_parameter() -> None:
    graph = ToolGraph.derived(TOOLS.values())
    into = {(e.source, e.field) for e, _ in graph.producers(FLIGHTS.key, "originSkyId")}
    assert into == {(AIRPORTS.key, "skyId")}
    assert {e.field for e, _ in graph.producers(RESERVE.key, "car_type")} == {"car_type"}
    # Nothing outputs a city, and no tool feeds itself.
    assert graph.producers(HOTELS.key, "city") == []
    assert all(e.source != e.target for e in graph.edges)
    assert graph.weight(SKY) == NEUTRAL


def test_weights_rise_with_success_fall_with_failure_and_fade_with_age() -> None:
    graph, now = ToolGraph(), time.time()
    good, bad = SKY, Edge("feeds", AIRPORTS.key, FLIGHTS.key, "entityId", "originSkyId")
    graph.record([(good, True), (good, True), (bad, False)], now=now)
    assert graph.weight(good, now) == 3 / 4 and graph.weight(bad, now) == 1 / 3
    assert graph.producers(FLIGHTS.key, "originSkyId")[0][0] == good
    later = now + HALF_LIFE_DAYS * DAY
    assert graph.weight(good, later) == 2 / 3  # two successes count as one after a half-life
    assert NEUTRAL < graph.weight(good, later + 60 * DAY) < graph.weight(good, later)


def test_a_run_s_observations_give_tool_stand_in_and_link_outcomes() -> None:
    steps = [
        Step(id="s1", clause=clause_of(0, "Oslo", TODAY), server="air", tool="search_airport"),
        Step(id="s2", clause=clause_of(1, "flights", TODAY), server="air", tool="search_flights"),
    ]
    seen = [
        Observation(step_id="s1", server="air", tool="search_airport", ok=True, called=True),
        Observation(
            step_id="s2",
            server="air2",
            tool="find_flights",
            arguments={"originSkyId": "OSL"},
            ok=True,
            called=True,
        ),
    ]
    found = outcomes(Plan(steps=steps), [("s2", "originSkyId", "s1", "skyId")], seen)
    assert set(found) == {
        (Edge("tool", "air.search_airport"), True),
        (Edge("tool", "air2.find_flights"), True),
        (Edge("tool", "air.search_flights"), False),  # it failed: a stand-in answered
        (Edge("stands_in", "air.search_flights", "air2.find_flights"), True),
        (Edge("feeds", "air.search_airport", "air2.find_flights", "skyId", "originSkyId"), True),
        # The run went well: the two tools that answered it were used together.
        (Edge("with", "air.search_airport", "air2.find_flights"), True),
        (Edge("with", "air2.find_flights", "air.search_airport"), True),
    }
    # A run with a failed call says nothing of which tools go together.
    seen[1] = seen[1].model_copy(update={"ok": False})
    assert not any(edge.kind == "with" for edge, _ in outcomes(Plan(steps=steps), [], seen))
    # A step that was refused or not prepared says nothing about its tool.
    uncalled = Observation(step_id="s1", server="air", tool="search_airport", ok=False)
    assert outcomes(Plan(steps=steps[:1]), [], [uncalled]) == []


def test_what_runs_taught_persists_and_survives_a_catalogue_change(tmp_path: Path) -> None:
    with ToolGraph.open(tmp_path) as graph:
        graph.sync(TOOLS.values())
        used = Edge("feeds", CARS.key, RESERVE.key, "car_type", "car_type")
        graph.record([(used, True), (Edge("tool", CARS.key), False)])
        weights = graph.weight(used), graph.health(CARS.key)
    with ToolGraph.open(tmp_path) as graph:
        assert (graph.weight(used), graph.health(CARS.key)) == pytest.approx(weights)
        assert SKY in graph.edges
        # The airport tool leaves the catalogue: its unused schema edges go, the used one stays.
        changed = graph.sync(t for k, t in TOOLS.items() if k != AIRPORTS.key)
        assert changed > 0 and SKY not in graph.edges and used in graph.edges
    with ToolGraph.open(tmp_path) as graph:
        assert SKY not in graph.edges and graph.weight(used) == pytest.approx(weights[0])
        about = graph.about({RESERVE.key})
    assert {"tool": CARS.key, "health": round(weights[1], 3)} in about["tools"]
    assert any(e["field"] == "car_type" and e["origin"] == "schema" for e in about["edges"])


def plan(*clauses: tuple[str, object]) -> Plan:
    return Plan(
        steps=[
            Step(
                id=f"s{n + 1}",
                clause=clause_of(n, text, TODAY),
                server=spec.server,  # type: ignore[attr-defined]
                tool=spec.name,  # type: ignore[attr-defined]
                candidates=[Candidate(tool=spec, score=0.5)],  # type: ignore[arg-type]
            )
            for n, (text, spec) in enumerate(clauses)
        ]
    )


def test_planning_takes_a_link_that_worked_and_drops_one_that_failed() -> None:
    question = "Find a rental car for tomorrow and book a hotel near it"
    steps = plan(("Find a rental car for tomorrow", CARS), ("book a hotel near it", HOTELS))
    schema_only = ToolGraph.derived(TOOLS.values())
    linked, _ = link_data_flow(steps, TOOLS, analyse(question, TODAY), schema_only)
    assert "city" not in linked.steps[1].arguments  # no output of the car search is a city
    taught = ToolGraph.derived(TOOLS.values())
    taught.record([(Edge("feeds", CARS.key, HOTELS.key, "pickup_location", "city"), True)])
    linked, _ = link_data_flow(steps, TOOLS, analyse(question, TODAY), taught)
    assert linked.steps[1].arguments["city"] == "{{s1.result.pickup_location}}"

    question = "Find a rental car for tomorrow and reserve it"
    steps = plan(("Find a rental car for tomorrow", CARS), ("reserve it", RESERVE))
    failed = ToolGraph.derived(TOOLS.values())
    failed.record([(Edge("feeds", CARS.key, RESERVE.key, "car_type", "car_type"), False)] * 2)
    linked, _ = link_data_flow(steps, TOOLS, analyse(question, TODAY), failed)
    assert linked.steps[1].arguments == {"pickup_location": "{{s1.result.pickup_location}}"}


def test_bad_feedback_turns_what_a_run_counted_into_failures(tmp_path: Path) -> None:
    worked, failed = SKY, Edge("tool", FLIGHTS.key)
    with ToolGraph.open(tmp_path) as graph:
        graph.record([(worked, True), (failed, False)], run="t1")
        graph.record([(worked, True)], run="t2")
        assert graph.weight(worked) == pytest.approx(3 / 4)
    with ToolGraph.open(tmp_path) as graph:
        assert graph.unlearn("t1") == 1  # only its success falls; its failure stays counted
        assert graph.weight(worked) == pytest.approx(2 / 4)
        assert graph.health(FLIGHTS.key) == pytest.approx(1 / 3)
        assert graph.unlearn("t1") == 0  # taken back once
        assert graph.unlearn("unknown") == 0
        # What runs say of a tool: FLIGHTS's only run failed; AIRPORTS's went well until rated.
        graph.record([(Edge("tool", AIRPORTS.key), True)], run="t3")
        assert graph.succeeded(AIRPORTS.key) and not graph.succeeded(FLIGHTS.key)
        graph.unlearn("t3")
        assert not graph.succeeded(AIRPORTS.key)
    assert ToolGraph().unlearn("t2") == 0  # a graph in memory keeps no runs


def test_a_broken_graph_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "graph.sqlite").write_text("not a database")
    with pytest.raises(ConfigError, match=r"cannot be opened .* remove it"):
        ToolGraph.open(tmp_path)


def test_companions_are_the_share_of_a_tool_s_successes_another_tool_came_with(
    tmp_path: Path,
) -> None:
    a, b, c = "s.airport", "s.flights", "s.hotels"
    with ToolGraph.open(tmp_path) as graph:
        for run, tools in enumerate([[a, b], [a, b], [a, c], [a]]):
            calls = [(Edge("tool", t), True) for t in tools]
            graph.record(calls + together(tools), run=f"t{run}")
        assert graph.companions(a) == [(b, pytest.approx(2 / 4)), (c, pytest.approx(1 / 4))]
        assert graph.companions(b) == [(a, pytest.approx(1.0))]
        assert graph.companions("s.unknown") == []
        # Bad feedback on a run takes back what it said of the tools that went together.
        graph.unlearn("t2")
        assert graph.companions(a) == [(b, pytest.approx(2 / 3))]
