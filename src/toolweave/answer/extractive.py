"""Extractive answers: each part of the question is answered by what its tool returned, or by
the sentences of the retrieved documents closest to it, each line cited [n] to a numbered source.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from toolweave.language.text import sentences
from toolweave.models.base import Embedder
from toolweave.types import Observation, Plan, ProblemKind, Source, call_text

MAX_RESULT_CHARS = 400
MIN_SENTENCE_SCORE = 0.2
TEXT_FIELDS = ("text", "snippet", "content", "body")
RESULT_LISTS = ("results", "hits", "documents", "passages", "items")


def render_result(structured: Any, text: str) -> str:
    """One readable line for a tool result: its summary if it has one, else its fields."""
    if isinstance(structured, dict):
        if isinstance(structured.get("summary"), str):
            return structured["summary"]
        fields = _flatten(structured)
        if fields:
            return _clip("; ".join(f"{k}: {v}" for k, v in fields))
    return _clip(" ".join(text.split()))


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for key, value in data.items():
        name = f"{prefix}{key}".replace("_", " ")
        if isinstance(value, dict):
            pairs += _flatten(value, f"{name} ")
        elif isinstance(value, bool):
            pairs.append((name, "yes" if value else "no"))
        elif isinstance(value, (str, int, float)):
            pairs.append((name, str(value)))
        elif value is not None:
            pairs.append((name, json.dumps(value)[:80]))
    return pairs


def _clip(text: str) -> str:
    return text if len(text) <= MAX_RESULT_CHARS else text[: MAX_RESULT_CHARS - 1] + "…"


def document_hits(structured: Any) -> list[dict[str, Any]] | None:
    """The records of a search-like result that carry a passage; None if it is not one."""
    if not isinstance(structured, dict):
        return None
    for key in RESULT_LISTS:
        if isinstance(value := structured.get(key), list):
            return [
                v
                for v in value
                if isinstance(v, dict) and any(isinstance(v.get(f), str) for f in TEXT_FIELDS)
            ]
    return None


def split_sentences(text: str) -> list[str]:
    """A document's sentences of three words or more, markdown headings and bullets unmarked."""
    text = re.sub(r"^#+\s*", "", text, flags=re.MULTILINE)
    parts = (p.lstrip("-* ") for p in sentences(text, lines=False))
    return [p for p in parts if len(p.split()) >= 3]


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


async def compose_answer(
    plan: Plan, observations: list[Observation], embedder: Embedder, *, max_sources_per_step: int
) -> tuple[str, list[Source]]:
    ledger = _Ledger()
    lines = []
    for step, obs in zip(plan.steps, observations, strict=True):
        clause = step.clause.text
        if step.problem is not None and step.problem.kind == ProblemKind.UNGROUNDED:
            lines.append(f"To “{clause}”, {step.problem.text}: what should it be?")
            continue
        if not obs.ok:
            lines.append(f"Could not answer “{clause}”: {obs.error}")
            continue
        hits = document_hits(obs.structured)
        if hits is not None:
            hits = hits[:max_sources_per_step]
            lines.append(await _from_documents(clause, hits, embedder, ledger))
            continue
        result = render_result(obs.structured, obs.text)
        n = ledger.add(kind="tool", title=call_text(obs.key, obs.arguments), snippet=result)
        lines.append(f"{result} [{n}]")
    return "\n".join(lines), ledger.sources


async def _from_documents(
    clause: str, hits: list[dict[str, Any]], embedder: Embedder, ledger: _Ledger
) -> str:
    """The two sentences of the hits closest to the clause, each cited to its document."""
    candidates: list[tuple[str, int]] = []
    for hit in hits:
        text = next(hit[f] for f in TEXT_FIELDS if isinstance(hit.get(f), str))
        title = str(hit.get("title") or hit.get("path") or hit.get("url") or "document")
        section = hit.get("section")
        n = ledger.add(
            kind="document",
            title=f"{title} › {section}" if section and section != title else title,
            uri=str(hit.get("path") or hit.get("url") or ""),
            snippet=_clip(" ".join(text.split())),
        )
        # A sentence another part of the answer already gives is not given twice.
        candidates += [(s, n) for s in split_sentences(text) if s not in ledger.cited]
    if not candidates:
        return f"No passage answers “{clause}”."
    vectors = await embedder.embed([clause] + [s for s, _ in candidates])
    scores = vectors[1:] @ vectors[0]
    best = [i for i in np.argsort(-scores)[:2] if scores[i] >= MIN_SENTENCE_SCORE]
    if not best:
        return f"The documents found do not answer “{clause}”."
    ledger.cited.update(candidates[i][0] for i in best)
    return " ".join(f"{candidates[i][0]} [{candidates[i][1]}]" for i in sorted(best))
