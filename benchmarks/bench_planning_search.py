"""Planning search (SRSA-style, planning/search_loop.py) vs one search, on multi-hop questions.

The corpus is the union of the paragraphs of the 200 HotpotQA and 200 MuSiQue items in
`multihop/` (each item carries its own paragraphs, distractors included), served by the gateway's
local provider (BM25 + bundled MiniLM, no cache). For each question: the gold supporting
paragraphs found (recall), whether all of them were found, and whether the gold answer appears in
what was retrieved, for one search of k = 5, 6, 10, 15 results and for the planning search (up to
3 rounds of 5, deterministic next query, no LLM). Prints a table and writes
benchmarks/results/planning_search.json. Usage:
    .venv/bin/python benchmarks/bench_planning_search.py [--limit 400]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from toolweave.grounding.gateway import SearchGateway, open_gateway
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.grounding.search_loop import planning_search
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.settings import load_settings

RESULTS = Path(__file__).parent / "results" / "planning_search.json"
SINGLE_K = (5, 6, 10, 15)


def paragraph_id(title: str, text: str) -> str:
    return hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:12]


def load_items(folder: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """Questions with their gold paragraph ids and answers, and the corpus by id."""
    items, corpus = [], {}
    for line in (folder / "hotpot.json").read_text().splitlines():
        row = json.loads(line)
        gold_titles = {title for title, _ in row["supporting_facts"]}
        gold = set()
        for title, sentences in row["context"]:
            text = "".join(sentences).strip()
            corpus[paragraph_id(title, text)] = {"title": title, "text": text}
            if title in gold_titles:
                gold.add(paragraph_id(title, text))
        items.append(
            {
                "set": "hotpotqa",
                "question": row["question"],
                "answers": [row["answer"]],
                "gold": gold,
            }
        )
    for line in (folder / "musique.json").read_text().splitlines():
        row = json.loads(line)
        gold = set()
        for p in row["paragraphs"]:
            pid = paragraph_id(p["title"], p["paragraph_text"])
            corpus[pid] = {"title": p["title"], "text": p["paragraph_text"]}
            if p["is_supporting"]:
                gold.add(pid)
        answers = [row["answer"], *row.get("answer_aliases", [])]
        items.append(
            {"set": "musique", "question": row["question"], "answers": answers, "gold": gold}
        )
    return items, corpus


def write_corpus(corpus: dict[str, dict[str, str]], path: Path) -> None:
    if path.is_file():
        return  # the same content every time: keep its mtime, so the index is reused
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for pid, p in corpus.items():
            out.write(json.dumps({"id": pid, "url": f"local:{pid}", **p}) + "\n")


def score(item: dict[str, Any], results: list[SearchResult]) -> dict[str, float]:
    found = {r.url.removeprefix("local:") for r in results}
    text = " ".join((r.content or r.snippet).lower() for r in results)
    hits = len(item["gold"] & found)
    return {
        "recall": hits / len(item["gold"]),
        "all_gold": float(hits == len(item["gold"])),
        "answer_found": float(any(a.lower() in text for a in item["answers"] if a)),
        "passages": float(len(results)),
    }


async def evaluate(items: list[dict[str, Any]], gateway: SearchGateway, embedder: OnnxEmbedder):
    rows: dict[str, list[dict[str, float]]] = {f"one search, k={k}": [] for k in SINGLE_K}
    rows["planning search (<= 3 rounds of 5)"] = []
    rounds, latency = [], []
    for n, item in enumerate(items, start=1):
        single = await gateway.search(SearchRequest(query=item["question"], max_results=15))
        for k in SINGLE_K:
            rows[f"one search, k={k}"].append(score(item, single.results[:k]))
        started = time.perf_counter()
        trail = await planning_search(item["question"], gateway, embedder)
        latency.append((time.perf_counter() - started) * 1000)
        rounds.append(len(trail.queries))
        rows["planning search (<= 3 rounds of 5)"].append(score(item, trail.results))
        if n % 50 == 0:
            print(f"{n}/{len(items)} questions", flush=True)
    return rows, rounds, latency


def summarise(rows: dict[str, list[dict[str, float]]], items: list[dict[str, Any]]):
    table = []
    for name, scores in rows.items():
        for subset in ("hotpotqa", "musique", "all"):
            picked = [s for s, i in zip(scores, items, strict=True) if subset in ("all", i["set"])]
            table.append(
                {"method": name, "set": subset, "questions": len(picked)}
                | {m: round(statistics.mean(s[m] for s in picked), 4) for m in picked[0]}
            )
    return table


async def main_async(limit: int | None) -> dict[str, Any]:
    settings = load_settings()
    items, corpus = load_items(settings.benchmarks_dir / "multihop")
    items = items if limit is None else items[: limit // 2] + items[200 : 200 + limit // 2]
    state = settings.state_path() / "bench-multihop"
    write_corpus(corpus, state / "corpus.jsonl")
    os.environ.update(
        {
            "TOOLWEAVE_GROUNDING__CHAINS": json.dumps({"web": ["local"]}),
            "TOOLWEAVE_GROUNDING__CORPUS": str(state / "corpus.jsonl"),
            "TOOLWEAVE_GROUNDING__CACHE__BACKEND": "none",
        }
    )
    embedder = OnnxEmbedder()
    gateway = await open_gateway(load_settings(), embedder, state_dir=state, on_progress=print)
    try:
        rows, rounds, latency = await evaluate(items, gateway, embedder)
    finally:
        await gateway.aclose()
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "corpus_passages": len(corpus),
        "table": summarise(rows, items),
        "mean_rounds": round(statistics.mean(rounds), 2),
        "planning_search_p50_ms": round(statistics.median(latency), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="questions (half from each set)")
    result = asyncio.run(main_async(parser.parse_args().limit))
    print(
        f"\ncorpus: {result['corpus_passages']} passages; planning search: mean "
        f"{result['mean_rounds']} rounds, p50 {result['planning_search_p50_ms']} ms"
    )
    print("| method | set | questions | gold recall | all gold found | answer found | passages |")
    print("|---|---|---|---|---|---|---|")
    for r in result["table"]:
        print(
            f"| {r['method']} | {r['set']} | {r['questions']} | {r['recall']:.3f} | "
            f"{r['all_gold']:.3f} | {r['answer_found']:.3f} | {r['passages']:.1f} |"
        )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
