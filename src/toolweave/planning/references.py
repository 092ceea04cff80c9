"""References from one step's arguments to an earlier step's result.

An argument value may be, or contain, `{{s1.result}}` or `{{s1.result.items.0.name}}`: the
result of step s1, or a part of it reached by keys and list indexes (keys cannot contain dots or
spaces), and `{{s1.result | lines:ERROR}}`: the lines of that text that hold the word (any
case), as the request asked for them ("save the ERROR line of server.log to errors.txt"), and
`{{s1.result | last_line}}`: its last line that is not blank (what a line appended to a file
is put after), and `{{s1.result | row:users:name,email,city}}`: an INSERT of the row its labelled
lines give ("Name: Grace Hopper"), for those of the table's columns they name, each value an SQL
string literal (what a sign-up form read from a file adds to a table). A value that is exactly
one reference takes the referenced value with its type;
a reference inside a longer string is formatted into it (text as is, anything else as compact
JSON, so numbers read as numbers).
"""

from __future__ import annotations

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
    r"(?P<filter>\s*\|\s*(?:lines:(?P<word>[^{}|]+?)|(?P<last>last_line)"
    r"|row:(?P<table>\w+):(?P<columns>\w+(?:,\w+)*)))?\s*\}\}"
)
# "Name: Grace Hopper": a labelled line, its label and its value.
_LABELLED = re.compile(r"^\s*(?P<label>[A-Za-z][\w -]{0,30}?)\s*:\s*(?P<value>\S.*?)\s*$", re.M)

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
    if match["last"] is not None:
        filled = [line for line in _format(value).splitlines() if line.strip()]
        if not filled:
            raise fail(f"{where} has no line that is not blank")
        return filled[-1]
    if match["word"] is None:
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


def _filter(match: re.Match[str]) -> str:
    """The reference's filter as written canonically (" | lines:ERROR"), or ""."""
    if match["table"] is not None:
        return f" | row:{match['table']}:{match['columns']}"
    if match["last"] is not None:
        return " | last_line"
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
