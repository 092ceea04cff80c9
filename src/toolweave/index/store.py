"""The persisted tool index: one vector per segment; a tool's score is its best segment's score
(MaxSim), a server's likewise over its own and its tools' segments; BM25 over tool documents.

Files in the index folder:
    index.sqlite   format version, embedder id, servers, tools, segments (text, kind, origin);
                   its schema is brought up to date by `MIGRATIONS` (`storage.prepare`)
    vectors.f32    float32 rows, one per segment, append-only, memory-mapped for search
    rows.npy       int32 (n, 2): each row's tool id and server id; -1 where none or removed
    ann.faiss      IVF + 8-bit index over the live rows, once there are `ann_threshold` of them
    lexical/       BM25 over the live tools' documents
Writes are staged in memory and land on `commit()`.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from toolweave.errors import ConfigError, ToolweaveError
from toolweave.index.lexical import LexicalIndex
from toolweave.index.vectors import AnnStore, ExactStore, VectorStore
from toolweave.language.text import readable_name
from toolweave.storage import prepare
from toolweave.types import IndexHit, Segment, ToolDoc, ToolSpec

# The meaning of the files next to index.sqlite (vectors, rows); stored in its meta table, a
# mismatch means a rebuild. The database's own schema is versioned by MIGRATIONS instead.
FORMAT_VERSION = 1
# The lexical index's documents (a tool's segments, since 2 with its server's name): a mismatch
# rebuilds it from the stored segments.
LEXICAL_VERSION = 2
# Numbered by `PRAGMA user_version`: append new steps, never edit one (indexes written before the
# switch to `storage.prepare` are at version 1 already, so they open unchanged).
MIGRATIONS = [
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE servers (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,
                          description TEXT NOT NULL DEFAULT '', doc_hash TEXT);
    CREATE TABLE tools (id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL,
                        server_id INTEGER NOT NULL, spec TEXT NOT NULL, doc_hash TEXT NOT NULL,
                        live INTEGER NOT NULL);
    CREATE TABLE segments (row INTEGER PRIMARY KEY, tool_id INTEGER, server_id INTEGER NOT NULL,
                           kind TEXT NOT NULL, origin TEXT NOT NULL, text TEXT NOT NULL,
                           text_hash TEXT NOT NULL, live INTEGER NOT NULL);
    CREATE INDEX segments_by_text ON segments (text_hash);
    CREATE INDEX segments_by_tool ON segments (tool_id);
    """,
]
Level = Literal["tool", "server"]


class IndexMismatchError(ToolweaveError):
    """The index on disk was built by another embedder or format, or by a newer toolweave, or its
    files disagree; it must be rebuilt."""


@contextmanager
def write_lock(folder: Path) -> Iterator[None]:
    """The index folder's lock: one process at a time creates, writes or deletes its files."""
    with (folder / "write.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class _Tool:
    id: int
    key: str
    server: str


class ToolIndex:
    def __init__(
        self,
        folder: Path,
        *,
        embedder_id: str,
        dim: int,
        ann_threshold: int = 100_000,
        nprobe: int = 32,
    ) -> None:
        self.folder = folder
        self.dim = dim
        self.ann_threshold = ann_threshold
        self.nprobe = nprobe
        folder.mkdir(parents=True, exist_ok=True)
        # Under the write lock: two processes creating a new index must not both create it.
        with write_lock(folder):
            self.db = sqlite3.connect(folder / "index.sqlite")
            self._migrate()
            self._check_meta(embedder_id)
        self._load()

    # -- opening ---------------------------------------------------------------------------

    def _migrate(self) -> None:
        try:
            prepare(
                self.db,
                MIGRATIONS,
                what=f"the tool index {self.folder}",
                remedy="upgrade toolweave, or rebuild it with `toolweave index --rebuild`",
            )
        except ConfigError as exc:
            # One error for "this index cannot be used as it is": callers handle a rebuild once.
            self.db.close()
            raise IndexMismatchError(str(exc)) from exc
        # Unlike prepare's many small writes, one commit per sync, which the vector and row files
        # were written ahead of: keep it durable, as before.
        self.db.execute("PRAGMA synchronous=FULL")

    def _check_meta(self, embedder_id: str) -> None:
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        wanted = {"format": str(FORMAT_VERSION), "embedder": embedder_id, "dim": str(self.dim)}
        if not meta:
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
            self.db.commit()
            return
        if meta != wanted:
            raise IndexMismatchError(
                f"the tool index at {self.folder} was built with embedder {meta.get('embedder')!r} "
                f"(dim {meta.get('dim')}, format {meta.get('format')}); the settings use "
                f"{embedder_id!r} (dim {self.dim}, format {FORMAT_VERSION}). Rebuild it with "
                "`toolweave index --rebuild`"
            )

    def _load(self) -> None:
        rows_path = self.folder / "rows.npy"
        stored = np.load(rows_path) if rows_path.exists() else np.zeros((0, 2), dtype=np.int32)
        self._owners, self._count = stored, len(stored)
        self.vectors = self._map_vectors(self._count)
        self.tools = {
            tool_id: _Tool(tool_id, key, server)
            for tool_id, key, server in self.db.execute(
                "SELECT t.id, t.key, s.name FROM tools t JOIN servers s ON s.id = t.server_id "
                "WHERE t.live = 1"
            )
        }
        self.server_names = dict(self.db.execute("SELECT id, name FROM servers"))
        self._store: VectorStore | None = None
        self._lexical: LexicalIndex | None = None
        self._pending_rows: list[np.ndarray] = []
        self._removed_rows: list[int] = []
        self._tools_changed = False

    def _map_vectors(self, count: int) -> np.ndarray:
        path = self.folder / "vectors.f32"
        if count == 0 or not path.exists():
            return np.zeros((0, self.dim), dtype=np.float32)
        expected = count * self.dim * 4
        if path.stat().st_size < expected:
            raise IndexMismatchError(
                f"{path} holds fewer vectors than {self.folder / 'rows.npy'} lists (an interrupted "
                "write?); rebuild it with `toolweave index --rebuild`"
            )
        return np.memmap(path, dtype=np.float32, mode="r", shape=(count, self.dim))

    @property
    def rows(self) -> np.ndarray:
        """(tool id, server id) of every row, -1 where none or removed."""
        return self._owners[: self._count]

    def _grow(self, extra: int) -> None:
        if self._count + extra > len(self._owners):
            grown = np.full(
                (max(2 * len(self._owners), self._count + extra, 1024), 2), -1, np.int32
            )
            grown[: self._count] = self.rows
            self._owners = grown

    # -- reading ---------------------------------------------------------------------------

    @property
    def store(self) -> VectorStore:
        if self._store is None:
            live = self.rows[:, 1] >= 0
            ann_path = self.folder / "ann.faiss"
            if ann_path.exists() and int(live.sum()) >= self.ann_threshold:
                self._store = AnnStore.load(ann_path, self.vectors, nprobe=self.nprobe)
            else:
                self._store = ExactStore(self.vectors, live)
        return self._store

    @property
    def lexical(self) -> LexicalIndex:
        if self._lexical is None:
            version = self.folder / "lexical" / "version"
            if version.exists() and version.read_text() == str(LEXICAL_VERSION):
                self._lexical = LexicalIndex.load(self.folder / "lexical")
            else:  # written before its documents changed: rebuilt from the segments (no model)
                with write_lock(self.folder):
                    self._write_lexical()
        assert self._lexical is not None
        return self._lexical

    def __len__(self) -> int:
        return len(self.tools)

    @property
    def segment_count(self) -> int:
        return int((self.rows[:, 1] >= 0).sum())

    def search(self, query: np.ndarray, k: int = 10, level: Level = "tool") -> list[IndexHit]:
        """The k best tools (or servers), each scored by its best segment."""
        return self.search_many(np.asarray(query)[None, :], k, level)[0]

    def search_many(
        self, queries: np.ndarray, k: int = 10, level: Level = "tool"
    ) -> list[list[IndexHit]]:
        """`search` for each row of `queries`, sharing one pass over the vectors."""
        column = 0 if level == "tool" else 1
        queries = np.asarray(queries, dtype=np.float32)
        wanted = max(k * 20, 100)
        results: list[list[IndexHit] | None] = [None] * len(queries)
        while any(r is None for r in results):
            pending = [i for i, r in enumerate(results) if r is None]
            found = self.store.search_many(queries[pending], wanted)
            exhausted = wanted >= len(self.rows)
            for i, (rows, scores) in zip(pending, found, strict=True):
                best = self._best_owners(rows, scores, column, k)
                if len(best) >= k or exhausted or len(rows) < wanted:
                    results[i] = self._hits(best, level)
            wanted *= 4  # segments of the same few tools filled the window: look further
        return [r or [] for r in results]

    def _best_owners(
        self, rows: np.ndarray, scores: np.ndarray, column: int, k: int
    ) -> dict[int, tuple[int, float]]:
        """Each owner's best (row, score), for the first k owners met in score order."""
        best: dict[int, tuple[int, float]] = {}
        owners = self.rows[rows, column].tolist()
        for owner, row, score in zip(owners, rows.tolist(), scores.tolist(), strict=True):
            if owner >= 0 and owner not in best:
                best[owner] = (row, score)
                if len(best) == k:
                    break
        return best

    def search_text(self, text: str, k: int = 10) -> list[IndexHit]:
        """BM25 over whole tool documents."""
        hits = []
        for tool_id, score in self.lexical.search(text, k):
            if tool := self.tools.get(tool_id):
                hits.append(IndexHit(key=tool.key, server=tool.server, score=score))
        return hits

    def _hits(self, best: dict[int, tuple[int, float]], level: Level) -> list[IndexHit]:
        rows = [row for row, _ in best.values()]
        texts = {row: (text, origin) for row, text, origin in self._segments(rows)}
        hits = []
        for owner, (row, score) in best.items():
            text, origin = texts.get(row, ("", ""))
            if level == "tool":
                tool = self.tools[owner]
                key, server = tool.key, tool.server
            else:
                key = server = self.server_names[owner]
            hits.append(IndexHit(key=key, server=server, score=score, segment=text, origin=origin))
        return hits

    def _segments(self, rows: list[int]) -> Iterator[tuple[int, str, str]]:
        marks = ",".join("?" * len(rows))
        yield from self.db.execute(
            f"SELECT row, text, origin FROM segments WHERE row IN ({marks})", rows
        )

    def doc_hashes(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, doc_hash FROM tools WHERE live = 1"))

    def server_hashes(self) -> dict[str, str]:
        return {
            name: digest
            for name, digest in self.db.execute("SELECT name, doc_hash FROM servers")
            if digest
        }

    def tool_specs(self) -> list[ToolSpec]:
        """Every live tool's spec, as its server listed it when it was indexed."""
        rows = self.db.execute("SELECT spec FROM tools WHERE live = 1 ORDER BY id")
        return [ToolSpec.model_validate_json(spec) for (spec,) in rows]

    def tool_spec(self, key: str) -> ToolSpec | None:
        row = self.db.execute(
            "SELECT spec FROM tools WHERE key = ? AND live = 1", (key,)
        ).fetchone()
        return ToolSpec.model_validate_json(row[0]) if row else None

    def segments_of(self, key: str) -> list[Segment]:
        return [
            Segment(text=text, kind=kind, origin=origin)
            for text, kind, origin in self.db.execute(
                "SELECT s.text, s.kind, s.origin FROM segments s JOIN tools t ON t.id = s.tool_id "
                "WHERE t.key = ? AND s.live = 1 ORDER BY s.row",
                (key,),
            )
        ]

    def cached_vectors(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Vectors already stored for any of these texts (reused instead of re-embedding)."""
        found: dict[str, np.ndarray] = {}
        by_hash = {text_hash(t): t for t in texts}
        hashes = list(by_hash)
        for start in range(0, len(hashes), 500):
            chunk = hashes[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for digest, row in self.db.execute(
                f"SELECT text_hash, MAX(row) FROM segments WHERE text_hash IN ({marks}) "
                "GROUP BY text_hash",
                chunk,
            ):
                if row < len(self.vectors):
                    found[by_hash[digest]] = np.array(self.vectors[row])
                else:  # staged in this session, not yet on disk
                    found[by_hash[digest]] = self._staged_vector(row)
        return found

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the index's write lock (one writer across processes) with a fresh view of it."""
        with write_lock(self.folder):
            self._load()
            yield

    def put_server(
        self,
        name: str,
        description: str,
        segments: list[Segment],
        vectors: np.ndarray,
        doc_hash: str,
    ) -> None:
        server_id = self._server_id(name, description)
        self._retire(
            self.db.execute(
                "SELECT row FROM segments WHERE server_id = ? AND tool_id IS NULL AND live = 1",
                (server_id,),
            )
        )
        self._append(None, server_id, segments, vectors)
        self.db.execute("UPDATE servers SET doc_hash = ? WHERE id = ?", (doc_hash, server_id))

    def put_tool(self, doc: ToolDoc, vectors: np.ndarray, doc_hash: str) -> None:
        """Insert or replace a tool with its segments and their vectors (one row each)."""
        tool = doc.tool
        server_id = self._server_id(tool.server)
        spec = tool.model_dump_json()
        existing = self.db.execute("SELECT id FROM tools WHERE key = ?", (tool.key,)).fetchone()
        if existing:
            tool_id = existing[0]
            self._retire_tool(tool_id)
            self.db.execute(
                "UPDATE tools SET server_id=?, spec=?, doc_hash=?, live=1 WHERE id=?",
                (server_id, spec, doc_hash, tool_id),
            )
        else:
            tool_id = self.db.execute(
                "INSERT INTO tools (key, server_id, spec, doc_hash, live) VALUES (?, ?, ?, ?, 1)",
                (tool.key, server_id, spec, doc_hash),
            ).lastrowid
            assert tool_id is not None
        self._append(tool_id, server_id, doc.segments, vectors)
        self.tools[tool_id] = _Tool(tool_id, tool.key, tool.server)
        self._tools_changed = True

    def drop_tool(self, key: str) -> None:
        row = self.db.execute("SELECT id FROM tools WHERE key = ? AND live = 1", (key,)).fetchone()
        if row:
            self._retire_tool(row[0])
            self.db.execute("UPDATE tools SET live = 0 WHERE id = ?", (row[0],))
            self.tools.pop(row[0], None)
            self._tools_changed = True

    def _server_id(self, name: str, description: str | None = None) -> int:
        row = self.db.execute("SELECT id FROM servers WHERE name = ?", (name,)).fetchone()
        if row is None:
            server_id = self.db.execute(
                "INSERT INTO servers (name, description) VALUES (?, ?)", (name, description or "")
            ).lastrowid
            assert server_id is not None
            self.server_names[server_id] = name
            return server_id
        if description is not None:
            self.db.execute(
                "UPDATE servers SET description = ? WHERE id = ?", (description, row[0])
            )
        return int(row[0])

    def _retire_tool(self, tool_id: int) -> None:
        self._retire(
            self.db.execute("SELECT row FROM segments WHERE tool_id = ? AND live = 1", (tool_id,))
        )

    def _retire(self, rows: Iterator[tuple[int]]) -> None:
        retired = [row for (row,) in rows]
        if retired:
            self.db.executemany(
                "UPDATE segments SET live = 0 WHERE row = ?", [(r,) for r in retired]
            )
            self._owners[retired] = -1
            self._removed_rows += retired

    def _append(
        self, tool_id: int | None, server_id: int, segments: list[Segment], vectors: np.ndarray
    ) -> None:
        if len(segments) != len(vectors):
            raise ValueError(f"{len(segments)} segments but {len(vectors)} vectors")
        start = len(self.rows)
        self.db.executemany(
            "INSERT INTO segments VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
            [
                (start + i, tool_id, server_id, s.kind, s.origin, s.text, text_hash(s.text))
                for i, s in enumerate(segments)
            ],
        )
        self._grow(len(segments))
        self._owners[start : start + len(segments)] = (
            -1 if tool_id is None else tool_id,
            server_id,
        )
        self._count += len(segments)
        self._pending_rows.append(np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim))

    def _staged_vector(self, row: int) -> np.ndarray:
        offset = row - len(self.vectors)
        for block in self._pending_rows:
            if offset < len(block):
                return np.array(block[offset])
            offset -= len(block)
        raise KeyError(row)

    @property
    def dirty(self) -> bool:
        return bool(self._pending_rows or self._removed_rows or self._tools_changed)

    def commit(self) -> None:
        """Write staged vectors, row owners, the lexical and ANN indexes, then the metadata."""
        on_disk = len(self.vectors)
        new_rows = np.arange(on_disk, len(self.rows))
        if self._pending_rows:
            with (self.folder / "vectors.f32").open("ab") as handle:
                for block in self._pending_rows:
                    handle.write(np.ascontiguousarray(block, dtype=np.float32).tobytes())
                handle.flush()
                os.fsync(handle.fileno())
        staging = self.folder / "rows.new.npy"
        np.save(staging, self.rows)
        staging.replace(self.folder / "rows.npy")
        self.vectors = self._map_vectors(len(self.rows))
        if self._tools_changed:
            self._write_lexical()
        self._write_ann(new_rows)
        self.db.commit()
        self._pending_rows, self._removed_rows, self._tools_changed = [], [], False
        self._store = None

    def _write_lexical(self) -> None:
        ids, texts = [], []
        # A tool's words and its server's name: "open Bob's entry in memory" names the server.
        for tool_id, server, text in self.db.execute(
            "SELECT s.tool_id, v.name, group_concat(s.text, ' ') FROM segments s "
            "JOIN servers v ON v.id = s.server_id WHERE s.live = 1 AND s.tool_id IS NOT NULL "
            "GROUP BY s.tool_id"
        ):
            ids.append(tool_id)
            texts.append(f"{readable_name(server)} {text}")
        self._lexical = LexicalIndex.build(ids, texts)
        self._lexical.save(self.folder / "lexical")
        (self.folder / "lexical" / "version").write_text(str(LEXICAL_VERSION))

    def _write_ann(self, new_rows: np.ndarray) -> None:
        path = self.folder / "ann.faiss"
        live_rows = np.flatnonzero(self.rows[:, 1] >= 0)
        if len(live_rows) < self.ann_threshold:
            path.unlink(missing_ok=True)
            return
        changed = len(new_rows) + len(self._removed_rows)
        if path.exists() and changed < 0.1 * len(live_rows):
            ann = AnnStore.load(path, self.vectors, nprobe=self.nprobe)
            ann.remove(np.asarray(self._removed_rows, dtype=np.int64))
            ann.add(new_rows[self.rows[new_rows, 1] >= 0])
        else:
            ann = AnnStore.build(self.vectors, live_rows, nprobe=self.nprobe)
        ann.save(path)

    def close(self) -> None:
        self.db.close()

    def stats(self) -> dict[str, int]:
        return {
            "tools": len(self.tools),
            "servers": len({t.server for t in self.tools.values()}),
            "segments": self.segment_count,
            "rows_on_disk": len(self.rows),
        }
