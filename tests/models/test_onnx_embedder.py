from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from toolweave.errors import EmbedderError
from toolweave.models.onnx_embedder import OnnxEmbedder

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text())


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder(batch_size=4)


def test_matches_the_fp32_reference(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed_sync(REFERENCE["sentences"])
    reference = np.array(REFERENCE["vectors"], dtype=np.float32)
    cosine = (vectors * reference).sum(axis=1)
    assert cosine.min() > 0.99, cosine  # int8 weights: measured 0.9995 or better


def test_similar_sentences_score_above_unrelated_ones(embedder: OnnxEmbedder) -> None:
    a, b, c, d = embedder.embed_sync(
        [
            "What time is it in Tokyo?",
            "Tell me the current time in Japan.",
            "How many calories are in an apple?",
            "Convert 5 kilometres to miles.",
        ]
    )
    assert a @ b > a @ c + 0.2
    assert a @ b > a @ d + 0.2


def test_vectors_are_unit_length_and_independent_of_batching(embedder: OnnxEmbedder) -> None:
    texts = [f"sentence number {i} " * (i % 7 + 1) for i in range(11)]
    batched = embedder.embed_sync(texts)
    single = np.vstack([embedder.embed_sync([t]) for t in texts])
    assert batched.shape == (11, 384) and batched.dtype == np.float32
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert np.allclose(batched, single, atol=1e-4)


def test_long_text_is_truncated_not_rejected(embedder: OnnxEmbedder) -> None:
    vector = embedder.embed_sync(["word " * 5000])
    assert vector.shape == (1, 384)


def test_empty_input_and_wrong_type(embedder: OnnxEmbedder) -> None:
    assert embedder.embed_sync([]).shape == (0, 384)
    with pytest.raises(EmbedderError, match="list of texts"):
        embedder.embed_sync("a string")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_async_embed_runs_off_the_event_loop(embedder: OnnxEmbedder) -> None:
    vectors = await embedder.embed(["hello"])
    assert vectors.shape == (1, 384)
