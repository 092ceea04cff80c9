"""Structured LLM calls: JSON-schema constrained, validated, one repair, then a typed error."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolweave.errors import LLMError, StructuredOutputError
from toolweave.models.base import LLM, Message

REPAIR_PROMPT = (
    "Your answer was not valid for the required JSON schema:\n{problems}\n"
    "Answer again with only a JSON value that satisfies the schema, with no other text."
)


def schema_problems(value: Any, schema: dict[str, Any]) -> list[str]:
    """Human-readable validation errors of `value` against `schema` (empty when valid)."""
    validator = Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(value), key=lambda e: list(e.path)):
        where = "/".join(str(p) for p in error.path) or "(root)"
        problems.append(f"{where}: {error.message}")
    return problems


def parse_json(text: str) -> tuple[Any, list[str]]:
    """Parse an LLM's JSON answer, tolerating a Markdown code fence around it and raw line breaks
    or tabs inside strings (small models write them; strict JSON escapes them)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        return json.loads(body, strict=False), []
    except json.JSONDecodeError as exc:
        return None, [f"not JSON ({exc.msg} at character {exc.pos})"]


async def complete_json(
    llm: LLM,
    messages: Sequence[Message],
    schema: dict[str, Any],
    *,
    max_tokens: int | None = None,
    temperature: float | None = None,
    sampled: dict[str, Any] | None = None,
) -> Any:
    """Ask for JSON matching `schema`; return the parsed, validated value. `sampled`, a
    narrower schema (strings limited to a few choices), holds the model's sampling where the
    backend constrains it; the answer is still validated against `schema` alone, so a backend
    that does not constrain gives what it gives, for the caller to judge."""
    try:
        for each in (schema, sampled or schema):
            Draft202012Validator.check_schema(each)
    except SchemaError as exc:
        raise LLMError(f"the requested output schema is itself invalid: {exc.message}") from None
    history = list(messages)
    text = ""
    for attempt in range(2):
        completion = await llm.complete(
            history, schema=sampled or schema, max_tokens=max_tokens, temperature=temperature
        )
        text = completion.text
        value, problems = parse_json(text)
        if not problems:
            problems = schema_problems(value, schema)
        if not problems:
            return value
        if attempt == 0:
            history += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": REPAIR_PROMPT.format(problems="\n".join(problems))},
            ]
    raise StructuredOutputError(
        f"{llm.name} gave output that does not match the schema after one repair attempt: "
        + "; ".join(problems),
        output=text,
        problems=problems,
    )
