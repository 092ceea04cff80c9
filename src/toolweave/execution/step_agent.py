"""The step agent: picks the tool for a step from its shortlist, then fills its arguments.

The shortlist comes from retrieval; the choice adds evidence retrieval cannot see: whether the
clause gives values for the tool's required parameters, and whether the tool would use the values
the clause gives (a clock time and two places favour `convert_time` over `get_current_time`).
"""

from __future__ import annotations

from toolweave.execution.arguments import fill_arguments
from toolweave.models.base import LLM
from toolweave.retrieval.tool_select import fit
from toolweave.types import Problem, ProblemKind, Step, ToolSpec


def choose_tool(step: Step, tools: dict[str, ToolSpec]) -> ToolSpec | None:
    shortlist = [c for c in step.candidates if c.tool.key in tools]
    if len(shortlist) < 2:
        return tools.get(step.key)
    fits = {c.tool.key: fit(c, step.clause, rank) for rank, c in enumerate(shortlist)}
    return tools[max(shortlist, key=lambda c: fits[c.tool.key]).tool.key]


async def prepare_step(
    step: Step, tools: dict[str, ToolSpec], llm: LLM, read: list[str] | None = None
) -> None:
    """Bind the step to its tool and valid arguments, or record why it cannot run; `read` are
    the results of earlier steps its clause points at (`execution/arguments.py`)."""
    if step.problem is not None:
        return
    tool = choose_tool(step, tools)
    if tool is None:
        text = f"tool {step.key} is not connected"
        step.problem = Problem(kind=ProblemKind.NOT_CONNECTED, text=text)
        return
    filled = await fill_arguments(
        tool,
        step.clause,
        llm,
        given=step.arguments,
        given_origins=step.argument_origins,
        read=read,
    )
    step.server, step.tool = tool.server, tool.name
    step.arguments, step.argument_origins, step.problem = (
        filled.arguments,
        filled.origins,
        filled.problem,
    )
    step.argument_spans = filled.spans
