"""Abstractive answers against the OpenAI wire format (local server): citations are checked
against the run's sources; output contracts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from toolweave.answer.abstractive import (
    check_citations,
    choose_short,
    json_answer,
    without_citations,
    write_answer,
    write_short,
)
from toolweave.errors import InputError, StructuredOutputError
from toolweave.grounding.reader import Reading, Short
from toolweave.models.openai_http import OpenAIChat, OpenAIHTTP
from toolweave.types import Source

from ..models.openai_server import OpenAIServer, chat_reply

pytestmark = pytest.mark.anyio
CHAT = "/v1/chat/completions"
SOURCES = [
    Source(id=1, kind="tool", title="calc.percentage", snippet="15% of 2,340 = 351"),
    Source(id=2, kind="document", title="Tokyo", snippet="Tokyo is the capital of Japan."),
]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as running:
        yield running


def llm(server: OpenAIServer) -> OpenAIChat:
    return OpenAIChat(OpenAIHTTP(server.base_url, backoff_s=0.01, timeout_s=5), "test-model")


async def test_a_citation_of_no_source_of_this_run_is_removed_and_reported(
    server: OpenAIServer,
) -> None:
    server.add(CHAT, chat_reply("It is 351 [1]. Tokyo is in Japan [2, 7]. Water is wet [9]."))
    text, removed = await write_answer("15% of 2340, and where is Tokyo?", SOURCES, llm(server))
    assert text == "It is 351 [1]. Tokyo is in Japan [2]. Water is wet."
    assert removed == ["[7] is not a source of this run", "[9] is not a source of this run"]
    prompt = server.requests[0][2]["messages"][1]["content"]
    assert "[1] calc.percentage: 15% of 2,340 = 351" in prompt and "[2] Tokyo:" in prompt


def test_answer_only_drops_the_citations() -> None:
    assert without_citations("It is 351 [1]. Tokyo is in Japan [1, 2].") == (
        "It is 351. Tokyo is in Japan."
    )
    assert check_citations("No sources at all.", set()) == ("No sources at all.", [])


async def test_a_json_answer_follows_the_caller_s_schema(server: OpenAIServer) -> None:
    schema = {
        "type": "object",
        "properties": {"result": {"type": "number"}, "city": {"type": "string"}},
        "required": ["result", "city"],
        "additionalProperties": False,
    }
    server.add(CHAT, chat_reply('{"result": "many"}'))  # invalid: repaired once
    server.add(CHAT, chat_reply('{"result": 351, "city": "Tokyo"}'))
    value = await json_answer("15% of 2340, and where?", SOURCES, llm(server), schema)
    assert value == {"result": 351, "city": "Tokyo"}
    first = server.requests[0][2]
    assert first["response_format"]["json_schema"]["schema"] == schema
    assert (
        "not valid for the required JSON schema" in server.requests[1][2]["messages"][-1]["content"]
    )


async def test_a_json_answer_that_stays_invalid_is_a_typed_error(server: OpenAIServer) -> None:
    server.add(CHAT, chat_reply("not json"))
    server.add(CHAT, chat_reply('{"result": 1}'))
    schema = {"type": "object", "required": ["city"]}
    with pytest.raises(StructuredOutputError):
        await json_answer("where?", SOURCES, llm(server), schema)
    with pytest.raises(InputError, match="must be a JSON object"):
        await json_answer("where?", SOURCES, llm(server), {})


EVIDENCE = [
    ("Van Hook Township is a township in Mountrail County, North Dakota.", 1),
    ("Its seat is Stanley.", 2),
]


@pytest.mark.parametrize(
    ("reply", "question", "read"),
    [
        # Kept as the evidence writes it, cited to its sentence after the other source's.
        ('{"answer": "stanley"}', "What is the county seat?", ("Stanley", 2, EVIDENCE)),
        (
            '{"answer": "Mountrail  County"}',
            "Which county?",
            ("Mountrail County", 1, EVIDENCE[::-1]),
        ),
        # Yes or no answers a yes-or-no question only.
        ('{"answer": "Yes."}', "Is Van Hook in North Dakota?", ("yes", 1, EVIDENCE[:1])),
        ('{"answer": "yes"}', "Which county?", None),
        # An answer in no sentence is the model's, not the evidence's: refused.
        ('{"answer": "Bismarck"}', "What is the county seat?", None),
    ],
)
async def test_a_short_answer_is_kept_only_when_the_evidence_holds_it(
    server: OpenAIServer, reply: str, question: str, read: tuple[str, int, list[Any]] | None
) -> None:
    server.add(CHAT, chat_reply(reply))
    short = await write_short(question, EVIDENCE, llm(server))
    assert (short and (short.text, short.source, short.chain)) == read
    prompt = server.requests[0][2]["messages"][1]["content"]
    assert "[2] Its seat is Stanley." in prompt


async def test_the_llm_chooses_among_the_readers_answers(server: OpenAIServer) -> None:
    stanley = Short("Stanley", 2, EVIDENCE)
    county = Short("Mountrail County", 1, EVIDENCE[:1])
    reading = Reading(county, EVIDENCE, [county, stanley])
    server.add(CHAT, chat_reply('{"answer": "Stanley"}'))
    assert await choose_short("What is the seat of the county?", reading, llm(server)) == stanley
    request = server.requests[0][2]
    # The answer is one of the reader's: a JSON enum the model's grammar is held to.
    assert request["response_format"]["json_schema"]["schema"]["properties"]["answer"] == {
        "enum": ["Mountrail County", "Stanley"]
    }
    assert "- Stanley" in request["messages"][1]["content"]
