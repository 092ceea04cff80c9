"""The index learning from runs: real engine runs over the built-in MCP servers teach the tool
index their clauses; a paraphrase then ranks through the learned example; `bad` undoes it."""

from __future__ import annotations

import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from toolweave.engine import AskOptions, Engine
from toolweave.index.learned import PER_SOURCE, PER_TOOL, LearnedQueries, Lesson, pattern
from toolweave.language import clause_of
from toolweave.settings import Settings, load_settings

pytestmark = pytest.mark.anyio
PARAPHRASE = "compute fifteen percent of 2340 for me"


def configured(tmp_path: Path, **env: str) -> Settings:
    variables = {"TOOLWEAVE_STATE_DIR": str(tmp_path / "state"), "TOOLWEAVE_LLM__BACKEND": "none"}
    return load_settings(env=variables | env)


async def percentage_hit(engine: Engine) -> tuple[float, str]:
    """calc.percentage's score and origin of its best segment for the paraphrase."""
    hits = await engine.search_tools(PARAPHRASE, k=10)
    (hit,) = [h for h in hits if h.key == "calc.percentage"]
    return hit.score, hit.origin


async def test_a_successful_run_teaches_a_paraphrase_and_bad_feedback_undoes_it(
    tmp_path: Path,
) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        await engine.ask("What time is it in Tokyo?")  # starts and indexes the servers
        before = await percentage_hit(engine)
        answer = await engine.ask("What is 15% of 2,340?")
        assert "351" in answer.text
        taught = await percentage_hit(engine)
        changed = await engine.feedback(answer.trace_id, "bad")
        after_bad = await percentage_hit(engine)
        await engine.ask("What is 15% of 2,340?")  # not taught to that tool again
        assert await percentage_hit(engine) == after_bad
    assert before[1] != "logged" and taught[1] == "logged" and taught[0] > before[0]
    assert changed == ["calc.percentage"]
    assert after_bad == before


async def test_failed_searched_and_dry_runs_teach_nothing(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path)) as engine:
        failed = await engine.ask("What is 15 divided by 0?")
        searched = await engine.ask("How do I declare an MCP server?")
        dry = await engine.ask("What is 15% of 2,340?", AskOptions(dry_run=True))
        with LearnedQueries(engine.index.folder) as store:
            learned = store.by_tool()
    assert not all(o.ok for o in failed.observations)
    assert searched.observations[0].tool == "search"
    assert dry.observations  # it ran (calc only reads), and still taught nothing
    assert learned == {}


async def test_a_clause_holding_a_configured_secret_is_not_learned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cret-token-123456"
    monkeypatch.setenv("OPENAI_API_KEY", secret)  # llm.api_key_env's variable
    async with Engine.open(configured(tmp_path)) as engine:
        answer = await engine.ask(f"What is 15% of 2,340 for the account {secret}?")
        with LearnedQueries(engine.index.folder) as store:
            learned = store.by_tool()
    assert [s.key for s in answer.plan.steps] == ["calc.percentage"]  # the secret in its clause
    assert "351" in answer.text and learned == {}


def test_the_store_deduplicates_and_caps_per_source_and_per_tool(tmp_path: Path) -> None:
    with LearnedQueries(tmp_path) as store:
        assert store.learn([Lesson("a.t", "What is 2+2")], "t1", "api:x") == ["a.t"]
        assert store.learn([Lesson("a.t", "what is  2+2")], "t2", "api:x") == []  # the same
        for n in range(PER_SOURCE + 3):  # one client floods the tool
            store.learn([Lesson("a.t", f"flood {n}")], f"f{n}", "api:flood")
        flood = [q for q in store.by_tool()["a.t"] if q.startswith("flood")]
        assert flood == [f"flood {n}" for n in range(3, PER_SOURCE + 3)]  # the newest kept
        for n in range(PER_TOOL + 5):
            store.learn([Lesson("a.t", f"q {n}")], f"q{n}", f"api:{n}")
        assert len(store.by_tool()["a.t"]) == PER_TOOL


def test_the_cli_feedback_unlearns_a_run(tmp_path: Path) -> None:
    env = {
        "TOOLWEAVE_STATE_DIR": str(tmp_path / "state"),
        "TOOLWEAVE_LLM__BACKEND": "none",
        "PATH": "/usr/bin:/bin",
    }
    toolweave = [sys.executable, "-m", "toolweave"]

    def run(*args: str) -> str:
        done = subprocess.run(
            [*toolweave, *args], env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    answer = run("ask", "What is 15% of 2,340?", "--json")
    trace_id = answer.split('"trace_id": "')[1].split('"')[0]
    said = run("trace", "feedback", trace_id[:6], "bad")
    assert f"{trace_id}: bad; unlearned calc.percentage <- 'What is 15% of 2,340?'" in said
    with LearnedQueries(tmp_path / "state" / "index") as store:
        assert store.by_tool() == {}


def test_an_example_keeps_how_a_request_is_worded_not_the_values_it_names() -> None:
    """Else an example "What's in /srv/notes.txt?" of a read makes a later write to that file
    look like a read."""

    def kept(text: str) -> str:
        return pattern(clause_of(0, text, date(2026, 11, 22)))

    assert kept('Replace everything in /srv/notes.txt with "Nothing to do."') == (
        'Replace everything in a file with "a text"'
    )
    assert kept("fetch https://example.com/a and mail bob@x.org") == (
        "fetch a web page and mail an email address"
    )
    assert kept("What is 15% of 2,340?") == "What is 15% of 2,340?"
