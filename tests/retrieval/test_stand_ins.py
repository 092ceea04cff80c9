"""Which tool may stand in for a failed one: the tool descriptions of the official npm
`@modelcontextprotocol/server-filesystem` (copied as it lists them), the bundled embedder."""

from __future__ import annotations

import pytest

from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.retrieval.tool_select import alike, server_nouns
from toolweave.types import Candidate, ToolSpec

pytestmark = pytest.mark.anyio
PATH = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def fs(name: str, description: str) -> ToolSpec:
    return ToolSpec(server="fs", name=name, description=description, input_schema=PATH)


READ_TEXT = fs(
    "read_text_file",
    "Read the complete contents of a file from the file system as text. Handles various text "
    "encodings and provides detailed error messages if the file cannot be read. Use this tool "
    "when you need to examine the contents of a single file. Use the 'head' parameter to read "
    "only the first N lines of a file, or the 'tail' parameter to read only the last N lines of "
    "a file. Operates on the file as text regardless of extension. Only works within allowed "
    "directories.",
)
READ = fs(
    "read_file",
    "Read the complete contents of a file as text. DEPRECATED: Use read_text_file instead.",
)
INFO = fs(
    "get_file_info",
    "Retrieve detailed metadata about a file or directory. Returns comprehensive information "
    "including size, creation time, last modified time, permissions, and type. This tool is "
    "perfect for understanding file characteristics without reading the actual content. Only "
    "works within allowed directories.",
)


async def test_a_tool_that_reads_the_same_stands_in_one_that_reads_otherwise_does_not() -> None:
    found = [Candidate(tool=t, score=0.5) for t in (READ_TEXT, INFO, READ)]
    chosen = await alike(OnnxEmbedder(), READ_TEXT, found)
    assert [c.tool.name for c in chosen] == ["read_file"]
    assert await alike(OnnxEmbedder(), READ_TEXT, []) == []


def test_a_server_is_called_by_the_nouns_its_tools_say() -> None:
    """mcp-server-sqlite's and server-memory's own descriptions (abridged as they list them):
    "the database" and "the knowledge graph"; a word the other server says too is no name,
    and a server of one or two tools has too few to tell."""
    sqlite = [
        "Execute a SELECT query on the SQLite database",
        "Execute an INSERT, UPDATE, or DELETE query on the SQLite database",
        "Create a new table in the SQLite database",
        "List all tables in the SQLite database",
        "Get the schema information for a specific table",
    ]
    memory = [
        "Create multiple new entities in the knowledge graph",
        "Create multiple new relations between entities in the knowledge graph",
        "Read the entire knowledge graph",
        "Search for nodes in the knowledge graph based on a query",
    ]
    tools = [ToolSpec(server="sqlite", name=f"s{i}", description=d) for i, d in enumerate(sqlite)]
    tools += [ToolSpec(server="memory", name=f"m{i}", description=d) for i, d in enumerate(memory)]
    tools.append(ToolSpec(server="time", name="now", description="Get the current time"))
    nouns = server_nouns(tools)
    assert nouns == {"sqlite": {"sqlite", "database"}, "memory": {"knowledge", "graph"}}
