"""LLM listwise reranking (when an LLM is configured): the top tools, each as its key and first
sentence, go to the LLM in one call; its ranking (keys limited to the listed ones by the JSON
schema) comes first, the tools it left out follow in their retrieval order."""

from __future__ import annotations

from toolweave.catalog.documents import clip
from toolweave.index.store import ToolIndex
from toolweave.language.text import sentences
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt
from toolweave.types import IndexHit

RERANK_DEPTH = 10
DESCRIPTION_CHARS = 100


async def llm_rerank(
    question: str, hits: list[IndexHit], index: ToolIndex, llm: LLM
) -> list[IndexHit]:
    """`hits` reordered by the LLM's ranking of the first RERANK_DEPTH. Raises LLMError when the
    LLM gives no usable answer."""
    top = hits[:RERANK_DEPTH]
    if len(top) < 2:
        return hits
    lines = []
    for hit in top:
        tool = index.tool_spec(hit.key)
        about = (sentences(tool.description) or [""])[0] if tool else ""
        lines.append(f"- {hit.key}: {clip(about, DESCRIPTION_CHARS)}")
    schema = {
        "type": "object",
        "properties": {
            "ranking": {
                "type": "array",
                "items": {"type": "string", "enum": [h.key for h in top]},
                "maxItems": len(top),
            }
        },
        "required": ["ranking"],
        "additionalProperties": False,
    }
    messages = load_prompt("rerank").messages(question=question, tools="\n".join(lines))
    answer = await complete_json(llm, messages, schema, max_tokens=40 * len(top))
    order = list(dict.fromkeys(answer["ranking"]))
    by_key = {h.key: h for h in top}
    return [by_key[key] for key in order] + [h for h in hits if h.key not in order]
