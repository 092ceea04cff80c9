"""Static tool catalogues (no live server): the formats of the benchmark data in
`../shared/benchmarks`, read into the same `ToolSpec`s live servers give.

- LiveMCPBench `tools/LiveMCPTool/tools.json`: a list of MCP servers with their listed tools.
- Seal-Tools `tool.jsonl`: one API per line (api_name, api_description, parameters, required);
  the `field` ("Chemical Engineering/Forensic engineering") becomes the server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from toolweave.errors import InputError
from toolweave.types import ServerInfo, ToolSpec

SEAL_TYPES = {
    "str": "string", "string": "string", "int": "integer", "integer": "integer",
    "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean",
    "list": "array", "array": "array", "dict": "object", "object": "object",
}  # fmt: skip

Catalogue = tuple[list[ServerInfo], list[ToolSpec]]


def load_catalogue(path: Path) -> Catalogue:
    """A catalogue file in either format, told apart by its content."""
    if not path.is_file():
        raise InputError(f"catalogue {path} does not exist")
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return load_livemcp(json.loads(text))
    return load_seal_tools(text.splitlines(), source=path)


def load_livemcp(servers: list[dict[str, Any]]) -> Catalogue:
    infos: list[ServerInfo] = []
    tools: list[ToolSpec] = []
    for server in servers:
        name = slug(server["name"])
        category = server.get("category") or ""
        description = " ".join(
            p for p in (category and f"{category}:", server.get("description")) if p
        )
        infos.append(ServerInfo(name=name, description=description.strip()))
        for listing in (server.get("tools") or {}).values():
            for tool in listing.get("tools") or []:
                tools.append(
                    ToolSpec(
                        server=name,
                        name=tool["name"],
                        description=tool.get("description") or "",
                        input_schema=tool.get("inputSchema") or {"type": "object"},
                    )
                )
    return infos, _unique(tools)


def load_seal_tools(lines: list[str], *, source: Path) -> Catalogue:
    tools: list[ToolSpec] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            tools.append(seal_tool(record))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"{source}:{number}: not a Seal-Tools API record ({exc})") from None
    servers = sorted({t.server for t in tools})
    return [ServerInfo(name=s, description=s.replace("/", ", ")) for s in servers], _unique(tools)


def seal_tool(record: dict[str, Any]) -> ToolSpec:
    properties = {
        name: {
            "type": SEAL_TYPES.get(str(prop.get("type", "string")).lower(), "string"),
            "description": prop.get("description", ""),
        }
        for name, prop in (record.get("parameters") or {}).items()
    }
    return ToolSpec(
        server=slug(record.get("field") or "seal-tools"),
        name=record["api_name"],
        description=record.get("api_description") or "",
        input_schema={
            "type": "object",
            "properties": properties,
            "required": [r for r in record.get("required") or [] if r in properties],
        },
    )


def slug(name: str) -> str:
    """A server name without dots or spaces (tool keys are 'server.tool')."""
    return re.sub(r"[^\w/-]+", "-", name.strip().lower()).strip("-") or "server"


def _unique(tools: list[ToolSpec]) -> list[ToolSpec]:
    """First definition wins when a catalogue lists the same server.tool twice."""
    seen: dict[str, ToolSpec] = {}
    for tool in tools:
        seen.setdefault(tool.key, tool)
    return list(seen.values())
