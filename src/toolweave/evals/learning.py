"""`toolweave eval learning`: the learning curve of the tool index fed by traffic alone.

A dataset's training split (ToolE queries outside the test sample, ToolLens train) streams
through the retriever as simulated runs, in a seeded order. Each run ranks the tools for its
query; a gold tool among the top `tries` is the call that succeeds (the first choice, or an
alternative tried after the ones above it failed), and that run teaches the query to that tool
through the same store the engine uses (`index/learned.py`: deduplication, per-tool cap), each
run from a user of its own. A wrong tool fails and teaches nothing. The index takes in what was
learned every `batch` runs (the engine does it before each next question), and the test split's
retrieval is measured at each checkpoint. No test query ever enters the index.

Poisoning (`poisoning`): one tool, the victim, is flooded with training queries that belong to
other tools, as if runs had gone well with it: from one source (the per-source cap holds it to
5) and from as many sources as queries (only the per-tool cap holds). Measured on the test
queries that are not the victim's: their R@5, and how often the victim now ranks first.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolweave.catalog.augment import LoggedQueries
from toolweave.catalog.documents import build_tool_doc
from toolweave.evals.datasets import RetrievalDataset, load_dataset
from toolweave.evals.metrics import Gold, alternatives, score_all
from toolweave.evals.retrieval import CONFIGS, eval_index, evaluate
from toolweave.index.build import SyncReport, segment_vectors
from toolweave.index.learned import LearnedQueries, Lesson
from toolweave.index.store import ToolIndex
from toolweave.models.base import Embedder
from toolweave.navigation.graph import Edge, ToolGraph, together
from toolweave.retrieval.retriever import ToolRetriever

Progress = Callable[[str, int, int], None]
DATASETS = ("toole-single", "toollens")
CHECKPOINTS = (0, 100, 1000, 5000)
SEED = 17


@dataclass
class PoisonPoint:
    dataset: str
    attack: str  # "none", "one source", "N sources"
    victim: str
    examples: int  # the victim's learned examples after the attack
    recall_at_5: float  # on the test queries whose gold is not the victim
    victim_first: float  # the share of those queries that rank the victim first


@dataclass
class CurvePoint:
    dataset: str
    runs: int  # simulated runs so far
    taught: int  # runs whose gold tool was found, so a query was learned
    examples: int  # learned examples in the index
    metrics: dict[str, float]
    companions: bool = True  # the search raised the tools runs used together with its best
    explore: bool = True  # a run's last try went to the best tool no run had gone well with


def traffic(dataset: RetrievalDataset) -> list[tuple[str, set[str]]]:
    """The training queries with their gold tools (index keys), in a seeded order."""
    by_query: dict[str, set[str]] = {}
    for tool, queries in dataset.logged.items():
        for query in queries:
            by_query.setdefault(query, set()).add(tool)
    runs = sorted(by_query.items())
    random.Random(SEED).shuffle(runs)
    return runs


async def learning_curve(
    dataset: RetrievalDataset,
    embedder: Embedder,
    folder: Path,
    *,
    checkpoints: Sequence[int] = CHECKPOINTS,
    tries: int = 5,
    batch: int = 100,
    companions: bool = True,
    explore: bool = True,
    on_progress: Progress = lambda *_: None,
) -> list[CurvePoint]:
    """R@k of the test queries after each checkpoint's number of simulated runs."""
    base = await eval_index(dataset, "spec", embedder, folder, on_progress)
    base.close()
    with _working_copy(base, folder, embedder, "learning-") as (index, work):
        keys = {dataset.gold_key(t.key): t for t in dataset.tools}
        graph = ToolGraph()  # what the runs say of tools used together (`companions`)
        options = CONFIGS["full"].options
        retriever = ToolRetriever(
            index,
            embedder,
            options,
            companions=graph.companions if companions else None,
            succeeded=graph.succeeded if explore else None,
        )
        runs, points, taught, stale = traffic(dataset), [], 0, set[str]()
        with LearnedQueries(work) as store:
            done = 0
            for stop in sorted(set(checkpoints)):
                for number in range(done, min(stop, len(runs))):
                    if number % batch == 0:
                        await _take_in(index, embedder, store, stale, dataset)
                        on_progress(f"{dataset.name}: runs up to {stop:,}", number, stop)
                    query, gold = runs[number]
                    hits = await retriever.search(query, k=tries, explore=True)
                    found = dict.fromkeys(dataset.gold_key(h.key) for h in hits)
                    lessons = [Lesson(keys[k].key, query) for k in found if k in gold]
                    taught += bool(lessons)
                    stale |= set(store.learn(lessons, f"run{number}", f"user{number}"))
                    answered = [lesson.tool for lesson in lessons]
                    graph.record([(Edge("tool", t), True) for t in answered] + together(answered))
                done = min(stop, len(runs))
                await _take_in(index, embedder, store, stale, dataset)
                row = await evaluate(dataset, CONFIGS["full"], index, embedder, retriever=retriever)
                examples = sum(len(v) for v in store.by_tool().values())
                points.append(
                    CurvePoint(
                        dataset.name, done, taught, examples, row.metrics, companions, explore
                    )
                )
                # Each checkpoint's figure as it comes: a long run shows its curve as it goes.
                on_progress(f"{dataset.name} after {done:,} runs: R@5 {row.metrics['R@5']}", 1, 1)
                if done == len(runs):
                    break
    return points


async def poisoning(
    dataset: RetrievalDataset,
    embedder: Embedder,
    folder: Path,
    *,
    attempts: int = 1000,
    on_progress: Progress = lambda *_: None,
) -> list[PoisonPoint]:
    """The test queries not about the victim, before and after each attack (see above)."""
    base = await eval_index(dataset, "spec", embedder, folder, on_progress)
    base.close()
    tested = {key for query in dataset.queries for key in _keys(query.gold)}
    keys = sorted(t.key for t in dataset.tools if dataset.gold_key(t.key) in tested)
    victim = random.Random(SEED).choice(keys)
    others = [q for q, gold in traffic(dataset) if victim not in gold][:attempts]
    points = []
    for attack in ("none", "one source", f"{len(others):,} sources"):
        with _working_copy(base, folder, embedder, "poison-") as (index, work):
            with LearnedQueries(work) as store:
                for n, query in enumerate(others if attack != "none" else []):
                    source = "attacker" if attack == "one source" else f"attacker{n}"
                    store.learn([Lesson(victim, query)], f"poison{n}", source)
                await _take_in(index, embedder, store, {victim}, dataset)
                examples = len(store.by_tool().get(victim, []))
            on_progress(f"poisoning {dataset.name} ({attack})", 0, 1)
            points.append(await _hurt(dataset, index, embedder, victim, attack, examples))
    return points


async def _hurt(
    dataset: RetrievalDataset,
    index: ToolIndex,
    embedder: Embedder,
    victim: str,
    attack: str,
    examples: int,
) -> PoisonPoint:
    rankings: list[list[str]] = []
    await evaluate(dataset, CONFIGS["full"], index, embedder, rankings=rankings)
    key = dataset.gold_key(victim)
    runs = [
        (ranked, query.gold)
        for ranked, query in zip(rankings, dataset.queries, strict=True)
        if key not in _keys(query.gold)
    ]
    first = sum(bool(ranked) and ranked[0] == key for ranked, _ in runs)
    return PoisonPoint(
        dataset.name, attack, victim, examples,
        score_all(runs)["R@5"], round(first / max(len(runs), 1), 4),
    )  # fmt: skip


def _keys(gold: Gold) -> set[str]:
    return {key for entry in gold for key in alternatives(entry)}


@contextmanager
def _working_copy(
    base: ToolIndex, folder: Path, embedder: Embedder, prefix: str
) -> Iterator[tuple[ToolIndex, Path]]:
    """A copy of the base index in a folder of its own (for its learned store), removed after."""
    work = Path(tempfile.mkdtemp(prefix=prefix, dir=folder))
    try:
        shutil.copytree(base.folder, work / "index")
        index = ToolIndex(work / "index", embedder_id=embedder.id, dim=embedder.dim)
        try:
            yield index, work
        finally:
            index.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


async def _take_in(
    index: ToolIndex,
    embedder: Embedder,
    store: LearnedQueries,
    stale: set[str],
    dataset: RetrievalDataset,
) -> None:
    """The stale tools re-indexed with their learned examples (as the engine's sync does)."""
    if not stale:
        return
    learned = LoggedQueries(store.by_tool())
    tools = [t for t in dataset.tools if t.key in stale]
    docs = [build_tool_doc(t, learned.segments(t)) for t in tools]
    vectors = await segment_vectors(index, embedder, [d.segments for d in docs], SyncReport())
    for doc, doc_vectors in zip(docs, vectors, strict=True):
        index.put_tool(doc, doc_vectors, "learned")
    index.commit()
    stale.clear()


async def run_learning_eval(
    benchmarks: Path,
    folder: Path,
    embedder: Embedder,
    datasets: Sequence[str] = DATASETS,
    *,
    checkpoints: Sequence[int] = CHECKPOINTS,
    tries: int = 5,
    poison: bool = False,
    companions: bool = True,
    explore: bool = True,
    on_progress: Progress = lambda *_: None,
) -> list[CurvePoint] | list[PoisonPoint]:
    """The learning curve of each dataset, or with `poison` what flooding one tool does."""
    points: list[Any] = []
    for name in datasets:
        dataset = load_dataset(name, benchmarks)
        if poison:
            points += await poisoning(dataset, embedder, folder, on_progress=on_progress)
        else:
            points += await learning_curve(
                dataset, embedder, folder, checkpoints=checkpoints, tries=tries,
                companions=companions, explore=explore, on_progress=on_progress,
            )  # fmt: skip
    return points


def markdown(points: list[CurvePoint] | list[PoisonPoint]) -> str:
    curve = [p for p in points if isinstance(p, CurvePoint)]
    if len(curve) < len(points):
        return _poison_markdown([p for p in points if isinstance(p, PoisonPoint)])
    names = ["R@1", "R@5", "nDCG@5", "COMP@5"]
    header = ["dataset", "companions", "explore", "runs", "taught", "examples", *names]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for p in curve:
        cells = [p.dataset, *("yes" if on else "no" for on in (p.companions, p.explore))]
        cells += [f"{p.runs:,}", f"{p.taught:,}", f"{p.examples:,}"]
        lines.append("| " + " | ".join([*cells, *(f"{p.metrics[n]:.3f}" for n in names)]) + " |")
    return "\n".join(lines)


def _poison_markdown(points: list[PoisonPoint]) -> str:
    header = ["dataset", "attack", "victim", "its examples", "others' R@5", "victim ranked first"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for p in points:
        cells = [p.dataset, p.attack, p.victim, str(p.examples), f"{p.recall_at_5:.3f}"]
        lines.append("| " + " | ".join([*cells, f"{p.victim_first:.3f}"]) + " |")
    return "\n".join(lines)
