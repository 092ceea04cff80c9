"""Argument filling for the step agent: the clause's values bound first (language/binding.py),
the LLM for the required parameters they leave, then the schema decides (types coerced,
validated with jsonschema).

Each argument records its origin ("plan" for one the plan gave, "extracted", "question" for a
search given the clause's own words, or "llm") so a trace shows who chose it.
"""

from __future__ import annotations

import json
from typing import Any

from toolweave.catalog.documents import describe_parameters
from toolweave.errors import LLMError
from toolweave.language.binding import Filled, extract_arguments
from toolweave.language.parameters import adds_things, json_type
from toolweave.language.text import readable_name
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json, schema_problems
from toolweave.prompts import load_prompt
from toolweave.types import Clause, Problem, ProblemKind, ToolSpec


async def fill_arguments(
    tool: ToolSpec, clause: Clause, llm: LLM, *, given: dict[str, Any] | None = None
) -> Filled:
    """Arguments for `tool` to serve `clause`: valid for its input schema, or with a problem.
    `given` arguments (the plan's, earlier results filled in) win over what is extracted."""
    schema = tool.input_schema
    filled = extract_arguments(schema, clause)
    for name, value in (given or {}).items():
        filled.put(name, value, "plan")
    missing = [n for n in schema.get("required") or [] if n not in filled.arguments]
    if missing:
        await _fill_with_llm(tool, clause.text, llm, missing, filled)
    _coerce(filled.arguments, schema.get("properties") or {})
    if problems := schema_problems(filled.arguments, schema):
        text = "arguments do not fit the tool's schema: " + "; ".join(problems)
        filled.problem = Problem(kind=ProblemKind.ARGUMENTS, text=text)
    elif empty := _nothing_to_create(tool, filled.arguments):
        # create_entities(entities=[]) "succeeds" having created nothing: no call at all.
        text = f"{tool.key} would create nothing: {empty} is empty"
        filled.problem = Problem(kind=ProblemKind.ARGUMENTS, text=text)
    return filled


def _nothing_to_create(tool: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """The required list argument a tool that adds things was given empty, if any."""
    if not adds_things(tool.name):
        return None
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return next(
        (
            name
            for name in required
            if json_type(properties.get(name, {})) == "array" and arguments.get(name) == []
        ),
        None,
    )


async def _fill_with_llm(
    tool: ToolSpec, text: str, llm: LLM, missing: list[str], filled: Filled
) -> None:
    properties = tool.input_schema.get("properties") or {}
    sub_schema = {
        "type": "object",
        "properties": {n: properties.get(n, {}) for n in missing},
        "required": missing,
        "additionalProperties": False,
    }
    messages = load_prompt("fill_arguments").messages(
        tool=tool.name,
        description=tool.description or readable_name(tool.name),
        request=text,
        known=json.dumps(filled.arguments),
        parameters=describe_parameters(sub_schema),
    )
    try:
        values = await complete_json(llm, messages, sub_schema)
    except LLMError as exc:
        filled.llm_error = str(exc)
        return
    for name in missing:
        if name in values:
            filled.put(name, values[name], "llm")


def _coerce(arguments: dict[str, Any], properties: dict[str, Any]) -> None:
    """Convert values to the declared JSON type where that is lossless ('15' -> 15)."""
    for name, value in arguments.items():
        kind = json_type(properties.get(name, {}))
        try:
            if kind == "number" and isinstance(value, str):
                arguments[name] = float(value.replace(",", ""))
            elif kind == "integer" and isinstance(value, (str, float)):
                number = float(str(value).replace(",", ""))
                if number.is_integer():
                    arguments[name] = int(number)
            elif (
                kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool)
            ):
                arguments[name] = str(value)
        except ValueError:
            continue  # left as it is: validation reports it
