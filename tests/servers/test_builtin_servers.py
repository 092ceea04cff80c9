"""MCP round trips to the built-in servers and to mcp-server-time, each a real subprocess."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.settings import default_servers

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # module scope, so that one pool serves every test here


@pytest.fixture(scope="module")
def tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("servers")


@pytest.fixture(scope="module")
def docs_dir(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "garden.md").write_text(
        "# Gardening\n\n## Tomatoes\n\nTomatoes need full sun and regular watering.\n\n"
        "## Roses\n\nPrune roses in late winter before new growth starts.\n"
    )
    (root / "sub" / "bread.txt").write_text("Sourdough bread rises slowly because of wild yeast.\n")
    (root / ".hidden.md").write_text("secret tomatoes")
    (tmp_path / "outside.md").write_text("not for the server")
    return root


@pytest.fixture(scope="module")
async def pool(docs_dir: Path, tmp_path: Path) -> AsyncIterator[ServerPool]:
    async with ServerPool(default_servers(docs_dir), log_dir=tmp_path / "logs") as running:
        yield running


async def test_all_servers_start_and_list_their_tools(pool: ServerPool) -> None:
    assert {s.state for s in pool.statuses.values()} == {"ready"}
    keys = {t.key for t in pool.tools}
    assert {"docs.search_docs", "docs.read_doc", "calc.calculate", "calc.percentage"} <= keys
    assert {"calc.convert_units", "time.get_current_time", "time.convert_time"} <= keys
    percentage = next(t for t in pool.tools if t.key == "calc.percentage")
    assert percentage.input_schema["required"] == ["percent", "value"]
    assert percentage.hints.read_only is True and percentage.hints.destructive is False


async def test_calc_round_trips(pool: ServerPool) -> None:
    result = await pool.call("calc", "percentage", {"percent": 15, "value": 2340})
    assert result.ok and result.structured["result"] == 351
    assert result.structured["summary"] == "15% of 2,340 = 351"
    result = await pool.call("calc", "calculate", {"expression": "(2 + 3) * 4"})
    assert result.structured["result"] == 20
    result = await pool.call(
        "calc", "convert_units", {"value": 10, "from_unit": "mi", "to_unit": "km"}
    )
    assert result.structured["result"] == pytest.approx(16.09344)


async def test_calc_errors_are_tool_errors_not_crashes(pool: ServerPool) -> None:
    result = await pool.call("calc", "calculate", {"expression": "1/0"})
    assert not result.ok and "division by zero" in (result.error or "")
    result = await pool.call("calc", "percentage", {"percent": "lots"})
    assert not result.ok
    assert (await pool.call("calc", "calculate", {"expression": "2+2"})).ok  # still alive


async def test_docs_search_and_read(pool: ServerPool) -> None:
    result = await pool.call("docs", "search_docs", {"query": "when should I prune roses", "k": 2})
    hits = result.structured["results"]
    assert hits[0]["path"] == "garden.md" and hits[0]["section"] == "Roses"
    assert "late winter" in hits[0]["text"]
    result = await pool.call("docs", "search_docs", {"query": "wild yeast bread"})
    assert result.structured["results"][0]["path"] == str(Path("sub") / "bread.txt")
    result = await pool.call("docs", "search_docs", {"query": "secret"})
    assert result.structured["results"] == []  # hidden files are not indexed
    document = await pool.call("docs", "read_doc", {"path": "garden.md"})
    assert "Tomatoes need full sun" in document.structured["text"]


async def test_docs_refuses_paths_outside_its_folder(pool: ServerPool) -> None:
    result = await pool.call("docs", "read_doc", {"path": "../outside.md"})
    assert not result.ok and "no document" in (result.error or "")


async def test_time_server_round_trip(pool: ServerPool) -> None:
    result = await pool.call("time", "get_current_time", {"timezone": "Asia/Tokyo"})
    assert result.ok and result.structured["timezone"] == "Asia/Tokyo"
    assert result.structured["datetime"].endswith("+09:00")
    result = await pool.call(
        "time",
        "convert_time",
        {"source_timezone": "Europe/London", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    )
    assert result.ok and result.structured["target"]["datetime"][11:16] in ("20:00", "21:00")
    result = await pool.call("time", "get_current_time", {"timezone": "Mars/Olympus"})
    assert not result.ok and "Invalid timezone" in (result.error or "")


async def test_docs_server_rejects_a_missing_folder(tmp_path: Path) -> None:
    import subprocess

    run = subprocess.run(
        [sys.executable, "-m", "toolweave.servers.docs", "--root", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "is not a folder" in run.stderr


async def test_tool_descriptions_say_what_the_tool_does_not_the_demo_question(
    pool: ServerPool,
) -> None:
    """The README's demo must be answered by retrieval, not by a description that contains it."""
    ours = [t for t in pool.tools if t.server in ("calc", "docs")]
    described = [t.description for t in ours] + [
        str(p.get("description", ""))
        for t in ours
        for p in (t.input_schema.get("properties") or {}).values()
    ]
    assert described and not [d for d in described if re.search(r"2,?340|15 ?%|Tokyo", d)]
