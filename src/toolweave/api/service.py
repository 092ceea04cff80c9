"""The service: one warm Engine for the process's life, and what every request shares.

A request runs until its answer, its deadline (serve.deadline_s: 504) or its client's leaving,
which cancels the run and its pending tool calls. Every response is masked for the configured
secrets; no exception text that is not ours reaches a client (it is logged).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from starlette.requests import Request

from toolweave.api.guard import Keys
from toolweave.api.metrics import Metrics
from toolweave.api.requests import AskBody, BadRequest
from toolweave.engine import AskOptions, Engine, EngineEvent, Finished
from toolweave.errors import ConfigError, InputError, ToolweaveError
from toolweave.execution.policy import may_destroy
from toolweave.secrets import configured_secrets, mask_data, mask_secrets
from toolweave.settings import Settings
from toolweave.traces import TracePolicy, TraceStore, trace_path
from toolweave.types import Answer

log = logging.getLogger("toolweave.api")
T = TypeVar("T")


class ClientGone(Exception):
    pass


class Service:
    """The engine and what every request shares: settings, secrets, metrics."""

    def __init__(self, settings: Settings, keys: Keys) -> None:
        self.settings = settings
        self.keys = keys
        self.metrics = Metrics()
        self.secrets = configured_secrets(settings)
        self._engine: Engine | None = None
        self._warming: asyncio.Task[None] | None = None

    @asynccontextmanager
    async def open(self, notice: Callable[[str], None] | None = None) -> AsyncIterator[Service]:
        """The engine opened and its servers started; the search corpus indexed in the
        background (`notice` hears how it goes). Closing stops every server."""
        async with Engine.open(self.settings, notice=notice) as e:
            await e.connect()
            self._engine = e
            self._warming = asyncio.create_task(self._warm_search(e))
            try:
                yield self
            finally:
                self._warming.cancel()
                self._engine = None

    @staticmethod
    async def _warm_search(engine: Engine) -> None:
        try:
            await engine.prepare_search()
        except ToolweaveError as exc:
            log.warning("the search corpus is not ready: %s", exc)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            raise ToolweaveError("the service is starting or stopping")
        return self._engine

    @property
    def opened(self) -> Engine | None:
        """The engine, or None while the service starts or stops."""
        return self._engine

    async def search_tools(self, query: str, k: int, servers: bool = False) -> list[dict[str, Any]]:
        """The best tools (or servers) for `query`, a tool with what a caller needs to call it:
        its name, description, input schema and whether it only reads or may destroy data."""
        engine = self.engine
        hits = await engine.search_tools(query, k=k, servers=servers)
        specs = {t.key: t for t in engine.candidates()}
        found = []
        for hit in hits:
            row: dict[str, Any] = {"name": hit.key, "score": round(hit.score, 4)}
            if tool := specs.get(hit.key):
                row |= {"description": tool.description, "input_schema": tool.input_schema}
                row |= {"read_only": tool.hints.read_only, "destructive": may_destroy(tool)}
            found.append(row | {"matched": hit.segment})
        return self.masked(found)  # type: ignore[no-any-return]

    def masked(self, data: Any) -> Any:
        return mask_data(data, self.secrets)

    def answer_json(self, answer: Answer) -> Any:
        return self.masked(answer.model_dump(mode="json"))

    async def options(self, body: AskBody, source: str) -> AskOptions:
        """The request's options as the engine's (`after`: that run's question is the earlier).
        `source`: who asks (the guard's client)."""
        given = body.options
        options = AskOptions(
            schema=given.answer_schema, approve_all=given.yes, dry_run=given.dry_run, source=source
        )
        if given.after:
            trace = await self.with_traces(lambda store: store.get(given.after or ""))
            options.earlier = trace.answer.question
        return options

    async def with_traces(self, use: Callable[[TraceStore], T]) -> T:
        """`use` on the trace store, off the event loop (SQLite blocks)."""

        def run() -> T:
            with TraceStore(trace_path(self.settings), TracePolicy.of(self.settings)) as store:
                return use(store)

        return await asyncio.to_thread(run)

    async def ask(self, question: str, options: AskOptions) -> Answer:
        """One run, counted in the metrics, within the deadline."""
        self.metrics.active.inc()
        try:
            async with asyncio.timeout(self.settings.serve.deadline_s):
                answer = await self.engine.ask(question, options)
        finally:
            self.metrics.active.dec()
        self.metrics.record(answer)
        return answer

    async def stream(self, question: str, options: AskOptions) -> AsyncIterator[EngineEvent]:
        """One run's events, counted and within the deadline; leaving early cancels it."""
        self.metrics.active.inc()
        try:
            async with asyncio.timeout(self.settings.serve.deadline_s):
                async for event in self.engine.stream(question, options):
                    if isinstance(event, Finished):
                        self.metrics.record(event.answer)
                    yield event
        finally:
            self.metrics.active.dec()

    def error_message(self, exc: BaseException) -> tuple[int, str]:
        """The status and message a client sees for `exc`; what is not ours is logged."""
        if isinstance(exc, BadRequest):
            return exc.status, str(exc)
        if isinstance(exc, InputError | ConfigError):
            return 400, mask_secrets(str(exc), self.secrets)
        if isinstance(exc, TimeoutError):
            deadline = self.settings.serve.deadline_s
            return 504, f"no answer within {deadline:g} s (setting serve.deadline_s)"
        if isinstance(exc, ToolweaveError):
            return 500, mask_secrets(str(exc), self.secrets)
        log.error("internal error", exc_info=(type(exc), exc, exc.__traceback__))
        return 500, "internal error: the server log says more"


async def until_gone(request: Request, run: Awaitable[T]) -> T:
    """`run`'s result, unless the client leaves first: then `run` is cancelled (with its
    pending tool calls) and ClientGone raised."""
    task = asyncio.ensure_future(run)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        done, _ = await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if task not in done:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise ClientGone
    return task.result()


async def until_gone_streaming(
    request: Request, chunks: AsyncIterator[bytes]
) -> AsyncIterator[bytes]:
    """`chunks` as they come, until the client leaves: then the run behind them is cancelled.
    (A streamed response notices a gone client only when it next sends, which may be long.)
    One task drains `chunks`, so a deadline inside them stays in the task that set it."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()

    async def produce() -> None:
        try:
            async for chunk in chunks:
                queue.put_nowait(chunk)
        finally:
            queue.put_nowait(None)

    producer = asyncio.create_task(produce())
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        while True:
            getting = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getting, gone}, return_when=asyncio.FIRST_COMPLETED)
            if getting not in done:
                getting.cancel()
                return
            if (chunk := getting.result()) is None:
                return
            yield chunk
    finally:
        producer.cancel()
        gone.cancel()
        await asyncio.gather(producer, return_exceptions=True)


def source_of(request: Request) -> str:
    """Who asks, as the guard knows them: a key's digest, or a client address."""
    return f"api:{getattr(request.state, 'client', 'unknown')}"


async def _disconnected(request: Request) -> None:
    """Returns when the client has disconnected (the body was read before)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
