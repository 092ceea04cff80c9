"""Deterministic decomposition: split a question into clauses, one intent each.

Splits at sentence ends, semicolons, and at "and"/"then"/commas only where a new request starts
("..., and what time is it", "... and convert ..."), so "salt and pepper" or "2,340" stay whole.
"""

from __future__ import annotations

import re

from toolweave.types import SubQuery

# Words that open a new request: question words, auxiliaries and imperative verbs.
OPENERS = (
    "what|whats|what's|how|who|whom|whose|when|where|which|why|is|are|was|were|do|does|did|can|"
    "could|will|would|should|tell|show|give|find|get|list|convert|calculate|compute|search|"
    "look|check|read|summari[sz]e|compare|explain|also|then|please"
)
_SENTENCE_END = re.compile(r"(?<=[.?!;])\s+")
_CLAUSE_BREAK = re.compile(
    rf"\s*(?:,\s*(?:and|then|and then|and also)\s+|,\s+(?=(?:{OPENERS})\b)|"
    rf"\s+(?:and|and then|then|and also)\s+(?=(?:{OPENERS})\b))",
    re.IGNORECASE,
)
_LEADING_FILLER = re.compile(r"^(?:and|then|also|please)\s+", re.IGNORECASE)


def split_clauses(question: str) -> list[SubQuery]:
    """The question's clauses in order; a question with one intent gives one clause."""
    clauses: list[str] = []
    for sentence in _SENTENCE_END.split(question.strip()):
        for piece in _CLAUSE_BREAK.split(sentence):
            text = _LEADING_FILLER.sub("", piece.strip()).strip(" ,;")
            if re.search(r"\w", text):
                clauses.append(text)
    if not clauses and question.strip():
        clauses = [question.strip()]
    return [SubQuery(index=i, text=text) for i, text in enumerate(clauses)]
