"""Tool documents: the text a tool is found by (its readable name, description, parameters)."""

from __future__ import annotations

import re
from typing import Any

from toolweave.types import ToolSpec


def readable_name(name: str) -> str:
    """'getWeatherForecast' / 'get_weather-forecast' -> 'get weather forecast'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_\-./]+", " ", name)
    return re.sub(r"\s+", " ", spaced).strip().lower()


def describe_parameters(schema: dict[str, Any]) -> str:
    """'percent (number): The percentage; value (number): ...' from a JSON schema."""
    parts = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type", "any")
        text = f"{readable_name(name)} ({kind})"
        if prop.get("description"):
            text += f": {prop['description']}"
        parts.append(text)
    return "; ".join(parts)


def tool_document(tool: ToolSpec) -> str:
    """Name, description and parameter names. Parameter descriptions stay out: their examples
    ("e.g. 'Asia/Tokyo'") pull unrelated questions towards the tool."""
    params = ", ".join(readable_name(p) for p in tool.input_schema.get("properties") or {})
    text = f"{readable_name(tool.name)}: {tool.description}".strip()
    return f"{text}. Parameters: {params}" if params else text
