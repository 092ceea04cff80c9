"""What each server holds: the names its listing tools return (a database's tables, a knowledge
graph's entities), so a question that names one finds the server whose tools reach it ("What do
you know about Bob?" and the memory server, whose tools' words say nothing of Bob).

A server is sampled when it is ready and after a question changed something on it: each of its
tools that lists or reads everything (its name starts with list or read, it takes no required
argument, and it is not marked as changing anything) is called once and the values of its
records' `name` fields kept. The names are kept beside the tool index (contents.json), so a
server not started yet is still known by what it held; they are used only to match questions,
never as instructions or arguments.
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
from toolweave.secrets import mask_secrets
from toolweave.types import ToolSpec

FILE = "contents.json"
MAX_NAMES = 500  # per server: a question names a few; a huge table listing is cut, not stored
SAMPLE_TIMEOUT_S = 10.0
_LISTING_VERBS = ("list", "read")
# A record's name in JSON or a Python repr: "name": "Bob", 'name': 'users', "name": "O'Neil".
_NAME_FIELD = re.compile(r"""(["'])name\1\s*:\s*(?:"([^"\n]{1,80})"|'([^'\n]{1,80})')""")


def lists_everything(tool: ToolSpec) -> bool:
    """A tool that lists or reads all a server holds and can be called without a question: not
    one that reaches out to the world (`openWorldHint`). The caller also leaves out the tools
    whose words say they change things ("read_and_delete_messages")."""
    first = re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", tool.name.strip())[0].lower()
    return (
        first in _LISTING_VERBS
        and not tool.input_schema.get("required")
        and tool.hints.read_only is not False
        and tool.hints.destructive is not True
        and tool.hints.open_world is not True
    )


def names_in_result(text: str) -> list[str]:
    """The values of the `name` fields of a listing's records, in order, once each."""
    found = ((m.group(2) or m.group(3)).strip() for m in _NAME_FIELD.finditer(text))
    return list(dict.fromkeys(found))


class Contents:
    """The names each server holds, kept in `folder`/contents.json."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = folder / FILE if folder else None
        self.names: dict[str, list[str]] = {}
        if self.path and self.path.exists():
            try:
                loaded = json.loads(self.path.read_text(encoding="utf-8"))
                self.names = {str(k): [str(n) for n in v] for k, v in loaded.items()}
            except (OSError, ValueError, AttributeError, TypeError):
                self.names = {}  # a damaged file is sampled again, not fatal

    def held(self) -> Mapping[str, list[str]]:
        return MappingProxyType(self.names)

    async def sample(
        self,
        pool: ServerPool,
        tools: Iterable[ToolSpec],
        servers: set[str],
        secrets: Collection[str] = (),
    ) -> None:
        """Call the listing tools of `servers` and keep the names they return, but none that
        holds a configured secret; a server whose listings fail keeps what it held before."""
        listing = [t for t in tools if t.server in servers and lists_everything(t)]
        outcomes = await asyncio.gather(*(_call(pool, t) for t in listing))
        found: dict[str, list[str]] = {}
        for tool, text in zip(listing, outcomes, strict=True):
            if text is not None:
                names = [n for n in names_in_result(text) if mask_secrets(n, secrets) == n]
                found.setdefault(tool.server, []).extend(names)
        for server, names in found.items():
            self.names[server] = list(dict.fromkeys(names))[:MAX_NAMES]
        if found:
            self._save()

    def _save(self) -> None:
        if self.path is None:
            return
        temporary = self.path.with_suffix(".tmp")
        try:
            temporary.write_text(json.dumps(self.names, ensure_ascii=False), encoding="utf-8")
            temporary.chmod(0o600)  # names of the user's own records: theirs to read only
            os.replace(temporary, self.path)
        except OSError:
            pass  # kept in memory: sampled again next time


async def _call(pool: ServerPool, tool: ToolSpec) -> str | None:
    try:
        outcome = await asyncio.wait_for(pool.call(tool.server, tool.name, {}), SAMPLE_TIMEOUT_S)
    except TimeoutError:
        return None
    return outcome.text if outcome.ok else None
