"""Tool-call accuracy: toolweave's step agent on BFCL v4 (AST match) and Seal-Tools (Toolshed).

The system under test sees only the question and the candidate tools, never the gold calls:
  calls    one per question; in BFCL's parallel categories one per clause of the question
           (`split_clauses`). This is the simplest strategy and its limit is known: a question
           that asks for several calls in one clause ("the area of circles with radius 3 and
           5") still gets one call, and a clause that is a mere detail gets a call of its own.
  tool     the only candidate, or the clause's best three of the item's tools ranked as `ask`
           ranks them (`evals/ranking.py`: the fused retriever over an index of those tools);
           the step agent (`prepare_step`) re-weighs them with `feasibility` before it fills
           the arguments.
  values   `fill_arguments`: the deterministic extractors, then the grammar-constrained LLM for
           the required arguments they leave; a call whose arguments still break the schema is
           scored as it is (and counted under "argument problems").
Tools are indexed before the clock starts, as a running engine holds them.

Datasets: bfcl-simple (simple_python), bfcl-multiple, bfcl-parallel, bfcl-parallel-multiple
(score: BFCL's AST accuracy; the non-live overall is their unweighted mean) and seal-calls, the
200 single-call items of Seal-Tools `test_in_domain.jsonl` with the tool chosen among all 4,076
(score: Toolshed's weighted score, see `ast_match.toolshed_score`).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from toolweave.catalog.sources import load_catalogue
from toolweave.errors import InputError
from toolweave.evals.ast_match import Answer, Call, Mismatch, check_calls, toolshed_score
from toolweave.evals.datasets import read_file, seeded_half
from toolweave.evals.ranking import ToolRanker
from toolweave.evals.retrieval import Progress, percentile
from toolweave.execution.step_agent import prepare_step
from toolweave.language import clause_of
from toolweave.language.binding import extract_arguments, listed_sets, value_sets
from toolweave.language.clauses import split_clauses
from toolweave.models.base import LLM
from toolweave.types import Step, ToolSpec

BFCL_CATEGORIES = {
    "bfcl-simple": "simple_python",
    "bfcl-multiple": "multiple",
    "bfcl-parallel": "parallel",
    "bfcl-parallel-multiple": "parallel_multiple",
}
DATASETS = (*BFCL_CATEGORIES, "seal-calls")
# BFCL's Python type names as JSON Schema types (BFCL's own handlers map them the same way).
BFCL_JSON_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": "string",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
}
SCHEMA_KEYS = {"description", "enum", "default", "format", "minimum", "maximum", "required"}
SEED = 20  # of the dev/test halves: neither has a development split of its own


@dataclass(frozen=True)
class BfclGold:
    functions: list[dict[str, Any]]  # the function documents with BFCL's own type names
    answers: list[Answer]


@dataclass(frozen=True)
class CallCase:
    id: str
    question: str
    tools: list[ToolSpec]
    parallel: bool  # the question asks for several calls (BFCL's parallel categories)
    gold: BfclGold | Call  # for the scorer only: `predict` never sees it
    gold_calls: int


Scorer = Callable[[CallCase, list[Call]], tuple[float, Mismatch | None]]


@dataclass
class CallDataset:
    name: str
    metric: str
    cases: list[CallCase]
    score: Scorer
    split: str = "all"


@dataclass
class CaseResult:
    id: str
    question: str
    calls: list[Call]
    score: float
    mismatch: Mismatch | None
    argument_problems: int
    origins: list[dict[str, str]]  # per call: who chose each argument (extracted, llm, ...)


@dataclass
class CallRow:
    dataset: str
    split: str
    metric: str
    items: int
    score: float  # mean over the items
    exact: float  # share of items scored 1 (the same as `score` for AST accuracy)
    gold_calls: int
    predicted_calls: int
    llm_calls: int
    argument_problems: int  # calls whose arguments still broke the tool's schema
    latency_p50_ms: float
    latency_p95_ms: float
    mismatches: dict[str, int]  # why items failed, by kind
    results: list[CaseResult] = field(default_factory=list)


def load_call_dataset(
    name: str, root: Path, *, split: str | None = None, limit: int | None = None, seed: int = 0
) -> CallDataset:
    """The dataset's items, or the `split` half of them (seeded), or `limit` sampled from those."""
    if name not in DATASETS:
        raise InputError(f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")
    if not root.is_dir():
        raise InputError(
            f"benchmark folder {root} does not exist: "
            "set TOOLWEAVE_BENCHMARKS_DIR or the benchmarks_dir setting"
        )
    dataset = load_seal_calls(root) if name == "seal-calls" else load_bfcl(root, name)
    if split is not None:
        dataset.cases = seeded_half(dataset.cases, split, SEED, lambda c: c.id)
        dataset.split = split
    if limit is not None and limit < len(dataset.cases):
        dataset.cases = random.Random(seed).sample(dataset.cases, limit)
    return dataset


def _json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in read_file(path).splitlines() if line.strip()]


def load_bfcl(root: Path, name: str) -> CallDataset:
    """One BFCL v4 category with its possible answers."""
    category = BFCL_CATEGORIES[name]
    folder = root / "bfcl"
    answers = {
        a["id"]: a["ground_truth"]
        for a in _json_lines(folder / "possible_answer" / f"BFCL_v4_{category}.json")
    }
    cases = [
        CallCase(
            id=item["id"],
            question=" ".join(m["content"] for m in item["question"][0] if m["role"] == "user"),
            tools=[bfcl_tool(f) for f in item["function"]],
            parallel=category.startswith("parallel"),
            gold=BfclGold(item["function"], answers[item["id"]]),
            gold_calls=len(answers[item["id"]]),
        )
        for item in _json_lines(folder / f"BFCL_v4_{category}.json")
    ]
    return CallDataset(name, "AST accuracy", cases, score_bfcl)


def bfcl_tool(function: dict[str, Any]) -> ToolSpec:
    return ToolSpec(
        server="bfcl",
        name=function["name"],
        description=function.get("description", ""),
        input_schema=bfcl_schema(function["parameters"]),
    )


def bfcl_schema(prop: dict[str, Any]) -> dict[str, Any]:
    """A BFCL parameter schema ("dict", "float", "tuple", ...) as JSON Schema."""
    schema = {k: v for k, v in prop.items() if k in SCHEMA_KEYS}
    schema["type"] = BFCL_JSON_TYPES.get(prop.get("type", "string"), "string")
    if "items" in prop:
        schema["items"] = bfcl_schema(prop["items"])
    if "properties" in prop:
        schema["properties"] = {n: bfcl_schema(p) for n, p in prop["properties"].items()}
    return schema


def score_bfcl(case: CallCase, calls: list[Call]) -> tuple[float, Mismatch | None]:
    assert isinstance(case.gold, BfclGold)
    mismatch = check_calls(case.gold.functions, calls, case.gold.answers, parallel=case.parallel)
    return (0.0 if mismatch else 1.0), mismatch


def load_seal_calls(root: Path) -> CallDataset:
    """The single-call items of Seal-Tools' in-domain test split, over the whole catalogue."""
    _, tools = load_catalogue(root / "seal_tools" / "tool.jsonl")
    names = {t.name for t in tools}
    cases = [
        CallCase(
            id=item["id"],
            question=item["query"],
            tools=tools,
            parallel=False,
            gold=Call(item["calling"][0]["api"], item["calling"][0]["parameters"]),
            gold_calls=1,
        )
        for item in _json_lines(root / "seal_tools" / "test_in_domain.jsonl")
        if len(item["calling"]) == 1 and item["calling"][0]["api"] in names
    ]
    return CallDataset("seal-calls", "Toolshed score", cases, score_seal)


def score_seal(case: CallCase, calls: list[Call]) -> tuple[float, Mismatch | None]:
    assert isinstance(case.gold, Call)
    gold, call = case.gold, calls[0] if calls else None
    score = toolshed_score(call, gold)
    if score == 1.0:
        return score, None
    if call is None or call.name != gold.name:
        return score, Mismatch("wrong_tool", f"{call.name if call else None} for {gold.name}")
    if call.arguments.keys() != gold.arguments.keys():
        return score, Mismatch(
            "wrong_keys", f"{sorted(call.arguments)} for {sorted(gold.arguments)}"
        )
    return score, Mismatch("wrong_values", f"{call.arguments} for {gold.arguments}")


async def predict(
    question: str,
    tools: list[ToolSpec],
    parallel: bool,
    llm: LLM,
    ranker: ToolRanker,
    today: date,
) -> list[Step]:
    """The steps toolweave's step agent prepares for the question: one call each, or in the
    parallel categories one per clause and value set (`_parallel_calls`)."""
    texts = split_clauses(question) if parallel else [question]
    steps = []
    for i, (text, candidates) in enumerate(
        zip(texts, await ranker.rank(texts, tools), strict=True)
    ):
        clause = clause_of(i, text, today)
        step = Step(
            id=f"call-{i}",
            clause=clause,
            server=candidates[0].tool.server,
            tool=candidates[0].tool.name,
            candidates=candidates,
        )
        by_key = {c.tool.key: c.tool for c in candidates}
        await prepare_step(step, by_key, llm)
        tool = by_key.get(step.key)
        sets, halves = [], [text]
        if parallel and tool:
            sets = _sets(value_sets(tool.input_schema, clause), step.arguments, text)
            halves = [] if sets else _repeated(text, tool.input_schema, today)
        for n, arguments in enumerate(sets):
            copy = step.model_copy(update={"id": f"call-{i}.{n}", "arguments": arguments})
            await prepare_step(copy, {tool.key: tool} if tool else by_key, llm)
            steps.append(copy)
        if len(halves) > 1 and tool:
            for n, half in enumerate(halves):
                copy = Step(id=f"call-{i}.{n}", clause=clause_of(i, half, today), **_bound(step))
                await prepare_step(copy, {tool.key: tool}, llm)
                steps.append(copy)
        steps.extend([] if sets or len(halves) > 1 else [step])
    return await _parallel_calls(steps, {t.key: t for t in tools}, llm) if parallel else steps


def _sets(
    found: list[dict[str, Any]], arguments: dict[str, Any], text: str
) -> list[dict[str, Any]]:
    """The value sets, each crossed with the lists the step's other names are one of ("Lakers
    and Bulls in NBA seasons 2018 and 2020": each team in each season); the lists alone when
    no value set is found."""
    if not found:
        return listed_sets(arguments, text)
    varying = {n for n in found[0] if len({str(s.get(n)) for s in found}) > 1}
    names = {n: v for n, v in arguments.items() if isinstance(v, str) and n not in varying}
    lists = listed_sets(names, text)
    return [each | listed for each in found for listed in lists] if lists else found


# Where a clause may say its call again: "... on May 3rd and another flight from Tokyo ...".
_AND = re.compile(r",?\s+and\s+(?:(?:also|for|another)\s+)?")


def _repeated(text: str, schema: dict[str, Any], today: date) -> list[str]:
    """The clause cut at each "and" after which the tool's values are given again, two at
    least, one of them another ("'Queens Hotel' in Berlin from March 10 to March 20 and for
    'Royal Hotel' in Paris from April 5 to April 15"); [text] when they are not."""
    parts, start = [], 0
    for join in _AND.finditer(text):
        if re.search(r"\d\W*$", text[: join.start()]) and re.match(r"\W*\d", text[join.end() :]):
            continue  # "between 2 and 5": a pair of numbers, one call's
        left = _values_given(schema, text[start : join.start()], today)
        right = _values_given(schema, text[join.end() :], today)
        if left and right and any(left.get(n, v) != v for n, v in right.items()):
            parts.append(text[start : join.start()])
            start = join.end()
    return [*parts, text[start:]] if parts else [text]


def _values_given(schema: dict[str, Any], text: str, today: date) -> dict[str, Any]:
    """The values the text gives the tool, if it gives two at least, each written apart (one
    quoted name filling two parameters is one value)."""
    filled = extract_arguments(schema, clause_of(0, text, today))
    given = {n for n, origin in filled.origins.items() if origin == "extracted"}
    written = {(s.start, s.end) for n, s in filled.spans.items() if n in given}
    return {n: filled.arguments[n] for n in given} if len(written) >= 2 else {}


def _bound(step: Step) -> dict[str, Any]:
    return {"server": step.server, "tool": step.tool, "candidates": step.candidates}


_GIVEN = ("extracted", "plan")  # origins of the values a clause gave, not a model


def _given(step: Step) -> dict[str, Any]:
    return {n: v for n, v in step.arguments.items() if step.argument_origins.get(n) in _GIVEN}


async def _parallel_calls(steps: list[Step], tools: dict[str, ToolSpec], llm: LLM) -> list[Step]:
    """The calls a several-call question makes of the clauses' steps. A clause that gives its
    tool no value while another gives the same tool some sets the scene ("Imagine you are
    observing two racing cars."): no call. A clause whose values complete the call before it
    ("starts at 300 K and ends at 350 K. The heat capacity is 4.18 J/K.") joins it. A call
    still missing a required value takes the one the last call of its tool was given ("the
    same company", "a similar house"). A call changed so is prepared again, the model
    filling only what no clause gave."""
    changed: set[str] = set()
    calls = _inherited(_joined(steps, tools, changed), tools, changed)
    for step in calls:
        if step.id in changed and (tool := tools.get(step.key)):
            given = _given(step)
            step.arguments, step.argument_origins = given, dict.fromkeys(given, "plan")
            step.problem = None
            await prepare_step(step, {tool.key: tool}, llm)
    return calls


def _joined(steps: list[Step], tools: dict[str, ToolSpec], changed: set[str]) -> list[Step]:
    """The steps less those that only set the scene, each that completes the one before it
    joined to it (its id added to `changed`)."""
    valued = {s.key for s in steps if _given(s)}
    calls: list[Step] = []
    for step in steps:
        if not _given(step) and step.key in valued:
            continue
        before = calls[-1] if calls else None
        if before is not None and before.key == step.key and _completes(before, step, tools):
            _take(before, _given(step))
            changed.add(before.id)
        else:
            calls.append(step)
    return calls


def _inherited(calls: list[Step], tools: dict[str, ToolSpec], changed: set[str]) -> list[Step]:
    """The calls, each missing a required value given the last call of its tool's."""
    for n, step in enumerate(calls):
        last = next((c for c in reversed(calls[:n]) if c.key == step.key), None)
        tool = tools.get(step.key)
        if last is None or tool is None:
            continue
        missing = [r for r in tool.input_schema.get("required") or [] if r not in _given(step)]
        if inherited := {r: v for r, v in _given(last).items() if r in missing}:
            _take(step, inherited)
            changed.add(step.id)
    return calls


def _completes(before: Step, step: Step, tools: dict[str, ToolSpec]) -> bool:
    """Whether `step`'s values are ones the call before lacks, and it lacks some required or
    `step` gives only options ("You want the area and perimeter of this triangle")."""
    tool = tools.get(before.key)
    had, gives = _given(before), _given(step)
    required = set(tool.input_schema.get("required") or []) if tool else set()
    lacking = required - had.keys() or not required & gives.keys()
    return bool(gives) and not had.keys() & gives.keys() and bool(lacking)


def _take(step: Step, values: dict[str, Any]) -> None:
    step.arguments.update(values)
    step.argument_origins.update(dict.fromkeys(values, "plan"))


async def evaluate_calls(
    dataset: CallDataset,
    llm: LLM,
    ranker: ToolRanker,
    *,
    today: date,
    on_progress: Progress = lambda *_: None,
) -> CallRow:
    for n, case in enumerate(dataset.cases):
        on_progress(f"indexing {dataset.name} tools", n, len(dataset.cases))
        if len(case.tools) > 1:
            await ranker.prepare(case.tools)
    requests = llm.usage.requests
    results, latencies = [], []
    for i, case in enumerate(dataset.cases):
        on_progress(dataset.name, i, len(dataset.cases))
        started = time.perf_counter()
        steps = await predict(case.question, case.tools, case.parallel, llm, ranker, today)
        latencies.append((time.perf_counter() - started) * 1000)
        calls = [Call(s.tool, s.arguments) for s in steps]
        score, mismatch = dataset.score(case, calls)
        problems = sum(s.problem is not None for s in steps)
        origins = [s.argument_origins for s in steps]
        results.append(
            CaseResult(case.id, case.question, calls, score, mismatch, problems, origins)
        )
    return _row(dataset, results, latencies, llm.usage.requests - requests)


def _row(
    dataset: CallDataset, results: list[CaseResult], latencies: list[float], llm_calls: int
) -> CallRow:
    count = max(len(results), 1)
    return CallRow(
        dataset=dataset.name,
        split=dataset.split,
        metric=dataset.metric,
        items=len(results),
        score=round(sum(r.score for r in results) / count, 4),
        exact=round(sum(r.score == 1.0 for r in results) / count, 4),
        gold_calls=sum(c.gold_calls for c in dataset.cases),
        predicted_calls=sum(len(r.calls) for r in results),
        llm_calls=llm_calls,
        argument_problems=sum(r.argument_problems for r in results),
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
        mismatches=dict(Counter(r.mismatch.kind for r in results if r.mismatch).most_common()),
        results=results,
    )


def bfcl_overall(rows: list[CallRow]) -> float | None:
    """BFCL's non-live AST overall: the unweighted mean of its four categories, when all ran."""
    scores = {r.dataset: r.score for r in rows}
    if not all(name in scores for name in BFCL_CATEGORIES):
        return None
    return round(sum(scores[name] for name in BFCL_CATEGORIES) / len(BFCL_CATEGORIES), 4)


def markdown(rows: list[CallRow]) -> str:
    header = ["dataset", "split", "metric", "items", "score", "exact", "gold calls"]
    header += ["predicted calls"]
    header += ["LLM calls", "argument problems", "p50 ms", "p95 ms", "top mismatches"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        top = ", ".join(f"{kind} {n}" for kind, n in list(r.mismatches.items())[:3])
        cells = [r.dataset, r.split, r.metric, str(r.items), f"{r.score:.3f}", f"{r.exact:.3f}"]
        cells += [str(r.gold_calls), str(r.predicted_calls), str(r.llm_calls)]
        cells += [str(r.argument_problems), f"{r.latency_p50_ms:.0f}", f"{r.latency_p95_ms:.0f}"]
        lines.append("| " + " | ".join([*cells, top]) + " |")
    if (overall := bfcl_overall(rows)) is not None:
        cells = ["bfcl overall", rows[0].split, "AST, mean of 4", "", f"{overall:.3f}"]
        lines.append("| " + " | ".join(cells) + " |" + " |" * 8)
    return "\n".join(lines)


async def run_call_eval(
    benchmarks_dir: Path,
    datasets: list[str],
    llm: LLM,
    ranker: ToolRanker,
    *,
    split: str | None = None,
    limit: int | None = None,
    on_progress: Progress = lambda *_: None,
    today: date | None = None,
) -> list[CallRow]:
    """One row per dataset, in that order; of the `split` half (default: all items), `limit`
    items sampled per dataset (seed 0)."""
    rows = []
    for name in datasets:
        dataset = load_call_dataset(name, benchmarks_dir, split=split, limit=limit)
        rows.append(
            await evaluate_calls(
                dataset, llm, ranker, today=today or date.today(), on_progress=on_progress
            )
        )
    return rows
