"""References from one step's arguments to an earlier step's result.

An argument value may be, or contain, `{{s1.result}}` or `{{s1.result.items.0.name}}`: the
result of step s1, or a part of it reached by keys and list indexes (keys cannot contain dots or
spaces). A filter after a bar takes a part of that text, as the request asked for it:
- `lines:ERROR`: the lines that hold the word, any case ("save the ERROR line of server.log");
- `last_line`: the last line that is not blank (what a line appended to a file is put after);
- `ticked:call the bank`: the one line that holds the words, its box "[ ]" ticked ("- [x] call
  the bank", what a to-do ticked off becomes); `unticked:...` opens a ticked box again;
- `field:deadline`: the one line labelled so ("Deadline: 2024-11-15"); `field:deadline=
  2024-12-06` that line with its value replaced (what "alpha.txt deadline -> 2024-12-06" edits);
- `csv_line:for printing, at a cost of 150`: a CSV line in the header's columns ("item,cost"
  gives "printing,150"), each value after its column's name, the one left what the line is for;
- `row:users:name,email,city`: an INSERT of the row its labelled lines give ("Name: Grace
  Hopper"), for those of the table's columns they name, each value an SQL string literal (what a
  sign-up form read from a file adds to a table);
- `value:city`: the one value it gives for the word, by a key of its record (a row's "city"), a
  labelled line ("Phone: 555-0142") or a quoted key ('"city": "Lisbon"'): a fact read from a
  table, page or file passed on ("add Bob Chen's city to Bob in memory"); `value:price of
  baguette`, that of a thing: the cell under the fact's header in the table row that names it,
  the amount on the line that names it, or the labelled value of the listed record that names
  it (`value:commit of fix typo` in a log's "Commit: ..." records).
A value that is exactly one reference takes the referenced value with its type; a reference
inside a longer string is formatted into it (text as is, anything else as compact JSON, so
numbers read as numbers).
"""

from __future__ import annotations

import ast
import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from toolweave.errors import ToolweaveError
from toolweave.language.sql import sql_literal
from toolweave.types import Plan

REFERENCE = re.compile(
    r"\{\{\s*(?P<step>[\w-]+)\.result(?P<path>(?:\.[\w-]+)*)"
    r"(?P<filter>\s*\|\s*(?:lines:(?P<word>[^{}|]+?)|(?P<un>un)?ticked:(?P<item>[^{}|]+?)"
    r"|(?P<last>last_line)|csv_line:(?P<described>[^{}|]+?)"
    r"|field:(?P<label>[^{}|=]+?)(?:=(?P<set>[^{}|]+?))?"
    r"|row:(?P<table>\w+):(?P<columns>\w+(?:,\w+)*)|value:(?P<fact>[a-z]+(?: [a-z]+)*)))?\s*\}\}"
)
# "Name: Grace Hopper": a labelled line, its label and its value.
_LABELLED = re.compile(r"^\s*(?P<label>[A-Za-z][\w -]{0,30}?)\s*:\s*(?P<value>\S.*?)\s*$", re.M)
# Where a text gives a value its label: "* Phone: 555-0142", "**Owner:** Priya", '"city": "Lisbon"'.
_GIVEN = re.compile(
    r"^[\s*>#|-]*(?P<label>[A-Za-z][\w .-]{0,30}?)[*\s]*:[*\s]*(?P<value>\S.*?)\s*$"
    r"|[\"'](?P<key>[\w .-]{1,30})[\"']\s*:\s*"
    r"(?:\"(?P<said>[^\"]*)\"|'(?P<single>[^']*)'|(?P<bare>[\w.+-]+))",
    re.M,
)

_OPEN_BOX = re.compile(r"\[ \]")
_TICKED_BOX = re.compile(r"\[[xX]\]")

# How many keys or step ids an error message lists before it stops.
_LISTED = 10


class UnresolvedReference(ToolweaveError):
    """A reference names a step without a result, or a part its result does not have."""

    def __init__(self, message: str, *, reference: str, step: str) -> None:
        super().__init__(message)
        self.reference = reference
        self.step = step


def references(value: Any) -> set[str]:
    """The ids of the steps whose results `value` (a str, or lists and dicts of them) uses."""
    return {m["step"] for text in _strings(value) for m in REFERENCE.finditer(text)}


def resolve(arguments: dict[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `arguments` with every reference replaced by the value it points to.

    `results` maps a step id to its structured result, or to its text when it had none.
    Raises UnresolvedReference, naming the reference and what exists where it points.
    """

    def substitute(text: str) -> Any:
        whole = REFERENCE.fullmatch(text)
        if whole:
            # Copied so that changing an argument never changes the earlier step's result.
            return copy.deepcopy(_lookup(whole, results))
        return REFERENCE.sub(lambda m: _format(_lookup(m, results)), text)

    resolved: dict[str, Any] = map_strings(arguments, substitute)
    return resolved


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def map_strings(value: Any, change: Callable[[str], Any]) -> Any:
    """`value` rebuilt with `change` applied to every string inside it (dict keys excepted)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [map_strings(item, change) for item in value]
    return value


def whole_references(arguments: dict[str, Any]) -> dict[str, str]:
    """The top-level arguments that are exactly one reference, each with the step it names."""
    return {
        name: whole["step"]
        for name, value in arguments.items()
        if isinstance(value, str) and (whole := REFERENCE.fullmatch(value.strip()))
    }


def links(plan: Plan) -> list[tuple[str, str, str, str]]:
    """(consumer step, parameter, producer step, path in its result) for each top-level argument
    that is exactly one reference: the data flow a run exercises, read before it resolves."""
    found = []
    for step in plan.steps:
        for name, value in step.arguments.items():
            if isinstance(value, str) and (whole := REFERENCE.fullmatch(value.strip())):
                found.append((step.id, name, whole["step"], whole["path"].removeprefix(".")))
    return found


def rename_references(arguments: dict[str, Any], ids: Mapping[str, str]) -> dict[str, Any]:
    """`{{T1.result.x}}` -> `{{s1.result.x}}` for each id in `ids`; other ids stay as they are."""

    def rename(match: re.Match[str]) -> str:
        step = ids.get(match["step"], match["step"])
        return "{{" + f"{step}.result{match['path']}{_filter(match)}" + "}}"

    renamed: dict[str, Any] = map_strings(arguments, lambda text: REFERENCE.sub(rename, text))
    return renamed


def _lookup(match: re.Match[str], results: Mapping[str, Any]) -> Any:
    step = match["step"]
    path = match["path"].split(".")[1:]
    reference = "{{" + f"{step}.result{match['path']}{_filter(match)}" + "}}"

    def fail(why: str) -> UnresolvedReference:
        return UnresolvedReference(f"{reference}: {why}", reference=reference, step=step)

    if step not in results:
        known = f"results of: {_listing(results)}" if results else "no step has a result yet"
        raise fail(f"there is no result of step {step} ({known})")
    value = results[step]
    where = f"{step}'s result"
    for segment in path:
        problem = _cannot_take(value, segment, where)
        if problem:
            raise fail(problem)
        value = value[int(segment)] if isinstance(value, list | tuple) else value[segment]
        where += f".{segment}"
    if match["table"] is not None:
        return _row(_format(value), match["table"], match["columns"].split(","), fail, where)
    if match["fact"] is not None:
        return _value(value, match["fact"], fail, where)
    if match["item"] is not None:
        return _ticked(_format(value), match["item"], fail, where, undone=bool(match["un"]))
    if match["described"] is not None:
        return _csv_line(_format(value), match["described"], fail, where)
    if match["label"] is not None:
        return _field(_format(value), match["label"], match["set"], fail, where)
    if match["last"] is not None:
        filled = [line for line in _format(value).splitlines() if line.strip()]
        if not filled:
            raise fail(f"{where} has no line that is not blank")
        return filled[-1]
    if match["word"] is None:
        if _parsed(value) in ("", [], {}, None):  # "[]" from a query that found no row
            raise fail(f"{where} is empty: there is nothing to pass on")
        return value
    lines = [line for line in _format(value).splitlines() if _holds(line, match["word"])]
    if not lines:  # nothing to pass on is a failed step, not an empty file written
        raise fail(f"no line of {where} holds {match['word']!r}")
    return "\n".join(lines)


def _row(
    text: str,
    table: str,
    columns: list[str],
    fail: Callable[[str], UnresolvedReference],
    where: str,
) -> str:
    """The INSERT of the row the text's labelled lines give, for the columns they name."""
    labelled: dict[str, str] = {}
    for line in _LABELLED.finditer(text):
        labelled.setdefault(re.sub(r"[\s-]+", "_", line["label"].strip().lower()), line["value"])
    named = [c for c in columns if c in labelled]
    if not named:  # nothing to add is a failed step, not an empty row
        raise fail(f"no line of {where} gives a value for {', '.join(columns)}")
    values = ", ".join(sql_literal(labelled[c]) for c in named)
    return f"INSERT INTO {table} ({', '.join(named)}) VALUES ({values})"


def _field(
    text: str, label: str, value: str | None, fail: Callable[[str], UnresolvedReference], where: str
) -> str:
    """The one line of the text labelled `label` ("Deadline: 2024-11-15"), or, with a value, that
    line with the value after its label replaced ("Deadline: 2024-12-06")."""
    found = [_GIVEN.match(line) for line in text.splitlines()]  # "* Deadline: ..." too
    words = re.findall(r"[a-z0-9]+", label.lower())  # the whole label: "date" is no "Start date"
    lines = [m for m in found if m and m["label"] and _label_words(m["label"]) == words]
    if len(lines) != 1:
        raise fail(f"{len(lines) or 'no'} lines of {where} are labelled {label!r}")
    line = lines[0]
    if value is None:
        return line.string
    return line.string[: line.start("value")] + value + line.string[line.end("value") :]


def _csv_line(
    text: str, described: str, fail: Callable[[str], UnresolvedReference], where: str
) -> str:
    """The line of a CSV text that the description gives, in its header's columns: each value
    after its column's name ("a cost of 150"), and the one column left what the line is "for"
    ("for printing"); item,cost gives "printing,150"."""
    header = next((line for line in text.splitlines() if line.strip()), "")
    columns = [c.strip() for c in header.split(",")]
    if len(columns) < 2:
        raise fail(f"{where} has no header of columns to place {described!r} in")
    values = {}
    for column in columns:
        said = rf"\b{re.escape(column)}\b\s*(?:of|:|=|is)?\s*[$€£]?(?P<v>\d[\d.]*|[A-Za-z][\w-]*)"
        if found := re.search(said, described, re.IGNORECASE):
            values[column] = found["v"]
    left = [c for c in columns if c not in values]
    if len(left) == 1 and (named := re.search(r"\bfor\s+(?P<v>[\w-]+)", described)):
        values[left[0]] = named["v"]
    if missing := [c for c in columns if c not in values]:
        raise fail(f"{described!r} gives no {', '.join(missing)} for a line of {where}")
    return ",".join(values[c] for c in columns)


def _value(value: Any, fact: str, fail: Callable[[str], UnresolvedReference], where: str) -> str:
    """The one value `value` gives for the fact: its record's key, else its text's label; a
    fact of a thing ("price of carrot cake") from the table row, or the line, that names it."""
    if " of " in fact:
        asked, thing = fact.split(" of ", 1)
        given, what = _cells_of(_format(value), asked, thing), f"{asked!r} of {thing!r}"
    else:
        given, what = _keyed(_parsed(value), fact) or _labelled(_format(value), fact), repr(fact)
    values = list(dict.fromkeys(str(v).strip().strip("*").strip() for v in given))
    if len(values) != 1:  # none, or several: which one is meant is not known
        said = f"{len(values)} different values" if values else "no value"
        raise fail(f"{where} gives {said} for {what}")
    return values[0]


def _labelled(text: str, fact: str) -> list[str]:
    """The values the text gives the fact by a label ("Phone: 555-0142") or a quoted key."""
    return [
        m["value"] if m["label"] else next(v for v in (m["said"], m["single"], m["bare"]) if v)
        for m in _GIVEN.finditer(text)
        if _names(m["label"] or m["key"], fact)
    ]


# What a money amount is said as, and a fact that is one.
_MONEY = re.compile(r"^[$€£]?\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?:[$€£]|USD|EUR|GBP)?$")
_MONEY_FACTS = {"price", "cost", "amount"}


def _cells_of(text: str, fact: str, thing: str) -> list[str]:
    """The values of the fact in the rows that name the thing: the cell under the header that
    names it in a table ("| Carrot cake (whole) | $27.00 |" under "| Item | Price |"), else,
    for money, the one amount on a line that names the thing; an amount as a number."""
    facts = _MONEY_FACTS if fact in _MONEY_FACTS else {fact}
    words = re.findall(r"[a-z0-9]+", thing.lower())
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()]
    header = next(
        (r for r in rows if len(r) > 1 and any(_names(c, f) for c in r for f in facts)), []
    )
    at = next((i for i, c in enumerate(header) if any(_names(c, f) for f in facts)), None)
    if at is not None:
        found = [r[at] for r in rows if len(r) == len(header) and _names_all(" ".join(r), words)]
    elif facts is not _MONEY_FACTS:
        # "Commit: 9540..." in the listed record ("Commit: ...", "Message: ...") that names it
        found = [
            v
            for block in _records(text)
            if _names_all(block, words)
            for v in _labelled(block, fact)
        ]
    else:
        named = [line for line in text.splitlines() if _names_all(line, words)]
        found = (
            [m for line in named for m in _AMOUNT.findall(line)] if facts is _MONEY_FACTS else []
        )
    return [money["n"].replace(",", "") if (money := _MONEY.match(c)) else c for c in found]


_AMOUNT = re.compile(r"[$€£]\s*\d[\d,]*(?:\.\d+)?")


_LABEL_OPENS = re.compile(r"^[ \t]*(?P<label>[A-Za-z][\w -]{0,30}?)[ \t]*:", re.MULTILINE)


def _records(text: str) -> list[str]:
    """The records a text lists as labelled lines, each opening with the first label said
    again ("Commit: ...", "Author: ...", "Message: ..." and the next "Commit: ...")."""
    lines = list(_LABEL_OPENS.finditer(text))
    labels = [m["label"] for m in lines]
    first = next((label for label in labels if labels.count(label) > 1), None)
    if first is None:  # one record, or none
        return [text]
    starts = [m.start() for m in lines if m["label"] == first]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def _names_all(line: str, words: list[str]) -> bool:
    said = set(re.findall(r"[a-z0-9]+", line.lower()))
    return bool(words) and all(w in said for w in words)


def _ticked(
    text: str, item: str, fail: Callable[[str], UnresolvedReference], where: str, undone: bool
) -> str:
    """The one line of the text that holds the item, its open box ticked ("- [x] call"), or
    its ticked box opened again (`undone`)."""
    lines = [line for line in text.splitlines() if _holds(line, item)]
    verb = "untick" if undone else "tick"
    if len(lines) != 1:
        raise fail(
            f"{len(lines) or 'no'} lines of {where} hold {item!r}: which to {verb} is not known"
        )
    box, other = (_TICKED_BOX, "[ ]") if undone else (_OPEN_BOX, "[x]")
    if box.search(lines[0]) is None:
        said = "ticked box ([x])" if undone else "open box ([ ])"
        raise fail(f"the line of {where} that holds {item!r} has no {said} to {verb}")
    return box.sub(other, lines[0], count=1)


def _parsed(value: Any) -> Any:
    """A result's text read as the records it prints (JSON, or a Python list of dicts)."""
    if not isinstance(value, str):
        return value
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return value


def _keyed(value: Any, fact: str) -> list[Any]:
    """The values of the keys that name the fact, in the records `value` holds."""
    if isinstance(value, dict):
        return [v for k, v in value.items() if _names(str(k), fact) and not isinstance(v, dict)]
    if isinstance(value, list | tuple):
        return [v for item in value for v in _keyed(item, fact)]
    return []


def _names(label: str, fact: str) -> bool:
    """Whether a label or key names the fact: "Phone" phone, "default_city" city."""
    return f" {fact} " in f" {' '.join(_label_words(label))} "


def _label_words(label: str) -> list[str]:
    """A label's or key's words: "defaultCity" and "default_city" default, city."""
    return re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", label).lower())


def _filter(match: re.Match[str]) -> str:
    """The reference's filter as written canonically (" | lines:ERROR"), or ""."""
    if match["table"] is not None:
        return f" | row:{match['table']}:{match['columns']}"
    if match["fact"] is not None:
        return f" | value:{match['fact']}"
    if match["item"] is not None:
        return f" | {match['un'] or ''}ticked:{match['item']}"
    if match["last"] is not None:
        return " | last_line"
    if match["described"] is not None:
        return f" | csv_line:{match['described']}"
    if match["label"] is not None:
        return f" | field:{match['label']}" + (f"={match['set']}" if match["set"] else "")
    return f" | lines:{match['word']}" if match["word"] is not None else ""


def _holds(line: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", line, re.IGNORECASE) is not None


def _cannot_take(value: Any, segment: str, where: str) -> str | None:
    """Why `segment` cannot be taken from `value` (found at `where`), or None if it can."""
    if isinstance(value, dict):
        if segment in value:
            return None
        keys = f"keys: {_listing(value)}" if value else "it is empty"
        return f"{where} has no key {segment!r} ({keys})"
    if isinstance(value, list | tuple):
        if not segment.isdecimal():
            return f"{where} is a list of {len(value)} items: use an index, not {segment!r}"
        if int(segment) < len(value):
            return None
        return f"{where} has {len(value)} items, so no index {segment}"
    return f"{where} is {_kind(value)}, not an object or a list: it has no {segment!r}"


def _format(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"the text {_preview(value)}"
    if value is None:
        return "null"
    return f"the {type(value).__name__} {_preview(value)}"


def _preview(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listing(names: Iterable[object]) -> str:
    shown = [str(name) for name in names]
    more = f", … ({len(shown) - _LISTED} more)" if len(shown) > _LISTED else ""
    return ", ".join(shown[:_LISTED]) + more
