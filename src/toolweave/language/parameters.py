"""What a tool's parameter means, read from its name, type and description: which kind of value
fills it (a place, a date, a percentage...), and which role a place plays (origin, destination).
"""

from __future__ import annotations

import re
from typing import Any

from toolweave.language.text import readable_name
from toolweave.types import ToolSpec

# Parameters that name a place: filled from "in Paris", and never invented (the router asks).
PLACE_WORDS = {"city", "location", "place", "country", "region", "town", "address", "destination"}
PLACE_WORDS |= {"origin"}
# Name parts that make a parameter one of two places: "from" X is the origin, "to" Y the
# destination ("pickup_city", "destination").
ROLE_WORDS = {
    "origin": {"origin", "from", "source", "departure", "pickup", "start"},
    "destination": {"destination", "to", "arrival", "dropoff", "end", "target"},
}
ROLE_PREPOSITIONS = {"origin": "from", "destination": "to"}
# A name ending so is a code a tool gives, not the place its other words name ("locationId").
IDENTIFIER_WORDS = {"id", "ids", "code", "key", "uuid"}
QUERY_NAMES = {"query", "q", "search", "question", "text", "prompt", "keywords", "topic", "input"}
EXPRESSION_NAMES = {"expression", "expr", "formula", "equation"}
# A version-control revision ("HEAD~2", a commit's hash): git_show's revision, git_diff's target.
REVISION_NAMES = {"revision", "rev", "ref", "commit", "sha", "target"}
NUMERIC_KINDS = {"number", "integer", "percent"}
DATE_WORDS = {"date", "timestamp", "birthdate", "dob"}
# Values copied as written (language/values.py's locators), by the parameter that takes them.
URL_WORDS = {"url", "uri", "link", "href", "endpoint"}
PATH_WORDS = {"path", "file", "filename", "dir", "directory", "folder", "filepath", "paths"}
PATH_WORDS |= {"files"}
EMAIL_WORDS = {"email", "mail", "recipient"}
# A path parameter that names a folder ("repo_path") rather than a file.
FOLDER_WORDS = {"dir", "directory", "folder", "repo", "repository", "root", "cwd"}
LOCATOR_KINDS = {"url", "path", "paths", "email"}
# Parameters that take text to pass on as it is: filled from "write the text hello to a.txt".
PAYLOAD_NAMES = {"content", "text", "message", "body", "data", "value", "note", "insight"}
# Parameters that take a thing's content, so that "send it" means: send the previous result.
CONTENT_NAMES = QUERY_NAMES | {"message", "content", "body", "data", "value", "number", "amount"}
CONTENT_NAMES |= {"sentence", "word", "phrase"}


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
    description = str(prop.get("description") or "")
    words = f"{readable} {description}".lower()
    if locator := _locator_kind(readable, kind, prop):
        return locator
    if kind in ("number", "integer"):
        return "percent" if "percent" in readable else kind
    if kind != "string":
        return "other"
    if "timezone" in words or "time zone" in words or name.lower() in ("tz", "zone"):
        return "timezone"
    if prop.get("format") in ("date", "date-time") or DATE_WORDS & set(readable.split()):
        return "date"
    if "hh:mm" in words or readable.split()[-1:] == ["time"]:  # "time", "start_time"
        return "time"
    if "unit" in words and any(w in readable for w in ("from", "source")):
        return "unit_from"
    if "unit" in words and any(w in readable for w in ("to", "target")):
        return "unit_to"
    if options(prop):
        return "enum"
    if readable.split()[-1:] and readable.split()[-1] in IDENTIFIER_WORDS:
        return "string"
    if _CODE_ONLY.search(description) and "name" not in words:
        return "code"  # "ISO 3166-2 location code": a code a tool gives, not "Brazil"
    if PLACE_WORDS & set(readable.split()) or _PLACE_DESCRIBED.match(description):
        return "place"  # "where_to": "Location of the house"
    if name.lower() in QUERY_NAMES and _A_CITY.search(description):
        return "place"  # "q": "... city name e.g.: q=Paris, US zip ...": a search by place
    if name.lower() in EXPRESSION_NAMES:
        return "expression"
    if readable in REVISION_NAMES:
        return "revision"
    if readable.split()[-1:] in (["pattern"], ["glob"]) and not re.search(
        r"\bregex|regular", words
    ):
        return "glob"  # a file pattern ("*.csv"), unless a regular expression is described
    return "query" if name.lower() in QUERY_NAMES else "string"


def _locator_kind(readable: str, kind: str, prop: dict[str, Any]) -> str | None:
    names = set(readable.split())
    description = str(prop.get("description") or "")
    if kind == "array":
        items = prop.get("items") or {}
        return "paths" if names & PATH_WORDS and json_type(items) == "string" else None
    if kind != "string" or names & IDENTIFIER_WORDS:
        return None
    if names & URL_WORDS or prop.get("format") in ("uri", "url"):
        return "url"
    if names & EMAIL_WORDS or prop.get("format") == "email" or _AN_ADDRESS.match(description):
        return "email"
    return "path" if names & PATH_WORDS else None


# "to": "The email address to send to." (not "The subject of the email.")
_AN_ADDRESS = re.compile(r"^\W*(?:the\s+)?(?:e-?mail)\s+address\b", re.IGNORECASE)
_PLACE_DESCRIBED = re.compile(rf"^\W*(?:the\s+)?(?:{'|'.join(PLACE_WORDS)})\s+(?:of|where)\b", re.I)
_A_CITY = re.compile(r"\bcity\s+name\b", re.I)
_CODE_ONLY = re.compile(r"\b(?:ISO|location|country|region)\b[\w\s-]{0,12}\bcode\b", re.I)


# Options a description lists in quotes: "Whether to list local branches ('local'), remote
# branches ('remote') or all branches ('all')". Examples ("e.g. 'yesterday'") are no options.
_OPTION = re.compile(r"'([\w-]+)'")
_EXAMPLES = re.compile(r"\b(?:e\.g\.|eg\b|for example|such as|like)", re.I)


def options(prop: dict[str, Any]) -> list[Any]:
    """The closed set of values the parameter takes: its `enum`, or the options its
    description lists."""
    if prop.get("enum"):
        return list(prop["enum"])
    said = str(prop.get("description") or "")
    found = list(dict.fromkeys(_OPTION.findall(said)))
    choice = re.search(r"\b(?:or|one of|either)\b", said) and not _EXAMPLES.search(said)
    return found if len(found) >= 2 and choice else []


def place_role(name: str) -> str | None:
    """ "origin" or "destination" when the parameter's name says which place it is."""
    words = set(readable_name(name).split())
    return next((role for role, names in ROLE_WORDS.items() if words & names), None)


# Values a tool's caller is expected to write rather than copy: code in a language (SQL, a
# pattern), or a classification of what the user named ("entityType").
FORMULATED = re.compile(r"\b(sql|code|script|regex|regular expression|glob|pattern|expression)\b")
INFERRED_WORDS = {"type", "kind", "category", "format", "encoding", "mode", "language", "sort"}
STATED_WORDS = {"relation", "relationship", "link", "edge", "predicate"}


def names_a_thing(name: str) -> bool:
    """A parameter for the name of a thing the user chose (`table_name`, `branch_name`): the
    user's word for it, never a model's."""
    return readable_name(name).split()[-1:] == ["name"]


def may_be_written(name: str, prop: dict[str, Any]) -> bool:
    """Whether a value for this parameter may be written by the model, not copied from the
    user's words: SQL, a pattern, a classification."""
    words = readable_name(name).split()
    if words[-2:-1] and words[-2] in STATED_WORDS:
        return False  # a relation's type is what the user said ("works at"), no category
    if words and words[-1] in INFERRED_WORDS:
        return True
    return bool(FORMULATED.search(f"{' '.join(words)} {prop.get('description', '')}".lower()))


def _described(name: str, prop: dict[str, Any]) -> str:
    """The parameter's name and description, lower case."""
    return f"{readable_name(name)} {prop.get('description', '')}".lower()


def takes_sql(name: str, prop: dict[str, Any]) -> bool:
    """Whether the parameter takes an SQL statement, by its name or description."""
    return "sql" in re.findall(r"\w+", _described(name, prop))


STATEMENT_KINDS = ("select", "insert", "update", "delete", "create")


def sql_kinds(name: str, prop: dict[str, Any]) -> tuple[str, ...]:
    """The statements an SQL parameter takes: those its words name ("SELECT SQL query",
    "CREATE TABLE SQL statement", "read-only"), else any; none for a parameter that takes no SQL."""
    if not takes_sql(name, prop):
        return ()
    said = _described(name, prop)
    if re.search(r"\bread[- ]only\b", said):
        return ("select",)
    words = set(re.findall(r"\w+", said))
    return tuple(k for k in STATEMENT_KINDS if k in words) or STATEMENT_KINDS


# The shape of an SQL statement: "delete it" or "select the users from Lyon" copied from a
# request is none.
_STATEMENT = re.compile(
    r"^\s*(?:select\s+(?:distinct\s+)?(?:\*|[\w.]+\s*(?:\(|,|\bfrom\b|\bas\b))|insert\s+into\s|update\s+\w+\s+set\s"
    r"|delete\s+from\s|(?:create|drop)\s+(?:table|index|view)\s|alter\s+table\s|with\s+\w+\s+as\s*\("
    r"|pragma\s)",
    re.IGNORECASE,
)


# A bound parameter's placeholder (?, ?1, :name, $1, %s) outside a quoted literal: a tool that
# takes one SQL string binds nothing, so "SET amount = ?" would store no value anybody gave.
_PLACEHOLDER = re.compile(r"\?(?![|&])\d*|(?<![:\w]):[A-Za-z_]\w*|\$\d+|%s\b|%\(\w+\)s")
# What a statement's placeholders are looked for outside of: literals, quoted names, comments.
_NOT_SQL = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", re.S)


def is_statement(value: str, kinds: tuple[str, ...] = ()) -> bool:
    """Whether the value has an SQL statement's shape, binds no placeholder, and is one of
    `kinds` if given (a SELECT is no statement for a parameter that takes "an INSERT, UPDATE, or
    DELETE query")."""
    if _STATEMENT.match(value) is None:
        return False
    if _PLACEHOLDER.search(_NOT_SQL.sub(" ", value)):
        return False
    first = value.split(None, 1)[0].lower()
    if first == "with":  # a common table expression reads, unless it changes rows
        first = "other" if re.search(r"\b(?:insert|update|delete)\b", value, re.I) else "select"
    return not kinds or first in kinds


# Verbs of tools that change things: a plan never feeds them from steps it made up itself.
_CHANGING = {"write", "delete", "remove", "update", "move", "rename", "set", "send", "commit"}
_CHANGING |= {"edit", "append", "drop", "reset", "checkout", "push", "post", "put", "patch"}


_DELETING = {"delete", "remove", "drop", "clear", "purge", "erase", "destroy", "forget"}


def deletes(tool: ToolSpec) -> bool:
    """Whether the tool's name says it deletes something."""
    return bool(set(readable_name(tool.name).split()) & _DELETING)


def changes_things(tool: ToolSpec) -> bool:
    """Whether the tool says (annotations) or its name says it changes something."""
    if tool.hints.read_only is True:
        return False
    if tool.hints.read_only is False or tool.hints.destructive:
        return True
    words = set(readable_name(tool.name).split())
    return bool(words & (_CHANGING | _ADDING | _DELETING))


# Verbs of tools that add things.
_ADDING = {"create", "add", "insert", "write", "append", "upload", "post", "put", "save"}
