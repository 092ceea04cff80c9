"""What stands between the network and the engine: API keys, a per-key rate limit, a body-size
limit and one error shape (OpenAI's: `{"error": {"message", "type", "code"}}`, which the
official SDKs read) for everything refused.

The guard is plain ASGI middleware, so it covers the MCP front mounted at /mcp as well as the
HTTP API. Keys are kept as SHA-256 digests and compared in constant time; a key never appears
in a response, a log line or a metric label.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/healthz"})  # a load balancer's liveness probe carries no key
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    413: "invalid_request_error",
    422: "invalid_request_error",
    429: "rate_limit_error",
    504: "timeout_error",
}


def error_body(status: int, message: str, code: str | None = None) -> bytes:
    kind = ERROR_TYPES.get(status, "server_error")
    return json.dumps({"error": {"message": message, "type": kind, "code": code}}).encode()


async def send_error(
    send: Send, status: int, message: str, headers: Iterable[tuple[str, str]] = ()
) -> None:
    body = error_body(status, message)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.encode(), v.encode()) for k, v in headers]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Keys:
    """The accepted API keys, as digests. Empty: no key is asked for (`--no-auth`)."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._digests = [bytes.fromhex(digest(k)) for k in keys]

    def __bool__(self) -> bool:
        return bool(self._digests)

    def check(self, key: str) -> str | None:
        """The key's digest when it is one of ours, else None."""
        given = hashlib.sha256(key.encode()).digest()
        # Every digest compared, so the time taken does not say how many keys came before.
        found = [hmac.compare_digest(given, d) for d in self._digests]
        return given.hex() if any(found) else None


@dataclass
class RateLimit:
    """A token bucket per client: `per_minute` requests, refilled continuously."""

    per_minute: int
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)

    def wait_s(self, client: str) -> float:
        """0 when `client` may go on (a token is taken), else the seconds until it may."""
        if self.per_minute <= 0:
            return 0.0
        now, rate = self.clock(), self.per_minute / 60
        tokens, since = self._buckets.get(client, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - since) * rate)
        if tokens >= 1:
            self._buckets[client] = (tokens - 1, now)
            return 0.0
        self._buckets[client] = (tokens, now)
        return (1 - tokens) / rate


class BodyTooLarge(Exception):
    pass


class Guard:
    """ASGI middleware: key, rate limit and body size, checked before the app sees a request."""

    def __init__(self, app: ASGIApp, keys: Keys, limit: RateLimit, max_body_bytes: int) -> None:
        self.app, self.keys, self.limit, self.max_body = app, keys, limit, max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client = self._client(scope, headers)
        if client is None:
            await send_error(
                send,
                401,
                "a valid API key is needed: send the header `Authorization: Bearer <key>`",
                [("www-authenticate", "Bearer")],
            )
            return
        if (wait := self.limit.wait_s(client)) > 0:
            await send_error(
                send,
                429,
                f"too many requests: at most {self.limit.per_minute} a minute; "
                f"try again in {math.ceil(wait)} s",
                [("retry-after", str(math.ceil(wait)))],
            )
            return
        # Who asks, for the app: what one client may teach the index is capped.
        scope.setdefault("state", {})["client"] = client[:16]
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body:
            await send_error(send, 413, self._too_large())
            return
        await self._run(scope, receive, send)

    def _client(self, scope: Scope, headers: dict[str, str]) -> str | None:
        """Who is asking: the key's digest, or the client address when no key is needed;
        None for a missing or wrong key."""
        if not self.keys:
            return (scope.get("client") or ("local", 0))[0]
        scheme, _, key = headers.get("authorization", "").partition(" ")
        return self.keys.check(key.strip()) if scheme.lower() == "bearer" else None

    async def _run(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The app, with the body counted as it arrives (a chunked upload has no length)."""
        received, started = 0, False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_body:
                raise BodyTooLarge
            return message

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, sending)
        except BodyTooLarge:
            if not started:
                await send_error(send, 413, self._too_large())

    def _too_large(self) -> str:
        return f"the request body is over {self.max_body:,} bytes (setting serve.max_body_bytes)"
