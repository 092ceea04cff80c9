"""The Engine: one long-lived object that owns the settings, the MCP server pool, the tool index
and retriever, the embedder, the LLM, the search gateway and the traces, and runs questions.

    async with Engine.open(settings) as engine:
        answer = await engine.ask("What is 15% of 2,340, and what time is it in Tokyo?")
        async for event in engine.stream("And in Oslo?"):
            ...

One question, top to bottom (`Engine._run`):
    analyse (language) -> rank each clause's tools (retrieval) -> plan (planning)
    -> route (planning.router) -> run the plan (execution) or search iteratively (grounding)
    -> answer (answer) -> trace

Many questions may run at once on one engine: they share the servers' sessions, the index
and the models; what is per question (the LLM's call record, budgets, events) is made per run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from toolweave.answer import make_answerer
from toolweave.catalog.connections import ServerPool
from toolweave.catalog.contents import Contents
from toolweave.catalog.sources import load_catalogue
from toolweave.errors import InputError
from toolweave.execution.executor import run_plan
from toolweave.execution.policy import Confirm, Policy, approved_tools
from toolweave.execution.scheduler import Budget, Event
from toolweave.grounding.search_loop import planning_search
from toolweave.grounding.tool import in_process
from toolweave.index import SyncReport, ToolIndex, augmentation_for, open_index, sync_index
from toolweave.index.build import Progress as IndexProgress
from toolweave.index.learned import LearnedQueries, Lesson, Rating, lessons
from toolweave.language import analyse
from toolweave.language.parameters import changes_things
from toolweave.language.records import held_in, said_in, tables_by_field
from toolweave.language.sql import with_references
from toolweave.language.text import valid_text
from toolweave.models import LLM, Embedder, make_embedder, make_llm
from toolweave.models.base import RememberingEmbedder
from toolweave.navigation.graph import Edge, ToolGraph, outcomes
from toolweave.planning import Decision, PlanRequest, make_planner, make_router
from toolweave.planning.references import links
from toolweave.planning.router import SMALL_TALK
from toolweave.planning.tool_pick import pick_tools
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.retrieval.tool_select import CANDIDATES, alike, rank_tools
from toolweave.secrets import mask_secrets
from toolweave.settings import AskSettings, Settings
from toolweave.traces import RecordingLLM, TracePolicy, store_trace, trace_path
from toolweave.types import (
    Answer,
    Candidate,
    Clause,
    IndexHit,
    Observation,
    Plan,
    QuestionAnalysis,
    Route,
    ServerStatus,
    Step,
    ToolSpec,
)

DIRECT_REPLY = "Hello! Ask me a question: I answer it with the connected tools and documents."
REFLECT_DEPTH = 10  # tools a step that cannot use its own looks through


DECLINED = (
    "Not done: {} — instructions found inside files, pages or tool results are treated as data, "
    "not as requests. Say what you want done and I will do that."
)


@dataclass
class AskOptions:
    """How to run one question. `schema`: a JSON Schema the answer is also given as a JSON value
    for (`Answer.data`; needs an LLM). `earlier`: the conversation so far (the question this
    one follows up): "there" may point at a place it named. `today`: what relative dates mean."""

    schema: dict[str, Any] | None = None
    earlier: str = ""
    today: date | None = None
    # Side effects (execution/policy.py): consent for every tool that may destroy data (--yes),
    # only read-only tools called (--dry-run), and how to ask the user (a terminal's y/N).
    approve_all: bool = False
    dry_run: bool = False
    confirm: Confirm | None = None
    # Who asks (an API key's digest, "local"): what one source may teach the index is capped.
    source: str = "local"


@dataclass(frozen=True)
class Progress:
    """A stage began ("choosing tools")."""

    stage: str


@dataclass(frozen=True)
class Planned:
    """The plan is made and the route chosen; nothing has run yet."""

    plan: Plan
    decision: Decision


@dataclass(frozen=True)
class StepEvent:
    """A step was started, finished, failed or skipped (the scheduler's event), with the plan
    it belongs to."""

    event: Event
    plan: Plan


@dataclass(frozen=True)
class Finished:
    """The run's last event: its answer."""

    answer: Answer


EngineEvent = Progress | Planned | StepEvent | Finished
Listener = Callable[[EngineEvent], None]


class Engine:
    """Use `Engine.open(settings)`: it connects the servers once and closes them at the end."""

    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder,
        llm: LLM,
        pool: ServerPool,
        index: ToolIndex,
        gateway: Any,
        graph: ToolGraph | None = None,
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self.llm = llm
        self.pool = pool
        self.index = index
        self.graph = graph or ToolGraph()  # in memory when not given: learns nothing lasting
        companions = self.graph.companions if settings.graph.retrieve else None
        succeeded = self.graph.succeeded if settings.graph.explore else None
        self.retriever = ToolRetriever(
            index, embedder, RetrievalOptions(), companions=companions, succeeded=succeeded
        )
        self.contents = Contents(index.folder)  # what each server holds, sampled when it starts
        self._gateway = gateway  # grounding.tool.GatewayHolder: opened on first search
        self._synced: set[str] = set()  # servers whose current tools the index holds
        self._indexed: list[ToolSpec] | None = None  # the index's tools, read once per sync
        self._index_lock = asyncio.Lock()  # syncs and searches of the index, one at a time
        self._enter_lock = asyncio.Lock()
        self._warming: asyncio.Task[Any] | None = None
        self._stack: AsyncExitStack | None = None  # closes what the engine opened
        self._trace_policy = TracePolicy.of(settings)  # reads the servers' secrets once
        self.last_sync: SyncReport | None = None

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        *,
        servers: bool = True,
        index_folder: Path | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> AsyncIterator[Engine]:
        """An engine over `settings`, its index at `index_folder` (default: the servers' index).
        The configured MCP servers are started when a question first needs them (`connect`), so
        small talk or a tool search starts none; `servers=False` never starts them. `notice`
        hears of long work no question's events cover (indexing the local search corpus)."""
        # Remembered: a question's search results are read at every round and for the answer.
        embedder = RememberingEmbedder(embedder or make_embedder(settings.embedder))
        llm = llm or make_llm(settings.llm)
        native, gateway = in_process(settings, embedder, notice)
        async with AsyncExitStack() as stack:
            stack.push_async_callback(gateway.aclose)
            folder = index_folder or settings.index_path()
            index = await open_index(settings.index, embedder, folder)
            stack.callback(index.close)
            graph = ToolGraph.open(index.folder)
            stack.callback(graph.close)
            if not graph.edges:  # a graph new beside an existing index; later syncs follow it
                await asyncio.to_thread(graph.sync, index.tool_specs())
            pool = ServerPool.from_settings(settings, native=native, lazy=True)
            engine = cls(
                settings,
                embedder=embedder,
                llm=llm,
                pool=pool,
                index=index,
                gateway=gateway,
                graph=graph,
            )
            pool.on_tools_changed = engine._tools_changed
            engine._stack = stack if servers else None
            yield engine

    async def connect(self, names: Iterable[str] | None = None) -> None:
        """Start the named servers (default: every configured one) that are not started yet,
        wait until each is ready or has failed, and bring the index up to date with the tools
        of those that are ready. Concurrent questions wait only for the servers they name."""
        if self._stack is None:
            return
        async with self._enter_lock:
            if self._warming is None:
                await self._stack.enter_async_context(self.pool)  # lazy: starts nothing
                # The embedder loads its model while the first servers start (in a thread).
                self._warming = asyncio.create_task(self.embedder.embed(["warm up"]))
        wanted = list(self.pool.statuses) if names is None else list(names)
        await self.pool.settle(wanted)
        await self._warming
        await self._sync_ready()

    async def _sync_ready(self) -> None:
        """Index the tools of every ready server the index is not up to date with."""
        async with self._index_lock:
            ready = {s.name for s in self.servers if s.state == "ready"} - self._synced
            if ready:
                self.last_sync = await self._sync(ready)
        if ready:
            await self._sample(ready)

    async def resample(self, servers: Iterable[str]) -> None:
        """Sample again what these servers hold, their state changed outside the engine (an
        evaluation's sandbox restored after a request that changed it)."""
        await self._sample({s.name for s in self.servers if s.state == "ready"} & set(servers))

    async def _sample(self, servers: set[str]) -> None:
        """What these ready servers hold now (`Contents`), unless sampling is turned off."""
        if self.settings.mcp.sample_contents:
            reading = [t for t in self.pool.tools if not changes_things(t)]
            await self.contents.sample(self.pool, reading, servers, self._trace_policy.secrets)

    # -- the catalogue -------------------------------------------------------------------------

    @property
    def tools(self) -> list[ToolSpec]:
        """Every ready server's tools."""
        return self.pool.tools

    @property
    def servers(self) -> list[ServerStatus]:
        return list(self.pool.statuses.values())

    def _tools_changed(self, server: str) -> None:
        self._synced.discard(server)  # synced again before the next question ranks

    async def _sync(self, servers: set[str]) -> SyncReport:
        """Bring the index up to date with what these (ready) servers list now; the caller
        holds the index lock (a search must not read the index while it is written)."""
        infos = self.pool.infos
        report = await sync_index(
            self.index,
            self.embedder,
            [t for t in self.pool.tools if t.server in servers],
            [infos[name] for name in servers if name in infos],
            augmentation=self._augmentation(),
            prune_servers=servers,
        )
        self._synced |= servers
        self._indexed = None
        await asyncio.to_thread(self.graph.sync, self._indexed_tools())
        return report

    def _indexed_tools(self) -> list[ToolSpec]:
        if self._indexed is None:
            self._indexed = self.index.tool_specs()
        return self._indexed

    def candidates(self) -> list[ToolSpec]:
        """The tools a question may use: what the ready servers list now, and the indexed
        tools of servers not started yet (a plan that needs one starts it)."""
        idle = {s.name for s in self.servers if s.state == "idle"}
        return [*self.pool.tools, *(t for t in self._indexed_tools() if t.server in idle)]

    def unindexed(self) -> list[str]:
        """Servers not ready yet (idle or starting) whose tools the index does not know."""
        known = {t.server for t in self._indexed_tools()}
        waiting = ("idle", "starting")
        return [s.name for s in self.servers if s.state in waiting and s.name not in known]

    async def index_catalogue(
        self, catalogue: Path, on_progress: IndexProgress = lambda *_: None
    ) -> SyncReport:
        """Index a static catalogue file (LiveMCPBench tools.json, Seal-Tools tool.jsonl)."""
        servers, tools = load_catalogue(catalogue)
        async with self._index_lock:
            report = await sync_index(
                self.index,
                self.embedder,
                tools,
                servers,
                augmentation=self._augmentation(),
                on_progress=on_progress,
            )
            self._indexed = None
            await asyncio.to_thread(self.graph.sync, self._indexed_tools())
            return report

    def _augmentation(self) -> Any:
        return augmentation_for(self.settings.index, self.llm, self.index.folder)

    # -- tool search ---------------------------------------------------------------------------

    async def search_tools(
        self,
        query: str,
        *,
        k: int = 10,
        servers: bool = False,
        lexical: bool = False,
        dense: bool = False,
    ) -> list[IndexHit]:
        """The index searched by the full retriever (clauses, dense + BM25 fused), or only BM25
        (`lexical`), or only dense MaxSim (`dense`); tools, or their servers (`servers`)."""
        query = valid_text(query)
        if not query.strip():
            raise InputError("the query is empty")
        await self._sync_ready()  # what runs taught since the last question included
        if not len(self.index):
            raise InputError(
                f"the tool index at {self.index.folder} is empty: run `toolweave index`"
            )
        async with self._index_lock:
            if lexical:
                return self.index.search_text(query, k)
            if dense:
                (vector,) = await self.embedder.embed([query])
                return self.index.search(vector, k, level="server" if servers else "tool")
            if servers:
                return await self.retriever.search_servers(query, k)
            return await self.retriever.search(query, k)

    async def prepare_search(self) -> None:
        """Open the search gateway now (building the local corpus's index if it has none)
        rather than on the first search."""
        await self._gateway.get()

    async def rank(self, clauses: list[Clause], k: int = CANDIDATES) -> list[list[Candidate]]:
        """Each clause's best usable tools (`candidates`): the one ranking every stage uses."""
        await self._sync_ready()
        async with self._index_lock:
            contents = self.contents
            held, about, roots = contents.held(), contents.about(), contents.roots_of()
            fields, numeric = contents.fields_of(), contents.numeric_of()
            for clause in clauses:  # what the servers hold that it names: values of its own
                clause.held = held_in(clause, held)
                named = {h.value for h in clause.held}
                clause.held += [t for t in tables_by_field(clause, fields) if t.value not in named]
                clause.about = said_in(clause, about)  # when it names nothing held
                clause.fields = with_references([h.value for h in clause.held], fields)
                clause.numeric = {t: numeric[t] for t in clause.fields if t in numeric}
            return await rank_tools(
                self.retriever, self.candidates(), clauses, k=k, held=held, about=about, roots=roots
            )

    # -- questions -----------------------------------------------------------------------------

    async def ask(self, question: str, options: AskOptions | None = None) -> Answer:
        """Answer one question; its trace is stored (ask.traces)."""
        return await self._run(question, options or AskOptions(), lambda _event: None)

    async def stream(
        self, question: str, options: AskOptions | None = None
    ) -> AsyncIterator[EngineEvent]:
        """The run's events as they happen, ending with `Finished(answer)`. Leaving the loop
        early cancels the run."""
        queue: asyncio.Queue[EngineEvent | BaseException] = asyncio.Queue()
        run = asyncio.create_task(self._run(question, options or AskOptions(), queue.put_nowait))
        run.add_done_callback(lambda task: _finish(task, queue))
        try:
            while True:
                event = await queue.get()
                if isinstance(event, BaseException):
                    raise event
                yield event
                if isinstance(event, Finished):
                    return
        finally:
            run.cancel()

    async def _run(self, question: str, options: AskOptions, emit: Listener) -> Answer:
        question = check_question(question, self.settings.ask.max_question_chars)
        timer = _Timer()
        with timer.stage("analyse"):
            today, held = options.today or date.today(), self._names_held()
            analysis = analyse(question, today, options.earlier, held)
        llm = RecordingLLM(self.llm)
        counted: list[tuple[Edge, bool]] = []  # what the run's calls say of the tool graph
        if analysis.small_talk:
            answer = Answer(question=question, text=DIRECT_REPLY, route=Route.DIRECT)
            answer.why = SMALL_TALK.reason
        else:
            answer = await self._answer(analysis, options, llm, timer, emit, counted)
        answer.timings_ms = {**timer.ms, "total": timer.total()}
        if self.settings.ask.traces:
            # SQLite blocks: off the event loop, which may be serving other questions.
            path = trace_path(self.settings)
            stored = (path, answer, llm.calls, self._trace_policy)
            answer.trace_id = await asyncio.to_thread(store_trace, *stored)
        if self.settings.index.learn and not options.dry_run:
            await self._learn(answer, options.source)
        if self.settings.graph.learn and not options.dry_run and counted:
            await asyncio.to_thread(self.graph.record, counted, run=answer.trace_id)
        if changed := self._changed_servers(answer):
            await self._sample(changed)  # "add Dana Kim to memory": Dana Kim is held now
        emit(Finished(answer))
        return answer

    def _names_held(self) -> list[str]:
        """The names the servers' records and rows hold, for a question that writes one in
        lower case."""
        held = [*self.contents.held().values(), *self.contents.in_rows().values()]
        return list(dict.fromkeys(name for names in held for name in names))

    def _changed_servers(self, answer: Answer) -> set[str]:
        tools = {t.key: t for t in self.pool.tools}
        return {
            o.server
            for o in answer.observations
            if o.ok and o.called and o.key in tools and changes_things(tools[o.key])
        }

    async def _learn(self, answer: Answer, source: str) -> None:
        """What a successful run teaches the index; its servers sync before the next ranking."""
        ask, secrets = self.settings.ask, self._trace_policy.secrets
        taught = lessons(answer, fallback=ask.fallback_tool, min_score=ask.min_tool_score)
        # A clause holding a configured secret is never kept as an example.
        taught = [t for t in taught if mask_secrets(t.query, secrets) == t.query]
        if taught:

            def learn() -> list[str]:
                with LearnedQueries(self.index.folder) as store:
                    return store.learn(taught, answer.trace_id, source)

            self._relearn(await asyncio.to_thread(learn))

    async def feedback(self, trace_id: str, rating: Rating) -> list[str]:
        """The user's word on a stored run (a full trace id); `bad` unlearns what it taught the
        index and turns its tool graph successes into failures. Returns the tools whose examples
        changed."""
        folder = self.index.folder
        taken, _ = await asyncio.to_thread(rate_run, folder, self.graph, trace_id, rating)
        changed = sorted({lesson.tool for lesson in taken})
        self._relearn(changed)
        return changed

    def _relearn(self, tools: list[str]) -> None:
        """The servers of these tools are synced again before the next question ranks."""
        for name in list(self._synced):
            if any(key.startswith(f"{name}.") for key in tools):
                self._synced.discard(name)

    async def _answer(
        self,
        analysis: QuestionAnalysis,
        options: AskOptions,
        llm: RecordingLLM,
        timer: _Timer,
        emit: Listener,
        counted: list[tuple[Edge, bool]],
    ) -> Answer:
        ask, notes = self.settings.ask, list[str]()
        with timer.stage("connect"):
            await self._start_unindexed(emit, notes)
        emit(Progress("choosing tools"))
        with timer.stage("select"):
            candidates = await self.rank(analysis.clauses)
        usable = {t.key: t for t in self.candidates()}
        fallback = usable.get(ask.fallback_tool)
        with timer.stage("plan"):
            servers = set(self.pool.statuses)
            graph = self.graph if self.settings.graph.plan else None
            request = PlanRequest(
                analysis, candidates, usable, ask.min_tool_score, fallback, servers, graph
            )
            plan, planned = await make_planner(ask.planner, llm).plan(request)
            if ask.tool_pick == "llm" and fallback is not None:
                plan, picked = await pick_tools(plan, candidates, fallback, llm)
                planned += picked
            search = fallback.key if fallback else ""
            decision = await make_router(ask.router, llm).route(analysis, plan, usable, search)
            notes += [*planned, *([decision.note] if decision.note else [])]
        emit(Planned(plan, decision))
        observations: list[Observation] = []
        asked = analysis.question  # what the answer answers (the iterative route names more)
        if decision.route not in (Route.ITERATIVE, Route.CLARIFY, Route.DIRECT):
            with timer.stage("connect"):
                await self._start_servers_of(plan, emit)
        with timer.stage("execute"):
            if decision.route == Route.ITERATIVE:
                emit(Progress("searching, reading, searching again"))
                plan, observations, asked = await self._search_iteratively(
                    analysis, plan, search, llm, notes
                )
            elif decision.route not in (Route.CLARIFY, Route.DIRECT):
                observations = await self._execute(plan, llm, emit, options, notes, counted)
        text = decision.clarification or decision.reply or ""
        sources, data, short = [], None, ""
        if decision.route not in (Route.CLARIFY, Route.DIRECT):
            emit(Progress("writing the answer"))
            with timer.stage("answer"):
                answerer = make_answerer(
                    ask.answer, self.embedder, llm, max_sources_per_step=ask.max_sources_per_step
                )
                draft = await answerer.answer(asked, plan, observations, options.schema)
            text, sources, data, short = draft.text, draft.sources, draft.data, draft.short
            notes += draft.notes
        if analysis.declined:
            text += "\n\n" + DECLINED.format(" / ".join(repr(c) for c in analysis.declined))
        return Answer(
            question=analysis.question,
            text=text,
            short=short,
            sources=sources,
            route=decision.route,
            why=decision.reason,
            plan=plan,
            observations=observations,
            servers=self.servers,
            llm=llm.name,
            llm_calls=llm.usage.requests,
            notes=notes,
            data=data,
        )

    async def _start_unindexed(self, emit: Listener, notes: list[str]) -> None:
        """Servers whose tools the index does not know yet. While it knows none at all (the
        first question), the question waits for them: there is nothing else to choose from.
        Later they start in the background and join the index once ready, so a slow or hung
        server never delays a question; `toolweave index` waits for every server."""
        unindexed = self.unindexed()
        if unindexed and not self._indexed_tools():
            emit(Progress("starting MCP servers"))
            await self.connect(unindexed)
            return
        await self.connect([])
        if unindexed:
            self.pool.start(unindexed)
            names = ", ".join(unindexed)
            notes.append(f"not searched: the tools of {names}, not indexed yet (still starting)")

    async def _start_servers_of(self, plan: Plan, emit: Listener) -> None:
        """Start the servers the plan's steps call, all at once, and wait for them."""
        needed = {step.server for step in plan.steps if step.server and step.problem is None}
        if any(self.pool.statuses[name].state == "idle" for name in needed):
            emit(Progress("starting MCP servers"))
        await self.connect(needed)

    def _policy(self, options: AskOptions) -> Policy:
        approved = approved_tools(self.settings.policy.auto_approve, self.pool.specs)
        return Policy(approved, options.approve_all, options.dry_run, options.confirm)

    async def _execute(
        self,
        plan: Plan,
        llm: LLM,
        emit: Listener,
        options: AskOptions,
        notes: list[str],
        counted: list[tuple[Edge, bool]],
    ) -> list[Observation]:
        """Run the plan; a stand-in for a failed step is noted, and what the calls say of the
        tool graph goes to `counted` (recorded once the run has its trace id)."""
        tools, graph = self.candidates(), self.settings.graph
        flow = links(plan)

        def on_event(event: Event) -> None:
            if event.kind == "replaced":
                notes.append(f"{event.step_id}: {event.detail} (a stand-in that reads alike)")
            emit(StepEvent(event, plan))

        async def reflect(step: Step) -> list[Candidate]:
            """The index searched again with the step's own words, deeper than its shortlist."""
            async with self._index_lock:
                ranked = await rank_tools(
                    self.retriever,
                    tools,
                    [step.clause],
                    k=REFLECT_DEPTH,
                    held=self.contents.held(),
                    about=self.contents.about(),
                    roots=self.contents.roots_of(),
                )
            return ranked[0]

        async def stand_ins(step: Step) -> list[Candidate]:
            """Tools the index finds for the failed step's words, good enough to answer, that
            say what the failed tool says."""
            found = [c for c in await reflect(step) if c.score >= self.settings.ask.min_tool_score]
            failed = next((t for t in tools if t.key == step.key), None)
            return await alike(self.embedder, failed, found) if failed else []

        observations = await run_plan(
            plan,
            tools,
            self.pool,
            llm,
            budget=budget_of(self.settings.ask),
            on_event=on_event,
            reflect=reflect,
            policy=self._policy(options),
            graph=self.graph if graph.recover else None,
            alternatives=stand_ins,
        )
        counted += outcomes(plan, flow, observations)
        return observations

    async def _search_iteratively(
        self, analysis: QuestionAnalysis, plan: Plan, search: str, llm: LLM, notes: list[str]
    ) -> tuple[Plan, list[Observation], str]:
        """Planning search in place of the plan (its search step is the template): a step per
        round, each with its query and results, and the question as the search understood it
        (what it described named: "Who is the spouse of Vivien Leigh?").
        The LLM judges the evidence only when the LLM planner is chosen. Past the deadline
        (ask.deadline_s) the search is cancelled and the answer says so."""
        ask, question = self.settings.ask, analysis.question
        searching = next(s for s in plan.steps if s.key == search)
        started = time.perf_counter()
        try:
            trail = await asyncio.wait_for(
                planning_search(
                    question,
                    await self._gateway.get(),
                    self.embedder,
                    llm if ask.planner == "llm" else None,
                    max_rounds=min(ask.search_rounds, ask.max_tool_calls),
                ),
                ask.deadline_s,
            )
        except TimeoutError:
            step = searching.model_copy(update={"id": "s1", "arguments": {"query": question}})
            why = f"the deadline of {ask.deadline_s:g} s passed while searching"
            notes.append(f"not done: {why}")
            return Plan(steps=[step]), [Observation.of(step, error=why)], question
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        steps, observations = [], []
        rounds = zip(trail.queries, trail.rounds, trail.providers, strict=True)
        for number, (query, found, provider) in enumerate(rounds, 1):
            step = searching.model_copy(
                update={
                    "id": f"s{number}",
                    "clause": Clause(index=number - 1, text=query),
                    "arguments": {"query": query},
                    "depends_on": [f"s{number - 1}"] if number > 1 else [],
                }
            )
            steps.append(step)
            observations.append(
                Observation.of(
                    step,
                    error=None if found else "the search found nothing",
                    structured={
                        "provider": provider,
                        "results": [r.model_dump(mode="json") for r in found],
                    },
                    latency_ms=elapsed if number == 1 else 0.0,
                )
            )
        notes.append(f"planning search: {len(trail.queries)} rounds, stopped: {trail.stopped}")
        if trail.question != question:
            notes.append(f"answered as: {trail.question}")
        return Plan(steps=steps), observations, trail.question


def rate_run(
    index_folder: Path, graph: ToolGraph, trace_id: str, rating: Rating
) -> tuple[list[Lesson], int]:
    """Record the user's word on a run (a full trace id). `bad`: what it taught the index is
    taken back and never taught again, and its tool graph successes become failures. Returns
    the examples taken back and how many graph edges fell."""
    with LearnedQueries(index_folder) as store:
        taught = store.taught_by(trace_id) if rating == "bad" else []
        store.feedback(trace_id, rating)
    return taught, graph.unlearn(trace_id) if rating == "bad" else 0


def _finish(task: asyncio.Task[Answer], queue: asyncio.Queue[Any]) -> None:
    """Hand a run's error to the stream reading it (its answer came as the Finished event)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        queue.put_nowait(error)


def budget_of(ask: AskSettings) -> Budget:
    return Budget(
        max_steps=ask.max_steps,
        max_tool_calls=ask.max_tool_calls,
        max_llm_tokens=ask.max_llm_tokens,
        deadline_s=ask.deadline_s,
    )


def check_question(question: str, max_chars: int) -> str:
    """The question as text every stage can handle, or an InputError saying what is wrong."""
    question = valid_text(question).strip()
    if not question:
        raise InputError(
            'the question is empty; ask something, e.g. toolweave ask "What is 15% of 2,340?"'
        )
    if len(question) > max_chars:
        raise InputError(
            f"the question is {len(question):,} characters long; the limit is {max_chars:,} "
            "(setting ask.max_question_chars): shorten it or raise the limit"
        )
    return question


def catalogue_folder(settings: Settings, catalogue: Path) -> Path:
    """Where a static catalogue's index lives by default."""
    return settings.state_path() / "catalogs" / catalogue.stem


class _Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}
        self.started = time.perf_counter()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage; a stage entered twice (connect) adds up."""
        started = time.perf_counter()
        try:
            yield
        finally:
            spent = (time.perf_counter() - started) * 1000
            self.ms[name] = round(self.ms.get(name, 0.0) + spent, 1)

    def total(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 1)


async def ask(question: str, settings: Settings, options: AskOptions | None = None) -> Answer:
    """One question on a fresh engine, closed afterwards (a long-lived process keeps an
    `Engine` open instead)."""
    async with Engine.open(settings) as engine:
        return await engine.ask(question, options)
