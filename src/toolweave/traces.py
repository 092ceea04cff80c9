"""The trace store: every `toolweave ask` run, kept in SQLite for `toolweave trace list | show`.

A trace is the run's whole `Answer` (route, plan with candidates and argument origins,
observations, sources, stage timings) plus every LLM call of the run (prompt, response, tokens,
latency), recorded by `RecordingLLM`, a wrapper with the `LLM` interface. One row per trace: the
trace as JSON, and the columns `trace list` needs.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolweave.errors import ConfigError, InputError, ToolweaveError
from toolweave.models.base import LLM, Completion, Message, Usage
from toolweave.settings import Settings
from toolweave.storage import prepare
from toolweave.types import Answer

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


class Trace(_Model):
    id: str
    created: datetime
    answer: Answer
    llm_calls: list[LLMCall] = Field(default_factory=list)
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

    def __init__(self, path: Path) -> None:
        self.path = path
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
        """Store the run; returns its new id (also set as the stored answer's `trace_id`)."""
        ok = sum(o.ok for o in answer.observations)
        columns = (
            answer.question,
            answer.route,
            answer.timings_ms.get("total", 0.0),
            ok,
            len(answer.observations) - ok,
        )
        with self._errors("written"):
            for _ in range(ID_ATTEMPTS):
                trace = _trace(answer, list(llm_calls), secrets.token_hex(ID_CHARS // 2))
                row = (trace.id, trace.created.timestamp(), *columns, trace.model_dump_json())
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
                "is created), or turn tracing off with ask.traces = false"
            ) from exc


def trace_path(settings: Settings) -> Path:
    return settings.state_path() / FILENAME


def store_trace(path: Path, answer: Answer, llm_calls: Sequence[LLMCall]) -> str:
    """Store the run's trace and return its id; "" (and a warning) when it cannot be stored,
    so a broken trace store never costs the user the answer."""
    try:
        with TraceStore(path) as store:
            return store.add(answer, llm_calls)
    except ToolweaveError as exc:
        log.warning("the trace of this run was not stored: %s", exc)
        return ""


def format_trace(trace: Trace) -> str:
    """The trace as text for a terminal; long results and prompts are clipped (`--json` has
    them whole)."""
    sections = [_header(trace), _plan(trace.answer), _calls(trace.answer), _llm_calls(trace)]
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
            lines.append(f"     {name} = {json.dumps(value, ensure_ascii=False)} ({origin})")
        if step.candidates:
            ranked = ", ".join(f"{c.tool.key} {c.score:.3f}" for c in step.candidates)
            lines.append(f"     candidates: {ranked}")
        if step.problem:
            lines.append(f"     problem: {step.problem}")
    return "\n".join(lines) if answer.plan.steps else ""


def _calls(answer: Answer) -> str:
    lines = ["tool calls"]
    for obs in answer.observations:
        outcome = f"ok: {clip(obs.text, RESULT_CHARS)}" if obs.ok else f"failed: {obs.error}"
        lines.append(f"  {obs.step_id} {obs.key} {obs.latency_ms:.0f} ms {outcome}")
    return "\n".join(lines) if answer.observations else ""


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


def _trace(answer: Answer, calls: list[LLMCall], trace_id: str) -> Trace:
    return Trace(
        id=trace_id,
        created=datetime.now(UTC),
        answer=answer.model_copy(update={"trace_id": trace_id}),
        llm_calls=calls,
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        llm_requests=sum(c.error is None for c in calls),
    )


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _describe(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
