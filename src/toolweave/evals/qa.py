"""`toolweave eval qa`: the search half of the engine, end to end, on HotpotQA and MuSiQue.

The union of both datasets' paragraphs is the local search corpus (`grounding.corpus`); each
question is asked of one warm engine with the user's settings otherwise. Each dataset is split
by a fixed seed into a development half (tune on it) and a test half (report it). Per question:

  em, f1        the short answer (`Answer.short`) against the gold answer and its aliases,
                SQuAD normalisation (lower case, no punctuation or articles)
  in_text       the gold answer appears in the answer's text
  in_sources    the gold answer appears in a listed source's paragraph
  support       the share of the gold supporting paragraphs among the cited sources
  precision     the share of cited sentences whose source is a supporting paragraph or which
                hold the answer
  words         words in the answer's text
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from toolweave.engine import AskOptions, Engine
from toolweave.evals.datasets import read_file, seeded_half
from toolweave.settings import Settings
from toolweave.types import Answer

Progress = Callable[[str, int, int], None]
DATASETS = ("hotpot", "musique")
SEED = 18
CITATION = re.compile(r"\[(\d+)\]")


@dataclass
class Item:
    dataset: str
    id: str
    question: str
    answers: list[str]  # the gold answer first, then its aliases
    supporting: list[str]  # the urls of the supporting paragraphs in the corpus


@dataclass
class Result:
    dataset: str
    id: str
    question: str
    gold: str
    short: str
    text: str
    em: float
    f1: float
    in_text: bool
    in_sources: bool
    support: float
    precision: float | None
    words: int
    route: str
    queries: list[str] = field(default_factory=list)  # what was searched, in order
    timings_ms: dict[str, float] = field(default_factory=dict)


@dataclass
class Row:
    dataset: str
    split: str
    questions: int
    em: float
    f1: float
    in_text: float
    in_sources: float
    support: float
    precision: float
    words_p50: float
    p50_ms: float
    stages_p50_ms: dict[str, float]


@dataclass
class Corpus:
    path: Path
    texts: dict[str, str]  # url -> the paragraph's text


def load_items(root: Path) -> tuple[dict[str, list[Item]], list[dict[str, str]]]:
    """Each dataset's items and the union of their paragraphs (title, text, url), in order."""
    paragraphs: dict[str, dict[str, str]] = {}

    def add(title: str, text: str) -> str:
        url = "local:" + hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:12]
        paragraphs.setdefault(url, {"title": title, "text": text, "url": url})
        return url

    items: dict[str, list[Item]] = {"hotpot": [], "musique": []}
    for line in read_file(root / "multihop" / "hotpot.json").splitlines():
        row = json.loads(line)
        urls = {title: add(title, "".join(lines).strip()) for title, lines in row["context"]}
        gold = sorted({urls[title] for title, _ in row["supporting_facts"] if title in urls})
        items["hotpot"].append(Item("hotpot", row["_id"], row["question"], [row["answer"]], gold))
    for line in read_file(root / "multihop" / "musique.json").splitlines():
        row = json.loads(line)
        marked = [
            (add(p["title"], p["paragraph_text"]), p["is_supporting"]) for p in row["paragraphs"]
        ]
        answers = [row["answer"], *row.get("answer_aliases", [])]
        gold = [url for url, supporting in marked if supporting]
        items["musique"].append(Item("musique", row["id"], row["question"], answers, gold))
    return items, list(paragraphs.values())


def split_items(items: list[Item], split: str) -> list[Item]:
    """The development or test half, by a fixed seed."""
    return seeded_half(items, split, SEED, lambda i: i.id)


def write_corpus(folder: Path, paragraphs: list[dict[str, str]]) -> Corpus:
    """The corpus as JSONL, rewritten only when its content changes: the local provider keys
    its index by the file's size and time, and rebuilding it takes minutes."""
    path = folder / "corpus.jsonl"
    content = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in paragraphs)
    if not path.is_file() or path.read_text(encoding="utf-8") != content:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return Corpus(path, {p["url"]: p["text"] for p in paragraphs})


async def run_qa_eval(
    settings: Settings,
    datasets: list[str],
    split: str = "dev",
    *,
    limit: int | None = None,
    on_progress: Progress = lambda *_: None,
    notice: Callable[[str], None] = print,
) -> tuple[list[Row], list[Result]]:
    items, paragraphs = load_items(settings.benchmarks_dir)
    corpus = write_corpus(settings.state_path() / "evals" / "qa", paragraphs)
    chosen = {d: split_items(items[d], split)[:limit] for d in datasets}
    own = _settings_over(settings, corpus.path)
    results: list[Result] = []
    async with Engine.open(own, notice=notice) as engine:
        notice(f"opening the local search corpus ({len(paragraphs):,} paragraphs)")
        await engine.prepare_search()
        requests = [item for d in datasets for item in chosen[d]]
        for done, item in enumerate(requests):
            on_progress("questions", done, len(requests))
            answer = await engine.ask(item.question, AskOptions())
            results.append(score(item, answer, corpus))
        on_progress("questions", len(requests), len(requests))
    rows = [_row(d, split, [r for r in results if r.dataset == d]) for d in datasets]
    return rows, results


def _settings_over(settings: Settings, corpus: Path) -> Settings:
    """The user's settings searching the corpus, no cache (a cached answer to an earlier
    question must not stand in for search), no traces and no learning from runs."""
    grounding = settings.grounding.model_copy(
        update={
            "corpus": corpus,
            "cache": settings.grounding.cache.model_copy(update={"backend": "none"}),
        }
    )
    ask = settings.ask.model_copy(update={"traces": False})
    return settings.zero_shot(grounding=grounding, ask=ask)


def score(item: Item, answer: Answer, corpus: Corpus) -> Result:
    text, short = answer.text, answer.short
    cited = {int(n) for n in CITATION.findall(text)}
    urls = {s.id: s.uri for s in answer.sources}
    cited_urls = {urls[n] for n in cited if n in urls}
    listed = [corpus.texts.get(s.uri, s.snippet) for s in answer.sources]
    supporting = set(item.supporting)
    return Result(
        dataset=item.dataset,
        id=item.id,
        question=item.question,
        gold=item.answers[0],
        short=short,
        text=text,
        em=max(float(normalize(short) == normalize(a)) for a in item.answers),
        f1=max(f1_score(short, a) for a in item.answers),
        in_text=any(contains(text, a) for a in item.answers),
        in_sources=any(contains(p, a) for p in listed for a in item.answers),
        support=len(supporting & cited_urls) / len(supporting) if supporting else 0.0,
        precision=_precision(text, urls, supporting, item.answers),
        words=len(text.split()),
        route=str(answer.route or ""),
        queries=[str(o.arguments.get("query", "")) for o in answer.observations],
        timings_ms=answer.timings_ms,
    )


def _precision(
    text: str, urls: dict[int, str], supporting: set[str], answers: list[str]
) -> float | None:
    """The share of cited sentences that hold the answer or cite a supporting paragraph."""
    cited = [(s, CITATION.findall(s)) for s in re.split(r"(?<=\])\s+|\n", text)]
    judged = [
        any(urls.get(int(n)) in supporting for n in numbers) or any(contains(s, a) for a in answers)
        for s, numbers in cited
        if numbers
    ]
    return sum(judged) / len(judged) if judged else None


def normalize(text: str) -> str:
    """SQuAD's answer normalisation."""
    text = "".join(c for c in text.lower() if c not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def f1_score(prediction: str, gold: str) -> float:
    predicted, wanted = normalize(prediction).split(), normalize(gold).split()
    common = sum((Counter(predicted) & Counter(wanted)).values())
    if not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(wanted)
    return 2 * precision * recall / (precision + recall)


def contains(text: str, answer: str) -> bool:
    wanted = normalize(answer)
    return bool(wanted) and f" {wanted} " in f" {normalize(text)} "


def _row(dataset: str, split: str, results: list[Result]) -> Row:
    def mean(values: list[float]) -> float:
        return round(statistics.fmean(values), 3) if values else 0.0

    stages = sorted({s for r in results for s in r.timings_ms})
    return Row(
        dataset=dataset,
        split=split,
        questions=len(results),
        em=mean([r.em for r in results]),
        f1=mean([r.f1 for r in results]),
        in_text=mean([float(r.in_text) for r in results]),
        in_sources=mean([float(r.in_sources) for r in results]),
        support=mean([r.support for r in results]),
        precision=mean([r.precision for r in results if r.precision is not None]),
        words_p50=statistics.median([r.words for r in results]) if results else 0.0,
        p50_ms=_median([r.timings_ms.get("total", 0.0) for r in results]),
        stages_p50_ms={s: _median([r.timings_ms.get(s, 0.0) for r in results]) for s in stages},
    )


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 1) if values else 0.0


def markdown(rows: list[Row]) -> str:
    lines = [
        "| dataset | split | n | EM | F1 | answer in text | in sources | cited support "
        "| citation precision | words p50 | p50 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.dataset} | {r.split} | {r.questions} | {r.em:.3f} | {r.f1:.3f} | {r.in_text:.3f} "
        f"| {r.in_sources:.3f} | {r.support:.3f} | {r.precision:.3f} | {r.words_p50:g} "
        f"| {r.p50_ms:,.0f} |"
        for r in rows
    ]
    return "\n".join(lines)


def as_json(rows: list[Row], results: list[Result]) -> dict[str, Any]:
    return {"rows": [asdict(r) for r in rows], "results": [asdict(r) for r in results]}
