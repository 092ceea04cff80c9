"""`toolweave eval servers`: plain requests to real third-party MCP servers, scored on what the
run did, not on what it said it did.

Each task of `evals/data/servers/cases.yaml` gives a few phrasings of one request, the calls it
needs (listed arguments must match exactly), the side effects it must have (files, rows, graph
entities, git state, checked after the run), and facts its answer must state. Every request runs
on the same engine with the user's consent given (`approve_all`), in a sandbox restored first
(evals/sandbox.py). Per request:

  tools      every expected tool was called and no other one (a clarification: none)
  arguments  every expected call was made with the listed arguments, exactly
  success    tools and arguments right, those calls succeeded, the effects are there, the answer
             states the facts, and nothing else changed (a clarification: a question back)
  unrequested  state that changed although no expected effect names it, and successful calls
             of tools that change things that no expected call names (a server's own state,
             such as mcp-server-sqlite's memo, is not in the sandbox)
  invented   a value in a call of a tool that changes things which is neither in the request
             nor in an earlier result (leaving out the task's `derived` arguments: SQL written
             from a plain request, an entity's type)

`gold` runs the expected calls themselves instead of `ask`: it checks the suite, not toolweave.
"""

from __future__ import annotations

import itertools
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from toolweave.engine import AskOptions, Engine
from toolweave.errors import InputError
from toolweave.evals.sandbox import DATA, Sandbox, install_pypi_servers, serve_site
from toolweave.execution.policy import reads_only
from toolweave.language.parameters import changes_things
from toolweave.settings import Settings
from toolweave.types import Answer, Observation, ServerSpec

Progress = Callable[[str, int, int], None]
SPLITS = ("dev", "test")


@dataclass
class Task:
    id: str
    split: str
    kind: str
    asks: list[str]
    calls: list[dict[str, Any]] = field(default_factory=list)
    effects: list[dict[str, Any]] = field(default_factory=list)
    answer: list[str] = field(default_factory=list)
    derived: list[str] = field(default_factory=list)
    clarify: bool = False


@dataclass
class Result:
    task: str
    split: str
    kind: str
    request: str
    tools: bool
    arguments: bool
    success: bool
    unrequested: list[str]
    invented: list[str]
    llm_calls: int
    seconds: float
    calls: list[str]
    problems: list[str]


@dataclass
class Row:
    split: str
    requests: int
    tools: float
    arguments: float
    success: float
    unrequested: int
    invented: int
    llm_calls_median: float
    seconds_median: float
    by_kind: dict[str, float]


def load_tasks(path: Path) -> list[Task]:
    data = yaml.safe_load(path.read_text()) or {}
    tasks = [Task(**item) for item in data.get("tasks") or []]
    if unknown := {t.split for t in tasks} - set(SPLITS):
        raise InputError(f"{path}: unknown split(s) {sorted(unknown)}")
    ids = [t.id for t in tasks]
    if twice := sorted({i for i in ids if ids.count(i) > 1}):
        # A task id names one task: `--task` and the comparison of runs go by it.
        raise InputError(f"{path}: task id(s) used twice: {twice}")
    for task in tasks:
        for effect in task.effects:
            _check_keys(path, task.id, effect)
    return tasks


# Each kind of effect, by the key that names it, and the other keys it may have: a misspelt key
# would otherwise be ignored and its effect always hold.
_EFFECT_KEYS = {
    "file": {"text", "contains", "absent"},
    "directory": {"absent"},
    "sql": {"rows", "table"},
    "entity": {"observations", "absent"},
    "relation": {"absent"},
    "git": {"name", "paths", "message"},
}


def _check_keys(path: Path, task: str, effect: dict[str, Any]) -> None:
    kind = next((k for k in _EFFECT_KEYS if k in effect), None)
    extra = set(effect) - {kind, *_EFFECT_KEYS.get(kind or "", ())}
    if kind is None or extra:
        raise InputError(f"{path}: task {task}: unknown effect or key(s) in {effect}")


async def run_servers_eval(
    settings: Settings,
    splits: list[str],
    *,
    gold: bool = False,
    data: Path = DATA,
    only: list[str] | None = None,
    limit: int | None = None,
    learn_from: str | None = None,
    on_progress: Progress = lambda *_: None,
    notice: Callable[[str], None] = print,
) -> tuple[list[Row], list[Result]]:
    """Each request of the chosen splits' tasks, asked of an engine over the sandbox's servers.
    `learn_from` a split first: its requests are asked of an engine that learns from its runs
    (each from a user of its own), and a run the checks fail is rated `bad` by its user, as
    traffic and feedback would teach it; then the splits are measured with what it learned."""
    chosen = load_tasks(data / "cases.yaml")
    if only:
        chosen = [t for t in chosen if any(t.id.startswith(o) for o in only)]
    results: list[Result] = []
    with sandboxed(settings, data, notice) as (sandbox, servers, state):
        if learn_from is not None:
            taught = [t for t in chosen if t.split == learn_from]
            async with engine_over(settings, servers, state, notice, learn=True) as engine:
                await _teach(engine, sandbox, _requests(taught, limit), on_progress, notice)
        async with engine_over(settings, servers, state, notice) as engine:
            requests = _requests([t for t in chosen if t.split in splits], limit)
            for done, (task, ask) in enumerate(requests):
                on_progress("requests", done, len(requests))
                results.append((await run_one(engine, sandbox, task, ask, gold))[0])
            on_progress("requests", len(requests), len(requests))
    return [_row(split, [r for r in results if r.split == split]) for split in splits], results


def _requests(tasks: list[Task], limit: int | None) -> list[tuple[Task, str]]:
    return [(t, a) for t in tasks for a in t.asks[:limit]]


async def _teach(
    engine: Engine,
    sandbox: Sandbox,
    requests: list[tuple[Task, str]],
    on_progress: Progress,
    notice: Callable[[str], None],
) -> None:
    """The requests as runs the engine learns from; the runs the checks fail are rated bad."""
    bad = 0
    for done, (task, ask) in enumerate(requests):
        on_progress("learning", done, len(requests))
        result, answer = await run_one(engine, sandbox, task, ask, False, source=f"user{done}")
        if not result.success and answer.trace_id:
            await engine.feedback(answer.trace_id, "bad")
            bad += 1
    on_progress("learning", len(requests), len(requests))
    notice(f"learned from {len(requests)} runs, {bad} of them rated bad")


@contextmanager
def sandboxed(
    settings: Settings, data: Path, notice: Callable[[str], None]
) -> Iterator[tuple[Sandbox, dict[str, ServerSpec], Path]]:
    """A built sandbox, the servers over it and the state folder of its engines."""
    scripts = install_pypi_servers(settings.state_path() / "evals" / "servers", notice)
    with _sandbox_folder() as folder:
        sandbox = Sandbox(Path(folder), data / "sandbox")
        with serve_site(sandbox.data / "site") as site:
            sandbox.site = site
            sandbox.build()
            yield sandbox, sandbox.servers(scripts), Path(folder) / "state"


@asynccontextmanager
async def engine_over(
    settings: Settings,
    servers: dict[str, ServerSpec],
    state: Path,
    notice: Callable[[str], None],
    *,
    learn: bool = False,
) -> AsyncIterator[Engine]:
    """An engine over the sandbox's servers, every one of them ready; one that `learn`s from
    its runs keeps what they teach in the sandbox's state folder, for the engines after it."""
    async with Engine.open(_settings_over(settings, servers, state, learn)) as engine:
        notice("starting the servers and indexing their tools")
        await engine.connect()
        if failed := [s for s in engine.servers if s.state != "ready"]:
            names = ", ".join(f"{s.name} ({s.error})" for s in failed)
            raise InputError(f"servers did not start: {names}")
        yield engine


@contextmanager
def _sandbox_folder() -> Iterator[str]:
    """A fresh folder whose path is the same from run to run (/tmp/toolweave-eval/1 unless
    another run holds it): the paths in the requests are words the retriever reads, and a random
    name would make two runs of the same code rank tools differently."""
    parent = Path(tempfile.gettempdir()) / "toolweave-eval"
    parent.mkdir(exist_ok=True)
    for number in itertools.count(1):
        folder = parent / str(number)
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        try:
            yield str(folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return


def _settings_over(
    settings: Settings, servers: dict[str, ServerSpec], state: Path, learn: bool = False
) -> Settings:
    """The user's models and options, with only the sandbox's servers (and the default time
    server and web search), everything stored in the sandbox; unless it is to `learn`, no
    learning from runs, so each request is measured as the first one would be."""
    off = {name: ServerSpec(command="true", disabled=True) for name in ("docs", "calc")}
    sections = {
        "mcp_servers": {**off, **servers},
        "mcp_json": [],
        "state_dir": state,
        "mcp": settings.mcp.model_copy(update={"start_timeout_s": 300.0}),
    }
    if learn:
        index = settings.index.model_copy(update={"learn": True})
        graph = settings.graph.model_copy(update={"learn": True})
        return settings.model_copy(update={**sections, "index": index, "graph": graph})
    return settings.zero_shot(**sections)


async def run_one(
    engine: Engine, sandbox: Sandbox, task: Task, ask: str, gold: bool, source: str = "local"
) -> tuple[Result, Answer]:
    values = sandbox.placeholders()
    request = fill(ask, values)
    sandbox.reset()
    before = sandbox.state()
    started = time.perf_counter()
    if gold:
        answer = await _gold_answer(engine, task, request, values)
    else:
        answer = await engine.ask(request, AskOptions(approve_all=True, source=source))
    seconds = time.perf_counter() - started
    after = sandbox.state()
    changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
    result = _score(engine, sandbox, task, request, answer, changed, seconds)
    # The next request starts from the sandbox as described, the engine knowing what its
    # servers hold then: a name a change added is held no more.
    tools = {tool.key: tool for tool in engine.tools}
    acted = {
        o.server
        for o in answer.observations
        if o.ok and (tool := tools.get(o.key)) is not None and changes_things(tool)
    }
    if acted:
        sandbox.reset()
        await engine.resample(acted)
    return result, answer


async def _gold_answer(engine: Engine, task: Task, request: str, values: dict[str, str]) -> Answer:
    """The expected calls made as listed (`gold` arguments where given), their results as the
    answer."""
    observations = []
    for number, call in enumerate(task.calls):
        server, tool = call["tool"].split("|")[0].split(".", 1)
        arguments = fill(call.get("gold") or call.get("arguments") or {}, values)
        outcome = await engine.pool.call(server, tool, arguments)
        observations.append(
            Observation(
                step_id=f"s{number + 1}",
                server=server,
                tool=tool,
                arguments=arguments,
                ok=outcome.error is None,
                text=outcome.text,
                error=outcome.error,
            )
        )
    text = "\n".join(o.text or o.error or "" for o in observations) or "Which one do you mean?"
    return Answer(question=request, text=text, observations=observations)


def _sent(observations: list[Observation]) -> list[Observation]:
    """The calls made: a step not run, or not done for a step it needed, called nothing."""
    return [o for o in observations if not (o.error or "").startswith(("not run", "not done"))]


def _score(
    engine: Engine,
    sandbox: Sandbox,
    task: Task,
    request: str,
    answer: Answer,
    changed: set[str],
    seconds: float,
) -> Result:
    values = sandbox.placeholders()
    sent = _sent(answer.observations)
    expected = [fill(call, values) for call in task.calls]
    problems: list[str] = []
    tools_right = _tools_right(expected, _unread(engine, expected, sent), problems)
    arguments_right = all(_matching(call, sent) is not None for call in expected)
    if tools_right and not arguments_right:
        problems.append("arguments differ: " + "; ".join(_call_text(o) for o in sent))
    calls_ok = all((o := _matching(c, sent)) is not None and o.ok for c in expected)
    effects_ok = all(_effect_holds(sandbox, fill(e, values), problems) for e in task.effects)
    claimed = set().union(*(_claims(sandbox, fill(e, values)) for e in task.effects))
    unrequested = sorted((changed - claimed) | _unasked_changes(engine, expected, sent))
    facts = [f for f in task.answer if f.lower() not in answer.text.lower()]
    if facts:
        problems.append(f"answer lacks {facts}")
    if unrequested:
        problems.append(f"unrequested changes {unrequested}")
    invented = _invented(engine, task, request, sent)
    success = tools_right and arguments_right and calls_ok and effects_ok and not facts
    success = success and not unrequested and not invented
    if task.clarify:
        success = success and _asks_back(answer)
    return Result(
        task=task.id,
        split=task.split,
        kind=task.kind,
        request=request,
        tools=tools_right,
        arguments=arguments_right,
        success=success,
        unrequested=unrequested,
        invented=invented,
        llm_calls=answer.llm_calls,
        seconds=round(seconds, 2),
        calls=[_call_text(o) for o in answer.observations],
        problems=problems,
    )


def _unasked_changes(
    engine: Engine, expected: list[dict[str, Any]], sent: list[Observation]
) -> set[str]:
    """The tools that change things and were called, successfully, without an expected call."""
    tools = {t.key: t for t in engine.tools}
    wanted = set().union(*(set(call["tool"].split("|")) for call in expected))
    return {
        f"call:{o.key}"
        for o in sent
        if o.ok and o.key not in wanted and o.key in tools and changes_things(tools[o.key])
    }


def _unread(
    engine: Engine, expected: list[dict[str, Any]], sent: list[Observation]
) -> list[Observation]:
    """The calls but the reads of a file an expected change then writes: reading it first is
    how its exact lines are known, neither asked for nor wrong."""
    tools = {t.key: t for t in engine.tools}
    written = {
        (call.get("arguments") or {}).get("path")
        for call in expected
        if any(key in tools and changes_things(tools[key]) for key in call["tool"].split("|"))
    } - {None}
    wanted = set().union(*(set(call["tool"].split("|")) for call in expected))
    return [
        o
        for o in sent
        if o.key in wanted
        or o.arguments.get("path") not in written
        or (o.key in tools and changes_things(tools[o.key]))
    ]


def _tools_right(
    expected: list[dict[str, Any]], sent: list[Observation], problems: list[str]
) -> bool:
    wanted = [set(call["tool"].split("|")) for call in expected]
    missing = [sorted(names)[0] for names in wanted if not any(o.key in names for o in sent)]
    extra = sorted({o.key for o in sent if not any(o.key in names for names in wanted)})
    if missing or extra:
        problems.append(f"tools: missing {missing}, not asked for {extra}")
    return not missing and not extra


def _matching(call: dict[str, Any], sent: list[Observation]) -> Observation | None:
    """The call made with the expected tool and arguments, a successful one first (a retry)."""
    names = set(call["tool"].split("|"))
    wanted = call.get("arguments") or {}
    made = [
        o
        for o in sent
        if o.key in names and all(o.arguments.get(k) == v for k, v in wanted.items())
    ]
    return max(made, key=lambda o: o.ok, default=None)


def _asks_back(answer: Answer) -> bool:
    return str(answer.route) == "clarify" or answer.text.rstrip().endswith("?")


def _call_text(observation: Observation) -> str:
    state = "ok" if observation.ok else f"failed: {(observation.error or '')[:80]}"
    return f"{observation.key}({observation.arguments}) {state}"


# -- effects ---------------------------------------------------------------------------------


def _effect_holds(sandbox: Sandbox, effect: dict[str, Any], problems: list[str]) -> bool:
    holds = _check(sandbox, effect)
    if not holds:
        problems.append(f"effect missing: {effect}")
    return holds


def _check(sandbox: Sandbox, effect: dict[str, Any]) -> bool:
    if "file" in effect or "directory" in effect:
        path = Path(effect.get("file") or effect["directory"])
        if effect.get("absent"):
            return not path.exists()
        if "directory" in effect:
            return path.is_dir()
        text = path.read_text(errors="replace") if path.is_file() else None
        if "text" in effect:
            return text == effect["text"]
        return text is not None and effect.get("contains", "") in text
    if "sql" in effect:
        try:
            with sqlite3.connect(sandbox.db) as db:
                rows = [list(row) for row in db.execute(effect["sql"]).fetchall()]
        except sqlite3.Error:  # the table the effect reads was never made (or was dropped)
            return False
        return rows == effect["rows"]
    if "entity" in effect:
        entity = next((e for e in _entities(sandbox) if e["name"] == effect["entity"]), None)
        if effect.get("absent"):
            return entity is None
        seen = [o.lower() for o in (entity or {}).get("observations") or []]
        return entity is not None and all(
            any(want.lower() in o for o in seen) for want in effect.get("observations") or []
        )
    if "relation" in effect:
        source, kind, target = effect["relation"]
        present = any(
            (r.get("from"), r.get("relationType"), r.get("to")) == (source, kind, target)
            for r in sandbox.graph()
            if r.get("type") == "relation"
        )
        return present != bool(effect.get("absent"))
    if "git" in effect:
        return _git_holds(sandbox, effect)
    raise InputError(f"unknown effect {effect}")


def _entities(sandbox: Sandbox) -> list[dict[str, Any]]:
    return [item for item in sandbox.graph() if item.get("type") == "entity"]


def _git_holds(sandbox: Sandbox, effect: dict[str, Any]) -> bool:
    state = sandbox.state()
    if effect["git"] == "branch":
        return f"git:branch:{effect['name']}" in state
    if effect["git"] == "staged":
        staged = {line.split("\t")[-1] for line in state["git:staged"].splitlines()}
        return set(effect["paths"]) <= staged
    if effect["git"] == "commit":
        return sandbox.head_message() == effect["message"]
    if effect["git"] == "head":
        return state["git:HEAD"] == effect["name"]
    raise InputError(f"unknown git effect {effect}")


def _claims(sandbox: Sandbox, effect: dict[str, Any]) -> set[str]:
    """The state keys an expected effect accounts for."""
    if "file" in effect or "directory" in effect:
        path = Path(effect.get("file") or effect["directory"])
        try:
            name = path.relative_to(sandbox.files).as_posix()
        except ValueError:
            return set()
        parents = {f"file:{p.as_posix()}" for p in Path(name).parents if str(p) != "."}
        return {f"file:{name}", *parents}
    if "sql" in effect:
        return {f"table:{effect['table']}"}
    if "entity" in effect:
        return {f"entity:{effect['entity']}"}
    if "relation" in effect:
        return {"relation:" + "|".join(effect["relation"])}
    kind = effect.get("git")
    if kind == "branch":
        return {f"git:branch:{effect['name']}"}
    if kind == "staged":
        return {"git:staged", "git:worktree"}
    if kind == "commit":
        return {"git:staged", "git:worktree", "git:branch:main"}
    if kind == "head":
        return {"git:HEAD"}
    return set()


# -- invented values -------------------------------------------------------------------------


def _invented(engine: Engine, task: Task, request: str, sent: list[Observation]) -> list[str]:
    """Values of calls that change things that come from neither the request nor a result."""
    tools = {tool.key: tool for tool in engine.tools}
    found = []
    seen = [request]
    for observation in sent:
        tool = tools.get(observation.key)
        if tool is not None and not reads_only(tool):
            for path, value in _leaves(observation.arguments):
                if not _is_derived(path, task.derived) and not _grounded(value, seen):
                    found.append(f"{observation.key} {path}={value!r}")
        seen.append(observation.text)
    return found


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}".lstrip("."))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v, f"{path}.*".lstrip("."))]
    if isinstance(value, bool) or value in ("", None):
        return []
    return [(path, value)]


def _is_derived(path: str, derived: list[str]) -> bool:
    return any(re.fullmatch(re.escape(d).replace(r"\*", "[^.]+"), path) for d in derived)


def _grounded(value: Any, texts: list[str]) -> bool:
    """Written in the request or an earlier result; a path, part by part."""
    text = str(value)
    if any(text in source for source in texts):
        return True
    parts = [part for part in text.split("/") if part]
    return "/" in text and all(any(part in source for source in texts) for part in parts)


def fill(value: Any, values: dict[str, str]) -> Any:
    if isinstance(value, str):
        return re.sub(r"\{(files|repo|site)\}", lambda m: values[m.group(1)], value)
    if isinstance(value, dict):
        return {k: fill(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, values) for v in value]
    return value


# -- the table ---------------------------------------------------------------------------------


def _row(split: str, results: list[Result]) -> Row:
    def share(flags: list[bool]) -> float:
        return round(sum(flags) / len(flags), 3) if flags else 0.0

    kinds = sorted({r.kind for r in results})
    return Row(
        split=split,
        requests=len(results),
        tools=share([r.tools for r in results]),
        arguments=share([r.arguments for r in results]),
        success=share([r.success for r in results]),
        unrequested=sum(bool(r.unrequested) for r in results),
        invented=sum(bool(r.invented) for r in results),
        llm_calls_median=statistics.median([r.llm_calls for r in results]) if results else 0,
        seconds_median=round(statistics.median([r.seconds for r in results]), 2) if results else 0,
        by_kind={k: share([r.success for r in results if r.kind == k]) for k in kinds},
    )


def markdown(rows: list[Row]) -> str:
    names = "tools | arguments | success | unrequested | invented | LLM calls p50 | s p50"
    lines = [f"| split | requests | {names} |", "|" + "---|" * 9]
    for r in rows:
        lines.append(
            f"| {r.split} | {r.requests} | {r.tools:.3f} | {r.arguments:.3f} | {r.success:.3f} | "
            f"{r.unrequested} | {r.invented} | {r.llm_calls_median:g} | {r.seconds_median:.2f} |"
        )
    kinds = sorted({k for r in rows for k in r.by_kind})
    lines += ["", "| split | " + " | ".join(kinds) + " |", "|" + "---|" * (len(kinds) + 1)]
    for r in rows:
        cells = [f"{r.by_kind[k]:.3f}" if k in r.by_kind else "-" for k in kinds]
        lines.append(f"| {r.split} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def as_json(rows: list[Row], results: list[Result]) -> dict[str, Any]:
    return {"rows": [asdict(r) for r in rows], "requests": [asdict(r) for r in results]}
