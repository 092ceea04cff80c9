"""Recovery in a real MCP run: a read-only tool that fails is replaced by a stand-in that reads
the same thing, the answer says so, and the tool graph remembers it for the next run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toolweave.engine import Engine
from toolweave.navigation.graph import NEUTRAL

from ..test_engine import DATA, calls, configured

pytestmark = pytest.mark.anyio
QUESTION = "What is the air quality in Paris?"


def air(*flags: str) -> str:
    args = ", ".join(f'"{a}"' for a in (str(DATA / "air_server.py"), *flags))
    return f'[mcpServers.air]\ncommand = "{sys.executable}"\nargs = [{args}]\n'


async def test_a_failed_read_is_answered_by_a_stand_in_and_remembered(tmp_path: Path) -> None:
    async with Engine.open(configured(tmp_path, air("--broken"))) as engine:
        answer = await engine.ask(QUESTION)
    assert calls(answer) == [("pollution_readings", {"city": "Paris"})]
    assert answer.observations[0].ok and "Pollution readings in Paris" in answer.text
    assert any(
        "air.air_quality failed; air.pollution_readings instead" in note for note in answer.notes
    )
    async with Engine.open(configured(tmp_path, air("--broken"))) as engine:
        assert engine.graph.health("air.air_quality") < NEUTRAL
        assert engine.graph.stand_ins("air.air_quality")[0][0] == "air.pollution_readings"
        assert engine.graph.health("air.pollution_readings") > NEUTRAL
        # The user says the run was bad: the stand-in's success counts as a failure now.
        await engine.feedback(answer.trace_id, "bad")
        assert engine.graph.health("air.pollution_readings") < NEUTRAL
        assert engine.graph.stand_ins("air.air_quality")[0][1] < NEUTRAL
    # What the graph learned, as `toolweave graph` shows it.
    shown = graph_cli(tmp_path, "show", "air_quality")
    assert "air.air_quality" in shown and "air.pollution_readings" in shown
    assert "stands in" in shown and "1 stand-ins" in shown
    exported = json.loads(graph_cli(tmp_path, "export", "air.air_quality"))
    assert [(e["kind"], e["target"]) for e in exported["edges"]] == [
        ("stands_in", "air.pollution_readings")
    ]
    assert '"air.air_quality" -> "air.pollution_readings"' in graph_cli(
        tmp_path, "export", "--format", "dot"
    )
    unknown = subprocess.run(
        [*TOOLWEAVE, "graph", "show", "no_such_tool", "-c", str(tmp_path / "toolweave.toml")],
        env=environment(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert unknown.returncode == 2 and "no tool 'no_such_tool'" in unknown.stderr


TOOLWEAVE = [sys.executable, "-m", "toolweave"]


def environment(tmp_path: Path) -> dict[str, str]:
    return {"TOOLWEAVE_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"}


def graph_cli(tmp_path: Path, *args: str) -> str:
    done = subprocess.run(
        [*TOOLWEAVE, "graph", *args, "-c", str(tmp_path / "toolweave.toml")],
        env=environment(tmp_path), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_without_recovery_the_failure_is_reported(tmp_path: Path) -> None:
    settings = configured(tmp_path, air("--broken") + "[graph]\nrecover = false\n")
    async with Engine.open(settings) as engine:
        answer = await engine.ask(QUESTION)
    assert calls(answer) == [("air_quality", {"city": "Paris"})]
    assert not answer.observations[0].ok and answer.observations[0].error


async def test_a_folder_read_as_a_file_is_listed(tmp_path: Path) -> None:
    """The server says the path is a folder: a tool named for folders answers instead."""
    folder = tmp_path / "plans"
    folder.mkdir()
    (folder / "q3.txt").write_text("draft")
    server = (
        f'[mcpServers.files]\ncommand = "{sys.executable}"\nargs = ["{DATA / "files_server.py"}"]\n'
    )
    async with Engine.open(configured(tmp_path, server)) as engine:
        answer = await engine.ask(f"read the file {folder}")
    assert [(o.tool, o.ok) for o in answer.observations] == [("list_directory", True)]
    assert "q3.txt" in answer.text
    assert any("files.read_text_file failed" in note for note in answer.notes)
