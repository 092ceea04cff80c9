"""An in-memory Embedder for unit tests: hashed bag of words, deterministic, instant."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from toolweave.models.base import normalize_rows


class HashingEmbedder:
    id = "test-hashing-64"
    dim = 64

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return normalize_rows(out + 1e-3)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.embed_sync(texts)

    @property
    def embedded(self) -> int:
        return sum(len(c) for c in self.calls)
