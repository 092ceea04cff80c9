"""`eval learning` on a tiny catalogue: simulated runs teach the index, the test queries (never
indexed) rank better after, and a run whose tools all fail teaches nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.evals.datasets import EvalQuery, RetrievalDataset
from toolweave.evals.learning import learning_curve, markdown, poisoning
from toolweave.index.learned import PER_SOURCE, PER_TOOL
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.types import ServerInfo, ToolSpec

pytestmark = pytest.mark.anyio
RECORD = ToolSpec(server="crm", name="lookup_record", description="Look up a record by its id.")
ENTRY = ToolSpec(server="crm", name="lookup_entry", description="Look up an entry by its id.")
ITEM = ToolSpec(server="crm", name="get_item", description="Get an item.")
TEST = [
    EvalQuery("t1", "which shoe size does customer 7 wear", frozenset({ENTRY.key})),
    EvalQuery("t2", "what is the shoe size of client 12", frozenset({ENTRY.key})),
]
TRAINING = {
    ENTRY.key: [
        "shoe size of customer 3",
        "what shoe size does customer 9 wear",
        "tell me the shoe size for customer 4",
    ]
}


def dataset() -> RetrievalDataset:
    servers = [ServerInfo(name="crm")]
    return RetrievalDataset("tiny", servers, [RECORD, ENTRY, ITEM], TEST, logged=TRAINING)


async def test_traffic_teaches_the_index_and_the_test_queries_rank_better(tmp_path: Path) -> None:
    points = await learning_curve(
        dataset(), OnnxEmbedder(), tmp_path, checkpoints=(0, 3), tries=3, batch=2
    )
    before, after = points
    assert (before.runs, before.taught, after.runs, after.taught) == (0, 0, 3, 3)
    assert after.examples == 3
    assert before.metrics["R@1"] < 1.0 and after.metrics["R@1"] == 1.0
    assert "| tiny | yes | yes | 3 | 3 | 3 |" in markdown(points)
    assert not list(tmp_path.glob("learning-*"))  # the working copy is removed


async def test_a_run_that_never_reaches_the_gold_tool_teaches_nothing(tmp_path: Path) -> None:
    wrong_first = RetrievalDataset(
        "tiny", [ServerInfo(name="crm")], [RECORD, ENTRY, ITEM], TEST,
        logged={ITEM.key: ["look up the record with id 5"]},
    )  # fmt: skip
    (_, after) = await learning_curve(
        wrong_first, OnnxEmbedder(), tmp_path, checkpoints=(0, 1), tries=1
    )
    assert (after.runs, after.taught, after.examples) == (1, 0, 0)


async def test_flooding_one_tool_is_held_by_the_caps_and_measured(tmp_path: Path) -> None:
    record = EvalQuery("t3", "open the record with id 5", frozenset({RECORD.key}))
    flood = {ITEM.key: [f"get item number {n}" for n in range(25)]}
    tiny = RetrievalDataset(
        "tiny", [ServerInfo(name="crm")], [RECORD, ENTRY, ITEM], [*TEST, record], logged=flood
    )
    points = await poisoning(tiny, OnnxEmbedder(), tmp_path)
    assert [p.attack for p in points] == ["none", "one source", "25 sources"]
    assert [p.examples for p in points] == [0, PER_SOURCE, PER_TOOL]
    assert len({p.victim for p in points}) == 1 and points[0].victim in {RECORD.key, ENTRY.key}
    assert points[0].recall_at_5 == 1.0  # three tools: every gold is in the top 5
    assert "| tiny | one source |" in markdown(points)
    assert not list(tmp_path.glob("poison-*"))
