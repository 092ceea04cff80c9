from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolweave.settings import Settings, load_settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Defaults (no user file, no TOOLWEAVE_* variables), state kept in a temporary folder."""
    return load_settings(env={"TOOLWEAVE_STATE_DIR": str(tmp_path / "state")})


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the developer's own toolweave.toml or TOOLWEAVE_* variables."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    for name in list(os.environ):
        if name.startswith("TOOLWEAVE_") and name != "TOOLWEAVE_BENCHMARKS_DIR":
            monkeypatch.delenv(name)
