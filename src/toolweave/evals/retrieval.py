"""`toolweave eval retrieval`: tool retrieval quality and latency on the shared benchmarks, or
on a benchmark of the user's own (`OwnBenchmark`: their tools and queries).

Each configuration names a document style (how a tool is written into the index) and retrieval
options. Indexes are built once per dataset and style, then cached under
`<state dir>/evals/<dataset>/<style>` (`own/<style>` for a user's benchmark), named by the
tools' content; no test query ever enters an index (zero-shot).

Document styles:
    plain        one segment per tool: "readable name: description" (the baseline documents)
    spec         the tool's own segments: name + first sentence, other sentences, arguments
                 (the default index)
    spec-1v      the spec document as one text and one vector (single-vector ablation)
    enhanced     spec + template example queries and key topics (`index.generated_queries`)
    warm         enhanced + up to 20 logged queries per tool from a split disjoint from the test
                 queries (ToolE queries outside the test sample, Seal-Tools dev, ToolLens train);
                 reported apart from the zero-shot rows, and skipped where no such split exists
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np

from toolweave.catalog.augment import LoggedQueries, generated_segments
from toolweave.catalog.documents import build_tool_doc, spec_segments
from toolweave.evals.datasets import RetrievalDataset
from toolweave.evals.metrics import score_all
from toolweave.evals.own_benchmark import OwnBenchmark
from toolweave.evals.ranking import tools_key
from toolweave.index.build import SyncReport, segment_vectors
from toolweave.index.store import ToolIndex
from toolweave.language.text import readable_name
from toolweave.models.base import LLM, Embedder
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.types import Segment, ToolDoc, ToolSpec

Style = Literal["plain", "spec", "spec-1v", "enhanced", "warm"]
Progress = Callable[[str, int, int], None]
EVAL_INDEX_VERSION = 2
WARM_QUERIES_PER_TOOL = 20  # TURA generates 20 queries per server; the same budget per tool


@dataclass(frozen=True)
class EvalConfig:
    name: str
    style: Style
    options: RetrievalOptions
    about: str


_FULL = RetrievalOptions()
_AS_IS = RetrievalOptions(decompose=False, rewrite=False)
CONFIGS = {
    c.name: c
    for c in [
        # The baseline rows of the issue: documents = name + description, the question as it is.
        EvalConfig("bm25", "plain", replace(_AS_IS, dense=False), "baseline: BM25"),
        EvalConfig("dense", "plain", replace(_AS_IS, lexical=False), "baseline: dense"),
        EvalConfig("rrf", "plain", replace(_AS_IS, fusion="rrf"), "baseline: RRF"),
        # The full pipeline and its ablations.
        EvalConfig("full", "spec", _FULL, "the default pipeline"),
        EvalConfig("full-rrf", "spec", replace(_FULL, fusion="rrf"), "RRF fusion"),
        EvalConfig("full-convex", "spec", replace(_FULL, fusion="convex"), "min-max fusion"),
        EvalConfig("no-decomposition", "spec", replace(_FULL, decompose=False), "no clauses"),
        EvalConfig(
            "no-rewrite", "spec", replace(_FULL, rewrite=False), "request wrappers searched"
        ),
        EvalConfig("augmented", "enhanced", _FULL, "+ template example queries and topics"),
        EvalConfig("single-vector", "spec-1v", _FULL, "one vector per tool"),
        EvalConfig("dense-only", "spec", replace(_FULL, lexical=False), "no BM25"),
        EvalConfig("bm25-only", "spec", replace(_FULL, dense=False), "no dense"),
        EvalConfig(
            "full-llm",
            "spec",
            replace(_FULL, expand=True),
            "with an LLM: + its sub-queries, variants and step-back query",
        ),
        EvalConfig(
            "full-llm-rerank",
            "spec",
            replace(_FULL, llm_rerank=True),
            "with an LLM: it reorders the top 10",
        ),
        EvalConfig("warm", "warm", _FULL, "not zero-shot: + logged queries of a disjoint split"),
    ]
}


# What `toolweave eval retrieval` runs without --variant: every variant without an LLM (the LLM
# variants take seconds per query with the embedded model; name them to run them).
DEFAULT_CONFIGS = [
    name for name, c in CONFIGS.items() if not (c.options.expand or c.options.llm_rerank)
]


def document(tool: ToolSpec, style: Style, logged: list[str] | None = None) -> ToolDoc:
    if style == "plain":
        text = f"{readable_name(tool.name)}: {tool.description}".strip(": ")
        return ToolDoc(tool=tool, segments=[Segment(text=text, kind="name", origin="spec")])
    if style == "spec":
        return ToolDoc(tool=tool, segments=spec_segments(tool))
    if style == "spec-1v":
        text = "\n".join(s.text for s in spec_segments(tool))
        return ToolDoc(tool=tool, segments=[Segment(text=text, kind="name", origin="spec")])
    augmentation = generated_segments(tool, readable_name(tool.server))
    if style == "warm" and logged:
        chosen = random.Random(tool.key).sample(logged, min(WARM_QUERIES_PER_TOOL, len(logged)))
        augmentation += LoggedQueries({tool.key: chosen}).segments(tool)
    return build_tool_doc(tool, augmentation)


async def eval_index(
    dataset: RetrievalDataset,
    style: Style,
    embedder: Embedder,
    folder: Path,
    on_progress: Progress = lambda *_: None,
) -> ToolIndex:
    """The dataset's tools indexed in `style`, built once and reused: the folder is named by the
    tools' content (and the logged queries of a warm index), so an index is never reused for
    tools whose text changed."""
    logged = json.dumps(dataset.logged, sort_keys=True) if style == "warm" else ""
    key = tools_key(dataset.tools, style, logged)
    group = dataset.index_folder or dataset.name.split("-")[0]
    path = folder / group / f"{style}-v{EVAL_INDEX_VERSION}-{key}"
    index = ToolIndex(path, embedder_id=embedder.id, dim=embedder.dim)
    if len(index) == len(dataset.tools):
        return index
    indexed = index.doc_hashes()
    docs = [
        document(t, style, dataset.logged.get(dataset.gold_key(t.key)))
        for t in dataset.tools
        if t.key not in indexed
    ]
    for start in range(0, len(docs), 64):
        on_progress(f"indexing {dataset.name} ({style})", start, len(docs))
        batch = docs[start : start + 64]
        groups = [d.segments for d in batch]
        vectors = await segment_vectors(index, embedder, groups, SyncReport())
        for doc, doc_vectors in zip(batch, vectors, strict=True):
            index.put_tool(doc, doc_vectors, style)
    index.commit()
    return index


@dataclass
class EvalRow:
    dataset: str
    config: str
    queries: int
    metrics: dict[str, float]
    latency_p50_ms: float
    latency_p95_ms: float
    search_p50_ms: float  # the latency without embedding the question


async def evaluate(
    dataset: RetrievalDataset,
    config: EvalConfig,
    index: ToolIndex,
    embedder: Embedder,
    *,
    on_progress: Progress = lambda *_: None,
    llm: LLM | None = None,
    rankings: list[list[str]] | None = None,
    retriever: ToolRetriever | None = None,
) -> EvalRow:
    """R@k and the rest over the dataset's queries; each query's ranked gold keys are added to
    `rankings` when it is given. `retriever`: one of the caller's over this index (with its
    companions), instead of a new one of the config's options."""
    retriever = retriever or ToolRetriever(index, embedder, config.options, llm=llm)
    runs, latencies, searches = [], [], []
    for i, query in enumerate(dataset.queries):
        if i % 50 == 0:
            on_progress(f"{dataset.name} / {config.name}", i, len(dataset.queries))
        started = time.perf_counter()
        hits = await retriever.search(query.text, k=10)
        latencies.append((time.perf_counter() - started) * 1000)
        searches.append(retriever.last_timing["search_ms"])
        ranked = list(dict.fromkeys(dataset.gold_key(h.key) for h in hits))
        runs.append((ranked, query.gold))
        if rankings is not None:
            rankings.append(ranked)
    return EvalRow(
        dataset=dataset.name,
        config=config.name,
        queries=len(dataset.queries),
        metrics=score_all(runs),
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
        search_p50_ms=percentile(searches, 50),
    )


def percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 2) if values else 0.0


def markdown(rows: list[EvalRow]) -> str:
    metric_names = list(rows[0].metrics) if rows else []
    header = ["dataset", "config", "queries", *metric_names, "p50 ms", "p95 ms", "search p50 ms"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        values = [f"{row.metrics[m]:.3f}" for m in metric_names]
        cells = [row.dataset, row.config, str(row.queries), *values]
        cells += [f"{row.latency_p50_ms:.1f}", f"{row.latency_p95_ms:.1f}"]
        cells.append(f"{row.search_p50_ms:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def run_retrieval_eval(
    benchmarks: Path,
    folder: Path,
    embedder: Embedder,
    datasets: Sequence[str | OwnBenchmark],
    configs: list[str],
    *,
    limit: int | None = None,
    on_progress: Progress = lambda *_: None,
    llm: Callable[[], LLM] | None = None,
) -> list[EvalRow]:
    """Every configuration on every dataset (a shared one's name, or a user's files), in that
    order. `llm` makes the LLM, for the variants that use one (made once, only when such a
    variant runs)."""
    from toolweave.errors import InputError
    from toolweave.evals.datasets import load_dataset
    from toolweave.evals.own_benchmark import load_own_benchmark

    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        raise InputError(f"unknown variant(s) {unknown}; choose from {', '.join(CONFIGS)}")
    needs_llm = any(c not in DEFAULT_CONFIGS for c in configs)
    if needs_llm and llm is None:
        raise InputError("the LLM variants need an LLM")
    model = llm() if needs_llm and llm is not None else None
    rows = []
    for item in datasets:
        dataset = (
            load_own_benchmark(item, limit=limit)
            if isinstance(item, OwnBenchmark)
            else load_dataset(item, benchmarks, limit=limit)
        )
        indexes: dict[str, ToolIndex] = {}
        for config_name in configs:
            config = CONFIGS[config_name]
            if config.style == "warm" and not dataset.logged:
                continue  # no split disjoint from the test queries to log queries from
            if config.style not in indexes:
                indexes[config.style] = await eval_index(
                    dataset, config.style, embedder, folder, on_progress
                )
            rows.append(
                await evaluate(
                    dataset,
                    config,
                    indexes[config.style],
                    embedder,
                    on_progress=on_progress,
                    llm=model,
                )
            )
        for index in indexes.values():
            index.close()
    return rows
