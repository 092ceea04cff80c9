"""The embedded backend with the bundled SmolLM2-135M GGUF, run for real by llama.cpp."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.models import complete_json, make_llm
from toolweave.models.llama_embedded import EmbeddedLLM, embedded_available
from toolweave.models.structured import schema_problems
from toolweave.settings import LLMSettings

pytestmark = [pytest.mark.anyio, pytest.mark.embedded_llm]

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city", "days", "unit"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def llm() -> EmbeddedLLM:
    assert embedded_available() is None, embedded_available()
    return EmbeddedLLM(max_tokens=64)


def test_auto_backend_picks_the_embedded_model() -> None:
    assert make_llm(LLMSettings()).name == "embedded:SmolLM2-135M-Instruct"


async def test_grammar_constrained_output_is_schema_valid(llm: EmbeddedLLM) -> None:
    messages = [
        {"role": "system", "content": "Reply with JSON only."},
        {"role": "user", "content": "Weather forecast for Paris for the next 3 days in celsius."},
    ]
    value = await complete_json(llm, messages, SCHEMA)
    assert schema_problems(value, SCHEMA) == []
    assert llm.usage.requests >= 1 and llm.usage.prompt_tokens > 10


async def test_unconstrained_completion_and_streaming(llm: EmbeddedLLM) -> None:
    messages = [{"role": "user", "content": "Say hello."}]
    completion = await llm.complete(messages, max_tokens=8)
    assert completion.text.strip() and completion.usage.completion_tokens > 0
    pieces = [piece async for piece in llm.stream(messages, max_tokens=8)]
    assert len(pieces) > 1 and "".join(pieces).strip()


async def test_a_configured_local_gguf_path_is_used(tmp_path: Path) -> None:
    from toolweave.models.bundled import SMOLLM2_GGUF, locate

    copy = tmp_path / "model.gguf"
    copy.symlink_to(locate(SMOLLM2_GGUF))
    llm = EmbeddedLLM(str(copy), max_tokens=4)
    assert llm.name == "embedded:model.gguf"
    assert (await llm.complete([{"role": "user", "content": "Hi"}])).usage.requests == 1


async def test_a_model_that_is_neither_file_nor_hub_id_is_a_clear_error() -> None:
    from toolweave.errors import ModelFileError

    with pytest.raises(ModelFileError, match="neither a GGUF file nor a hub id"):
        await EmbeddedLLM("./missing.gguf").complete([{"role": "user", "content": "Hi"}])
