"""Planning search over a real gateway (local provider on a JSONL corpus, bundled embedder)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from toolweave.grounding.gateway import SearchGateway
from toolweave.grounding.providers.local import LocalProvider
from toolweave.grounding.search_loop import planning_search
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.models.openai_http import OpenAIChat, OpenAIHTTP

from ..models.openai_server import OpenAIServer, chat_reply

pytestmark = pytest.mark.anyio
ALBUM = "Counterparts is the fifteenth studio album by the Canadian rock band Rush, from 1993."
DRUMMER = "Neil Peart was the drummer and lyricist of Rush. He entered the Hall of Fame in 1983."
CORPUS = [
    ("Counterparts (album)", ALBUM),
    ("Neil Peart", DRUMMER),
    ("Lake Louise", "Lake Louise is a glacial lake in Banff National Park in Alberta, Canada."),
    ("Maple syrup", "Maple syrup is made from the sap of sugar maple trees, mostly in Quebec."),
]
QUESTION = "Who was the drummer of the band that released the album Counterparts?"


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


async def open_gateway(
    tmp_path: Path, embedder: OnnxEmbedder, paragraphs: list[tuple[str, str]]
) -> SearchGateway:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"title": t, "text": x, "url": f"local:{t}"}) + "\n" for t, x in paragraphs
        )
    )
    local = await LocalProvider.open(corpus, embedder, tmp_path / "state")
    return SearchGateway({"local": local}, {"web": ["local"]})


@pytest.fixture
async def gateway(tmp_path: Path, embedder: OnnxEmbedder) -> AsyncIterator[SearchGateway]:
    running = await open_gateway(tmp_path, embedder, CORPUS)
    yield running
    await running.aclose()


async def test_a_second_round_follows_the_bridge_entity(
    gateway: SearchGateway, embedder: OnnxEmbedder
) -> None:
    trail = await planning_search(QUESTION, gateway, embedder, per_round=1, max_rounds=3)
    # The band the question describes is named, then the question is asked of it.
    assert trail.queries == [QUESTION, "Who was the drummer of Rush?"]
    assert [b.text for b in trail.bridges] == ["Rush"] and trail.question == trail.queries[1]
    assert trail.short is not None and trail.short.text == "Neil Peart"
    assert trail.stopped == "the answer's evidence covers the question"
    assert [r.url for r in trail.results][:2] == ["local:Counterparts (album)", "local:Neil Peart"]
    assert any("Neil Peart was the drummer" in e.sentence for e in trail.evidence)


async def test_an_llm_decides_when_the_evidence_suffices(
    gateway: SearchGateway, embedder: OnnxEmbedder
) -> None:
    with OpenAIServer() as server:
        server.add(
            "/v1/chat/completions",
            chat_reply('{"sufficient": false, "next_query": "Rush drummer"}'),
        )
        server.add("/v1/chat/completions", chat_reply('{"sufficient": true, "next_query": ""}'))
        llm = OpenAIChat(OpenAIHTTP(server.base_url, backoff_s=0.01, timeout_s=5), "m")
        trail = await planning_search(QUESTION, gateway, embedder, llm, per_round=1)
    # The described band is named first (no LLM needed), then the LLM leads the search.
    assert trail.queries == [QUESTION, "Who was the drummer of Rush?", "Rush drummer"]
    assert trail.stopped == "the evidence suffices"
    assert "Counterparts is the fifteenth" in server.requests[0][2]["messages"][-1]["content"]


async def test_of_two_likely_bridges_the_one_whose_question_is_answered(
    tmp_path: Path, embedder: OnnxEmbedder
) -> None:
    album = (
        "Northern Lights is a 1990 album by the band Ice Harbor and Frost Line, who released it."
    )
    paragraphs = [
        ("Northern Lights (album)", album),
        ("Frost Line", "Frost Line is a band from Oslo. Its drummer was Tom Vale."),
        ("Ice Harbor", "Ice Harbor is a band from Bergen known for long tours."),
    ]
    question = "Who was the drummer of the band that released the album Northern Lights?"
    gateway = await open_gateway(tmp_path, embedder, paragraphs)
    try:
        trail = await planning_search(question, gateway, embedder, per_round=1, max_rounds=3)
    finally:
        await gateway.aclose()
    # Ice Harbor reads as the likelier band, but only Frost Line's question has an answer.
    assert [b.text for b in trail.bridges] == ["Frost Line"]
    assert trail.short is not None and trail.short.text == "Tom Vale"
