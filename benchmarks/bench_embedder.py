"""Throughput and query latency of the bundled embedder (MiniLM-L6 int8 ONNX on onnxruntime).

The query side matters most for retrieval latency: a question is embedded clause by clause
(`toolweave eval retrieval` reports latency with and without it). Prints a table and writes
benchmarks/results/embedder.json. Usage:
    .venv/bin/python benchmarks/bench_embedder.py [--questions 100]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from toolweave.evals.datasets import load_dataset
from toolweave.language.clauses import split_clauses
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.settings import load_settings

RESULTS = Path(__file__).parent / "results" / "embedder.json"
SHORT = "what is the weather like in Berlin right now"


def per_call_ms(embed: OnnxEmbedder, texts: list[str], repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        embed.embed_sync(texts)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def bench(questions: int) -> dict[str, object]:
    embedder = OnnxEmbedder()
    embedder.embed_sync(["warm up"])
    tokens = len(embedder._tokenizer.encode(SHORT).ids)
    batch_ms = per_call_ms(embedder, [SHORT] * 128, repeats=3)
    rows: list[dict[str, object]] = [
        {
            "what": f"128 short sentences ({tokens} tokens) in one call",
            "ms": round(batch_ms, 1),
            "per_s": round(128 / batch_ms * 1000, 1),
        },
        {
            "what": f"one short sentence ({tokens} tokens)",
            "ms": round(per_call_ms(embedder, [SHORT]), 2),
        },
    ]
    seal = load_dataset("seal-in", load_settings().benchmarks_dir, limit=questions)
    for label, texts_of in (
        ("Seal-Tools question, whole", lambda q: [q]),
        (
            "Seal-Tools question, its clauses (as retrieval does)",
            split_clauses,
        ),
    ):
        times = [per_call_ms(embedder, texts_of(q.text), repeats=1) for q in seal.queries]
        rows.append(
            {"what": f"{label}, p50 of {len(times)}", "ms": round(statistics.median(times), 1)}
        )
    return {"machine": platform.machine(), "python": platform.python_version(), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=100)
    result = bench(parser.parse_args().questions)
    print("| what | ms | per second |\n|---|---|---|")
    for row in result["rows"]:  # type: ignore[union-attr]
        print(f"| {row['what']} | {row['ms']} | {row.get('per_s', '')} |")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
