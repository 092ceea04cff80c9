"""Abstractive answers and output contracts.

When documents answer, the LLM reads the best evidence sentences and gives the answer in a few
words; it is kept only when it is found in one of them. Otherwise the answer is written from the
run's numbered sources, and every citation is checked
against that ledger: a [n] that is no source of this run is removed and reported (a model that
cites what it did not retrieve is the failure users see most). Output contracts:

    text         the answer with its citations (the default)
    answer-only  the answer alone: no citations, no source list
    json         a JSON value valid for the caller's schema, filled from the sources by the LLM
"""

from __future__ import annotations

import re
from typing import Any, Literal

from toolweave.errors import InputError
from toolweave.language.questions import expected_answer
from toolweave.language.spans import snap
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.types import Source

Contract = Literal["text", "answer-only", "json"]
CITATION = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
MAX_SOURCE_CHARS = 600


def ledger_text(sources: list[Source]) -> str:
    return "\n".join(
        f"[{s.id}] {s.title}: {' '.join(s.snippet.split())[:MAX_SOURCE_CHARS]}" for s in sources
    )


async def write_answer(question: str, sources: list[Source], llm: LLM) -> tuple[str, list[str]]:
    """The LLM's answer from the sources, with unknown citations removed, and what was removed."""
    messages = load_prompt("answer").messages(question=question, sources=ledger_text(sources))
    completion = await llm.complete(messages)
    return check_citations(completion.text.strip(), {s.id for s in sources})


SHORT_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 120}},
    "required": ["answer"],
    "additionalProperties": False,
}


async def write_short(
    question: str, evidence: list[tuple[str, int]], llm: LLM
) -> tuple[str, tuple[str, int]] | None:
    """The LLM's short answer as the evidence writes it, with the sentence it is in; None when
    the answer is in no sentence (yes or no stands for itself, to a yes-or-no question)."""
    lines = "\n".join(f"[{n}] {sentence}" for sentence, n in evidence)
    messages = load_prompt("short_answer").messages(question=question, evidence=lines)
    answer = " ".join(str((await complete_json(llm, messages, SHORT_SCHEMA))["answer"]).split())
    if answer.lower().strip(".") in ("yes", "no") and expected_answer(question).kind == "yesno":
        return answer.lower().strip("."), evidence[0]
    for sentence, n in evidence:
        if (found := snap(answer, sentence)) is not None:
            return found[0], (sentence, n)
    return None


def check_citations(text: str, known: set[int]) -> tuple[str, list[str]]:
    """Keep citations of known sources; drop the others and say which."""
    removed: list[str] = []

    def keep_known(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"\s*,\s*", match.group(1))]
        valid = [n for n in numbers if n in known]
        removed.extend(f"[{n}] is not a source of this run" for n in numbers if n not in known)
        return f" [{', '.join(map(str, valid))}]" if valid else ""

    return CITATION.sub(keep_known, text).strip(), removed


def without_citations(text: str) -> str:
    """The answer-only contract: the text without [n] marks."""
    return re.sub(r"[ \t]+\n", "\n", CITATION.sub("", text)).strip()


async def json_answer(
    question: str, sources: list[Source], llm: LLM, schema: dict[str, Any]
) -> Any:
    """A JSON value valid for `schema` (validated, one repair, else StructuredOutputError)."""
    if not isinstance(schema, dict) or not schema:
        raise InputError("the output schema must be a JSON object (a JSON Schema)")
    messages = load_prompt("answer_json").messages(question=question, sources=ledger_text(sources))
    return await complete_json(llm, messages, schema)
