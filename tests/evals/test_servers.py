"""`eval servers` on a small suite of its own (tests/evals/data/servers): the real third-party
servers (npm and PyPI, installed by the runner) in a real sandbox. `--gold` makes the expected
calls, so the checks are tested against known outcomes, right and wrong."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from toolweave.errors import InputError
from toolweave.evals.servers import (
    _sent,
    _tools_right,
    _unasked_changes,
    _unread,
    engine_over,
    load_tasks,
    run_one,
    run_servers_eval,
    sandboxed,
)
from toolweave.settings import Settings, load_settings
from toolweave.types import Observation, ToolHints, ToolSpec

pytestmark = pytest.mark.anyio
SUITE = Path(__file__).parent / "data" / "servers"


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One state folder for the module, so the PyPI servers are installed once."""
    state = tmp_path_factory.mktemp("state")
    return load_settings(env={"TOOLWEAVE_STATE_DIR": str(state), "TOOLWEAVE_LLM__BACKEND": "none"})


def suite(tmp_path: Path, cases: str) -> Path:
    """The shared sandbox with these cases."""
    (tmp_path / "sandbox").symlink_to(SUITE / "sandbox")
    (tmp_path / "cases.yaml").write_text(cases)
    return tmp_path


async def test_the_expected_calls_pass_every_check(settings: Settings) -> None:
    rows, results = await run_servers_eval(settings, ["dev", "test"], gold=True, data=SUITE)
    assert [(r.task, r.problems) for r in results if not r.success] == []
    assert [(row.split, row.requests, row.success) for row in rows] == [
        ("dev", 3, 1.0),
        ("test", 3, 1.0),
    ]


WRONG = """
tasks:
  - id: wrong-text
    split: dev
    kind: write
    asks: ['Write "hello" to {files}/new.txt']
    calls:
      - tool: fs.write_file
        arguments: {path: "{files}/new.txt", content: hullo}
    effects: [{file: "{files}/new.txt", text: hello}]
  - id: extra-file
    split: dev
    kind: write
    asks: ['Write "hello" to {files}/new.txt']
    calls:
      - tool: fs.write_file
        arguments: {path: "{files}/other.txt", content: hello}
    effects: [{file: "{files}/new.txt", text: hello}]
  - id: missing-fact
    split: dev
    kind: read
    asks: ["what is in {files}/notes.txt?"]
    calls:
      - tool: fs.read_text_file
        arguments: {path: "{files}/notes.txt"}
    answer: [buy bread]
  - id: table-never-made
    split: dev
    kind: read
    asks: ["what is in {files}/notes.txt?"]
    calls:
      - tool: fs.read_text_file
        arguments: {path: "{files}/notes.txt"}
    effects: [{sql: "SELECT * FROM budget", rows: [], table: budget}]
"""


async def test_wrong_effects_invented_values_and_missing_facts_fail(
    settings: Settings, tmp_path: Path
) -> None:
    _, results = await run_servers_eval(settings, ["dev"], gold=True, data=suite(tmp_path, WRONG))
    wrong, extra, missing, never_made = results
    assert not wrong.success and wrong.invented == ["fs.write_file content='hullo'"]
    assert any("effect missing" in p for p in wrong.problems)
    assert not extra.success and extra.unrequested == ["file:other.txt"]
    assert not missing.success and missing.problems == ["answer lacks ['buy bread']"]
    # The effect reads a table nothing made: a failed check, not a crash of the evaluation.
    assert not never_made.success and any("effect missing" in p for p in never_made.problems)


async def test_asking_writes_the_quoted_text_to_the_quoted_path(settings: Settings) -> None:
    """The whole pipeline, without an LLM: both values are the user's, copied."""
    _, results = await run_servers_eval(settings, ["dev"], data=SUITE)
    write = next(r for r in results if r.task == "fs-write")
    assert write.success, write.problems
    assert write.unrequested == [] and write.invented == []
    # The row the request spells out, on mcp-server-sqlite: the statement read from it.
    insert = next(r for r in results if r.task == "sqlite-insert-spelled-out")
    assert insert.success, insert.problems
    assert insert.unrequested == [] and insert.invented == []


GONE = """
tasks:
  - id: relation-gone
    split: dev
    kind: write
    asks: ["Bob no longer knows Bob"]
    calls:
      - tool: memory.create_relations
        arguments: {relations: [{from: Bob, to: Bob, relationType: knows}]}
    effects: [{relation: [Bob, knows, Bob], absent: true}]
  - id: branch-checked-out
    split: dev
    kind: write
    asks: ["switch {repo} to a new branch side"]
    calls:
      - tool: git.git_create_branch
        arguments: {repo_path: "{repo}", branch_name: side}
      - tool: git.git_checkout
        arguments: {repo_path: "{repo}", branch_name: side}
    effects: [{git: branch, name: side}, {git: head, name: side}]
  - id: branch-not-checked-out
    split: dev
    kind: write
    asks: ["make a new branch side in {repo}"]
    calls:
      - tool: git.git_create_branch
        arguments: {repo_path: "{repo}", branch_name: side}
    effects: [{git: branch, name: side}, {git: head, name: side}]
"""


async def test_a_relation_said_gone_and_the_branch_checked_out_are_checked(
    settings: Settings, tmp_path: Path
) -> None:
    """Made by the expected calls: a relation created where one must be gone fails; a branch
    made and checked out passes, one only made does not."""
    _, results = await run_servers_eval(settings, ["dev"], gold=True, data=suite(tmp_path, GONE))
    gone, switched, made = results
    assert not gone.success and any("effect missing" in p for p in gone.problems)
    assert switched.success, switched.problems
    assert not made.success and made.problems == ["effect missing: {'git': 'head', 'name': 'side'}"]


HELD = """
tasks:
  - id: memory-read
    split: dev
    kind: read
    asks: ["what do you know about Bob?"]
    calls:
      - tool: memory.open_nodes|memory.search_nodes|memory.read_graph
    answer: [likes tea]
"""


async def test_a_name_the_memory_graph_holds_sends_the_question_to_it(
    settings: Settings, tmp_path: Path
) -> None:
    """Nothing in server-memory's tool descriptions says it knows Bob; its `read_graph` listing,
    sampled when it starts, does (catalog/contents.py)."""
    _, [result] = await run_servers_eval(settings, ["dev"], data=suite(tmp_path, HELD))
    assert result.success, (result.calls, result.problems)


NEW_ENTITY = """
tasks:
  - id: new-entity
    split: dev
    kind: write
    asks: ["remember Zed Quill - person, plays the oboe"]
    calls:
      - tool: memory.create_entities
    effects: [{entity: Zed Quill, observations: [plays the oboe]}]
"""


async def test_each_request_starts_from_the_sandbox_and_what_it_holds(
    settings: Settings, tmp_path: Path
) -> None:
    """A name a request's change added is held no more when the next request starts: the
    sandbox is restored and the engine samples its servers again (a stale sample had let
    `add_observations` fit a name the graph no longer had)."""
    data = suite(tmp_path, NEW_ENTITY)
    [task] = load_tasks(data / "cases.yaml")
    with sandboxed(settings, data, lambda _: None) as (sandbox, servers, state):
        async with engine_over(settings, servers, state, lambda _: None) as engine:
            result, _ = await run_one(engine, sandbox, task, task.asks[0], False)
            assert result.success, (result.calls, result.problems)
            assert "Zed Quill" not in engine.contents.held().get("memory", [])
            assert "Bob" in engine.contents.held()["memory"]


def test_a_change_no_expected_call_names_is_unrequested_even_if_the_sandbox_cannot_see_it() -> None:
    """mcp-server-sqlite keeps its memo in the server process: a call that wrote to it is
    unrequested although no file or table changed."""
    memo = ToolSpec(server="sqlite", name="append_insight", description="Add an insight.")
    read = ToolSpec(server="memory", name="open_nodes", description="Open nodes by name.")
    engine = SimpleNamespace(tools=[memo, read])
    expected = [{"tool": "memory.open_nodes|memory.search_nodes"}]

    def call(tool: ToolSpec, ok: bool = True) -> Observation:
        return Observation(step_id="s1", server=tool.server, tool=tool.name, ok=ok, called=True)

    assert _unasked_changes(engine, expected, [call(read), call(memo)]) == {  # type: ignore[arg-type]
        "call:sqlite.append_insight"
    }
    assert _unasked_changes(engine, expected, [call(read), call(memo, ok=False)]) == set()  # type: ignore[arg-type]
    assert _unasked_changes(engine, [{"tool": memo.key}], [call(memo)]) == set()  # type: ignore[arg-type]


def test_a_task_id_used_twice_is_refused(tmp_path: Path) -> None:
    task = "  - {id: a, split: dev, kind: read, asks: [x], calls: []}\n"
    (tmp_path / "cases.yaml").write_text("tasks:\n" + task + task)
    with pytest.raises(InputError, match=r"task id\(s\) used twice: \['a'\]"):
        load_tasks(tmp_path / "cases.yaml")
    (tmp_path / "cases.yaml").write_text("tasks:\n" + task)
    assert [t.id for t in load_tasks(tmp_path / "cases.yaml")] == ["a"]


def test_an_effect_with_a_misspelt_key_is_refused(tmp_path: Path) -> None:
    """Else the misspelt check would be ignored and the effect hold whatever the run did."""
    task = "  - {id: a, split: dev, kind: write, asks: [x], calls: [], effects: [%s]}\n"
    (tmp_path / "cases.yaml").write_text("tasks:\n" + task % "{entity: Bob, observation: [x]}")
    with pytest.raises(InputError, match="task a: unknown effect or key"):
        load_tasks(tmp_path / "cases.yaml")
    (tmp_path / "cases.yaml").write_text("tasks:\n" + task % "{entity: Bob, observations: [x]}")
    assert [t.id for t in load_tasks(tmp_path / "cases.yaml")] == ["a"]


TAUGHT = """
tasks:
  - id: read-right
    split: dev
    kind: read
    asks: ["what is in {files}/notes.txt?"]
    calls:
      - tool: fs.read_text_file|fs.read_file
        arguments: {path: "{files}/notes.txt"}
    answer: [buy milk]
  - id: read-judged-wrong
    split: dev
    kind: read
    asks: ["show me {files}/notes.txt"]
    calls:
      - tool: fs.read_text_file|fs.read_file
        arguments: {path: "{files}/notes.txt"}
    answer: [buy bread]
  - id: measured
    split: test
    kind: read
    asks: ["open {files}/notes.txt"]
    calls:
      - tool: fs.read_text_file|fs.read_file
        arguments: {path: "{files}/notes.txt"}
    answer: [buy milk]
"""


async def test_learning_from_a_split_teaches_its_runs_and_rates_the_failed_ones_bad(
    settings: Settings, tmp_path: Path
) -> None:
    said: list[str] = []
    _, results = await run_servers_eval(
        settings, ["test"], data=suite(tmp_path, TAUGHT), learn_from="dev", notice=said.append
    )
    assert "learned from 2 runs, 1 of them rated bad" in said
    assert [(r.task, r.success) for r in results] == [("measured", True)]  # only test measured


def test_a_step_not_run_or_not_done_is_no_call_made() -> None:
    """ "stage app.py and commit it with that message": the commit, not done because the stage
    waited for the message, had counted as a call nobody asked for."""

    def step(error: str | None) -> Observation:
        return Observation(
            step_id="s1", server="git", tool="git_commit", ok=error is None, error=error
        )

    made = [step(None), step("Error executing tool git_commit: nothing staged")]
    waited = [step("not run: nothing changed until that is said"), step("not done: s1 failed")]
    assert _sent(made + waited) == made


def test_a_read_of_the_file_a_change_writes_is_not_an_extra_call() -> None:
    """fs.edit_file needs the file's exact lines: reading the file first is neither asked for
    nor wrong; a read of another file, or another change, is still a call nobody asked for."""
    edit = ToolSpec(server="fs", name="edit_file", hints=ToolHints(destructive=True))
    read = ToolSpec(server="fs", name="read_text_file", hints=ToolHints(read_only=True))
    engine = SimpleNamespace(tools=[edit, read])
    expected = [{"tool": "fs.edit_file", "arguments": {"path": "/f/todo.md"}}]

    def call(tool: ToolSpec, path: str) -> Observation:
        return Observation(
            step_id="s1", server=tool.server, tool=tool.name, arguments={"path": path}, ok=True
        )

    first, edited = call(read, "/f/todo.md"), call(edit, "/f/todo.md")
    assert _unread(engine, expected, [first, edited]) == [edited]  # type: ignore[arg-type]
    other = call(read, "/f/notes.md")
    assert _unread(engine, expected, [other, edited]) == [other, edited]  # type: ignore[arg-type]
    assert _tools_right(expected, [other, edited], []) is False
