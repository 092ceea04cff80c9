"""The question analysed once: every English rule about a question lives in this package.

    analyse(question, today) -> QuestionAnalysis: clauses (clauses.py), each with its values
    (values.py: numbers (numbers.py), dates, times, places, zones, quotes, conversions,
    expressions), the whole question's values, and its cues (cues.py: small talk, multi-hop);
    a clause that only says to act on what a file or page says is declined (tool output is
    data, not a request)

Later stages (retrieval, router, planner, data flow, step agent) read the analysis and never
parse the question again. `binding.py` matches a clause's values to a tool's parameters, whose
meaning `parameters.py` reads from their names; `text.py` holds the one sentence splitter.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from toolweave.language.clauses import split_clauses
from toolweave.language.cues import (
    is_multi_hop,
    is_small_talk,
    split_deferral,
)
from toolweave.language.records import cased_as_held, unnamed_reference
from toolweave.language.values import read_values
from toolweave.types import Clause, QuestionAnalysis

__all__ = ["analyse", "clause_of"]


def analyse(
    question: str, today: date, earlier: str = "", names: Iterable[str] = ()
) -> QuestionAnalysis:
    """`earlier` is the conversation so far: a "there" may point at a place it named. `names`
    are those the servers hold: one the question writes in lower case is read as held
    (`cased_as_held`); `QuestionAnalysis.question` stays as written."""
    asked, question = question, cased_as_held(question, names)
    kept, declined = [], []
    for text in split_clauses(question, earlier):
        rest, deferral = split_deferral(text)
        kept += [rest] if rest else []
        declined += [deferral] if deferral else []
    if not kept:  # nothing else asked: the question is answered as it is
        kept, declined = split_clauses(question, earlier), []
    clauses = [clause_of(i, text, today) for i, text in enumerate(kept)]
    return QuestionAnalysis(
        question=asked,
        today=today,
        clauses=clauses,
        declined=declined,
        values=read_values(question, today),
        multi_hop=is_multi_hop(question),
        small_talk=is_small_talk(question),
        unresolved="" if earlier else unnamed_reference(clauses),
    )


def clause_of(index: int, text: str, today: date) -> Clause:
    """A clause with its values: one of the question's, or an instruction a planner wrote."""
    return Clause(index=index, text=text, values=read_values(text, today))
