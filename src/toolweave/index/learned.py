"""What the index learns from runs: a clause that a tool answered well becomes an example query of
that tool (a `logged` segment, like the hand-written `index.logged_queries`), its paths, addresses
and quoted texts said by their kind ("What's in a file?"), so that an example teaches how a
request is worded, not which file it named.

A run teaches only when every step it planned ran and succeeded, by a tool the clause fitted on
its own (not the search fallback, not a producer the planner put in front, not a tool that
scored under `ask.min_tool_score`). Examples are deduplicated per tool and capped: at most
`PER_SOURCE` from one source (an API key, the command line) and `PER_TOOL` in all, the oldest
going first, so one client cannot flood a tool. `bad` feedback on a run removes what it taught,
and no later run teaches that question to that tool again.

Kept in `<index folder>/learned.sqlite`, which `toolweave index --rebuild` leaves alone.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolweave.errors import ConfigError
from toolweave.storage import prepare
from toolweave.types import Answer, Clause, Route

FILE = "learned.sqlite"
PER_TOOL = 20  # as many as the `warm` retrieval variant feeds per tool
PER_SOURCE = 5
MAX_CHARS = 300
TEACHING_ROUTES = (Route.SINGLE, Route.PARALLEL, Route.PLANNING)
Rating = Literal["good", "bad"]

_MIGRATIONS = [
    """
    CREATE TABLE examples (
        tool TEXT NOT NULL, query TEXT NOT NULL, normal TEXT NOT NULL,
        trace_id TEXT NOT NULL, source TEXT NOT NULL, added REAL NOT NULL,
        PRIMARY KEY (tool, normal)
    );
    CREATE INDEX examples_trace ON examples (trace_id);
    CREATE TABLE feedback (trace_id TEXT PRIMARY KEY, rating TEXT NOT NULL, at REAL NOT NULL);
    CREATE TABLE rejected (tool TEXT NOT NULL, normal TEXT NOT NULL, PRIMARY KEY (tool, normal));
    """
]


@dataclass(frozen=True)
class Lesson:
    tool: str  # "server.tool"
    query: str


def lessons(answer: Answer, *, fallback: str, min_score: float) -> list[Lesson]:
    """What a finished run teaches: a clause -> tool pair per step, or nothing at all."""
    steps = answer.plan.steps
    if answer.route not in TEACHING_ROUTES or not steps:
        return []
    ran = {o.step_id: o for o in answer.observations}
    if any(s.problem is not None or s.id not in ran or not ran[s.id].ok for s in steps):
        return []
    shared = Counter(s.clause.text for s in steps)  # a producer shares its consumer's clause
    taught = []
    for step in steps:
        fitted = max((c.score for c in step.candidates if c.tool.key == step.key), default=None)
        if step.key == fallback or shared[step.clause.text] > 1:
            continue
        if fitted is None or fitted < min_score or not step.clause.text.strip():
            continue
        taught.append(Lesson(step.key, pattern(step.clause).strip()[:MAX_CHARS]))
    return taught


# What a value stands for in an example: "What's in a file?" teaches what reading is asked
# with, where "What's in /srv/notes.txt?" would make every later request naming that file
# (a write to it too) look like a read.
_STANDS_FOR = {"path": "a file", "url": "a web page", "email": "an email address"}


def pattern(clause: Clause) -> str:
    """The clause with the places it names (paths, addresses) and the texts it quotes said in
    words of their kind: what an example keeps of a run. Numbers stay: "15% of 2,340" says
    what it asks with them."""
    values = clause.values
    if values is None:
        return clause.text
    spans = [(x.start, x.end, _STANDS_FOR.get(x.kind, "it")) for x in values.locators]
    spans += [(q.start, q.end, "a text") for q in values.quoted]
    text, at = [], 0
    for start, end, words in sorted(spans):
        if start >= at:  # a quoted path is masked once
            text += [clause.text[at:start], words]
            at = end
    return "".join([*text, clause.text[at:]])


class LearnedQueries:
    """The examples learned so far. Use it as a context manager, or `close()` it."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / FILE
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path)
            prepare(self.db, _MIGRATIONS, what=str(self.path), remedy="upgrade toolweave")
        except sqlite3.Error as exc:
            raise ConfigError(f"{self.path}: cannot be opened ({exc})") from None

    def __enter__(self) -> LearnedQueries:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def learn(self, taught: list[Lesson], trace_id: str, source: str) -> list[str]:
        """Add the lessons of one run; returns the tools whose examples changed."""
        if trace_id and self._rating(trace_id) == "bad":
            return []
        changed = []
        with self.db:
            for lesson in taught:
                normal = _normal(lesson.query)
                rejected = self.db.execute(
                    "SELECT 1 FROM rejected WHERE tool = ? AND normal = ?", (lesson.tool, normal)
                )
                if rejected.fetchone():
                    continue
                row = (lesson.tool, lesson.query, normal, trace_id, source, time.time())
                added = self.db.execute("INSERT OR IGNORE INTO examples VALUES (?,?,?,?,?,?)", row)
                if added.rowcount:
                    self._cap(lesson.tool, source)
                    changed.append(lesson.tool)
        return changed

    def _cap(self, tool: str, source: str) -> None:
        """The oldest examples out: beyond PER_SOURCE of this source, then beyond PER_TOOL."""
        for where, args, keep in (
            ("tool = ? AND source = ?", (tool, source), PER_SOURCE),
            ("tool = ?", (tool,), PER_TOOL),
        ):
            self.db.execute(
                f"DELETE FROM examples WHERE rowid IN (SELECT rowid FROM examples WHERE {where} "
                "ORDER BY added DESC, rowid DESC LIMIT -1 OFFSET ?)",
                (*args, keep),
            )

    def feedback(self, trace_id: str, rating: Rating) -> list[str]:
        """Record the user's word on a run; `bad` removes what it taught. Returns the tools
        whose examples changed."""
        with self.db:
            self.db.execute(
                "INSERT OR REPLACE INTO feedback VALUES (?, ?, ?)", (trace_id, rating, time.time())
            )
            if rating != "bad":
                return []
            rows = self.db.execute(
                "SELECT tool, normal FROM examples WHERE trace_id = ?", (trace_id,)
            ).fetchall()
            self.db.executemany("INSERT OR IGNORE INTO rejected VALUES (?, ?)", rows)
            self.db.execute("DELETE FROM examples WHERE trace_id = ?", (trace_id,))
        return sorted({tool for tool, _ in rows})

    def _rating(self, trace_id: str) -> str | None:
        row = self.db.execute("SELECT rating FROM feedback WHERE trace_id = ?", (trace_id,))
        found = row.fetchone()
        return found[0] if found else None

    def by_tool(self) -> dict[str, list[str]]:
        """Each tool's examples, oldest first."""
        found: dict[str, list[str]] = defaultdict(list)
        for tool, query in self.db.execute("SELECT tool, query FROM examples ORDER BY added"):
            found[tool].append(query)
        return dict(found)

    def taught_by(self, trace_id: str) -> list[Lesson]:
        rows = self.db.execute("SELECT tool, query FROM examples WHERE trace_id = ?", (trace_id,))
        return [Lesson(tool, query) for tool, query in rows]


def _normal(query: str) -> str:
    """A query as duplicates are found: case and spacing do not count."""
    return " ".join(query.casefold().split())
