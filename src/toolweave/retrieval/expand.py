"""LLM query transformation for tool retrieval: one schema-constrained call that fixes typos and
resolves "it"/"there" (the sub-queries), splits the request into atomic tasks (an LLM decomposer,
TURA / Toolshed style), paraphrases it (multi-query expansion) and generalises it (step-back).

The retriever searches the sub-queries as clauses (each keeps its best tools, as the
deterministic clauses do) and the variants and the step-back query as extra wordings of the whole
question (they can only add candidates through the max-score aggregation).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from toolweave.models.base import LLM
from toolweave.models.structured import complete_json
from toolweave.prompts import load_prompt

MAX_SUBQUERIES = 4
MAX_VARIANTS = 3
QUERY = {"type": "string", "minLength": 3, "maxLength": 200}
EXPANSION_SCHEMA = {
    "type": "object",
    "properties": {
        "subqueries": {"type": "array", "items": QUERY, "minItems": 1, "maxItems": MAX_SUBQUERIES},
        "variants": {"type": "array", "items": QUERY, "maxItems": MAX_VARIANTS},
        "step_back": {"type": "string", "maxLength": 200},
    },
    "required": ["subqueries", "variants", "step_back"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Expansion:
    subqueries: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)  # the step-back query last

    def queries(self) -> list[str]:
        return [*self.subqueries, *self.variants]


async def expand_query(question: str, llm: LLM) -> Expansion:
    """The LLM's sub-queries and variants of `question`, each once and none equal to it.
    Raises LLMError when the LLM gives no usable answer."""
    answer = await complete_json(
        llm,
        load_prompt("expand_query").messages(question=question),
        EXPANSION_SCHEMA,
        max_tokens=300,
    )
    seen = {_key(question)}

    def fresh(texts: list[str]) -> list[str]:
        kept = []
        for text in (" ".join(t.split()) for t in texts):
            if text and _key(text) not in seen:
                seen.add(_key(text))
                kept.append(text)
        return kept

    subqueries = fresh(answer["subqueries"])
    return Expansion(subqueries, fresh([*answer["variants"], answer["step_back"]]))


def _key(text: str) -> str:
    return " ".join(text.lower().split()).strip(" ?.!")
