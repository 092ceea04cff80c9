"""The shipped YAML adapters against a local server speaking each API's real wire format."""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from toolweave.errors import ConfigError
from toolweave.grounding.providers.adapters import ADAPTERS_DIR, load_adapter_specs
from toolweave.grounding.providers.http import HttpProvider
from toolweave.grounding.providers.registry import http_providers
from toolweave.grounding.records import ProviderError, SearchRequest
from toolweave.settings import GroundingSettings, ProviderSettings

from .fake_search_api import RETRY_AFTER_S, FakeSearchAPI, total_for

pytestmark = pytest.mark.anyio
QUERY = "solar panels"


@dataclass(frozen=True)
class Expected:
    """What each real API expects, written out here independently of the YAML files."""

    method: str
    path: str
    query: str  # the field carrying the query
    count: str | None  # ... the number of results
    auth: tuple[str, str] | None = None  # (header, value with {key})
    env: str | None = None
    week: tuple[str, str] | None = None  # (field, value) for freshness="week"
    domains: str | None = None  # the native domain filter field
    news: tuple[str, str] | None = None  # (path, field=value) of a news request
    published: str | None = None  # the first result's date, as the API writes it


EXPECTED = {
    "searxng": Expected(
        "GET", "/search", "q", None, week=("time_range", "week"),
        news=("/search", "categories=news"), published="2024-05-01T08:00:00",
    ),
    "brave": Expected(
        "GET", "/res/v1/web/search", "q", "count", ("x-subscription-token", "{key}"),
        "BRAVE_API_KEY", ("freshness", "pw"), news=("/res/v1/news/search", ""),
        published="2024-05-01T08:00:00",
    ),
    "tavily": Expected(
        "POST", "/search", "query", "max_results", ("authorization", "Bearer {key}"),
        "TAVILY_API_KEY", ("time_range", "week"), "include_domains",
        news=("/search", "topic=news"), published=None,  # dates with the news topic only
    ),
    "serper": Expected(
        "POST", "/search", "q", "num", ("x-api-key", "{key}"), "SERPER_API_KEY",
        ("tbs", "qdr:w"), news=("/news", ""), published="May 1, 2024",
    ),
    "exa": Expected(
        "POST", "/search", "query", "numResults", ("x-api-key", "{key}"), "EXA_API_KEY",
        ("startPublishedDate", (datetime.now(UTC) - timedelta(days=7)).date().isoformat()),
        "includeDomains", news=("/search", "category=news"),
        published="2024-05-01T08:00:00.000Z",
    ),
    "bing": Expected(
        "GET", "/v7.0/search", "q", "count", ("ocp-apim-subscription-key", "{key}"),
        "BING_API_KEY", ("freshness", "Week"), news=("/v7.0/news/search", ""),
        published="2024-05-01T08:00:00Z",
    ),
    "wikipedia": Expected("GET", "/w/rest.php/v1/search/page", "q", "limit"),
}  # fmt: skip
NAMES = sorted(EXPECTED)
KEYED = [name for name in NAMES if EXPECTED[name].env]
NEWS = [name for name in NAMES if EXPECTED[name].news]
Build = Callable[..., HttpProvider]


@pytest.fixture
def api() -> Iterator[FakeSearchAPI]:
    with FakeSearchAPI(slow_s=1.0) as running:
        yield running


@pytest.fixture
async def build(api: FakeSearchAPI) -> AsyncIterator[Build]:
    """Makes one provider pointed at the fake (closed after the test)."""
    made: list[HttpProvider] = []

    def make(name: str, env: dict[str, str] | None = None, **override: Any) -> HttpProvider:
        settings = GroundingSettings(
            providers={name: ProviderSettings(**{"endpoint": api.endpoint(name), **override})}
        )
        provider = http_providers(settings, env=api.env() if env is None else env)[name]
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


def fields(api: FakeSearchAPI, name: str) -> dict[str, Any]:
    """The query parameters or JSON body of the last request to `name`."""
    request = api.requests_for(name)[-1]
    return request.params if request.method == "GET" else request.body


async def fail(provider: HttpProvider, request: SearchRequest | None = None) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        await provider.search(request or SearchRequest(query=QUERY))
    assert caught.value.provider == provider.name
    return caught.value


def test_the_seven_adapters_are_shipped() -> None:
    specs = load_adapter_specs(None)
    assert sorted(specs) == NAMES
    for name, spec in specs.items():
        assert "web" in spec.capabilities
        assert ("freshness" in spec.capabilities) == (EXPECTED[name].week is not None)
        assert ("news" in spec.capabilities) == (EXPECTED[name].news is not None)
        assert ("domains" in spec.capabilities) == (EXPECTED[name].domains is not None)


@pytest.mark.parametrize("name", NAMES)
async def test_request_shape(api: FakeSearchAPI, build: Build, name: str) -> None:
    expected = EXPECTED[name]
    await build(name).search(SearchRequest(query=QUERY, max_results=4))
    request = api.requests_for(name)[-1]
    assert (request.method, request.path) == (expected.method, expected.path)
    if expected.auth:
        header, value = expected.auth
        assert request.headers[header] == value.format(key=api.keys[name])
    sent = fields(api, name)
    assert sent[expected.query] == QUERY
    if expected.count:
        assert int(sent[expected.count]) == 4
    if expected.week:  # freshness "any" sends no filter
        assert expected.week[0] not in sent


@pytest.mark.parametrize("name", [n for n in NAMES if EXPECTED[n].week])
async def test_freshness_is_mapped_to_the_api_words(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    await build(name).search(SearchRequest(query=QUERY, freshness="week"))
    field, value = EXPECTED[name].week or ("", "")
    assert fields(api, name)[field] == value


@pytest.mark.parametrize("name", [n for n in NAMES if n != "wikipedia"])
async def test_domains_use_the_native_filter_or_site_terms(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    domains = ["nature.com", "science.org"]
    results = await build(name).search(SearchRequest(query=QUERY, domains=domains))
    expected, sent = EXPECTED[name], fields(api, name)
    if expected.domains:
        assert sent[expected.domains] == domains
        assert sent[expected.query] == QUERY
    else:
        assert sent[expected.query] == f"{QUERY} (site:nature.com OR site:science.org)"
    assert results and all(
        r.url.startswith(("https://nature.com/", "https://science.org/")) for r in results
    )


async def test_wikipedia_keeps_its_query_and_only_answers_for_wikipedia(
    api: FakeSearchAPI, build: Build
) -> None:
    wikipedia = build("wikipedia")
    assert await wikipedia.search(SearchRequest(query=QUERY, domains=["nature.com"])) == []
    assert fields(api, "wikipedia")["q"] == QUERY  # CirrusSearch has no site: operator
    found = await wikipedia.search(SearchRequest(query=QUERY, domains=["wikipedia.org"]))
    assert found and all(r.url.startswith("https://en.wikipedia.org/wiki/") for r in found)


@pytest.mark.parametrize("name", NAMES)
async def test_results_are_normalized(api: FakeSearchAPI, build: Build, name: str) -> None:
    results = await build(name).search(SearchRequest(query=QUERY, max_results=4))
    assert [r.rank for r in results] == [1, 2, 3, 4]
    first = results[0]
    assert first.provider == name
    assert first.title == f"{QUERY} result 1 & more"  # tags stripped, entities unescaped
    assert "solar-panels" in first.url
    if name == "exa":  # the page text: the snippet is its start, the content all of it
        assert first.content and first.snippet.startswith(f"Full text of page 1 about {QUERY}.")
        assert len(first.snippet) <= 501 < len(first.content)
    else:
        assert first.snippet == f"Page 1 about {QUERY} — from {name}."
    assert first.published == EXPECTED[name].published


async def test_results_are_capped_at_max_results(api: FakeSearchAPI, build: Build) -> None:
    assert total_for(QUERY) > 3  # SearXNG has no count parameter: the fake sends them all
    results = await build("searxng").search(SearchRequest(query=QUERY, max_results=3))
    assert [r.rank for r in results] == [1, 2, 3]


@pytest.mark.parametrize(("name", "limit"), [("brave", 20), ("tavily", 20)])
async def test_the_count_asked_stays_within_the_api_limit(
    api: FakeSearchAPI, build: Build, name: str, limit: int
) -> None:
    await build(name).search(SearchRequest(query=QUERY, max_results=30))
    assert int(fields(api, name)[EXPECTED[name].count or ""]) == limit


@pytest.mark.parametrize("name", NAMES)
async def test_items_without_url_are_skipped(api: FakeSearchAPI, build: Build, name: str) -> None:
    api.script(name, "missing_urls")
    results = await build(name).search(SearchRequest(query=QUERY, max_results=4))
    # The fake sends as many as asked for (all it has, to SearXNG); every second has no URL.
    sent = total_for(QUERY) if EXPECTED[name].count is None else min(4, total_for(QUERY))
    with_url = [i for i in range(1, sent + 1) if i % 2][:4]
    assert [r.url.rsplit("_", 1)[-1].rsplit("/", 1)[-1] for r in results] == list(
        map(str, with_url)
    )
    assert [r.rank for r in results] == list(range(1, len(with_url) + 1))


@pytest.mark.parametrize("name", NEWS)
async def test_news_requests_use_the_news_endpoint(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    results = await build(name).search(SearchRequest(query=QUERY, kind="news"))
    path, field = EXPECTED[name].news or ("", "")
    assert api.requests_for(name)[-1].path == path
    if field:
        key, value = field.split("=")
        assert fields(api, name)[key] == value
    assert results and results[0].published  # news answers carry dates


async def test_web_requests_name_no_news_category(api: FakeSearchAPI, build: Build) -> None:
    await build("exa").search(SearchRequest(query=QUERY))
    await build("searxng").search(SearchRequest(query=QUERY))
    assert "category" not in fields(api, "exa")
    assert "categories" not in fields(api, "searxng")


@pytest.mark.parametrize("name", NAMES)
async def test_rate_limit_is_reported_with_retry_after(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    api.script(name, "rate_limit", times=1)
    provider = build(name)
    error = await fail(provider)
    assert (error.kind, error.retry_after_s) == ("rate_limited", RETRY_AFTER_S)
    assert await provider.search(SearchRequest(query=QUERY))  # the script ran out: ok again
    assert len(api.requests_for(name)) == 2  # no retry inside the provider


@pytest.mark.parametrize("name", NAMES)
async def test_server_error_is_an_http_failure(api: FakeSearchAPI, build: Build, name: str) -> None:
    api.script(name, "error500")
    error = await fail(build(name))
    assert error.kind == "http"
    assert "HTTP 500" in str(error) and "internal error" in str(error)


@pytest.mark.parametrize("name", NAMES)
async def test_answer_that_is_not_json_is_malformed(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    api.script(name, "malformed")
    assert (await fail(build(name))).kind == "malformed"


@pytest.mark.parametrize("name", NAMES)
async def test_answer_without_the_result_list(api: FakeSearchAPI, build: Build, name: str) -> None:
    api.script(name, "wrong_shape")
    if name in ("brave", "bing"):  # they leave the list out when nothing matched
        assert await build(name).search(SearchRequest(query=QUERY)) == []
    else:
        assert (await fail(build(name))).kind == "malformed"


@pytest.mark.parametrize("name", NAMES)
async def test_no_results_is_an_empty_list(api: FakeSearchAPI, build: Build, name: str) -> None:
    api.script(name, "empty")
    assert await build(name).search(SearchRequest(query=QUERY)) == []


@pytest.mark.parametrize("name", NAMES)
async def test_slow_answer_times_out(api: FakeSearchAPI, build: Build, name: str) -> None:
    api.script(name, "slow")
    started = time.perf_counter()
    error = await fail(build(name, timeout_s=0.3))
    assert error.kind == "timeout"
    assert time.perf_counter() - started < api.slow_s


async def test_refused_connection_is_an_http_failure(build: Build) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    error = await fail(build("brave", endpoint=f"http://127.0.0.1:{port}"))
    assert error.kind == "http" and "cannot reach" in str(error)


@pytest.mark.parametrize("name", KEYED)
async def test_missing_key_makes_the_provider_unavailable(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    provider = build(name, env={})
    assert provider.unavailable_reason() == f"{EXPECTED[name].env} is not set"
    error = await fail(provider)
    assert error.kind == "unavailable"
    assert api.requests_for(name) == []  # nothing was sent


@pytest.mark.parametrize("name", KEYED)
async def test_a_rejected_key_never_appears_in_the_error(
    api: FakeSearchAPI, build: Build, name: str
) -> None:
    secret = "sk-live-0123456789abcdef"
    error = await fail(build(name, env={EXPECTED[name].env or "": secret}))
    assert error.kind == "http" and "HTTP 401" in str(error)
    assert api.requests_for(name)  # the fake echoed the key it got ...
    assert secret not in str(error)  # ... and it was cut out


async def test_searxng_needs_an_instance_url(api: FakeSearchAPI) -> None:
    settings = GroundingSettings()
    assert http_providers(settings, env={})["searxng"].unavailable_reason() == (
        "SEARXNG_URL is not set"
    )
    searxng = http_providers(settings, env={"SEARXNG_URL": api.endpoint("searxng") + "/"})[
        "searxng"
    ]
    try:
        assert searxng.unavailable_reason() is None
        assert await searxng.search(SearchRequest(query=QUERY))
    finally:
        await searxng.aclose()


@pytest.mark.parametrize(
    ("env", "contact"),
    [({}, "set WIKIMEDIA_CONTACT"), ({"WIKIMEDIA_CONTACT": "ops@example.org"}, "ops@example.org")],
)
async def test_wikipedia_needs_no_key_and_names_its_client(
    api: FakeSearchAPI, build: Build, env: dict[str, str], contact: str
) -> None:
    wikipedia = build("wikipedia", env=env)
    assert wikipedia.unavailable_reason() is None
    await wikipedia.search(SearchRequest(query=QUERY))
    agent = api.requests_for("wikipedia")[-1].headers["user-agent"]
    assert agent.startswith("toolweave/") and contact in agent


async def test_one_client_keeps_its_connection(api: FakeSearchAPI, build: Build) -> None:
    brave = build("brave")
    await brave.search(SearchRequest(query=QUERY))
    await brave.search(SearchRequest(query="wind turbines"))
    first, second = api.requests_for("brave")
    assert first.client_port == second.client_port
    await brave.aclose()
    await brave.search(SearchRequest(query=QUERY))  # a closed provider opens a new client
    assert api.requests_for("brave")[-1].client_port != first.client_port


def test_settings_overrides_apply() -> None:
    settings = GroundingSettings(
        timeout_s=5,
        providers={
            "brave": ProviderSettings(timeout_s=2, cost_per_call=0.5),
            "bing": ProviderSettings(enabled=False),
        },
    )
    providers = http_providers(settings, env={})
    assert "bing" not in providers
    assert (providers["brave"].timeout_s, providers["brave"].cost_per_call) == (2, 0.5)
    assert (providers["tavily"].timeout_s, providers["tavily"].cost_per_call) == (5, 0.008)


def test_override_of_an_unknown_provider_lists_the_known_ones() -> None:
    settings = GroundingSettings(providers={"bravo": ProviderSettings()})
    with pytest.raises(ConfigError, match="bravo") as caught:
        http_providers(settings, env={})
    assert all(name in str(caught.value) for name in NAMES)
    # The local provider is configured in the same table but is not an adapter.
    http_providers(GroundingSettings(providers={"local": ProviderSettings()}), env={})


async def test_adapters_dir_replaces_and_adds(api: FakeSearchAPI, tmp_path: Path) -> None:
    brave = (
        (ADAPTERS_DIR / "brave.yaml")
        .read_text()
        .replace("cost_per_call: 0.005", "cost_per_call: 0.5")
    )
    (tmp_path / "brave.yaml").write_text(brave)
    # A new API in the Tavily format, under another name.
    (tmp_path / "mytavily.yaml").write_text(
        (ADAPTERS_DIR / "tavily.yaml").read_text().replace("name: tavily", "name: mytavily")
    )
    settings = GroundingSettings(
        adapters_dir=tmp_path,
        providers={"mytavily": ProviderSettings(endpoint=api.endpoint("tavily"))},
    )
    providers = http_providers(settings, env=api.env())
    assert providers["brave"].cost_per_call == 0.5
    try:
        results = await providers["mytavily"].search(SearchRequest(query=QUERY))
    finally:
        await providers["mytavily"].aclose()
    assert results and all(r.provider == "mytavily" for r in results)


def test_broken_yaml_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "brave.yaml").write_text("name: brave\nparams: {q: [unclosed\n")
    with pytest.raises(ConfigError, match="invalid YAML") as caught:
        load_adapter_specs(tmp_path)
    assert str(tmp_path / "brave.yaml") in str(caught.value)


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (("method: GET", "method: PUT"), "method", "'GET' or 'POST'"),
        (('q: "{query}"', 'q: "{qeury}"'), "params", "{qeury}"),
        (("results: web.results", "resultz: web.results"), "resultz", "unknown field"),
        (("name: brave", "name: brav"), "name", "differs from the file name"),
        (("url: url", "link: url"), "fields", "unknown result fields"),
    ],
)
def test_invalid_adapter_names_the_file_and_field(
    tmp_path: Path, change: tuple[str, str], field: str, problem: str
) -> None:
    text = (ADAPTERS_DIR / "brave.yaml").read_text()
    assert change[0] in text
    (tmp_path / "brave.yaml").write_text(text.replace(change[0], change[1], 1))
    with pytest.raises(ConfigError) as caught:
        load_adapter_specs(tmp_path)
    message = str(caught.value)
    assert str(tmp_path / "brave.yaml") in message
    assert f"field `{field}" in message and problem in message


def test_missing_adapters_dir_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        load_adapter_specs(tmp_path / "nowhere")
