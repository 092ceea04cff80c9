"""Vector search over segment rows: exact (numpy) or approximate (faiss IVF, 8-bit), one API.

Both return the rows with the highest inner product with the query among the live rows. The
approximate store re-scores its candidates exactly from the stored vectors, so its scores are the
exact ones and only its recall can differ.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import numpy as np

Found = tuple[np.ndarray, np.ndarray]  # (rows, scores), best first


class VectorStore(Protocol):
    def search_many(self, queries: np.ndarray, k: int) -> list[Found]:
        """For each query (one per row of `queries`), the k best live rows and their scores."""
        ...


_NOTHING: Found = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32))


class ExactStore:
    """Scores every live row: a matrix-vector product over the memory-mapped vectors."""

    def __init__(self, vectors: np.ndarray, live: np.ndarray) -> None:
        self.vectors = vectors
        self.live = live

    def search_many(self, queries: np.ndarray, k: int) -> list[Found]:
        k = min(k, int(self.live.sum()))
        if len(self.vectors) == 0 or k <= 0:
            return [_NOTHING] * len(queries)
        # One pass over the (memory-mapped) vectors for all queries.
        matrix = np.asarray(self.vectors @ queries.T, dtype=np.float32)
        matrix[~self.live] = -np.inf
        found = []
        for scores in matrix.T:
            top = np.argpartition(-scores, k - 1)[:k]
            order = top[np.argsort(-scores[top], kind="stable")]
            found.append((order.astype(np.int64), scores[order]))
        return found


class AnnStore:
    """faiss IVF with an 8-bit scalar quantiser; candidates re-scored exactly."""

    def __init__(
        self, index: Any, vectors: np.ndarray, *, nprobe: int, oversample: int = 4
    ) -> None:
        self.index = index
        self.index.nprobe = nprobe
        self.vectors = vectors
        self.oversample = oversample

    @classmethod
    def build(cls, vectors: np.ndarray, rows: np.ndarray, *, nprobe: int) -> AnnStore:
        import faiss

        dim = vectors.shape[1]
        # faiss wants 39 training points per list; 4 * sqrt(n) lists keeps lists near sqrt(n)/4.
        nlist = max(1, int(min(4 * np.sqrt(len(rows)), len(rows) / 39, 8192)))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, dim, nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        rng = np.random.default_rng(0)
        sample = rows if len(rows) <= 64 * nlist else rng.choice(rows, 64 * nlist, replace=False)
        index.train(np.ascontiguousarray(vectors[np.sort(sample)], dtype=np.float32))
        for start in range(0, len(rows), 100_000):
            chunk = rows[start : start + 100_000]
            index.add_with_ids(np.ascontiguousarray(vectors[chunk], dtype=np.float32), chunk)
        return cls(index, vectors, nprobe=nprobe)

    @classmethod
    def load(cls, path: Path, vectors: np.ndarray, *, nprobe: int) -> AnnStore:
        import faiss

        return cls(faiss.read_index(str(path)), vectors, nprobe=nprobe)

    def save(self, path: Path) -> None:
        import faiss

        faiss.write_index(self.index, str(path))

    def search_many(self, queries: np.ndarray, k: int) -> list[Found]:
        return [self._search(query, k) for query in queries]

    def _search(self, query: np.ndarray, k: int) -> Found:
        wanted = max(k * self.oversample, 64)
        _, found = self.index.search(query.reshape(1, -1).astype(np.float32), wanted)
        rows = found[0][found[0] >= 0]
        if len(rows) == 0:
            return _NOTHING
        ordered = np.sort(rows)  # sorted reads are kinder to a memory map
        scores = np.asarray(self.vectors[ordered] @ query, dtype=np.float32)
        best = np.argsort(-scores, kind="stable")[:k]
        return ordered[best].astype(np.int64), scores[best]

    def remove(self, rows: np.ndarray) -> None:
        if len(rows):
            self.index.remove_ids(np.asarray(rows, dtype=np.int64))

    def add(self, rows: np.ndarray) -> None:
        if len(rows):
            self.index.add_with_ids(
                np.ascontiguousarray(self.vectors[rows], dtype=np.float32), rows
            )
