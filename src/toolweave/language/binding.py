"""Binding a clause's values to a tool's parameters: which value the clause gives fills which
parameter, by the parameter's kind (language/parameters.py). Reads the clause's analysed values
(types.Values); the clause's text is only consulted for enum words and a search's own words.

Each argument records its origin: "extracted" for a value found in the clause, "question" for a
search given the clause's own words; and, where the value stands in the clause as written, its
span (character offsets in the clause's text): the provenance a trace shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolweave.language.parameters import (
    NUMERIC_KINDS,
    ROLE_PREPOSITIONS,
    param_kind,
    place_role,
)
from toolweave.types import Clause, Number, Place, Problem, Span, ToolSpec, Values

# More sets than this is a data list ("[12, 15, 11, ...]"), not calls to make.
MAX_VALUE_SETS = 6


@dataclass
class Filled:
    arguments: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    spans: dict[str, Span] = field(default_factory=dict)  # where the clause gives each value
    problem: Problem | None = None
    llm_error: str | None = None

    def put(self, name: str, value: Any, origin: str, span: Span | None = None) -> None:
        self.arguments[name] = value
        self.origins[name] = origin
        self.spans.pop(name, None)
        if span is not None:
            self.spans[name] = span


Found = tuple[Any, Span | None]  # a value and where the clause gives it


def values_of(clause: Clause) -> Values:
    if clause.values is None:
        raise ValueError(f"clause {clause.text!r} was not analysed (language.analyse)")
    return clause.values


def extract_arguments(schema: dict[str, Any], clause: Clause) -> Filled:
    """Fill what the clause's values give, parameter by parameter, in schema order."""
    values, text = values_of(clause), clause.text
    filled = Filled()
    pools: dict[str, list[Found]] = {
        "timezone": _zones_source_first(values),
        "date": [(d.iso, _span(d)) for d in values.dates],
        "time": [(t.hhmm, _span(t)) for t in values.times],
        "quoted": [(q.value, _span(q)) for q in values.quoted],
        "place": [(p.name, _span(p)) for p in values.places],
    }
    found_numbers = list(values.numbers)
    if values.conversions:  # the conversion's own number comes first
        own = values.conversions[0].value
        found_numbers.sort(key=lambda n: n.value != own)
    properties = schema.get("properties") or {}
    kinds = {name: param_kind(name, prop) for name, prop in properties.items()}
    # Percent parameters choose first, so "15% of 2,340" gives percent=15, value=2340.
    required = set(schema.get("required") or [])
    for name in sorted(properties, key=lambda n: kinds[n] != "percent"):
        if name not in required and kinds[name] in NUMERIC_KINDS:
            continue  # a stray number is no evidence for an optional count or limit
        value, span = _place_in_role(name, kinds[name], values, pools) or _extract_one(
            kinds[name], properties[name], clause, pools, found_numbers
        )
        if value is not None:
            filled.put(name, value, "extracted", span)
        elif kinds[name] == "query" and name in required:
            # A search takes the words as they are.
            filled.put(name, text, "question", Span(start=0, end=len(text)))
    return filled


def _span(value: Span) -> Span:
    return Span(start=value.start, end=value.end)


def _place_in_role(
    name: str, kind: str, values: Values, pools: dict[str, list[Found]]
) -> Found | None:
    """For an origin or destination parameter, the place the text gives "from" or "to"."""
    role = place_role(name) if kind == "place" else None
    place = _place_of(values, role) if role else None
    if place is None:
        return None
    found = (place.name, _span(place))
    if found in pools["place"]:
        pools["place"].remove(found)  # not to be given to another place parameter too
    return found


def place_for_role(values: Values, role: str) -> str | None:
    """The place a role names: "from" X for an origin, "to" Y for a destination."""
    place = _place_of(values, role)
    return place.name if place else None


def _place_of(values: Values, role: str) -> Place | None:
    wanted = ROLE_PREPOSITIONS[role]
    return next((p for p in values.places if p.preposition == wanted), None)


def _extract_one(
    kind: str,
    prop: dict[str, Any],
    clause: Clause,
    pools: dict[str, list[Found]],
    found_numbers: list[Number],
) -> Found:
    """The value of this kind the clause gives, and its span (None where the value is not the
    clause's words as written: a unit's name, an expression rewritten with symbols)."""
    values = values_of(clause)
    if kind in ("timezone", "date", "time", "place"):
        return pools[kind].pop(0) if pools[kind] else (None, None)
    if kind in NUMERIC_KINDS:
        # A percent parameter takes only a number written as a percentage ("15%").
        pool = [n for n in found_numbers if n.percent] if kind == "percent" else found_numbers
        for number in pool:
            if kind == "integer" and not number.value.is_integer():
                continue
            found_numbers.remove(number)
            value = int(number.value) if number.value.is_integer() else number.value
            return value, _span(number)
        return None, None
    if kind in ("unit_from", "unit_to"):
        if not values.conversions:
            return None, None
        conversion = values.conversions[0]
        return (conversion.source if kind == "unit_from" else conversion.target), None
    if kind == "enum":
        return _enum_value(prop["enum"], clause.text)
    if kind == "expression":
        return values.expression, None
    if kind in ("query", "string") and pools["quoted"]:
        return pools["quoted"].pop(0)
    return None, None


def _enum_value(options: list[Any], text: str) -> Found:
    lowered = text.lower()
    for option in options:
        if isinstance(option, str) and (at := lowered.find(option.lower())) >= 0:
            return option, Span(start=at, end=at + len(option))
    return None, None


def _zones_source_first(values: Values) -> list[Found]:
    """Zones in order of mention, except that the zone a clock time is given in comes first:
    "time in Sydney when it is 9:00 in Berlin" converts from Berlin."""
    mentions = list(values.zones)
    if values.times and len(mentions) > 1:
        anchor = values.times[0].start
        mentions.sort(key=lambda mention: abs(mention.start - anchor))
    return [(mention.zone, _span(mention)) for mention in mentions]


def value_sets(schema: dict[str, Any], clause: Clause) -> list[dict[str, Any]]:
    """The arguments of several calls when the clause gives the required values of one kind
    several times over ("weather in Paris, Rome and Oslo": three cities for one `city`; "6 feet
    and 80 kg, also 5.6 feet and 60 kg": two heights and two weights), in order; [] when it
    does not. Numbers and listed places only: quoted strings serve too many different parameters
    to be told apart, and two dates are mostly a start and an end. Other parameters get what
    `extract_arguments` finds, the same in each set."""
    values = values_of(clause)
    properties = schema.get("properties") or {}
    groups: dict[str, list[str]] = {}
    for name in schema.get("required") or []:
        kind = param_kind(name, properties.get(name, {}))
        groups.setdefault("number" if kind in NUMERIC_KINDS else kind, []).append(name)
    found: dict[str, list[Any]] = {
        "number": [n.value for n in values.numbers if not n.in_date],
        "place": list(values.listed_places),
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
    shared = extract_arguments(schema, clause).arguments
    sets = []
    for call in range(calls):
        arguments = dict(shared)
        for kind, names in groups.items():
            if counts.get(kind) == calls:
                chosen = found[kind][call * len(names) : (call + 1) * len(names)]
                arguments.update(zip(names, chosen, strict=True))
        sets.append(arguments)
    return sets


def feasibility(tool: ToolSpec, clause: Clause) -> float:
    """How well the clause's specific values fit the tool, from 0 to 1: the share of its
    required parameters they fill, averaged with the share of the values the tool would use."""
    origins = extract_arguments(tool.input_schema, clause).origins
    used = [name for name, origin in origins.items() if origin == "extracted"]
    required = tool.input_schema.get("required") or []
    fill = sum(name in used for name in required) / len(required) if required else 0.0
    available = values_of(clause).count
    use = min(1.0, len(used) / available) if available else 0.0
    return (fill + use) / 2
