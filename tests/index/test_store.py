from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from toolweave.errors import ToolweaveError
from toolweave.index import IndexMismatchError, ToolIndex, sync_index
from toolweave.index.store import MIGRATIONS
from toolweave.types import Segment, ServerInfo, ToolDoc, ToolSpec

from ..fakes import HashingEmbedder

pytestmark = pytest.mark.anyio


def tool(server: str, name: str, description: str) -> ToolSpec:
    return ToolSpec(server=server, name=name, description=description)


TOOLS = [
    tool("weather", "get_forecast", "Weather forecast for a city for the next days."),
    tool("weather", "get_alerts", "Severe weather alerts such as storms and floods."),
    tool("files", "read_file", "Read a text file from disk."),
    tool("files", "write_file", "Write text to a file on disk."),
    tool("mail", "send_email", "Send an email message to a recipient."),
]


async def build(
    folder: Path, embedder: HashingEmbedder, tools: list[ToolSpec] = TOOLS
) -> ToolIndex:
    index = ToolIndex(folder, embedder_id=embedder.id, dim=embedder.dim)
    servers = [
        ServerInfo(name=s, description=f"{s} server") for s in sorted({t.server for t in tools})
    ]
    await sync_index(index, embedder, tools, servers)
    return index


async def test_maxsim_ranks_tools_and_reports_the_matching_segment(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    index = await build(tmp_path, embedder)
    (query,) = embedder.embed_sync(["read file from disk"])
    hits = index.search(query, 3)
    assert hits[0].key == "files.read_file"
    assert hits[0].segment and hits[0].origin in ("spec", "generated")
    assert len({h.key for h in hits}) == 3
    servers = index.search(query, 2, level="server")
    assert servers[0].key == "files" and servers[0].server == "files"


async def test_lexical_search(tmp_path: Path) -> None:
    index = await build(tmp_path, HashingEmbedder())
    assert index.search_text("storms and floods", 2)[0].key == "weather.get_alerts"
    assert index.search_text("the of and", 3) == []


async def test_the_lexical_index_knows_each_tools_server_and_is_rebuilt_when_older(
    tmp_path: Path,
) -> None:
    """ "open Bob's entry in memory" names the server; an index written before that is rebuilt
    from its stored segments when opened, without the embedder."""
    embedder = HashingEmbedder()
    index = await build(tmp_path, embedder)
    assert {h.key for h in index.search_text("mail", 5)} == {"mail.send_email"}
    index.close()
    (tmp_path / "lexical" / "version").write_text("1")
    reopened = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    assert [h.key for h in reopened.search_text("weather storms", 1)] == ["weather.get_alerts"]
    assert (tmp_path / "lexical" / "version").read_text() == "2"


async def test_reopened_index_gives_identical_results(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    first = await build(tmp_path, embedder)
    (query,) = embedder.embed_sync(["email a message"])
    before = first.search(query, 5)
    first.close()
    reopened = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    assert reopened.search(query, 5) == before
    assert reopened.search_text("email", 5) == first.search_text("email", 5)
    assert reopened.stats() == {
        "tools": 5,
        "servers": 3,
        "segments": first.segment_count,
        "rows_on_disk": len(first.rows),
    }


async def test_unchanged_tools_cost_nothing_and_one_change_re_embeds_only_it(
    tmp_path: Path,
) -> None:
    embedder = HashingEmbedder()
    index = await build(tmp_path, embedder)
    embedder.calls.clear()
    report = await sync_index(index, embedder, TOOLS)
    assert (report.unchanged, report.embedded, embedder.calls) == (5, 0, [])
    changed = [
        *TOOLS[:4],
        tool("mail", "send_email", "Send an email or a text message to someone."),
    ]
    report = await sync_index(index, embedder, changed)
    assert report.updated == ["mail.send_email"] and report.unchanged == 4
    sent = [text for call in embedder.calls for text in call]
    assert sent and all("send email" in t or "someone" in t or "text message" in t for t in sent)
    assert report.reused > 0  # its unchanged segments (e.g. topics words) keep their vectors


async def test_removed_tools_disappear_only_for_listed_servers(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    index = await build(tmp_path, embedder)
    report = await sync_index(index, embedder, [t for t in TOOLS if t.key != "files.write_file"])
    assert report.removed == ["files.write_file"]
    report = await sync_index(index, embedder, TOOLS[:1], prune_servers={"weather"})
    assert report.removed == ["weather.get_alerts"]  # files and mail were not listed: kept
    (query,) = embedder.embed_sync(["write text to a file"])
    assert "files.write_file" not in {h.key for h in index.search(query, 10)}
    assert len(index) == 3


async def test_a_removed_tool_can_come_back(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    index = await build(tmp_path, embedder)
    await sync_index(index, embedder, TOOLS[1:])
    embedder.calls.clear()
    report = await sync_index(index, embedder, TOOLS)
    assert report.added == ["weather.get_forecast"] and report.embedded == 0  # vectors reused


async def test_another_embedder_needs_a_rebuild(tmp_path: Path) -> None:
    (await build(tmp_path, HashingEmbedder())).close()
    with pytest.raises(IndexMismatchError, match="toolweave index --rebuild"):
        ToolIndex(tmp_path, embedder_id="other-model", dim=64)
    with pytest.raises(IndexMismatchError, match="dim 32"):
        ToolIndex(tmp_path, embedder_id=HashingEmbedder.id, dim=32)


def contents(index: ToolIndex) -> tuple:
    keys = sorted(index.doc_hashes())
    return (
        index.stats(),
        index.doc_hashes(),
        index.server_hashes(),
        [(index.tool_spec(key), index.segments_of(key)) for key in keys],
    )


def schema_version(folder: Path) -> int:
    with closing(sqlite3.connect(folder / "index.sqlite")) as db:
        return db.execute("PRAGMA user_version").fetchone()[0]


async def test_reopening_an_index_keeps_its_contents_and_schema(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    first = await build(tmp_path, embedder)
    before = contents(first)
    first.close()
    assert schema_version(tmp_path) == len(MIGRATIONS)
    for _ in range(2):  # the second open finds nothing to migrate either
        reopened = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
        assert contents(reopened) == before and before[0]["tools"] == len(TOOLS)
        reopened.close()
    assert schema_version(tmp_path) == len(MIGRATIONS)


async def test_an_index_from_a_newer_toolweave_must_be_rebuilt(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    (await build(folder, HashingEmbedder())).close()
    newer = len(MIGRATIONS) + 1
    with closing(sqlite3.connect(folder / "index.sqlite")) as db:
        db.execute(f"PRAGMA user_version = {newer}")
    with pytest.raises(IndexMismatchError) as info:
        ToolIndex(folder, embedder_id=HashingEmbedder.id, dim=HashingEmbedder.dim)
    assert isinstance(info.value, ToolweaveError)
    message = str(info.value)
    assert f"written by a newer toolweave (format {newer})" in message
    assert str(folder) in message and "`toolweave index --rebuild`" in message
    assert schema_version(folder) == newer  # left as it was, for the newer toolweave
    shutil.rmtree(folder)  # as `--rebuild` removes the index files
    assert len(ToolIndex(folder, embedder_id=HashingEmbedder.id, dim=64)) == 0


async def test_a_truncated_vector_file_is_reported(tmp_path: Path) -> None:
    (await build(tmp_path, HashingEmbedder())).close()
    with (tmp_path / "vectors.f32").open("r+b") as handle:
        handle.truncate(100)
    with pytest.raises(IndexMismatchError, match="fewer vectors"):
        ToolIndex(tmp_path, embedder_id=HashingEmbedder.id, dim=64)


def random_docs(
    count: int, segments: int, dim: int, seed: int = 0
) -> tuple[list[ToolDoc], list[np.ndarray]]:
    """Clustered like real embeddings: each tool's segments scatter around one of 40 topics."""
    rng = np.random.default_rng(seed)
    topics = rng.normal(size=(40, dim))
    docs, vectors = [], []
    for i in range(count):
        spec = ToolSpec(server=f"s{i % 50}", name=f"t{i}")
        docs.append(
            ToolDoc(
                tool=spec,
                segments=[
                    Segment(text=f"t{i} seg {j}", kind="query", origin="generated")
                    for j in range(segments)
                ],
            )
        )
        block = topics[i % 40] + 0.6 * rng.normal(size=(segments, dim))
        vectors.append((block / np.linalg.norm(block, axis=1, keepdims=True)).astype(np.float32))
    return docs, vectors


def test_ann_path_agrees_with_exact_search(tmp_path: Path) -> None:
    dim = 32
    docs, vectors = random_docs(2000, 5, dim)
    exact = ToolIndex(tmp_path / "exact", embedder_id="r", dim=dim, ann_threshold=10**9)
    ann = ToolIndex(tmp_path / "ann", embedder_id="r", dim=dim, ann_threshold=1000, nprobe=32)
    for index in (exact, ann):
        for doc, block in zip(docs, vectors, strict=True):
            index.put_tool(doc, block, "h")
        index.commit()
    assert (tmp_path / "ann" / "ann.faiss").exists() and not (
        tmp_path / "exact" / "ann.faiss"
    ).exists()
    overlap = []
    for query in [block[0] for block in vectors[:50]]:
        truth = [h.key for h in exact.search(query, 10)]
        found = ann.search(query, 10)
        overlap.append(len(set(truth) & {h.key for h in found}) / 10)
        truth_scores = {h.key: h.score for h in exact.search(query, 50)}
        # A found tool's score is one of its segments' exact scores: never above its true best.
        assert all(h.score <= truth_scores[h.key] + 1e-5 for h in found if h.key in truth_scores)
    assert np.mean(overlap) >= 0.95, np.mean(overlap)


def test_ann_index_follows_incremental_updates(tmp_path: Path) -> None:
    dim = 16
    docs, vectors = random_docs(400, 4, dim)
    index = ToolIndex(tmp_path, embedder_id="r", dim=dim, ann_threshold=100)
    for doc, block in zip(docs, vectors, strict=True):
        index.put_tool(doc, block, "h")
    index.commit()
    index.drop_tool("s0.t0")
    index.commit()
    query = vectors[0][0]
    assert "s0.t0" not in {h.key for h in index.search(query, 20)}
    index.put_tool(docs[0], vectors[0], "h2")
    index.commit()
    assert index.search(query, 1)[0].key == "s0.t0"


def _open_at_once(folder: str, barrier: Any) -> str:
    barrier.wait()
    try:
        ToolIndex(Path(folder), embedder_id="hash", dim=8).close()
    except Exception as exc:  # reported to the test, which names it
        return f"{type(exc).__name__}: {exc}"
    return ""


def test_processes_creating_one_new_index_at_once_all_open_it(tmp_path: Path) -> None:
    """`toolweave index --rebuild` run three times at once crashed one with "table meta already
    exists": creating the schema is done under the index's lock."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    workers = 6
    with context.Manager() as manager, context.Pool(workers) as pool:
        for round_ in range(4):
            barrier = manager.Barrier(workers)
            folder = str(tmp_path / f"index{round_}")
            errors = pool.starmap(_open_at_once, [(folder, barrier)] * workers)
            assert [e for e in errors if e] == []
