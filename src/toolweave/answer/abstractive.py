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
from toolweave.grounding.reader import Reading, Short
from toolweave.language.questions import expected_answer
from toolweave.language.spans import snap
from toolweave.models.base import LLM, Message
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


async def write_short(question: str, evidence: list[tuple[str, int]], llm: LLM) -> Short | None:
    """The LLM's short answer as the evidence writes it, cited to the sentence it is in (after
    the best sentence of another source: the first hop); None when it is in no sentence (yes
    or no stands for itself, to a yes-or-no question)."""
    reply = await complete_json(llm, _messages(question, evidence), SHORT_SCHEMA)
    answer = " ".join(str(reply["answer"]).split()).strip(".")
    if answer.lower() in ("yes", "no") and expected_answer(question).kind == "yesno":
        return Short(answer.lower(), evidence[0][1], evidence[:1])
    for sentence, n in evidence:
        if (found := snap(answer, sentence)) is not None:
            hop = [e for e in evidence if e[1] != n][:1]
            return Short(found[0], n, [*hop, (sentence, n)])
    return None


async def choose_short(question: str, reading: Reading, llm: LLM) -> Short:
    """The reader's answer the LLM chooses (a JSON enum of them, so it cannot write another)."""
    choices = [c.text for c in reading.candidates]
    if expected_answer(question).kind == "yesno":
        choices = ["yes", "no"]
    schema = {
        "type": "object",
        "properties": {"answer": {"enum": choices}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    messages = _messages(question, reading.evidence, choices)
    answer = (await complete_json(llm, messages, schema))["answer"]
    best = reading.candidates[0]
    if best.text in ("yes", "no"):
        return Short(answer, best.source, best.chain) if answer != best.text else best
    return next((c for c in reading.candidates if c.text == answer), best)


def _messages(
    question: str, evidence: list[tuple[str, int]], choices: list[str] | None = None
) -> list[Message]:
    lines = "\n".join(f"[{n}] {sentence}" for sentence, n in evidence)
    offered = "\n".join(f"- {c}" for c in choices or [])
    return load_prompt("short_answer").messages(
        question=question,
        evidence=lines,
        choices=f"Choose one of:\n{offered}" if offered else "",
    )


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
