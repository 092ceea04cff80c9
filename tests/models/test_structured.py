"""complete_json against an in-memory LLM that answers from a script (the protocol's fake)."""

from __future__ import annotations

import pytest

from toolweave.errors import LLMError, LLMUnavailableError, StructuredOutputError
from toolweave.models import LLM, NoLLM, complete_json

from ..fakes import ScriptedLLM

pytestmark = pytest.mark.anyio
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
    "additionalProperties": False,
}


def test_fakes_and_none_satisfy_the_protocol() -> None:
    assert isinstance(ScriptedLLM(), LLM) and isinstance(NoLLM(), LLM)


async def test_valid_first_answer_needs_one_call() -> None:
    llm = ScriptedLLM('{"n": 3}')
    assert await complete_json(llm, [], SCHEMA) == {"n": 3}
    assert len(llm.calls) == 1


async def test_code_fences_are_tolerated() -> None:
    assert await complete_json(ScriptedLLM('```json\n{"n": 1}\n```'), [], SCHEMA) == {"n": 1}


async def test_one_repair_with_the_validation_errors() -> None:
    llm = ScriptedLLM('{"n": -1}', '{"n": 2}')
    assert await complete_json(llm, [{"role": "user", "content": "q"}], SCHEMA) == {"n": 2}
    repair = llm.calls[1]
    assert repair[1] == {"role": "assistant", "content": '{"n": -1}'}
    assert "minimum of 0" in repair[2]["content"]


async def test_garbage_twice_is_a_typed_error() -> None:
    with pytest.raises(StructuredOutputError, match="after one repair attempt") as info:
        await complete_json(ScriptedLLM("I think n is three", '{"n": "three"}'), [], SCHEMA)
    assert info.value.output == '{"n": "three"}'


async def test_invalid_schema_is_reported_before_calling() -> None:
    llm = ScriptedLLM()
    with pytest.raises(LLMError, match="schema is itself invalid"):
        await complete_json(llm, [], {"type": "no-such-type"})
    assert llm.calls == []


async def test_none_backend_says_no_llm_is_configured() -> None:
    with pytest.raises(LLMUnavailableError, match="no LLM is configured"):
        await complete_json(NoLLM(), [], SCHEMA)


async def test_raw_line_breaks_inside_strings_are_tolerated() -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    assert await complete_json(ScriptedLLM('{"text": "a\nb"}'), [], schema) == {"text": "a\nb"}
