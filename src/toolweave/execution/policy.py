"""Which tool calls may run: the side-effect policy, from the MCP tool annotations.

    read-only (readOnlyHint)            runs freely
    may destroy (destructiveHint, or    runs only with consent: `--yes`, the tool in
      readOnlyHint false without one:    `policy.auto_approve` or in its server's `autoApprove`
      the spec's default)                (as desktop clients write it), or a yes on a terminal
    anything else that is not read-only runs, unless the run is a dry run
    a tool that changes things          runs only when its clause asks for that action
      (readOnlyHint false, or its name   ("how many entities are there" deletes none)
      says so: append_insight)
    dry run (`--dry-run`)               only read-only tools run; the plan shows the rest

Annotations are the server's own word, which is why a tool that says nothing is not trusted to
be read-only (it never runs in a dry run), while consent is asked for what says it may destroy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field

from toolweave.language.cues import asks_for_action
from toolweave.language.parameters import changes_things
from toolweave.types import ServerSpec, Step, ToolSpec

Confirm = Callable[[Step, ToolSpec], Awaitable[bool]]
DRY_RUN = "not run: a dry run calls only tools that declare they only read"


def reads_only(tool: ToolSpec) -> bool:
    return tool.hints.read_only is True


def may_destroy(tool: ToolSpec) -> bool:
    """destructiveHint, which the MCP spec defaults to true for a tool that is not read-only."""
    if tool.hints.destructive is not None:
        return tool.hints.destructive and not reads_only(tool)
    return tool.hints.read_only is False


@dataclass
class Policy:
    approved: Collection[str] = ()  # "server.tool" or "server.*": may destroy without asking
    approve_all: bool = False  # --yes
    dry_run: bool = False
    confirm: Confirm | None = None  # asks the user, one question at a time
    _asking: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    async def refusal(self, step: Step, tool: ToolSpec) -> str | None:
        """Why the step's call may not run, or None when it may."""
        if reads_only(tool):
            return None
        if self.dry_run:
            return DRY_RUN
        # Declared (readOnlyHint: false) or said by its name (mcp-server-sqlite's append_insight,
        # which declares nothing): "dmitri volkov's email → dmitri.volkov@example.net" is no memo.
        # A part of a change asked for is asked with it: "commit app.py" stages it.
        unasked = asks_for_action(tool, step.clause.text) is False and not step.part_of
        if changes_things(tool) and unasked:
            return f"not run: the question does not ask for what {tool.key} does"
        if not may_destroy(tool) or self.approve_all or is_approved(tool, self.approved):
            return None
        if self.confirm is not None:
            async with self._asking:
                if await self.confirm(step, tool):
                    return None
                return f"not run: you declined {tool.key}"
        return (
            f"not run: {tool.key} may change or delete data and needs your consent (ask again "
            f'with --yes, or add "{tool.key}" to policy.auto_approve)'
        )


def is_approved(tool: ToolSpec, approved: Collection[str]) -> bool:
    """Whether `approved` ("server.tool" or "server.*") names the tool."""
    return tool.key in approved or f"{tool.server}.*" in approved


def approved_tools(auto_approve: list[str], servers: dict[str, ServerSpec]) -> set[str]:
    """policy.auto_approve, and each server's own `autoApprove` list (tool names)."""
    approved = set(auto_approve)
    for name, spec in servers.items():
        approved |= {f"{name}.{tool}" for tool in spec.auto_approve}
    return approved
