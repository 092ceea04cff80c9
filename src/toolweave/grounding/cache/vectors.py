"""What both cache backends keep of the query vectors: each scope's vectors in memory, as one
matrix a semantic lookup multiplies once (`ScopeVectors`), and the float32 bytes they are stored
as (`encode_vector`, `decode_vector`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

# Semantic candidates above the threshold that the guard may look at, best first.
_CANDIDATES = 8


class ScopeVectors:
    """One scope's vectors in memory: a lookup is one matrix product, not a table scan."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._rows: dict[str, int] = {}
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._expires = np.zeros(0)
        # Sync state kept by the backend: the last row or sequence number read, and when.
        self.seen = 0
        self.version: object = None
        self.next_sweep = -math.inf

    def upsert(self, key: str, vector: np.ndarray, expires: float) -> None:
        row = self._rows.get(key)
        if row is None:
            row = len(self.keys)
            if row == len(self._matrix):
                self._resize(max(64, 2 * row), len(vector))
            self.keys.append(key)
            self._rows[key] = row
        self._matrix[row] = vector
        self._expires[row] = expires

    def nearest(self, vector: np.ndarray, now: float, minimum: float) -> list[tuple[str, float]]:
        count = len(self.keys)
        if count == 0:
            return []
        similarities = self._matrix[:count] @ vector
        similarities[self._expires[:count] <= now] = -np.inf
        above = np.flatnonzero(similarities >= minimum)
        best = above[np.argsort(-similarities[above], kind="stable")[:_CANDIDATES]]
        return [(self.keys[i], float(similarities[i])) for i in best]

    def remove(self, now: float, keys: Iterable[str] = ()) -> list[str]:
        """Drops the expired rows and `keys`; returns the keys dropped."""
        gone, count = set(keys), len(self.keys)
        keep = (self._expires[:count] > now) & np.array([k not in gone for k in self.keys], bool)
        dropped = [key for key, kept in zip(self.keys, keep.tolist(), strict=True) if not kept]
        if dropped:
            self._matrix, self._expires = self._matrix[:count][keep], self._expires[:count][keep]
            self.keys = [key for key, kept in zip(self.keys, keep.tolist(), strict=True) if kept]
            self._rows = {key: row for row, key in enumerate(self.keys)}
        return dropped

    def _resize(self, capacity: int, dim: int) -> None:
        count = len(self.keys)
        matrix, expires = np.zeros((capacity, dim), np.float32), np.zeros(capacity)
        if count:
            matrix[:count], expires[:count] = self._matrix[:count], self._expires[:count]
        self._matrix, self._expires = matrix, expires


def encode_vector(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


def decode_vector(blob: bytes, offset: int = 0) -> np.ndarray:
    """The vector `encode_vector` wrote, starting `offset` bytes into `blob`."""
    return np.frombuffer(blob, dtype=np.float32, offset=offset)
