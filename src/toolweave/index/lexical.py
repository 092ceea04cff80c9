"""BM25 (bm25s) over whole tool documents, persisted next to the vectors."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np


def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


class LexicalIndex:
    """Tool ids and their BM25 index; `search` gives (tool id, score) pairs, best first."""

    def __init__(self, retriever: Any, tool_ids: np.ndarray) -> None:
        self.retriever = retriever
        self.tool_ids = tool_ids
        self._stem = _stemmer()

    @classmethod
    def build(cls, tool_ids: list[int], texts: list[str]) -> LexicalIndex:
        import bm25s

        retriever = bm25s.BM25()
        if texts:
            tokens = bm25s.tokenize(texts, stopwords="en", stemmer=_stemmer(), show_progress=False)
            retriever.index(tokens, show_progress=False)
        return cls(retriever, np.asarray(tool_ids, dtype=np.int64))

    @classmethod
    def load(cls, folder: Path) -> LexicalIndex:
        import bm25s

        tool_ids = np.load(folder / "tool_ids.npy")
        retriever = bm25s.BM25.load(str(folder), mmap=True) if len(tool_ids) else bm25s.BM25()
        return cls(retriever, tool_ids)

    def save(self, folder: Path) -> None:
        staging = folder.with_name(folder.name + ".new")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        if len(self.tool_ids):
            self.retriever.save(str(staging), show_progress=False)
        np.save(staging / "tool_ids.npy", self.tool_ids)
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)

    def search(self, text: str, k: int) -> list[tuple[int, float]]:
        import bm25s

        if not len(self.tool_ids):
            return []
        tokens = bm25s.tokenize(
            [text], stopwords="en", stemmer=self._stem, show_progress=False, return_ids=False
        )
        if not tokens or not tokens[0]:
            return []
        k = min(k, len(self.tool_ids))
        found, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [
            (int(self.tool_ids[i]), float(s))
            for i, s in zip(found[0], scores[0], strict=True)
            if s > 0
        ]
