"""Plan quality on NESTFUL: toolweave's planners against gold sequences of nested calls.

Each NESTFUL item is a question and the calls that answer it, in order, where an argument may be
an earlier call's output (`$var1.skyId$`): a data-flow DAG. The system under test sees the
question and the subset's tool specs (39 executable, 64 Glaive, 30 SGD tools), never the gold:
  clauses      the question analysed (`language.analyse`); each clause's candidates ranked
               as `ask` ranks them, over an index of the subset's tools (`evals/ranking.py`)
  plan         deterministic: `deterministic_plan`, as `ask` plans (a tool per clause at
               `ask.min_tool_score`, a step per value set, then the data flow: carried values,
               references to earlier outputs, producer steps);
               llm: `llm_plan` with the configured LLM (TURA-style tasks, schema-constrained)
  arguments    the step agent (`prepare_step`): extractors, then the LLM for what they leave;
               the deterministic planner gets no LLM at all
Scores per item, averaged over items:
  call F1      the predicted tool names against the gold ones, as multisets
  edge F1      data-flow edges (producer tool, consumer tool, consumer parameter), as multisets
  names        the predicted tool names in the gold order, exactly
  full         the whole sequence: names, argument names and values (strings compared without
               case, numbers as numbers, references by the position of the call they point to
               and the path inside its output), as NESTFUL's full-sequence accuracy
The tool graph the planner links data flow by (navigation/graph.py): `schema`, the one the
subset's schemas give; `gold`, that one taught the gold chains of the other half of the items
(NESTFUL has no training split: a seeded 2-fold split, so no item's own chain is ever taught).
NESTFUL has no development split either: `split` takes a seeded half of each subset, `dev` to
read and tune on, `test` only to report.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from toolweave.errors import InputError
from toolweave.evals.datasets import read_file, seeded_half
from toolweave.evals.ranking import ToolRanker
from toolweave.evals.retrieval import Progress, percentile
from toolweave.execution.step_agent import prepare_step
from toolweave.language import analyse
from toolweave.models.base import LLM, NoLLM
from toolweave.navigation.graph import Edge, ToolGraph
from toolweave.planning import PlanRequest, make_planner
from toolweave.planning.references import REFERENCE, map_strings
from toolweave.types import Plan, ToolSpec

PLANNERS = ("deterministic", "llm")
GRAPHS = ("schema", "gold")
SUBSETS = {
    "nestful-executable": ("executable/executable-data.json", "executable/executable-spec.json"),
    "nestful-glaive": (
        "non-executable/non-executable-glaive-data.json",
        "non-executable/non-executable-glaive-spec.json",
    ),
    "nestful-sgd": (
        "non-executable/non-executable-sgd-data.json",
        "non-executable/non-executable-sgd-spec.json",
    ),
}
DATASETS = tuple(SUBSETS)
NESTFUL_REFERENCE = re.compile(r"\$(?P<label>var\d+)(?P<path>(?:[.\[][^$]*)?)\$")
JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
SEED = 19


@dataclass(frozen=True)
class PlannedCall:
    """One call of a sequence; `arguments` hold references as (position, path) pairs."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class PlanCase:
    id: str
    question: str
    gold: list[PlannedCall]


@dataclass
class PlanDataset:
    name: str
    tools: list[ToolSpec]
    cases: list[PlanCase]
    split: str = "all"


@dataclass
class PlanItem:
    id: str
    question: str
    predicted: list[PlannedCall]
    call_f1: float
    edge_f1: float
    names: bool
    full: bool


@dataclass
class PlanRow:
    dataset: str
    split: str
    planner: str
    graph: str
    items: int
    call_f1: float
    edge_f1: float
    names_accuracy: float
    full_accuracy: float
    gold_calls: int
    predicted_calls: int
    llm_calls: int
    latency_p50_ms: float
    latency_p95_ms: float
    results: list[PlanItem] = field(default_factory=list)


def load_nestful(
    name: str, root: Path, *, split: str | None = None, limit: int | None = None, seed: int = 0
) -> PlanDataset:
    if name not in SUBSETS:
        raise InputError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    folder = root / "nestful"
    data_file, spec_file = (folder / part for part in SUBSETS[name])
    if not data_file.is_file():
        raise InputError(
            f"NESTFUL file {data_file} is missing: set TOOLWEAVE_BENCHMARKS_DIR or the "
            "benchmarks_dir setting to the folder that holds nestful/"
        )
    server = name.removeprefix("nestful-")
    tools = [nestful_tool(spec, server) for spec in json.loads(read_file(spec_file))]
    cases = [
        PlanCase(f"{server}-{n}", item["input"], gold_calls(item["output"]))
        for n, item in enumerate(json.loads(read_file(data_file)))
    ]
    if split is not None:
        cases = seeded_half(cases, split, SEED, lambda c: c.id)
    if limit is not None and limit < len(cases):
        cases = random.Random(seed).sample(cases, limit)
    return PlanDataset(name, tools, cases, split or "all")


def nestful_tool(spec: dict[str, Any], server: str) -> ToolSpec:
    """A NESTFUL spec as a ToolSpec: `query_parameters` -> input schema (SGD's
    `allowed_values` as an enum), `output_parameters` -> output schema."""
    parameters = spec.get("query_parameters") or {}
    return ToolSpec(
        server=server,
        name=spec["name"],
        description=spec.get("description", ""),
        input_schema={
            "type": "object",
            "properties": {name: _schema(prop) for name, prop in parameters.items()},
            "required": [name for name, prop in parameters.items() if prop.get("required")],
        },
        output_schema={
            "type": "object",
            "properties": {
                name: _schema(prop) for name, prop in (spec.get("output_parameters") or {}).items()
            },
        },
    )


def _schema(prop: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": prop.get("type") if prop.get("type") in JSON_TYPES else "string"
    }
    if prop.get("description"):
        schema["description"] = prop["description"]
    if enum := prop.get("enum") or prop.get("allowed_values"):
        schema["enum"] = enum
    if isinstance(prop.get("properties"), dict):
        schema["properties"] = {
            k: _schema(v) for k, v in prop["properties"].items() if isinstance(v, dict)
        }
    if isinstance(prop.get("items"), dict):
        schema["items"] = _schema(prop["items"])
    return schema


def gold_calls(output: list[dict[str, Any]]) -> list[PlannedCall]:
    """The gold calls in order, `var_result` (the answer's assembly) left out."""
    calls = [c for c in output if c["name"] != "var_result"]
    position = {c.get("label"): n for n, c in enumerate(calls)}

    def reference(text: str) -> Any:
        whole = NESTFUL_REFERENCE.fullmatch(text)
        if whole is None or whole["label"] not in position:
            return text
        return (position[whole["label"]], _path(whole["path"]))

    return [PlannedCall(c["name"], map_strings(c["arguments"], reference)) for c in calls]


def plan_calls(plan: Plan) -> list[PlannedCall]:
    """The plan's tool calls in order, references as (position, path) pairs."""
    steps = [s for s in plan.steps if s.tool]
    position = {s.id: n for n, s in enumerate(steps)}

    def reference(text: str) -> Any:
        whole = REFERENCE.fullmatch(text)
        if whole is None or whole["step"] not in position:
            return text
        return (position[whole["step"]], _path(whole["path"]))

    return [PlannedCall(s.tool, map_strings(s.arguments, reference)) for s in steps]


def _path(path: str) -> str:
    """'.author[0].id' and '.author.0.id' -> 'author.0.id'."""
    return re.sub(r"\[(\d+)\]", r".\1", path).strip(".")


def _references(value: Any) -> Iterator[tuple[int, str]]:
    if isinstance(value, tuple):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _references(item)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def links(calls: list[PlannedCall]) -> Iterator[tuple[PlannedCall, str, PlannedCall, str]]:
    """(producer, path in its output, consumer, consumer parameter) for every reference."""
    for call in calls:
        for name, value in call.arguments.items():
            for producer, path in _references(value):
                if 0 <= producer < len(calls):
                    yield calls[producer], path, call, name


def edges(calls: list[PlannedCall]) -> Counter[tuple[str, str, str]]:
    """(producer tool, consumer tool, consumer parameter) for every reference."""
    return Counter((made.name, used.name, name) for made, _, used, name in links(calls))


def gold_graph(tools: list[ToolSpec], cases: list[PlanCase]) -> ToolGraph:
    """The schemas' graph taught each reference of these cases' gold chains as a success."""
    keys = {t.name: t.key for t in tools}
    graph = ToolGraph.derived(tools)
    taught = [
        (Edge("feeds", keys[made.name], keys[used.name], path, name), True)
        for case in cases
        for made, path, used, name in links(case.gold)
        if made.name in keys and used.name in keys
    ]
    graph.record(taught, origin="gold")
    return graph


def folds(dataset: PlanDataset, graph: str) -> list[tuple[list[PlanCase], ToolGraph]]:
    """The cases to plan and the graph each half is planned with (see the module's doc)."""
    if graph == "schema":
        return [(dataset.cases, ToolGraph.derived(dataset.tools))]
    shuffled = random.Random(1).sample(dataset.cases, len(dataset.cases))
    halves = shuffled[::2], shuffled[1::2]
    return [(halves[0], gold_graph(dataset.tools, halves[1])),
            (halves[1], gold_graph(dataset.tools, halves[0]))]  # fmt: skip


def f1(predicted: Counter[Any], gold: Counter[Any]) -> float:
    """Multiset F1; 1.0 when both are empty (nothing to find, nothing claimed)."""
    if not predicted and not gold:
        return 1.0
    matched = sum((predicted & gold).values())
    if matched == 0:
        return 0.0
    precision, recall = matched / sum(predicted.values()), matched / sum(gold.values())
    return 2 * precision * recall / (precision + recall)


def normalise(value: Any) -> Any:
    if isinstance(value, tuple):
        return ("reference", *value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = " ".join(value.split()).casefold()
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return text
    if isinstance(value, dict):
        return tuple(sorted((k, normalise(v)) for k, v in value.items()))
    return tuple(normalise(v) for v in value)


def same_sequence(predicted: list[PlannedCall], gold: list[PlannedCall]) -> bool:
    return len(predicted) == len(gold) and all(
        p.name == g.name and normalise(p.arguments) == normalise(g.arguments)
        for p, g in zip(predicted, gold, strict=True)
    )


def score_item(case: PlanCase, predicted: list[PlannedCall]) -> PlanItem:
    return PlanItem(
        id=case.id,
        question=case.question,
        predicted=predicted,
        call_f1=f1(Counter(c.name for c in predicted), Counter(c.name for c in case.gold)),
        edge_f1=f1(edges(predicted), edges(case.gold)),
        names=[c.name for c in predicted] == [c.name for c in case.gold],
        full=same_sequence(predicted, case.gold),
    )


async def make_plan(
    question: str,
    tools: list[ToolSpec],
    ranker: ToolRanker,
    planner: str,
    llm: LLM,
    *,
    min_score: float,
    today: date,
    graph: ToolGraph | None = None,
) -> Plan:
    """The plan the planner makes for the question, its steps' arguments filled."""
    analysis = analyse(question, today)
    candidates = await ranker.rank([c.text for c in analysis.clauses], tools)
    by_key = {t.key: t for t in tools}
    servers = {t.server for t in tools}
    request = PlanRequest(analysis, candidates, by_key, min_score, None, servers, graph)
    plan, _ = await make_planner(planner, llm).plan(request)
    for step in plan.steps:
        await prepare_step(step, by_key, llm)
    return plan


async def evaluate_plans(
    dataset: PlanDataset,
    planner: str,
    llm: LLM,
    ranker: ToolRanker,
    *,
    min_score: float,
    today: date,
    graph: str = "schema",
    on_progress: Progress = lambda *_: None,
) -> PlanRow:
    llm = llm if planner == "llm" else NoLLM("the deterministic planner uses no LLM")
    await ranker.prepare(dataset.tools)
    requests = llm.usage.requests
    items: list[PlanItem] = []
    latencies: list[float] = []
    for cases, tool_graph in folds(dataset, graph):
        for case in cases:
            on_progress(f"{dataset.name} ({planner}, {graph})", len(items), len(dataset.cases))
            started = time.perf_counter()
            plan = await make_plan(
                case.question, dataset.tools, ranker, planner, llm,
                min_score=min_score, today=today, graph=tool_graph,
            )  # fmt: skip
            latencies.append((time.perf_counter() - started) * 1000)
            items.append(score_item(case, plan_calls(plan)))
    count = max(len(items), 1)
    return PlanRow(
        dataset=dataset.name,
        split=dataset.split,
        planner=planner,
        graph=graph,
        items=len(items),
        call_f1=round(sum(i.call_f1 for i in items) / count, 4),
        edge_f1=round(sum(i.edge_f1 for i in items) / count, 4),
        names_accuracy=round(sum(i.names for i in items) / count, 4),
        full_accuracy=round(sum(i.full for i in items) / count, 4),
        gold_calls=sum(len(c.gold) for c in dataset.cases),
        predicted_calls=sum(len(i.predicted) for i in items),
        llm_calls=llm.usage.requests - requests,
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
        results=items,
    )


def markdown(rows: list[PlanRow]) -> str:
    header = ["dataset", "split", "planner", "graph", "items", "call F1", "edge F1"]
    header += ["names in order"]
    header += ["full sequence", "gold calls", "predicted calls", "LLM calls", "p50 ms", "p95 ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        cells = [r.dataset, r.split, r.planner, r.graph, str(r.items), f"{r.call_f1:.3f}"]
        cells += [f"{r.edge_f1:.3f}"]
        cells += [f"{r.names_accuracy:.3f}", f"{r.full_accuracy:.3f}", str(r.gold_calls)]
        cells += [str(r.predicted_calls), str(r.llm_calls)]
        cells += [f"{r.latency_p50_ms:.0f}", f"{r.latency_p95_ms:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def run_plan_eval(
    benchmarks_dir: Path,
    datasets: list[str],
    planners: list[str],
    llm: LLM,
    ranker: ToolRanker,
    *,
    min_score: float,
    split: str | None = None,
    limit: int | None = None,
    graphs: tuple[str, ...] = ("schema",),
    on_progress: Progress = lambda *_: None,
    today: date | None = None,
) -> list[PlanRow]:
    """One row per dataset, planner and graph; of the `split` half (default: all items), `limit`
    items sampled per dataset (seed 0)."""
    if unknown := [p for p in planners if p not in PLANNERS]:
        raise InputError(f"unknown planner {unknown[0]!r}; choose from {', '.join(PLANNERS)}")
    if unknown := [g for g in graphs if g not in GRAPHS]:
        raise InputError(f"unknown graph {unknown[0]!r}; choose from {', '.join(GRAPHS)}")
    rows = []
    for name in datasets:
        dataset = load_nestful(name, benchmarks_dir, split=split, limit=limit)
        for planner in planners:
            for graph in graphs:
                row = await evaluate_plans(
                    dataset, planner, llm, ranker, min_score=min_score,
                    today=today or date.today(), graph=graph, on_progress=on_progress,
                )  # fmt: skip
                rows.append(row)
    return rows
