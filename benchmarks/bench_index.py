"""Tool index benchmarks: indexing throughput, cold start, query latency and ANN recall, memory.

Usage:
    .venv/bin/python benchmarks/bench_index.py [--synthetic-tools 100000] [--queries 200]

Phases (indexes are cached in benchmarks/.cache and reused by later runs):
1. Real catalogues (LiveMCPBench, Seal-Tools) indexed with the bundled embedder: tools/s.
2. Seal-Tools padded to 20 segments per tool (its real segments plus noisy copies of them):
   cold start in a fresh process (open the index, embed and answer the first query), and query
   latency on the exact path.
3. N synthetic tools x 20 segments (noisy copies of the real Seal-Tools vectors): ANN query
   latency and recall@10 of the ANN path against exact search, for several nprobe values.
Query vectors are real: Seal-Tools test questions embedded once (excluded from latencies).
Prints a table and writes benchmarks/results/index.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from toolweave.catalog.sources import load_catalogue
from toolweave.index import ToolIndex, sync_index
from toolweave.index.vectors import ExactStore
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.types import Segment, ToolDoc, ToolSpec

HERE = Path(__file__).parent
CACHE = HERE / ".cache"
RESULTS = HERE / "results" / "index.json"
DATA = Path(
    os.environ.get("TOOLWEAVE_BENCHMARKS_DIR") or HERE.parent.parent / "shared" / "benchmarks"
)
SEGMENTS_PER_TOOL = 20
EMBEDDER = OnnxEmbedder()


def open_index(folder: Path, **options: int) -> ToolIndex:
    return ToolIndex(folder, embedder_id=EMBEDDER.id, dim=EMBEDDER.dim, **options)


async def index_real(name: str, path: Path) -> dict[str, float]:
    folder = CACHE / name
    shutil.rmtree(folder, ignore_errors=True)
    servers, tools = load_catalogue(path)
    index = open_index(folder)
    started = time.perf_counter()
    report = await sync_index(index, EMBEDDER, tools, servers)
    seconds = time.perf_counter() - started
    stats = index.stats()
    index.close()
    return {
        "catalogue": name,
        "tools": len(tools),
        "segments": stats["segments"],
        "seconds": round(seconds, 1),
        "tools_per_s": round(len(tools) / seconds, 1),
        "segments_per_s": round(report.embedded / seconds, 1),
    }


def noisy_copies(vectors: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors near randomly chosen real ones (cosine about 0.8 to their source)."""
    picks = vectors[rng.integers(0, len(vectors), count)]
    noisy = picks + rng.normal(scale=0.038, size=picks.shape).astype(np.float32)
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).astype(np.float32)


def padded_seal(real: ToolIndex, folder: Path, rng: np.random.Generator) -> None:
    """Every Seal-Tools tool with its real segments plus noisy copies up to 20 segments."""
    index = open_index(folder)
    vectors = np.asarray(real.vectors)
    for tool in real.tools.values():
        spec = real.tool_spec(tool.key)
        assert spec is not None
        rows = np.flatnonzero(real.rows[:, 0] == tool.id)
        own = vectors[rows]
        extra = noisy_copies(own, SEGMENTS_PER_TOOL - len(own), rng)
        segments = [
            Segment(text=s.text, kind=s.kind, origin=s.origin) for s in real.segments_of(tool.key)
        ]
        segments += [
            Segment(text=f"{tool.key} synthetic {i}", kind="query", origin="generated")
            for i in range(len(extra))
        ]
        index.put_tool(ToolDoc(tool=spec, segments=segments), np.vstack([own, extra]), "bench")
    index.commit()
    index.close()


def synthetic(real: ToolIndex, folder: Path, tools: int, rng: np.random.Generator) -> float:
    """`tools` synthetic tools x 20 segments; returns the build time in seconds."""
    started = time.perf_counter()
    index = open_index(folder)
    base = np.asarray(real.vectors)
    for i in range(tools):
        spec = ToolSpec(server=f"synthetic-{i % 5000}", name=f"tool_{i}")
        segments = [
            Segment(text=f"synthetic tool {i} segment {j}", kind="query", origin="generated")
            for j in range(SEGMENTS_PER_TOOL)
        ]
        # One tool's segments stay near one real tool's, as a real tool's do.
        anchor = base[rng.integers(0, len(base), 1)]
        vectors = noisy_copies(np.repeat(anchor, SEGMENTS_PER_TOOL, axis=0), SEGMENTS_PER_TOOL, rng)
        index.put_tool(ToolDoc(tool=spec, segments=segments), vectors, "bench")
    index.commit()
    index.close()
    return time.perf_counter() - started


def query_vectors(count: int) -> np.ndarray:
    path = DATA / "seal_tools" / "test_in_domain.jsonl"
    questions = [json.loads(line)["query"] for line in path.read_text().splitlines()[:count]]
    return EMBEDDER.embed_sync(questions)


def latencies(index: ToolIndex, queries: np.ndarray) -> dict[str, float]:
    index.search(queries[0], 10)  # warm the page cache and the store
    times = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, 10)
        times.append((time.perf_counter() - started) * 1000)
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p99_ms": round(float(np.percentile(times, 99)), 2),
    }


def ann_recall(index: ToolIndex, queries: np.ndarray) -> float:
    """Share of the exact top-10 tools the ANN path also returns, averaged over the queries."""
    ann_store = index.store
    exact = ExactStore(index.vectors, index.rows[:, 1] >= 0)
    overlap = []
    for query in queries:
        index._store = exact
        truth = {h.key for h in index.search(query, 10)}
        index._store = ann_store
        found = {h.key for h in index.search(query, 10)}
        overlap.append(len(truth & found) / 10)
    return round(float(np.mean(overlap)), 4)


COLD_START = """
import sys, time
started = time.perf_counter()
from toolweave.index import ToolIndex
from toolweave.models.onnx_embedder import OnnxEmbedder
imported = time.perf_counter()
embedder = OnnxEmbedder()
folder = __import__("pathlib").Path(sys.argv[1])
index = ToolIndex(folder, embedder_id=embedder.id, dim=embedder.dim)
opened = time.perf_counter()
(vector,) = embedder.embed_sync(["analyze the chemical evidence from a crime scene"])
embedded = time.perf_counter()
hits = index.search(vector, 10)
done = time.perf_counter()
print(imported - started, opened - imported, embedded - opened, done - embedded, hits[0].key)
"""


def cold_start(folder: Path, runs: int = 5) -> dict[str, float]:
    rows = []
    for _ in range(runs):
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", COLD_START, str(folder)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        rows.append([float(x) for x in out[:4]] + [time.perf_counter() - started])
    median = np.median(np.array(rows), axis=0) * 1000
    return {
        "import_ms": round(median[0]),
        "open_index_ms": round(median[1], 1),
        "load_embedder_and_embed_ms": round(median[2]),
        "first_search_ms": round(median[3], 1),
        "open_plus_first_query_ms": round(median[1] + median[2] + median[3]),
        "process_wall_ms": round(median[4]),
    }


def measure(folder: Path, queries: np.ndarray) -> dict[str, object]:
    """ANN latency and recall for several nprobe values, exact latency, memory and disk use."""
    index = open_index(folder)
    segments = index.segment_count
    ann_store = index.store
    sweep = []
    for nprobe in (8, 16, 32, 64):
        ann_store.index.nprobe = nprobe  # type: ignore[attr-defined]
        sweep.append(
            {
                "nprobe": nprobe,
                **latencies(index, queries),
                "recall_at_10": ann_recall(index, queries),
            }
        )
    index._store = ExactStore(index.vectors, index.rows[:, 1] >= 0)
    exact = latencies(index, queries[:50])
    files = ("vectors.f32", "ann.faiss", "rows.npy")
    return {
        **index.stats(),
        "ann": sweep,
        "exact_search": exact,
        "rss_mb_fresh_process_after_first_query": fresh_rss(folder, queries[0]),
        "disk_mb_per_100k_segments": {
            name: round((folder / name).stat().st_size / segments * 100_000 / 1e6, 1)
            for name in files
        },
    }


RSS = """
import sys, numpy as np
from pathlib import Path
from toolweave.index import ToolIndex
def rss():
    line = next(l for l in open("/proc/self/status") if l.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024
before = rss()
index = ToolIndex(Path(sys.argv[1]), embedder_id=sys.argv[2], dim=384)
index.search(np.load(sys.argv[3]), 10)
print(rss() - before)
"""


def fresh_rss(folder: Path, query: np.ndarray) -> float:
    """Resident memory an index adds to a new process once it has answered a query (MB)."""
    path = CACHE / "query.npy"
    np.save(path, query)
    command = [sys.executable, "-c", RSS, str(folder), EMBEDDER.id, str(path)]
    return round(
        float(subprocess.run(command, capture_output=True, text=True, check=True).stdout), 1
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic-tools", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reindex", action="store_true", help="rebuild the real indexes")
    args = parser.parse_args()
    CACHE.mkdir(exist_ok=True)
    rng = np.random.default_rng(0)
    result: dict[str, object] = {
        "benchmark": "tool_index",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
    }
    throughput = []
    for name, path in (
        ("livemcp", DATA / "livemcpbench" / "tools" / "LiveMCPTool" / "tools.json"),
        ("seal", DATA / "seal_tools" / "tool.jsonl"),
    ):
        if args.reindex or not (CACHE / name / "index.sqlite").exists():
            throughput.append(await index_real(name, path))
    if throughput:
        result["indexing"] = throughput
    queries = query_vectors(args.queries)

    real = open_index(CACHE / "seal")
    padded = CACHE / "seal20"
    if args.reindex or not (padded / "index.sqlite").exists():
        shutil.rmtree(padded, ignore_errors=True)
        padded_seal(real, padded, rng)
    result["seal_20_segments"] = {
        **measure(padded, queries),
        "cold_start": cold_start(padded),
    }
    folder = CACHE / f"synthetic{args.synthetic_tools}"
    if args.reindex or not (folder / "index.sqlite").exists():
        shutil.rmtree(folder, ignore_errors=True)
        result["synthetic_build_s"] = round(synthetic(real, folder, args.synthetic_tools, rng), 1)
    result["synthetic"] = measure(folder, queries)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
