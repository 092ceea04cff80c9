"""Extractive answers: each part of the question is answered by what its tool returned, or by
the sentences of the retrieved documents closest to it, each line cited [n] to a numbered source.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from toolweave.grounding.reader import Passage, Reading, Short, read
from toolweave.language.questions import content_terms, content_words, expected_answer
from toolweave.language.text import split_sentences, without_asides
from toolweave.models.base import Embedder
from toolweave.types import Observation, Plan, ProblemKind, Source, call_text

MAX_RESULT_CHARS = 400  # a document's snippet in the sources
MAX_FIELDS_CHARS = 1_000  # a tool's structured result in the answer
MAX_TEXT_CHARS = 2_000  # a tool's text result ("show the diff"): what the user asked to see
NUMERIC = ("choice", "yesno", "date", "year", "number")  # kinds whose evidence is in numbers
MIN_SENTENCE_SCORE = 0.2
LONG_SENTENCE = 15  # words; a longer one is cut to the parts that bear on the question
RUN_ON = 25  # words; a longer cut is shown as the words around the answer
_OPENER = re.compile(r"(?:in|on|at|after|before|during|since|by|for|from|with|as)\b", re.I)
SENTENCES_PER_SEARCH = 2  # per round of a search, when no short answer is read
TEXT_FIELDS = ("content", "text", "body", "snippet")
RESULT_LISTS = ("results", "hits", "documents", "passages", "items")


def render_result(structured: Any, text: str, clause: str = "") -> str:
    """A tool result as the answer shows it: its summary if it has one, else its fields (of a
    list of records, those that name what the clause names: "look up Bob" and a whole graph),
    else its text with its lines ("show the diff")."""
    # "every comment in the feedback table": all of them; "table" names no row's value
    everything = _EVERY.search(clause) is not None
    named = set() if everything else {w.lower() for w in content_words(clause)} - _STRUCTURE
    if _are_records(structured):
        return _clip(_records(structured, named), MAX_FIELDS_CHARS)
    if isinstance(structured, dict):
        if isinstance(structured.get("summary"), str):
            return structured["summary"]
        fields = _flatten(structured, named)
        if fields:
            return _clip("; ".join(f"{k}: {v}" for k, v in fields), MAX_FIELDS_CHARS)
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    return _clip("\n".join(line for line in lines if line), MAX_TEXT_CHARS)


_EVERY = re.compile(r"\b(?:every|all|each)\b", re.IGNORECASE)
_STRUCTURE = {"table", "tables", "row", "rows", "column", "columns", "record", "records", "entry"}
_STRUCTURE |= {"entries", "database", "db", "graph", "memory", "list", "file"}


def _flatten(data: dict[str, Any], named: set[str], prefix: str = "") -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, dict):
            pairs += _flatten(value, named, f"{name} ")
        elif isinstance(value, bool):
            pairs.append((name, "yes" if value else "no"))
        elif isinstance(value, (str, int, float)):
            pairs.append((name, str(value)))
        elif _are_records(value):
            pairs.append((name, _records(value, named)))
        elif value is not None:
            pairs.append((name, json.dumps(value)[:80]))
    return pairs


def _are_records(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _records(records: list[dict[str, Any]], named: set[str]) -> str:
    """The records whose values name one of the clause's words (all when none does; their
    keys name what every record has), one per part."""

    def says(record: dict[str, Any]) -> bool:
        values = json.dumps(list(record.values()), default=str).lower()
        return bool(named & set(re.findall(r"\w+", values)))

    chosen = [r for r in records if says(r)] or records
    return " | ".join(
        ", ".join(f"{k}: {_scalar(v)}" for k, v in record.items()) for record in chosen
    )


def _scalar(value: Any) -> str:
    if isinstance(value, list):
        return f"[{'; '.join(str(v) for v in value)}]"
    return str(value)


def _clip(text: str, limit: int = MAX_RESULT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def document_hits(structured: Any) -> list[dict[str, Any]] | None:
    """The records of a search-like result that carry a passage; None if it is not one (a list
    of records none of which carries one: server-memory's {"results": [{"entityName": ...}]})."""
    if not isinstance(structured, dict):
        return None
    for key in RESULT_LISTS:
        if isinstance(value := structured.get(key), list):
            hits = [
                v
                for v in value
                if isinstance(v, dict) and any(isinstance(v.get(f), str) for f in TEXT_FIELDS)
            ]
            return hits if hits or not value else None
    return None


class _Ledger:
    def __init__(self) -> None:
        self.sources: list[Source] = []
        self.cited: set[str] = set()  # sentences already in the answer

    def add(self, **fields: Any) -> int:
        """The number of this source: a document found again keeps its first number."""
        for source in self.sources:
            if source.kind == "document" == fields.get("kind") and (
                source.uri,
                source.title,
            ) == (fields.get("uri", ""), fields.get("title")):
                return source.id
        self.sources.append(Source(id=len(self.sources) + 1, **fields))
        return len(self.sources)


@dataclass
class Composed:
    text: str
    sources: list[Source]
    reading: Reading | None = None  # what the documents say, when only documents answer

    @property
    def short(self) -> str:
        """The answer in a few words, when the documents give one."""
        return self.reading.short.text if self.reading and self.reading.short else ""


async def compose_answer(
    question: str,
    plan: Plan,
    observations: list[Observation],
    embedder: Embedder,
    *,
    max_sources_per_step: int,
) -> Composed:
    """The short answer and the sentences it comes from when only documents answer; else each
    part of the question answered in turn."""
    ledger = _Ledger()
    lines, passages, only_documents = [], list[Passage](), True
    asked: list[str] = []  # what the user is asked for, said last: it is what they answer
    # A search's passages, and its later rounds' (they searched for the same question).
    searched: dict[str, list[Passage]] = {}
    first: dict[str, str] = {}  # a search step's first round
    at: dict[str, int] = {}  # where a first round's line goes
    rounds: dict[str, int] = {}  # how many rounds each first round has, itself included
    for step, obs in zip(plan.steps, observations, strict=True):
        clause = step.clause.text
        # A later round of an iterative search, searched with words not the question's.
        later = clause not in question
        head = next((first[d] for d in step.depends_on if d in first and later), step.id)
        if step.problem is not None and step.problem.kind == ProblemKind.UNGROUNDED:
            asked.append(f"To “{clause}”, {step.problem.text}: what should it be?")
            only_documents = False
            continue
        if step.problem is not None and step.problem.kind == ProblemKind.WAITING:
            lines.append(f"Not done yet: “{clause}”, {step.problem.text}.")
            only_documents = False
            continue
        if not obs.ok:
            if head == step.id:  # a later round that found nothing is no part of the answer
                lines.append(f"Could not answer “{clause}”: {obs.error}")
            continue
        hits = document_hits(obs.structured)
        if hits is not None:
            found = [_register(hit, ledger) for hit in hits[:max_sources_per_step]]
            passages += _unread(found, passages)  # a document found again is read once
            first[step.id] = head
            group = searched.setdefault(head, [])
            group += _unread(found, group)
            rounds[head] = rounds.get(head, 0) + 1
            if head == step.id:
                at[head] = len(lines)
                lines.append(clause)
            continue
        only_documents = False
        result = render_result(obs.data, obs.text, clause)
        n = ledger.add(kind="tool", title=call_text(obs.key, obs.arguments), snippet=result)
        lines.append(f"{result} [{n}]")
    for head, index in at.items():  # a search's rounds answer its first round's words once
        lines[index] = await _from_documents(
            lines[index], searched[head], embedder, ledger, SENTENCES_PER_SEARCH * rounds[head]
        )
    lines += asked
    if not (only_documents and passages):
        return Composed("\n".join(lines), ledger.sources)
    # An iterative search's first round asked the question as the user did.
    reading = await read(question, passages, embedder, plan.steps[0].clause.text)
    if reading.short is None:
        return Composed("\n".join(lines), ledger.sources, reading)
    return Composed(with_chain(question, reading.short), ledger.sources, reading)


def with_chain(question: str, short: Short) -> str:
    """The short answer, then the sentences that lead to it, each cited, without asides in
    parentheses (but the dates and numbers a comparison or a "when" goes by)."""
    numbers = expected_answer(question).kind in NUMERIC
    said = set(content_terms(f"{question} {short.text}"))
    sentences = " ".join(
        f"{essentials(without_asides(text, short.text, numbers=numbers), said, short.text)} [{n}]"
        for text, n in dict.fromkeys(short.chain)
    )
    return f"{short.text} [{short.source}]\n{sentences}"


def essentials(sentence: str, said: set[str], answer: str = "") -> str:
    """A long sentence cut to the parts between its commas (outside parentheses) that say a
    word of the question or the answer, "…" where parts are left out; a run-on list without
    such parts, to the words around the answer (or the first word it says)."""
    if len(sentence.split()) <= LONG_SENTENCE:
        return sentence
    parts = _comma_parts(sentence)
    # The first part names the subject, unless it opens with a preposition ("In 2012,").
    kept = [
        (n == 0 and not _OPENER.match(part)) or bool(said & set(content_terms(part)))
        for n, part in enumerate(parts)
    ]
    if not any(kept):
        return sentence
    out: list[str] = []
    for part, keep in zip(parts, kept, strict=True):
        if keep:
            out.append(part)
        elif not out or out[-1] != "…":
            out[-1:] = [out[-1].rstrip(",;"), "…"] if out else ["…"]
    cut = " ".join(out)
    return cut if len(cut.split()) <= RUN_ON else _around(cut, said, answer)


def _comma_parts(sentence: str) -> list[str]:
    """The sentence split after its commas and semicolons that no parenthesis holds."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(sentence):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char in ",;" and depth <= 0 and sentence[at + 1 : at + 2] == " ":
            parts.append(sentence[start : at + 1])
            start = at + 2
    return [*parts, sentence[start:]]


def _around(text: str, said: set[str], answer: str) -> str:
    """The words around the answer, or the first word of `said`, in a run-on text."""
    words = text.split()
    at = text.find(answer) if answer else -1
    first = len(text[:at].split()) if at >= 0 else None
    if first is None:
        first = next((n for n, w in enumerate(words) if said & set(content_terms(w))), 0)
    start = max(0, first - RUN_ON // 2)
    window = " ".join(words[start : start + RUN_ON])
    return f"{'… ' if start else ''}{window}{' …' if start + RUN_ON < len(words) else ''}"


def _register(hit: dict[str, Any], ledger: _Ledger) -> Passage:
    """A hit numbered as a source, with its whole text (a result's content before its
    snippet: the answer is often past the snippet's cut)."""
    text = next(hit[f] for f in TEXT_FIELDS if isinstance(hit.get(f), str))
    title = str(hit.get("title") or hit.get("path") or hit.get("url") or "document")
    section = hit.get("section")
    n = ledger.add(
        kind="document",
        title=f"{title} › {section}" if section and section != title else title,
        uri=str(hit.get("path") or hit.get("url") or ""),
        snippet=_clip(" ".join(text.split())),
    )
    return Passage(title, text, n)


def _unread(found: list[Passage], read: list[Passage]) -> list[Passage]:
    known = {p.source for p in read}
    return [p for p in found if p.source not in known]


async def _from_documents(
    clause: str,
    passages: list[Passage],
    embedder: Embedder,
    ledger: _Ledger,
    count: int = SENTENCES_PER_SEARCH,
) -> str:
    """The `count` sentences of the passages closest to the clause, each cited to its
    document."""
    # A sentence another part of the answer, or another source, already gives is not given
    # twice.
    first: dict[str, int] = {}
    for p in passages:
        for s in split_sentences(p.text):
            if s not in ledger.cited:
                first.setdefault(s, p.source)
    candidates = list(first.items())
    if not candidates:
        return f"No passage answers “{clause}”."
    vectors = await embedder.embed([clause] + [s for s, _ in candidates])
    scores = vectors[1:] @ vectors[0]
    best = [i for i in np.argsort(-scores)[:count] if scores[i] >= MIN_SENTENCE_SCORE]
    if not best:
        return f"The documents found do not answer “{clause}”."
    ledger.cited.update(candidates[i][0] for i in best)
    return " ".join(f"{candidates[i][0]} [{candidates[i][1]}]" for i in sorted(best))
