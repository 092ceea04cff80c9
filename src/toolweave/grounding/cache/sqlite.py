"""The search cache's SQLite backend: entries in one file (WAL), which the processes of one host
can share; numbered migrations create and evolve its table.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from toolweave.errors import ConfigError
from toolweave.grounding.cache.base import PURGE_INTERVAL_S, RESULTS, CacheEntry
from toolweave.grounding.cache.vectors import ScopeVectors, decode_vector, encode_vector
from toolweave.storage import prepare

# Idempotent: two processes may open a new file at once.
_MIGRATIONS = [
    """
    CREATE TABLE IF NOT EXISTS entries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: other processes sync by it
        scope TEXT NOT NULL, key TEXT NOT NULL, query TEXT NOT NULL, provider TEXT NOT NULL,
        results TEXT NOT NULL, space TEXT NOT NULL, vector BLOB,
        created REAL NOT NULL, expires REAL NOT NULL,
        UNIQUE (scope, key));
    CREATE INDEX IF NOT EXISTS entries_by_scope ON entries (scope, space, id);
    CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries (expires);
    """,
]
_SELECT = (
    "SELECT query, provider, results, created, expires FROM entries "
    "WHERE scope = ? AND key = ? AND expires > ?"
)
_INSERT = (
    "INSERT OR REPLACE INTO entries "
    "(scope, key, query, provider, results, space, vector, created, expires) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_NEW_VECTORS = (
    "SELECT id, key, vector, expires FROM entries "
    "WHERE scope = ? AND space = ? AND id > ? AND vector IS NOT NULL"
)


class SqliteCacheBackend:
    """Entries in one SQLite file (WAL). Each scope's vectors are read into memory on its first
    semantic lookup, then kept in sync with this process's writes and, when another process
    has written (PRAGMA data_version), with the rows added since. Calls run inline: each is a
    primary-key lookup or one insert, well under a millisecond."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tables: dict[tuple[str, str], ScopeVectors] = {}
        self._next_purge = -math.inf  # the first call purges: "on open", by the cache's clock
        with self._errors():
            path.parent.mkdir(parents=True, exist_ok=True)
            # Used from one event loop, whose thread need not be the one that opened it.
            self._db = sqlite3.connect(path, check_same_thread=False)
            try:
                self._migrate()
            except BaseException:
                self._db.close()
                raise

    async def get(self, scope: str, key: str, now: float) -> CacheEntry | None:
        with self._errors():
            self._maybe_purge(now)
            row = self._db.execute(_SELECT, (scope, key, now)).fetchone()
        return None if row is None else self._entry(scope, key, row)

    async def put(self, entry: CacheEntry, now: float) -> None:
        blob = None if entry.vector is None else encode_vector(entry.vector)
        results = RESULTS.dump_json(entry.results).decode()
        row = (entry.scope, entry.key, entry.query, entry.provider, results, entry.space, blob)
        with self._errors():
            self._maybe_purge(now)
            with self._db:
                self._db.execute(_INSERT, (*row, entry.created, entry.expires))
        table = self._tables.get((entry.scope, entry.space))
        if table is not None and entry.vector is not None:
            table.upsert(entry.key, entry.vector, entry.expires)

    async def nearest(
        self, scope: str, space: str, vector: np.ndarray, now: float, min_similarity: float
    ) -> list[tuple[CacheEntry, float]]:
        found = []
        with self._errors():
            self._maybe_purge(now)
            for key, similarity in self._table(scope, space).nearest(vector, now, min_similarity):
                row = self._db.execute(_SELECT, (scope, key, now)).fetchone()
                if row is not None:  # else deleted by another process
                    found.append((self._entry(scope, key, row), similarity))
        return found

    async def count(self, now: float) -> int:
        with self._errors():
            row = self._db.execute("SELECT count(*) FROM entries WHERE expires > ?", (now,))
            return int(row.fetchone()[0])

    async def clear(self) -> None:
        with self._errors(), self._db:
            self._db.execute("DELETE FROM entries")
        self._tables.clear()

    async def aclose(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        prepare(
            self._db,
            _MIGRATIONS,
            what=f"the search cache {self.path}",
            remedy="upgrade, or delete the file (it only holds cached results)",
        )

    def _table(self, scope: str, space: str) -> ScopeVectors:
        """This scope's vectors, with the rows other processes added since the last read."""
        version = self._db.execute("PRAGMA data_version").fetchone()[0]
        table = self._tables.setdefault((scope, space), ScopeVectors())
        if table.version != version:
            for row_id, key, blob, expires in self._db.execute(
                _NEW_VECTORS, (scope, space, table.seen)
            ):
                table.upsert(key, decode_vector(blob), expires)
                table.seen = max(table.seen, row_id)
            table.version = version
        return table

    def _maybe_purge(self, now: float) -> None:
        if now < self._next_purge:
            return
        self._next_purge = now + PURGE_INTERVAL_S
        with self._db:
            self._db.execute("DELETE FROM entries WHERE expires <= ?", (now,))
        for table in self._tables.values():
            table.remove(now)

    def _entry(self, scope: str, key: str, row: tuple[Any, ...]) -> CacheEntry:
        query, provider, results, created, expires = row
        return CacheEntry(
            scope, key, query, provider, RESULTS.validate_json(results), created, expires
        )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            raise ConfigError(
                f"the search cache {self.path} cannot be used ({exc}). It only holds cached "
                "search results: if it is damaged, delete it and it is rebuilt"
            ) from exc
