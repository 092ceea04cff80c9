"""`ask`: the whole pipeline, one stage per module.

connect (catalog) -> decompose + select (retrieval) -> plan (planning) -> fill arguments and call
tools (execution) -> extractive answer with sources (answer).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

from toolweave.answer.abstractive import json_answer, write_answer
from toolweave.answer.extractive import compose_answer
from toolweave.catalog.connections import ServerPool
from toolweave.errors import InputError, LLMError
from toolweave.execution.executor import Reflect, run_plan
from toolweave.execution.scheduler import Budget, Event
from toolweave.grounding.gateway import SearchGateway
from toolweave.grounding.tool import in_process
from toolweave.index import ToolIndex, augmentation_for, open_index, sync_index
from toolweave.models import LLM, Embedder, make_embedder, make_llm
from toolweave.planning.llm_planner import plan_question
from toolweave.planning.planner import find_tool
from toolweave.planning.router import Decision, llm_route, route
from toolweave.planning.search_loop import planning_search
from toolweave.retrieval.decompose import split_clauses
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.retrieval.rewrite import searchable
from toolweave.retrieval.tool_select import rank_tools
from toolweave.settings import AskSettings, Settings
from toolweave.traces import LLMCall, RecordingLLM, store_trace, trace_path
from toolweave.types import (
    Answer,
    Candidate,
    Observation,
    Plan,
    Source,
    Step,
    SubQuery,
    ToolSpec,
)

Progress = Callable[[str], None]
PlanEvents = Callable[[Event, Plan], None]
DIRECT_REPLY = "Hello! Ask me a question: I answer it with the connected tools and documents."


async def _synced_index(
    settings: Settings, pool: ServerPool, embedder: Embedder, llm: LLM
) -> ToolIndex:
    """The tool index, brought up to date with what the ready servers list now."""
    folder = settings.index_path()
    index = await open_index(settings.index, embedder, folder)
    ready = {name for name, status in pool.statuses.items() if status.state == "ready"}
    await sync_index(
        index,
        embedder,
        pool.tools,
        [pool.infos[name] for name in ready if name in pool.infos],
        augmentation=augmentation_for(settings.index, llm, folder),
        prune_servers=ready,
    )
    return index


def describe_event(event: Event, plan: Plan) -> str:
    """One line of live progress: "s2 time.get_current_time: finished in 27 ms"."""
    if event.kind in ("plan", "stopped"):
        return f"plan: {event.detail}"
    step = next((s for s in plan.steps if s.id == event.step_id), None)
    name = f"{step.server}.{step.tool}" if step and step.tool else "(no tool)"
    timing = f" in {event.elapsed_ms:.0f} ms" if event.elapsed_ms is not None else ""
    detail = f": {event.detail}" if event.detail else ""
    return f"{event.step_id} {name}: {event.kind}{timing}{detail}"


def _report(event: Event, plan: Plan, on_progress: Progress, on_event: PlanEvents) -> None:
    on_event(event, plan)
    on_progress(describe_event(event, plan))


REFLECT_DEPTH = 10  # tools a step that cannot use its own looks through


def _reflector(retriever: ToolRetriever, tools: list[ToolSpec]) -> Reflect:
    """The index searched again with a step's own words, deeper than its shortlist."""

    async def reflect(step: Step) -> list[Candidate]:
        return (await rank_tools(retriever, tools, [step.subquery.text], k=REFLECT_DEPTH))[0]

    return reflect


def budget_of(ask: AskSettings) -> Budget:
    return Budget(
        max_steps=ask.max_steps,
        max_tool_calls=ask.max_tool_calls,
        max_llm_tokens=ask.max_llm_tokens,
        deadline_s=ask.deadline_s,
    )


def check_question(question: str, max_chars: int) -> str:
    question = question.replace("\x00", "").strip()
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


class _Timer:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = round((time.perf_counter() - started) * 1000, 1)


async def ask(
    question: str,
    settings: Settings,
    *,
    today: date | None = None,
    on_progress: Progress = lambda _: None,
    on_event: PlanEvents = lambda _event, _plan: None,
    schema: dict[str, Any] | None = None,
    earlier: str = "",
) -> Answer:
    """Answer a question with the configured MCP servers and models; store the run's trace.
    `on_progress` hears the stage, `on_event` each scheduler event with the plan it is about.
    With `schema` (a JSON Schema) the answer is also given as a JSON value valid for it, in
    `Answer.data` (this needs an LLM). `earlier` is the conversation so far (the question this
    one follows up): "there" may point at a place it named."""
    question = check_question(question, settings.ask.max_question_chars)
    today = today or date.today()
    started = time.perf_counter()
    llm_calls: list[LLMCall] = []
    if (early := route(question, Plan(), {}, today)).route == "direct":
        answer = Answer(question=question, text=DIRECT_REPLY, route=early.route, why=early.reason)
        answer.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 1)
    else:
        llm = RecordingLLM(make_llm(settings.llm))
        subqueries = split_clauses(question, earlier)
        answer = await _answer_with_tools(
            question, subqueries, settings, llm, today, (on_progress, on_event), schema
        )
        llm_calls = llm.calls
    if settings.ask.traces:
        # SQLite blocks: off the event loop, which may be serving other questions.
        path = trace_path(settings)
        answer.trace_id = await asyncio.to_thread(store_trace, path, answer, llm_calls)
    return answer


async def _answer_with_tools(
    question: str,
    subqueries: list[SubQuery],
    settings: Settings,
    llm: LLM,
    today: date,
    listeners: tuple[Progress, PlanEvents],
    schema: dict[str, Any] | None,
) -> Answer:
    on_progress, on_event = listeners
    started, timer = time.perf_counter(), _Timer()
    embedder = make_embedder(settings.embedder)
    gateway_server, gateway = in_process(settings, embedder)
    pool = ServerPool.from_settings(settings, native=gateway_server)
    on_progress("starting MCP servers")
    # Embedding the clauses (and loading the embedder) overlaps with starting the servers.
    clause_task = asyncio.create_task(embedder.embed([searchable(s.text) for s in subqueries]))
    try:
        async with pool:
            timer.ms["connect"] = pool.startup_ms
            clause_vectors = await clause_task
            on_progress("indexing tools")
            with timer.stage("index"):
                index = await _synced_index(settings, pool, embedder, llm)
                retriever = ToolRetriever(index, embedder, RetrievalOptions())
            on_progress("choosing tools")
            with timer.stage("select"):
                texts = [s.text for s in subqueries]
                candidates = await rank_tools(retriever, pool.tools, texts, clause_vectors)
                fallback = find_tool(pool.tools, settings.ask.fallback_tool)
                plan, notes = await make_plan(
                    question, subqueries, candidates, fallback, settings, llm, pool, today
                )
                search = fallback.key if fallback else ""
                decision = await _decide(
                    question, plan, pool.tools, search, settings, llm, today, notes
                )
            with timer.stage("execute"):
                observations: list[Observation] = []
                if decision.route == "iterative":
                    on_progress("searching, reading, searching again")
                    searching = next(s for s in plan.steps if f"{s.server}.{s.tool}" == search)
                    plan, observations = await _search_iteratively(
                        question, searching, await gateway.get(), embedder, settings, llm, notes
                    )
                elif decision.route not in ("clarify", "direct"):
                    observations = await run_plan(
                        plan,
                        pool.tools,
                        pool,
                        llm,
                        today=today,
                        budget=budget_of(settings.ask),
                        on_event=lambda event: _report(event, plan, on_progress, on_event),
                        reflect=_reflector(retriever, pool.tools),
                    )
            stopping = time.perf_counter()
    finally:
        clause_task.cancel()
        await gateway.aclose()
    timer.ms["disconnect"] = round((time.perf_counter() - stopping) * 1000, 1)
    on_progress("writing the answer")
    with timer.stage("answer"):
        text, sources, data = decision.clarification or decision.reply or "", list[Source](), None
        if decision.route not in ("clarify", "direct"):
            text, sources = await compose_answer(
                plan, observations, embedder, max_sources_per_step=settings.ask.max_sources_per_step
            )
            text, data = await _final_form(question, text, sources, settings, llm, notes, schema)
    timer.ms["total"] = round((time.perf_counter() - started) * 1000, 1)
    return Answer(
        question=question,
        text=text,
        sources=sources,
        route=decision.route,
        why=decision.reason,
        plan=plan,
        observations=observations,
        servers=list(pool.statuses.values()),
        llm=llm.name,
        llm_calls=llm.usage.requests,
        timings_ms=timer.ms,
        notes=notes,
        data=data,
    )


async def _decide(
    question: str,
    plan: Plan,
    tools: list[ToolSpec],
    search: str,
    settings: Settings,
    llm: LLM,
    today: date,
    notes: list[str],
) -> Decision:
    """The rules' route, or the LLM router's (ask.router = "llm") with the rules as fallback."""
    decision = route(question, plan, {t.key: t for t in tools}, today, search=search)
    if settings.ask.router == "llm":
        decision, kept = await llm_route(question, plan, decision, llm, search=search)
        notes.extend([kept] if kept else [])
    return decision


async def _search_iteratively(
    question: str,
    searching: Step,
    gateway: SearchGateway,
    embedder: Embedder,
    settings: Settings,
    llm: LLM,
    notes: list[str],
) -> tuple[Plan, list[Observation]]:
    """Planning search in place of the plan (its search step, `searching`, is the template): a
    step per round, each with its query and results (so the answer takes each hop's best
    sentence). The LLM judges the evidence only when the LLM planner is chosen. Past the
    deadline (ask.deadline_s) the search is cancelled and the answer says so."""
    started = time.perf_counter()
    try:
        trail = await asyncio.wait_for(
            planning_search(
                question,
                gateway,
                embedder,
                llm if settings.ask.planner == "llm" else None,
                max_rounds=min(settings.ask.search_rounds, settings.ask.max_tool_calls),
            ),
            settings.ask.deadline_s,
        )
    except TimeoutError:
        step = searching.model_copy(update={"id": "s1", "arguments": {"query": question}})
        why = f"the deadline of {settings.ask.deadline_s:g} s passed while searching"
        notes.append(f"not done: {why}")
        return Plan(steps=[step]), [Observation.of(step, error=why)]
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    steps, observations = [], []
    for number, (query, found) in enumerate(zip(trail.queries, trail.rounds, strict=True), 1):
        step = searching.model_copy(
            update={
                "id": f"s{number}",
                "subquery": SubQuery(index=number - 1, text=query),
                "arguments": {"query": query},
                "depends_on": [f"s{number - 1}"] if number > 1 else [],
            }
        )
        steps.append(step)
        observations.append(
            Observation.of(
                step,
                error=None if found else "the search found nothing",
                structured={"results": [r.model_dump(mode="json") for r in found]},
                latency_ms=elapsed if number == 1 else 0.0,
            )
        )
    notes.append(f"planning search: {len(trail.queries)} rounds, stopped: {trail.stopped}")
    return Plan(steps=steps), observations


async def make_plan(
    question: str,
    subqueries: list[SubQuery],
    candidates: list[list[Candidate]],
    fallback: ToolSpec | None,
    settings: Settings,
    llm: LLM,
    pool: ServerPool,
    today: date,
) -> tuple[Plan, list[str]]:
    """The plan (validated and repaired) and notes on how it was made."""
    return await plan_question(
        settings.ask.planner,
        question,
        subqueries,
        candidates,
        llm,
        connected={t.key: t for t in pool.tools},
        servers=set(pool.statuses),
        min_score=settings.ask.min_tool_score,
        fallback=fallback,
        today=today,
    )


async def _final_form(
    question: str,
    text: str,
    sources: list[Source],
    settings: Settings,
    llm: LLM,
    notes: list[str],
    schema: dict[str, Any] | None,
) -> tuple[str, Any]:
    """The answer in the form asked for: JSON for a schema, the LLM's own words with checked
    citations (ask.answer = "abstractive"), or the extractive text as it is."""
    if schema is not None:
        return text, await json_answer(question, sources, llm, schema)
    if settings.ask.answer == "abstractive" and sources:
        try:
            written, removed = await write_answer(question, sources, llm)
        except LLMError as exc:
            notes.append(f"kept the extractive answer: the LLM could not write one ({exc})")
            return text, None
        notes.extend(f"removed citation {r}" for r in removed)
        return written, None
    return text, None
