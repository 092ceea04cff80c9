from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from toolweave.errors import EmbedderError, LLMRequestError, StructuredOutputError
from toolweave.models import complete_json
from toolweave.models.openai_http import OpenAIChat, OpenAIEmbedder, OpenAIHTTP

from .openai_server import OpenAIServer, Reply, chat_reply, stream_reply

pytestmark = pytest.mark.anyio
CHAT = "/v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def chat(server: OpenAIServer, **kwargs: object) -> OpenAIChat:
    http = OpenAIHTTP(server.base_url, backoff_s=0.01, timeout_s=5, **kwargs)  # type: ignore[arg-type]
    return OpenAIChat(http, "test-model")


async def test_completion_records_usage_and_sends_the_key(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-test")
    server.add(CHAT, chat_reply("hello", prompt_tokens=9, completion_tokens=2))
    llm = chat(server, api_key_env="TEST_KEY")
    completion = await llm.complete(MESSAGES)
    assert completion.text == "hello"
    assert (llm.usage.prompt_tokens, llm.usage.completion_tokens, llm.usage.requests) == (9, 2, 1)
    _, headers, body = server.requests[0]
    assert headers["Authorization"] == "Bearer sk-test"
    assert body["model"] == "test-model" and body["messages"] == MESSAGES


async def test_streaming_yields_the_pieces_in_order(server: OpenAIServer) -> None:
    server.add(CHAT, stream_reply(["Hel", "lo", " world"]))
    llm = chat(server)
    pieces = [piece async for piece in llm.stream(MESSAGES)]
    assert pieces == ["Hel", "lo", " world"]
    assert server.requests[0][2]["stream"] is True
    assert llm.usage.completion_tokens == 3


async def test_429_then_success_is_retried(server: OpenAIServer) -> None:
    server.add(
        CHAT,
        Reply(status=429, json={"error": "slow down"}, headers={"Retry-After": "0"}),
        chat_reply("ok"),
    )
    assert (await chat(server).complete(MESSAGES)).text == "ok"
    assert len(server.requests) == 2


async def test_persistent_5xx_gives_up_with_a_clear_error(server: OpenAIServer) -> None:
    server.add(CHAT, *[Reply(status=503, json={"error": "down"})] * 3)
    with pytest.raises(LLMRequestError, match=r"HTTP 503 \(after 3 attempts\)"):
        await chat(server, max_retries=2).complete(MESSAGES)


async def test_4xx_is_not_retried(server: OpenAIServer) -> None:
    server.add(CHAT, Reply(status=400, json={"error": "bad model"}))
    with pytest.raises(LLMRequestError, match="HTTP 400"):
        await chat(server).complete(MESSAGES)
    assert len(server.requests) == 1


async def test_malformed_body_is_a_typed_error(server: OpenAIServer) -> None:
    server.add(CHAT, Reply(raw=b"<html>oops</html>"))
    with pytest.raises(LLMRequestError, match="not JSON"):
        await chat(server).complete(MESSAGES)
    server.add(CHAT, Reply(json={"choices": []}))
    with pytest.raises(LLMRequestError, match="no choices"):
        await chat(server).complete(MESSAGES)


async def test_unreachable_server_is_a_typed_error() -> None:
    http = OpenAIHTTP("http://127.0.0.1:9/v1", max_retries=1, backoff_s=0.01, timeout_s=2)
    with pytest.raises(LLMRequestError, match="cannot reach"):
        await OpenAIChat(http, "m").complete(MESSAGES)


SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


async def test_structured_output_sends_the_schema_and_repairs_once(server: OpenAIServer) -> None:
    server.add(CHAT, chat_reply('{"town": "Paris"}'), chat_reply('{"city": "Paris"}'))
    value = await complete_json(chat(server), MESSAGES, SCHEMA)
    assert value == {"city": "Paris"}
    first = server.requests[0][2]
    assert first["response_format"]["json_schema"]["schema"] == SCHEMA
    repair = server.requests[1][2]["messages"]
    assert "'city' is a required property" in repair[-1]["content"]


async def test_structured_output_still_invalid_after_repair_raises(server: OpenAIServer) -> None:
    server.add(CHAT, chat_reply("not json"), chat_reply('{"city": 3}'))
    with pytest.raises(StructuredOutputError) as info:
        await complete_json(chat(server), MESSAGES, SCHEMA)
    assert info.value.output == '{"city": 3}'
    assert any("is not of type 'string'" in p for p in info.value.problems)


async def test_embeddings_are_ordered_and_normalised(server: OpenAIServer) -> None:
    server.add(
        "/v1/embeddings",
        Reply(
            json={
                "data": [
                    {"index": 1, "embedding": [0.0, 2.0]},
                    {"index": 0, "embedding": [3.0, 4.0]},
                ]
            }
        ),
    )
    embedder = OpenAIEmbedder(OpenAIHTTP(server.base_url, error=EmbedderError), "e")
    vectors = await embedder.embed(["a", "b"])
    assert np.allclose(vectors, [[0.6, 0.8], [0.0, 1.0]])
    assert embedder.dim == 2


async def test_embeddings_count_mismatch_is_an_error(server: OpenAIServer) -> None:
    server.add("/v1/embeddings", Reply(json={"data": [{"index": 0, "embedding": [1.0]}]}))
    embedder = OpenAIEmbedder(OpenAIHTTP(server.base_url, error=EmbedderError), "e")
    with pytest.raises(EmbedderError, match="1 vectors for 2 texts"):
        await embedder.embed(["a", "b"])
