"""Deterministic decomposition: split a question into clauses, one intent each.

Splits at sentence ends, semicolons, and at "and"/"then"/commas only where a new request starts
("..., and what time is it", "... and convert ..."), so "salt and pepper" or "2,340" stay whole.
A place named in one clause is carried into a later clause that points back at it with "there"
("book a hotel in Paris and tell me the weather there" -> "tell me the weather in Paris"), so
every clause can be searched and answered on its own.
"""

from __future__ import annotations

import re

from toolweave.types import SubQuery

# Words that open a new request: question words, auxiliaries and imperative verbs.
OPENERS = (
    "what|whats|what's|how|who|whom|whose|when|where|which|why|is|are|was|were|do|does|did|can|"
    "could|will|would|should|tell|show|give|find|get|list|convert|calculate|compute|search|"
    "look|check|read|summari[sz]e|compare|explain|also|then|please|book|reserve|buy|order|"
    "send|create|add|schedule|cancel|update|delete|translate|analy[sz]e|fetch|retrieve|"
    "generate|recommend|suggest|estimate|predict|track|play|post|download"
)
_SENTENCE_END = re.compile(r"(?<=[.?!;])\s+")
# ", and" starts a new request unless a quoted list goes on ("'Rome', 'Paris', and 'Oslo'").
_CLAUSE_BREAK = re.compile(
    rf"\s*(?:,\s*(?:and|then|and then|and also)\s+(?![\"'‘“])|,\s+(?=(?:{OPENERS})\b)|"
    rf"\s+(?:and|and then|then|and also)\s+(?=(?:{OPENERS})\b))",
    re.IGNORECASE,
)
_LEADING_FILLER = re.compile(r"^(?:and|then|also|please)\s+", re.IGNORECASE)
# A piece that is only a connective ("Then, find ...", "After that, ...") is no request.
_CONNECTIVE = re.compile(
    r"^(?:and|then|also|next|finally|first(?:ly)?|after that|afterwards|after this|lastly)$",
    re.IGNORECASE,
)
# "in Paris", "to New York", "at Heathrow Airport": a preposition and capitalised words.
_PLACE = re.compile(r"\b(?:in|at|to|near|from)\s+((?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*)*)")
# "there" pointing back at a place: at the end of the clause or before a time word, so that
# "is there a train" (which points at nothing) is left alone.
_TIME_WORDS = r"tomorrow|today|tonight|now|right now|this|next"
_THERE = re.compile(
    rf"\b(?:over\s+)?there\b(?=\s*(?:$|[?.!,;]|(?:{_TIME_WORDS})\b))", re.IGNORECASE
)


def split_clauses(question: str) -> list[SubQuery]:
    """The question's clauses in order; a question with one intent gives one clause."""
    clauses: list[str] = []
    for sentence in _SENTENCE_END.split(question.strip()):
        for piece in _CLAUSE_BREAK.split(sentence):
            text = _LEADING_FILLER.sub("", piece.strip()).strip(" ,;")
            if re.search(r"\w", text) and not _CONNECTIVE.match(text):
                clauses.append(text)
    if not clauses and question.strip():
        clauses = [question.strip()]
    return [SubQuery(index=i, text=text) for i, text in enumerate(_carry_places(clauses))]


def _carry_places(clauses: list[str]) -> list[str]:
    """Replace a back-pointing "there" with the latest place named in an earlier clause."""
    carried, place = [], None
    for clause in clauses:
        if place and _THERE.search(clause):
            clause = _THERE.sub(f"in {place}", clause, count=1)
        if named := _PLACE.findall(clause):
            place = named[-1]
        carried.append(clause)
    return carried
