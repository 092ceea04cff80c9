"""The MCP front: toolweave as one MCP server in front of every configured one, for a desktop
client's `mcpServers` entry (`toolweave serve --mcp stdio`) or over streamable HTTP at /mcp.

    search_tools(query, k)       the best tools for a task, with their input schemas
    call_tool(name, arguments)   one tool called on its server, its arguments checked first
    ask(question)                the whole pipeline: a cited answer

So a client sees three tools instead of hundreds, and finds the rest by searching. A tool that
may change or delete data (its MCP annotations) is called only when auto-approved
(policy.auto_approve, the server's autoApprove) or when the user says yes to the client's
elicitation prompt; a client that cannot ask gets an error saying so.

(No `from __future__ import annotations` here: the SDK reads the tools' annotations, which
name the local `consent` resolver, at registration.)
"""

from typing import Annotated, Any

import jsonschema
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.routing import BaseRoute

from toolweave.api.chat import content
from toolweave.api.service import Service
from toolweave.engine import AskOptions
from toolweave.errors import ToolweaveError
from toolweave.execution.policy import approved_tools, is_approved, may_destroy
from toolweave.types import ToolSpec

INSTRUCTIONS = (
    "toolweave fronts many MCP servers. Use search_tools to find the tool for a task (it returns "
    "each tool's input schema), then call_tool with its name and arguments; or ask a question "
    "and get an answer with cited sources."
)
READS = ToolAnnotations(read_only_hint=True, open_world_hint=True)


class Consent(BaseModel):
    run: bool = Field(description="Run it?")


def front(service: Service) -> MCPServer:
    server: MCPServer = MCPServer(name="toolweave", instructions=INSTRUCTIONS)

    async def search_tools(
        query: Annotated[str, Field(description="The task, in plain words")],
        k: Annotated[int, Field(description="How many tools", ge=1, le=50)] = 10,
    ) -> list[dict[str, Any]]:
        """Find the tools for a task among every connected MCP server's: ranked, each with its
        name (pass it to call_tool), description and input schema."""
        found: list[dict[str, Any]] = await _checked(service.search_tools(query, k))
        return found

    async def consent(name: str, ctx: Context) -> Elicit[Consent] | Consent:
        """Yes for a tool that cannot destroy data or is auto-approved; else the user's word,
        asked through the client."""
        tool = _tool(service, name)
        if not may_destroy(tool) or is_approved(tool, _approved(service)):
            return Consent(run=True)
        needs = f"{tool.key} may change or delete data"
        caps = ctx.client_capabilities
        if caps is None or caps.elicitation is None:
            raise ToolError(
                f"not run: {needs} and needs consent, which this client cannot be asked for; "
                f"add {tool.key!r} to policy.auto_approve to allow it"
            )
        return Elicit(f"{needs}. Run it?", Consent)

    async def call_tool(
        name: Annotated[str, Field(description="The tool's name as search_tools gave it")],
        arguments: Annotated[
            dict[str, Any] | None, Field(description="Its arguments, valid for its input schema")
        ] = None,
        *,
        agreed: Annotated[ElicitationResult[Consent], Resolve(consent)],
    ) -> str:
        """Call one tool found by search_tools on its server; the arguments are checked against
        its input schema first. Returns the tool's result as text."""
        tool = _tool(service, name)
        arguments = arguments or {}
        try:
            jsonschema.validate(arguments, tool.input_schema)
        except jsonschema.ValidationError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "arguments"
            raise ToolError(f"{name}: {where}: {exc.message}") from None
        except jsonschema.SchemaError:
            pass  # the server's schema is broken: its own check decides
        if agreed.action != "accept" or not agreed.data.run:
            raise ToolError(f"not run: consent for {tool.key} was not given")
        await service.engine.connect([tool.server])
        outcome = await service.engine.pool.call(tool.server, tool.name, arguments)
        if outcome.error is not None:
            raise ToolError(service.masked(outcome.error))
        return str(service.masked(outcome.text))

    async def ask(
        question: Annotated[str, Field(description="The question, in plain words")],
    ) -> str:
        """Answer a question with the connected tools and documents: a short answer, the
        evidence with [n] citations, and the numbered sources."""
        answer = await _checked(service.ask(question, AskOptions()))
        return str(service.masked(content(answer)))

    server.add_tool(search_tools, annotations=READS)
    server.add_tool(call_tool, annotations=ToolAnnotations(open_world_hint=True))
    server.add_tool(ask, annotations=READS)
    return server


def front_routes(service: Service, host: str) -> tuple[list[BaseRoute], Any]:
    """The streamable HTTP routes of the front (at /mcp) and its session manager, which runs
    while the app serves."""
    server = front(service)
    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    return list(app.routes), server.session_manager


async def _checked(run: Any) -> Any:
    """`run`'s result; a toolweave error becomes the tool's error text (no traceback)."""
    try:
        return await run
    except ToolweaveError as exc:
        raise ToolError(str(exc)) from None


def _tool(service: Service, name: str) -> ToolSpec:
    tools = {t.key: t for t in service.engine.candidates()}
    if name not in tools:
        raise ToolError(f"no tool named {name!r}; search_tools lists them as server.tool")
    return tools[name]


def _approved(service: Service) -> set[str]:
    return approved_tools(service.settings.policy.auto_approve, service.engine.pool.specs)
