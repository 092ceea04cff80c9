"""`toolweave` as a user runs it: a real process, real MCP servers, the bundled models."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .benchmarks_dir import BENCHMARKS, needs_benchmarks

DEMO = "What is 15% of 2,340, and what time is it in Tokyo?"


def toolweave(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    import os

    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    full_env |= {"TOOLWEAVE_STATE_DIR": str(cwd / "state")} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "toolweave", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )


def test_demo_question_is_answered_with_tool_calls(tmp_path: Path) -> None:
    run = toolweave("ask", DEMO, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "DEBUG" not in run.stderr and "INFO" not in run.stderr  # no library log noise
    assert "15% of 2,340 = 351 [1]" in run.stdout
    assert "timezone: Asia/Tokyo" in run.stdout and "[2]" in run.stdout
    assert "calc.percentage(percent=15, value=2340)" in run.stdout
    assert 'time.get_current_time(timezone="Asia/Tokyo")' in run.stdout
    assert "Tool calls" in run.stdout and " ms " in run.stdout


def test_json_output_is_the_same_answer(tmp_path: Path) -> None:
    run = toolweave("ask", DEMO, "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    calls = {(o["server"], o["tool"]): o for o in answer["observations"]}
    assert calls[("calc", "percentage")]["arguments"] == {"percent": 15, "value": 2340}
    assert calls[("calc", "percentage")]["structured"]["result"] == 351
    assert calls[("time", "get_current_time")]["structured"]["timezone"] == "Asia/Tokyo"
    assert all(o["latency_ms"] > 0 for o in answer["observations"])
    assert [s["kind"] for s in answer["sources"]] == ["tool", "tool"]
    assert {s["name"]: s["state"] for s in answer["servers"]} == {
        "docs": "ready",
        "calc": "ready",
        "time": "ready",
        "search": "ready",  # the search gateway, in process
    }


def test_ask_stores_a_trace_that_trace_show_prints(tmp_path: Path) -> None:
    run = toolweave("ask", DEMO, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    found = re.search(r"· trace ([0-9a-f]{8})", run.stdout)
    assert found, run.stdout
    trace_id = found.group(1)
    shown = toolweave("trace", "show", trace_id[:6], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert f"trace {trace_id}" in text and f"question: {DEMO}" in text
    assert "route: parallel (" in text
    assert re.search(r"timings: analyse \d+ ms .*connect \d+ ms .* total", text)
    assert "s1 calc.percentage: What is 15% of 2,340" in text
    # Each value with the words of the clause it was read from.
    assert 'percent = 15 (extracted "15%")' in text and 'value = 2340 (extracted "2,340")' in text
    assert "s2 time.get_current_time: what time is it in Tokyo?" in text
    assert 'timezone = "Asia/Tokyo" (extracted "Tokyo")' in text
    assert "candidates: calc.percentage" in text
    assert re.search(r"s1 calc\.percentage \d+ ms ok: .*351", text)
    assert re.search(r"s2 time\.get_current_time \d+ ms ok: .*Asia/Tokyo", text)
    assert "15% of 2,340 = 351 [1]" in text
    assert '[2] time.get_current_time(timezone="Asia/Tokyo")' in text
    trace = json.loads(toolweave("trace", "show", trace_id, "--json", cwd=tmp_path).stdout)
    steps = trace["answer"]["plan"]["steps"]
    assert [(s["server"], s["tool"]) for s in steps] == [
        ("calc", "percentage"),
        ("time", "get_current_time"),
    ]
    assert [o["ok"] for o in trace["answer"]["observations"]] == [True, True]
    assert trace["answer"]["trace_id"] == trace_id and trace["llm_calls"] == []
    listed = json.loads(toolweave("trace", "list", "--json", cwd=tmp_path).stdout)
    assert [(t["id"], t["route"], t["ok_steps"], t["failed_steps"]) for t in listed] == [
        (trace_id, "parallel", 2, 0)
    ]
    # A follow-up: "there" is the place the earlier question named.
    follow_up = "And what time is it there now?"
    later = toolweave("ask", follow_up, "--after", trace_id[:5], "--json", cwd=tmp_path)
    assert later.returncode == 0, later.stderr
    [step] = json.loads(later.stdout)["plan"]["steps"]
    assert (step["tool"], step["arguments"]) == ("get_current_time", {"timezone": "Asia/Tokyo"})
    missing = toolweave("ask", follow_up, "--after", "ffffffff", cwd=tmp_path)
    assert missing.returncode == 2 and "no trace 'ffffffff'" in missing.stderr


def test_trace_commands_explain_unknown_ids_and_broken_stores(tmp_path: Path) -> None:
    empty = toolweave("trace", "list", cwd=tmp_path)
    assert empty.returncode == 0 and "no traces yet" in empty.stdout
    unknown = toolweave("trace", "show", "abc123", cwd=tmp_path)
    assert unknown.returncode == 2 and "no trace 'abc123'" in unknown.stderr
    assert "`toolweave trace list`" in unknown.stderr
    store = tmp_path / "state" / "traces.sqlite"
    store.write_bytes(b"garbage " * 512)
    answered = toolweave("ask", "Thank you!", cwd=tmp_path)
    assert answered.returncode == 0 and answered.stdout.startswith("Answer\nHello!")
    assert "trace " not in answered.stdout
    assert "the trace of this run was not stored" in " ".join(answered.stderr.split())
    broken = toolweave("trace", "list", cwd=tmp_path)
    assert broken.returncode == 2 and f"trace store {store} cannot be opened" in broken.stderr


def test_empty_and_huge_questions_are_refused_clearly(tmp_path: Path) -> None:
    empty = toolweave("ask", "   ", cwd=tmp_path)
    assert empty.returncode == 2 and "the question is empty" in empty.stderr
    huge = toolweave("ask", "w" * 102_400, cwd=tmp_path, timeout=30)
    assert (
        huge.returncode == 2
        and "102,400 characters long; the limit is 8,000" in huge.stderr.replace("\n", "")
    )


def test_config_errors_exit_2_with_the_file_and_field(tmp_path: Path) -> None:
    missing = toolweave("ask", DEMO, "--config", "nope.toml", cwd=tmp_path)
    assert missing.returncode == 2 and "nope.toml (from --config) does not exist" in missing.stderr
    (tmp_path / "toolweave.toml").write_text("[llm\nbackend='none'\n")
    invalid = toolweave("ask", DEMO, cwd=tmp_path)
    assert invalid.returncode == 2 and "invalid TOML" in invalid.stderr
    (tmp_path / "toolweave.toml").write_text("[ask]\nmax_question_char = 5\n")
    unknown = toolweave("config", cwd=tmp_path)
    assert unknown.returncode == 2 and "`ask.max_question_char`: unknown field" in unknown.stderr


def test_config_shows_the_effective_settings(tmp_path: Path) -> None:
    run = toolweave("config", cwd=tmp_path, env={"TOOLWEAVE_LLM__BACKEND": "none"})
    data = json.loads(run.stdout)
    assert data["llm"]["backend"] == "none" and set(data["mcpServers"]) == {"docs", "calc", "time"}


def test_help_and_version(tmp_path: Path) -> None:
    assert "ask" in toolweave("--help", cwd=tmp_path).stdout
    assert toolweave("--version", cwd=tmp_path).stdout.startswith("toolweave ")


def test_index_then_search_the_tools(tmp_path: Path) -> None:
    first = toolweave("index", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "9 tools on 4 servers" in first.stdout and "9 added" in first.stdout
    table = toolweave("tools", "search", "read a document", cwd=tmp_path).stdout
    assert "docs.read_doc" in table and "matched segment" in table
    hits = json.loads(toolweave("tools", "search", "time in Tokyo", "--json", cwd=tmp_path).stdout)
    assert hits[0]["key"] == "time.get_current_time" and hits[0]["segment"]


def test_tools_search_without_an_index_says_how_to_build_one(tmp_path: Path) -> None:
    run = toolweave("tools", "search", "anything", cwd=tmp_path)
    assert run.returncode == 2 and "build it with `toolweave index` first" in run.stderr


def test_tools_list_shows_each_server_and_its_tools(tmp_path: Path) -> None:
    run = toolweave("tools", "list", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "calc ready: 4 tools" in run.stdout and "get_current_time" in run.stdout
    listed = json.loads(toolweave("tools", "list", "--json", cwd=tmp_path).stdout)
    assert {s["name"] for s in listed["servers"]} == {"docs", "calc", "time", "search"}


def test_index_a_static_catalogue(tmp_path: Path) -> None:
    catalogue = tmp_path / "tool.jsonl"
    records = [
        {
            "api_name": "bookHotel",
            "api_description": "Book a hotel room in a city",
            "field": "Travel",
            "parameters": {"city": {"type": "str", "description": "City"}},
            "required": ["city"],
        },
        {
            "api_name": "getStockPrice",
            "api_description": "Current price of a stock ticker",
            "field": "Finance",
            "parameters": {"ticker": {"type": "str", "description": "Ticker"}},
            "required": ["ticker"],
        },
    ]
    catalogue.write_text("\n".join(json.dumps(r) for r in records))
    run = toolweave("index", "--catalog", str(catalogue), "--index", "cat", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "2 tools on 2 servers" in run.stdout
    hits = json.loads(
        toolweave(
            "tools", "search", "reserve a room in Rome", "--index", "cat", "--json", cwd=tmp_path
        ).stdout
    )
    assert hits[0]["key"] == "travel.bookHotel"
    rebuilt = toolweave(
        "index", "--catalog", str(catalogue), "--index", "cat", "--rebuild", cwd=tmp_path
    )
    assert "2 added" in rebuilt.stdout


@needs_benchmarks
def test_eval_retrieval_prints_metrics(tmp_path: Path) -> None:
    env = {"TOOLWEAVE_BENCHMARKS_DIR": str(BENCHMARKS)}
    args = [
        "eval",
        "retrieval",
        "toole-multi",
        "--variant",
        "bm25",
        "--variant",
        "dense",
        "--limit",
        "40",
    ]
    run = toolweave(*args, "--json", cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = json.loads(run.stdout)
    assert [(r["dataset"], r["config"], r["queries"]) for r in rows] == [
        ("toole-multi", "bm25", 40),
        ("toole-multi", "dense", 40),
    ]
    assert all(0 < r["metrics"]["R@5"] <= 1 and r["latency_p50_ms"] > 0 for r in rows)
    table = toolweave(*args, cwd=tmp_path, env=env, timeout=300).stdout
    assert (
        table.startswith("| dataset | config | queries | R@1 | R@5 |")
        and "| toole-multi | dense | 40 |" in table
    )
    unknown = toolweave(
        "eval", "retrieval", "toole-multi", "--variant", "magic", cwd=tmp_path, env=env
    )
    assert unknown.returncode == 2 and "unknown variant" in unknown.stderr


def test_eval_calls_names_its_datasets(tmp_path: Path) -> None:
    run = toolweave("eval", "calls", "bfcl-everything", cwd=tmp_path)
    assert run.returncode == 2
    assert "unknown dataset 'bfcl-everything'; choose from bfcl-simple" in run.stderr


@needs_benchmarks
def test_eval_plans_prints_plan_quality(tmp_path: Path) -> None:
    env = {"TOOLWEAVE_BENCHMARKS_DIR": str(BENCHMARKS)}
    args = ["eval", "plans", "nestful-sgd", "--planner", "deterministic", "--limit", "4"]
    run = toolweave(*args, "--json", cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(run.stdout)
    assert (row["dataset"], row["planner"], row["items"], row["llm_calls"]) == (
        "nestful-sgd",
        "deterministic",
        4,
        0,
    )
    assert len(row["results"]) == 4 and 0 <= row["edge_f1"] <= 1
    unknown = toolweave("eval", "plans", "--planner", "oracle", cwd=tmp_path, env=env)
    assert unknown.returncode == 2 and "unknown planner 'oracle'" in unknown.stderr


def test_concurrent_rebuilds_of_one_index_all_succeed(tmp_path: Path) -> None:
    """Three `index --rebuild` at once on one state dir: the index lock serialises them."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = str(tmp_path / "state")
    command = [sys.executable, "-m", "toolweave", "index", "--rebuild"]
    runs = [
        subprocess.Popen(
            command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    results = [(run.wait(timeout=120), run.stderr.read().decode()) for run in runs]
    assert [code for code, _ in results] == [0, 0, 0], results
    assert not any("Traceback" in stderr for _, stderr in results)
    hits = json.loads(toolweave("tools", "search", "time in Tokyo", "--json", cwd=tmp_path).stdout)
    assert hits[0]["key"] == "time.get_current_time"


def test_invalid_utf8_and_control_characters_in_a_question_get_an_answer(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 reach Python as lone surrogates; they used to crash `ask` and
    `tools search` with a traceback."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = str(tmp_path / "state")
    question = b"What is 15% of 2,340? caf\xe9 \xff\x1b[2J"
    for args in (["ask", question, "--json"], ["tools", "search", b"time \xff in Tokyo"]):
        run = subprocess.run(
            [sys.executable.encode(), b"-m", b"toolweave", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert b"Traceback" not in run.stderr, run.stderr
        assert run.returncode in (0, 2), run.stderr
    answer = json.loads(
        subprocess.run(
            [sys.executable.encode(), b"-m", b"toolweave", b"ask", question, b"--json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=120,
            check=True,
        ).stdout
    )
    assert "\ufffd" in answer["question"] and "\x1b" not in answer["question"]
    assert "351" in answer["text"]


def test_a_corpus_indexed_on_first_use_shows_progress_even_under_json(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        ("Van Hook Township", "Van Hook Township is a township in Mountrail County."),
        ("Mountrail County", "Mountrail County is a county in North Dakota. Its seat is Stanley."),
    ]
    corpus.write_text("".join(json.dumps({"title": t, "text": x}) + "\n" for t, x in rows))
    (tmp_path / "toolweave.toml").write_text(f'[grounding]\ncorpus = "{corpus}"\n')
    question = "What is the seat of the county where Van Hook Township is?"
    run = toolweave("ask", question, "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert f"indexing 2 passages of {corpus}" in run.stderr
    assert "embedded 2/2 passages" in run.stderr
    answer = json.loads(run.stdout)  # stdout is the JSON alone
    assert answer["short"] == "Stanley" and answer["text"].startswith("Stanley [")
    again = toolweave("ask", question, "--json", cwd=tmp_path)  # indexed once
    assert "indexing" not in again.stderr and json.loads(again.stdout)["short"] == "Stanley"


def test_progress_off_a_terminal_says_each_tenth_with_the_time_left(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from toolweave.cli.common import Bar

    now = [100.0]
    with Bar(clock=lambda: now[0]) as progress:
        for done in range(0, 201):
            progress("requests", done, 200)
            now[0] += 0.5
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "requests (200)"
    assert len(lines) == 11  # the start, then each tenth once
    assert lines[1] == "  requests: 20/200, 10 s, about 90 s left"
    assert lines[-1] == "  requests: 200/200, 100 s, about 0 s left"
