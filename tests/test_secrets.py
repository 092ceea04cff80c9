"""No configured secret in clear: masked in `toolweave config`, server errors and stored traces.

The end-to-end test plants secrets (a server's env value, a header's token, an API key), runs
`toolweave` as a user does, and looks for them in every output and every file of the state
directory; only the server's own stderr log (logs/<server>.log) keeps what the server wrote."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.secrets import (
    configured_secrets,
    mask,
    mask_data,
    mask_secrets,
    server_secrets,
)
from toolweave.settings import load_settings
from toolweave.traces import LLMCall, TracePolicy, TraceStore, format_trace
from toolweave.types import Answer, Clause, Observation, ServerSpec, ServerStatus, Step

from .test_cli import toolweave

TOKEN = "tw-planted-env-secret-4f9a1c"  # a server's env value
BEARER = "tw-planted-bearer-77e2b0d5"  # a header's credentials
API_KEY = "sk-planted-api-key-0c3d5e7f9a"  # the LLM's and embedder's key
PLANTED = [TOKEN, BEARER, API_KEY]
LEAKY = (
    "import os, sys; print('token is', os.environ['SECRET_TOKEN'], file=sys.stderr); sys.exit(1)"
)


def test_mask_shows_the_kind_and_length_of_a_long_value_and_nothing_of_a_short_one() -> None:
    assert mask(API_KEY) == f"sk-…(masked, {len(API_KEY)} chars)"
    assert mask("hunter2") == "****"


def test_mask_secrets_replaces_each_known_value_wherever_it_stands() -> None:
    text = f"auth failed for {TOKEN}; retry with Bearer {BEARER}; flag=1"
    masked = mask_secrets(text, [TOKEN, "Bearer " + BEARER, BEARER, "1"])
    assert TOKEN not in masked and BEARER not in masked
    assert masked.endswith("flag=1")  # values under 6 characters are left alone
    assert f"(masked, {len(TOKEN)} chars)" in masked
    # The longest first: a secret holding another is masked whole.
    whole = mask_secrets(f"Bearer {BEARER}", [BEARER, f"Bearer {BEARER}"])
    assert whole == mask(f"Bearer {BEARER}")


def test_data_is_masked_in_its_strings_and_keeps_its_shape() -> None:
    """A secret of digits or quotes must not turn stored JSON into something unreadable."""
    odd = 'pa"ss\\wörd-1'
    data = {"latency": 123456, "said": [f"id 123456, key {odd}"], f"k {odd}": None}
    masked = mask_data(data, ["123456", odd])
    assert masked == {"latency": 123456, "said": ["id ****, key ****"], "k ****": None}
    assert json.loads(json.dumps(masked)) == masked


def test_the_secrets_are_env_and_header_values_and_the_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("MY_EMBED_KEY", "embedder-key-123")
    config = write_config(tmp_path, "[embedder]\napi_key_env = 'MY_EMBED_KEY'\n")
    found = configured_secrets(load_settings(config, env={}))
    assert {TOKEN, f"Bearer {BEARER}", BEARER, API_KEY, "embedder-key-123"} <= set(found)
    assert "Bearer" not in found
    assert server_secrets([ServerSpec(command="x", env={"DEBUG": "1"})]) == []


def write_config(folder: Path, extra: str = "") -> Path:
    path = folder / "toolweave.toml"
    path.write_text(
        f"""{extra}
[mcpServers.leaky]
command = {json.dumps(sys.executable)}
args = ["-c", {json.dumps(LEAKY)}]
env = {{ SECRET_TOKEN = "{TOKEN}" }}

[mcpServers.remote]
url = "http://127.0.0.1:9/mcp"
headers = {{ Authorization = "Bearer {BEARER}" }}

[mcpServers.off]
disabled = true
command = "unused"
env = {{ OTHER = "disabled-server-secret" }}
""",
        encoding="utf-8",
    )
    return path


@pytest.mark.anyio
async def test_a_failing_servers_stderr_is_quoted_masked(tmp_path: Path) -> None:
    leaky = ServerSpec(command=sys.executable, args=["-c", LEAKY], env={"SECRET_TOKEN": TOKEN})
    async with ServerPool({"leaky": leaky}, log_dir=tmp_path, reconnect=False) as pool:
        status = pool.statuses["leaky"]
    assert status.state == "failed" and "its stderr ends with: token is tw-…(masked" in (
        status.error or ""
    )
    assert TOKEN not in (status.error or "")
    assert TOKEN in (tmp_path / "leaky.log").read_text()  # the user's own log keeps it


def planted_answer() -> Answer:
    step = Step(id="s1", clause=Clause(index=0, text="q"), server="s", tool="t")
    return Answer(
        question=f"is {TOKEN} valid?",
        text=f"the key is {API_KEY}",
        observations=[
            Observation.of(step, text=f"env: {TOKEN}", structured={"auth": f"Bearer {BEARER}"}),
            Observation.of(step, error=f"401 for {BEARER}"),
            Observation.of(step, text="x" * 990 + TOKEN + "y" * 5000),  # the cut falls inside
        ],
        servers=[ServerStatus(name="s", state="failed", error=f"stderr: {TOKEN}")],
    )


def test_the_trace_store_keeps_no_secret(tmp_path: Path) -> None:
    path = tmp_path / "traces.sqlite"
    # "1234567": a secret of digits (a client id) must leave the trace's numbers readable.
    secrets = (TOKEN, f"Bearer {BEARER}", BEARER, API_KEY, "1234567")
    policy = TracePolicy(max_result_chars=1000, secrets=secrets)
    calls = [LLMCall(messages=[{"role": "user", "content": f"use {API_KEY}"}], response=TOKEN)]
    answer = planted_answer()
    answer.timings_ms = {"total": 1234567.0}
    with TraceStore(path, policy) as store:
        trace = store.get(store.add(answer, calls))
        listed = store.list()
    stored = trace.model_dump_json() + format_trace(trace) + listed[0].question
    assert not [secret for secret in PLANTED if secret in stored]
    assert trace.answer.observations[2].text.startswith("x" * 990 + "tw-…(mas")
    assert TOKEN in answer.observations[0].text  # the caller's answer is untouched
    assert trace.answer.timings_ms == {"total": 1234567.0}
    files = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert not [secret for secret in PLANTED if secret.encode() in files]


def test_no_planted_secret_leaves_toolweave_in_clear(tmp_path: Path) -> None:
    write_config(tmp_path)
    env = {"OPENAI_API_KEY": API_KEY, "TOOLWEAVE_LLM__BACKEND": "none"}
    runs = {
        "config": toolweave("config", cwd=tmp_path, env=env),
        "tools list": toolweave("tools", "list", "--json", cwd=tmp_path, env=env),
        "ask": toolweave("ask", "What is 15% of 2,340?", "--json", cwd=tmp_path, env=env),
    }
    for name, run in runs.items():
        assert run.returncode == 0, (name, run.stderr)
        leaked = [s for s in [*PLANTED, "disabled-server-secret"] if s in run.stdout + run.stderr]
        assert leaked == [], name
    shown = json.loads(runs["config"].stdout)
    assert shown["mcpServers"]["leaky"]["env"] == {"SECRET_TOKEN": mask(TOKEN)}
    assert shown["mcpServers"]["remote"]["headers"] == {"Authorization": mask(f"Bearer {BEARER}")}
    assert shown["_api_keys"] == {"OPENAI_API_KEY": mask(API_KEY)}
    listed = json.loads(runs["tools list"].stdout)
    [leaky] = [s for s in listed["servers"] if s["name"] == "leaky"]
    assert leaky["state"] == "failed" and "token is tw-…(masked" in leaky["error"]
    answered = json.loads(runs["ask"].stdout)
    assert answered["trace_id"] and "15% of 2,340 = 351" in answered["text"]
    state = tmp_path / "state"
    holding = sorted(
        str(p.relative_to(state))
        for p in state.rglob("*")
        if p.is_file() and any(s.encode() in p.read_bytes() for s in PLANTED)
    )
    # The server's stderr, as it wrote it, in the user's own log (README: logs/ is kept raw).
    assert holding == ["logs/leaky.log"]
