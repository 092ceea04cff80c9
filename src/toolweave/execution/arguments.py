"""Argument filling: deterministic extractors first, the LLM for what they leave, then the
schema decides (types coerced, validated with jsonschema).

Each argument records its origin ("plan" for one the plan gave, "extracted", "question" for a
search given the clause's own words, or "llm") so a trace shows who chose it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from toolweave.catalog.documents import describe_parameters, readable_name
from toolweave.errors import LLMError
from toolweave.execution import extractors as ex
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json, schema_problems
from toolweave.prompts import load_prompt
from toolweave.types import ToolSpec

# Parameters that name a place: filled from "in Paris", and never invented (the router asks).
PLACE_WORDS = {"city", "location", "place", "country", "region", "town", "address", "destination"}
PLACE_WORDS |= {"origin"}
# Name parts that make a parameter one of two places: "from" X is the origin, "to" Y the
# destination ("pickup_city", "destination").
ROLE_WORDS = {
    "origin": {"origin", "from", "source", "departure", "pickup", "start"},
    "destination": {"destination", "to", "arrival", "dropoff", "end"},
}
# A name ending so is a code a tool gives, not the place its other words name ("locationId").
IDENTIFIER_WORDS = {"id", "ids", "code", "key", "uuid"}
QUERY_NAMES = {"query", "q", "search", "question", "text", "prompt", "keywords", "topic", "input"}
EXPRESSION_NAMES = {"expression", "expr", "formula", "equation"}
NUMERIC_KINDS = {"number", "integer", "percent"}
ARGUMENT_PROBLEM = "arguments do not fit the tool's schema: "


@dataclass
class Filled:
    arguments: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    llm_error: str | None = None

    def put(self, name: str, value: Any, origin: str) -> None:
        self.arguments[name] = value
        self.origins[name] = origin


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
    """What an extractor should look for to fill this parameter."""
    kind = json_type(prop)
    words = f"{readable_name(name)} {prop.get('description', '')}".lower()
    if kind in ("number", "integer"):
        return "percent" if "percent" in readable_name(name) else kind
    if kind != "string":
        return "other"
    if "timezone" in words or "time zone" in words or name.lower() in ("tz", "zone"):
        return "timezone"
    if prop.get("format") in ("date", "date-time") or "date" in readable_name(name).split():
        return "date"
    if "hh:mm" in words or readable_name(name) == "time":
        return "time"
    if "unit" in words and any(w in readable_name(name) for w in ("from", "source")):
        return "unit_from"
    if "unit" in words and any(w in readable_name(name) for w in ("to", "target")):
        return "unit_to"
    if prop.get("enum"):
        return "enum"
    if readable_name(name).split()[-1:] and readable_name(name).split()[-1] in IDENTIFIER_WORDS:
        return "string"
    if PLACE_WORDS & set(readable_name(name).split()):
        return "place"
    if name.lower() in EXPRESSION_NAMES:
        return "expression"
    return "query" if name.lower() in QUERY_NAMES else "string"


def extract_arguments(schema: dict[str, Any], text: str, today: date) -> Filled:
    """Fill what the extractors can find in `text`, parameter by parameter, in schema order."""
    filled = Filled()
    pools: dict[str, list[Any]] = {
        "timezone": _zones_source_first(text),
        "date": ex.dates(text, today),
        "time": ex.clock_times(text),
        "quoted": ex.quoted(text),
        "place": ex.places(text),
    }
    conversions = ex.unit_conversions(text)
    found_numbers = ex.numbers(ex.blank_quoted(text))
    if conversions:  # the conversion's own number comes first
        own = conversions[0][0]
        found_numbers.sort(key=lambda n: n.value != own)
    properties = schema.get("properties") or {}
    kinds = {name: param_kind(name, prop) for name, prop in properties.items()}
    # Percent parameters choose first, so "15% of 2,340" gives percent=15, value=2340.
    required = set(schema.get("required") or [])
    for name in sorted(properties, key=lambda n: kinds[n] != "percent"):
        if name not in required and kinds[name] in NUMERIC_KINDS:
            continue  # a stray number is no evidence for an optional count or limit
        value = _place_in_role(name, kinds[name], text, pools) or _extract_one(
            kinds[name], properties[name], text, pools, found_numbers, conversions
        )
        if value is not None:
            filled.put(name, value, "extracted")
        elif kinds[name] == "query" and name in required:
            filled.put(name, text, "question")  # a search takes the words as they are
    return filled


def _place_in_role(name: str, kind: str, text: str, pools: dict[str, list[Any]]) -> str | None:
    """For an origin or destination parameter, the place the text gives "from" or "to"."""
    role = place_role(name) if kind == "place" else None
    place = ex.place_for_role(text, role) if role else None
    if place in pools["place"]:
        pools["place"].remove(place)  # not to be given to another place parameter too
    return place


def place_role(name: str) -> str | None:
    """ "origin" or "destination" when the parameter's name says which place it is."""
    words = set(readable_name(name).split())
    return next((role for role, names in ROLE_WORDS.items() if words & names), None)


def _extract_one(
    kind: str,
    prop: dict[str, Any],
    text: str,
    pools: dict[str, list[Any]],
    found_numbers: list[ex.Number],
    conversions: list[tuple[float, str, str]],
) -> Any:
    if kind in ("timezone", "date", "time", "place"):
        return pools[kind].pop(0) if pools[kind] else None
    if kind in NUMERIC_KINDS:
        # A percent parameter takes only a number written as a percentage ("15%").
        pool = [n for n in found_numbers if n.percent] if kind == "percent" else found_numbers
        for number in pool:
            if kind == "integer" and not number.value.is_integer():
                continue
            found_numbers.remove(number)
            return int(number.value) if number.value.is_integer() else number.value
        return None
    if kind in ("unit_from", "unit_to"):
        if not conversions:
            return None
        return conversions[0][1] if kind == "unit_from" else conversions[0][2]
    if kind == "enum":
        lowered = text.lower()
        return next((v for v in prop["enum"] if isinstance(v, str) and v.lower() in lowered), None)
    if kind == "expression":
        return ex.math_expression(text)
    if kind in ("query", "string") and pools["quoted"]:
        return pools["quoted"].pop(0)
    return None


def _zones_source_first(text: str) -> list[str]:
    """Zones in order of mention, except that the zone a clock time is given in comes first:
    "time in Sydney when it is 9:00 in Berlin" converts from Berlin."""
    mentions = ex.timezone_mentions(text)
    anchor = ex.clock_time_position(text)
    if anchor is not None and len(mentions) > 1:
        mentions.sort(key=lambda mention: abs(mention[0] - anchor))
    return [zone for _, zone in mentions]


# More sets than this is a data list ("[12, 15, 11, ...]"), not calls to make.
MAX_VALUE_SETS = 6
# Places listed as alternatives ("Paris, Rome and Oslo"), not as a route ("from Paris to Rome").
_LIST_GAP = re.compile(r"^\s*(?:,|,?\s*(?:and|or|&))\s*(?:in\s+|at\s+|for\s+)?$")


def value_sets(schema: dict[str, Any], text: str, today: date) -> list[dict[str, Any]]:
    """The arguments of several calls when the text gives the required values of one kind
    several times over ("weather in Paris, Rome and Oslo": three cities for one `city`; "6 feet
    and 80 kg, also 5.6 feet and 60 kg": two heights and two weights), in order; [] when it
    does not. Numbers and listed places only: quoted strings serve too many different parameters
    to be told apart, and two dates are mostly a start and an end. Other parameters get what
    `extract_arguments` finds, the same in each set."""
    properties = schema.get("properties") or {}
    groups: dict[str, list[str]] = {}
    for name in schema.get("required") or []:
        kind = param_kind(name, properties.get(name, {}))
        groups.setdefault("number" if kind in NUMERIC_KINDS else kind, []).append(name)
    found: dict[str, list[Any]] = {
        "number": [n.value for n in ex.numbers(ex.blank_quoted(ex.blank_dates(text)))],
        "place": _listed_places(text),
    }
    counts = {
        kind: len(found[kind]) // len(names)
        for kind, names in groups.items()
        if kind in found and len(found[kind]) % len(names) == 0
    }
    many = {count for count in counts.values() if 2 <= count <= MAX_VALUE_SETS}
    if len(many) != 1:
        return []
    calls = many.pop()
    shared = extract_arguments(schema, text, today).arguments
    sets = []
    for call in range(calls):
        arguments = dict(shared)
        for kind, names in groups.items():
            if counts.get(kind) == calls:
                values = found[kind][call * len(names) : (call + 1) * len(names)]
                arguments.update(zip(names, values, strict=True))
        sets.append(arguments)
    return sets


def _listed_places(text: str) -> list[str]:
    """The places of the text when they are listed ("Paris, Rome and Oslo"), else []."""
    places = ex.places(text)
    spots = [text.find(place) for place in places]
    if len(places) < 2 or -1 in spots or spots != sorted(spots):
        return []
    gaps = [
        text[end + len(p) : start] for p, end, start in zip(places, spots, spots[1:], strict=False)
    ]
    return places if all(_LIST_GAP.match(gap) for gap in gaps) else []


def feasibility(tool: ToolSpec, text: str, today: date) -> float:
    """How well the text's specific values fit the tool, from 0 to 1: the share of its required
    parameters they fill, averaged with the share of the values the tool would use."""
    origins = extract_arguments(tool.input_schema, text, today).origins
    used = [name for name, origin in origins.items() if origin == "extracted"]
    required = tool.input_schema.get("required") or []
    fill = sum(name in used for name in required) / len(required) if required else 0.0
    available = ex.value_count(text, today)
    use = min(1.0, len(used) / available) if available else 0.0
    return (fill + use) / 2


async def fill_arguments(
    tool: ToolSpec, text: str, llm: LLM, *, today: date, given: dict[str, Any] | None = None
) -> Filled:
    """Arguments for `tool` to serve `text`: valid for its input schema, or with a problem.
    `given` arguments (the plan's, earlier results filled in) win over what is extracted."""
    schema = tool.input_schema
    filled = extract_arguments(schema, text, today)
    for name, value in (given or {}).items():
        filled.put(name, value, "plan")
    missing = [n for n in schema.get("required") or [] if n not in filled.arguments]
    if missing:
        await _fill_with_llm(tool, text, llm, missing, filled)
    _coerce(filled.arguments, schema.get("properties") or {})
    if problems := schema_problems(filled.arguments, schema):
        filled.problem = ARGUMENT_PROBLEM + "; ".join(problems)
    return filled


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
