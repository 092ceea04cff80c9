"""The local provider over real files with the bundled embedder, and source-aware rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolweave.errors import ConfigError
from toolweave.grounding.providers.local import LocalProvider
from toolweave.grounding.records import SearchRequest, SearchResult
from toolweave.grounding.render import render_context, unknown_citations
from toolweave.models.onnx_embedder import OnnxEmbedder

from ..fakes import CountingEmbedder

pytestmark = pytest.mark.anyio
TIDES = "Tides are the rise and fall of sea levels caused by the gravity of the Moon and the Sun."
ARTICLES = [
    {"id": "tides", "title": "Tides", "url": "https://ocean.example.org/tides", "text": TIDES},
    {
        "id": "bees",
        "title": "Honey bees",
        "url": "https://insects.example.com/bees",
        "text": "Honey bees communicate the direction of flowers with a waggle dance.",
    },
    {
        "id": "rust",
        "title": "Rust",
        "text": "Iron rusts when it reacts with oxygen and water, forming iron oxide.",
        "published": "2024-05-01",
    },
]


@pytest.fixture(scope="module")
def bundled() -> OnnxEmbedder:
    return OnnxEmbedder()


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


async def test_a_jsonl_corpus_is_searched_and_persisted(tmp_path: Path, bundled) -> None:
    corpus = write_jsonl(tmp_path / "corpus.jsonl", ARTICLES)
    embedder = CountingEmbedder(bundled)
    provider = await LocalProvider.open(corpus, embedder, tmp_path / "state")
    results = await provider.search(SearchRequest(query="why does the sea level go up and down"))
    assert results[0].url == "https://ocean.example.org/tides"
    assert [r.rank for r in results] == [1, 2, 3] and results[0].provider == "local"
    rust = next(r for r in results if r.title == "Rust")
    assert rust.url == "local:rust" and rust.published == "2024-05-01"

    embedder.texts = 0
    again = await LocalProvider.open(corpus, embedder, tmp_path / "state")
    assert embedder.texts == 0  # loaded, not rebuilt
    assert await again.search(SearchRequest(query="waggle dance")) == await provider.search(
        SearchRequest(query="waggle dance")
    )

    write_jsonl(corpus, [*ARTICLES, {"title": "Volcanoes", "text": "Magma rises to the surface."}])
    changed = await LocalProvider.open(corpus, embedder, tmp_path / "state")
    assert len(changed.passages) == 4 and embedder.texts == 4 + 2  # rebuilt, then two queries


async def test_depth_and_domains(tmp_path: Path, bundled) -> None:
    provider = await LocalProvider.open(
        write_jsonl(tmp_path / "c.jsonl", ARTICLES), bundled, tmp_path
    )
    assert len(await provider.search(SearchRequest(query="nature", max_results=2))) == 2
    only = await provider.search(SearchRequest(query="nature", domains=["example.com"]))
    assert [r.title for r in only] == ["Honey bees"]


async def test_a_folder_of_documents(tmp_path: Path, bundled) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "garden.md").write_text("# Gardening\n\n## Roses\n\nPrune roses in late winter.\n")
    provider = await LocalProvider.open(docs, bundled, tmp_path / "state")
    [hit] = await provider.search(SearchRequest(query="when to prune roses", max_results=1))
    assert hit.title == "Gardening: Roses" and hit.url.endswith("garden.md#roses")
    assert hit.url.startswith("file://")


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json\n", "c.jsonl:1: expected a JSON object"), ('{"title": "no text"}\n', "text")],
)
async def test_a_bad_corpus_line_is_a_config_error(
    tmp_path: Path, bundled, content: str, message: str
) -> None:
    (tmp_path / "c.jsonl").write_text(content)
    with pytest.raises(ConfigError, match=message):
        await LocalProvider.open(tmp_path / "c.jsonl", bundled, tmp_path / "state")


async def test_a_missing_corpus_is_a_config_error(tmp_path: Path, bundled) -> None:
    with pytest.raises(ConfigError, match="neither a folder of documents nor a JSONL file"):
        await LocalProvider.open(tmp_path / "absent", bundled, tmp_path / "state")


def result(url: str, rank: int) -> SearchResult:
    return SearchResult(title=f"T{rank}", url=url, snippet="x " * 300, provider="p", rank=rank)


def test_rendered_context_numbers_results_with_stable_source_ids() -> None:
    results = [result("https://a.org/x", 1), result("https://b.org/y/", 2)]
    text = render_context(results, start=3)
    assert text.startswith("[3] T1 (") and "\n[4] T2 (" in text
    assert results[0].source_id in text and "https://b.org/y/" in text
    assert len(text.splitlines()[2]) < 420  # the snippet is clipped
    # The same page from another provider, or written with http:// or a trailing slash, has the
    # same id; a citation of anything else is unknown.
    assert result("http://b.org/y", 1).source_id == results[1].source_id
    assert unknown_citations([results[0].source_id, "s0000000000"], results) == ["s0000000000"]
