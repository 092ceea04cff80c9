"""The service's Prometheus metrics, on a registry of its own (two apps in one process, as in
the tests, do not share counts). Labels are route templates and outcomes, never a question,
a path parameter or a key."""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from toolweave.api.guard import ASGIApp, Message, Receive, Scope, Send
from toolweave.types import Answer

SECONDS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "toolweave_requests", "HTTP requests", ["route", "method", "status"], registry=r
        )
        self.latency = Histogram(
            "toolweave_request_seconds", "HTTP request time", ["route"], buckets=SECONDS, registry=r
        )
        self.stages = Histogram(
            "toolweave_stage_seconds", "Time per stage of a run", ["stage"], buckets=SECONDS,
            registry=r,
        )  # fmt: skip
        self.calls = Counter("toolweave_tool_calls", "Tool calls", ["outcome"], registry=r)
        self.cache = Counter(
            "toolweave_search_cache", "Searches by cache outcome", ["outcome"], registry=r
        )
        self.routes = Counter("toolweave_runs", "Runs by route", ["route"], registry=r)
        self.active = Gauge("toolweave_active_runs", "Runs in progress", registry=r)

    def record(self, answer: Answer) -> None:
        """What one finished run adds."""
        for stage, ms in answer.timings_ms.items():
            self.stages.labels(stage).observe(ms / 1000)
        for obs in answer.observations:
            self.calls.labels("ok" if obs.ok else "failed").inc()
            cache = obs.structured.get("cache") if isinstance(obs.structured, dict) else None
            if cache in ("exact", "semantic", "miss"):  # a search through the gateway's cache
                self.cache.labels(cache).inc()
        self.routes.labels(str(answer.route or "none")).inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)


class Timed:
    """ASGI middleware: counts and times every HTTP request by its route template."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = _template(scope)
            self.metrics.requests.labels(route, scope["method"], str(status)).inc()
            self.metrics.latency.labels(route).observe(time.perf_counter() - started)


def _template(scope: Scope) -> str:
    """The matched route's path template ("/v1/traces/{trace_id}"); "other" when none matched."""
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    if path:
        return str(path)
    return "/mcp" if str(scope.get("path", "")).startswith("/mcp") else "other"
