"""The NESTFUL plan evaluation: loading the real files, the scores on hand-made sequences, and a
run of the deterministic planner with the real embedder."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from toolweave.errors import InputError
from toolweave.evals.plans import (
    DATASETS,
    PlanCase,
    PlannedCall,
    edges,
    evaluate_plans,
    f1,
    folds,
    gold_calls,
    links,
    load_nestful,
    markdown,
    nestful_tool,
    plan_calls,
    run_plan_eval,
    score_item,
)
from toolweave.evals.ranking import ToolRanker
from toolweave.models import NoLLM
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.navigation.graph import Edge
from toolweave.types import Clause, Plan, Step

from ..benchmarks_dir import BENCHMARKS, needs_benchmarks

pytestmark = pytest.mark.anyio

GOLD_OUTPUT = [
    {"name": "find_author", "arguments": {"name": "Ann Leckie"}, "label": "var1"},
    {"name": "books_by", "arguments": {"author_id": "$var1.author[0].id$"}, "label": "var2"},
    {"name": "var_result", "arguments": {"books": "$var2$"}},
]


def test_gold_calls_keep_order_and_turn_references_into_positions() -> None:
    calls = gold_calls(GOLD_OUTPUT)
    assert calls == [
        PlannedCall("find_author", {"name": "Ann Leckie"}),
        PlannedCall("books_by", {"author_id": (0, "author.0.id")}),
    ]
    assert edges(calls) == Counter({("find_author", "books_by", "author_id"): 1})


def step(step_id: str, tool: str, arguments: dict[str, object]) -> Step:
    return Step(
        id=step_id, clause=Clause(index=0, text="x"), server="s", tool=tool, arguments=arguments
    )


def test_a_plan_that_matches_scores_one_everywhere() -> None:
    case = PlanCase("c", "Which books did Ann Leckie write?", gold_calls(GOLD_OUTPUT))
    plan = Plan(
        steps=[
            step("s1", "find_author", {"name": "ann leckie "}),
            step("s2", "books_by", {"author_id": "{{s1.result.author.0.id}}"}),
        ]
    )
    item = score_item(case, plan_calls(plan))
    assert (item.call_f1, item.edge_f1, item.names, item.full) == (1.0, 1.0, True, True)


def test_a_plan_without_the_data_flow_loses_the_edge_and_the_sequence() -> None:
    case = PlanCase("c", "Which books did Ann Leckie write?", gold_calls(GOLD_OUTPUT))
    plan = Plan(
        steps=[
            step("s1", "find_author", {"name": "Ann Leckie"}),
            step("s2", "books_by", {"author_id": "Ann Leckie"}),
            step("s3", "books_by", {}),
        ]
    )
    item = score_item(case, plan_calls(plan))
    assert item.call_f1 == pytest.approx(0.8)  # 2 of 3 predicted, 2 of 2 gold
    assert (item.edge_f1, item.names, item.full) == (0.0, False, False)


def test_f1_is_a_multiset_f1() -> None:
    assert f1(Counter("aab"), Counter("ab")) == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert f1(Counter(), Counter()) == 1.0
    assert f1(Counter("a"), Counter()) == 0.0


def test_specs_become_tool_specs() -> None:
    spec = {
        "name": "Buses.FindBus",
        "description": "Find a bus",
        "query_parameters": {
            "origin": {"description": "Origin city", "required": True, "allowed_values": []},
            "fare": {"required": False, "allowed_values": ["Economy", "Flexible"]},
        },
        "output_parameters": {"departure_time": {"description": "When it leaves"}},
    }
    tool = nestful_tool(spec, "sgd")
    assert tool.key == "sgd.Buses.FindBus"
    assert tool.input_schema["required"] == ["origin"]
    assert tool.input_schema["properties"]["fare"] == {
        "type": "string",
        "enum": ["Economy", "Flexible"],
    }
    assert tool.output_schema == {
        "type": "object",
        "properties": {"departure_time": {"type": "string", "description": "When it leaves"}},
    }


@needs_benchmarks
@pytest.mark.parametrize(
    ("name", "items", "tools"),
    [("nestful-executable", 85, 39), ("nestful-glaive", 169, 64), ("nestful-sgd", 46, 30)],
)
def test_the_real_files_load(name: str, items: int, tools: int) -> None:
    dataset = load_nestful(name, BENCHMARKS)
    assert (len(dataset.cases), len(dataset.tools)) == (items, tools)
    names = {t.name for t in dataset.tools}
    assert all(call.name in names for case in dataset.cases for call in case.gold)
    assert sum(sum(edges(case.gold).values()) for case in dataset.cases) > len(dataset.cases)
    dev, test = (load_nestful(name, BENCHMARKS, split=half).cases for half in ("dev", "test"))
    assert len(dev) == items // 2 and len(dev) + len(test) == items
    assert {c.id for c in dev} | {c.id for c in test} == {c.id for c in dataset.cases}
    assert not {c.id for c in dev} & {c.id for c in test}
    with pytest.raises(InputError, match="unknown split 'train': choose dev or test"):
        load_nestful(name, BENCHMARKS, split="train")


def test_unknown_names_and_missing_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown dataset 'nestful-x'; choose from"):
        load_nestful("nestful-x", tmp_path)
    with pytest.raises(InputError, match=r"NESTFUL file .* is missing"):
        load_nestful("nestful-sgd", tmp_path)


@needs_benchmarks
async def test_the_deterministic_planner_finds_data_flow_on_real_items(tmp_path: Path) -> None:
    dataset = load_nestful("nestful-executable", BENCHMARKS, limit=12)
    ranker = ToolRanker(OnnxEmbedder(), tmp_path)
    row = await evaluate_plans(
        dataset, "deterministic", NoLLM(), ranker, min_score=0.28, today=date(2024, 1, 1)
    )
    assert row.items == 12 and row.llm_calls == 0
    assert row.gold_calls == sum(len(c.gold) for c in dataset.cases)
    # Every executable item has data flow; without linking the edge F1 would be 0.
    assert row.edge_f1 > 0.1
    assert 0 < row.call_f1 <= 1 and row.predicted_calls > 0
    assert "| nestful-executable | all | deterministic | schema | 12 |" in markdown([row])


@needs_benchmarks
def test_the_gold_graph_of_one_half_never_holds_the_other_halfs_chains() -> None:
    dataset = load_nestful("nestful-sgd", BENCHMARKS)
    (first, _), (second, taught_by_first) = folds(dataset, "gold")
    assert sorted(c.id for c in first + second) == sorted(c.id for c in dataset.cases)
    assert not {c.id for c in first} & {c.id for c in second}
    learned = {e for e, t in taught_by_first.edges.items() if t.origin == "gold"}
    keys = {t.name: t.key for t in dataset.tools}
    taught = {
        Edge("feeds", keys[made.name], keys[used.name], path, name)
        for case in first
        for made, path, used, name in links(case.gold)
    }
    assert taught and all(taught_by_first.weight(e) > 0.5 for e in taught)
    # What the first half taught and nothing else; the schemas' edges stay under it.
    ((_, schema),) = folds(dataset, "schema")
    assert learned == taught - set(schema.edges)
    assert set(schema.edges) <= set(taught_by_first.edges)


async def test_unknown_planners_are_refused(tmp_path: Path) -> None:
    ranker = ToolRanker(OnnxEmbedder(), tmp_path)
    with pytest.raises(InputError, match="unknown planner 'oracle'"):
        await run_plan_eval(BENCHMARKS, list(DATASETS), ["oracle"], NoLLM(), ranker, min_score=0.3)
