"""The trace store: every `toolweave ask` run, kept in SQLite for `toolweave trace list | show`.

A trace is the run's whole `Answer` (route, plan with candidates and argument origins,
observations, sources, stage timings) plus every LLM call of the run (prompt, response, tokens,
latency), recorded by `RecordingLLM`, a wrapper with the `LLM` interface. One row per trace: the
trace as JSON, and the columns `trace list` needs.

The store stays bounded (`[traces]` settings, as a `TracePolicy`): a tool result over
`max_result_chars` is stored as its head, its size and its sha256; after each run, traces older
than `max_age_days` go, then the oldest while it holds more than `max_mb`. Every configured
secret is masked in what is stored (toolweave.secrets).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolweave.errors import ConfigError, InputError, ToolweaveError
from toolweave.models.base import LLM, Completion, Message, Usage
from toolweave.secrets import configured_secrets, mask_data, mask_secrets
from toolweave.settings import Settings
from toolweave.storage import prepare
from toolweave.types import Answer, Observation

log = logging.getLogger("toolweave.traces")
FILENAME = "traces.sqlite"
# Idempotent: two processes may open a new file at once.
MIGRATIONS = [
    """
    CREATE TABLE IF NOT EXISTS traces (
        id TEXT PRIMARY KEY, created REAL NOT NULL, question TEXT NOT NULL, route TEXT NOT NULL,
        total_ms REAL NOT NULL, ok_steps INTEGER NOT NULL, failed_steps INTEGER NOT NULL,
        trace TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS traces_by_created ON traces (created);
    """,
]
_INSERT = "INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_LIST = (
    "SELECT id, created, question, route, total_ms, ok_steps, failed_steps FROM traces "
    "ORDER BY created DESC, rowid DESC LIMIT ?"
)
ID_CHARS = 8  # 4 random bytes as hex: short enough to type; a taken one is drawn again
ID_ATTEMPTS = 10
ID_PREFIX = re.compile(rf"[0-9a-f]{{1,{ID_CHARS}}}")
QUESTION_CHARS = 80
RESULT_CHARS = 160
PROMPT_CHARS = 300
# Pruning for size goes down to this share of max_mb, so the next runs do not prune again.
LOW_WATER = 0.9
ROW_OVERHEAD = 100  # bytes of a row besides its trace and question (ids, numbers, indexes)
# VACUUM (it rewrites the file) only when a prune left this much of the file free.
VACUUM_SHARE = 0.25
VACUUM_MIN_BYTES = 1 << 20
DAY_S = 86_400
MB = 1 << 20


@dataclass(frozen=True)
class TracePolicy:
    """What a stored trace may hold and how long the store keeps it (`[traces]`)."""

    max_result_chars: int = 20_000
    max_age_days: float = 30.0
    max_mb: float = 200.0
    secrets: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> TracePolicy:
        limits = settings.traces
        found = tuple(configured_secrets(settings))
        return cls(limits.max_result_chars, limits.max_age_days, limits.max_mb, found)


@dataclass(frozen=True)
class Pruned:
    """What a prune did: traces removed, and the file's size on disk (with its WAL) around it."""

    removed: int
    bytes_before: int
    bytes_after: int


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMCall(_Model):
    """One LLM call of a run: what was sent, what came back, what it cost."""

    messages: list[dict[str, str]]
    response: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: float = 0.0
    error: str | None = None


class CutResult(_Model):
    """A tool result stored as its head only (traces.max_result_chars); the run's answer had it
    whole. `chars` and `sha256` are of the whole result (structured content: its compact JSON)."""

    observation: int  # its index in answer.observations
    part: Literal["text", "structured"]
    kept: int
    chars: int
    sha256: str


class Trace(_Model):
    id: str
    created: datetime
    answer: Answer
    llm_calls: list[LLMCall] = Field(default_factory=list)
    cut: list[CutResult] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_requests: int = 0
    # No price table yet: the local models cost nothing, hosted ones are not priced.
    cost_usd: float = 0.0


class TraceSummary(_Model):
    """One line of `toolweave trace list`."""

    id: str
    created: datetime
    question: str
    route: str
    total_ms: float
    ok_steps: int
    failed_steps: int


class RecordingLLM:
    """An `LLM` that passes every call to `llm` and records it in `calls`. Its own `usage`
    counts this run's calls only (one engine's LLM serves many questions at once): budgets and
    Answer.llm_calls read it."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.name = llm.name
        self.usage = Usage()
        self.calls: list[LLMCall] = []

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        started = time.perf_counter()
        try:
            completion = await self.llm.complete(
                messages, schema=schema, max_tokens=max_tokens, temperature=temperature
            )
        except Exception as exc:
            self._record(messages, started, error=_describe(exc))
            raise
        self._record(messages, started, completion.text, completion.usage)
        return completion

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        started, before = time.perf_counter(), replace(self.llm.usage)
        pieces: list[str] = []
        error = None
        try:
            async for piece in self.llm.stream(
                messages, max_tokens=max_tokens, temperature=temperature
            ):
                pieces.append(piece)
                yield piece
        except Exception as exc:
            error = _describe(exc)
            raise
        finally:  # also when the reader stops early: what it received is what was answered
            # A stream reports its tokens only to the backend's counters; a concurrent call's
            # tokens may fall into this difference.
            spent = Usage(
                self.llm.usage.prompt_tokens - before.prompt_tokens,
                self.llm.usage.completion_tokens - before.completion_tokens,
            )
            self._record(messages, started, "".join(pieces), spent, error=error)

    def _record(
        self,
        messages: Sequence[Message],
        started: float,
        response: str = "",
        usage: Usage | None = None,
        *,
        error: str | None = None,
    ) -> None:
        usage = usage or Usage()
        self.usage.add(Usage(usage.prompt_tokens, usage.completion_tokens, requests=1))
        self.calls.append(
            LLMCall(
                messages=[dict(m) for m in messages],
                response=response,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                ms=_ms_since(started),
                error=error,
            )
        )


class TraceStore:
    """Traces in one SQLite file (WAL). Use it as a context manager, or `close()` it."""

    def __init__(self, path: Path, policy: TracePolicy | None = None) -> None:
        self.path = path
        self.policy = policy or TracePolicy()
        with self._errors("opened"):
            path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path)
            try:
                self._migrate()
            except BaseException:
                self.db.close()
                raise

    def __enter__(self) -> TraceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    def add(self, answer: Answer, llm_calls: Sequence[LLMCall] = ()) -> str:
        """Store the run, long results cut and secrets masked (`answer` itself is left whole);
        returns its new id (also set as the stored answer's `trace_id`)."""
        hidden = self.policy.secrets
        ok = sum(o.ok for o in answer.observations)
        columns = (
            mask_secrets(answer.question, hidden),
            answer.route or "",  # NOT NULL: an unrouted run lists as ""
            answer.timings_ms.get("total", 0.0),
            ok,
            len(answer.observations) - ok,
        )
        stored, cuts = _cut_results(answer, self.policy.max_result_chars, hidden)
        with self._errors("written"):
            for _ in range(ID_ATTEMPTS):
                trace = _trace(stored, list(llm_calls), cuts, secrets.token_hex(ID_CHARS // 2))
                data = mask_data(trace.model_dump(mode="json"), hidden)
                text = json.dumps(data, ensure_ascii=False)
                row = (trace.id, trace.created.timestamp(), *columns, text)
                try:
                    with self.db:
                        self.db.execute(_INSERT, row)
                    return trace.id
                except sqlite3.IntegrityError:
                    continue  # the random id is taken: draw another
            raise sqlite3.IntegrityError(f"no free trace id in {ID_ATTEMPTS} draws")

    def get(self, trace_id: str) -> Trace:
        """The trace with this id, or with the one id that starts with it."""
        prefix = trace_id.strip().lower()
        rows = []
        if ID_PREFIX.fullmatch(prefix):
            with self._errors("read"):
                rows = self.db.execute(
                    "SELECT id, trace FROM traces WHERE id LIKE ? ORDER BY created LIMIT 6",
                    (prefix + "%",),
                ).fetchall()
        if not rows:
            raise InputError(f"no trace {trace_id!r}; `toolweave trace list` shows the stored ones")
        if len(rows) > 1:
            ids = ", ".join(r[0] for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
            raise InputError(f"{trace_id!r} starts several trace ids ({ids}); give more of the id")
        with self._errors("read"):
            return Trace.model_validate_json(rows[0][1])

    def list(self, limit: int = 20) -> list[TraceSummary]:
        """The latest traces, newest first."""
        with self._errors("read"):
            rows = self.db.execute(_LIST, (limit,)).fetchall()
        return [
            TraceSummary(
                id=id_,
                created=datetime.fromtimestamp(created, UTC),
                question=clip(question, QUESTION_CHARS),
                route=route,
                total_ms=total_ms,
                ok_steps=ok,
                failed_steps=failed,
            )
            for id_, created, question, route, total_ms, ok, failed in rows
        ]

    def prune(
        self,
        max_age_days: float | None = None,
        max_mb: float | None = None,
        *,
        vacuum: bool = False,
    ) -> Pruned:
        """Delete the traces older than `max_age_days`, then the oldest while the store holds
        more than `max_mb` (the newest is kept); defaults: the policy's. VACUUM when that left
        much of the file free, or whenever it removed any with `vacuum`."""
        policy = self.policy
        age = policy.max_age_days if max_age_days is None else max_age_days
        limit = int((policy.max_mb if max_mb is None else max_mb) * MB)
        before = self.disk_bytes()
        with self._errors("pruned"), self.db:
            removed = self.db.execute(
                "DELETE FROM traces WHERE created < ?", (time.time() - age * DAY_S,)
            ).rowcount
            removed += self._remove_oldest(limit)
        if removed and (vacuum or self._mostly_free()):
            self._vacuum()
        return Pruned(removed, before, self.disk_bytes())

    def disk_bytes(self) -> int:
        """The store's size on disk: the file and its write-ahead log."""
        wal = self.path.with_name(self.path.name + "-wal")
        return sum(p.stat().st_size for p in (self.path, wal) if p.exists())

    def _remove_oldest(self, limit: int) -> int:
        """Delete the oldest traces until about LOW_WATER of `limit` is used, when over it."""
        if self.used_bytes() <= limit:
            return 0
        excess = self.used_bytes() - int(limit * LOW_WATER)
        rows = self.db.execute(
            "SELECT rowid, length(CAST(trace AS BLOB)) + length(CAST(question AS BLOB)) "
            "FROM traces ORDER BY created, rowid"
        ).fetchall()
        doomed, freed = [], 0
        for rowid, size in rows[:-1]:  # the newest stays: it may be the run just stored
            if freed >= excess:
                break
            doomed.append((rowid,))
            freed += size + ROW_OVERHEAD
        self.db.executemany("DELETE FROM traces WHERE rowid = ?", doomed)
        return len(doomed)

    def _pragma(self, name: str) -> int:
        return int(self.db.execute(f"PRAGMA {name}").fetchone()[0])

    def used_bytes(self) -> int:
        """The bytes the traces take in the file (its free pages not counted)."""
        pages = self._pragma("page_count") - self._pragma("freelist_count")
        return pages * self._pragma("page_size")

    def _mostly_free(self) -> bool:
        free = self._pragma("freelist_count") * self._pragma("page_size")
        return free >= max(VACUUM_MIN_BYTES, VACUUM_SHARE * self.disk_bytes())

    def _vacuum(self) -> None:
        """Give the free pages back to the file system; skipped while another process writes
        (the space is reused by the next traces anyway)."""
        try:
            self.db.execute("VACUUM")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # VACUUM wrote a copy there
        except sqlite3.OperationalError as exc:
            log.debug("the trace store was not vacuumed: %s", exc)

    def _migrate(self) -> None:
        prepare(
            self.db,
            MIGRATIONS,
            what=f"the trace store {self.path}",
            remedy="upgrade toolweave, or move the file away",
        )

    @contextmanager
    def _errors(self, done: str) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, OSError, ValueError) as exc:
            raise ConfigError(
                f"the trace store {self.path} cannot be {done} ({exc}). It only holds the "
                "traces of past runs: if it is damaged, move it away or delete it (a new one "
                "is created), or turn tracing off with traces.enabled = false"
            ) from exc


def trace_path(settings: Settings) -> Path:
    return settings.state_path() / FILENAME


def store_trace(
    path: Path,
    answer: Answer,
    llm_calls: Sequence[LLMCall],
    policy: TracePolicy | None = None,
) -> str:
    """Store the run's trace, prune the store (`policy`, default `TracePolicy()`) and return
    the id; "" (and a warning) when it cannot be stored, so a broken trace store never costs
    the user the answer."""
    try:
        with TraceStore(path, policy) as store:
            trace_id = store.add(answer, llm_calls)
            try:
                store.prune()
            except ToolweaveError as exc:
                log.warning("old traces were not removed: %s", exc)
            return trace_id
    except ToolweaveError as exc:
        log.warning("the trace of this run was not stored: %s", exc)
        return ""


def format_trace(trace: Trace) -> str:
    """The trace as text for a terminal; long results and prompts are clipped (`--json` has
    them whole)."""
    sections = [_header(trace), _plan(trace.answer), _calls(trace), _llm_calls(trace)]
    sections.append(_answer(trace.answer))
    return "\n\n".join(section for section in sections if section)


def _header(trace: Trace) -> str:
    answer = trace.answer
    timings = " · ".join(f"{stage} {ms:.0f} ms" for stage, ms in answer.timings_ms.items())
    when = trace.created.astimezone().strftime("%Y-%m-%d %H:%M:%S")
    return "\n".join(
        [
            f"trace {trace.id} · {when}",
            f"question: {answer.question}",
            f"route: {answer.route or '-'}" + (f" ({answer.why})" if answer.why else ""),
            f"timings: {timings or '-'}",
            f"llm: {answer.llm} · {trace.llm_requests} requests · {trace.prompt_tokens} prompt + "
            f"{trace.completion_tokens} completion tokens · ${trace.cost_usd:.4f}",
        ]
    )


def _plan(answer: Answer) -> str:
    lines = ["plan"]
    for step in answer.plan.steps:
        after = f" after {', '.join(step.depends_on)}" if step.depends_on else ""
        lines.append(f"  {step.id} {step.key}{after}: {step.clause.text}")
        for name, value in step.arguments.items():
            origin = step.argument_origins.get(name, "?")
            if span := step.argument_spans.get(name):  # the words it was read from
                origin += f' "{step.clause.text[span.start : span.end]}"'
            lines.append(f"     {name} = {json.dumps(value, ensure_ascii=False)} ({origin})")
        if step.candidates:
            ranked = ", ".join(f"{c.tool.key} {c.score:.3f}" for c in step.candidates)
            lines.append(f"     candidates: {ranked}")
        if step.problem:
            lines.append(f"     problem: {step.problem}")
    return "\n".join(lines) if answer.plan.steps else ""


def _calls(trace: Trace) -> str:
    lines = ["tool calls"]
    for index, obs in enumerate(trace.answer.observations):
        outcome = f"ok: {clip(obs.text, RESULT_CHARS)}" if obs.ok else f"failed: {obs.error}"
        lines.append(f"  {obs.step_id} {obs.key} {obs.latency_ms:.0f} ms {outcome}")
        for cut in (c for c in trace.cut if c.observation == index):
            lines.append(
                f"     {cut.part} stored cut: its first {cut.kept:,} of {cut.chars:,} characters "
                f"(sha256 of the whole {cut.sha256}; traces.max_result_chars)"
            )
    return "\n".join(lines) if trace.answer.observations else ""


def _llm_calls(trace: Trace) -> str:
    lines = ["llm calls"]
    for number, call in enumerate(trace.llm_calls, start=1):
        tokens = f"{call.prompt_tokens} + {call.completion_tokens} tokens"
        lines.append(f"  {number}. {call.ms:.0f} ms, {tokens}")
        for message in call.messages:
            lines.append(f"     {message['role']}: {clip(message['content'], PROMPT_CHARS)}")
        outcome = f"error: {call.error}" if call.error else clip(call.response, PROMPT_CHARS)
        lines.append(f"     -> {outcome}")
    return "\n".join(lines) if trace.llm_calls else ""


def _answer(answer: Answer) -> str:
    lines = ["answer", *(f"  {line}" for line in answer.text.splitlines())]
    if answer.sources:
        lines += ["", "sources"]
    for source in answer.sources:
        where = f" ({source.uri})" if source.uri and source.uri not in source.title else ""
        lines.append(f"  [{source.id}] {source.title}{where}")
    return "\n".join(lines)


def _trace(answer: Answer, calls: list[LLMCall], cut: list[CutResult], trace_id: str) -> Trace:
    return Trace(
        id=trace_id,
        created=datetime.now(UTC),
        answer=answer.model_copy(update={"trace_id": trace_id}),
        llm_calls=calls,
        cut=cut,
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        llm_requests=sum(c.error is None for c in calls),
    )


def _cut_results(
    answer: Answer, limit: int, hidden: Sequence[str]
) -> tuple[Answer, list[CutResult]]:
    """A copy of `answer` whose tool results over `limit` characters are cut to their head, and
    what was cut. The head is masked before it is cut, so no secret is cut in two."""
    observations, cuts = [], []
    for index, obs in enumerate(answer.observations):
        update: dict[str, Any] = {}
        for part, content in _results(obs):
            if len(content) > limit:
                update[part] = mask_secrets(content, hidden)[:limit]
                digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
                cuts.append(
                    CutResult(
                        observation=index, part=part, kept=limit, chars=len(content), sha256=digest
                    )
                )
        observations.append(obs.model_copy(update=update) if update else obs)
    return answer.model_copy(update={"observations": observations}), cuts


def _results(obs: Observation) -> list[tuple[Literal["text", "structured"], str]]:
    return [("text", obs.text), ("structured", _compact_json(obs.structured))]


def _compact_json(value: Any) -> str:
    """Structured content as the compact JSON its size and hash are taken of ("" for none)."""
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _describe(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
