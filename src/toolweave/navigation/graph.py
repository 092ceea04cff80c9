"""The tool graph (NaviAgent): which tool's output feeds which tool's parameter, which tool stood
in for which, and how each tool has fared, with weights that evolve with outcomes.

  feeds      producer --output field--> consumer's parameter. From schemas (`best_field`: an
             output field that means the same as a required parameter), from runs (a reference
             that ran: the consumer succeeded, or failed, with the producer's value) and from the
             gold chains of a dataset's training data.
  stands_in  tool -> other: `other` answered a step after `tool` had failed it.
  with       tool -> other: both answered steps of one run that went well (each way). What
             share of a tool's successes came with another (`companions`) ranks that other
             tool higher when a tool search finds the first (`retrieval/retriever.py`).
  tool       a tool's own record of calls (its health).
Each edge counts successes and failures, halved every HALF_LIFE_DAYS so that old outcomes fade;
its weight is (1 + successes) / (2 + successes + failures): 0.5 for an edge nothing has used,
above for one that worked, below for one that failed more than it worked.

Kept beside the index in `graph.sqlite` (numbered migrations). `sync` re-derives the schema
edges when the catalogue changes; what runs taught stays. `bad` feedback on a run (`unlearn`)
turns each success it counted into a failure. `ToolGraph.derived(tools)` is the same
graph in memory from schemas alone. Reads come from memory (a lock keeps them consistent with
writes from a worker thread).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolweave.errors import ConfigError, InputError
from toolweave.language.text import readable_name
from toolweave.navigation.fields import best_field, output_fields
from toolweave.storage import prepare
from toolweave.types import Observation, Plan, ToolSpec

FILE = "graph.sqlite"
HALF_LIFE_DAYS = 30.0
DAY_S = 86400.0
NEUTRAL = 0.5  # the weight of an edge nothing has used yet
Kind = Literal["feeds", "stands_in", "tool", "with"]
Origin = Literal["schema", "run", "gold"]

_MIGRATIONS = [
    """
    CREATE TABLE edges (
        kind TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL, field TEXT NOT NULL,
        parameter TEXT NOT NULL, origin TEXT NOT NULL, successes REAL NOT NULL,
        failures REAL NOT NULL, updated REAL NOT NULL,
        PRIMARY KEY (kind, source, target, field, parameter)
    );
    -- What each stored run counted, so that `bad` feedback on it can take its successes back.
    CREATE TABLE runs (
        run TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL,
        field TEXT NOT NULL, parameter TEXT NOT NULL, ok INTEGER NOT NULL, at REAL NOT NULL
    );
    CREATE INDEX runs_by_run ON runs (run);
    """
]
KEEP_RUNS_DAYS = 90  # how long a run's counts can be taken back (traces live 30 days by default)


@dataclass(frozen=True)
class Edge:
    kind: Kind
    source: str  # "server.tool"
    target: str = ""  # "server.tool"; "" for a tool's own record
    field: str = ""  # feeds: the producer's output path, "" for its whole result
    parameter: str = ""  # feeds: the consumer's parameter


@dataclass(frozen=True)
class Tally:
    origin: Origin
    successes: float = 0.0
    failures: float = 0.0
    updated: float = 0.0  # unix time of the last outcome

    def decayed(self, now: float) -> tuple[float, float]:
        factor = 0.5 ** (max(0.0, now - self.updated) / (HALF_LIFE_DAYS * DAY_S))
        return self.successes * factor, self.failures * factor

    def weight(self, now: float) -> float:
        successes, failures = self.decayed(now)
        return (1 + successes) / (2 + successes + failures)


class ToolGraph:
    """Use `ToolGraph.open(folder)` (persisted) or `ToolGraph.derived(tools)` (in memory)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.edges: dict[Edge, Tally] = {}
        self._into: dict[tuple[str, str], set[Edge]] = defaultdict(set)  # (consumer, parameter)
        self._from: dict[str, set[Edge]] = defaultdict(set)  # source -> its edges
        self._lock = threading.Lock()
        self.db: sqlite3.Connection | None = None
        if path is not None:
            self._load(path)

    @classmethod
    def open(cls, folder: Path) -> ToolGraph:
        return cls(folder / FILE)

    @classmethod
    def derived(cls, tools: Iterable[ToolSpec]) -> ToolGraph:
        graph = cls()
        graph.sync(tools)
        return graph

    def _load(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, check_same_thread=False)
            prepare(self.db, _MIGRATIONS, what=str(path), remedy="upgrade toolweave")
            rows = self.db.execute("SELECT * FROM edges").fetchall()
        except sqlite3.Error as exc:
            raise ConfigError(
                f"{path}: cannot be opened ({exc}); remove it and the graph is derived again "
                "from the tools' schemas (what runs taught it is lost)"
            ) from None
        for kind, source, target, field, parameter, origin, successes, failures, at in rows:
            self._put(
                Edge(kind, source, target, field, parameter), Tally(origin, successes, failures, at)
            )

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def __enter__(self) -> ToolGraph:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- changes ---------------------------------------------------------------------------

    def sync(self, tools: Iterable[ToolSpec]) -> int:
        """The schema edges of this catalogue: new ones in, ones it no longer gives (and no run
        used) out. Returns how many changed."""
        derived = set(schema_edges(tools))
        with self._lock:
            stale = [
                edge
                for edge, tally in self.edges.items()
                if tally.origin == "schema" and edge not in derived and not tally.updated
            ]
            new = [edge for edge in derived if edge not in self.edges]
            for edge in stale:
                self._drop(edge)
            for edge in new:
                self._put(edge, Tally("schema"))
            self._save(new, stale)
        return len(new) + len(stale)

    def record(
        self,
        outcomes: Iterable[tuple[Edge, bool]],
        *,
        origin: Origin = "run",
        now: float = 0.0,
        run: str = "",
    ) -> None:
        """Count each edge's outcome (an unknown edge is added with this origin); with a `run`
        id, remember what that run counted."""
        now, outcomes = now or time.time(), list(outcomes)
        with self._lock:
            for edge, ok in outcomes:
                self._count(edge, ok, not ok, origin, now)
            self._save([edge for edge, _ in outcomes], [])
            if run and self.db is not None:
                with self.db:
                    self.db.executemany(
                        "INSERT INTO runs VALUES (?,?,?,?,?,?,?,?)",
                        [(run, *_key(edge), ok, now) for edge, ok in outcomes],
                    )
                    old = now - KEEP_RUNS_DAYS * DAY_S
                    self.db.execute("DELETE FROM runs WHERE at < ?", (old,))

    def unlearn(self, run: str) -> int:
        """Each success the run counted becomes a failure; returns how many edges fell."""
        if self.db is None:
            return 0
        now = time.time()
        with self._lock:
            rows = self.db.execute(
                "SELECT kind, source, target, field, parameter FROM runs WHERE run = ? AND ok",
                (run,),
            ).fetchall()
            fallen = [Edge(*row) for row in rows if Edge(*row) in self.edges]
            for edge in fallen:
                self._count(edge, -1, 1, "run", now)
            self._save(fallen, [])
            with self.db:
                self.db.execute("DELETE FROM runs WHERE run = ?", (run,))
        return len(fallen)

    def _count(self, edge: Edge, successes: int, failures: int, origin: Origin, now: float) -> None:
        tally = self.edges.get(edge, Tally(origin))
        had, failed = tally.decayed(now)
        self._put(edge, Tally(tally.origin, max(0.0, had + successes), failed + failures, now))

    def _put(self, edge: Edge, tally: Tally) -> None:
        self.edges[edge] = tally
        self._from[edge.source].add(edge)
        if edge.kind == "feeds":
            self._into[(edge.target, edge.parameter)].add(edge)

    def _drop(self, edge: Edge) -> None:
        del self.edges[edge]
        self._from[edge.source].discard(edge)
        self._into[(edge.target, edge.parameter)].discard(edge)

    def _save(self, changed: list[Edge], dropped: list[Edge]) -> None:
        if self.db is None or not (changed or dropped):
            return
        rows = [(*_key(e), *_values(self.edges[e])) for e in changed]
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO edges VALUES (?,?,?,?,?,?,?,?,?)", rows)
            self.db.executemany(
                "DELETE FROM edges WHERE kind = ? AND source = ? AND target = ? AND field = ? "
                "AND parameter = ?",
                [_key(e) for e in dropped],
            )

    # -- reading ---------------------------------------------------------------------------

    def weight(self, edge: Edge, now: float = 0.0) -> float:
        tally = self.edges.get(edge)
        return tally.weight(now or time.time()) if tally else 0.5

    def health(self, tool: str) -> float:
        return self.weight(Edge("tool", tool))

    def succeeded(self, tool: str) -> bool:
        """Whether a run has gone well with the tool (a bad rating takes its success back)."""
        with self._lock:
            tally = self.edges.get(Edge("tool", tool))
        return tally is not None and tally.successes > 0

    def producers(
        self, consumer: str, parameter: str, among: Collection[str] | None = None
    ) -> list[tuple[Edge, float]]:
        """The feeds edges into this parameter (from tools `among`, when given), the most
        trusted first: weight, then the producer's health, then schema before learned."""
        now = time.time()
        with self._lock:
            edges = [
                e
                for e in self._into.get((consumer, parameter), ())
                if among is None or e.source in among
            ]
            ranked = [(e, self.edges[e].weight(now)) for e in edges]
        ranked.sort(
            key=lambda pair: (-pair[1], -self.health(pair[0].source), pair[0].source, pair[0].field)
        )
        return ranked

    def feeds(self, source: str, target: str) -> bool:
        """Whether an output of `source` feeds a parameter of `target`, by a link not known
        to fail more than it works."""
        now = time.time()
        with self._lock:
            return any(
                e.kind == "feeds" and e.target == target and self.edges[e].weight(now) >= NEUTRAL
                for e in self._from.get(source, ())
            )

    def stand_ins(self, tool: str) -> list[tuple[str, float]]:
        """Tools that answered after `tool` failed, those that did so most reliably first."""
        now = time.time()
        with self._lock:
            edges = [e for e in self._from.get(tool, ()) if e.kind == "stands_in"]
            ranked = [(e.target, self.edges[e].weight(now)) for e in edges]
        return sorted(ranked, key=lambda pair: (-pair[1], pair[0]))

    def companions(self, tool: str) -> list[tuple[str, float]]:
        """The tools used with `tool` in runs that went well, each with the share of its
        successes they came with (decayed alike), the most frequent first."""
        now = time.time()
        with self._lock:
            own = self.edges.get(Edge("tool", tool))
            edges = [e for e in self._from.get(tool, ()) if e.kind == "with"]
            together = [(e.target, self.edges[e].decayed(now)[0]) for e in edges]
        successes = own.decayed(now)[0] if own else 0.0
        if successes <= 0:
            return []
        shares = [(other, min(1.0, n / successes)) for other, n in together if n > 0]
        return sorted(shares, key=lambda pair: (-pair[1], pair[0]))

    def around(self, name: str | None = None) -> dict[str, Any]:
        """`about` the tools `name` means ("server.tool", else that tool name on any server;
        None: all of them); InputError when the graph has none."""
        if name is None:
            return self.about()
        with self._lock:
            known = {e.source for e in self.edges} | {e.target for e in self.edges if e.target}
        if named := {name} & known or {k for k in known if k.split(".", 1)[-1] == name}:
            return self.about(named)
        raise InputError(f"no tool {name!r} in the tool graph")

    def about(self, tools: Collection[str] | None = None) -> dict[str, Any]:
        """The graph as JSON-ready data: each edge touching `tools` (default: all), with its
        origin, counts and weight; each tool with its health."""
        now = time.time()
        with self._lock:
            chosen = [
                (e, t)
                for e, t in self.edges.items()
                if tools is None or e.source in tools or e.target in tools
            ]
        edges, nodes = [], set()
        for edge, tally in sorted(chosen, key=lambda pair: _key(pair[0])):
            successes, failures = tally.decayed(now)
            if edge.kind != "tool":
                nodes |= {edge.source, edge.target}
                edges.append(
                    {
                        "kind": edge.kind,
                        "source": edge.source,
                        "target": edge.target,
                        "field": edge.field,
                        "parameter": edge.parameter,
                        "origin": tally.origin,
                        "successes": round(successes, 3),
                        "failures": round(failures, 3),
                        "weight": round(tally.weight(now), 3),
                    }
                )
            else:
                nodes.add(edge.source)
        listed = [{"tool": n, "health": round(self.health(n), 3)} for n in sorted(nodes)]
        return {"tools": listed, "edges": edges}


def outcomes(
    plan: Plan, links: Iterable[tuple[str, str, str, str]], observations: Iterable[Observation]
) -> list[tuple[Edge, bool]]:
    """What a finished run says: each called tool's outcome, each stand-in's (an observation of
    another tool than its step planned: that one failed), and each link (consumer step,
    parameter, producer step, path) that ran: the consumer was called with what the producer
    returned."""
    seen = {o.step_id: o for o in observations}
    planned = {step.id: step.key for step in plan.steps}
    found = [(Edge("tool", o.key), o.ok) for o in seen.values() if o.called]
    for o in seen.values():
        if o.called and planned.get(o.step_id, o.key) != o.key:  # the planned tool had failed
            found += [(Edge("tool", planned[o.step_id]), False)]
            found += [(Edge("stands_in", planned[o.step_id], o.key), o.ok)]
    for consumer, parameter, producer, path in links:
        made, used = seen.get(producer), seen.get(consumer)
        if made and used and made.ok and used.called and parameter in used.arguments:
            found.append((Edge("feeds", made.key, used.key, path, parameter), used.ok))
    called = [o for o in seen.values() if o.called]
    if called and all(o.ok for o in called):
        found += together(o.key for o in called)
    return found


def together(tools: Iterable[str]) -> list[tuple[Edge, bool]]:
    """The with edges of tools that answered one run that went well: each way, once a pair."""
    keys = sorted(set(tools))
    return [(Edge("with", a, b), True) for a in keys for b in keys if a != b]


def schema_edges(tools: Iterable[ToolSpec]) -> list[Edge]:
    """A feeds edge for each required parameter of a tool and each other tool with an output
    field that means the same (`best_field`); only tools whose output fields share a word with
    the parameter are compared, so a large catalogue stays fast."""
    tools = list(tools)
    by_word: dict[str, set[int]] = defaultdict(set)
    for n, tool in enumerate(tools):
        for out in output_fields(tool.output_schema or {}):
            for word in out.tokens:
                by_word[word].add(n)
    edges = []
    for consumer in tools:
        for parameter in consumer.input_schema.get("required") or []:
            words = readable_name(str(parameter)).split()
            sharing = set().union(*(by_word.get(w, set()) for w in words)) if words else set()
            for n in sorted(sharing):
                producer = tools[n]
                if producer.key == consumer.key or parameter in (
                    producer.input_schema.get("required") or []
                ):
                    continue  # a tool cannot feed itself, nor need what it is to give
                if match := best_field(str(parameter), producer):
                    edges.append(
                        Edge("feeds", producer.key, consumer.key, match.field.path, str(parameter))
                    )
    return edges


def _key(edge: Edge) -> tuple[str, str, str, str, str]:
    return edge.kind, edge.source, edge.target, edge.field, edge.parameter


def _values(tally: Tally) -> tuple[str, float, float, float]:
    return tally.origin, tally.successes, tally.failures, tally.updated
