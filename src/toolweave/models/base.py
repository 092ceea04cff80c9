"""The two protocols every model backend implements, and the records they return."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypedDict, runtime_checkable

import numpy as np

from toolweave.errors import LLMUnavailableError


class Message(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass
class Usage:
    """Token counters, per completion and accumulated per backend."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.requests += other.requests


@dataclass
class Completion:
    text: str
    model: str
    usage: Usage = field(default_factory=Usage)


@runtime_checkable
class LLM(Protocol):
    """A chat model. `schema` asks for JSON output constrained to that JSON schema."""

    name: str
    usage: Usage

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion: ...

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]: ...


@runtime_checkable
class Embedder(Protocol):
    """Text -> L2-normalised float32 vectors of shape (len(texts), dim)."""

    id: str
    dim: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class RememberingEmbedder:
    """An Embedder that keeps the vectors of the last `size` texts it embedded: reading a
    search's results embeds the same sentences at every round and again for the answer."""

    def __init__(self, inner: Embedder, size: int = 20_000) -> None:
        self.inner, self.size = inner, size
        self.id, self.dim = inner.id, inner.dim
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        new = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if new:
            for text, vector in zip(new, await self.inner.embed(new), strict=True):
                self._vectors[text] = vector
        rows = []
        for text in texts:
            self._vectors.move_to_end(text)
            rows.append(self._vectors[text])
        while len(self._vectors) > self.size:
            self._vectors.popitem(last=False)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(rows)


class NoLLM:
    """The `none` backend: every stage takes its deterministic path instead."""

    name = "none"

    def __init__(self, reason: str = 'no LLM is configured (llm.backend = "none")') -> None:
        self.reason = reason
        self.usage = Usage()

    async def complete(self, messages: Sequence[Message], **_: Any) -> Completion:
        raise LLMUnavailableError(self.reason)

    async def stream(self, messages: Sequence[Message], **_: Any) -> AsyncIterator[str]:
        raise LLMUnavailableError(self.reason)
        yield ""  # pragma: no cover - makes this an async generator


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise each row; zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)
