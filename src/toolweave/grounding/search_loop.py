"""Planning search (SRSA): for multi-hop questions, search, keep what is relevant, decide whether
the evidence suffices, and search again for what is still unknown, up to `max_rounds` times.

    query -> gateway.search -> compress (the new sentences closest to what the round asked)
          -> resolve: a question about something it describes ("the spouse of the actress who
             plays Scarlett") becomes one about what the results name ("the spouse of Vivien
             Leigh"), searched next
          -> read (grounding.reader): the short answer so far, and the question's words its
             evidence leaves uncovered
          -> enough? (an LLM judges when configured; otherwise: the answer's evidence covers the
             question, or a round found nothing new)
          -> next query: the LLM's, or the question with the answer so far when its evidence
             leaves some of the question uncovered, or else the question with the names the
             evidence brought in (the bridge entity)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from toolweave.errors import LLMError
from toolweave.grounding.gateway import SearchGateway
from toolweave.grounding.reader import Passage, Short, read, reading_text
from toolweave.grounding.records import MAX_QUERY_CHARS, SearchRequest, SearchResult
from toolweave.language.questions import expected_answer, split_chain
from toolweave.language.text import split_sentences
from toolweave.models.base import LLM, Embedder, Message
from toolweave.models.structured import complete_json

NAME = re.compile(r"\b[A-Z][\w'.-]+(?:\s+(?:of|the|de|and)?\s*[A-Z][\w'.-]+)*")
BRIDGES = 2  # the likeliest described things a chained question is tried with
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
    question: str  # the question as last understood: with the things it described named
    queries: list[str] = field(default_factory=list)
    results: list[SearchResult] = field(default_factory=list)  # every result, first seen order
    rounds: list[list[SearchResult]] = field(default_factory=list)  # each query's results
    providers: list[str | None] = field(default_factory=list)  # who answered each query
    evidence: list[Evidence] = field(default_factory=list)  # best first
    short: Short | None = None  # the answer read from every result so far
    bridges: list[Short] = field(default_factory=list)  # the described things, as found
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
    trail = SearchTrail(question=question)
    query, unread = question, False
    for _round in range(max_rounds):
        trail.queries.append(query)
        # Asked for more than per_round: the first hits may be passages already found.
        depth = min(50, per_round + len(trail.results))
        # A long question is searched by its beginning (the request's limit).
        request = SearchRequest(query=query[:MAX_QUERY_CHARS], max_results=depth)
        response = await gateway.search(request)
        trail.providers.append(response.provider)
        seen = {r.url for r in trail.results}
        new = [r for r in response.results if r.url not in seen][:per_round]
        trail.results += new
        trail.rounds.append(response.results[:per_round])
        if not await _compress(query, new, embedder, trail, keep):
            trail.stopped = "a round found nothing new"
            break
        if (resolved := await _resolve(trail, gateway, embedder, per_round)) is not None:
            query, unread = resolved, True  # the question now names what it described
            continue
        unread = False
        if llm is None and expected_answer(trail.question).kind == "explanation":
            trail.stopped = "an explanation: the first results are read"
            break
        trail.short = (
            await read(trail.question, passages_of(trail.results), embedder, question)
        ).short
        if llm is None and trail.short is not None and not trail.short.missing:
            trail.stopped = "the answer's evidence covers the question"
            break
        next_query = await _next_query(trail.question, trail, llm)
        if next_query is None or next_query in trail.queries:
            trail.stopped = "the evidence suffices"
            break
        query = next_query
    else:
        trail.stopped = f"{max_rounds} rounds"
    if unread:
        trail.short = (
            await read(trail.question, passages_of(trail.results), embedder, question)
        ).short
    return trail


async def _resolve(
    trail: SearchTrail, gateway: SearchGateway, embedder: Embedder, per_round: int
) -> str | None:
    """The question with the thing it describes named, once the results name it ("Who is the
    spouse of Vivien Leigh?" for "... of the actress who plays Scarlett"); None when it
    describes nothing or the results do not say what. Of the two likeliest things, the one
    whose question the search then answers best."""
    chain = split_chain(trail.question)
    if chain is None:
        return None
    reading = await read(chain.inner, passages_of(trail.results), embedder)
    asked = trail.question.lower()
    bridges = [c for c in reading.candidates if c.text.lower() not in asked][:BRIDGES]
    if not bridges or bridges[0] is not reading.short:
        return None
    bridge = bridges[0]
    if len(bridges) > 1:  # one thing alone needs no trial search
        scores = [
            await _answered(chain.outer.format(b.text), trail, gateway, embedder, per_round)
            for b in bridges
        ]
        bridge = max(zip(bridges, scores, strict=True), key=lambda p: p[0].score + p[1])[0]
    trail.bridges.append(bridge)
    trail.question = chain.outer.format(bridge.text)
    return trail.question


async def _answered(
    question: str, trail: SearchTrail, gateway: SearchGateway, embedder: Embedder, per_round: int
) -> float:
    """How well a search for `question` answers it, with what was found so far."""
    response = await gateway.search(
        SearchRequest(query=question[:MAX_QUERY_CHARS], max_results=per_round)
    )
    short = (await read(question, passages_of(trail.results + response.results), embedder)).short
    return short.score if short is not None else 0.0


def passages_of(results: list[SearchResult]) -> list[Passage]:
    """The results as passages to read, each numbered by its place in the list (from 1)."""
    return [Passage(r.title, r.content or r.snippet, n) for n, r in enumerate(results, 1)]


async def _compress(
    query: str, results: list[SearchResult], embedder: Embedder, trail: SearchTrail, keep: int
) -> int:
    """Add the sentences of `results` closest to the query; return how many were added."""
    found = [(s, r) for r in results for s in split_sentences(r.content or r.snippet)]
    if not found:
        return 0
    # Embedded as the reader embeds them, so that reading them again costs nothing.
    texts = [reading_text(r.title, s) for s, r in found]
    vectors = await embedder.embed([query, *texts])
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
    short = trail.short
    if short is not None and short.missing:
        return f"{short.text} {question}"  # the question, with what was found so far
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
