"""The trace store on real SQLite files, RecordingLLM against a server speaking the OpenAI wire
format, and `ask` storing the trace of a real (direct) run."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolweave.engine import ask
from toolweave.errors import ConfigError, InputError, LLMRequestError
from toolweave.models import LLM, complete_json
from toolweave.models.openai_http import OpenAIChat, OpenAIHTTP
from toolweave.settings import Settings, load_settings
from toolweave.traces import (
    LLMCall,
    RecordingLLM,
    TracePolicy,
    TraceStore,
    format_trace,
    store_trace,
    trace_path,
)
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


# -- bounded: long results cut, old traces removed -------------------------------------------


def big_answer(text_chars: int, question: str = "read the log") -> Answer:
    """An answer whose one tool result is `text_chars` long, with structured content as long."""
    result = answer(question)
    structured = {"lines": ["x" * 98] * (text_chars // 100)}
    [obs] = result.observations
    result.observations = [
        obs.model_copy(update={"text": "y" * text_chars, "structured": structured})
    ]
    return result


def age(store: TraceStore, trace_id: str, days: float) -> None:
    with store.db:
        store.db.execute(
            "UPDATE traces SET created = ? WHERE id = ?", (time.time() - days * 86_400, trace_id)
        )


def test_a_long_tool_result_is_stored_as_its_head_size_and_hash(store: TraceStore) -> None:
    store.policy = TracePolicy(max_result_chars=1000)
    whole = big_answer(50_000)
    trace = store.get(store.add(whole))
    [obs] = trace.answer.observations
    assert obs.text == "y" * 1000
    structured_json = json.dumps(whole.observations[0].structured, separators=(",", ":"))
    assert obs.structured == structured_json[:1000]
    text_cut, structured_cut = trace.cut
    assert (text_cut.observation, text_cut.part, text_cut.kept) == (0, "text", 1000)
    assert text_cut.chars == 50_000
    assert text_cut.sha256 == hashlib.sha256(b"y" * 50_000).hexdigest()
    assert structured_cut.part == "structured" and structured_cut.chars == len(structured_json)
    assert structured_cut.sha256 == hashlib.sha256(structured_json.encode()).hexdigest()
    # The answer the caller got is whole; a short result is stored as it is.
    assert len(whole.observations[0].text) == 50_000
    assert store.get(store.add(answer())).cut == []
    shown = format_trace(trace)
    told = "text stored cut: its first 1,000 of 50,000 characters (sha256 of the whole "
    assert told + text_cut.sha256 in shown
    assert "structured stored cut: its first 1,000 of" in shown


def test_a_huge_result_no_longer_makes_a_huge_store(tmp_path: Path) -> None:
    """The report: one 6.7 MB file read made traces.sqlite 14 MB."""
    path = tmp_path / "traces.sqlite"
    assert store_trace(path, big_answer(6_700_000), [])
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < 500_000


def test_traces_older_than_the_age_are_removed_after_each_store(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    policy = TracePolicy(max_age_days=30)
    old, recent = (store_trace(path, answer(q), [], policy) for q in ("old", "recent"))
    with TraceStore(path) as store:
        age(store, old, 31)
        age(store, recent, 29)
    newest = store_trace(path, answer("newest"), [], policy)
    with TraceStore(path) as store:
        assert [t.id for t in store.list()] == [newest, recent]


def test_the_oldest_traces_go_while_the_store_is_over_its_size(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    policy = TracePolicy(max_result_chars=100_000, max_mb=0.5)
    ids = [store_trace(path, big_answer(50_000, f"q{n}"), [], policy) for n in range(20)]
    with TraceStore(path) as store:
        kept = [t.id for t in store.list(limit=100)]
        assert store.used_bytes() <= 0.5 * (1 << 20)
    assert 3 <= len(kept) < 10 and kept == ids[::-1][: len(kept)]  # the newest, all of them


def test_a_single_trace_over_the_size_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    trace_id = store_trace(
        path, big_answer(50_000), [], TracePolicy(max_result_chars=100_000, max_mb=0.01)
    )
    with TraceStore(path) as store:
        assert [t.id for t in store.list()] == [trace_id]


def test_a_prune_that_frees_much_gives_the_space_back(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    with TraceStore(path, TracePolicy(max_result_chars=1_000_000)) as store:
        ids = [store.add(big_answer(500_000, f"q{n}")) for n in range(6)]
        for trace_id in ids[:-1]:
            age(store, trace_id, 40)
        small = store.prune(vacuum=False)  # no vacuum asked: it frees most of the file
        assert small.removed == 5 and small.bytes_after < small.bytes_before / 3
        assert [t.id for t in store.list()] == [ids[-1]]


def test_trace_prune_reports_what_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from toolweave.cli import app

    monkeypatch.setenv("TOOLWEAVE_STATE_DIR", str(tmp_path / "state"))
    path = trace_path(load_settings())
    with TraceStore(path, TracePolicy(max_result_chars=1_000_000)) as store:
        ids = [store.add(big_answer(300_000, f"q{n}")) for n in range(5)]
        age(store, ids[0], 12)
        age(store, ids[1], 11)
    run = CliRunner().invoke(app, ["trace", "prune", "--older-than", "10"])
    assert run.exit_code == 0, run.output
    assert f"removed 2 traces; {path}: " in run.output
    before, after = (
        float(n) * (1024 if unit == "KB" else 1 << 20)
        for n, unit in re.findall(r"([\d.]+) (MB|KB)", run.output)
    )
    assert before > 2.5 * (1 << 20) and after < 0.7 * before
    run = CliRunner().invoke(app, ["trace", "prune", "--max-mb", "0.5"])
    assert run.exit_code == 0 and "removed 2 traces" in run.output, run.output
    with TraceStore(path) as store:
        assert [t.id for t in store.list()] == [ids[4]]
    assert "removed 0 traces" in CliRunner().invoke(app, ["trace", "prune"]).output


def test_the_policy_comes_from_the_traces_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-llm-key-for-the-policy")
    settings = load_settings(
        env={
            "TOOLWEAVE_TRACES__MAX_RESULT_CHARS": "123",
            "TOOLWEAVE_TRACES__MAX_AGE_DAYS": "2",
            "TOOLWEAVE_TRACES__MAX_MB": "3",
            "TOOLWEAVE_LLM__API_KEY_ENV": "MY_LLM_KEY",
        }
    )
    policy = TracePolicy.of(settings)
    assert (policy.max_result_chars, policy.max_age_days, policy.max_mb) == (123, 2, 3)
    assert policy.secrets == ("sk-llm-key-for-the-policy",)  # what the store masks


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
async def test_traces_enabled_false_stores_nothing(tmp_path: Path) -> None:
    env = {"TOOLWEAVE_STATE_DIR": str(tmp_path / "state"), "TOOLWEAVE_TRACES__ENABLED": "false"}
    settings = load_settings(env=env)
    answered = await ask("Thank you!", settings)
    assert answered.trace_id == "" and not trace_path(settings).exists()


@pytest.mark.anyio
async def test_ask_stores_under_the_configured_policy(tmp_path: Path) -> None:
    env = {"TOOLWEAVE_STATE_DIR": str(tmp_path / "state"), "TOOLWEAVE_TRACES__MAX_AGE_DAYS": "1"}
    settings = load_settings(env=env)
    with TraceStore(trace_path(settings)) as store:
        old = store.add(answer("three days old"))
        age(store, old, 3)
    answered = await ask("Thank you!", settings)
    with TraceStore(trace_path(settings)) as store:
        assert [t.id for t in store.list()] == [answered.trace_id]


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
