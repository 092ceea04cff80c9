"""OpenAI-compatible HTTP backends (vLLM, llama.cpp server, Ollama, hosted APIs).

`/chat/completions` (plain, JSON-schema structured, SSE streaming) and `/embeddings`, with
timeouts and retries with exponential backoff on 429, 5xx and connection errors.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import numpy as np

from toolweave.errors import EmbedderError, LLMRequestError
from toolweave.models.base import Completion, Message, Usage, normalize_rows

RETRY_STATUSES = {408, 409, 429, 500, 502, 503, 504}
MAX_BACKOFF_S = 20.0


class OpenAIHTTP:
    """The shared transport: base URL, auth, timeouts and the retry loop."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        error: type[Exception] = LLMRequestError,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.error = error
        headers = {"Content-Type": "application/json"}
        # The key is read from the environment only; it is never stored in settings or logged.
        if key := os.environ.get(api_key_env, ""):
            headers["Authorization"] = f"Bearer {key}"
        self._headers = headers
        self._timeout = httpx2.Timeout(timeout_s, connect=min(timeout_s, 10.0))

    @asynccontextmanager
    async def open(self, path: str, body: dict[str, Any]) -> AsyncIterator[httpx2.Response]:
        """POST with retries; yields the first successful response, unread (so it can stream)."""
        url = f"{self.base_url}{path}"
        async with httpx2.AsyncClient(headers=self._headers, timeout=self._timeout) as client:
            for attempt in range(self.max_retries + 1):
                last = attempt == self.max_retries
                try:
                    request = client.build_request("POST", url, json=body)
                    response = await client.send(request, stream=True)
                except httpx2.TransportError as exc:
                    if last:
                        raise self.error(
                            f"cannot reach {url} after {attempt + 1} attempts: {exc!r}; "
                            "check that the server runs and base_url is right"
                        ) from None
                    await asyncio.sleep(self._delay(attempt, None))
                    continue
                if response.status_code < 400:
                    try:
                        yield response
                    except httpx2.TransportError as exc:
                        raise self.error(
                            f"{url}: the connection failed while reading the answer: {exc!r}"
                        ) from None
                    finally:
                        await response.aclose()
                    return
                detail = (await response.aread())[:500].decode("utf-8", "replace")
                await response.aclose()
                if response.status_code not in RETRY_STATUSES or last:
                    raise self.error(
                        f"{url} answered HTTP {response.status_code} "
                        f"(after {attempt + 1} attempts): {detail}"
                    )
                await asyncio.sleep(self._delay(attempt, response.headers.get("retry-after")))

    async def post_json(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        async with self.open(path, body) as response:
            raw = await response.aread()
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            raise self.error(
                f"{self.base_url}{path} returned a body that is not JSON: {raw[:200]!r}"
            ) from None
        if not isinstance(data, dict):
            raise self.error(f"{self.base_url}{path} returned JSON that is not an object")
        return data

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(float(retry_after), MAX_BACKOFF_S)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        return min(self.backoff_s * 2**attempt, MAX_BACKOFF_S) * (0.5 + random.random() / 2)


class OpenAIChat:
    """An `LLM` over `/chat/completions`."""

    def __init__(
        self,
        http: OpenAIHTTP,
        model: str,
        *,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> None:
        self.http = http
        self.model = model
        self.name = f"openai:{model}"
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.usage = Usage()

    def _body(
        self, messages: Sequence[Message], max_tokens: int | None, temperature: float | None
    ) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": list(messages),
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": self.temperature if temperature is None else temperature,
        }

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        body = self._body(messages, max_tokens, temperature)
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": schema},
            }
        data = await self.http.post_json("/chat/completions", body)
        try:
            text = data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMRequestError(
                f"{self.http.base_url}/chat/completions returned no choices[0].message.content: "
                f"{json.dumps(data)[:200]}"
            ) from None
        usage = _usage(data.get("usage"))
        self.usage.add(usage)
        return Completion(text=text, model=str(data.get("model", self.model)), usage=usage)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        body = self._body(messages, max_tokens, temperature)
        body |= {"stream": True, "stream_options": {"include_usage": True}}
        async with self.http.open("/chat/completions", body) as response:
            async for data in _sse_data(response):
                if data.get("usage"):
                    self.usage.add(_usage(data["usage"]))
                for choice in data.get("choices") or []:
                    if piece := (choice.get("delta") or {}).get("content"):
                        yield piece


async def _sse_data(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON payloads of a server-sent event stream, until `[DONE]`."""
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue  # comments, event names, keep-alives
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            data = json.loads(payload)
        except json.JSONDecodeError:
            raise LLMRequestError(f"malformed event in the stream: {payload[:200]!r}") from None
        if isinstance(data, dict):
            yield data


def _usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage(requests=1)
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
        requests=1,
    )


class OpenAIEmbedder:
    """An `Embedder` over `/embeddings`."""

    def __init__(self, http: OpenAIHTTP, model: str, *, batch_size: int = 64) -> None:
        self.http = http
        self.model = model
        self.id = f"openai:{model}"
        self.batch_size = batch_size
        self.dim = 0  # known after the first call

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            data = await self.http.post_json("/embeddings", {"model": self.model, "input": batch})
            rows.extend(self._vectors(data, len(batch)))
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = normalize_rows(np.array(rows, dtype=np.float32))
        self.dim = vectors.shape[1]
        return vectors

    def _vectors(self, data: dict[str, Any], expected: int) -> list[list[float]]:
        try:
            items = sorted(data["data"], key=lambda item: item.get("index", 0))
            vectors = [item["embedding"] for item in items]
        except (KeyError, TypeError, AttributeError):
            raise EmbedderError(
                f"{self.http.base_url}/embeddings returned no data[].embedding"
            ) from None
        if len(vectors) != expected:
            raise EmbedderError(
                f"{self.http.base_url}/embeddings returned {len(vectors)} vectors for "
                f"{expected} texts"
            )
        return vectors
