"""Binding a clause's values to a tool's parameters: which value the clause gives fills which
parameter, by the parameter's kind (language/parameters.py). Reads the clause's analysed values
(types.Values); the clause's text is only consulted for enum words and a search's own words.

Each argument records its origin: "extracted" for a value found in the clause, "question" for a
search given the clause's own words; and, where the value stands in the clause as written, its
span (character offsets in the clause's text): the provenance a trace shows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

from toolweave.language.cues import (
    appends,
    described_by_quote,
    edits_a_line,
    facts_named,
    field_set,
    refers_back,
    says_what_they_did,
    states_first,
    ticks,
    unticks,
    without_values,
)
from toolweave.language.numbers import number_words
from toolweave.language.parameters import (
    CONTENT_NAMES,
    FOLDER_WORDS,
    LOCATOR_KINDS,
    NUMERIC_KINDS,
    PAYLOAD_NAMES,
    REVISION_NAMES,
    ROLE_PREPOSITIONS,
    changes_things,
    is_statement,
    json_type,
    may_be_written,
    options,
    param_kind,
    place_role,
    sql_kinds,
    takes_sql,
)
from toolweave.language.questions import singular
from toolweave.language.records import (
    found_thing,
    names_in,
    record_keeping,
    record_kind,
    records,
)
from toolweave.language.spans import NAME_JOINERS
from toolweave.language.sql import Known, row_change_asked, row_noun, statement
from toolweave.language.text import readable_name, sentences
from toolweave.language.values import LIST_JOIN, replacements, zone_ids
from toolweave.types import (
    Clause,
    Locator,
    Number,
    Place,
    Problem,
    Quoted,
    Span,
    ToolSpec,
    Values,
    ZoneMention,
)

# More sets than this is a data list ("[12, 15, 11, ...]"), not calls to make.
MAX_VALUE_SETS = 6


@dataclass
class Filled:
    arguments: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    spans: dict[str, Span] = field(default_factory=dict)  # where the clause gives each value
    problem: Problem | None = None
    llm_error: str | None = None
    # Parameters the LLM filled with values not in the clause: the paths of those values.
    generated: dict[str, list[str]] = field(default_factory=dict)
    labelled: set[str] = field(default_factory=set)  # filled by a value the clause labels

    def put(self, name: str, value: Any, origin: str, span: Span | None = None) -> None:
        self.arguments[name] = value
        self.origins[name] = origin
        self.spans.pop(name, None)
        if span is not None:
            self.spans[name] = span

    def drop(self, name: str) -> None:
        for held in (self.arguments, self.origins, self.spans):
            held.pop(name, None)


Found = tuple[Any, Span | None]  # a value and where the clause gives it


def values_of(clause: Clause) -> Values:
    if clause.values is None:
        raise ValueError(f"clause {clause.text!r} was not analysed (language.analyse)")
    return clause.values


def extract_arguments(
    schema: dict[str, Any], clause: Clause, taken: Collection[str] = ()
) -> Filled:
    """Fill what the clause's values give, parameter by parameter, in schema order; the
    parameters `taken` (an earlier result's) leave the clause's values to the others."""
    if taken:
        schema = _without(schema, taken)
    values, text = values_of(clause), clause.text
    filled = Filled()
    quotes = {q.start for q in values.quoted}
    # "replace "A" with "B"": both are an edit's, no file's whole content
    replaced = {x.start for pair in replacements(text) if pair[0].start in quotes for x in pair}
    pools: dict[str, list[Found]] = {
        "timezone": _zones_source_first(values, text),
        "date": [(d.iso, _span(d)) for d in values.dates],
        "time": [(t.hhmm, _span(t)) for t in values.times],
        "datetime": _date_times(values),
        # A quoted path or URL is a locator; the other quoted strings are text to pass on.
        "quoted": [
            (q.value, _span(q))
            for q in values.quoted
            if not _is_locator(q, values)
            and q.start not in replaced
            and not _dated(q, values, text)
        ],
        "place": [(p.name, _span(p)) for p in values.places],
        "said": [(q.value, _span(q)) for q in values.said],
    }
    found_numbers = list(values.numbers)
    if values.conversions:  # the conversion's own number comes first
        own = values.conversions[0].value
        found_numbers.sort(key=lambda n: n.value != own)
    properties = schema.get("properties") or {}
    kinds = _kinds(properties, values)
    required = set(schema.get("required") or [])
    for name, (value, span) in _bind_locators(kinds, values, text).items():
        filled.put(name, value, "extracted", span)
    optional = {n: p for n, p in properties.items() if n not in required}
    for name, value, span, used in _number_lists(properties, required, text, found_numbers):
        filled.put(name, value, "extracted", span)
        found_numbers = [n for n in found_numbers if n not in used]
    for name, (value, span) in _ordinals_named(properties, required, kinds, text).items():
        filled.put(name, value, "extracted", span)
    counts = [*found_numbers, *number_words(text)]  # "the first three lines"
    measured = _measured(properties, required - filled.arguments.keys(), kinds, text, counts)
    for name, (value, span) in measured.items():
        filled.put(name, value, "extracted", span)
    for name, (value, span) in _counts_in_context(optional, kinds, text, counts).items():
        filled.put(name, value, "extracted", span)
    found_numbers = [n for n in found_numbers if n in counts]  # those no count took
    for name, span in _flags_named(optional, clause).items():
        filled.put(name, True, "extracted", span)
    for name, (value, span) in _options_listed(properties, text).items():
        if name not in filled.arguments:
            filled.put(name, value, "extracted", span)
    for name, (value, span) in (_edits(properties, text) | records(properties, clause)).items():
        filled.put(name, value, "extracted", span)
    for name, (value, span) in _party_of_one(properties, text).items():
        filled.put(name, value, "extracted", span)
    labelled = _labelled(properties, kinds, text, pools["quoted"], found_numbers, filled)
    for name, (value, span) in labelled.items():
        filled.put(name, value, "extracted", span)
        filled.labelled.add(name)
    for name, (value, span) in _made_by(properties, text, pools["quoted"], filled).items():
        filled.put(name, value, "extracted", span)
        filled.labelled.add(name)
    # Percent parameters choose first, so "15% of 2,340" gives percent=15, value=2340.
    for name in sorted(properties, key=lambda n: kinds[n] != "percent"):
        if name in filled.arguments or kinds[name] in LOCATOR_KINDS:
            continue
        if name not in required and kinds[name] in NUMERIC_KINDS:
            continue  # a stray number is no evidence for an optional count or limit
        value, span = _place_in_role(name, kinds[name], values, pools) or _extract_one(
            name, kinds[name], properties[name], clause, pools, found_numbers
        )
        if name in required and (sql := sql_kinds(name, properties[name])):
            # A value is SQL only in a statement's shape: "comment 'Fast delivery'" is a row's.
            if not (isinstance(value, str) and is_statement(value)):
                value, span = statement(text, sql, _known(clause)) or (None, None)
            if value is not None:
                filled.put(name, value, "extracted", span)
            continue
        if value is None and name.lower() in PAYLOAD_NAMES and pools["said"]:
            value, span = pools["said"].pop(0)
        if value is None and name in required and kinds[name] == "string":
            value, span = _named(name, text, {h.value for h in clause.held})
        if value is not None:
            filled.put(name, value, "extracted", span)
        elif (
            kinds[name] == "query"
            and name in required
            and not may_be_written(name, properties[name])
        ):
            # A search takes the words as they are; one matched against names takes the name
            # the clause gives ("look up Mallory in memory": Mallory), one a server holds
            # ("project falcon deadline?"), else a word of it the records say ("Who is allergic
            # to peanuts?": peanuts).
            held = clause.held if len(clause.held) == 1 else []  # of two, which is asked?
            named = names_in(clause) or held or clause.about
            if named and _MATCHED.search(properties[name].get("description", "")):
                # a word of the records' in the singular, where the clause writes it: "which
                # companies ..." finds the records that say company too
                said = named[0].value if named[0] not in clause.about else singular(named[0].value)
                filled.put(name, said, "extracted", _span(named[0]))
            else:
                filled.put(name, text, "question", Span(start=0, end=len(text)))
    _percents_as_fractions(filled, properties, kinds, values.numbers)
    _with_regions(filled, kinds, text)
    return filled


# A state or country written right after a place, its comma before: "Berlin, Germany",
# "Boston, MA", "Chicago, Illinois." (not "Paris, Could you ...": a sentence goes on after it).
_REGION_AFTER = re.compile(
    r",\s*(?:(?:[A-Z]\.){2,}|[A-Z]\w*(?:\s+[A-Z]\w*){0,2})"
    r"(?=\s*(?:$|[,.;:!?)]|\b(?:from|to|for|in|on|at|and|or|with|between|during|over)\b))"
)


def _with_regions(filled: Filled, kinds: dict[str, str], text: str) -> None:
    """A place with the state or country the request writes right after it, as written; a
    city is only the city ("London, UK" gives a `city` London, a `location` London, UK)."""
    for name, span in list(filled.spans.items()):
        value = filled.arguments.get(name)
        if kinds.get(name) != "place" or text[span.start : span.end] != value:
            continue
        if "city" in readable_name(name).split():
            continue
        if region := _REGION_AFTER.match(text, span.end):
            whole = text[span.start : region.end()]
            filled.put(name, whole, filled.origins[name], Span(start=span.start, end=region.end()))


# A percentage is passed as a fraction where the parameter says it takes one: "as a decimal",
# a probability, a default or maximum below 1 ("Default is 0.9").
_AS_FRACTION = re.compile(r"\b(?:decimal|fraction|between 0 and 1|0 to 1)\b", re.IGNORECASE)
_BELOW_ONE = re.compile(r"(?<![\d.])0?\.\d+\b")


def _takes_fraction(name: str, prop: dict[str, Any]) -> bool:
    description = prop.get("description", "")
    limits = [prop.get(k) for k in ("default", "maximum")]
    return bool(
        _AS_FRACTION.search(description)
        or {"probability", "prob"} & set(readable_name(name).split())
        or any(isinstance(v, (int, float)) and 0 < v < 1 for v in limits)
        or (_BELOW_ONE.search(description) and "percent" not in description.lower())
    )


def _percents_as_fractions(
    filled: Filled, properties: dict[str, Any], kinds: dict[str, str], numbers: list[Number]
) -> None:
    """A percentage given to a parameter that takes a fraction, as that fraction: "an annual
    interest rate of 5%" is 0.05 where the rate is "as a decimal", 5 where nothing says so."""
    percents = {(n.start, n.end): n.value for n in numbers if n.percent}
    for name, span in filled.spans.items():
        at = (span.start, span.end)
        if (
            at in percents
            and kinds.get(name) == "number"
            and _takes_fraction(name, properties.get(name, {}))
        ):
            filled.arguments[name] = round(percents[at] / 100, 10)


def _without(schema: dict[str, Any], names: Collection[str]) -> dict[str, Any]:
    properties = {n: p for n, p in (schema.get("properties") or {}).items() if n not in names}
    required = [n for n in schema.get("required") or [] if n not in names]
    return {**schema, "properties": properties, "required": required}


# Between the names of a list: "Alice, Bob and Carol", "on Alice and on Carol".
_NAME_GAP = re.compile(rf"{LIST_JOIN}(?:(?:on|about|of|for)\s+)?")


def _listed_names(clause: Clause) -> list[str]:
    """The names the clause lists, when it lists two or more and nothing else between them."""
    names = names_in(clause)
    gaps = [clause.text[a.end : b.start] for a, b in pairwise(names)]
    listed = len(names) >= 2 and all(_NAME_GAP.fullmatch(gap) for gap in gaps)
    return [n.value for n in names] if listed else []


def gives_a_path(clause: Clause) -> bool:
    """Whether the clause names a file or folder (what a row added after it may be read from)."""
    return any(x.kind == "path" for x in values_of(clause).locators)


def row_table(clause: Clause) -> str | None:
    """The one table a clause adds a row to without giving the row ("add that customer to the
    users table"): the row is then what the step before read, if anything."""
    tables = {h.value for h in clause.held if h.value in clause.fields}
    if len(tables) > 1:  # "add an order for user 3": an order, for a user
        tables = {t for t in tables if re.search(rf"{_ADD_A}{row_noun(t)}\b", clause.text, re.I)}
    if row_change_asked(clause.text) != "insert" or len(tables) != 1:
        return None
    if statement(clause.text, ("insert",), _known(clause)) is not None:
        return None  # "add Frank (frank@x.org) to users": its own row
    return next(iter(tables))


_ADD_A = r"\b(?:add|insert|record|log|create)\s+(?:a|an|one)\s+(?:new\s+)?"


def statement_reading(clause: Clause, kinds: tuple[str, ...], read: str) -> str | None:
    """The statement the clause spells out, with `read` (the SQL of a value an earlier step
    read) where it says "that price" ("... and add an order for her at that price")."""
    made = statement(clause.text, kinds, replace(_known(clause), read=read))
    return made[0] if made and read in made[0] else None


def _known(clause: Clause) -> Known:
    """What an SQL statement may take from the clause's analysis beside its words."""
    values = values_of(clause)
    # "the total for Bob Chen": after "for", a person as often as a place; a row's name. After
    # "from", two words or more no city's time zone knows are a person's ("feedback from Emma
    # Schultz"; not "users from Lyon", "from New York").
    places = [p.name for p in values.places if p.preposition != "for" and not _personal(p, values)]
    given = [("email", x.value) for x in values.locators if x.kind == "email"]
    given += [("place", name) for name in places]
    held = [h.value for h in clause.held]
    names = dict.fromkeys(n.value for n in names_in(clause))  # once each, in order
    given += [("name", name) for name in names if name not in places + held]
    if any("/" in x.value for x in values.locators if x.kind in ("path", "url")):
        held = []  # "order 1042 in server.log": the file is what is asked about, no table
    return Known(held=held, columns=clause.fields, values=given, numeric=clause.numeric)


def _personal(place: Place, values: Values) -> bool:
    zoned = any(place.start <= z.start < place.end for z in values.zones)
    return place.preposition == "from" and len(place.name.split()) > 1 and not zoned


# A query a tool matches against what it holds, word for word, not a question it reads.
_MATCHED = re.compile(r"\bmatch(?:es|ed)?\s+(?:against|on)\b", re.IGNORECASE)


# A parameter that limits how many things come back, and the words that ask for the few newest
# or first: "the last 3 commits", "the 3 most recent".
_LIMITS = {"max", "limit", "count", "top", "num", "number"}
_UNITS = {"s": "seconds", "sec": "seconds", "secs": "seconds", "ms": "milliseconds"}
_UNITS |= {"min": "minutes", "mins": "minutes", "h": "hours", "hr": "hours", "hrs": "hours"}
_NEWEST = {"last", "latest", "most", "recent", "newest", "first", "top"}
_COUNT_FLAG = re.compile(r"(?:^|\s)(?:-n|--max-count)[\s=]*$")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _counts_in_context(
    optional: dict[str, Any], kinds: dict[str, str], text: str, numbers: list[Number]
) -> dict[str, Found]:
    """An optional count or limit takes a number only where the words around it name the
    parameter: "the first 3 lines" gives head=3 ("the first N lines"), not tail; "duration 12"
    gives duration=12."""
    bound: dict[str, Found] = {}
    for number in list(numbers):
        before = _stems(" ".join(_words(text[: number.start])[-1:])) - _BLANK_WORDS
        # "duration 2, steps 4": a word after a comma names the next number, not this one;
        # nor does a path's ("tail -n 2 /srv/a.log").
        rest = text[number.end :]
        unit = " ".join(_UNITS.get(w, w) for w in _words(rest)[:1])  # "6 s": 6 seconds
        after = set() if re.match(r"\s*(?:[,;]|[/~]|\w+://)", rest) else _stems(unit)
        scores = {}
        for name, prop in optional.items():
            if kinds[name] not in NUMERIC_KINDS or name in bound:
                continue
            named = _stems(readable_name(name))
            words = named | _stems(prop.get("description", ""))
            # "two files" counts files: no `tail` ("the last N lines of the file").
            counted = re.search(r"\bN\s+(\w+)", prop.get("description", ""))
            if after and counted and not after & (named | _stems(counted[1])):
                continue
            # "set the starting level to 5": the name a few words before, no mark between
            near = _beside(text, number, following=False)
            said = bool(before & named) or _overlap(near, named - _BLANK_WORDS) > 0
            scores[name] = 2 * bool(after & words) + (2 if said else bool(before & words))
            flag = _COUNT_FLAG.search(text[: number.start])  # "git log -n 3"
            if named & _LIMITS and ((before | after) & _NEWEST or flag):
                scores[name] = max(scores[name], 2)  # "the last 3 commits" and max_count
            if flag and re.search(rf"\b{re.escape(name)}\s+$", text[: flag.start() + 1]):
                scores[name] = max(scores[name], 2)  # "tail -n 2 a.log" and tail
        best = max(scores, key=lambda n: scores[n], default=None)
        if best is None or scores[best] < 1 or (kinds[best] == "percent") != number.percent:
            continue
        numbers.remove(number)
        bound[best] = (_plain(number), _span(number))
    return bound


# Words around a number that say nothing of what it measures.
_BLANK_WORDS = {"a", "an", "the", "of", "is", "are", "be", "to", "at", "as", "with", "its", "it"}
_BLANK_WORDS |= {"and", "or", "in", "for", "on", "by", "from", "that", "this", "which", "if"}
_BLANK_WORDS |= {"value", "number", "given", "default", "not", "specified", "e", "g", "i"}
_NEXT_ITEM = {"and", "or", "but", "with", "while", "then", "where", "whereas"}
_NUMBER_SIDE = re.compile(r"[^\W\d]+(?:['’]\w+)?|[,;.:!?()]|\d")


def _measured(
    properties: dict[str, Any],
    required: Collection[str],
    kinds: dict[str, str],
    text: str,
    numbers: list[Number],
) -> dict[str, Found]:
    """Required numbers the words around them give to one parameter more than to any other:
    "3 meat meals a week and 500 lbs of trash" give meat_meals_per_week=3 and
    annual_trash_weight=500, "a term of 10 years" years=10 (not compounds_per_year), whatever
    the schema's order. A number as near to two parameters is left to the order."""
    numeric = {n: p for n, p in properties.items() if kinds[n] in NUMERIC_KINDS}
    named = {n: _stems(readable_name(n)) - _BLANK_WORDS for n in numeric}
    described = {n: _stems(p.get("description", "")) - _BLANK_WORDS for n, p in numeric.items()}
    units = {n: _units(p.get("description", "")) for n, p in numeric.items()}
    # "a 3% interest rate over 30 years": a rate takes the number written as a percentage,
    # when there is one.
    rated = {n for n in numeric if named[n] & _RATE_WORDS}
    percents = any(number.percent for number in numbers)
    ranked = []
    for number in numbers:
        near = _beside(text, number)
        unit = _units(written.group()) if (written := _UNIT_AFTER.match(text, number.end)) else []
        spelled = not text[number.start : number.end][:1].isdigit()
        scores = {
            n: 2 * _overlap(near, named[n])
            + _overlap(near, described[n])
            + 0.5 * (n in required)
            # the unit written whole: "10 meters/second" for "in meters/second", not for
            # "in meters/second^2"; "5 seconds" for "in seconds", not for "in meters/second"
            + bool(unit and unit[0] not in _NOT_NAMES and unit[0] in units[n])
            for n in numeric
            if (kinds[n] != "integer" or number.value.is_integer())
            # "two adults" for adults, not "two circles" for a radius "of the circle"
            and not (spelled and not _overlap(near, named[n]))
        }
        best = sorted(scores.items(), key=lambda item: -item[1])[:2]
        if best and best[0][1] >= 1 and (len(best) == 1 or best[0][1] > best[1][1]):
            ranked.append((best[0][1], number, best[0][0]))
    bound: dict[str, Found] = {}
    for _, number, name in sorted(ranked, key=lambda r: -r[0]):
        free = name in required and name not in bound and number in numbers
        takes_percent = kinds[name] == "percent" or (name in rated and percents)
        if free and takes_percent == number.percent:
            numbers.remove(number)
            bound[name] = (_plain(number), _span(number))
    return bound


_RATE_WORDS = {"rate", "percent", "percentage"}  # as _stems gives them


def _units(text: str) -> list[str]:
    """The words of a text as units are written ("meters/second^2", "kelvin"), singular."""
    return [re.sub(r"(?<=\w{3})s$", "", w.lower()) for w in _UNIT.findall(text)]


_UNIT_WORD = r"[^\W\d][\w/^°]*(?<![/^])"
_UNIT = re.compile(rf"(?<![\w/^]){_UNIT_WORD}")
# A unit written right after its number, no mark between: "5 seconds", not "255, Green".
_UNIT_AFTER = re.compile(rf" ?{_UNIT_WORD}")


def _beside(text: str, number: Number, following: bool = True) -> set[str]:
    """The words right before a number and right after it, up to a punctuation mark or another
    number: "of 300 kelvin" gives {"300", "kelvin"}'s neighbours {"of", "kelvin"} less blanks."""
    before = _NUMBER_SIDE.findall(text[max(0, number.start - 40) : number.start])[::-1]
    after = _NUMBER_SIDE.findall(text[number.end : number.end + 40]) if following else []
    words: set[str] = set()
    for side in (before[:3], after[:3]):
        for token in side:
            if not token[0].isalpha() or token.lower() in _NEXT_ITEM:
                break
            words |= _stems(token)
    return words - _BLANK_WORDS


def _overlap(words: set[str], others: set[str]) -> int:
    """How many words are alike: the same stem, or one cut short ("temp", "temperature")."""
    return sum(any(_alike(w, o) for o in others) for w in words)


def _alike(word: str, other: str) -> bool:
    """The same word, or two forms of one: "temp" and "temperature", "accelerating" and
    "acceleration" (all but the last three letters of the shorter shared, four at least)."""
    short, long = sorted((word, other), key=len)
    shared = next(
        (n for n, (a, b) in enumerate(zip(short, long, strict=False)) if a != b), len(short)
    )
    return short == long or (len(short) >= 4 and shared >= max(4, len(short) - 3))


# Between a parameter's name and the value it labels: "encryption key '12345'", "a tax rate of
# 5%", "the title 'Q3'"; and after a value, before its name: "the 'electronics' category".
_LABEL_GAP = r"\s*(?:(?:of|is|=|:|as|at|equal\s+to|set\s+to)\s*)?(?:(?:a|an|the)\s+)?[\"'“‘$€£]?\s?"
_VALUE_GAP = r"%?[\"'”’]?\s+"  # "a 3% interest rate"


def _labelled(
    properties: dict[str, Any],
    kinds: dict[str, str],
    text: str,
    quoted: list[Found],
    numbers: list[Number],
    filled: Filled,
) -> dict[str, Found]:
    """Values the clause labels with a parameter's name, taken before values are given out in
    order: "revenue of 7000" fills revenue wherever revenue stands in the schema. Whole names
    label first, then a name's last word where no other name ends in it ("a term of 5 years"
    for loan_term; "a loan of $100,000" is no loan_term)."""
    words = {name: readable_name(name).split() for name in properties}
    heads = Counter(w[-1] for w in words.values() if w)
    open_ = [
        name
        for name, prop in properties.items()
        if name not in filled.arguments and not sql_kinds(name, prop) and not options(prop)
    ]
    bound: dict[str, Found] = {}
    for whole in (True, False):
        for name in open_:
            label = " ".join(words[name]) if whole else _head(words[name], heads)
            if name in bound or label is None or len(label) < 3:
                continue
            for pool, value, span in _label_pool(kinds[name], quoted, numbers):
                if _labels(label, text, span):
                    pool.remove(value if pool is numbers else (value, span))
                    bound[name] = (_plain(value), span)
                    break
    return bound


# Who made a work, named after "by": "the song 'Imagine' by John Lennon".
_MAKERS = {"artist", "author", "director", "composer", "singer", "band", "creator", "writer"}
_BY_NAME = re.compile(r"\bby\s+(?P<v>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)")


def _made_by(
    properties: dict[str, Any], text: str, quoted: list[Found], filled: Filled
) -> dict[str, Found]:
    """The maker of a work the clause names after "by", quoted or as a name, for a parameter
    named for its maker (`artist`, `author`)."""
    makers = [
        n
        for n, prop in properties.items()
        if n not in filled.arguments
        and json_type(prop) == "string"
        and (readable_name(n).split() or [""])[-1] in _MAKERS
    ]
    if len(makers) != 1:
        return {}
    for value, span in quoted:
        if span and re.search(r"\bby\s+[\"'“‘]$", text[: span.start]):
            quoted.remove((value, span))
            return {makers[0]: (value, span)}
    if name := _BY_NAME.search(text):
        return {makers[0]: (name["v"], Span(start=name.start("v"), end=name.end("v")))}
    return {}


# How many people a booking is for, and the words that say one: "a ticket for myself".
_PARTY_WORDS = {"group", "seats", "passengers", "people", "adults", "guests", "travelers"}
# ("a table for me" may mean on my behalf; "for myself", "for just me" count.)
_ONE_PERSON = re.compile(
    r"\bfor\s+(?:(?:just|only)\s+)?myself\b|\bfor\s+(?:just|only)\s+me\b(?!\s+and\b)", re.I
)


def _party_of_one(properties: dict[str, Any], text: str) -> dict[str, Found]:
    """A count of people the request says is one ("book a ticket for just myself")."""
    said = _ONE_PERSON.search(text)
    if said is None:
        return {}
    span = Span(start=said.start(), end=said.end())
    return {
        name: ("1" if json_type(prop) == "string" else 1, span)
        for name, prop in properties.items()
        if _PARTY_WORDS & set(_words(f"{readable_name(name)} {prop.get('description', '')}"))
        and json_type(prop) in ("string", "integer", "number")
    }


def _dated(quoted: Quoted, values: Values, text: str) -> bool:
    """Whether a quoted text is a date or a time and nothing else ('2022-12-31 10:00'): no
    title or text to pass on."""
    inside = [x for x in [*values.dates, *values.times] if quoted.start <= x.start < quoted.end]
    rest = quoted.value
    for x in inside:
        rest = rest.replace(text[x.start : x.end], " ")
    return bool(inside) and not rest.strip(" T,:-")


def _date_times(values: Values) -> list[Found]:
    """Each time written right after its date ("2022-12-31 10:00"), as "YYYY-MM-DD HH:MM"."""
    return [
        (f"{d.iso} {t.hhmm}", Span(start=d.start, end=t.end))
        for d in values.dates
        for t in values.times
        if 0 < t.start - d.end <= 4 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", d.iso)
    ]


def _head(words: list[str], heads: Counter[str]) -> str | None:
    """A name's last word, as its label where it says more than the name's kind."""
    if len(words) < 2 or heads[words[-1]] > 1 or words[-1] in _GENERIC_WORDS:
        return None
    return words[-1]


def _label_pool(
    kind: str, quoted: list[Found], numbers: list[Number]
) -> list[tuple[list[Any], Any, Span]]:
    """The values a parameter of this kind may take by label, with the list each comes from."""
    if kind in ("query", "string"):
        return [(quoted, value, span) for value, span in quoted if span is not None]
    if kind in NUMERIC_KINDS:
        fits = [n for n in numbers if kind != "integer" or n.value.is_integer()]
        return [(numbers, n, _span(n)) for n in fits]
    return []


def _labels(label: str, text: str, span: Span) -> bool:
    """Whether `label` names the value at `span`, standing right before or right after it."""
    name = r"\s+".join(re.escape(w) for w in label.split()) + r"(?:e?s)?"
    first = re.search(rf"\b{name}{_LABEL_GAP}$", text[: span.start], re.IGNORECASE)
    then = re.match(rf"{_VALUE_GAP}{name}\b", text[span.end :], re.IGNORECASE)
    return bool(first or then)


def _plain(value: Any) -> Any:
    """A number as the value it is (3, not 3.0); anything else as it is."""
    if isinstance(value, Number):
        value = value.value
    return int(value) if isinstance(value, float) and value.is_integer() else value


# The verbs a switch's name asks with ("include_history", "allow_transfer", "show_details").
_SWITCH_VERBS = {"include", "with", "show", "get", "use", "enable", "return", "allow", "add"}


def _flags_named(optional: dict[str, Any], clause: Clause) -> dict[str, Span]:
    """An optional switch the clause names, every word of it, and does not deny: "as raw html"
    gives raw=true, "recursively" gives recursive=true; "not raw" nothing."""
    hidden = without_values(clause)
    flags = {}
    for name, prop in optional.items():
        if json_type(prop) != "boolean":
            continue
        # "include_history": "their history" names it, whatever verb asks for it
        words = readable_name(name).split()
        words = [w for w in words if w not in _SWITCH_VERBS] or words
        found = [re.search(rf"\b{re.escape(w)}", hidden, re.IGNORECASE) for w in words]
        said = [m for m in found if m is not None]
        if said and len(said) == len(words) and not any(_denied(hidden, m.start()) for m in said):
            flags[name] = Span(start=said[0].start(), end=said[-1].end())
    return flags


# The two fields of an edit: what to find, and what it becomes (oldText / newText,
# old_string / new_string, search / replace).
_OLD_WORDS = {"old", "search", "find", "original", "before"}
_NEW_WORDS = {"new", "replace", "replacement", "after"}


def _edits(properties: dict[str, Any], text: str) -> dict[str, Found]:
    """A list of edits ({oldText, newText} items) from the replacements the clause asks for
    ("replace A with B", "swap A for B"), each text as written."""
    pairs = replacements(text)
    if pairs and (fields := _edit_fields(properties)):
        name, old, new = fields
        edits = [{old: before.value, new: after.value} for before, after in pairs]
        return {name: (edits, Span(start=pairs[0][0].start, end=pairs[-1][1].end))}
    return {}


def _edit_fields(properties: dict[str, Any]) -> tuple[str, str, str] | None:
    """The list-of-edits parameter, with its items' old and new text fields."""
    for name, prop in properties.items():
        fields = (prop.get("items") or {}).get("properties") or {}
        words = {f: set(readable_name(f).split()) for f in fields}
        old = next((f for f in fields if words[f] & _OLD_WORDS), None)
        new = next((f for f in fields if words[f] & _NEW_WORDS and f != old), None)
        if json_type(prop) == "array" and old and new:
            return name, old, new
    return None


def edits_of_read(properties: dict[str, Any], clause: Clause, read: str) -> dict[str, Any]:
    """For a clause that changes a line of a file it gives, by what the file says, the edits
    parameter with its one edit, made of `read` ("s1.result.content": the result of the step
    that read the file): "add "water the plants" as a new last line of notes.txt", its last
    line becomes itself and the text after it; "tick off 'call the bank' in todo.md", the line
    that holds the text becomes the same with its box ticked ("- [x] call the bank"); "add a
    line for printing, at a cost of 150, to budget.csv", the line in the file's columns;
    "alpha.txt deadline -> 2024-12-06", the labelled line with its new value."""
    fields = _edit_fields(properties)
    edit = _edit_of_read(clause, read) if fields else None
    if fields is None or edit is None:
        return {}
    name, old, new = fields
    return {name: [{old: edit[0], new: edit[1]}]}


def _edit_of_read(clause: Clause, read: str) -> tuple[str, str] | None:
    """The text an edit replaces and its replacement, as references to the file read."""

    def of_read(what: str) -> str:
        return "{{" + f"{read} | {what}" + "}}"

    values = values_of(clause)
    texts = [q.value for q in values.quoted if not _is_locator(q, values)]
    texts = texts or [s.value for s in values.said] or _item_told(clause.text)
    last = of_read("last_line")
    described = _ROW_DESCRIBED.search(clause.text) if not texts else None
    if described and appends(clause.text):
        return last, f"{last}\n{of_read('csv_line:' + described['said'])}"
    if field := field_set(clause.text):
        label, value = field
        return of_read(f"field:{label}"), of_read(f"field:{label}={value}")
    if not texts:
        return None
    if appends(clause.text):
        return last, f"{last}\n{texts[0]}"
    if ticks(clause.text) and not replacements(clause.text):  # not when the lines are given
        done = "unticked" if unticks(clause.text) else "ticked"
        return of_read(f"lines:{texts[0]}"), of_read(f"{done}:{texts[0]}")
    return None


# A CSV line described by what it is for and its values, not written out.
_ROW_DESCRIBED = re.compile(
    r"\b(?:line|row|entry)\s+(?P<said>for\s+[^{}|/~]+?)\s*,?\s+(?:to|in|into)\s+\S+\.csv\b", re.I
)


def _item_told(text: str) -> list[str]:
    """The item a clause says is done before it asks to tick "it" off: "dentist booked, tick it
    off in todo.md" (the one line that holds "dentist" is ticked, `references`)."""
    told = _DONE_THEN_TICK.match(text) if ticks(text) and not unticks(text) else None
    return [told["item"]] if told else []


_DONE_THEN_TICK = re.compile(
    r"^\W*(?P<item>[a-z][\w'’-]*(?:\s+[\w'’-]+){0,3}?)\s+(?:is\s+|was\s+|got\s+)?"
    r"(?:done|[a-z]+ed|paid|sent|bought|made|written)\s*(?:[,:;–—-]|\band\b|\bso\b)\s*"
    r"(?:please\s+)?(?:tick|check|cross|mark)\s+(?:it|that|this)\b",
    re.IGNORECASE,
)


# How a clause changes a place that a tool cannot take: a table, a file.
INTO_A_PLACE, A_FIELD = 2, 1


def misses_the_table(tool: ToolSpec, clause: Clause) -> int:
    """INTO_A_PLACE when the clause puts something into a table a server holds ("add Carol to
    the users table", "add an order for Emma") and the tool takes neither a table nor a
    statement (a memo's `insight`, a file's edits), or into a file or page it names ("add an
    item to my /a/todo.md") and the tool takes no path or URL; A_FIELD when, giving no place,
    it changes a field of a table ("change order 4's amount to 5.75"); else 0."""
    properties = tool.input_schema.get("properties") or {}
    kinds = {param_kind(n, p) for n, p in properties.items()}
    kinds |= {"path" for n in properties if _PLACE_WORDS & set(readable_name(n).split())}
    put = [x for x in values_of(clause).locators if _PUT_INTO.search(clause.text[: x.start])]
    if any(x.kind in ("path", "url") and not {x.kind, x.kind + "s"} & kinds for x in put):
        return INTO_A_PLACE
    if any(takes_sql(n, p) or "table" in readable_name(n).split() for n, p in properties.items()):
        return 0
    into = (
        re.search(
            rf"\b(?:to|into)\s+(?:the\s+)?{re.escape(h.value)}(?:\s+table)?\b", clause.text, re.I
        )
        or re.search(
            rf"\b(?:an?|another|add|insert)\s+(?:new\s+)?{re.escape(row_noun(h.value))}\b"
            # "order for Bob Chen (user_id 2): 'Cinnamon roll' ...": a row given (cues.gives_a_row)
            rf"|^\W*(?:new\s+)?{re.escape(row_noun(h.value))}\s+(?:for|from|by)\b",
            clause.text,
            re.IGNORECASE,
        )
        for h in clause.held
        if h.value in clause.fields  # a table, not a name a graph holds ("the Falcon entity")
    )
    return INTO_A_PLACE if any(into) else A_FIELD * _changes_a_field(clause)


# The words of a parameter that takes where a file goes: move_file's "destination".
_PLACE_WORDS = {"source", "destination", "target", "dest", "file", "dir", "directory", "folder"}
# "... to my /a/todo.md", "into the file /a/b.txt": where a change puts what it makes.
_PUT_INTO = re.compile(r"\b(?:to|into)\s+(?:(?:my|the|our|your)\s+)?(?:file\s+|page\s+)?$")


def _changes_a_field(clause: Clause) -> bool:
    """The clause names a table a server holds and one of its fields, and no path or URL."""
    words = set(re.findall(r"[a-z_]+", clause.text.lower()))
    fields = {f.lower() for h in clause.held for f in clause.fields.get(h.value, [])} - {"id"}
    return not values_of(clause).locators and not fields.isdisjoint(words)


def rewrites_whole(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause asks to change a part of a file, a text within it ("make it "B"
    instead of "A"") or a line added to it ("add "water the plants" as a new last line"), and
    the tool would write a whole content instead: it would lose the rest of the file."""
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    whole = any(name.lower() in PAYLOAD_NAMES for name in required)
    edited = bool(replacements(clause.text)) and not _edits(properties, clause.text)
    return whole and (
        edited or edits_a_line(clause.text) or _KEEPS_THE_REST.search(clause.text) is not None
    )


_KEEPS_THE_REST = re.compile(r"\bkeep\s+everything\s+else\b", re.IGNORECASE)


_DENIAL = re.compile(r"\b(?:no|not|without|don'?t|never)\s+(?:\w+\s+)?$", re.IGNORECASE)


def _denied(text: str, at: int) -> bool:
    return _DENIAL.search(text[:at]) is not None


def _stems(text: str) -> set[str]:
    """The words of a text, plural endings cut ("lines" and "line" alike), a position by its
    usual word ("the top 3 lines" are the first 3)."""
    words = {re.sub(r"(?<=\w{3})s$", "", w) for w in re.findall(r"[a-z]+", text.lower())}
    return {_POSITIONS.get(w, w) for w in words}


_POSITIONS = {"top": "first", "bottom": "last", "beginning": "first", "end": "last"}


# Words around a value that are not the value: "a branch called feature-x off main".
_NOT_NAMES = {"the", "a", "an", "off", "from", "in", "on", "to", "for", "with", "and", "of", "at"}
_NOT_NAMES |= {"as", "into", "called", "named", "this", "that", "my", "new", "it", "is", "are"}
_NOT_NAMES |= {"was", "were", "do", "does", "did", "has", "have", "there", "by", "or", "all"}
_NOT_NAMES |= {"same", "other", "another", "similar", "each", "both"}  # "the same company"
_NOT_NAMES |= {"who", "whose", "which", "where", "when", "what", "with", "if"}
_NOT_NAMES |= {"we", "i", "you", "they", "he", "she"}  # "the message we agreed on": not said
_GENERIC_WORDS = {"name", "id", "value", "new", "old", "string", "text"}
# The last word of an identifier's name, and how a text marks a number: "Case No 28473".
_NUMBERED = {"number", "id", "no", "code"}
_NUMBER_SIGN = r"(?:(?:no|nr|number|id)\.?\s*|#\s*)?"


def _named(name: str, text: str, held: Collection[str] = ()) -> Found:
    """A name the clause gives right after the noun the parameter is named for ("a branch
    called hotfix-1.0.1" for branch_name), or right before it ("the users table"); a name a
    server holds first ("orders table schema?": orders)."""
    # "where_to" names no noun: "to" would take whatever follows it. The head noun first:
    # "cell compartments of the nucleus" for cell_compartment.
    words = readable_name(name).split()
    nouns = [w for w in reversed(words) if w not in _GENERIC_WORDS | _NOT_NAMES]
    # "case No 28473" for case_number: an identifier holds a digit
    numbered = bool(words) and words[-1] in _NUMBERED
    for noun in nouns:
        if titled := _titled_with(noun, text):  # "the Metropolitan Museum of Art" for museum
            return titled
        afters = re.finditer(
            # "branch off as chore/readme"
            rf"\b{noun}(?:e?s)?\s+(?:of\s+(?:the\s+)?|called\s+|named\s+|titled\s+|(?:off\s+)?as\s+)?"
            rf"{_NUMBER_SIGN if numbered else ''}[\"'“‘]?(?P<v>\w[\w.@+/-]*\w|\w)",
            text,
            re.IGNORECASE,
        )
        after = next((m for m in afters if not numbered or re.search(r"\d", m["v"])), None)
        if after and after["v"].islower():  # "the player stats of Cristiano Ronaldo"
            after = _OWNER_AFTER.match(text, after.end("v")) or after
        before = re.search(rf"\bthe\s+(?P<v>\w[\w.-]*)\s+{noun}\b", text, re.IGNORECASE)
        # Without "the", only a name held: "orders table schema?", not "a new git branch".
        bare = re.search(rf"\b(?P<v>\w[\w.-]*)\s+{noun}\b", text, re.IGNORECASE)
        bare = bare if bare and bare["v"] in held else None
        # "encryption key '12345'": "key" is the name's own word, not its value
        own = _NOT_NAMES | set(readable_name(name).split())
        found = [
            m
            for m in (after, before, bare)
            if m and m["v"].lower() not in own and (not numbered or re.search(r"\d", m["v"]))
        ]
        if match := min(found, key=lambda m: m["v"] not in held, default=None):
            return match["v"], Span(start=match.start("v"), end=match.end("v"))
    return None, None


_FULL_STOP = re.compile(r"(?<![A-Z])(?<!\.\w)\.$")


def _capitalised(chars: str, joiners: Collection[str], more: str) -> str:
    """A pattern for words in capitals, each of `chars`, small joining words between them:
    "Metropolitan Museum of Art"; `more` says how many words follow the first ("*", "+")."""
    word = rf"[A-Z][{chars}]*"
    return rf"{word}(?:\s+(?:(?:{'|'.join(joiners)})\s+)*{word}){more}"


# A capitalised name after "of" or "for": whose the thing a noun compound names is.
_OWNER = _capitalised(r"\w'&-", NAME_JOINERS, "*")
_OWNER_AFTER = re.compile(rf"\s+(?:of|for)\s+(?:the\s+)?(?P<v>{_OWNER})")
# A name written in capitals, small joining words inside it: "Metropolitan Museum of Art".
_TITLED = re.compile(_capitalised(r"\w.'&-", [*NAME_JOINERS, "and", "&"], "+"))


def _opens_sentence(text: str, at: int, ends: str) -> bool:
    """Whether `at` is the text's start or comes right after one of the marks `ends`."""
    before = text[:at].rstrip()
    return not before or before[-1] in ends


def _titled_with(noun: str, text: str) -> Found | None:
    """A name in capitals that holds the parameter's noun, not first in its sentence: the
    museum_name of "the Metropolitan Museum of Art", the league of "the Premier League"."""
    for match in _TITLED.finditer(text):
        words = [w.lower().rstrip(".") for w in match.group().split()]
        first = _opens_sentence(text, match.start(), ".?!")
        # "the Premier League", and a name its noun opens before a joining word: "the
        # Museum of Modern Art" for museum_name
        opens = len(words) > 2 and words[1] in NAME_JOINERS
        if not first and any(w in (noun, f"{noun}s") for w in words[0 if opens else 1 :]):
            name = _FULL_STOP.sub("", match.group())  # "...of Art." ends a sentence
            return name, Span(start=match.start(), end=match.start() + len(name))
    return None


def _kinds(properties: dict[str, Any], values: Values) -> dict[str, str]:
    """Each parameter's kind; where the clause gives paths, "source" and "destination" are
    paths ("move_file(source, destination)")."""
    kinds = {name: param_kind(name, prop) for name, prop in properties.items()}
    if any(x.kind == "path" for x in values.locators):
        for name, kind in kinds.items():
            if kind in ("place", "string") and place_role(name):
                kinds[name] = "path"
    return kinds


def _is_locator(quoted: Span, values: Values) -> bool:
    return any(x.quoted and x.start == quoted.start for x in values.locators)


# A path written after one of these is where something goes ("rename a.txt to b.txt").
_DESTINATION_CUE = re.compile(r"\b(?:to|into|as|onto)\s+(?:the\s+)?(?:file\s+|folder\s+)?[\"'“‘]?$")


def _bind_locators(kinds: dict[str, str], values: Values, text: str) -> dict[str, Found]:
    """URLs, emails and paths to the parameters that take them: a folder parameter ("repo_path")
    a path with no extension, a destination the path written after "to", a list of paths what
    the others leave. A file name said to be in a folder ("notes.txt in /srv") is joined to it,
    unless the folder has a parameter of its own."""
    bound: dict[str, Found] = {}
    pools = {kind: [x for x in values.locators if x.kind == kind] for kind in ("url", "email")}
    for name, kind in kinds.items():
        if pools.get(kind):
            bound[name] = _taken(pools[kind], pools[kind][0])
    paths = [p for x in values.locators if x.kind == "path" and (p := _the_new_one(x, text))]
    folders = [n for n, k in kinds.items() if k == "path" and _names_folder(n)]
    for name in folders:
        if chosen := next((x for x in paths if "." not in x.value.rsplit("/", 1)[-1]), None):
            bound[name] = _taken(paths, chosen)
    join = not folders
    if join:  # the folders file names were said to be in are no paths of their own
        paths = [x for x in paths if not any(y.folder == x.value for y in paths)]
    files = [n for n, k in kinds.items() if k == "path" and n not in folders]
    for name in sorted(files, key=lambda n: place_role(n) == "destination", reverse=True):
        if chosen := _file_for(name, paths, text):
            bound[name] = _taken(paths, chosen, join)
    _beside_its_source(bound, files, text, paths)
    for name in [n for n, k in kinds.items() if k == "paths"]:
        if paths:
            bound[name] = ([x.joined if join else x.value for x in paths], None)
            paths = []
    return bound


# "a new subfolder in /srv/projects", "a new text file in my /srv folder": the folder the new
# one goes in, whose name is not given.
_NEW_ONE_IN = re.compile(
    r"\bnew\s+(?:[a-z]+\s+)?(?:sub-?)?(?:folders?|director(?:y|ies)|dirs?|files?|documents?|"
    r"spreadsheets?)\s+"
    r"(?:in|inside|under|within)\s+(?:(?:the|my|your|our)\s+)?(?:folder\s+|directory\s+)?"
    r"[\"'“‘]?$",
    re.IGNORECASE,
)


def _the_new_one(path: Locator, text: str) -> Locator | None:
    """The path as it is, unless the clause puts a new file or folder in it: then the new one
    by the name the clause gives it ("... in /srv/projects called reports"), or none."""
    if not _NEW_ONE_IN.search(text[: path.start]):
        return path
    named = _CALLED.match(text[path.end :])
    if named is None:
        return None
    name = named["name"]
    end = path.end + named.end()
    return path.model_copy(update={"value": name, "folder": path.joined, "end": end})


_CALLED = re.compile(r"[\"'”’]?\s+(?:called|named)\s+[\"'“‘]?(?P<name>[\w.-]*\w)", re.I)


def _beside_its_source(
    bound: dict[str, Found], files: list[str], text: str, left: list[Locator]
) -> None:
    """ "Rename todo.md in /srv to old.md": a destination named without a folder goes in the
    source's folder, where the user sees it, not in the server's working directory, or in the
    folder the clause moves it into ("move /srv/a.txt into /srv/old, renamed to b.txt"). "Move
    /srv/a.txt into /srv/old": a destination said to be a folder keeps the source's name."""
    roles = {place_role(n): n for n in files if n in bound}
    source, destination = roles.get("origin"), roles.get("destination")
    if source is None or destination is None:
        return
    (origin, _), (target, span) = bound[source], bound[destination]
    if not isinstance(origin, str) or not isinstance(target, str):
        return
    folder, _, name = origin.rpartition("/")
    into = [
        x.value for x in left if _INTO.search(text[: x.start]) and not _FILE_NAME.search(x.value)
    ]
    if "/" not in target and len(into) == 1:
        bound[destination] = (f"{into[0].rstrip('/')}/{target}", span)
    elif "/" not in target and folder:
        bound[destination] = (f"{folder}/{target}", span)
    elif span and _FILE_NAME.search(name) and _said_a_folder(text, span):
        bound[destination] = (f"{target.rstrip('/')}/{name}", span)


_INTO = re.compile(r"\b(?:in|into|inside|to)\s+(?:the\s+)?(?:folder\s+|directory\s+)?$", re.I)
_INTO_FOLDER = re.compile(r"(?:\binto|\b(?:in|to)\s+(?:the\s+)?(?:folder|directory))\s*[\"'“‘]?$")


def _said_a_folder(text: str, span: Span) -> bool:
    """Whether the path at `span` is said to be a folder: "into /srv/old", "to the folder
    /srv/old", "to the /srv/old folder"; one with an extension never is."""
    path = text[span.start : span.end]
    if _FILE_NAME.search(path):
        return False
    return bool(_INTO_FOLDER.search(text[: span.start]) or _FOLDER_AFTER.match(text[span.end :]))


def _names_folder(name: str) -> bool:
    return bool(set(readable_name(name).split()) & FOLDER_WORDS)


def _file_for(name: str, paths: list[Locator], text: str) -> Locator | None:
    if not paths:
        return None
    after_to = [x for x in paths if _DESTINATION_CUE.search(text[: x.start])]
    if place_role(name) == "destination":
        return after_to[-1] if after_to else (paths[-1] if len(paths) > 1 else None)
    return next((x for x in paths if x not in after_to), paths[0])


def _taken(pool: list[Locator], locator: Locator, join: bool = False) -> Found:
    pool.remove(locator)
    return (locator.joined if join else locator.value), _span(locator)


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
    name: str,
    kind: str,
    prop: dict[str, Any],
    clause: Clause,
    pools: dict[str, list[Found]],
    found_numbers: list[Number],
) -> Found:
    """The value of this kind the clause gives, and its span (None where the value is not the
    clause's words as written: a unit's name, an expression rewritten with symbols)."""
    values = values_of(clause)
    if kind == "timezone":
        return _zone_in_role(place_role(name), clause.text, pools[kind])
    if kind == "time" and "yyyy-mm-dd" in prop.get("description", "").lower() and pools["datetime"]:
        value, span = pools["datetime"].pop(0)  # "in format YYYY-MM-DD HH:MM": the date too
        pools["time"] = [t for t in pools["time"] if not (t[1] and span and t[1].end == span.end)]
        return value, span
    if kind in ("date", "time", "place"):
        return pools[kind].pop(0) if pools[kind] else (None, None)
    if kind in NUMERIC_KINDS:
        # A percent parameter takes only a number written as a percentage ("15%").
        pool = [n for n in found_numbers if n.percent] if kind == "percent" else found_numbers
        for number in pool:
            if kind == "integer" and not number.value.is_integer():
                continue
            found_numbers.remove(number)
            return _plain(number), _span(number)
        return None, None
    if kind in ("unit_from", "unit_to"):
        if not values.conversions:
            return None, None
        conversion = values.conversions[0]
        return (conversion.source if kind == "unit_from" else conversion.target), None
    if kind == "enum":
        return _enum_value(options(prop), clause.text)
    if kind == "expression":
        return values.expression, None
    if kind == "revision":
        if (readable_name(name) == "target") != bool(_COMPARED.search(clause.text)):
            # "what did the last commit change?" compares with nothing; "what changed since
            # HEAD~2?" shows no one commit
            return None, None
        return _revision(clause, of_a_file=readable_name(name) == "revision")
    if kind == "glob":
        return _glob(clause.text)
    if kind in ("query", "string") and pools["quoted"]:
        return pools["quoted"].pop(0)
    return None, None


# A revision as git writes it: HEAD and its ancestors, optionally with a path ("HEAD~2",
# "HEAD:config.py"), or a commit's abbreviated hash; "the latest commit" is HEAD.
_REVISION = re.compile(
    r"\bHEAD(?:[~^]\d*)*(?::[\w./-]*\w)?|(?<![\w./-])(?=[a-f]*\d)(?=\d*[a-f])[0-9a-f]{7,40}\b"
)
# What a diff's target is said as: the other side of a comparison ("against HEAD~2", "since").
_COMPARED = re.compile(
    r"\b(?:against|since|between|compared?\s+(?:to|with)|vs|versus|relative\s+to)\b", re.I
)
_LATEST_COMMIT = re.compile(
    r"\b(?:(?:latest|last|most\s+recent|newest|current)\s+commit|committed\s+version)\b"
    r"|\bcommitted(?=\s+[\w-]+\.[a-z]{1,5}\b)",  # "the committed config.py"
    re.I,
)


def _revision(clause: Clause, *, of_a_file: bool) -> Found:
    """The revision as git writes it; `of_a_file`, with the one file the clause names inside
    the repository ("config.py as it is in the latest commit": HEAD:config.py)."""
    text = clause.text
    if match := _REVISION.search(text):
        found, span = match.group(), Span(start=match.start(), end=match.end())
    elif match := _LATEST_COMMIT.search(text):
        found, span = "HEAD", Span(start=match.start(), end=match.end())
    else:
        return None, None
    inside = [x for x in values_of(clause).locators if not x.value.startswith(("/", "~"))]
    if of_a_file and ":" not in found and len(inside) == 1 and "://" not in inside[0].value:
        file = inside[0]  # the value is read from both places
        both = Span(start=min(span.start, file.start), end=max(span.end, file.end))
        return f"{found}:{file.value}", both
    return found, span


# A glob as written ("*.csv", "**/*.md"), else the kind of file said by its extension (".csv
# files", "csv files", "files ending in .csv"), anywhere below the folder when the clause says so.
_GLOB = re.compile(r"(?<![^\s\"'“‘(])[\w./\[\]{}-]*\*[\w*?./\[\]{}-]*")
_EXTENSION = re.compile(
    r"(?<![\w/])\.(?P<dotted>[A-Za-z0-9]{1,5})\b(?!\.)|\b(?P<word>csv|txt|md|json|py|js|ts|html?|"
    r"log|pdf|png|jpe?g|gif|ya?ml|xml|sql|toml|ini|sh)(?:\s+files?\b|s\b|(?=\s+(?:under|in|"
    r"inside|within|below|beneath|from|at)\b))",  # "every csv file", "all csvs", "every csv in"
    re.IGNORECASE,
)
# A request for everything below a folder ("incl. subfolders"), or under a path.
_RECURSION_ASKED = re.compile(
    r"\b(?:anywhere|everywhere|recursive(?:ly)?|sub-?(?:folders?|directories|dirs))\b", re.I
)
_BELOW = re.compile(
    rf"{_RECURSION_ASKED.pattern}|\bunder\s+(?=[/~])",  # "files with notes in the name under /srv"
    re.I,
)


# A tool that says it goes down into subfolders.
_RECURSIVE = re.compile(r"\brecursive(?:ly)?\b", re.IGNORECASE)


def recursion_asked(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause asks for what is in the subfolders too ("csv files under /srv? incl.
    subfolders") of a tool whose description says it goes down into them (`search_files`,
    `directory_tree`; not `list_directory`, which lists one folder)."""
    asked = _RECURSION_ASKED.search(without_values(clause))
    return bool(asked and _RECURSIVE.search(" ".join(sentences(tool.description)[:1])))


# "anything with "draft" in its name", "files whose name contains draft": a word of the name.
_IN_THE_NAME = re.compile(
    r"\bwith\s+[\"'“]?(?P<w>[\w.-]+)[\"'”]?\s+in\s+(?:its|their|the)\s+(?:file\s*)?names?\b"
    r"|\bnames?\s+(?:contains?|includes?|has)\s+[\"'“]?(?P<v>[\w.-]+)",
    re.IGNORECASE,
)


def _glob(text: str) -> Found:
    said = _GLOB.search(text) or _EXTENSION.search(text) or _IN_THE_NAME.search(text)
    if not said:
        return None, None
    if said.re is _IN_THE_NAME:
        pattern = f"*{said['w'] or said['v']}*"
    elif said.re is _GLOB:
        pattern = said.group()
    else:
        pattern = f"*.{(said['dotted'] or said['word']).lower()}"
    if _BELOW.search(text) and "/" not in pattern:
        pattern = f"**/{pattern}"
    return pattern, Span(start=said.start(), end=said.end())


def _ordinals_named(
    properties: dict[str, Any], required: Collection[str], kinds: dict[str, str], text: str
) -> dict[str, Found]:
    """A required whole number an ordinal gives right before the parameter's name: "the 19th
    century" for century (an ordinal is no count elsewhere: "the 2nd commit")."""
    found: dict[str, Found] = {}
    for name in required:
        if kinds.get(name) != "integer":
            continue
        nouns = "|".join(re.escape(w) for w in readable_name(name).split())
        if match := re.search(rf"\b(\d+)(?:st|nd|rd|th)\s+(?:{nouns})\b", text, re.I):
            found[name] = (int(match[1]), Span(start=match.start(1), end=match.end(1)))
    return found


def _number_lists(
    properties: dict[str, Any], required: Collection[str], text: str, numbers: list[Number]
) -> list[tuple[str, list[Any], Span, list[Number]]]:
    """A required list of numbers takes a list the text writes ("the following data: 85, 90,
    88 and 92", "[12, 15, 18]"), each list once, in order: the one after the parameter's name
    or description first."""
    runs = _number_runs(text, numbers)
    found = []
    for name, prop in properties.items():  # in the schema's order: dataset_a, then dataset_b
        if name not in required or not _takes_numbers(prop) or not runs:
            continue
        words = _stems(f"{readable_name(name)} {prop.get('description', '')}") - _BLANK_WORDS
        run = next(
            (r for r in runs if words & _stems(text[max(0, r[0].start - 30) : r[0].start])), runs[0]
        )
        runs.remove(run)
        span = Span(start=run[0].start, end=run[-1].end)
        found.append((name, [_plain(n) for n in run], span, run))
    return found


def _takes_numbers(prop: dict[str, Any]) -> bool:
    return json_type(prop) == "array" and json_type(prop.get("items") or {}) in NUMERIC_KINDS


def _number_runs(text: str, numbers: list[Number]) -> list[list[Number]]:
    """The lists of two numbers or more the text writes, each number joined to the one before
    by a comma or "and" only."""
    runs: list[list[Number]] = []
    for number in sorted(numbers, key=lambda n: n.start):
        joined = runs and re.fullmatch(LIST_JOIN, text[runs[-1][-1].end : number.start])
        if joined and not number.in_date:
            runs[-1].append(number)
        else:
            runs.append([number])
    return [run for run in runs if len(run) > 1]


def _as_word(words: str, text: str, flags: int = 0) -> re.Match[str] | None:
    """Where the text says the words as words of their own ("all", not the end of "called")."""
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text, flags)


def _option_said(option: str, text: str) -> re.Match[str] | None:
    """Where the text says the option: as written, or, one of several words ("high_low_
    temperature"), each word of it (plural or not), the first's place."""
    if match := _as_word(option, text, re.IGNORECASE):
        return match
    words = [w for w in re.split(r"[\s_-]+", option) if w]
    found = [re.search(rf"\b{re.escape(w)}(?:e?s)?\b", text, re.I) for w in words]
    return found[0] if len(words) > 1 and all(found) else None


def _options_listed(properties: dict[str, Any], text: str) -> dict[str, Found]:
    """A list of options takes each option the clause says, in the clause's order: "organic
    fruits and vegetables" for categories of Organic, Fruits, ...; an option of several words
    when the clause says each ("high and low temperatures" for high_low_temperature)."""
    found: dict[str, Found] = {}
    for name, prop in properties.items():
        choices = options(prop.get("items") or {}) if json_type(prop) == "array" else []
        said = [
            (match.start(), match.end(), option)
            for option in choices
            if isinstance(option, str) and (match := _option_said(option, text))
        ]
        if said:
            said.sort()
            found[name] = ([o for _, _, o in said], Span(start=said[0][0], end=said[-1][1]))
    return found


def _enum_value(choices: list[Any], text: str) -> Found:
    """The first option the clause says as a word of its own ("all", not the end of "called");
    of several, "all" when the clause says all or both of them ("both local and remote
    branches", "all branches, remote ones included")."""
    said = {}
    for option in choices:
        if isinstance(option, str) and option.strip():
            match = _as_word(option, text, re.IGNORECASE)
            if match:
                said[option] = (option, Span(start=match.start(), end=match.end()))
    every = next((o for o in choices if isinstance(o, str) and o.lower() == "all"), None)
    if every and len(said) > 1 and re.search(r"\b(?:all|both)\b", text, re.IGNORECASE):
        return said.get(every) or (every, None)
    return next(iter(said.values()), (None, None))


def _zone_in_role(role: str | None, text: str, pool: list[Found]) -> Found:
    """The zone for a source or target parameter: one said "to" or "into" is the target's
    ("convert 16:00 to Nairobi time" gives no source); else the next in the pool."""
    to = [z for z in pool if z[1] and re.search(r"\b(?:to|into)\s+$", text[: z[1].start])]
    fits = (
        to if role == "destination" and to else [z for z in pool if role != "origin" or z not in to]
    )
    if not fits:
        return None, None
    pool.remove(fits[0])
    return fits[0]


def _zones_source_first(values: Values, text: str) -> list[Found]:
    """Zones in order of mention, except that the zone a clock time is given in comes first:
    the one right after it ("time in Sydney when it is 9:00 in Berlin" converts from Berlin),
    where the user is for "my time" ("I'm in Phoenix ... around 6 pm my time"), else the
    nearest before it ("a call in Tokyo at 09:00 her time: what is that in Kolkata?")."""
    mentions = list(values.zones)
    if values.times and len(mentions) > 1:
        time = values.times[0]
        mine = _MY_TIME.match(text[time.end :]) is not None

        def order(mention: ZoneMention) -> tuple[int, int]:
            after = mention.start - time.end
            if 0 <= after <= _RIGHT_AFTER:
                return 0, after
            if mine and _WHERE_I_AM.search(text[: mention.start]):
                return 0, 0
            return (1 if mention.start < time.start else 2), abs(time.start - mention.start)

        mentions.sort(key=order)
    return [(mention.zone, _span(mention)) for mention in mentions]


_RIGHT_AFTER = 12  # characters between a clock time and the zone it is given in: " in Berlin"
_MY_TIME = re.compile(r"\W*(?:my|our)\s+(?:local\s+)?time\b", re.IGNORECASE)
_WHERE_I_AM = re.compile(
    r"\b(?:i'?m|i\s+am|we'?re|we\s+are|i\s+live|we\s+live)\s+(?:based\s+|now\s+)?in\s+$",
    re.IGNORECASE,
)


def value_sets(
    schema: dict[str, Any], clause: Clause, *, files: bool = False
) -> list[dict[str, Any]]:
    """The arguments of several calls when the clause gives the required values of one kind
    several times over ("weather in Paris, Rome and Oslo": three cities for one `city`; "6 feet
    and 80 kg, also 5.6 feet and 60 kg": two heights and two weights), in order; [] when it
    does not. Numbers, listed places, names listed for a search matched against names ("on
    Alice and on Carol") and, with `files` (for a tool that only reads, never one
    that would write "a.txt and b.txt" alike), files: quoted strings serve too many different
    parameters to be told apart, and two dates are mostly a start and an end. Other parameters
    get what `extract_arguments` finds, the same in each set."""
    values = values_of(clause)
    properties = schema.get("properties") or {}
    groups: dict[str, list[str]] = {}
    for name in schema.get("required") or []:
        kind = param_kind(name, properties.get(name, {}))
        if _takes_numbers(properties.get(name, {})):
            kind = "numbers"  # "the first set is [12, 15] and the second set is [32, 35]"
        groups.setdefault("number" if kind in NUMERIC_KINDS else kind, []).append(name)
    paths = [x for x in values.locators if x.kind == "path"]
    queries = groups.get("query", [])
    by_name = bool(queries) and all(
        _MATCHED.search(properties[n].get("description", "")) for n in queries
    )
    runs = _number_runs(clause.text, [n for n in values.numbers if not n.in_date])
    runs = runs if "numbers" in groups else []  # else "3 and 4, 5 and 12" are four numbers
    in_runs = {id(n) for run in runs for n in run}
    found: dict[str, list[Any]] = {
        "numbers": [[_plain(n) for n in run] for run in runs],
        "number": [n.value for n in values.numbers if not n.in_date and id(n) not in in_runs],
        "place": list(values.listed_places),
        # Names listed for a search matched against names ("Alice and Carol"): one each.
        "query": _listed_names(clause) if by_name else [],
        # Files, each in the folder it is said to be in ("read a.txt and b.txt in /srv").
        "path": [
            x.joined
            for x in paths
            if files and _FILE_NAME.search(x.value) and not any(y.folder == x.value for y in paths)
        ],
    }
    counts = {
        kind: len(found[kind]) // len(names)
        for kind, names in groups.items()
        if kind in found and len(found[kind]) % len(names) == 0
    }
    many = {count for count in counts.values() if 2 <= count <= MAX_VALUE_SETS}
    shared = extract_arguments(schema, clause).arguments
    # A list of numbers one value heads ("a term of 15, 20 and 30 years"), first; one of names
    # is told apart from a name and a word after it only with a model's help.
    numbers = {
        n: v for n, v in shared.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
    }
    if listed := listed_sets(numbers, clause.text):
        return [shared | each for each in listed]
    if len(many) != 1:
        return []
    calls = many.pop()
    sets = []
    for call in range(calls):
        arguments = dict(shared)
        for kind, names in groups.items():
            if counts.get(kind) == calls:
                chosen = found[kind][call * len(names) : (call + 1) * len(names)]
                arguments.update(zip(names, chosen, strict=True))
        sets.append(arguments)
    return sets


# An item of a list after the one before it: "15, 20 and 30", "navy, purple and maroon".
_NEXT_LISTED = re.compile(rf"{LIST_JOIN}(?:(?:the|a|an)\s+)?")


def listed_sets(arguments: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """A set of arguments per item where the value of one heads a list the text gives ("a
    loan term of 15, 20 and 30 years": loan_term 15, 20 and 30; "navy, purple and maroon"),
    the other arguments the same in each, and per pair where two do; [] when none does. An
    item has as many words as the value it follows ("Persian Empire and Mauryan Empire") and
    is written alike (no "Paris and tell me"); a number list holds only numbers, none another
    argument's ("add 17 and 25" is one call)."""
    others = {str(v) for v in arguments.values()}
    sets = [dict(arguments)]
    for name, value in arguments.items():
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            continue
        items = _list_from(value, text)
        if len(items) < 2 or any(str(i) in others for i in items if str(i) != str(value)):
            continue
        if len(sets) * len(items) > MAX_VALUE_SETS:
            break
        # "rock and jazz concerts in Paris and Rome": each genre in each city
        sets = [{**each, name: item} for each in sets for item in items]
    return sets if len(sets) > 1 else []


def whole_name(part: str, text: str) -> str:
    """The name in capitals the text writes that the one word `part` is a part of, not opening
    a sentence ("La Liga" for "Liga", "Treaty of Lisbon" for "Treaty"; not "Lawyer John Doe"
    for "John Doe"); `part` when none."""
    if len(part.split()) != 1:
        return part
    for match in _NAME_RUN.finditer(text):
        start = match.start()
        words = match.group().split()
        if _opens_sentence(text, start, ".?!:"):
            words = words[1:]  # "Find the Louvre Museum": no verb, nor "the"
            while words and words[0].lower() in NAME_JOINERS:
                words = words[1:]
        name = " ".join(words)
        if part != name and _as_word(part, name):
            return name if len(name.split()) > 1 else part
    return part


# A name in capitals without a possessive or an "and" in it: "Treaty of Lisbon".
_NAME_RUN = re.compile(_capitalised(r"\w&-", NAME_JOINERS, "+"))


def listed_with(item: str, text: str) -> list[str]:
    """The items of the list the text writes that `item` is one of; [item] when none."""
    return [str(i) for i in _list_from(item, text)]


def _list_from(value: str | float, text: str) -> list[Any]:
    """The items of the list `value` is one of in `text`, in their order; [value] when none.
    The value bound may be any item: "for 10, 20 and 30 years" binds the 30 beside "years"."""
    numeric = not isinstance(value, str)
    written = re.escape(str(value if isinstance(value, str) else _plain(float(value))))
    start = re.search(rf"(?<![\w.]){written}(?![\w]|\.\d)", text)
    if start is None:
        return [value]
    words = len(str(value).split())
    item = _LISTED_NUMBER if numeric else rf"[^\s,;]+(?:\s+[^\s,;]+){{{words - 1}}}"

    def alike(word: str, at: int) -> bool:
        return numeric or _written_alike(str(value), word, text[at:])

    at = start.start()  # back to the list's first item
    while (before := re.search(rf"(?<![\w.])(?P<v>{item}){LIST_JOIN}$", text[:at])) and alike(
        before["v"], before.end("v")
    ):
        at = before.start()
    items: list[Any] = []
    last = False  # the list ends with the item after "and" or "or"
    while following := re.match(rf"(?P<v>{item})(?![\w])", text[at:]):
        word = following["v"].rstrip(".?!:")
        if items and not alike(word, at + following.end()):
            break
        items.append(_plain(float(word.replace(",", ""))) if numeric else word)
        if last:  # "15, 20 and 30", not "15, 20" alone
            return items if value in items else [value]
        if (join := _NEXT_LISTED.match(text, at + len(word))) is None:
            break
        at, last = join.end(), re.search(r"\b(?:and|or)\b|&", join.group()) is not None
    return [value]


# A number as a list writes it: "1,000" is one, "1,5 and 10" three.
_LISTED_NUMBER = r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?"


_OBJECTS = re.compile(r"\s+(?:me|us|you|him|her|them|it|the|a|an|my|our|to)\b", re.IGNORECASE)


def _written_alike(value: str, item: str, after: str) -> bool:
    """Whether `item` may be another of what `value` is: capitalised alike, no small word, no
    verb before its object ("tell me")."""
    capitals = [w[:1].isupper() for w in value.split()] == [w[:1].isupper() for w in item.split()]
    small = {w.lower() for w in item.split()} & _NOT_NAMES
    return capitals and not small and not _OBJECTS.match(after)


# A path whose last part has an extension names a file; a clause calls a path a folder by the
# words before it ("the folder /srv/x", "what files are in /srv/x").
_FILE_NAME = re.compile(r"[^/.]\.[A-Za-z0-9]{1,5}$")
_FOLDER_SAID = re.compile(
    r"(?:\b(?:folder|directory|dir)\s+(?:in\s+|inside\s+|under\s+)?"
    r"|\bfiles?\s+(?:(?:are|is|there|anywhere)\s+){0,2}(?:in|inside|under)\s+"
    r"|\b(?:which|what)\s+files\s+)"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
# "a drafts folder", "/srv and its subfolders"
_FOLDER_AFTER = re.compile(r"\s+(?:folder|directory|and\s+(?:its|all)\s+sub)", re.IGNORECASE)


def other_kind_of_path(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause's paths are not what the tool works on: files for a tool named for
    folders ("the first lines of todo.md" and directory_tree), or what the clause calls a folder
    for a tool named for files that says nothing of folders first ("what files are in
    /srv/projects" and read_text_file; get_file_info is "about a file or directory")."""
    paths = [x for x in values_of(clause).locators if x.kind == "path"]
    named = set(readable_name(tool.name).split())
    if not paths:
        return False
    required = tool.input_schema.get("required") or []
    if names_folders(tool) or any(_names_folder(name) for name in required):
        # "... in /srv/server.log" and git_log(repo_path): a file is no repository; "make a new
        # file in /srv for me" makes no folder (Qwen2.5-Coder called create_directory(/srv)),
        # nor does "put server.log from /srv in the folder /srv/old" (a file moved)
        files = [bool(_FILE_NAME.search(x.value)) for x in paths]
        made = names_folders(tool) and changes_things(tool)
        return all(files) or (made and (any(files) or _file_made(tool, clause)))
    first = (sentences(tool.description) or [""])[0].lower()
    if named & {"file", "files"} and not set(re.findall(r"[a-z]+", first)) & _FOLDER_NOUNS:
        return _called_folders(clause, paths) and not _file_made(tool, clause)
    return False


def _file_made(tool: ToolSpec, clause: Clause) -> bool:
    """ "Make a new file in /srv for me": the folder is where a tool that makes files puts it,
    and no folder is made."""
    return changes_things(tool) and _A_FILE_MADE.search(clause.text) is not None


_A_FILE_MADE = re.compile(
    r"\b(?:make|create|start)\s+(?:me\s+)?(?:a|an)\s+(?:new\s+|empty\s+)?"
    r"(?:file|document|spreadsheet|list)\b",
    re.I,
)


def names_folders(tool: ToolSpec) -> bool:
    """Whether the tool's name says it works on folders (list_directory, directory_tree)."""
    return bool(set(readable_name(tool.name).split()) & FOLDER_WORDS)


def folder_for_folders(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause calls its paths folders and the tool is named for folders: "the
    contents of the /srv/projects directory" and list_directory, not git_show."""
    paths = [x for x in values_of(clause).locators if x.kind == "path"]
    if _glob(clause.text)[0]:  # "the csv files anywhere in /srv": a search in the folder
        return False
    made = _file_made(tool, clause)
    return bool(paths) and names_folders(tool) and _called_folders(clause, paths) and not made


def _called_folders(clause: Clause, paths: list[Locator]) -> bool:
    text = clause.text
    return all(
        _FOLDER_SAID.search(text[: x.start]) or _FOLDER_AFTER.match(text[x.end :]) for x in paths
    )


# "get the webpage", "open that link": a web address a request points at without giving it,
# which a tool that takes one is asked for (and the user then asked which). A question ("who
# runs the website ...?") asks about a page, it wants none opened.
_POINTED_PAGE = re.compile(
    r"\b(?:the|that|this)\s+(?:web\s*)?(?:link|url|page|webpage|website|article)\b", re.IGNORECASE
)
_ASKS = re.compile(r"^\W*(?:who|whom|whose|what|which|when|where|why|how|in\s+wh\w+)\b", re.I)


def points_at_missing(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the request points at a web address it does not give and the tool needs one."""
    text = clause.text
    if values_of(clause).locators or not _POINTED_PAGE.search(text) or _ASKS.match(text):
        return False
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return any(param_kind(n, properties.get(n) or {}) == "url" for n in required)


_FOLDER_NOUNS = FOLDER_WORDS | {"directories", "folders", "dirs"}


def files_left(tool: ToolSpec, clause: Clause) -> list[Locator]:
    """The files the clause names that the tool has no parameter for: "commit app.py" and
    `git_commit(repo_path, message)`."""
    values = values_of(clause)
    kinds = _kinds(tool.input_schema.get("properties") or {}, values)
    if any(k == "paths" or (k == "path" and not _names_folder(n)) for n, k in kinds.items()):
        return []
    return [x for x in values.locators if x.kind == "path" and _FILE_NAME.search(x.value)]


def gives_all(tool: ToolSpec, clause: Clause, paths: list[Locator]) -> bool:
    """Whether the clause gives every required value of the tool, all of `paths` used."""
    filled = extract_arguments(tool.input_schema, clause)
    required = tool.input_schema.get("required") or []
    given = [v for value in filled.arguments.values() for v in _listed(value)]
    used = all(x.value in given or x.joined in given for x in paths)
    return used and all(filled.origins.get(n) == "extracted" for n in required)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _fills(name: str, properties: dict[str, Any], arguments: dict[str, Any]) -> float:
    """How far a value fills its parameter: one path fills half a list of them ("read a.txt"
    asks for no `read_multiple_files`)."""
    value = arguments.get(name)
    one = isinstance(value, list) and len(value) == 1
    return 0.5 if one and param_kind(name, properties.get(name) or {}) == "paths" else 1.0


def _names_things(name: str) -> bool:
    return readable_name(name).split()[-1:] in (["name"], ["names"])


def gives_values(clause: Clause) -> bool:
    """Whether the clause gives any value a tool could take (`_given`)."""
    return bool(_given(clause))


def _given(clause: Clause) -> list[Span]:
    """The values the clause gives, once each: numbers, quotes, paths, places, names and what the
    servers hold that it names; with none of those, the words what they hold says ("peanuts")."""
    values = values_of(clause)
    named = [*names_in(clause), *clause.held]
    _, pattern = _glob(clause.text)  # "the csv files in /srv": a kind of file to search for
    patterns = [pattern] if pattern else []
    zones = zone_ids(clause.text)  # "Asia/Tokyo" is one value, not the names Asia and Tokyo
    named = [n for n in named if not any(z.start <= n.start < z.end for z in zones)]
    said = _REVISION.search(clause.text) or _LATEST_COMMIT.search(clause.text)
    revisions = [Span(start=said.start(), end=said.end())] if said else []  # "the last commit"
    found = {
        x.start: x
        for x in [*values.counted(), *values.places, *named, *patterns, *zones, *revisions]
    }
    return list(found.values() or {x.start: x for x in clause.about}.values())


def locators_fill(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause's paths or addresses fill every parameter the tool requires, and
    those parameters take nothing else ("... in /srv/server.log - did it go through?" and
    `read_text_file(path)`)."""
    required = tool.input_schema.get("required") or []
    properties = tool.input_schema.get("properties") or {}
    filled = extract_arguments(tool.input_schema, clause).arguments
    return bool(required) and all(
        name in filled and param_kind(name, properties.get(name, {})) in LOCATOR_KINDS
        for name in required
    )


_MOMENT_WORDS = {"day", "days", "date", "dates", "time", "times", "hour", "hours", "when", "at"}


def leaves_a_value(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause gives a clock time, a date or a git revision that the tool has no
    parameter for: "09:30 Nairobi -> Bangkok time" converts 09:30, it asks for no current time;
    "what changed since HEAD~2?" diffs against HEAD~2, not what is staged (a forecast's `days`
    may take "tomorrow" when the step runs)."""
    properties = tool.input_schema.get("properties") or {}
    words = {w for name in properties for w in readable_name(name).split()}
    # a parameter a moment may be: named or described so ("checkIn": "Check-in date")
    said = {
        w
        for name, prop in properties.items()
        for w in re.findall(
            r"[a-z]+", f"{readable_name(name)} {prop.get('description', '')}".lower()
        )
    }
    values = values_of(clause)
    moment = bool(values.times or values.dates) and not said & _MOMENT_WORDS
    revision = _REVISION.search(clause.text) is not None and not words & REVISION_NAMES
    # "add a file README.txt to /a containing the sentence "...": a text to write, which a tool
    # that stages files (`git_add`) has no place for
    text = any(_CONTAINING.search(clause.text[: q.start]) for q in values.quoted)
    return moment or revision or (text and not words & CONTENT_NAMES)


# What is said before the text a file is to hold.
_CONTAINING = re.compile(
    r"\b(?:contain(?:s|ing)?|saying|says|reading|with\s+the\s+(?:text|content|contents))\s+"
    r"(?:(?:the|this|a)\s+(?:sentence|text|line|words?|note)\s+)?[\"'“‘]?$",
    re.IGNORECASE,
)


def looked_up(tool: ToolSpec, name: str, clause: Clause) -> tuple[str, str] | None:
    """The kind of thing whose value for `name` a listing gives and its description, for a
    tool that only reads things of that kind and a clause that names one by a quoted
    description ("what did the "Update README with usage" commit change?" and git_show's
    revision: a commit, Update README with usage), or None."""
    described = described_by_quote(clause.text)
    prop = (tool.input_schema.get("properties") or {}).get(name, {})
    if described is None or changes_things(tool) or json_type(prop) != "string":
        return None
    if param_kind(name, prop) in LOCATOR_KINDS | NUMERIC_KINDS:
        return None  # a path or a number is no id a listing gives
    return described if re.search(rf"\b{re.escape(described[0])}", tool.description, re.I) else None


def keeps_facts(clause: Clause) -> bool:
    """Whether the clause keeps facts a step of an earlier clause reads: it names them or points
    back ("... and add his email to memory", "... and remember it under Bob"), or keeps what
    the text read says someone did ("with an observation saying what he agreed to do"). The
    records it describes take them (planning/dataflow.py)."""
    kept = facts_named(clause.text) or refers_back(clause.text) or says_what_they_did(clause.text)
    return clause.index > 0 and bool(kept)


def feasibility(tool: ToolSpec, clause: Clause) -> float:
    """How well the clause's specific values fit the tool, from 0 to 1: the share of its
    required parameters they fill, averaged with the share of the values the tool would use."""
    filled = extract_arguments(tool.input_schema, clause)
    used = [name for name, origin in filled.origins.items() if origin == "extracted"]
    required = tool.input_schema.get("required") or []
    if states_first(clause.text) and used and all(_names_things(name) for name in used):
        # "Bob got over his peanut allergy, take that out of memory": "that" is the fact; a
        # tool given only the names in it (`delete_entities`) would act on Bob himself.
        return 0.0
    # "save it to a.txt": the earlier result the clause points back at is the content; "add 445
    # to that": it is the one value still missing, unless that is a place (a path, a URL): the
    # place a change acts on is never taken from a result (planning/dataflow.py).
    missing = [name for name in required if name not in used]
    pointed: set[str] = set()
    if refers_back(clause.text):
        pointed = {n for n in missing if n.lower() in PAYLOAD_NAMES}
        prop = (tool.input_schema.get("properties") or {}).get(missing[0], {}) if missing else {}
        if len(missing) == 1 < len(required) and param_kind(missing[0], prop) not in LOCATOR_KINDS:
            pointed.add(missing[0])
    properties = tool.input_schema.get("properties") or {}
    if keeps_facts(clause):  # "... and add it to Bob in memory": a record of what was read
        pointed |= {n for n in missing if record_keeping(properties.get(n, {}), clause, ["?"])}
    if clause.index > 0 and found_thing(clause) and record_kind(tool.input_schema) == "things":
        # "... and add that person to my knowledge graph": the thing a read names
        pointed |= {n for n in missing if json_type(properties.get(n, {})) == "array"}
    if len(missing) == 1 and looked_up(tool, missing[0], clause):
        pointed.add(missing[0])  # "the "Update README" commit": its id read from a listing
    given_for = sum(_fills(name, properties, filled.arguments) for name in required if name in used)
    fill = (given_for + len(pointed)) / len(required) if required else 0.0
    # The values the arguments use, by where they stand: one argument may use several (an SQL
    # statement, a list of records), and places and names count ("whose city is Lyon").
    given = _given(clause)
    spans = [filled.spans[name] for name in used if name in filled.spans]
    covered = sum(any(s.start <= x.start < s.end for s in spans) for x in given)
    use = covered / len(given) if given else 0.0
    return (fill + use) / 2
