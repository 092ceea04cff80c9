"""Prompts live here as versioned TOML files (system + user templates), not in code."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from toolweave.models.base import Message


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str

    def messages(self, **values: str) -> list[Message]:
        return [
            {"role": "system", "content": self.system.strip()},
            {"role": "user", "content": self.user.strip().format(**values)},
        ]


@cache
def load_prompt(name: str) -> Prompt:
    data = tomllib.loads((Path(__file__).parent / f"{name}.toml").read_text(encoding="utf-8"))
    return Prompt(name=name, version=data["version"], system=data["system"], user=data["user"])
