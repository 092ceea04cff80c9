"""The side-effect policy, on tool specs as real servers annotate them."""

from __future__ import annotations

import pytest

from toolweave.execution.policy import DRY_RUN, Policy, approved_tools, may_destroy, reads_only
from toolweave.types import ServerSpec, Step, ToolHints, ToolSpec

pytestmark = pytest.mark.anyio


def tool(name: str, **hints: bool | None) -> ToolSpec:
    return ToolSpec(server="fs", name=name, hints=ToolHints(**hints))


READ = tool("read_file", read_only=True)
WRITE = tool("write_file", read_only=False, destructive=True)
MKDIR = tool("create_directory", read_only=False, destructive=False)
UNSAID = tool("do_something")  # no annotations at all
SPEC_DEFAULT = tool("change", read_only=False)  # the spec's default: may destroy


def step(spec: ToolSpec, clause: str = "") -> Step:
    """A step whose clause asks for what the tool does (its name, by default)."""
    from datetime import date

    from toolweave.language import clause_of

    text = clause or spec.name.replace("_", " ")
    return Step(id="s1", clause=clause_of(0, text, date(2026, 1, 1)), server="fs", tool=spec.name)


def test_what_may_destroy() -> None:
    assert [reads_only(t) for t in (READ, WRITE, MKDIR, UNSAID)] == [True, False, False, False]
    assert [may_destroy(t) for t in (READ, WRITE, MKDIR, UNSAID, SPEC_DEFAULT)] == [
        False, True, False, False, True,
    ]  # fmt: skip


async def test_consent_is_needed_only_for_what_may_destroy() -> None:
    policy = Policy()
    assert await policy.refusal(step(READ), READ) is None
    assert await policy.refusal(step(MKDIR), MKDIR) is None
    assert await policy.refusal(step(UNSAID), UNSAID) is None
    refused = await policy.refusal(step(WRITE), WRITE)
    assert refused is not None and "--yes" in refused and "policy.auto_approve" in refused
    assert await Policy(approve_all=True).refusal(step(WRITE), WRITE) is None
    assert await Policy(approved={"fs.write_file"}).refusal(step(WRITE), WRITE) is None
    assert await Policy(approved={"fs.*"}).refusal(step(WRITE), WRITE) is None


async def test_a_dry_run_calls_only_what_declares_it_only_reads() -> None:
    policy = Policy(dry_run=True, approve_all=True)
    assert await policy.refusal(step(READ), READ) is None
    assert [await policy.refusal(step(t), t) for t in (WRITE, MKDIR, UNSAID)] == [DRY_RUN] * 3


async def test_the_user_is_asked_and_may_decline() -> None:
    asked: list[str] = []

    async def no(_step: Step, spec: ToolSpec) -> bool:
        asked.append(spec.key)
        return False

    refused = await Policy(confirm=no).refusal(step(WRITE), WRITE)
    assert asked == ["fs.write_file"] and refused == "not run: you declined fs.write_file"


def test_desktop_clients_auto_approve_lists_count() -> None:
    servers = {"fs": ServerSpec.model_validate({"command": "npx", "autoApprove": ["write_file"]})}
    assert approved_tools(["git.*"], servers) == {"git.*", "fs.write_file"}


async def test_a_tool_that_changes_things_runs_only_when_its_action_is_asked_for() -> None:
    """server-memory's delete_entities was planned for "how many entities are there"."""
    delete = tool("delete_entities", read_only=False, destructive=True)
    policy = Policy(approve_all=True)
    refused = await policy.refusal(step(delete, "how many entities are in the graph"), delete)
    assert refused == "not run: the question does not ask for what fs.delete_entities does"
    assert await policy.refusal(step(delete, "forget the entity Alice"), delete) is None
    assert await policy.refusal(step(MKDIR, "make a folder called notes"), MKDIR) is None
    # A verb the table does not know: nothing can be told, the consent rules decide.
    gzip = tool("gzip-file-as-resource", read_only=False, destructive=False)
    assert await policy.refusal(step(gzip, "compress it"), gzip) is None
    # Nor does a tool that declares nothing but whose name says it changes things: an
    # address after an arrow is no memo for mcp-server-sqlite's append_insight.
    memo = ToolSpec(
        server="sqlite",
        name="append_insight",
        description="Add a business insight to the memo",
        input_schema={"type": "object", "properties": {"insight": {"type": "string"}}},
    )
    refused = await policy.refusal(step(memo, "→ dmitri.volkov@example.net"), memo)
    assert refused == "not run: the question does not ask for what sqlite.append_insight does"
    assert await policy.refusal(step(memo, "add an insight: sales rose"), memo) is None
    # A part of the change asked for is asked with it: "commit app.py ... 'Add units'" stages
    # app.py first (mcp-server-git's git_add had been refused, the quoted "Add" no verb)
    stage = ToolSpec(
        server="git", name="git_add", description="Adds file contents to the staging area"
    )
    commit = step(stage, "Commit app.py in /r with the message 'Add units'")
    assert (await policy.refusal(commit, stage) or "").startswith("not run: the question")
    commit.part_of = "s1"
    assert await policy.refusal(commit, stage) is None
