"""Tool retrieval for a question: decompose, search dense (MaxSim) and lexical (BM25) per
sub-query, fuse, aggregate across sub-queries by max score, keep each sub-query's best tools.

    question -> [whole question] + clauses, each without its request wrapper ("Can you ...")
             -> per query: dense hits, BM25 hits -> fusion
             -> tool score = max over queries -> top K, each clause guaranteed its top tools
             -> with a tool graph: the tools runs used together with the top ones raised

Fusion defaults to z-scores: each list's scores standardised over its top `depth` hits (a short
list padded with zeros), then summed. A
list whose best hits stand far above the rest (BM25 when the question names a tool's rare words,
dense on paraphrases) counts for more on that question, so the fusion follows whichever input is
confident instead of averaging ranks as RRF does. On the dev splits (`toolweave eval retrieval
seal-dev toole-dev toollens-dev`) it beat RRF and min-max fusion; see benchmarks/RESULTS.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from toolweave.errors import LLMError
from toolweave.index.fusion import Scores, convex_fusion, ranked, rrf_fusion, zscore_fusion
from toolweave.index.store import ToolIndex
from toolweave.language.clauses import split_clauses
from toolweave.language.cues import searchable
from toolweave.models.base import LLM, Embedder
from toolweave.retrieval.expand import Expansion, expand_query
from toolweave.retrieval.rerank import llm_rerank
from toolweave.types import IndexHit

Fusion = Literal["zscore", "rrf", "convex"]
# A tool's companions: the tools runs used together with it, with the share of its successes.
Companions = Callable[[str], list[tuple[str, float]]]
# Whether a run has gone well with a tool (the tool graph's `succeeded`).
Succeeded = Callable[[str], bool]
_BELOW = 1e-6


@dataclass(frozen=True)
class RetrievalOptions:
    dense: bool = True
    lexical: bool = True
    fusion: Fusion = "zscore"
    decompose: bool = True
    rewrite: bool = True  # search clauses without their request wrapper (language/cues.py)
    depth: int = 50  # hits taken from each source per query
    rrf_k: int = 60
    dense_weight: float = 0.5  # convex fusion: weight of the normalised dense score
    # Ask the retriever's LLM for sub-queries, variants and a step-back query (retrieval/expand).
    expand: bool = False
    # Let the retriever's LLM reorder the top 10 (retrieval/rerank).
    llm_rerank: bool = False
    # With companions (the tool graph's): each of the top `companion_from` tools adds its score
    # times `companion_weight` times the share of its successes that came with another tool to
    # that tool's score (among the top `companion_pool` hits or from outside them), up to just
    # below its own. Chosen on ToolLens training queries held out of the traffic (RESULTS.md).
    companion_from: int = 3
    companion_weight: float = 3.0
    companion_pool: int = 30
    # Exploration (`explore`): the last of a shortlist's slots goes to the best tool among the
    # top `explore_pool` that no run has gone well with. A tool never offered never succeeds, so
    # traffic never teaches it: on ToolLens training queries held out of the traffic, 191 of 464
    # tools learned nothing and R@5 rose from 0.593 to 0.668 with it (RESULTS.md).
    explore_pool: int = 30


class ToolRetriever:
    def __init__(
        self,
        index: ToolIndex,
        embedder: Embedder,
        options: RetrievalOptions,
        llm: LLM | None = None,
        companions: Companions | None = None,
        succeeded: Succeeded | None = None,
    ) -> None:
        if not (options.dense or options.lexical):
            raise ValueError("retrieval needs dense search, lexical search or both")
        if (options.expand or options.llm_rerank) and llm is None:
            raise ValueError("query expansion and LLM reranking need an LLM")
        self.llm = llm
        self.companions = companions
        self.succeeded = succeeded  # with it, shortlists explore (`explore`)
        self.last_problem = ""  # of the latest search, when a stage had to be left out
        self.index = index
        self.embedder = embedder
        self.options = options
        # Of the latest search: expand_ms, embed_ms, search_ms, rerank_ms.
        self.last_timing: dict[str, float] = {}

    def queries(self, question: str) -> list[str]:
        """The whole question first, then its clauses when it has several."""
        if not self.options.decompose:
            return [question]
        clauses = split_clauses(question)
        return [question, *clauses] if len(clauses) > 1 else [question]

    async def search(self, question: str, k: int = 10, *, explore: bool = False) -> list[IndexHit]:
        """The k best tools for the question; with `explore`, the tools a run tries: the last
        slot explores (`explore`)."""
        started = time.perf_counter()
        expansion = await self._expand(question)
        expanded = time.perf_counter()
        clauses = self._searchable([*self.queries(question)[1:], *expansion.subqueries])
        queries = [*self._searchable([question]), *clauses, *expansion.variants]
        dense: list[list[IndexHit]] = [[] for _ in queries]
        if self.options.dense:
            # With several clauses only the clauses are embedded (embedding cost grows with the
            # tokens); the whole question's dense list is their best scores per tool, which
            # ranked as well as embedding it too on the dev splits.
            vectors = await self.embedder.embed(queries[1:] if clauses else queries)
            embedded = time.perf_counter()
            found = self.index.search_many(vectors, self.options.depth)
            if clauses:
                found = [_best_of(found[: len(clauses)], self.options.depth), *found]
            dense = found
        else:
            embedded = expanded
        ranked = [self._fuse(dense[i], text) for i, text in enumerate(queries)]
        hits = self._with_companions(ranked, k, len(clauses))
        if explore and self.succeeded is not None and hits:
            pool = self._with_companions(ranked, self.options.explore_pool, len(clauses))
            by_key = {h.key: h for h in [*pool, *hits]}
            top = self.explore([h.key for h in hits], [h.key for h in pool], k)
            hits = [by_key[key] for key in top]
        reranked = time.perf_counter()
        if self.options.llm_rerank:
            hits = await self._rerank(question, hits)
        self.last_timing = {
            "expand_ms": (expanded - started) * 1000,
            "embed_ms": (embedded - expanded) * 1000,
            "search_ms": (reranked - embedded) * 1000,
            "rerank_ms": (time.perf_counter() - reranked) * 1000,
        }
        return hits

    async def search_servers(self, question: str, k: int = 5) -> list[IndexHit]:
        """Servers ranked by their best tool's score (max-score aggregation at server level),
        each with that tool's matched segment."""
        best: dict[str, IndexHit] = {}
        for hit in await self.search(question, k=self.options.depth):  # best first
            best.setdefault(hit.server, hit.model_copy(update={"key": hit.server}))
        return list(best.values())[:k]

    async def rank_clauses(
        self, clauses: list[str], vectors: np.ndarray | None = None
    ) -> list[ClauseRanking]:
        """Each clause's own fused ranking, without aggregation: what the planner binds a step
        to. `vectors`: the embeddings of the clauses' `searchable` texts, when the caller has
        them already."""
        clauses = self._searchable(clauses)
        if vectors is None and self.options.dense:
            vectors = await self.embedder.embed(clauses)
        dense: list[list[IndexHit]] = [[] for _ in clauses]
        if self.options.dense and vectors is not None:
            dense = self.index.search_many(vectors, self.options.depth)
        rankings = []
        for hits, text in zip(dense, clauses, strict=True):
            scores, evidence = self._fuse(hits, text)
            rankings.append(ClauseRanking(list(scores), evidence, {h.key: h.score for h in hits}))
        return rankings

    def explore(self, top: Sequence[str], pool: Sequence[str], k: int) -> list[str]:
        """The first k of `top`, the last of them the best of `pool`'s first `explore_pool`
        (best first) outside the first k - 1 that no run has gone well with, if any. Before
        any run went well that is the k-th itself: exploring changes nothing until runs have
        taught some tools."""
        if self.succeeded is None or len(top) < k:
            return list(top[:k])
        kept, pool = top[: k - 1], pool[: self.options.explore_pool]
        cold = (key for key in pool if key not in kept and not self.succeeded(key))
        return [*kept, next(cold, top[k - 1])]

    def _with_companions(self, ranked: list[Ranked], k: int, clauses: int) -> list[IndexHit]:
        """The top k, the companions of the best tools raised (when a run used any)."""
        hits = _aggregate(ranked, k, clauses=clauses)
        if self.companions is None or not hits:
            return hits
        pool = _aggregate(ranked, max(k, self.options.companion_pool), clauses=clauses)
        scores = {h.key: h.score for h in pool}
        found = {h.key: h for h in pool}
        changed = False
        for best in pool[: self.options.companion_from]:
            for other, share in self.companions(best.key):
                gain = self.options.companion_weight * max(best.score, 0.0) * share
                current = scores.get(other, 0.0)  # never raised above the tool that raises it
                raised = min(current + gain, best.score - _BELOW)
                if raised > current and (hit := found.get(other) or self._hit(other)):
                    found[other], scores[other], changed = hit, raised, True
        if not changed:
            return hits  # nothing raised: the ranking as it was
        top = sorted(scores, key=lambda key: (-scores[key], key))[:k]
        return [found[key].model_copy(update={"score": scores[key]}) for key in top]

    def _hit(self, key: str) -> IndexHit | None:
        """A hit for a tool the search did not find, if it is still indexed."""
        spec = self.index.tool_spec(key)
        return IndexHit(key=key, server=spec.server, score=0.0) if spec else None

    def _searchable(self, texts: list[str]) -> list[str]:
        return [searchable(t) for t in texts] if self.options.rewrite else texts

    async def _rerank(self, question: str, hits: list[IndexHit]) -> list[IndexHit]:
        """The LLM's order of the top hits, or theirs when it fails."""
        if self.llm is None:
            return hits
        try:
            return await llm_rerank(question, hits, self.index, self.llm)
        except LLMError as exc:
            self.last_problem = f"LLM reranking failed: {exc}"
            return hits

    async def _expand(self, question: str) -> Expansion:
        """The LLM's sub-queries and variants (options.expand), or none when it fails."""
        if not self.options.expand or self.llm is None:
            return Expansion()
        try:
            return await expand_query(question, self.llm)
        except LLMError as exc:
            self.last_problem = f"query expansion failed: {exc}"
            return Expansion()

    def _fuse(self, dense: list[IndexHit], text: str) -> Ranked:
        """One query's fused ranking (scores best first) and a hit per tool for its evidence."""
        depth = self.options.depth
        lexical = self.index.search_text(text, depth) if self.options.lexical else []
        evidence = {h.key: h for h in lexical} | {h.key: h for h in dense}  # dense segments win
        if not lexical or not dense:
            return {h.key: h.score for h in dense or lexical}, evidence
        if self.options.fusion == "zscore":
            scores = zscore_fusion([dense, lexical], depth)
        elif self.options.fusion == "rrf":
            scores = rrf_fusion([dense, lexical], self.options.rrf_k)
        else:
            scores = convex_fusion(dense, lexical, self.options.dense_weight)
        best = ranked(scores)[:depth]
        return {key: scores[key] for key in best}, evidence


def _best_of(lists: list[list[IndexHit]], depth: int) -> list[IndexHit]:
    """Each tool's best hit over the lists, best first."""
    best: dict[str, IndexHit] = {}
    for hits in lists:
        for hit in hits:
            if hit.key not in best or hit.score > best[hit.key].score:
                best[hit.key] = hit
    return sorted(best.values(), key=lambda h: (-h.score, h.key))[:depth]


Ranked = tuple[Scores, dict[str, IndexHit]]


@dataclass(frozen=True)
class ClauseRanking:
    keys: list[str]  # tools, best fused score first
    evidence: dict[str, IndexHit]  # per tool, the segment that matched (dense) or its BM25 hit
    cosine: dict[str, float]  # the MaxSim cosine of each tool dense search found


def _aggregate(ranked: list[Ranked], k: int, *, clauses: int) -> list[IndexHit]:
    """Max score across queries; every clause (ranked[1 : 1 + clauses]) keeps its best tools in
    the top k; the queries after the clauses (variants) only compete on score."""
    best: dict[str, tuple[float, IndexHit]] = {}
    for scores, evidence in ranked:
        for key, score in scores.items():
            if key not in best or score > best[key][0]:
                best[key] = (score, evidence[key])
    picks: list[str] = []
    if clauses:
        cap = max(1, k // (2 * clauses))  # half the slots go to the clauses' own best tools
        own = ranked[1 : 1 + clauses]
        picks = list(dict.fromkeys(key for scores, _ in own for key in list(scores)[:cap]))
    by_score = sorted(best, key=lambda key: (-best[key][0], key))
    chosen = list(dict.fromkeys([*picks, *by_score]))[: max(k, len(picks))]
    top = sorted(chosen, key=lambda key: (-best[key][0], key))[:k]
    return [best[key][1].model_copy(update={"score": best[key][0]}) for key in top]
