"""Augmentation: example queries and key topics for tool documents, from three origins.

- `generated`: a deterministic generator, offline, no model (requests built from the name and
  the description, and a key-topics line);
- `llm`: an LLM asked for diverse, realistic, parameterised user queries (TURA: N per server at a
  sampling temperature above 1);
- `logged`: real questions whose call of the tool succeeded (a JSONL file now, the trace store
  later).

LLM output is cached by the tool's content hash, so re-indexing an unchanged tool costs nothing.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

from toolweave.catalog.documents import clip, content_hash
from toolweave.errors import ConfigError, LLMError
from toolweave.language.text import readable_name, sentences
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.types import Segment, ToolSpec

STOPWORDS = frozenset(
    (
        "a an and are as at be by can for from get has have how i in is it its of on or that the "
        "this to use used uses using was what when which who will with you your e.g eg etc via "
        "given specified specific provided based into about their them these those such"
    ).split()
)
MAX_TOPICS = 12


def generated_segments(tool: ToolSpec, topics_hint: str = "") -> list[Segment]:
    """Deterministic example queries and a key-topics line."""
    name = readable_name(tool.name)
    first = (sentences(tool.description) or [""])[0].rstrip(".")
    # Example values from parameter descriptions stay out of the queries: a segment made of
    # place or product names matches every question that names them, whatever it asks.
    queries = [f"how can I {name}?"]
    if first and (imperative := _imperative(first)) != first:
        queries.append(imperative)
    segments = [Segment(text=clip(q), kind="query", origin="generated") for q in queries]
    if topics := key_topics(tool, topics_hint):
        segments.append(
            Segment(text="topics: " + ", ".join(topics), kind="topics", origin="generated")
        )
    return segments


def _imperative(sentence: str) -> str:
    """'Returns the forecast for a city' -> 'return the forecast for a city'."""
    first, _, rest = sentence.partition(" ")
    lowered = first.lower()
    if lowered.endswith("ies") and len(lowered) > 4:
        lowered = lowered[:-3] + "y"
    elif lowered.endswith(("ches", "shes", "sses", "xes")):
        lowered = lowered[:-2]
    elif lowered.endswith("s") and not lowered.endswith("ss"):
        lowered = lowered[:-1]
    return f"{lowered} {rest}".strip()


def key_topics(tool: ToolSpec, hint: str = "") -> list[str]:
    """Distinct content words of the name, description, parameter names and a field hint."""
    params = " ".join(readable_name(p) for p in tool.input_schema.get("properties") or {})
    text = f"{hint.replace('/', ' ')} {readable_name(tool.name)} {tool.description} {params}"
    topics: list[str] = []
    for word in re.findall(r"[^\W\d_][\w'-]*", text.lower()):
        if len(word) > 2 and word not in STOPWORDS and word not in topics:
            topics.append(word)
    return topics[:MAX_TOPICS]


class LoggedQueries:
    """Real questions per tool, from a JSONL file of {"tool": "server.tool", "query": "..."}."""

    def __init__(self, by_tool: dict[str, list[str]] | None = None) -> None:
        self.by_tool = by_tool or {}

    @classmethod
    def from_file(cls, path: Path) -> LoggedQueries:
        by_tool: dict[str, list[str]] = defaultdict(list)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"logged queries file {path}: cannot be read: {exc}") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                by_tool[str(record["tool"])].append(str(record["query"]))
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ConfigError(
                    f'{path}:{number}: expected a JSON object with "tool" and "query"'
                ) from None
        return cls(dict(by_tool))

    def joined(self, more: dict[str, list[str]]) -> LoggedQueries:
        """These and `more` (learned from runs), each query once per tool."""
        keys = set(self.by_tool) | set(more)
        joined = {
            k: list(dict.fromkeys([*self.by_tool.get(k, []), *more.get(k, [])])) for k in keys
        }
        return LoggedQueries(joined)

    def segments(self, tool: ToolSpec) -> list[Segment]:
        return [
            Segment(text=clip(q), kind="query", origin="logged")
            for q in self.by_tool.get(tool.key, [])
        ]


class LLMQueries:
    """Synthetic user queries from an LLM, cached on disk by the tool's content hash."""

    def __init__(self, llm: LLM, cache_path: Path, *, per_tool: int, temperature: float) -> None:
        self.llm = llm
        self.per_tool = per_tool
        self.temperature = temperature
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(cache_path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS llm_queries (tool_hash TEXT, model TEXT, n INTEGER, "
            "queries TEXT, PRIMARY KEY (tool_hash, model, n))"
        )

    def cached(self, tool: ToolSpec) -> list[str] | None:
        row = self._db.execute(
            "SELECT queries FROM llm_queries WHERE tool_hash=? AND model=? AND n=?",
            (content_hash(tool), self.llm.name, self.per_tool),
        ).fetchone()
        return None if row is None else list(json.loads(row[0]))

    async def segments(self, tool: ToolSpec) -> list[Segment]:
        queries = self.cached(tool)
        if queries is None:
            queries = await self._generate(tool)
            self._db.execute(
                "INSERT OR REPLACE INTO llm_queries VALUES (?, ?, ?, ?)",
                (content_hash(tool), self.llm.name, self.per_tool, json.dumps(queries)),
            )
            self._db.commit()
        return [Segment(text=clip(q), kind="query", origin="llm") for q in queries]

    async def _generate(self, tool: ToolSpec) -> list[str]:
        schema = {
            "type": "object",
            "properties": {
                "queries": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 8, "maxLength": 200},
                    "minItems": 1,
                    "maxItems": self.per_tool,
                }
            },
            "required": ["queries"],
        }
        messages = load_prompt("example_queries").messages(
            n=str(self.per_tool),
            tool=readable_name(tool.name),
            description=tool.description or "(no description)",
            parameters=", ".join(tool.input_schema.get("properties") or {}) or "(none)",
        )
        try:
            value = await complete_json(
                self.llm,
                messages,
                schema,
                max_tokens=60 * self.per_tool,
                temperature=self.temperature,
            )
        except LLMError:
            return []  # the generated and spec segments still describe the tool
        return [" ".join(q.split()) for q in value["queries"] if q.strip()]

    def close(self) -> None:
        self._db.close()
