"""What a tool's parameter means, read from its name, type and description: which kind of value
fills it (a place, a date, a percentage...), and which role a place plays (origin, destination).
"""

from __future__ import annotations

from typing import Any

from toolweave.language.text import readable_name

# Parameters that name a place: filled from "in Paris", and never invented (the router asks).
PLACE_WORDS = {"city", "location", "place", "country", "region", "town", "address", "destination"}
PLACE_WORDS |= {"origin"}
# Name parts that make a parameter one of two places: "from" X is the origin, "to" Y the
# destination ("pickup_city", "destination").
ROLE_WORDS = {
    "origin": {"origin", "from", "source", "departure", "pickup", "start"},
    "destination": {"destination", "to", "arrival", "dropoff", "end"},
}
ROLE_PREPOSITIONS = {"origin": "from", "destination": "to"}
# A name ending so is a code a tool gives, not the place its other words name ("locationId").
IDENTIFIER_WORDS = {"id", "ids", "code", "key", "uuid"}
QUERY_NAMES = {"query", "q", "search", "question", "text", "prompt", "keywords", "topic", "input"}
EXPRESSION_NAMES = {"expression", "expr", "formula", "equation"}
NUMERIC_KINDS = {"number", "integer", "percent"}
# Parameters that take a thing's content, so that "send it" means: send the previous result.
CONTENT_NAMES = QUERY_NAMES | {"message", "content", "body", "data", "value", "number", "amount"}


def json_type(prop: dict[str, Any]) -> str:
    """The main JSON type of a property ('string' when unknown)."""
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None:
        for option in prop.get("anyOf") or prop.get("oneOf") or []:
            if isinstance(option, dict) and option.get("type") not in (None, "null"):
                return json_type(option)
    return kind if isinstance(kind, str) else "string"


def param_kind(name: str, prop: dict[str, Any]) -> str:
    """What kind of value fills this parameter."""
    kind = json_type(prop)
    readable = readable_name(name)
    words = f"{readable} {prop.get('description', '')}".lower()
    if kind in ("number", "integer"):
        return "percent" if "percent" in readable else kind
    if kind != "string":
        return "other"
    if "timezone" in words or "time zone" in words or name.lower() in ("tz", "zone"):
        return "timezone"
    if prop.get("format") in ("date", "date-time") or "date" in readable.split():
        return "date"
    if "hh:mm" in words or readable == "time":
        return "time"
    if "unit" in words and any(w in readable for w in ("from", "source")):
        return "unit_from"
    if "unit" in words and any(w in readable for w in ("to", "target")):
        return "unit_to"
    if prop.get("enum"):
        return "enum"
    if readable.split()[-1:] and readable.split()[-1] in IDENTIFIER_WORDS:
        return "string"
    if PLACE_WORDS & set(readable.split()):
        return "place"
    if name.lower() in EXPRESSION_NAMES:
        return "expression"
    return "query" if name.lower() in QUERY_NAMES else "string"


def place_role(name: str) -> str | None:
    """ "origin" or "destination" when the parameter's name says which place it is."""
    words = set(readable_name(name).split())
    return next((role for role, names in ROLE_WORDS.items() if words & names), None)


# Verbs of tools that add things: given an empty list of them, they "succeed" doing nothing.
_ADDING = {"create", "add", "insert", "write", "append", "upload", "post", "put", "save"}


def adds_things(tool_name: str) -> bool:
    """Whether the tool's name says it adds things ("create_entities", "addObservations")."""
    return bool(_ADDING & set(readable_name(tool_name).split()[:1]))
