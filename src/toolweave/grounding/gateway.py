"""The search gateway: one call that answers a search request from the cache or from the first
provider of its chain that returns results, skipping providers whose circuit is open.

    request -> cache (exact, then semantic with the false-hit guard) -> hit: return it
            -> miss: chain for request.kind, in order: unavailable / circuit open -> skip;
               timeout, error, rate limit, empty -> next provider; results -> store, return

Nothing here raises for a provider's failure: the response lists every attempt, so the caller
(and the telemetry) can see the path a request took.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from toolweave.errors import ConfigError
from toolweave.grounding.cache.search_cache import SearchCache, open_cache
from toolweave.grounding.providers.base import Provider
from toolweave.grounding.records import ProviderError, SearchRequest, SearchResult
from toolweave.grounding.render import render_context
from toolweave.grounding.telemetry import Metrics, RequestLog, Telemetry
from toolweave.models.base import Embedder
from toolweave.settings import Settings

Outcome = Literal[
    "ok", "empty", "timeout", "rate_limited", "http", "malformed", "unavailable", "circuit_open"
]
CacheOutcome = Literal["exact", "semantic", "miss", "off"]
BILLED = ("ok", "empty")  # outcomes of a call the provider answered (and charges for)


class Attempt(BaseModel):
    provider: str
    outcome: Outcome
    latency_ms: float = 0.0
    cost: float = 0.0
    error: str | None = None


class GatewayResponse(BaseModel):
    query: str
    kind: str
    results: list[SearchResult] = Field(default_factory=list)
    # Who answered: a provider, or the provider of the cached entry; None when nobody did.
    provider: str | None = None
    cache: CacheOutcome = "off"
    cached_query: str | None = None
    attempts: list[Attempt] = Field(default_factory=list)
    latency_ms: float = 0.0
    cost: float = 0.0

    def context(self) -> str:
        return render_context(self.results)


class ProviderHealth(BaseModel):
    name: str
    available: bool
    reason: str | None = None
    circuit: Literal["closed", "open", "half-open"] = "closed"
    failures_in_a_row: int = 0


@dataclass
class _Circuit:
    failures: int = 0
    open_until: float = 0.0
    trial: bool = False  # a half-open trial call is in flight


class CircuitBreaker:
    """After `failures` failures in a row a provider is skipped until `cooldown_s` (or its
    Retry-After, if longer) has passed; then one trial call decides: success closes the circuit,
    failure opens it again."""

    def __init__(
        self, failures: int, cooldown_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.threshold = failures
        self.cooldown_s = cooldown_s
        self.clock = clock
        self.circuits: dict[str, _Circuit] = {}

    def state(self, name: str) -> Literal["closed", "open", "half-open"]:
        circuit = self.circuits.get(name, _Circuit())
        if circuit.failures < self.threshold:
            return "closed"
        return "open" if self.clock() < circuit.open_until or circuit.trial else "half-open"

    def allow(self, name: str) -> bool:
        state = self.state(name)
        if state == "half-open":
            self.circuits[name].trial = True
        return state != "open"

    def success(self, name: str) -> None:
        self.circuits[name] = _Circuit()

    def failure(self, name: str, retry_after_s: float | None = None) -> None:
        circuit = self.circuits.setdefault(name, _Circuit())
        circuit.failures += 1
        circuit.trial = False
        if circuit.failures >= self.threshold:
            circuit.open_until = self.clock() + max(self.cooldown_s, retry_after_s or 0.0)


class SearchGateway:
    def __init__(
        self,
        providers: Mapping[str, Provider],
        chains: Mapping[str, list[str]],
        *,
        cache: SearchCache | None = None,
        telemetry: Telemetry | None = None,
        breaker: CircuitBreaker | None = None,
        timeout_s: float = 8.0,
    ) -> None:
        for chain, names in chains.items():
            if unknown := [name for name in names if name not in providers]:
                raise ConfigError(
                    f"grounding.chains.{chain}: unknown provider(s) {', '.join(unknown)}; "
                    f"known: {', '.join(sorted(providers))}"
                )
        if "web" not in chains:
            raise ConfigError('grounding.chains: a "web" chain is required (the default one)')
        self.providers = dict(providers)
        self.chains = {name: list(chain) for name, chain in chains.items()}
        self.cache = cache
        self.telemetry = telemetry or Telemetry()
        self.breaker = breaker or CircuitBreaker(3, 30.0)
        self.timeout_s = timeout_s

    def chain(self, request: SearchRequest) -> list[str]:
        return self.chains.get(request.kind) or self.chains["web"]

    async def search(self, request: SearchRequest) -> GatewayResponse:
        started = time.perf_counter()
        with self.telemetry.request_span(request) as span:
            response = await self._answer(request)
            response.latency_ms = (time.perf_counter() - started) * 1000
            self.telemetry.finished(span, _log_row(request, response))
        return response

    async def _answer(self, request: SearchRequest) -> GatewayResponse:
        response = GatewayResponse(query=request.query, kind=request.kind)
        chain = self.chain(request)
        scope = f"{','.join(chain)}|{request.parameters_key()}"
        if self.cache is not None:
            response.cache = "miss"
            if hit := await self.cache.lookup(request, scope):
                response.cache, response.cached_query = hit.kind, hit.query
                response.results, response.provider = hit.results, hit.provider
                return response
        for name in chain:
            attempt, results = await self._try(name, request)
            response.attempts.append(attempt)
            response.cost += attempt.cost
            if results:
                response.results, response.provider = results, name
                if self.cache is not None:
                    await self.cache.store(request, scope, results, name)
                break
        return response

    async def _try(self, name: str, request: SearchRequest) -> tuple[Attempt, list[SearchResult]]:
        provider = self.providers[name]
        if reason := provider.unavailable_reason():
            return self._record(Attempt(provider=name, outcome="unavailable", error=reason)), []
        if not self.breaker.allow(name):
            return self._record(Attempt(provider=name, outcome="circuit_open")), []
        started = time.perf_counter()
        with self.telemetry.provider_span(name) as span:
            outcome, results, error = await self._call(provider, request)
            span.set_attribute("search.outcome", outcome)
        attempt = Attempt(
            provider=name,
            outcome=outcome,
            latency_ms=round((time.perf_counter() - started) * 1000, 3),
            cost=provider.cost_per_call if outcome in BILLED else 0.0,
            error=str(error) if error else None,
        )
        if error is None:
            self.breaker.success(name)
        else:
            self.breaker.failure(name, error.retry_after_s)
        return self._record(attempt), results

    async def _call(
        self, provider: Provider, request: SearchRequest
    ) -> tuple[Outcome, list[SearchResult], ProviderError | None]:
        # The provider's own timeout applies first; this cap also bounds providers without one.
        cap = getattr(provider, "timeout_s", self.timeout_s) + 1.0
        try:
            results = await asyncio.wait_for(provider.search(request), cap)
        except ProviderError as exc:
            return exc.kind, [], exc
        except TimeoutError:
            error = ProviderError(provider.name, "timeout", f"no answer within {cap:.1f} s")
            return "timeout", [], error
        return ("ok" if results else "empty"), results[: request.max_results], None

    def _record(self, attempt: Attempt) -> Attempt:
        self.telemetry.attempt(attempt.provider, attempt.outcome, attempt.latency_ms, attempt.cost)
        return attempt

    def health(self) -> list[ProviderHealth]:
        return [
            ProviderHealth(
                name=name,
                available=(reason := provider.unavailable_reason()) is None,
                reason=reason,
                circuit=self.breaker.state(name),
                failures_in_a_row=self.breaker.circuits.get(name, _Circuit()).failures,
            )
            for name, provider in self.providers.items()
        ]

    async def aclose(self) -> None:
        for provider in self.providers.values():
            await provider.aclose()
        if self.cache is not None:
            await self.cache.aclose()
        self.telemetry.close()


def _log_row(request: SearchRequest, response: GatewayResponse) -> dict[str, object]:
    return {
        "ts": time.time(),
        "query": request.query,
        "kind": request.kind,
        "cache": response.cache,
        "provider": response.provider,
        "attempts": [a.model_dump(exclude={"error"}) for a in response.attempts],
        "depth": request.max_results,
        "results": len(response.results),
        "latency_ms": round(response.latency_ms, 3),
        "cost": response.cost,
    }


async def open_gateway(
    settings: Settings,
    embedder: Embedder | None = None,
    *,
    env: Mapping[str, str] | None = None,
    on_progress: Callable[[str], None] | None = None,
    state_dir: Path | None = None,
    metrics: Metrics | None = None,
) -> SearchGateway:
    """The gateway the settings describe: shipped and extra YAML adapters, the local provider over
    grounding.corpus (default docs_dir), the cache, telemetry with a request log."""
    from toolweave.grounding.providers.local import LocalProvider
    from toolweave.grounding.providers.registry import http_providers

    grounding = settings.grounding
    state = state_dir or settings.state_path()
    providers: dict[str, Provider] = dict(http_providers(grounding, env))
    local = any("local" in chain for chain in grounding.chains.values())
    if embedder is None and (local or grounding.cache.semantic):
        from toolweave.models import make_embedder

        embedder = make_embedder(settings.embedder)
    if local and embedder is not None:
        corpus = grounding.corpus or settings.docs_dir
        providers["local"] = await LocalProvider.open(corpus, embedder, state, on_progress)
    cache = open_cache(grounding.cache, state, embedder if grounding.cache.semantic else None)
    request_log = RequestLog(state / "grounding" / "requests.sqlite")
    return SearchGateway(
        providers,
        grounding.chains,
        cache=cache,
        telemetry=Telemetry(metrics or Metrics(), request_log),
        breaker=CircuitBreaker(grounding.breaker_failures, grounding.breaker_cooldown_s),
        timeout_s=grounding.timeout_s,
    )
