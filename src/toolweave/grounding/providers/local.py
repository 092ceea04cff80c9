"""The local provider, the gateway's embedded default: BM25 + dense search over the user's
documents (a folder of Markdown/text) or a JSONL corpus, persisted between runs.

JSONL lines are objects with `text` (or `content` / `snippet`) and optionally `title`, `url`, `id`,
`published`. The index lives in <state>/grounding/local/<fingerprint>: a changed file, another
corpus or another embedder gives another fingerprint, so a stale index is never read.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toolweave.errors import ConfigError
from toolweave.grounding.records import ProviderError, SearchRequest, SearchResult
from toolweave.index.fusion import ranked, zscore_fusion
from toolweave.index.lexical import LexicalIndex
from toolweave.models.base import Embedder
from toolweave.servers.passages import load_passages

SNIPPET_CHARS = 300
DEPTH = 50  # hits taken from each scorer before fusion
TEXT_KEYS = ("text", "content", "snippet", "body")


@dataclass
class Passage:
    title: str
    url: str
    text: str
    published: str | None = None


@dataclass(frozen=True)
class _Hit:
    key: str
    score: float


def read_corpus(path: Path) -> list[Passage]:
    """The passages of a document folder or a JSONL file."""
    if path.is_dir():
        return [
            Passage(
                title=p.title if p.section == p.title else f"{p.title}: {p.section}",
                url=f"{(path / p.path).resolve().as_uri()}#{_slug(p.section)}",
                text=p.text,
            )
            for p in load_passages(path)
        ]
    if path.is_file():
        return list(_jsonl_passages(path))
    raise ConfigError(
        f"grounding.corpus: {path} is neither a folder of documents nor a JSONL file; "
        "point it at one (default: docs_dir)"
    )


def _jsonl_passages(path: Path) -> Iterator[Passage]:
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                text = next(item[key] for key in TEXT_KEYS if isinstance(item.get(key), str))
            except (json.JSONDecodeError, TypeError, StopIteration):
                raise ConfigError(
                    f"{path}:{number}: expected a JSON object with a text field "
                    f"({', '.join(TEXT_KEYS)})"
                ) from None
            title = str(item.get("title") or text[:60])
            ident = item.get("id", number)
            yield Passage(
                title, str(item.get("url") or f"local:{ident}"), text, item.get("published")
            )


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def fingerprint(path: Path, embedder_id: str) -> str:
    """Changes when any corpus file changes (size or mtime), or with the embedder."""
    digest = hashlib.sha256(f"{path.resolve()}\n{embedder_id}".encode())
    files = sorted(path.rglob("*")) if path.is_dir() else [path]
    for file in files:
        if file.is_file():
            stat = file.stat()
            digest.update(f"{file}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class LocalProvider:
    name = "local"
    capabilities = frozenset({"web", "local", "content", "domains"})
    cost_per_call = 0.0

    def __init__(
        self,
        passages: list[Passage],
        vectors: np.ndarray,
        lexical: LexicalIndex,
        embedder: Embedder,
    ) -> None:
        self.passages = passages
        self.vectors = vectors
        self.lexical = lexical
        self.embedder = embedder

    @classmethod
    async def open(
        cls,
        corpus: Path,
        embedder: Embedder,
        state_dir: Path,
        on_progress: Callable[[str], None] | None = None,
    ) -> LocalProvider:
        """Load the persisted index of `corpus`, building it first when there is none."""
        folder = state_dir / "grounding" / "local" / fingerprint(corpus, embedder.id)
        if (folder / "passages.jsonl").is_file():
            return cls(*_load(folder), embedder)
        passages = read_corpus(corpus)
        notice = on_progress or (lambda _text: None)
        notice(f"indexing {len(passages):,} passages of {corpus} for local search (once)")
        vectors = await _embed(embedder, passages, notice)
        lexical = LexicalIndex.build(
            list(range(len(passages))), [f"{p.title}. {p.text}" for p in passages]
        )
        _save(folder, passages, vectors, lexical)
        return cls(passages, vectors, lexical, embedder)

    def unavailable_reason(self) -> str | None:
        return None if self.passages else "the local corpus has no passages"

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        if not self.passages:
            raise ProviderError(self.name, "unavailable", "the local corpus has no passages")
        query = request.query
        vector = (await self.embedder.embed([query]))[0]
        cosine = self.vectors @ vector
        top = np.argsort(-cosine, kind="stable")[:DEPTH]
        dense = [_Hit(str(i), float(cosine[i])) for i in top]
        lexical = [_Hit(str(i), s) for i, s in self.lexical.search(query, DEPTH)]
        depth = min(DEPTH, len(self.passages))
        scores = (
            zscore_fusion([dense, lexical], depth) if lexical else {h.key: h.score for h in dense}
        )
        order = [int(key) for key in ranked(scores)]
        kept = [i for i in order if _in_domains(self.passages[i].url, request.domains)]
        return [
            self._result(self.passages[i], rank, scores[str(i)])
            for rank, i in enumerate(kept[: request.max_results], start=1)
        ]

    def _result(self, passage: Passage, rank: int, score: float) -> SearchResult:
        snippet = " ".join(passage.text.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
        return SearchResult(
            title=passage.title,
            url=passage.url,
            snippet=snippet,
            content=passage.text,
            published=passage.published,
            provider=self.name,
            rank=rank,
            score=round(score, 4),
        )

    async def aclose(self) -> None:
        return None


def _in_domains(url: str, domains: list[str]) -> bool:
    if not domains:
        return True
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return any(host == d.lower() or host.endswith("." + d.lower()) for d in domains)


async def _embed(
    embedder: Embedder, passages: list[Passage], notice: Callable[[str], None], batch: int = 256
) -> np.ndarray:
    parts, started = [], time.perf_counter()
    for start in range(0, len(passages), batch):
        chunk = passages[start : start + batch]
        parts.append(await embedder.embed([f"{p.title}. {p.text}" for p in chunk]))
        done, spent = start + len(chunk), time.perf_counter() - started
        left = spent / done * (len(passages) - done)
        notice(f"  embedded {done:,}/{len(passages):,} passages, {left:,.0f} s left")
    return np.vstack(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)


def _save(folder: Path, passages: list[Passage], vectors: np.ndarray, lexical: Any) -> None:
    """Written to a staging folder and renamed, so a crash never leaves half an index."""
    staging = folder.with_name(folder.name + ".new")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    np.save(staging / "vectors.npy", vectors)
    lexical.save(staging / "lexical")
    with (staging / "passages.jsonl").open("w", encoding="utf-8") as out:
        for p in passages:
            out.write(json.dumps(p.__dict__, ensure_ascii=False) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)


def _load(folder: Path) -> tuple[list[Passage], np.ndarray, LexicalIndex]:
    with (folder / "passages.jsonl").open(encoding="utf-8") as lines:
        passages = [Passage(**json.loads(line)) for line in lines]
    vectors = np.load(folder / "vectors.npy", mmap_mode="r")
    return passages, vectors, LexicalIndex.load(folder / "lexical")
