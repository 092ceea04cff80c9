"""run_plan over a real (in-process) MCP server: data flows from one step's result into the next
step's arguments, and a step that cannot run says why."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.execution.executor import run_plan, says_it_failed
from toolweave.execution.scheduler import Budget, Event
from toolweave.language import clause_of
from toolweave.models.base import NoLLM
from toolweave.types import Candidate, Observation, Plan, ProblemKind, Step

from ..fakes import ScriptedLLM

pytestmark = pytest.mark.anyio
TODAY = date(2026, 11, 22)


def home_city(person: str) -> dict:
    """The city a person lives in"""
    return {"person": person, "city": {"ada": "London", "grace": "Arlington"}[person.lower()]}


def weather(city: str) -> dict:
    """Today's weather in a city"""
    return {"summary": f"sunny in {city}"}


def add(a: float, b: float) -> str:
    """The sum of two numbers"""
    return f"The sum of {a} and {b} is {a + b}."


def note(text: str) -> str:
    """Keep a note"""
    return f"noted: {text}"


def move_file(source: str, destination: str) -> str:
    """Move a file"""
    return f"moved {source} to {destination}"


def delete_person(person: str) -> str:
    """Delete a person from the address book"""
    return f"deleted {person}"


def step(sid: str, tool: str, arguments: dict, depends_on: list[str] | None = None) -> Step:
    return Step(
        id=sid,
        clause=clause_of(int(sid[1:]) - 1, f"{tool} step", TODAY),
        server="people",
        tool=tool,
        arguments=arguments,
        depends_on=depends_on or [],
    )


async def run(plan: Plan, tmp_path: Path, **options: object) -> list:
    native = {"people": [home_city, weather, add, note, move_file]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        return await run_plan(plan, pool.tools, pool, NoLLM(), **options)


async def test_a_result_feeds_the_next_step_s_arguments(tmp_path: Path) -> None:
    events: list[Event] = []
    plan = Plan(
        steps=[
            step("s1", "home_city", {"person": "Ada"}),
            step("s2", "weather", {"city": "{{s1.result.city}}"}, ["s1"]),
        ]
    )
    first, second = await run(plan, tmp_path, on_event=events.append)
    assert first.ok and second.ok, (first.error, second.error)
    assert second.arguments == {"city": "London"}
    assert "sunny in London" in second.text
    assert plan.steps[1].argument_origins["city"] == "plan"
    started = [e.step_id for e in events if e.kind == "started"]
    assert started == ["s1", "s2"]


async def test_a_reference_to_a_missing_field_and_a_skipped_step_say_why(tmp_path: Path) -> None:
    plan = Plan(
        steps=[
            step("s1", "home_city", {"person": "Ada"}),
            step("s2", "weather", {"city": "{{s1.result.town}}"}, ["s1"]),
            step("s3", "weather", {"city": "{{s2.result.summary}}"}, ["s2"]),
        ]
    )
    _, second, third = await run(plan, tmp_path)
    assert second.error.startswith("{{s1.result.town}}: s1's result has no key 'town'")
    assert third.error == "not done: s2 failed"


async def test_the_budget_leaves_later_steps_not_done(tmp_path: Path) -> None:
    plan = Plan(
        steps=[
            step("s1", "home_city", {"person": "Grace"}),
            step("s2", "weather", {"city": "{{s1.result.city}}"}, ["s1"]),
        ]
    )
    first, second = await run(plan, tmp_path, budget=Budget(max_steps=1))
    assert first.ok and second.error == "not done: over the step budget (1 step)"


async def test_a_step_its_tool_cannot_take_finds_another_by_reflection(tmp_path: Path) -> None:
    # "weather" needs a city the clause does not name; the clause names a person, which
    # home_city takes: reflection (the index asked again) offers it, and it is called instead.
    asked: list[str] = []

    async def reflect(step: Step) -> list[Candidate]:
        asked.append(step.clause.text)
        return [
            Candidate(tool=tools[key], score=0.5) for key in ("people.weather", "people.home_city")
        ]

    planned = Step(
        id="s1",
        clause=clause_of(0, "where does 'Grace' live", TODAY),
        server="people",
        tool="weather",
    )
    native = {"people": [home_city, weather, add, note, move_file]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        tools = {t.key: t for t in pool.tools}
        without = await run_plan(Plan(steps=[planned.model_copy()]), pool.tools, pool, NoLLM())
        (observation,) = await run_plan(
            Plan(steps=[planned]), pool.tools, pool, NoLLM(), reflect=reflect
        )
    assert not without[0].ok and "city" in (without[0].error or "")
    assert observation.ok and observation.tool == "home_city"
    assert observation.arguments == {"person": "Grace"} and "Arlington" in observation.text
    assert asked == ["where does 'Grace' live"]


async def reflected(
    tmp_path: Path,
    text: str,
    planned: str,
    tools: list,
    offered: list[str],
    lacking: bool = False,
) -> tuple[Step, Observation]:
    """The step `planned` for `text` run over the people server of `tools`, reflection offering
    the tools named `offered` (`lacking` the name the text gives): the step as it ended, and
    its observation."""
    step = Step(id="s1", clause=clause_of(0, text, TODAY), server="people", tool=planned)
    async with ServerPool({}, log_dir=tmp_path, native={"people": tools}) as pool:
        by_name = {t.name: t for t in pool.tools}

        async def reflect(_: Step) -> list[Candidate]:
            return [Candidate(tool=by_name[name], score=0.5, lacks=lacking) for name in offered]

        (observation,) = await run_plan(
            Plan(steps=[step]), pool.tools, pool, NoLLM(), reflect=reflect
        )
    return step, observation


async def test_reflection_never_turns_to_a_change_the_clause_does_not_ask_for(
    tmp_path: Path,
) -> None:
    """Seen on server-memory: "Add a company called Globex to memory" could not fill
    add_observations, and reflection took delete_entities, whose names it could fill."""
    tools = [home_city, weather, delete_person]
    offered = ["delete_person", "home_city"]
    _, observation = await reflected(tmp_path, "where does 'Grace' live", "weather", tools, offered)
    assert observation.tool == "home_city" and "Arlington" in observation.text


async def test_a_change_with_nothing_to_change_asks_and_is_not_answered_by_a_read(
    tmp_path: Path,
) -> None:
    """Seen on mcp-server-sqlite: "insert a new order into the orders table" could not fill
    write_query, and reflection took list_tables; a change asked for stays that change, and
    the value nobody gave is asked for."""
    text = "delete someone from the address book"
    tools = [home_city, delete_person]
    step, observation = await reflected(tmp_path, text, "delete_person", tools, ["home_city"])
    assert observation.tool == "delete_person" and not observation.ok
    assert step.problem is not None and step.problem.kind == ProblemKind.UNGROUNDED
    assert "needs the person, which the request does not give" in (observation.error or "")


def add_note(person: str, note: str) -> str:
    """Add a note to existing people in the address book"""
    return f"noted {note} on {person}"


def add_person(name: str, note: str, city: str) -> str:
    """Add a new person to the address book"""
    return f"added {name}"


async def test_reflection_never_turns_to_a_change_of_a_thing_not_held(tmp_path: Path) -> None:
    """Seen on server-memory: create_entities could not be filled for "add an entity "Weather
    CLI" ...", and reflection took add_observations, which failed: Weather CLI not found."""
    text = "add the person 'Dave' with the note 'plays bass'"
    tools = [add_note, add_person]
    _, observation = await reflected(tmp_path, text, "add_person", tools, ["add_note"])
    assert observation.tool == "add_note" and observation.ok  # Dave held: a note on him
    _, observation = await reflected(tmp_path, text, "add_person", tools, ["add_note"], True)
    assert observation.tool == "add_person" and not observation.ok
    assert "needs the city" in (observation.error or "")


def create_directory(path: str) -> str:
    """Create a new directory"""
    return f"created {path}"


def write_file(path: str, content: str) -> str:
    """Write a file"""
    return f"wrote {path}"


async def test_reflection_never_turns_a_file_into_a_folder(tmp_path: Path) -> None:
    """Seen on server-filesystem: "create /srv/shopping.txt" could not fill write_file's
    content, and reflection made a folder named shopping.txt."""
    text = "create /srv/shopping.txt"
    tools = [create_directory, write_file]
    _, observation = await reflected(tmp_path, text, "write_file", tools, ["create_directory"])
    assert observation.tool == "write_file" and not observation.ok
    assert "needs the content" in (observation.error or "")


def delete_people(names: list[str]) -> str:
    """Delete people from the address book"""
    return f"deleted {', '.join(names)}"


async def test_reflection_never_turns_to_a_change_of_the_things_a_fact_names(
    tmp_path: Path,
) -> None:
    """Seen on server-memory: "the peanut allergy note on Bob is wrong, delete it" could not
    fill delete_observations, and reflection took delete_entities, which would delete Bob."""
    text = "the allergy note on Grace is wrong, delete it"
    tools = [weather, delete_people]
    _, observation = await reflected(tmp_path, text, "weather", tools, ["delete_people"])
    assert observation.tool == "weather" and not observation.ok


def delete_notes(deletions: list[dict[str, str]]) -> str:
    """Delete notes from people in the address book"""
    return f"deleted {len(deletions)} notes"


async def test_reflection_never_turns_from_the_thing_named_to_another(tmp_path: Path) -> None:
    """Seen on server-memory: "remove the observation that she likes hiking" could not fill
    delete_observations, and reflection took delete_entities, which deleted Alice."""
    text = "Grace gave up bass, please remove the note that she plays bass"
    tools = [delete_notes, delete_people]
    _, observation = await reflected(tmp_path, text, "delete_notes", tools, ["delete_people"])
    assert observation.tool == "delete_notes" and not observation.ok


async def test_a_whole_result_is_taken_as_the_parameter_s_type(tmp_path: Path) -> None:
    """ "add 1234 and 4321, then add 445 to the result": the one number the sum's text adds to
    what it was given; an object given to a text parameter: as JSON."""
    plan = Plan(
        steps=[
            step("s1", "add", {"a": 1234, "b": 4321}),
            step("s2", "add", {"a": 445, "b": "{{s1.result}}"}, ["s1"]),
            step("s3", "home_city", {"person": "Ada"}),
            step("s4", "note", {"text": "{{s3.result}}"}, ["s3"]),
        ]
    )
    _, second, _, fourth = await run(plan, tmp_path)
    assert second.ok and second.arguments == {"a": 445, "b": 5555}, second.error
    assert "is 6000" in second.text
    assert fourth.ok and json.loads(fourth.arguments["text"]) == {"person": "Ada", "city": "London"}


async def test_a_text_without_one_new_number_is_no_number(tmp_path: Path) -> None:
    plan = Plan(
        steps=[
            step("s1", "note", {"text": "1 and 2"}),
            step("s2", "add", {"a": 1, "b": "{{s1.result}}"}, ["s1"]),
        ]
    )
    _, second = await run(plan, tmp_path)
    assert not second.ok and "not run" in second.error  # "noted: 1 and 2" adds no number


async def test_a_text_of_several_lines_is_no_path(tmp_path: Path) -> None:
    """ "The file a.txt ... rename it to b.txt" after a read: the file's text is no `source`."""
    plan = Plan(
        steps=[
            step("s1", "note", {"text": "Meeting 12 September\n- Launch moved"}),
            step("s2", "move_file", {"source": "{{s1.result}}", "destination": "b.txt"}, ["s1"]),
            step("s3", "note", {"text": "a.txt"}),
            step("s4", "move_file", {"source": "{{s3.result}}", "destination": "b.txt"}, ["s3"]),
        ]
    )
    _, moved, _, named = await run(plan, tmp_path)
    assert not moved.ok and "is no source for people.move_file" in moved.error
    assert named.ok and named.arguments["source"] == "noted: a.txt"  # one line may be a name


def test_a_one_line_error_message_is_a_failure() -> None:
    assert says_it_failed('Database error: near "delete": syntax error') is not None
    assert says_it_failed("Error: no such table: users") is not None
    assert says_it_failed("Successfully wrote to /tmp/a.txt") is None
    assert says_it_failed("Error: disk full\nError: retrying") is None  # a log's lines are data


async def test_no_change_is_made_while_another_change_of_the_plan_lacks_a_value(
    tmp_path: Path,
) -> None:
    """Seen on mcp-server-git: "stage app.py and commit it with that message" staged app.py,
    then could not commit; the user is asked before anything changes."""
    moved = Step(
        id="s1",
        clause=clause_of(0, "move /a/x.txt to /a/y.txt", TODAY),
        server="people",
        tool="move_file",
        arguments={"source": "/a/x.txt", "destination": "/a/y.txt"},
    )
    deleted = Step(
        id="s2",
        clause=clause_of(1, "delete someone from the address book", TODAY),
        server="people",
        tool="delete_person",
    )
    native = {"people": [move_file, delete_person]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        observations = await run_plan(Plan(steps=[moved, deleted]), pool.tools, pool, NoLLM())
    assert [o.ok for o in observations] == [False, False]
    assert moved.problem is not None and moved.problem.kind == ProblemKind.WAITING
    assert deleted.problem is not None and deleted.problem.kind == ProblemKind.UNGROUNDED
    # Each change given all it needs runs.
    moved.problem = None
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        observations = await run_plan(Plan(steps=[moved]), pool.tools, pool, NoLLM())
    assert observations[0].ok


def orders_of(person: str) -> str:
    """The orders a person placed"""
    return str([{"item": "Laptop stand", "amount": 29.99}, {"item": "USB-C cable", "amount": 9.5}])


def add_observations(observations: list[dict[str, Any]]) -> str:
    """Add observations to existing entities"""
    return json.dumps(observations)


async def _read_then_note(tmp_path: Path, llm: ScriptedLLM, change: str) -> list[Observation]:
    read = Step(
        id="s1",
        clause=clause_of(0, "what did Ada order?", TODAY),
        server="shop",
        tool="orders_of",
        arguments={"person": "Ada"},
    )
    noted = Step(
        id="s2", clause=clause_of(1, change, TODAY), server="shop", tool="add_observations"
    )
    native = {"shop": [orders_of, add_observations]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        return await run_plan(Plan(steps=[read, noted]), pool.tools, pool, llm)


def _noted(text: str) -> str:
    return json.dumps({"observations": [{"entityName": "Ada", "contents": [text]}]})


async def test_a_change_that_points_at_what_was_read_is_written_from_it(tmp_path: Path) -> None:
    """ "what did Alice order? -> note it on Alice in memory" had asked for the observation."""
    llm = ScriptedLLM(_noted("ordered a Laptop stand and a USB-C cable"))
    observations = await _read_then_note(tmp_path, llm, "note it on Ada")
    assert [o.ok for o in observations] == [True, True]
    assert (
        json.loads(observations[1].text)
        == json.loads(_noted("ordered a Laptop stand and a USB-C cable"))["observations"]
    )
    assert "Laptop stand" in llm.calls[0][1]["content"]  # the model was shown what was read


async def test_a_change_written_from_what_was_read_states_nothing_else(tmp_path: Path) -> None:
    llm = ScriptedLLM(_noted("ordered a Monitor on 2 May"))  # neither was read
    observations = await _read_then_note(tmp_path, llm, "note it on Ada")
    assert observations[0].ok and not observations[1].ok
    assert "needs the observations, which the request does not give" in (
        observations[1].error or ""
    )


async def test_a_change_that_does_not_point_back_is_not_written_from_a_read(tmp_path: Path) -> None:
    llm = ScriptedLLM(_noted("ordered a Laptop stand"))
    observations = await _read_then_note(tmp_path, llm, "add an observation on Ada")
    assert not observations[1].ok  # the observation is asked for
    assert all("Laptop stand" not in m["content"] for call in llm.calls for m in call)
