"""toolweave: tool-augmented AI search over MCP servers and local documents.

    from toolweave import ask, load_settings
    answer = asyncio.run(ask("What is 15% of 2,340?", load_settings()))

Importing toolweave stays cheap: the pipeline (MCP SDK, models) loads on first use of `ask`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

# OpenBLAS worker threads keep spinning after each small product (the dense search), and on a
# small machine they take the cores the embedder needs next: one BLAS thread halved the
# retrieval latency here (benchmarks/RESULTS.md). Set before numpy loads; a user's value wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from toolweave.errors import (
    ConfigError,
    InputError,
    LLMError,
    ModelError,
    ServerError,
    StructuredOutputError,
    ToolweaveError,
)
from toolweave.settings import Settings, load_settings
from toolweave.types import Answer, Observation, Plan, ServerSpec, Source, Step, ToolSpec

if TYPE_CHECKING:
    from toolweave.pipeline import ask

__version__ = "0.1.0"
__all__ = [
    "Answer",
    "ConfigError",
    "InputError",
    "LLMError",
    "ModelError",
    "Observation",
    "Plan",
    "ServerError",
    "ServerSpec",
    "Settings",
    "Source",
    "Step",
    "StructuredOutputError",
    "ToolSpec",
    "ToolweaveError",
    "__version__",
    "ask",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    if name == "ask":
        from toolweave.pipeline import ask

        return ask
    raise AttributeError(f"module 'toolweave' has no attribute {name!r}")
