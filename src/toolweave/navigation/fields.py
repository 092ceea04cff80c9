"""Output fields of a tool and the one that means the same as a parameter: the schema rule behind
the tool graph's `feeds` edges and the planner's references to earlier results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolweave.language.parameters import json_type
from toolweave.language.text import readable_name
from toolweave.types import ToolSpec

NESTING = 3  # how deep output schemas are searched for fields


@dataclass(frozen=True)
class OutputField:
    path: str  # "author.0.id": how a reference reaches it
    tokens: tuple[str, ...]  # ("author", "id"): the path's words, list indexes left out
    kind: str = "string"  # its JSON type


WHOLE = OutputField(path="", tokens=())  # a result as a whole


@dataclass(frozen=True)
class Match:
    field: OutputField
    role: str  # the parameter's words before the field's ("origin" for originSkyId), or ""


def best_field(parameter: str, tool: ToolSpec) -> Match | None:
    """The output field of `tool` that best means `parameter`: its whole path in the same
    words, else its own name in the same words, else a name of two or more words that ends the
    parameter's (`skyId` for `originSkyId`, role "origin")."""
    words = tuple(readable_name(parameter).split())
    best: tuple[int, Match] | None = None
    for out in output_fields(tool.output_schema or {}):
        leaf = tuple(readable_name(out.path.rsplit(".", 1)[-1]).split())
        if words == out.tokens:
            score, role = 3, ""
        elif words == leaf:
            score, role = 2, ""
        elif len(leaf) >= 2 and words[-len(leaf) :] == leaf:
            score, role = 1, " ".join(words[: -len(leaf)])
        else:
            continue
        if best is None or score > best[0]:
            best = (score, Match(out, role))
    return best[1] if best else None


def output_fields(schema: dict[str, Any], path: str = "", depth: int = 0) -> list[OutputField]:
    """Every named field of an output schema, nested objects and list items included."""
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        here = f"{path}.{name}" if path else name
        words = (
            w
            for part in here.split(".")
            if not part.isdecimal()
            for w in readable_name(part).split()
        )
        fields.append(OutputField(here, tuple(words), json_type(prop)))
        if (
            depth + 1 < NESTING
            and prop.get("type") == "array"
            and isinstance(prop.get("items"), dict)
        ):
            fields.extend(output_fields(prop["items"], f"{here}.0", depth + 1))
        elif depth + 1 < NESTING:
            fields.extend(output_fields(prop, here, depth + 1))
    return fields
