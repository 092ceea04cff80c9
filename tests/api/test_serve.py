"""`toolweave serve` end to end: a real uvicorn process over the real default MCP servers, asked
with plain HTTP, the official `openai` client and the official MCP client (streamable HTTP and
stdio), as users of curl, an OpenAI SDK or a desktop client would."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ElicitRequestParams, ElicitResult
from openai import OpenAI

from tests.api.served import KEY, OTHER_KEY, Served, alive, environment, start, write_config
from tests.catalog.processes import matching

DEMO = "What is 15% of 2,340, and what time is it in Tokyo?"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    service = start(tmp_path_factory.mktemp("serve"), "rate_per_minute = 10000\n")
    yield service
    service.stop()


def events(text: str) -> list[tuple[str, object]]:
    """The (event, data) pairs of an SSE body."""
    found = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        found.append((lines.get("event", ""), json.loads(lines["data"])))
    return found


def test_ask_answers_with_sources_and_a_stored_trace(served: Served) -> None:
    with served.client() as http:
        reply = http.post("/v1/ask", json={"question": DEMO})
        assert reply.status_code == 200, reply.text
        answer = reply.json()
        assert "351" in answer["text"] and "Asia/Tokyo" in answer["text"]
        assert [s["id"] for s in answer["sources"]] == [1, 2]
        assert answer["route"] == "parallel" and answer["timings_ms"]["total"] > 0
        trace = http.get(f"/v1/traces/{answer['trace_id']}").json()
        assert trace["answer"]["text"] == answer["text"]
        listed = http.get("/v1/traces", params={"limit": 5}).json()
        assert answer["trace_id"] in [t["id"] for t in listed]


def test_bad_feedback_on_a_run_unlearns_what_it_taught(served: Served) -> None:
    with served.client() as http:
        answer = http.post("/v1/ask", json={"question": "Convert 26.2 miles to km"}).json()
        assert "42.16" in answer["text"]
        trace_id = answer["trace_id"]
        reply = http.post(f"/v1/traces/{trace_id[:6]}/feedback", json={"rating": "bad"})
        assert reply.json() == {
            "trace_id": trace_id,
            "rating": "bad",
            "unlearned": ["calc.convert_units"],
        }
        wrong = http.post(f"/v1/traces/{trace_id}/feedback", json={"rating": "meh"})
        assert wrong.status_code == 422 and "rating" in wrong.text
        missing = http.post("/v1/traces/ffffffff/feedback", json={"rating": "good"})
        assert missing.status_code == 404 and "no trace" in missing.text


def test_ask_streams_the_runs_events_in_order(served: Served) -> None:
    with served.client() as http:
        reply = http.post("/v1/ask", json={"question": DEMO, "stream": True})
    assert reply.headers["content-type"].startswith("text/event-stream")
    names = [name for name, _ in events(reply.text)]
    assert names.index("route") < names.index("plan") < names.index("step")
    assert names[-3:] == ["sources", "answer", "done"]
    kinds = [data["kind"] for name, data in events(reply.text) if name == "step"]  # type: ignore[index]
    assert kinds.count("started") == 2 and kinds.count("finished") == 2
    answer = dict(events(reply.text))["answer"]
    assert "351" in answer["text"]  # type: ignore[index]


def test_the_openai_client_gets_cited_answers_streamed_or_not(served: Served) -> None:
    openai = OpenAI(base_url=f"{served.url}/v1", api_key=KEY)
    assert [m.id for m in openai.models.list()] == ["toolweave"]
    completion = openai.chat.completions.create(
        model="toolweave",
        messages=[{"role": "user", "content": "What is 15% of 2,340?"}],
        temperature=0.2,
    )
    text = completion.choices[0].message.content or ""
    assert "351 [1]" in text and "Sources:\n[1] calc.percentage" in text
    assert completion.sources[0]["id"] == 1  # type: ignore[attr-defined]
    stream = openai.chat.completions.create(
        model="toolweave",
        messages=[{"role": "user", "content": "What is 15% of 2,340?"}],
        stream=True,
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "351" in "".join(c.choices[0].delta.content or "" for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_an_earlier_turn_gives_a_follow_up_its_place(served: Served) -> None:
    openai = OpenAI(base_url=f"{served.url}/v1", api_key=KEY)
    completion = openai.chat.completions.create(
        model="toolweave",
        messages=[
            {"role": "user", "content": "What time is it in Tokyo?"},
            {"role": "assistant", "content": "It is 15:52 in Tokyo."},
            {"role": "user", "content": "And what time is it there now?"},
        ],
    )
    assert "Asia/Tokyo" in (completion.choices[0].message.content or "")


async def _front_tools(client: Client) -> None:
    """What a desktop client does with the front: list, search, call, ask."""
    listed = await client.list_tools()
    assert sorted(t.name for t in listed.tools) == ["ask", "call_tool", "search_tools"]
    found = await client.call_tool("search_tools", {"query": "percentage of a number", "k": 3})
    names = [tool["name"] for tool in found.structured_content["result"]]  # type: ignore[index]
    assert "calc.percentage" in names
    called = await client.call_tool(
        "call_tool", {"name": "calc.percentage", "arguments": {"percent": 15, "value": 2340}}
    )
    assert not called.is_error and "351" in called.content[0].text  # type: ignore[union-attr]
    wrong = await client.call_tool(
        "call_tool", {"name": "calc.percentage", "arguments": {"percent": "lots"}}
    )
    assert wrong.is_error and "'value' is a required property" in wrong.content[0].text  # type: ignore[union-attr]
    asked = await client.call_tool("ask", {"question": "What is 15% of 2,340?"})
    assert "351 [1]" in asked.content[0].text  # type: ignore[union-attr]


def test_the_mcp_client_uses_the_front_over_http(served: Served) -> None:
    async def main() -> None:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(f"{served.url}/mcp", http_client=http)) as client,
        ):
            await _front_tools(client)

    anyio.run(main)


def test_a_destructive_call_on_the_front_needs_the_users_yes(served: Served) -> None:
    answers: list[str] = []

    def user(says: str) -> Any:
        async def elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
            answers.append(params.message)
            return ElicitResult(action="accept", content={"run": says == "yes"})

        return elicit

    async def forget(name: str, **client: Any) -> tuple[bool, str]:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(f"{served.url}/mcp", http_client=http), **client) as c,
        ):
            result = await c.call_tool(
                "call_tool", {"name": "slow.forget", "arguments": {"name": name}}
            )
            return result.is_error, result.content[0].text  # type: ignore[union-attr]

    cannot_ask = anyio.run(forget, "ann")
    declined = anyio.run(partial(forget, "bob", elicitation_callback=user("no")))
    accepted = anyio.run(partial(forget, "cy", elicitation_callback=user("yes")))
    assert cannot_ask[0] and "policy.auto_approve" in cannot_ask[1]
    assert declined[0] and "consent for slow.forget was not given" in declined[1]
    assert accepted == (False, "forgot cy")
    assert "slow.forget may change or delete data" in answers[0]
    assert [line for line in served.slow_log if line.startswith("forgot")] == ["forgot:cy"]


def test_the_mcp_front_needs_the_key_too(served: Served) -> None:
    with served.client(key=None) as http:
        reply = http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert reply.status_code == 401


def test_the_mcp_client_uses_the_front_over_stdio(tmp_path: Path) -> None:
    write_config(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolweave", "serve", "--mcp", "stdio"],
        env=environment(tmp_path),
        cwd=str(tmp_path),
    )

    async def main() -> None:
        async with Client(stdio_client(params)) as client:
            await _front_tools(client)

    anyio.run(main)


def test_tools_search_lists_and_health(served: Served) -> None:
    with served.client() as http:
        found = http.post("/v1/tools/search", json={"query": "time in a city", "k": 3}).json()
        assert found["results"][0]["name"] == "time.get_current_time"
        assert found["results"][0]["read_only"] is True
        assert "properties" in found["results"][0]["input_schema"]
        tools = http.get("/v1/tools").json()
        assert {s["name"] for s in tools["servers"]} >= {"calc", "time", "docs", "slow"}
        assert "calc.percentage" in {f"{t['server']}.{t['name']}" for t in tools["tools"]}
        ready = http.get("/readyz").json()
        assert ready["ready"] and all(s["state"] == "ready" for s in ready["servers"])
    with served.client(key=None) as http:
        assert http.get("/healthz").json() == {"status": "ok"}


def test_the_tool_graph_says_how_each_tool_has_fared(served: Served) -> None:
    with served.client() as http:
        assert http.post("/v1/ask", json={"question": "What is 15% of 2,340?"}).status_code == 200
        graph = http.get("/v1/graph", params={"tool": "percentage"}).json()
        health = {t["tool"]: t["health"] for t in graph["tools"]}
        assert health["calc.percentage"] > 0.5
        everything = http.get("/v1/graph").json()
        assert {t["tool"] for t in everything["tools"]} >= set(health)
        missing = http.get("/v1/graph", params={"tool": "no_such_tool"})
        assert missing.status_code == 404 and "no_such_tool" in missing.json()["error"]["message"]


def test_metrics_count_requests_stages_and_tool_calls(served: Served) -> None:
    with served.client() as http:
        http.post("/v1/ask", json={"question": "What is 15% of 2,340?"})
        text = http.get("/metrics").text
    assert 'toolweave_requests_total{method="POST",route="/v1/ask",status="200"}' in text
    assert 'toolweave_stage_seconds_count{stage="select"}' in text
    assert 'toolweave_tool_calls_total{outcome="ok"}' in text
    assert "toolweave_active_runs 0.0" in text


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "a JSON object"),
        (b'{"question": 42}', 422, "question: Input should be a valid string"),
        (b'{"question": "hi", "colour": "red"}', 422, "colour: unknown field"),
        (b'{"question": "hi", "options": {"yes": "maybe"}}', 422, "options.yes"),
        (b'{"question": "   "}', 400, "the question is empty"),
        (json.dumps({"question": "why " * 3000}).encode(), 400, "the limit is 8,000"),
    ],
)
def test_bad_requests_get_a_message_naming_the_problem(
    served: Served, body: bytes, status: int, words: str
) -> None:
    with served.client() as http:
        reply = http.post("/v1/ask", content=body, headers={"content-type": "application/json"})
        assert reply.status_code == status
        error = reply.json()["error"]
        assert words in error["message"] and "Traceback" not in reply.text
        assert http.post("/v1/ask", json={"question": "What is 15% of 2,340?"}).status_code == 200


def test_keys_models_and_sizes_are_checked(served: Served) -> None:
    with served.client(key=None) as http:
        missing = http.post("/v1/ask", json={"question": "What is 2+2?"})
    with served.client(key="not-a-key-at-all") as http:
        wrong = http.post("/v1/ask", json={"question": "What is 2+2?"})
    assert missing.status_code == wrong.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    with served.client(key=OTHER_KEY) as http:
        too_big = http.post("/v1/ask", content=b"x" * 1_000_001)
        assert too_big.status_code == 413 and "serve.max_body_bytes" in too_big.text
        model = http.post(
            "/v1/chat/completions",
            json={"model": "gpt-4", "messages": [{"role": "user", "content": "hi"}]},
        )
        assert model.status_code == 404 and "'toolweave'" in model.text
        extra = http.post(
            "/v1/chat/completions",
            json={"model": "toolweave", "messages": [], "flavour": 1},
        )
        assert extra.status_code == 422 and "flavour" in extra.text
        assert http.get("/v1/nothing").status_code == 404
        assert http.post("/v1/ask", json={"question": "What is 2+2?"}).status_code == 200


def test_no_key_appears_in_responses_logs_metrics_or_traces(served: Served) -> None:
    with served.client() as http:
        answer = http.post("/v1/ask", json={"question": "What is 2+2?"}).json()
        seen = [json.dumps(answer), http.get("/metrics").text]
        seen.append(http.get(f"/v1/traces/{answer['trace_id']}").text)
        seen.append(http.get("/v1/tools").text)
        # A key pasted into a question is masked in the answer and its trace.
        pasted = http.post("/v1/ask", json={"question": f"What is 2+2? {KEY}"}).json()
        seen += [json.dumps(pasted), http.get(f"/v1/traces/{pasted['trace_id']}").text]
    seen.append(served.log)
    seen += [p.read_bytes().decode(errors="replace") for p in served.folder.rglob("traces*")]
    assert not [text for text in seen if KEY in text or OTHER_KEY in text]
    assert "…(masked, 28 chars)" in pasted["question"]


def test_a_killed_mcp_server_is_reconnected_while_the_others_serve(served: Served) -> None:
    (calc,) = [pid for pid in matching("toolweave.servers.calc") if pid in served.descendants()]
    subprocess.run(["kill", "-9", str(calc)], check=True)
    with served.client() as http:
        tokyo = http.post("/v1/ask", json={"question": "What time is it in Tokyo?"}).json()
        assert "Asia/Tokyo" in tokyo["text"]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            answer = http.post("/v1/ask", json={"question": "What is 15% of 2,340?"}).json()
            if "351" in answer["text"]:
                break
            time.sleep(0.5)
        assert "351" in answer["text"]


def test_a_client_leaving_mid_stream_cancels_the_run_and_its_tool_call(served: Served) -> None:
    question = {"question": "pause for 30 seconds", "stream": True}
    with served.client() as http, http.stream("POST", "/v1/ask", json=question) as reply:
        for line in reply.iter_lines():
            if line.startswith("event: step"):
                break
    deadline = time.monotonic() + 10
    while "cancelled" not in served.slow_log and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [w for w in served.slow_log if not w.startswith("forgot")] == ["started", "cancelled"]
    with served.client() as http:
        assert "active_runs 0.0" in http.get("/metrics").text
        assert http.post("/v1/ask", json={"question": "What is 2+2?"}).status_code == 200


def test_a_client_leaving_a_plain_request_cancels_the_run_too(served: Served) -> None:
    before = served.slow_log.count("cancelled")
    with served.client(timeout=1.5) as http, pytest.raises(httpx2.TimeoutException):
        http.post("/v1/ask", json={"question": "pause for 30 seconds"})
    deadline = time.monotonic() + 10
    while served.slow_log.count("cancelled") == before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert served.slow_log.count("cancelled") == before + 1


def test_cors_is_off_unless_origins_are_configured(served: Served) -> None:
    preflight = {"Origin": "http://ui.example", "Access-Control-Request-Method": "POST"}
    with served.client() as http:
        reply = http.options("/v1/ask", headers=preflight)
    assert "access-control-allow-origin" not in reply.headers


def test_limits_deadline_and_a_graceful_stop(tmp_path: Path) -> None:
    strict = start(
        tmp_path, 'rate_per_minute = 4\ndeadline_s = 3\ncors_origins = ["http://ui.example"]\n'
    )
    try:
        with strict.client(key=None) as http:  # a browser's preflight carries no key
            preflight = {"Origin": "http://ui.example", "Access-Control-Request-Method": "POST"}
            allowed = http.options("/v1/ask", headers=preflight)
            assert allowed.headers["access-control-allow-origin"] == "http://ui.example"
        with strict.client() as http:
            late = http.post("/v1/ask", json={"question": "pause for 20 seconds"})
            assert late.status_code == 504 and "serve.deadline_s" in late.text
            codes = [http.get("/v1/models").status_code for _ in range(4)]
            assert codes[-1] == 429 and int(http.get("/v1/models").headers["retry-after"]) >= 1
        with strict.client(key=OTHER_KEY) as http:  # a limit per key
            assert http.get("/v1/models").status_code == 200
        # A question still running when SIGTERM comes is answered, and its trace kept.
        replies: list[httpx2.Response] = []
        with strict.client(key=OTHER_KEY) as http:
            asking = threading.Thread(
                target=lambda: replies.append(
                    http.post("/v1/ask", json={"question": "pause for 1 seconds"})
                )
            )
            asking.start()
            while "started" not in strict.slow_log[1:]:
                time.sleep(0.05)
            servers = strict.descendants()
            assert len(servers) >= 4  # docs, calc, time, slow
            assert strict.stop(signal.SIGTERM) == 0
            asking.join()
    finally:
        strict.process.kill()
    assert replies[0].status_code == 200 and "paused 1 s" in replies[0].json()["text"]
    assert alive(servers) == []
    assert "Traceback" not in strict.log
    stored = subprocess.run(
        [sys.executable, "-m", "toolweave", "trace", "list", "--json"],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert replies[0].json()["trace_id"] in stored.stdout


def test_serve_refuses_to_start_without_keys_or_open_on_a_network(tmp_path: Path) -> None:
    write_config(tmp_path)
    env = environment(tmp_path)
    del env["TOOLWEAVE_API_KEYS"]
    command = [sys.executable, "-m", "toolweave", "serve", "--port", "0"]
    no_keys = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert no_keys.returncode == 2 and "TOOLWEAVE_API_KEYS" in no_keys.stderr
    opened = subprocess.run(
        [*command, "--host", "0.0.0.0", "--no-auth"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert opened.returncode == 2 and "loopback" in opened.stderr
