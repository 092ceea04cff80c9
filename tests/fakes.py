"""Stand-ins for the model backends that many test modules share: an LLM answering from a script,
an instant hashed bag-of-words embedder, and a wrapper counting what a real embedder is asked."""

from __future__ import annotations

import hashlib
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any

import numpy as np

from toolweave.errors import LLMRequestError
from toolweave.models import Completion, Embedder, Message, Usage
from toolweave.models.base import normalize_rows


class ScriptedLLM:
    """Answers each request with the next of its scripted answers; records the requests."""

    name = "scripted"

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.calls: list[list[Message]] = []
        self.schemas: list[dict[str, Any] | None] = []  # the schema each request was held to
        self.usage = Usage()

    async def complete(
        self, messages: Sequence[Message], schema: dict[str, Any] | None = None, **_: Any
    ) -> Completion:
        self.calls.append(list(messages))
        self.schemas.append(schema)
        if not self.answers:
            raise LLMRequestError("the scripted LLM has no answer left")
        return Completion(text=self.answers.pop(0), model=self.name)

    async def stream(self, messages: Sequence[Message], **_: Any) -> AsyncIterator[str]:
        yield self.answers.pop(0)


class HashingEmbedder:
    """Hashed bag of words: deterministic, instant; records the batches it is asked to embed."""

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


class CountingEmbedder:
    """A real embedder, recording what it is asked to embed: `texts` lists the texts, or counts
    them once a test sets it to a number (to count from there)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.texts: list[str] | int = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(self.texts, int):
            self.texts += len(texts)
        else:
            self.texts.extend(texts)
        return await self.inner.embed(texts)
