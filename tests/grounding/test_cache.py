"""The search cache against both real backends (a SQLite file, a redis-server of the tests' own)
and the real bundled embedder."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import redis

from toolweave.errors import ConfigError, ServerError
from toolweave.grounding.cache.base import CacheBackend
from toolweave.grounding.cache.redis import RedisCacheBackend
from toolweave.grounding.cache.search_cache import (
    CacheHit,
    SearchCache,
    normalize_query,
    open_cache,
)
from toolweave.grounding.cache.sqlite import SqliteCacheBackend
from toolweave.grounding.freshness import classify, ttl_for
from toolweave.grounding.guard import conflicts
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.settings import CacheSettings

from ..fakes import CountingEmbedder

pytestmark = pytest.mark.anyio

ROSENBLATT = "Who received the IEEE Frank Rosenblatt Award in 2010?"
ROSENBLATT_PARAPHRASE = "Can you tell me who got the IEEE Frank Rosenblatt Award in 2010"


class Clock:
    """The cache's clock, moved by hand; starts at the real time (the dates it implies matter)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


CacheFactory = Callable[..., SearchCache]


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=["sqlite", "redis"])
def backend_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], CacheBackend]:
    """Opens one more backend on the same storage, as another process or replica would."""
    if request.param == "sqlite":
        return lambda: SqliteCacheBackend(tmp_path / "cache.sqlite")
    url, namespace = request.getfixturevalue("redis_url"), f"test:{uuid.uuid4().hex}"
    return lambda: RedisCacheBackend(url, namespace=namespace)


@pytest.fixture
async def make_cache(
    backend_factory: Callable[[], CacheBackend], embedder: OnnxEmbedder, clock: Clock
) -> AsyncIterator[CacheFactory]:
    opened: list[SearchCache] = []
    real = embedder

    def make(
        settings: CacheSettings | None = None, embedder: Any = real, **options: Any
    ) -> SearchCache:
        cache = SearchCache(
            backend_factory(), embedder, settings or CacheSettings(), clock, **options
        )
        opened.append(cache)
        return cache

    yield make
    if opened:
        await opened[0].clear()
    for cache in opened:
        await cache.aclose()


def results(provider: str = "brave", count: int = 2) -> list[SearchResult]:
    return [
        SearchResult(
            title=f"result {rank}", url=f"https://example.org/{rank}", provider=provider, rank=rank
        )
        for rank in range(1, count + 1)
    ]


def scope_of(request: SearchRequest) -> str:
    return "brave,local|" + request.parameters_key()


async def store(cache: SearchCache, query: str, **params: Any) -> list[SearchResult]:
    request = SearchRequest(query=query, **params)
    stored = results()
    await cache.store(request, scope_of(request), stored, "brave")
    return stored


async def lookup(cache: SearchCache, query: str, **params: Any) -> CacheHit | None:
    request = SearchRequest(query=query, **params)
    return await cache.lookup(request, scope_of(request))


# -- exact ----------------------------------------------------------------------------------


async def test_exact_hit_after_store(make_cache: CacheFactory, clock: Clock) -> None:
    cache = make_cache()
    assert await lookup(cache, ROSENBLATT) is None
    stored = await store(cache, ROSENBLATT)
    clock.now += 5
    hit = await lookup(cache, ROSENBLATT)
    assert hit is not None
    assert (hit.kind, hit.provider, hit.query, hit.similarity) == ("exact", "brave", ROSENBLATT, 1)
    assert hit.results == stored
    assert hit.age_s == pytest.approx(5)


@pytest.mark.parametrize("spelling", ["what is  x", "WHAT IS X", " What is X ?", "what is x!"])
async def test_spelling_variants_are_exact_hits(make_cache: CacheFactory, spelling: str) -> None:
    cache = make_cache(embedder=None)  # no semantic path: only the exact key can match
    await store(cache, "What is X?")
    hit = await lookup(cache, spelling)
    assert hit is not None and hit.kind == "exact"


@pytest.mark.parametrize(
    "other", [{"max_results": 10}, {"freshness": "week"}, {"domains": ["example.org"]}]
)
async def test_other_parameters_are_another_scope(
    make_cache: CacheFactory, other: dict[str, Any]
) -> None:
    cache = make_cache()
    await store(cache, ROSENBLATT)
    assert await lookup(cache, ROSENBLATT, **other) is None
    assert await lookup(cache, ROSENBLATT_PARAPHRASE, **other) is None
    assert await lookup(cache, ROSENBLATT) is not None


async def test_a_new_store_replaces_the_entry(make_cache: CacheFactory) -> None:
    cache = make_cache()
    await store(cache, ROSENBLATT)
    request = SearchRequest(query=ROSENBLATT)
    await cache.store(request, scope_of(request), results("tavily", 3), "tavily")
    hit = await lookup(cache, ROSENBLATT)
    assert hit is not None and hit.provider == "tavily" and len(hit.results) == 3
    assert (await cache.stats())["entries"] == 1


# -- expiry ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "params", "ttl_field"),
    [
        (ROSENBLATT, {}, "ttl_factoid_s"),
        ("latest news about the Rosenblatt award", {}, "ttl_recent_s"),
        (ROSENBLATT, {"kind": "news"}, "ttl_recent_s"),
    ],
)
async def test_entries_expire_after_their_ttl(
    make_cache: CacheFactory, clock: Clock, query: str, params: dict[str, Any], ttl_field: str
) -> None:
    settings = CacheSettings()
    cache = make_cache(settings)
    await store(cache, query, **params)
    ttl = getattr(settings, ttl_field)
    clock.now += ttl - 1
    assert await lookup(cache, query, **params) is not None
    clock.now += 2
    assert await lookup(cache, query, **params) is None
    assert await lookup(cache, query + " please", **params) is None  # nor semantically
    assert (await cache.stats())["misses"] == 2


async def test_redis_expires_entries_itself(redis_url: str, embedder: OnnxEmbedder) -> None:
    """A real one-second TTL; the cache's clock stands still, so only Redis can expire it."""
    frozen = time.time()
    settings = CacheSettings(ttl_factoid_s=1, ttl_recent_s=1)
    backend = RedisCacheBackend(redis_url, namespace=f"test:{uuid.uuid4().hex}")
    cache = SearchCache(backend, embedder, settings, clock=lambda: frozen)
    try:
        await store(cache, ROSENBLATT)
        assert (await cache.stats())["entries"] == 1
        await asyncio.sleep(2.2)
        assert (await cache.stats())["entries"] == 0
        assert await lookup(cache, ROSENBLATT) is None
        assert await lookup(cache, ROSENBLATT_PARAPHRASE) is None
    finally:
        await cache.clear()
        await cache.aclose()


async def test_redis_cleans_expired_vectors(redis_url: str, embedder: OnnxEmbedder) -> None:
    clock, namespace = Clock(), f"test:{uuid.uuid4().hex}"
    cache = SearchCache(RedisCacheBackend(redis_url, namespace), embedder, CacheSettings(), clock)
    client = redis.Redis.from_url(redis_url)
    try:
        await store(cache, ROSENBLATT)
        (vectors,) = client.keys(f"{namespace}:v:*")
        assert client.hlen(vectors) == 1
        clock.now += CacheSettings().ttl_factoid_s + 1
        assert await lookup(cache, ROSENBLATT_PARAPHRASE) is None
        assert client.hlen(vectors) == 0
    finally:
        client.close()
        await cache.clear()
        await cache.aclose()


async def test_sqlite_deletes_expired_rows(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "cache.sqlite"
    cache = SearchCache(SqliteCacheBackend(path), None, CacheSettings(), clock)
    await store(cache, ROSENBLATT)
    await cache.aclose()
    clock.now += CacheSettings().ttl_factoid_s + 1
    reopened = SearchCache(SqliteCacheBackend(path), None, CacheSettings(), clock)
    assert await lookup(reopened, "anything") is None
    await reopened.aclose()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM entries").fetchone() == (0,)


# -- semantic and the guard -----------------------------------------------------------------


async def test_semantic_hit_on_a_paraphrase(make_cache: CacheFactory) -> None:
    cache = make_cache()
    stored = await store(cache, ROSENBLATT)
    hit = await lookup(cache, ROSENBLATT_PARAPHRASE)
    assert hit is not None
    assert (hit.kind, hit.query, hit.results) == ("semantic", ROSENBLATT, stored)
    assert CacheSettings().semantic_threshold <= hit.similarity < 1


async def test_semantic_lookups_can_be_turned_off(
    make_cache: CacheFactory, embedder: OnnxEmbedder
) -> None:
    counting = CountingEmbedder(embedder)
    cache = make_cache(CacheSettings(semantic=False), embedder=counting)
    await store(cache, ROSENBLATT)
    assert await lookup(cache, ROSENBLATT_PARAPHRASE) is None
    assert await lookup(cache, ROSENBLATT) is not None
    assert counting.texts == []


async def test_a_missed_query_is_embedded_once(
    make_cache: CacheFactory, embedder: OnnxEmbedder
) -> None:
    counting = CountingEmbedder(embedder)
    cache = make_cache(embedder=counting)
    assert await lookup(cache, ROSENBLATT) is None
    await store(cache, ROSENBLATT)
    assert await lookup(cache, ROSENBLATT) is not None  # exact: no embedding
    assert counting.texts == [normalize_query(ROSENBLATT)]


@pytest.mark.parametrize(
    ("cached", "query", "reason"),
    [
        ("weather in Paris today", "weather in Paris tomorrow", "date tomorrow vs today"),
        ("weather in Paris today", "weather in paris tomorrow", "date tomorrow vs today"),
        ("Who won the 2010 award", "Who won the 2011 award", "number 2011 vs 2010"),
        (ROSENBLATT, ROSENBLATT.replace("2010", "2011"), "number 2011 vs 2010"),
        (
            "Who was the mayor of Paris in May 2001?",
            "Who was the mayor of Paris in June 2001?",
            "date june vs may",
        ),
    ],
)
async def test_the_guard_turns_down_near_misses(
    make_cache: CacheFactory, cached: str, query: str, reason: str
) -> None:
    # A low threshold, so that each of these reaches the guard.
    settings = CacheSettings(semantic_threshold=0.8)
    unguarded = make_cache(settings, guard=None)
    await store(unguarded, cached)
    hit = await lookup(unguarded, query)
    assert hit is not None and hit.kind == "semantic"  # the false hit the guard is there for
    assert reason in conflicts(query, cached)
    guarded = make_cache(settings)
    assert await lookup(guarded, query) is None
    assert (await guarded.stats())["guard_rejections"] == 1


async def test_stats_count_this_processes_outcomes(make_cache: CacheFactory) -> None:
    cache = make_cache()
    await lookup(cache, ROSENBLATT)
    await store(cache, ROSENBLATT)
    await store(cache, "weather in Paris today")
    await lookup(cache, ROSENBLATT)
    await lookup(cache, ROSENBLATT_PARAPHRASE)
    await lookup(cache, "weather in Paris tomorrow")
    assert await cache.stats() == {
        "entries": 2,
        "exact_hits": 1,
        "semantic_hits": 1,
        "misses": 2,
        "guard_rejections": 1,
    }


async def test_empty_results_are_not_stored(make_cache: CacheFactory) -> None:
    cache = make_cache()
    request = SearchRequest(query=ROSENBLATT)
    await cache.store(request, scope_of(request), [], "brave")
    assert await lookup(cache, ROSENBLATT) is None
    assert (await cache.stats())["entries"] == 0


async def test_clear_forgets_everything(make_cache: CacheFactory) -> None:
    cache = make_cache()
    await store(cache, ROSENBLATT)
    assert await lookup(cache, ROSENBLATT_PARAPHRASE) is not None
    await cache.clear()
    assert await lookup(cache, ROSENBLATT) is None
    assert await lookup(cache, ROSENBLATT_PARAPHRASE) is None
    assert (await cache.stats())["entries"] == 0


# -- sharing --------------------------------------------------------------------------------


async def test_a_second_instance_sees_the_first_ones_entries(make_cache: CacheFactory) -> None:
    writer, reader = make_cache(), make_cache()
    # The reader has already loaded this scope's vectors: it must notice the new ones.
    assert await lookup(reader, ROSENBLATT_PARAPHRASE) is None
    stored = await store(writer, ROSENBLATT)
    exact = await lookup(reader, ROSENBLATT)
    semantic = await lookup(reader, ROSENBLATT_PARAPHRASE)
    assert exact is not None and exact.kind == "exact" and exact.results == stored
    assert semantic is not None and semantic.kind == "semantic" and semantic.query == ROSENBLATT
    # Also after the writer cleared everything (sequence numbers must not start over).
    await writer.clear()
    assert await lookup(reader, ROSENBLATT_PARAPHRASE) is None
    await store(writer, "Who was awarded the Oceanography Society's Jerlov Award in 2018?")
    again = await lookup(reader, "Who was given the Oceanography Society's Jerlov Award in 2018")
    assert again is not None and again.kind == "semantic"


# -- failures -------------------------------------------------------------------------------


async def test_an_unreachable_redis_is_a_clear_error(free_port: int) -> None:
    url = f"redis://user:secret@127.0.0.1:{free_port}/0"
    cache = SearchCache(RedisCacheBackend(url), None, CacheSettings())
    with pytest.raises(ServerError, match="cannot reach the Redis search cache") as caught:
        await lookup(cache, ROSENBLATT)
    message = str(caught.value)
    assert url.replace("secret", "***") in message and "secret" not in message
    await cache.aclose()


def test_a_bad_redis_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="not a Redis URL"):
        RedisCacheBackend("http://127.0.0.1:6379")


def test_a_corrupt_sqlite_file_is_a_config_error_and_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    garbage = b"this is not a database, and nobody deletes it silently\n" * 200
    path.write_bytes(garbage)
    with pytest.raises(ConfigError) as caught:
        SqliteCacheBackend(path)
    assert str(path) in str(caught.value) and "delete it" in str(caught.value)
    assert path.read_bytes() == garbage


# -- opening --------------------------------------------------------------------------------


async def test_open_cache_follows_the_settings(tmp_path: Path, redis_url: str) -> None:
    assert open_cache(CacheSettings(backend="none"), tmp_path, None) is None

    default = open_cache(CacheSettings(), tmp_path, None)
    assert default is not None and isinstance(default.backend, SqliteCacheBackend)
    await store(default, ROSENBLATT)
    await default.aclose()
    assert (tmp_path / "grounding" / "cache.sqlite").is_file()

    chosen = tmp_path / "elsewhere" / "search.db"
    named = open_cache(CacheSettings(path=chosen), tmp_path, None)
    assert named is not None and isinstance(named.backend, SqliteCacheBackend)
    await named.aclose()
    assert chosen.is_file()

    shared = open_cache(CacheSettings(backend="redis", redis_url=redis_url), tmp_path, None)
    assert shared is not None and isinstance(shared.backend, RedisCacheBackend)
    await store(shared, ROSENBLATT)
    assert await lookup(shared, ROSENBLATT) is not None
    await shared.clear()
    await shared.aclose()


# -- keys and freshness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("What is X?", "what is x"),
        ("  what   is\tx  ", "what is x"),
        ("«Straße»", "strasse"),
        ("ＡＢＣ？", "abc"),  # full-width forms (NFKC)
        ("C++", "c++"),
        ("what is c#", "what is c#"),
    ],
)
def test_normalize_query(query: str, key: str) -> None:
    assert normalize_query(query) == key


@pytest.mark.parametrize(
    ("query", "params", "expected"),
    [
        (ROSENBLATT, {}, "factoid"),
        ("What is the capital of France?", {}, "factoid"),
        ("Who won the 1966 World Cup?", {}, "factoid"),
        ("What is the capital of France?", {"kind": "news"}, "recent"),
        ("What is the capital of France?", {"freshness": "day"}, "recent"),
        ("latest iPhone model", {}, "recent"),
        ("weather in Paris", {}, "recent"),
        ("NVDA stock price", {}, "recent"),
        ("what is happening this week in Berlin", {}, "recent"),
        ("Who won the Champions League in 2031?", {}, "recent"),  # the next year
        ("Who won the Champions League in 2030?", {}, "recent"),  # this year
        ("Who won the Champions League in 2029?", {}, "factoid"),
    ],
)
def test_classify(query: str, params: dict[str, Any], expected: str) -> None:
    request = SearchRequest(query=query, **params)
    assert classify(request, today=date(2030, 5, 1)) == expected


def test_ttl_for() -> None:
    settings = CacheSettings(ttl_recent_s=60, ttl_factoid_s=600)
    assert (ttl_for("recent", settings), ttl_for("factoid", settings)) == (60, 600)
