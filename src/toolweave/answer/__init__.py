"""Answers: the extractive answer from the run's results (extractive.py), the LLM's own words
with checked citations, and output contracts (abstractive.py), behind one protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from toolweave.answer.abstractive import choose_short, json_answer, write_answer, write_short
from toolweave.answer.extractive import compose_answer, with_chain
from toolweave.errors import LLMError
from toolweave.grounding.reader import Reading, Short
from toolweave.models.base import LLM, Embedder
from toolweave.types import Observation, Plan, Source

__all__ = ["AbstractiveAnswerer", "Answerer", "Draft", "ExtractiveAnswerer", "make_answerer"]


@dataclass
class Draft:
    text: str
    sources: list[Source] = field(default_factory=list)
    short: str = ""  # the answer in a few words, when one was found
    reading: Reading | None = None  # what the documents say, when only documents answer
    data: Any = None  # the answer as a JSON value, when a schema was asked for
    notes: list[str] = field(default_factory=list)


class Answerer(Protocol):
    """Writes the answer from a run's plan and observations. With `schema` (a JSON Schema) the
    answer is also given as a JSON value valid for it (this needs an LLM)."""

    async def answer(
        self,
        question: str,
        plan: Plan,
        observations: list[Observation],
        schema: dict[str, Any] | None = None,
    ) -> Draft: ...


class ExtractiveAnswerer:
    """Each part answered by its tool's result or the closest sentences of its documents."""

    def __init__(self, embedder: Embedder, llm: LLM, *, max_sources_per_step: int) -> None:
        self.embedder, self.llm, self.max_sources = embedder, llm, max_sources_per_step

    async def answer(
        self,
        question: str,
        plan: Plan,
        observations: list[Observation],
        schema: dict[str, Any] | None = None,
    ) -> Draft:
        composed = await compose_answer(
            question, plan, observations, self.embedder, max_sources_per_step=self.max_sources
        )
        draft = Draft(
            composed.text, composed.sources, short=composed.short, reading=composed.reading
        )
        if schema is not None:
            draft.data = await json_answer(question, draft.sources, self.llm, schema)
        return draft


class AbstractiveAnswerer(ExtractiveAnswerer):
    """The LLM's own words from the numbered sources, checked: a short answer read from the
    evidence sentences when documents answer (kept only when it is found there), else a
    written answer with its citations checked; the extractive answer when the LLM cannot."""

    async def answer(
        self,
        question: str,
        plan: Plan,
        observations: list[Observation],
        schema: dict[str, Any] | None = None,
    ) -> Draft:
        draft = await super().answer(question, plan, observations, schema)
        if schema is not None or not draft.sources:
            return draft
        try:
            if draft.reading is not None and draft.reading.evidence:
                await self._read_short(question, draft, draft.reading)
            else:
                written, removed = await write_answer(question, draft.sources, self.llm)
                draft.notes.extend(f"removed citation {r}" for r in removed)
                draft.text = written
        except LLMError as exc:
            draft.notes.append(f"kept the extractive answer: the LLM could not write one ({exc})")
        return draft

    async def _read_short(self, question: str, draft: Draft, reading: Reading) -> None:
        """The LLM chooses among the reader's answers, or, when it has none, gives one that
        must be found in the evidence."""
        chosen: Short | None = None
        if reading.candidates:
            chosen = await choose_short(question, reading, self.llm)
        else:
            chosen = await write_short(question, reading.evidence, self.llm)
        if chosen is None:
            draft.notes.append("kept the extractive answer: the LLM's is in no evidence sentence")
        elif chosen.text != draft.short:
            draft.short, draft.text = chosen.text, with_chain(question, chosen)


def make_answerer(
    kind: str, embedder: Embedder, llm: LLM, *, max_sources_per_step: int
) -> Answerer:
    """ask.answer: "abstractive" or "extractive"."""
    cls = AbstractiveAnswerer if kind == "abstractive" else ExtractiveAnswerer
    return cls(embedder, llm, max_sources_per_step=max_sources_per_step)
