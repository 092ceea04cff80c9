"""The trace store on real SQLite files, RecordingLLM against a server speaking the OpenAI wire
format, and `ask` storing the trace of a real (direct) run."""

from __future__ import annotations

import logging
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolweave.engine import ask
from toolweave.errors import ConfigError, InputError, LLMRequestError
from toolweave.models import LLM, complete_json
from toolweave.models.openai_http import OpenAIChat, OpenAIHTTP
from toolweave.settings import Settings
from toolweave.traces import LLMCall, RecordingLLM, TraceStore, store_trace, trace_path
from toolweave.types import Answer, Clause, Observation, Plan, Source, Step

from .models.openai_server import OpenAIServer, Reply, chat_reply, stream_reply

CHAT = "/v1/chat/completions"
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]


def answer(question: str = "What is 15% of 2,340?", failed: int = 0) -> Answer:
    step = Step(
        id="s1",
        clause=Clause(index=0, text=question),
        server="calc",
        tool="percentage",
        arguments={"percent": 15, "value": 2340},
        argument_origins={"percent": "extracted", "value": "llm"},
    )
    observations = [Observation.of(step, text="351", latency_ms=12.5)]
    observations += [Observation.of(step, error="timed out") for _ in range(failed)]
    return Answer(
        question=question,
        text="15% of 2,340 = 351 [1]",
        route="single",
        why="one step",
        plan=Plan(steps=[step]),
        observations=observations,
        sources=[Source(id=1, kind="tool", title="calc.percentage(percent=15, value=2340)")],
        timings_ms={"execute": 20.0, "total": 1234.5},
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    with TraceStore(tmp_path / "traces.sqlite") as opened:
        yield opened


def test_a_stored_trace_comes_back_whole(store: TraceStore) -> None:
    calls = [
        LLMCall(messages=MESSAGES, response="{}", prompt_tokens=30, completion_tokens=4, ms=9),
        LLMCall(messages=MESSAGES, response="{}", prompt_tokens=31, completion_tokens=5, ms=8),
        LLMCall(messages=MESSAGES, error="no LLM is configured"),
    ]
    trace_id = store.add(answer(), calls)
    assert len(trace_id) == 8 and int(trace_id, 16) >= 0
    trace = store.get(trace_id)
    assert trace.answer == answer().model_copy(update={"trace_id": trace_id})
    assert trace.llm_calls == calls
    assert (trace.prompt_tokens, trace.completion_tokens, trace.llm_requests) == (61, 9, 2)
    assert trace.cost_usd == 0


def test_a_unique_prefix_finds_the_trace_and_a_shared_one_is_refused(store: TraceStore) -> None:
    ids = [store.add(answer(f"question {n}")) for n in range(40)]
    assert store.get(ids[7][:7].upper()).answer.question == "question 7"
    # 40 ids over 16 first digits: some digit starts at least three of them.
    digit, count = Counter(i[0] for i in ids).most_common(1)[0]
    assert count >= 3
    with pytest.raises(InputError, match=f"{digit!r} starts several trace ids"):
        store.get(digit)


@pytest.mark.parametrize("unknown", ["0123456789", "zz", "", "1%"])
def test_an_unknown_id_says_how_to_list_the_traces(store: TraceStore, unknown: str) -> None:
    store.add(answer())
    with pytest.raises(InputError, match=r"no trace .*`toolweave trace list`"):
        store.get(unknown)


def test_list_is_newest_first_with_counts_and_a_clipped_question(store: TraceStore) -> None:
    first = store.add(answer("short"))
    second = store.add(answer("long " * 40, failed=2))
    third = store.add(answer("last"))
    listed = store.list()
    assert [t.id for t in listed] == [third, second, first]
    assert (listed[1].ok_steps, listed[1].failed_steps, listed[1].total_ms) == (1, 2, 1234.5)
    assert len(listed[1].question) == 80 and listed[1].question.endswith("…")
    assert listed[0].route == "single" and listed[0].created >= listed[2].created
    assert [t.id for t in store.list(limit=2)] == [third, second]


def test_a_corrupt_file_is_a_config_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    path.write_bytes(b"not a database, " * 256)
    with pytest.raises(ConfigError, match=f"trace store {path} cannot be opened"):
        TraceStore(path)


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    with TraceStore(path) as store:
        store.add(answer())
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(ConfigError, match="written by a newer toolweave"):
        TraceStore(path)


def test_reopening_keeps_the_traces_and_the_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "state" / "traces.sqlite"
    with TraceStore(path) as store:
        trace_id = store.add(answer())
    with TraceStore(path) as store:
        assert store.get(trace_id).id == trace_id
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == 1
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_trace_warns_instead_of_failing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with caplog.at_level(logging.WARNING, logger="toolweave.traces"):
        assert store_trace(blocker / "traces.sqlite", answer(), []) == ""
    assert "the trace of this run was not stored" in caplog.text and str(blocker) in caplog.text


# -- RecordingLLM against the OpenAI wire format -------------------------------------------


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def recorder(server: OpenAIServer) -> RecordingLLM:
    http = OpenAIHTTP(server.base_url, backoff_s=0.01, timeout_s=5, max_retries=0)
    return RecordingLLM(OpenAIChat(http, "test-model"))


@pytest.mark.anyio
async def test_a_completion_is_recorded_and_counted_per_run_and_by_the_wrapped_llm(
    server: OpenAIServer,
) -> None:
    server.add(CHAT, chat_reply("hello", prompt_tokens=9, completion_tokens=2))
    llm = recorder(server)
    assert isinstance(llm, LLM) and llm.name == "openai:test-model"
    completion = await llm.complete(MESSAGES, max_tokens=5)
    assert completion.text == "hello"
    [call] = llm.calls
    assert call.messages == MESSAGES and call.response == "hello" and call.error is None
    assert (call.prompt_tokens, call.completion_tokens) == (9, 2) and call.ms > 0
    assert llm.usage == llm.llm.usage and llm.usage.requests == 1
    # Another run on the same backend counts only its own calls.
    assert RecordingLLM(llm.llm).usage.requests == 0
    assert server.requests[0][2]["max_tokens"] == 5  # the arguments reach the backend


@pytest.mark.anyio
async def test_a_stream_is_recorded_whole(server: OpenAIServer) -> None:
    server.add(CHAT, stream_reply(["Hel", "lo", "!"]))
    llm = recorder(server)
    pieces = [piece async for piece in llm.stream(MESSAGES)]
    assert pieces == ["Hel", "lo", "!"]
    [call] = llm.calls
    assert (call.response, call.prompt_tokens, call.completion_tokens) == ("Hello!", 5, 3)


@pytest.mark.anyio
async def test_a_failed_call_is_recorded_and_still_raised(server: OpenAIServer) -> None:
    server.add(CHAT, Reply(status=400, json={"error": "bad model"}))
    llm = recorder(server)
    with pytest.raises(LLMRequestError):
        await llm.complete(MESSAGES)
    [call] = llm.calls
    assert "HTTP 400" in (call.error or "") and call.response == ""


@pytest.mark.anyio
async def test_a_structured_call_and_its_repair_are_both_recorded(server: OpenAIServer) -> None:
    server.add(CHAT, chat_reply("not json"), chat_reply('{"city": "Paris"}'))
    llm = recorder(server)
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    assert await complete_json(llm, MESSAGES, schema) == {"city": "Paris"}
    assert [c.response for c in llm.calls] == ["not json", '{"city": "Paris"}']
    repair = llm.calls[1].messages
    assert repair[-2] == {"role": "assistant", "content": "not json"}
    assert "not valid for the required JSON schema" in repair[-1]["content"]


# -- ask stores the trace of its run (the direct path starts no server) ---------------------


@pytest.mark.anyio
async def test_ask_stores_the_trace_and_sets_its_id(settings: Settings) -> None:
    answered = await ask("Thank you!", settings)
    assert answered.route == "direct" and answered.timings_ms["total"] >= 0
    with TraceStore(trace_path(settings)) as store:
        assert store.get(answered.trace_id).answer == answered
        assert [t.id for t in store.list()] == [answered.trace_id]


@pytest.mark.anyio
async def test_ask_with_traces_off_stores_nothing(settings: Settings) -> None:
    settings.ask.traces = False
    answered = await ask("Thank you!", settings)
    assert answered.trace_id == "" and not trace_path(settings).exists()


@pytest.mark.anyio
async def test_a_broken_trace_store_does_not_lose_the_answer(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    path = trace_path(settings)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage " * 512)
    with caplog.at_level(logging.WARNING, logger="toolweave.traces"):
        answered = await ask("Thank you!", settings)
    assert answered.text.startswith("Hello!") and answered.trace_id == ""
    assert f"trace store {path} cannot be opened" in caplog.text
