"""Where the shared benchmark data is: $TOOLWEAVE_BENCHMARKS_DIR or ../shared/benchmarks."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def benchmark_file(*parts: str) -> Path:
    base = Path(os.environ.get("TOOLWEAVE_BENCHMARKS_DIR") or ROOT.parent / "shared" / "benchmarks")
    path = base.joinpath(*parts)
    assert path.is_file(), f"benchmark data {path} is missing: set TOOLWEAVE_BENCHMARKS_DIR"
    return path


LIVEMCP = ("livemcpbench", "tools", "LiveMCPTool", "tools.json")
SEAL = ("seal_tools", "tool.jsonl")
