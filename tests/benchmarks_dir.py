"""Where the shared benchmark data is: $TOOLWEAVE_BENCHMARKS_DIR, else ../shared/benchmarks.

Tests that read it carry `needs_benchmarks`: on a machine without the data they are reported as
skipped, with the path that was looked at, never as passed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(
    os.environ.get("TOOLWEAVE_BENCHMARKS_DIR") or ROOT.parent / "shared" / "benchmarks"
)
needs_benchmarks = pytest.mark.skipif(
    not BENCHMARKS.is_dir(),
    reason=f"benchmark data not found at {BENCHMARKS} (TOOLWEAVE_BENCHMARKS_DIR)",
)


def benchmark_file(*parts: str) -> Path:
    path = BENCHMARKS.joinpath(*parts)
    assert path.is_file(), f"benchmark data {path} is missing: set TOOLWEAVE_BENCHMARKS_DIR"
    return path


LIVEMCP = ("livemcpbench", "tools", "LiveMCPTool", "tools.json")
SEAL = ("seal_tools", "tool.jsonl")
