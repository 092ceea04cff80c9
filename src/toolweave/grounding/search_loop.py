"""Planning search (SRSA): for multi-hop questions, search, keep what is relevant, decide whether
the evidence suffices, and search again with what was learnt, up to `max_rounds` times.

    query -> gateway.search -> compress (sentences closest to the question, new ones only)
          -> enough? (an LLM judges when configured; otherwise: stop when a round adds nothing)
          -> next query: the LLM's, or the question with the names the evidence brought in
             that the question does not mention (the bridge entity of a two-hop question)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from toolweave.errors import LLMError
from toolweave.grounding.gateway import SearchGateway
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.language.text import sentences
from toolweave.models.base import LLM, Embedder, Message
from toolweave.models.structured import complete_json

NAME = re.compile(r"\b[A-Z][\w'.-]+(?:\s+(?:of|the|de|and)?\s*[A-Z][\w'.-]+)*")
NEXT_STEP_SCHEMA = {
    "type": "object",
    "properties": {"sufficient": {"type": "boolean"}, "next_query": {"type": "string"}},
    "required": ["sufficient", "next_query"],
    "additionalProperties": False,
}


@dataclass
class Evidence:
    sentence: str
    result: SearchResult
    score: float


@dataclass
class SearchTrail:
    queries: list[str] = field(default_factory=list)
    results: list[SearchResult] = field(default_factory=list)  # every result, first seen order
    rounds: list[list[SearchResult]] = field(default_factory=list)  # each query's results
    evidence: list[Evidence] = field(default_factory=list)  # best first
    stopped: str = ""


async def planning_search(
    question: str,
    gateway: SearchGateway,
    embedder: Embedder,
    llm: LLM | None = None,
    *,
    max_rounds: int = 3,
    per_round: int = 5,
    keep: int = 6,
) -> SearchTrail:
    trail, query = SearchTrail(), question
    for _round in range(max_rounds):
        trail.queries.append(query)
        # Asked for more than per_round: the first hits may be passages already found.
        depth = min(50, per_round + len(trail.results))
        response = await gateway.search(SearchRequest(query=query, max_results=depth))
        seen = {r.url for r in trail.results}
        new = [r for r in response.results if r.url not in seen][:per_round]
        trail.results += new
        trail.rounds.append(response.results[:per_round])
        added = await _compress(question, new, embedder, trail, keep)
        if not added:
            trail.stopped = "a round found nothing new"
            break
        next_query = await _next_query(question, trail, llm)
        if next_query is None or next_query in trail.queries:
            trail.stopped = "the evidence suffices"
            break
        query = next_query
    else:
        trail.stopped = f"{max_rounds} rounds"
    return trail


async def _compress(
    question: str, results: list[SearchResult], embedder: Embedder, trail: SearchTrail, keep: int
) -> int:
    """Add the sentences of `results` closest to the question; return how many were added."""
    found = [
        (s, r)
        for r in results
        for s in sentences(r.content or r.snippet, lines=False, min_chars=21)
    ]
    if not found:
        return 0
    vectors = await embedder.embed([question] + [s for s, _ in found])
    scores = vectors[1:] @ vectors[0]
    best = [i for i in np.argsort(-scores)[:keep]]
    trail.evidence += [Evidence(found[i][0], found[i][1], float(scores[i])) for i in best]
    trail.evidence.sort(key=lambda e: -e.score)
    return len(best)


async def _next_query(question: str, trail: SearchTrail, llm: LLM | None) -> str | None:
    """The next query, or None when the evidence suffices."""
    if llm is not None:
        try:
            return await _llm_next_query(question, trail, llm)
        except LLMError:
            pass  # no usable LLM answer: the deterministic rule below decides
    return _bridge_query(question, trail)


async def _llm_next_query(question: str, trail: SearchTrail, llm: LLM) -> str | None:
    evidence = "\n".join(f"- {e.sentence}" for e in trail.evidence[:8])
    messages: list[Message] = [
        {
            "role": "system",
            "content": "Decide if the evidence answers the question. If not, write the next "
            "search query. Answer with JSON only.",
        },
        {"role": "user", "content": f"Question: {question}\nEvidence:\n{evidence}"},
    ]
    decision = await complete_json(llm, messages, NEXT_STEP_SCHEMA)
    query = decision["next_query"].strip()
    return None if decision["sufficient"] or not query else query


def _bridge_query(question: str, trail: SearchTrail) -> str | None:
    """The question plus the names the best evidence brings in that the question lacks."""
    asked = question.lower()
    for evidence in trail.evidence[:3]:
        names = [n for n in NAME.findall(evidence.sentence) if n.lower() not in asked]
        title = evidence.result.title.split(" (")[0]  # "Counterparts (album)" is Counterparts
        titles = [title] if title.lower() not in asked else []
        if new := list(dict.fromkeys(titles + names))[:2]:
            return f"{' '.join(new)} {question}"
    return None
