"""Finding this test's child processes through /proc (to kill one, or to prove none is left)."""

from __future__ import annotations

import os
from pathlib import Path


def processes() -> list[tuple[int, int, str]]:
    """(pid, parent pid, command line) of every process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        found.append((int(entry.name), parent, cmdline))
    return found


def children(marker: str) -> list[int]:
    """This process's children whose command line contains `marker`."""
    return [pid for pid, parent, cmd in processes() if parent == os.getpid() and marker in cmd]


def matching(marker: str) -> list[int]:
    """Every live process whose command line contains `marker` (zombies excluded)."""
    alive = []
    for pid, _, cmd in processes():
        if marker in cmd:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                alive.append(pid)
    return alive
