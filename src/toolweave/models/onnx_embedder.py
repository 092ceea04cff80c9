"""The embedded default embedder: all-MiniLM-L6-v2, int8 ONNX, run by onnxruntime."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from toolweave.errors import EmbedderError
from toolweave.models.base import normalize_rows
from toolweave.models.bundled import MINILM_ONNX, locate, minilm_tokenizer

# The sentence-transformers config of all-MiniLM-L6-v2 truncates at 256 word pieces.
MAX_TOKENS = 256


class OnnxEmbedder:
    """Mean pooling over the last hidden state, then L2 normalisation (as sentence-transformers)."""

    id = "all-MiniLM-L6-v2-onnx-int8"
    dim = 384

    def __init__(self, batch_size: int = 32, threads: int | None = None) -> None:
        self.batch_size = batch_size
        self.threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(minilm_tokenizer()))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()  # batches are padded here, after sorting by length
            options = ort.SessionOptions()
            options.log_severity_level = 3
            if self.threads:
                options.intra_op_num_threads = self.threads
            session = ort.InferenceSession(
                str(locate(MINILM_ONNX)), options, providers=["CPUExecutionProvider"]
            )
            self._input_names = {i.name for i in session.get_inputs()}
            self._tokenizer, self._session = tokenizer, session

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        """Blocking embedding; the async `embed` runs this in a worker thread."""
        if isinstance(texts, str):
            raise EmbedderError("embed() takes a list of texts, not a single string")
        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        # Batches of similar token counts: padding is compute spent on nothing (the cost here
        # grows with padded tokens, so a 130-token text batched with short ones multiplies it).
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for chunk in _similar_lengths(order, [len(e.ids) for e in encodings], self.batch_size):
            out[chunk] = self._embed_batch([encodings[i].ids for i in chunk])
        return out

    def _embed_batch(self, token_ids: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in token_ids)
        ids = np.zeros((len(token_ids), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalize_rows(pooled)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return await asyncio.to_thread(self.embed_sync, list(texts))


def _similar_lengths(order: list[int], lengths: list[int], size: int) -> list[list[int]]:
    """Consecutive runs of `order` (sorted by length), at most `size` long, in which the longest
    text is at most a quarter (plus 8 tokens) longer than the shortest."""
    chunks: list[list[int]] = []
    for i in order:
        chunk = chunks[-1] if chunks else None
        if chunk and len(chunk) < size and lengths[i] <= 1.25 * lengths[chunk[0]] + 8:
            chunk.append(i)
        else:
            chunks.append([i])
    return chunks
