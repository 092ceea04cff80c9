from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.evals.datasets import EvalQuery, RetrievalDataset
from toolweave.evals.retrieval import (
    CONFIGS,
    WARM_QUERIES_PER_TOOL,
    document,
    eval_index,
    evaluate,
    markdown,
)
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.types import ServerInfo, ToolSpec

pytestmark = pytest.mark.anyio
EMBEDDER = OnnxEmbedder()
FORECAST = ToolSpec(
    server="weather", name="getForecast", description="Weather forecast for a city."
)
CONVERT = ToolSpec(
    server="money", name="convert_currency", description="Convert between currencies."
)
TRANSLATE = ToolSpec(server="lang", name="translate", description="Translate text to a language.")


def test_document_styles() -> None:
    assert [s.text for s in document(FORECAST, "plain").segments] == [
        "get forecast: Weather forecast for a city."
    ]
    assert len(document(FORECAST, "spec-1v").segments) == 1
    logged = [f"will it rain in town {i}?" for i in range(50)]
    warm = document(FORECAST, "warm", logged)
    from_log = [s for s in warm.segments if s.origin == "logged"]
    assert len(from_log) == WARM_QUERIES_PER_TOOL and {s.text for s in from_log} <= set(logged)
    assert [s.text for s in document(FORECAST, "warm", logged).segments] == [
        s.text for s in warm.segments
    ]  # the same sample every time
    enhanced = document(FORECAST, "enhanced")
    assert [s.text for s in warm.segments if s.origin != "logged"] == [
        s.text for s in enhanced.segments
    ]


async def test_evaluate_scores_the_ranking_against_the_gold_tools(tmp_path: Path) -> None:
    queries = [
        EvalQuery("q1", "will it rain in Oslo tomorrow?", frozenset({FORECAST.key})),
        EvalQuery("q2", "how many yen is 20 euros", frozenset({CONVERT.key})),
        EvalQuery("q3", "say 'good night' in French", frozenset({TRANSLATE.key})),
    ]
    servers = [ServerInfo(name=t.server) for t in (FORECAST, CONVERT, TRANSLATE)]
    dataset = RetrievalDataset("tiny", servers, [FORECAST, CONVERT, TRANSLATE], queries)
    index = await eval_index(dataset, "spec", EMBEDDER, tmp_path)
    assert len(index) == 3 and len(list((tmp_path / "tiny").glob("spec-v2-*"))) == 1
    row = await evaluate(dataset, CONFIGS["full"], index, EMBEDDER)
    assert (
        row.queries == 3 and row.metrics["R@1"] == 1.0 and row.metrics["P@5"] == pytest.approx(0.2)
    )
    assert 0 < row.search_p50_ms <= row.latency_p50_ms
    # A dataset whose gold tool is never retrieved scores zero.
    wrong = [EvalQuery("q", q.text, frozenset({"nowhere.tool"})) for q in queries]
    missed = await evaluate(
        RetrievalDataset("tiny", servers, dataset.tools, wrong), CONFIGS["full"], index, EMBEDDER
    )
    assert missed.metrics["R@10"] == 0.0
    assert markdown([row, missed]).count("| tiny | full | 3 |") == 2
    index.close()
    # Tools whose text changed get an index of their own, never the cached one.
    blank = [t.model_copy(update={"description": ""}) for t in dataset.tools]
    other = await eval_index(
        RetrievalDataset("tiny", servers, blank, queries), "spec", EMBEDDER, tmp_path
    )
    assert len(list((tmp_path / "tiny").glob("spec-v2-*"))) == 2
    spec = other.tool_spec(FORECAST.key)
    assert spec is not None and spec.description == ""
    other.close()
