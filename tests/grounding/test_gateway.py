"""The gateway end to end: real HTTP adapters against the local wire-format fake, the real local
provider (bundled embedder), the SQLite cache, OpenTelemetry spans and Prometheus metrics."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolweave.errors import ConfigError
from toolweave.grounding.gateway import CircuitBreaker, SearchGateway, open_gateway
from toolweave.grounding.providers.local import LocalProvider
from toolweave.grounding.records import SearchRequest
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.settings import DEMO_DOCS, Settings, load_settings

from .fake_search_api import FakeSearchAPI

pytestmark = pytest.mark.anyio
WEB = ["tavily", "brave", "exa", "serper", "bing", "searxng"]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


@pytest.fixture(scope="module")
def spans() -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # once per process; the gateway's tracer is a proxy
    return exporter


@pytest.fixture
def api() -> Iterator[FakeSearchAPI]:
    with FakeSearchAPI(slow_s=1.0) as running:
        yield running


def gateway_settings(tmp_path: Path, api: FakeSearchAPI, chain: list[str], **grounding: object):
    providers = {name: {"endpoint": api.endpoint(name), "timeout_s": 0.4} for name in WEB}
    env = {
        "TOOLWEAVE_STATE_DIR": str(tmp_path / "state"),
        "TOOLWEAVE_GROUNDING__CHAINS": json.dumps({"web": chain}),
        "TOOLWEAVE_GROUNDING__PROVIDERS": json.dumps(providers),
    }
    env |= {f"TOOLWEAVE_GROUNDING__{k.upper()}": str(v) for k, v in grounding.items()}
    return load_settings(env=env)


@pytest.fixture
async def gateway(
    tmp_path: Path, api: FakeSearchAPI, embedder: OnnxEmbedder
) -> AsyncIterator[SearchGateway]:
    settings = gateway_settings(tmp_path, api, ["brave", "tavily", "local"])
    running = await open_gateway(settings, embedder, env=api.env())
    yield running
    await running.aclose()


async def test_with_no_web_provider_configured_the_local_provider_grounds_the_answer(
    settings: Settings, embedder: OnnxEmbedder
) -> None:
    gateway = await open_gateway(settings, embedder, env={})
    try:
        response = await gateway.search(SearchRequest(query="how do I declare MCP servers"))
    finally:
        await gateway.aclose()
    assert [(a.provider, a.outcome) for a in response.attempts] == [
        *((name, "unavailable") for name in WEB),
        ("local", "ok"),
    ]
    assert response.provider == "local" and response.cache == "miss"
    assert any("configuration.md" in r.url for r in response.results)
    assert "SEARXNG_URL" in (response.attempts[-2].error or "")
    assert response.context().startswith("[1] ")


@pytest.mark.parametrize("mode", ["error500", "rate_limit", "slow", "malformed", "empty"])
async def test_a_failing_provider_hands_over_to_the_next(
    gateway: SearchGateway, api: FakeSearchAPI, mode: str
) -> None:
    api.script("brave", mode)  # type: ignore[arg-type]
    response = await gateway.search(SearchRequest(query=f"solar panels {mode}"))
    outcome = {
        "error500": "http",
        "rate_limit": "rate_limited",
        "slow": "timeout",
        "malformed": "malformed",
        "empty": "empty",
    }[mode]
    assert [(a.provider, a.outcome) for a in response.attempts] == [
        ("brave", outcome),
        ("tavily", "ok"),
    ]
    assert response.provider == "tavily" and response.results
    assert all(r.provider == "tavily" for r in response.results)
    assert len(api.requests_for("tavily")) == 1


async def test_everything_failing_is_an_empty_answer_not_an_exception(
    tmp_path: Path, api: FakeSearchAPI, embedder: OnnxEmbedder
) -> None:
    settings = gateway_settings(tmp_path, api, ["brave", "tavily"])
    gateway = await open_gateway(settings, embedder, env=api.env())
    api.script("brave", "error500")
    api.script("tavily", "malformed")
    response = await gateway.search(SearchRequest(query="anything at all"))
    await gateway.aclose()
    assert response.results == [] and response.provider is None
    assert [a.outcome for a in response.attempts] == ["http", "malformed"]


async def test_an_open_circuit_skips_a_dead_provider_without_paying_its_timeout(
    tmp_path: Path, api: FakeSearchAPI, embedder: OnnxEmbedder
) -> None:
    now = [0.0]
    settings = gateway_settings(tmp_path, api, ["brave", "tavily"])
    gateway = await open_gateway(settings, embedder, env=api.env())
    gateway.breaker = CircuitBreaker(failures=2, cooldown_s=30, clock=lambda: now[0])
    api.script("brave", "slow")
    outcomes = []
    for n in range(4):
        response = await gateway.search(SearchRequest(query=f"question number {n}"))
        outcomes.append(response.attempts[0].outcome)
        assert response.provider == "tavily"
    assert outcomes == ["timeout", "timeout", "circuit_open", "circuit_open"]
    assert len(api.requests_for("brave")) == 2
    assert response.attempts[0].latency_ms < 50
    assert gateway.breaker.state("brave") == "open"

    api.script("brave", "ok")  # recovered: after the cooldown one trial call closes the circuit
    now[0] = 31.0
    assert gateway.breaker.state("brave") == "half-open"
    response = await gateway.search(SearchRequest(query="after the cooldown"))
    await gateway.aclose()
    assert response.provider == "brave" and gateway.breaker.state("brave") == "closed"


def test_retry_after_keeps_the_circuit_open_longer_than_the_cooldown() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failures=1, cooldown_s=1, clock=lambda: now[0])
    breaker.failure("brave", retry_after_s=7)
    now[0] = 5.0
    assert not breaker.allow("brave")
    now[0] = 7.5
    assert breaker.allow("brave")  # the one trial call
    assert not breaker.allow("brave")  # no second call while the trial is in flight
    breaker.failure("brave")
    assert breaker.state("brave") == "open"


async def test_a_repeated_question_is_answered_from_the_cache(
    gateway: SearchGateway, api: FakeSearchAPI
) -> None:
    first = await gateway.search(SearchRequest(query="Who painted the Mona Lisa?"))
    again = await gateway.search(SearchRequest(query="who painted the mona lisa"))
    deeper = await gateway.search(SearchRequest(query="Who painted the Mona Lisa?", max_results=8))
    assert (first.cache, again.cache, deeper.cache) == ("miss", "exact", "miss")
    assert again.results == first.results and again.attempts == [] and again.provider == "brave"
    assert len(api.requests_for("brave")) == 2  # the first and the deeper one


async def test_telemetry_spans_metrics_log_line_and_request_history(
    gateway: SearchGateway,
    api: FakeSearchAPI,
    spans: InMemorySpanExporter,
    caplog: pytest.LogCaptureFixture,
) -> None:
    spans.clear()
    api.script("brave", "error500", times=1)
    with caplog.at_level(logging.INFO, logger="toolweave.grounding"):
        await gateway.search(SearchRequest(query="mars rover"))
        await gateway.search(SearchRequest(query="mars rover"))
    finished = spans.get_finished_spans()
    requests = [s for s in finished if s.name == "gateway.search"]
    assert [s.attributes["search.cache"] for s in requests] == ["miss", "exact"]
    assert list(requests[0].attributes["search.chain"]) == ["brave", "tavily"]
    calls = [s for s in finished if s.name == "gateway.provider"]
    assert [s.attributes["search.outcome"] for s in calls] == ["http", "ok"]
    assert all(c.parent.span_id == requests[0].context.span_id for c in calls)

    registry = gateway.telemetry.metrics.registry
    sample = registry.get_sample_value
    brave_http = {"provider": "brave", "outcome": "http"}
    assert sample("toolweave_gateway_provider_attempts_total", brave_http) == 1
    assert sample("toolweave_gateway_requests_total", {"cache": "exact"}) == 1
    assert sample("toolweave_gateway_cost_usd_total", {"provider": "tavily"}) > 0

    lines = [json.loads(r.getMessage().split(" ", 1)[1]) for r in caplog.records]
    assert [line["cache"] for line in lines] == ["miss", "exact"]
    assert [a["outcome"] for a in lines[0]["attempts"]] == ["http", "ok"]
    assert "test-key" not in caplog.text

    history = gateway.telemetry.request_log.summary()
    assert history["requests"] == 2 and history["cache"] == {"miss": 1, "exact": 1}
    assert history["providers"]["brave"]["outcomes"] == {"http": 1}


async def test_a_chain_naming_an_unknown_provider_is_a_config_error(
    embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    local = await LocalProvider.open(DEMO_DOCS, embedder, tmp_path)
    with pytest.raises(ConfigError, match=r"unknown provider.*duckduckgo.*known: local"):
        SearchGateway({"local": local}, {"web": ["duckduckgo", "local"]})
