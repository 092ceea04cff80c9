from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.index import ToolIndex, sync_index
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever, _aggregate, _convex, _rrf
from toolweave.types import IndexHit, ToolSpec

from ..index.fakes import HashingEmbedder

pytestmark = pytest.mark.anyio


def hit(key: str, score: float) -> IndexHit:
    return IndexHit(key=key, server="s", score=score)


def test_rrf_rewards_agreement() -> None:
    fused = _rrf([[hit("a", 0.9), hit("b", 0.8)], [hit("b", 5.0), hit("c", 4.0)]], 60)
    assert [h.key for h in fused] == ["b", "a", "c"]


def test_convex_normalises_each_source() -> None:
    fused = _convex([hit("a", 0.9), hit("b", 0.1)], [hit("b", 30.0), hit("a", 10.0)], 0.7)
    assert [h.key for h in fused] == ["a", "b"]
    assert fused[0].score == pytest.approx(0.7)


def test_each_clause_keeps_its_best_tools() -> None:
    whole = [hit(f"w{i}", 1.0 - i / 100) for i in range(10)]
    clause_a = [hit("a1", 0.5), hit("a2", 0.4)]
    clause_b = [hit("b1", 0.3)]
    keys = [h.key for h in _aggregate([whole, clause_a, clause_b], 5)]
    assert "a1" in keys and "b1" in keys and len(keys) == 5


async def test_a_two_part_question_finds_both_tools(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    tools = [
        ToolSpec(server="travel", name="book_hotel", description="Book a hotel room in a city."),
        ToolSpec(server="weather", name="get_forecast", description="Weather forecast for a city."),
        *[
            ToolSpec(server="misc", name=f"tool_{i}", description=f"Unrelated thing number {i}.")
            for i in range(30)
        ],
    ]
    index = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    await sync_index(index, embedder, tools)
    retriever = ToolRetriever(index, embedder, RetrievalOptions())
    question = "Book a hotel room in Paris and tell me the weather forecast there"
    assert retriever.queries(question)[1:] == [
        "Book a hotel room in Paris",
        "tell me the weather forecast there",
    ]
    keys = [h.key for h in await retriever.search(question, 3)]
    assert {"travel.book_hotel", "weather.get_forecast"} <= set(keys)
    with pytest.raises(ValueError, match="dense search, lexical search or both"):
        ToolRetriever(index, embedder, RetrievalOptions(dense=False, lexical=False))
