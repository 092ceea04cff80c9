"""The Engine in process, one test per route, over real MCP servers (the built-in ones,
mcp-server-time, and the test servers in tests/data, each a real subprocess)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from toolweave.engine import AskOptions, Engine, Finished, Planned, Progress, StepEvent
from toolweave.errors import InputError
from toolweave.language import values
from toolweave.settings import Settings, load_settings
from toolweave.traces import TraceStore, format_trace, trace_path
from toolweave.types import Route

from .catalog.processes import matching
from .models.openai_server import OpenAIServer, chat_reply

pytestmark = pytest.mark.anyio
DATA = Path(__file__).parent / "data"
DEMO = "What is 15% of 2,340, and what time is it in Tokyo?"
TODAY = date(2026, 11, 22)


def configured(tmp_path: Path, toml: str = "", **env: str) -> Settings:
    config = tmp_path / "toolweave.toml"
    config.write_text(toml)
    variables = {"TOOLWEAVE_STATE_DIR": str(tmp_path / "state"), "TOOLWEAVE_LLM__BACKEND": "none"}
    return load_settings(config, env=variables | env)


def server(name: str, script: str) -> str:
    return f'[mcpServers.{name}]\ncommand = "{sys.executable}"\nargs = ["{DATA / script}"]\n'


def calls(answer: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(o.tool, o.arguments) for o in answer.observations]


async def test_small_talk_is_answered_directly_without_starting_servers(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        answer = await engine.ask("Thank you!")
        assert answer.route == Route.DIRECT and answer.observations == []
        assert answer.servers == [] and {s.state for s in engine.servers} == {"idle"}


async def test_the_demo_runs_two_tools_in_parallel_and_each_clause_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    numbers = values.numbers
    monkeypatch.setattr(values, "numbers", lambda text: reads.append(text) or numbers(text))
    async with Engine.open(configured(tmp_path)) as engine:
        answer = await engine.ask(DEMO)
    assert answer.route == Route.PARALLEL
    assert calls(answer) == [
        ("percentage", {"percent": 15, "value": 2340}),
        ("get_current_time", {"timezone": "Asia/Tokyo"}),
    ]
    assert all(o.ok for o in answer.observations) and "= 351 [1]" in answer.text
    # The question and its two clauses are read once each; no later stage reads text again.
    assert len(reads) == 1 + len(answer.plan.steps) == 3


async def test_a_missing_place_gets_a_question_back_and_a_given_one_a_call(tmp_path: Path) -> None:
    settings = configured(tmp_path, server("weather", "weather_server.py"))
    async with Engine.open(settings) as engine:
        back = await engine.ask("What's the weather tomorrow?")
        answered = await engine.ask("What's the weather in Paris tomorrow?")
    assert back.route == Route.CLARIFY and back.text.startswith("Which city do you mean")
    assert back.observations == []
    assert answered.route == Route.SINGLE
    assert [(t, a["city"]) for t, a in calls(answered)] == [("get_forecast", "Paris")]
    assert "Mild and dry in Paris" in answered.text


async def test_a_tool_that_needs_another_tools_output_gets_a_chain(tmp_path: Path) -> None:
    settings = configured(tmp_path, server("travel", "travel_server.py"))
    async with Engine.open(settings) as engine:
        answer = await engine.ask("Find flights from Oslo to Rome on 3 May 2027")
    assert answer.route == Route.PLANNING
    assert calls(answer) == [
        ("search_airport", {"query": "Oslo"}),
        ("search_airport", {"query": "Rome"}),
        ("search_flights", {"originSkyId": "OSL", "destinationSkyId": "FCO", "date": "2027-05-03"}),
    ]
    assert "3 flights OSL to FCO on 2027-05-03" in answer.text
    assert any("to give s3 its originSkyId" in note for note in answer.notes)


TWO_HOPS = [
    ("Ventara (album)", "Ventara is the third studio album by the band Halvorsen Lane, from 1994."),
    ("Halvorsen Lane", "Halvorsen Lane is a rock band formed in Bergen in 1987 by Ingrid Moe."),
    ("Bergen", "Bergen is a city on the west coast of Norway, known for its harbour and rain."),
    ("Studio albums", "A studio album is recorded in a studio rather than at a concert."),
]


async def test_a_multi_hop_question_is_searched_again_with_what_was_found(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "\n".join(json.dumps({"id": n, "title": t, "text": x}) for n, (t, x) in enumerate(TWO_HOPS))
    )
    question = "In which city was the band that recorded Ventara formed?"
    settings = configured(tmp_path, f'[grounding]\ncorpus = "{corpus}"\n')
    async with Engine.open(settings) as engine:
        answer = await engine.ask(question)
    assert answer.route == Route.ITERATIVE
    assert answer.observations[0].arguments["query"] == question
    # The short answer first, then the chain that leads to it: the band, then its city.
    assert answer.short == "Bergen" and answer.text.startswith("Bergen [")
    chain = answer.text.splitlines()[1]
    assert chain.index("by the band Halvorsen Lane") < chain.index("formed in Bergen")
    assert [s.title for s in answer.sources].count("Halvorsen Lane") == 1
    # Past the deadline the search is cancelled: a partial answer that says so.
    late = configured(tmp_path, f'[grounding]\ncorpus = "{corpus}"\n[ask]\ndeadline_s = 0.001\n')
    async with Engine.open(late) as engine:
        answer = await engine.ask(question)
    assert answer.route == Route.ITERATIVE
    assert "the deadline of 0.001 s passed while searching" in answer.text


async def test_a_question_no_tool_fits_is_grounded_by_the_local_documents(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        answer = await engine.ask("How do I declare an MCP server?")
    search = answer.observations[0]
    assert (search.server, search.tool) == ("search", "search")
    # How-to questions want an explanation: one search is read, no short answer is made up.
    assert len(answer.observations) == 1 and answer.short == ""
    assert search.structured["provider"] == "local"  # no web provider is configured
    assert "mcpServers" in answer.text and answer.sources[0].kind == "document"
    assert answer.sources[0].uri.endswith("configuration.md#declaring-mcp-servers")


async def test_over_budget_gives_a_partial_answer_that_says_what_was_not_done(
    tmp_path: Path,
) -> None:
    async with Engine.open(configured(tmp_path, TOOLWEAVE_ASK__MAX_STEPS="1")) as engine:
        answer = await engine.ask(DEMO)
    assert "15% of 2,340 = 351 [1]" in answer.text
    assert "not done: over the step budget (1 step)" in answer.text


async def test_broken_servers_do_not_stop_the_answer(tmp_path: Path) -> None:
    toml = (
        '[mcpServers.ghost]\ncommand = "toolweave-no-such-command"\n\n'
        f'[mcpServers.dies]\ncommand = "{sys.executable}"\nargs = ["-c", "raise SystemExit(1)"]\n'
    )
    async with Engine.open(configured(tmp_path, toml)) as engine:
        answer = await engine.ask(DEMO)
    states = {s.name: (s.state, s.error or "") for s in answer.servers}
    assert states["ghost"][0] == "failed" and "was not found" in states["ghost"][1]
    assert states["dies"][0] == "failed"
    assert "= 351" in answer.text and answer.llm == "none"


async def test_the_stream_shows_the_run_as_it_happens(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        events = [event async for event in engine.stream(DEMO, AskOptions(today=TODAY))]
    kinds = [type(event) for event in events]
    assert kinds[0] is Progress and kinds[-1] is Finished and kinds.count(Finished) == 1
    planned = kinds.index(Planned)
    steps = [e.event for e in events if isinstance(e, StepEvent) and e.event.step_id]
    assert planned < kinds.index(StepEvent) and {e.step_id for e in steps} == {"s1", "s2"}
    assert {e.kind for e in steps} >= {"started", "finished"}
    answer = events[-1].answer  # type: ignore[union-attr]
    assert answer.route == Route.PARALLEL and answer.trace_id


async def test_questions_run_concurrently_on_one_engine(tmp_path: Path) -> None:
    questions = ["What time is it in Tokyo?", "What is 15% of 80?", "What time is it in Oslo?"]
    async with Engine.open(configured(tmp_path)) as engine:
        answers = await asyncio.gather(*(engine.ask(q) for q in questions))
    assert [calls(a) for a in answers] == [
        [("get_current_time", {"timezone": "Asia/Tokyo"})],
        [("percentage", {"percent": 15, "value": 80})],
        [("get_current_time", {"timezone": "Europe/Oslo"})],
    ]
    assert len({a.trace_id for a in answers}) == 3


async def test_bad_questions_are_refused_before_anything_runs(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        with pytest.raises(InputError, match="the question is empty"):
            await engine.ask("  \x00 ")
        with pytest.raises(InputError, match="102,400 characters long; the limit is 8,000"):
            await engine.ask("w" * 102_400)
        assert {s.state for s in engine.servers} == {"idle"}


async def test_the_index_follows_the_servers_and_every_search_mode_uses_it(tmp_path: Path) -> None:
    settings = configured(tmp_path)
    async with Engine.open(settings) as engine:
        await engine.connect()
        assert engine.last_sync is not None and len(engine.last_sync.added) == 9
    async with Engine.open(settings) as engine:
        await engine.connect()
        assert engine.last_sync is not None
        assert (len(engine.last_sync.added), engine.last_sync.embedded) == (0, 0)
    # A search needs the index only: no server starts.
    async with Engine.open(settings, servers=False) as engine:
        hits = await engine.search_tools("what time is it in Tokyo", k=3)
        assert hits[0].key == "time.get_current_time" and hits[0].segment and len(hits) == 3
        two = await engine.search_tools("what is 15% of 80 and convert 3 miles to km", k=4)
        assert {"calc.percentage", "calc.convert_units"} <= {h.key for h in two}
        dense = await engine.search_tools("time in Tokyo", dense=True)
        assert dense[0].key == "time.get_current_time" and 0 < dense[0].score <= 1
        servers = await engine.search_tools("convert miles to km", servers=True)
        assert servers[0].key == "calc" and len({s.key for s in servers}) == len(servers)
        maxsim = await engine.search_tools("time in Tokyo", servers=True, dense=True)
        assert maxsim[0].key == "time" and 0 < maxsim[0].score <= 1
        lexical = await engine.search_tools("percentage", lexical=True)
        assert lexical[0].key == "calc.percentage"
        with pytest.raises(InputError, match="the query is empty"):
            await engine.search_tools("  ")
        assert {s.state for s in engine.servers} == {"idle"}


async def test_the_trace_holds_each_llm_prompt_and_response(tmp_path: Path) -> None:
    question = "What time is it at the Brandenburg Gate?"  # no value in it names a timezone
    with OpenAIServer() as server:
        server.add("/v1/chat/completions", chat_reply('{"timezone": "Europe/Berlin"}', 41, 9))
        settings = configured(
            tmp_path, TOOLWEAVE_LLM__BACKEND="openai", TOOLWEAVE_LLM__BASE_URL=server.base_url
        )
        async with Engine.open(settings) as engine:
            answer = await engine.ask(question)
    with TraceStore(trace_path(settings)) as store:
        trace = store.get(answer.trace_id)
    [call] = trace.llm_calls
    [(_, _, sent)] = server.requests
    assert call.messages == sent["messages"] and question in call.messages[-1]["content"]
    assert call.response == '{"timezone": "Europe/Berlin"}'
    assert (call.prompt_tokens, call.completion_tokens, answer.llm_calls) == (41, 9, 1)
    assert trace.answer.plan.steps[0].argument_origins == {"timezone": "generated"}
    text = format_trace(trace)
    assert "llm calls" in text and "user: Tool: get_current_time" in text
    assert '-> {"timezone": "Europe/Berlin"}' in text


async def test_random_questions_get_an_answer_or_a_clear_refusal(tmp_path: Path) -> None:
    """Fuzz: undecodable bytes, control characters, long and empty inputs, deep brackets."""
    import os
    import random

    rng = random.Random(11)
    inputs = [
        os.fsdecode(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
        for _ in range(12)
    ]
    inputs += [
        "\x00" * 50,
        "[" * 5_000,
        "what is " + "(" * 2_000 + "1",
        "\u202e\u200b ?",
        "é" * 7_999,
    ]
    async with Engine.open(configured(tmp_path)) as engine:
        for text in inputs:
            try:
                answer = await engine.ask(text)
            except InputError:
                continue  # a clear refusal (empty, too long): the CLI exits 2 with it
            assert answer.text and "\ud800" not in answer.question
            answer.model_dump_json()  # every answer can be printed and stored


async def test_a_question_starts_only_the_servers_its_plan_needs(tmp_path: Path) -> None:
    """The demo needs calc and time: docs stays idle, and a server that hangs while starting
    (added after the index was built) never delays the answer."""
    async with Engine.open(configured(tmp_path)) as engine:
        await engine.connect()  # what `toolweave index` does: every server, indexed
    marker = f"toolweave-hang-{os.getpid()}"
    hang = (
        f'[mcpServers.hang]\ncommand = "{sys.executable}"\n'
        f'args = ["-c", "import time; time.sleep(300)", "{marker}"]\n'
        "[mcp]\nstart_timeout_s = 300\n"
    )
    async with Engine.open(configured(tmp_path, hang)) as engine:
        answer = await engine.ask(DEMO)
        states = {s.name: s.state for s in engine.servers}
    assert "= 351" in answer.text and all(o.ok for o in answer.observations)
    assert states["calc"] == states["time"] == "ready"
    assert states["docs"] == "idle" and states["hang"] == "starting"
    assert any("hang" in note and "not indexed yet" in note for note in answer.notes)
    # Closing the engine ends the server that never finished starting, without a grace period.
    assert matching(marker) == []


def filesystem(tmp_path: Path) -> tuple[Path, str]:
    """The official filesystem server (npm), allowed one fresh folder."""
    root = tmp_path / "files"
    root.mkdir()
    (root / "notes.txt").write_text("buy milk\n")
    toml = (
        '[mcpServers.fs]\ncommand = "npx"\n'
        f'args = ["-y", "@modelcontextprotocol/server-filesystem", "{root}"]\n'
        "[mcp]\nstart_timeout_s = 180\n"
    )
    return root, toml


async def test_a_tool_that_may_destroy_data_runs_only_with_consent(tmp_path: Path) -> None:
    """write_file of @modelcontextprotocol/server-filesystem declares destructiveHint."""
    root, toml = filesystem(tmp_path)
    target = root / "new.txt"
    question = f'Write to the file "{target}" the text "hello"'
    asked: list[str] = []

    async def decline(step: Any, tool: Any) -> bool:
        asked.append(tool.key)
        return False

    async with Engine.open(configured(tmp_path, toml)) as engine:
        refused = await engine.ask(question)
        declined = await engine.ask(question, AskOptions(confirm=decline))
        dry = await engine.ask(question, AskOptions(dry_run=True, approve_all=True))
        assert not target.exists()
        listed = await engine.ask(f'List the files in "{root}"', AskOptions(dry_run=True))
        written = await engine.ask(question, AskOptions(approve_all=True))
    [call] = refused.observations
    assert (call.key, call.ok) == ("fs.write_file", False)
    assert "needs your consent" in (call.error or "") and "--yes" in refused.text
    assert asked == ["fs.write_file"] and "you declined" in declined.text
    assert "dry run" in (dry.observations[0].error or "")
    assert listed.observations[0].ok and "notes.txt" in listed.text  # read-only: it runs
    assert written.observations[0].arguments == {"path": str(target), "content": "hello"}
    assert target.read_text() == "hello"
