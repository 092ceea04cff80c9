"""toolweave: tool-augmented AI search over MCP servers and local documents.

    from toolweave import Engine, ask, load_settings
    answer = asyncio.run(ask("What is 15% of 2,340?", load_settings()))

    async with Engine.open(load_settings()) as engine:   # a long-lived process
        answer = await engine.ask("What time is it in Tokyo?")

Importing toolweave stays cheap: the engine (MCP SDK, models) loads on first use.
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
    from toolweave.engine import AskOptions, Engine, ask

__version__ = "0.1.0"
__all__ = [
    "Answer",
    "AskOptions",
    "ConfigError",
    "Engine",
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
    if name in ("ask", "Engine", "AskOptions"):
        from toolweave import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'toolweave' has no attribute {name!r}")
