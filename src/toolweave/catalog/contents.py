"""What each server holds: the names its listing tools return (a database's tables, a knowledge
graph's entities), so a question that names one finds the server whose tools reach it ("What do
you know about Bob?" and the memory server, whose tools' words say nothing of Bob).

A server is sampled when it is ready and after a question changed something on it: each of its
tools that lists or reads everything (its name starts with list or read, it takes no required
argument, and it is not marked as changing anything) is called once and the values of its
records' `name` fields kept, and the stems of the words their other values say ("allergic to
peanuts": "Who is allergic to peanuts?" is for the graph that holds Bob). A tool that describes one
thing (`describe_table(table_name)`) is then called for the first names in lowercase, and the
`name` fields of its answer kept as that thing's fields (a table's columns, and which of them
hold numbers, by their `type`: what a total or an average is of). A table with a `name` field
is then read, when the server has a tool that runs a SELECT, for the names in its rows ("Emma
Schultz"), by which a name the user types in lowercase is known ("emma schultz closed her
account"); nothing else of the rows is kept. All are kept beside
the tool index (contents.json), with the folders a listing of paths says a server may reach
(server-filesystem's allowed directories), so a server not started yet is still known by what
it held; they are used only to match questions (and to give a name typed in lower case its
held case), never as instructions or arguments of their own.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from types import MappingProxyType

from toolweave.catalog.connections import ServerPool
from toolweave.language.questions import stem
from toolweave.language.records import RECORD_WORD
from toolweave.secrets import mask_secrets
from toolweave.types import ToolSpec

FILE = "contents.json"
MAX_NAMES = 500  # per server: a question names a few; a huge table listing is cut, not stored
MAX_WORDS = 2_000  # per server, the same
MAX_DESCRIBED = 20  # things described per server: a database's tables, not a graph's people
NAME_FIELD = "name"  # the field of a table's rows that names each one
_DESCRIBES = re.compile(r"\b(?:schema|metadata)\b", re.IGNORECASE)
SAMPLE_TIMEOUT_S = 10.0
_LISTING_VERBS = ("list", "read")
# A record's name in JSON or a Python repr: "name": "Bob", 'name': 'users', "name": "O'Neil".
_NAME_FIELD = re.compile(r"""(["'])name\1\s*:\s*(?:"([^"\n]{1,80})"|'([^'\n]{1,80})')""")


def _safe(tool: ToolSpec) -> bool:
    """Called without a question: not marked as changing or destroying anything, nor reaching
    out to the world (`openWorldHint`)."""
    hints = tool.hints
    return hints.read_only is not False and hints.destructive is not True and not hints.open_world


def describes_one(tool: ToolSpec) -> str | None:
    """The one required text parameter of a tool that describes a thing a listing named
    ("describe_table(table_name)": its name says describe, or its description schema or
    metadata), or None."""
    required = tool.input_schema.get("required") or []
    properties = tool.input_schema.get("properties") or {}
    if len(required) != 1 or (properties.get(required[0]) or {}).get("type") != "string":
        return None
    says = tool.name.lower().startswith("describe") or _DESCRIBES.search(tool.description)
    return str(required[0]) if says and _safe(tool) else None


def runs_select(tool: ToolSpec) -> str | None:
    """The one required text parameter of a tool that runs an SQL query its description says
    is a SELECT ("read_query(query)": "Execute a SELECT query"), or None."""
    required = tool.input_schema.get("required") or []
    properties = tool.input_schema.get("properties") or {}
    if len(required) != 1 or (about := properties.get(required[0]) or {}).get("type") != "string":
        return None
    said = f"{tool.description} {about.get('description', '')}"
    return str(required[0]) if _safe(tool) and _SELECT.search(said) else None


_SELECT = re.compile(r"\bSELECT\b")


def lists_everything(tool: ToolSpec) -> bool:
    """A tool that lists or reads all a server holds and can be called without a question: not
    one that reaches out to the world (`openWorldHint`). The caller also leaves out the tools
    whose words say they change things ("read_and_delete_messages")."""
    first = re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", tool.name.strip())[0].lower()
    return first in _LISTING_VERBS and not tool.input_schema.get("required") and _safe(tool)


# A line of a listing that is an absolute path alone: server-filesystem's allowed directories.
_ROOT_LINE = re.compile(r"^\s*(/[^\s:*?\"<>|]*)\s*$", re.MULTILINE)


def roots_in_result(text: str) -> list[str]:
    """The absolute paths a listing gives on lines of their own, once each ("Allowed
    directories:\n/srv/files": /srv/files)."""
    return list(dict.fromkeys(m.group(1).rstrip("/") or "/" for m in _ROOT_LINE.finditer(text)))


# A described field's name and type: "'name': 'amount', 'type': 'REAL'" (mcp-server-sqlite).
_TYPED_FIELD = re.compile(
    r"""(["'])name\1\s*:\s*(["'])(?P<name>[^"'\n]{1,80})\2\s*,\s*"""
    r"""(["'])type\4\s*:\s*(["'])(?P<type>[^"'\n]{0,40})\5"""
)
_NUMBER_TYPES = re.compile(r"\b(?:int|integer|real|float|double|numeric|decimal|number)", re.I)


def numbers_in_result(text: str) -> list[str]:
    """The described fields whose type holds numbers ("amount" of type REAL)."""
    typed = ((m["name"], m["type"]) for m in _TYPED_FIELD.finditer(text))
    return list(dict.fromkeys(name for name, kind in typed if _NUMBER_TYPES.match(kind)))


def names_in_result(text: str) -> list[str]:
    """The values of the `name` fields of a listing's records, in order, once each."""
    found = ((m.group(2) or m.group(3)).strip() for m in _NAME_FIELD.finditer(text))
    return list(dict.fromkeys(found))


def _rows_query(table: str) -> str:
    """The names in a table's rows, as SQL quotes a name (a table may be called "order")."""
    quoted = table.replace('"', '""')
    return f'SELECT DISTINCT {NAME_FIELD} FROM "{quoted}" LIMIT {MAX_NAMES}'


def words_in_result(
    text: str, secrets: Collection[str] = (), names: Collection[str] = ()
) -> list[str]:
    """The stems of the words a listing's records say in their values, once each; not their
    keys, names (matched as names, not as words: "alice martin" is no Alice) or any value that
    holds a secret; none from a result that is not JSON."""
    try:
        stack = [json.loads(text)]
    except (ValueError, RecursionError):
        return []
    words: dict[str, None] = {}
    while stack:  # not recursive: any depth the decoder took
        value = stack.pop()
        if isinstance(value, str) and value not in names and mask_secrets(value, secrets) == value:
            words.update(dict.fromkeys(stem(w) for w in RECORD_WORD.findall(value)))
        elif isinstance(value, dict):
            stack.extend(reversed(value.values()))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return list(words)


class Contents:
    """The names each server holds and the words its records say, kept in
    `folder`/contents.json."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = folder / FILE if folder else None
        self.names: dict[str, list[str]] = {}
        self.words: dict[str, frozenset[str]] = {}
        self.fields: dict[str, list[str]] = {}  # by held name: a table's columns
        self.numeric: dict[str, list[str]] = {}  # those of its columns that hold numbers
        self.roots: dict[str, list[str]] = {}  # the folders a server says it may reach
        self.rows: dict[str, list[str]] = {}  # by server: the names in its tables' rows
        if self.path and self.path.exists():
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                self.names = {str(k): [str(n) for n in v] for k, v in loaded["names"].items()}
                self.words = {str(k): frozenset(map(str, v)) for k, v in loaded["words"].items()}
                self.fields = {str(k): [str(n) for n in v] for k, v in loaded["fields"].items()}
                self.roots = {str(k): [str(n) for n in v] for k, v in loaded["roots"].items()}
                numeric = loaded.get("numeric", {})  # files written before it had none
                self.numeric = {str(k): [str(n) for n in v] for k, v in numeric.items()}
                rows = loaded.get("rows", {})  # the same
                self.rows = {str(k): [str(n) for n in v] for k, v in rows.items()}
            except (OSError, ValueError, AttributeError, TypeError, KeyError):
                self.names, self.words, self.fields, self.roots = {}, {}, {}, {}  # sampled again
                self.numeric, self.rows = {}, {}

    def held(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.names)

    def about(self) -> Mapping[str, frozenset[str]]:
        return MappingProxyType(self.words)

    def fields_of(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.fields)

    def roots_of(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.roots)

    def numeric_of(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.numeric)

    def in_rows(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.rows)

    async def sample(
        self,
        pool: ServerPool,
        tools: Iterable[ToolSpec],
        servers: set[str],
        secrets: Collection[str] = (),
    ) -> None:
        """Call the listing tools of `servers` and keep the names they return, but none that
        holds a configured secret, and the words they say; a server whose listings fail keeps
        what it held before."""
        listing = [t for t in tools if t.server in servers and lists_everything(t)]
        outcomes = await asyncio.gather(*(_call(pool, t) for t in listing))
        found: dict[str, list[str]] = {}
        words: dict[str, list[str]] = {}
        for tool, text in zip(listing, outcomes, strict=True):
            if text is not None and (roots := roots_in_result(text)):
                self.roots[tool.server] = roots  # a listing of paths names no records
            elif text is not None:
                names = names_in_result(text)
                found.setdefault(tool.server, []).extend(
                    n for n in names if mask_secrets(n, secrets) == n
                )
                said = words_in_result(text, secrets, set(names))
                words.setdefault(tool.server, []).extend(said)
        for server, names in found.items():
            self.names[server] = list(dict.fromkeys(names))[:MAX_NAMES]
            self.words[server] = frozenset(list(dict.fromkeys(words[server]))[:MAX_WORDS])
        describing = [t for t in tools if t.server in found and describes_one(t)]
        await self._describe(pool, describing, secrets)
        selecting = [t for t in tools if t.server in found and runs_select(t)]
        await self._read_rows(pool, selecting, secrets)
        if any(text is not None for text in outcomes):
            self._save()

    async def _describe(
        self, pool: ServerPool, tools: list[ToolSpec], secrets: Collection[str]
    ) -> None:
        """The fields of what the servers' listings named ("users": id, name, email, city), by
        the tools that describe one thing, for the first names in lowercase (tables, not people)."""
        asked = [
            (tool, name)
            for tool in tools
            for name in [n for n in self.names.get(tool.server, []) if n.islower()][:MAX_DESCRIBED]
        ]
        outcomes = await asyncio.gather(
            *(_call(pool, tool, {describes_one(tool) or "": name}) for tool, name in asked)
        )
        for (_, name), text in zip(asked, outcomes, strict=True):
            fields = [f for f in names_in_result(text or "") if mask_secrets(f, secrets) == f]
            if fields:
                self.fields[name] = fields[:MAX_NAMES]
                self.numeric[name] = [f for f in numbers_in_result(text or "") if f in fields]

    async def _read_rows(
        self, pool: ServerPool, tools: list[ToolSpec], secrets: Collection[str]
    ) -> None:
        """The names in the rows of each described table with a `name` field, by one tool per
        server that runs a SELECT."""
        by_server = {t.server: t for t in reversed(tools)}  # the first such tool of each
        asked = [
            (tool, table)
            for tool in by_server.values()
            for table in self.names.get(tool.server, [])
            if NAME_FIELD in self.fields.get(table, [])
        ]
        outcomes = await asyncio.gather(
            *(_call(pool, tool, {runs_select(tool) or "": _rows_query(t)}) for tool, t in asked)
        )
        found: dict[str, list[str]] = {}  # a server whose reads all failed keeps what it had
        for (tool, _), text in zip(asked, outcomes, strict=True):
            if text is not None:
                names = [n for n in names_in_result(text) if mask_secrets(n, secrets) == n]
                found.setdefault(tool.server, []).extend(names)
        for server, names in found.items():
            self.rows[server] = list(dict.fromkeys(names))[:MAX_NAMES]

    def _save(self) -> None:
        if self.path is None:
            return
        temporary = self.path.with_suffix(".tmp")
        try:
            words = {k: sorted(v) for k, v in self.words.items()}
            kept = {"names": self.names, "words": words, "fields": self.fields, "roots": self.roots}
            kept["numeric"], kept["rows"] = self.numeric, self.rows
            temporary.write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
            temporary.chmod(0o600)  # names of the user's own records: theirs to read only
            os.replace(temporary, self.path)
        except OSError:
            pass  # kept in memory: sampled again next time


async def _call(
    pool: ServerPool, tool: ToolSpec, arguments: dict[str, str] | None = None
) -> str | None:
    try:
        call = pool.call(tool.server, tool.name, arguments or {})
        outcome = await asyncio.wait_for(call, SAMPLE_TIMEOUT_S)
    except TimeoutError:
        return None
    return outcome.text if outcome.ok else None
