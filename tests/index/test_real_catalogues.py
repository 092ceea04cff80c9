"""The real catalogues in ../shared/benchmarks, indexed with the bundled embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from toolweave.catalog.sources import load_catalogue
from toolweave.index import ToolIndex, sync_index
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.types import ToolSpec

from ..benchmarks_dir import LIVEMCP, SEAL, benchmark_file, needs_benchmarks

pytestmark = [pytest.mark.anyio, needs_benchmarks]
EMBEDDER = OnnxEmbedder()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("catalogues")


async def build(name: str, path: Path, folder: Path) -> tuple[ToolIndex, list[ToolSpec]]:
    servers, tools = load_catalogue(path)
    index = ToolIndex(folder / name, embedder_id=EMBEDDER.id, dim=EMBEDDER.dim)
    report = await sync_index(index, EMBEDDER, tools, servers)
    assert len(report.added) == len(tools) and report.unchanged == 0
    return index, tools


def top(index: ToolIndex, query: str, k: int = 3) -> list[str]:
    (vector,) = EMBEDDER.embed_sync([query])
    return [h.key for h in index.search(vector, k)]


QUERIES = [
    "get the weather forecast for Paris",
    "read the contents of a file on disk",
    "what time is it in Tokyo",
    "search the web with duckduckgo",
]


async def test_livemcpbench_index_reloads_identically_and_updates_one_tool(folder: Path) -> None:
    index, tools = await build("livemcp", benchmark_file(*LIVEMCP), folder)
    assert index.stats()["tools"] == 527 and index.stats()["servers"] == 70
    assert "mcp-weather-free.get_weather" in top(index, QUERIES[0])
    assert any(k.endswith(".read_file") for k in top(index, QUERIES[1]))
    vectors = EMBEDDER.embed_sync(QUERIES)
    before = [index.search(v, 10) for v in vectors] + [
        index.search(v, 5, level="server") for v in vectors
    ]
    lexical = [index.search_text(q, 10) for q in QUERIES]
    index.close()

    reopened = ToolIndex(folder / "livemcp", embedder_id=EMBEDDER.id, dim=EMBEDDER.dim)
    after = [reopened.search(v, 10) for v in vectors] + [
        reopened.search(v, 5, level="server") for v in vectors
    ]
    assert after == before
    assert [reopened.search_text(q, 10) for q in QUERIES] == lexical

    target = next(t for t in tools if t.key == "mcp-weather-free.get_weather")
    description = "Current weather and a 7-day outlook for any city, with wind and humidity."
    updated = target.model_copy(update={"description": description})
    changed = [updated if t.key == target.key else t for t in tools]
    calls: list[int] = []
    original = EMBEDDER.embed

    async def counting(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        return await original(texts)

    EMBEDDER.embed = counting  # type: ignore[method-assign]
    try:
        report = await sync_index(reopened, EMBEDDER, changed)
    finally:
        del EMBEDDER.embed
    assert report.updated == [target.key] and report.unchanged == 526 and not report.removed
    new_segments = len(reopened.segments_of(target.key))
    assert sum(calls) == report.embedded and 0 < report.embedded <= new_segments
    assert "wind and humidity" in " ".join(s.text for s in reopened.segments_of(target.key))


async def test_seal_tools_index_reloads_identically(folder: Path) -> None:
    index, _ = await build("seal", benchmark_file(*SEAL), folder)
    assert index.stats()["tools"] == 4076
    assert "chemical-engineering/forensic-engineering.analyzeEvidence" in top(
        index, "analyze the chemical evidence found at a crime scene", 5
    )
    vectors = EMBEDDER.embed_sync(QUERIES)
    before = [index.search(v, 10) for v in vectors]
    index.close()
    reopened = ToolIndex(folder / "seal", embedder_id=EMBEDDER.id, dim=EMBEDDER.dim)
    assert [reopened.search(v, 10) for v in vectors] == before
