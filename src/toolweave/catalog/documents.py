"""Tool and server documents: the text a tool is found by.

Per tool, Toolshed's five components: the readable name, the description, the argument schema as
readable text, example queries and key topics (the last two come from `augment.py`). Each piece is
its own segment, so the index scores a tool by its best-matching piece (MaxSim). Per server
(TURA): its description and its tools' names with one-line summaries.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from toolweave.language.text import readable_name, sentences
from toolweave.types import Segment, ServerInfo, ToolDoc, ToolSpec

# Bump when the documents built from the same tool change (here or in augment.py), so that
# indexes rebuild them.
DOC_VERSION = 9
MAX_SEGMENT_CHARS = 400
TOOLS_PER_SERVER_SEGMENT = 6


_EXAMPLES = re.compile(
    r"\s*\((?:e\.g\.|for example|such as)[^)]*\)|\s*\b(?:e\.g\.|for example)[^.;]*", re.I
)


def describe_parameters(schema: dict[str, Any], *, examples: bool = True) -> str:
    """'percent (number, required): The percentage; value (number): ...' from a JSON schema.

    Without `examples`, example values ("e.g. 'Asia/Tokyo'") are left out: in a search segment
    they match every question that names them, whatever it asks."""
    required = set(schema.get("required") or [])
    parts = []
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type", "any")
        text = f"{readable_name(name)} ({kind}{', required' if name in required else ''})"
        description = str(prop.get("description") or "")
        if not examples:
            description = _EXAMPLES.sub("", description).strip()
        if description:
            text += f": {description}"
        parts.append(text)
    return "; ".join(parts)


def clip(text: str, limit: int = MAX_SEGMENT_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def spec_segments(tool: ToolSpec) -> list[Segment]:
    """The segments the tool's author wrote: name with the first sentence, further sentences,
    and the arguments."""
    described = sentences(tool.description)
    head = f"{readable_name(tool.name)}: {described[0]}" if described else readable_name(tool.name)
    segments = [Segment(text=clip(head), kind="name", origin="spec")]
    segments += [Segment(text=clip(s), kind="description", origin="spec") for s in described[1:6]]
    if params := describe_parameters(tool.input_schema, examples=False):
        segments.append(Segment(text=clip(f"arguments: {params}"), kind="arguments", origin="spec"))
    return segments


def build_tool_doc(tool: ToolSpec, augmentation: list[Segment]) -> ToolDoc:
    """The tool's own segments plus its augmentation, without repeated texts."""
    seen: set[str] = set()
    segments = []
    for segment in spec_segments(tool) + augmentation:
        key = segment.text.lower()
        if key not in seen:
            seen.add(key)
            segments.append(segment)
    return ToolDoc(tool=tool, segments=segments)


def server_segments(server: ServerInfo, tools: list[ToolSpec]) -> list[Segment]:
    """TURA's server document: the description, then the tools with one-line summaries."""
    segments = []
    if server.description:
        text = f"{readable_name(server.name)}: {server.description}"
        segments.append(Segment(text=clip(text), kind="server", origin="spec"))
    for start in range(0, len(tools), TOOLS_PER_SERVER_SEGMENT):
        chunk = tools[start : start + TOOLS_PER_SERVER_SEGMENT]
        summaries = "; ".join(
            f"{readable_name(t.name)}: {(sentences(t.description) or [''])[0]}" for t in chunk
        )
        text = f"{readable_name(server.name)} tools: {summaries}"
        segments.append(Segment(text=clip(text), kind="server", origin="spec"))
    return segments


def content_hash(tool: ToolSpec) -> str:
    """Changes exactly when what the tool document is built from changes."""
    data = json.dumps(
        [tool.server, tool.name, tool.description, tool.input_schema], sort_keys=True, default=str
    )
    return hashlib.sha256(data.encode()).hexdigest()[:32]
