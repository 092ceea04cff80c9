"""The search cache's Redis backend: entries in one Redis, shared by every replica that uses it,
exact and semantic alike. Writes are one Lua script each; replicas mirror a scope's vectors in
memory and read only the ones written since.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, cast

import numpy as np

from toolweave.errors import ConfigError, ServerError
from toolweave.grounding.cache.base import PURGE_INTERVAL_S, RESULTS, CacheEntry
from toolweave.grounding.cache.vectors import ScopeVectors, decode_vector, encode_vector

if TYPE_CHECKING:
    from redis.asyncio import Redis

# One write, atomic: the entry (native TTL) and, for semantic lookups, its vector in the
# scope's hash and its sequence number in the scope's sorted set. Replicas read the sequence
# numbers above the last one they saw, so they only fetch new vectors. The numbers are Redis's
# clock in ms (made strictly increasing), so they keep growing after the scope's keys expire
# or are cleared. The scope's keys live as long as its longest-lived entry.
# KEYS: entry, vectors (hash), sequence (zset), last number. ARGV: ttl, entry, id, vector or "".
_PUT = """
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[1])
if ARGV[4] ~= '' then
  local time = redis.call('TIME')
  local seq = math.max(time[1] * 1000 + math.floor(time[2] / 1000),
                       (tonumber(redis.call('GET', KEYS[4])) or 0) + 1)
  redis.call('SET', KEYS[4], seq)
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
  redis.call('ZADD', KEYS[3], seq, ARGV[3])
  for i = 2, 4 do
    if redis.call('TTL', KEYS[i]) < tonumber(ARGV[1]) then
      redis.call('EXPIRE', KEYS[i], ARGV[1])
    end
  end
end
"""
# Deletes the vectors of expired entries (checked here: another replica may have just
# refreshed one). KEYS: vectors, sequence. ARGV: now, ids...
_CLEAN = """
local removed = 0
for i = 2, #ARGV do
  local blob = redis.call('HGET', KEYS[1], ARGV[i])
  if blob and struct.unpack('<d', blob) <= tonumber(ARGV[1]) then
    redis.call('HDEL', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[2], ARGV[i])
    removed = removed + 1
  end
end
return removed
"""
_EXPIRES = struct.Struct("<d")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class RedisCacheBackend:
    """Entries in Redis under `namespace`, shared by every replica that uses the same one:

        {ns}:e:{scope}:{id}   the entry (JSON), with a native TTL
        {ns}:v:{scope,space}  hash id -> expiry (float64) + vector (float32)
        {ns}:s:{scope,space}  sorted set id -> sequence number; {ns}:n:... the last one

    Each replica mirrors a scope's vectors in memory and reads only what was added since.
    """

    def __init__(self, url: str, namespace: str = "toolweave:gcache") -> None:
        import redis.asyncio
        from redis.exceptions import ConnectionError, RedisError, TimeoutError

        self.url = url
        self.namespace = namespace
        self._unreachable: tuple[type[Exception], ...] = (ConnectionError, TimeoutError, OSError)
        self._failure = RedisError
        try:
            self._redis: Redis = redis.asyncio.from_url(
                url, socket_connect_timeout=3, socket_timeout=10
            )
        except ValueError as exc:
            raise ConfigError(
                f"grounding.cache.redis_url {_redacted(url)!r} is not a Redis URL: {exc}"
            ) from exc
        self._put = self._redis.register_script(_PUT)
        self._clean = self._redis.register_script(_CLEAN)
        self._mirrors: dict[str, ScopeVectors] = {}

    async def get(self, scope: str, key: str, now: float) -> CacheEntry | None:
        with self._errors():
            raw = await self._redis.get(self._entry_key(scope, _digest(key)))
        return None if raw is None else self._decode(scope, raw, now, key)

    async def put(self, entry: CacheEntry, now: float) -> None:
        ttl = max(1, math.ceil(entry.expires - now))
        payload = json.dumps(
            {
                "key": entry.key,
                "query": entry.query,
                "provider": entry.provider,
                "results": RESULTS.dump_python(entry.results, mode="json"),
                "created": entry.created,
                "expires": entry.expires,
            }
        )
        vector = b""
        if entry.vector is not None:
            vector = _EXPIRES.pack(entry.expires) + encode_vector(entry.vector)
        group = _digest(f"{entry.scope}\x1f{entry.space}")
        keys = [self._entry_key(entry.scope, _digest(entry.key)), *self._group_keys(group)]
        with self._errors():
            await self._put(keys=keys, args=[ttl, payload, _digest(entry.key), vector])

    async def nearest(
        self, scope: str, space: str, vector: np.ndarray, now: float, min_similarity: float
    ) -> list[tuple[CacheEntry, float]]:
        group = _digest(f"{scope}\x1f{space}")
        with self._errors():
            mirror = await self._mirror(group, now)
            found = mirror.nearest(vector, now, min_similarity)
            if not found:
                return []
            raws = await self._redis.mget([self._entry_key(scope, id_) for id_, _ in found])
            pairs, gone = [], []
            for (id_, similarity), raw in zip(found, raws, strict=True):
                entry = None if raw is None else self._decode(scope, raw, now)
                if entry is None:
                    gone.append(id_)
                else:
                    pairs.append((entry, similarity))
            if gone:
                await self._forget(group, mirror.remove(now, gone), now)
        return pairs

    async def count(self, now: float) -> int:
        """Entries Redis still holds (their native TTL has not run out)."""
        with self._errors():
            return sum([1 async for _ in self._redis.scan_iter(self._pattern("e:*"), count=500)])

    async def clear(self) -> None:
        with self._errors():
            keys = [key async for key in self._redis.scan_iter(self._pattern("*"), count=500)]
            for start in range(0, len(keys), 500):
                await self._redis.unlink(*keys[start : start + 500])
        self._mirrors.clear()

    async def aclose(self) -> None:
        await self._redis.aclose()

    async def _mirror(self, group: str, now: float) -> ScopeVectors:
        """This scope's vectors, updated with the ones written since the last read."""
        vectors, sequence, _ = self._group_keys(group)
        mirror = self._mirrors.setdefault(group, ScopeVectors())
        fresh = cast(
            "list[tuple[bytes, float]]",
            await self._redis.zrangebyscore(sequence, f"({mirror.seen}", "+inf", withscores=True),
        )
        if fresh:
            ids = [member.decode() for member, _ in fresh]
            for id_, blob in zip(ids, await self._redis.hmget(vectors, ids), strict=True):
                if isinstance(blob, bytes):
                    expires = _EXPIRES.unpack_from(blob)[0]
                    vector = decode_vector(blob, _EXPIRES.size)
                    mirror.upsert(id_, vector, expires)
            mirror.seen = max(mirror.seen, int(max(score for _, score in fresh)))
        if now >= mirror.next_sweep:
            mirror.next_sweep = now + PURGE_INTERVAL_S
            await self._forget(group, mirror.remove(now), now)
        return mirror

    async def _forget(self, group: str, ids: list[str], now: float) -> None:
        """Deletes the vectors of these ids from Redis if they have expired there too."""
        if ids:
            vectors, sequence, _ = self._group_keys(group)
            await self._clean(keys=[vectors, sequence], args=[now, *ids])

    def _decode(
        self, scope: str, raw: bytes | str, now: float, key: str | None = None
    ) -> CacheEntry | None:
        data = json.loads(raw)
        if data["expires"] <= now or (key is not None and data["key"] != key):
            return None
        return CacheEntry(
            scope,
            data["key"],
            data["query"],
            data["provider"],
            RESULTS.validate_python(data["results"]),
            data["created"],
            data["expires"],
        )

    def _entry_key(self, scope: str, id_: str) -> str:
        return f"{self.namespace}:e:{_digest(scope)}:{id_}"

    def _group_keys(self, group: str) -> tuple[str, str, str]:
        prefix = self.namespace
        return f"{prefix}:v:{group}", f"{prefix}:s:{group}", f"{prefix}:n:{group}"

    def _pattern(self, suffix: str) -> str:
        return re.sub(r"([*?\[\]\\])", r"\\\1", self.namespace) + ":" + suffix

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except self._unreachable as exc:
            raise ServerError(
                f"cannot reach the Redis search cache at {_redacted(self.url)} ({exc}). Start "
                'Redis there, or change grounding.cache.redis_url (or backend = "sqlite")'
            ) from exc
        except self._failure as exc:
            raise ServerError(
                f"the Redis search cache at {_redacted(self.url)} failed: {exc}"
            ) from exc


def _redacted(url: str) -> str:
    """The URL without its password, fit for messages."""
    return re.sub(r"(//[^:/@]*:)[^@/]*@", r"\1***@", url)
