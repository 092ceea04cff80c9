"""`toolweave serve` as a real process for the tests: a config of its own (the default servers
plus a slow one), a state folder, API keys, any free port; stopped with SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from tests.catalog.processes import processes

SLOW_SERVER = Path(__file__).parents[1] / "data" / "slow_server.py"
KEY = "tw-test-key-0123456789abcdef"
OTHER_KEY = "tw-other-key-fedcba9876543210"
BANNER = re.compile(r"toolweave serving (http://\S+?:\d+)")


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    url: str
    folder: Path

    @property
    def log(self) -> str:
        return (self.folder / "stderr.log").read_text(errors="replace")

    @property
    def slow_log(self) -> list[str]:
        path = self.folder / "slow.log"
        return path.read_text().split() if path.exists() else []

    def client(self, key: str | None = KEY, **kwargs: object) -> httpx2.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        options: dict[str, Any] = {"timeout": 60} | kwargs
        return httpx2.Client(base_url=self.url, headers=headers, **options)

    def descendants(self) -> list[int]:
        """The processes the service started (its MCP servers), and theirs."""
        return [pid for pid, _, _ in processes() if _descends(pid, self.process.pid)]

    def stop(self, sig: int = signal.SIGTERM, wait_s: float = 30) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(wait_s)


def environment(folder: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env |= {
        "TOOLWEAVE_STATE_DIR": str(folder / "state"),
        "TOOLWEAVE_CONFIG": str(folder / "toolweave.toml"),
        "TOOLWEAVE_API_KEYS": f"{KEY},{OTHER_KEY}",
        "XDG_CONFIG_HOME": str(folder / "xdg"),
    }
    return env | extra


def write_config(folder: Path, serve: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "toolweave.toml").write_text(
        f"[serve]\n{serve}\n"
        f"[mcpServers.slow]\ncommand = {sys.executable!r}\nargs = [{str(SLOW_SERVER)!r}]\n"
        f"env = {{SLOW_SERVER_LOG = {str(folder / 'slow.log')!r}}}\n"
    )


def start(folder: Path, serve: str = "", args: tuple[str, ...] = ()) -> Served:
    """`toolweave serve --port 0` with `serve` added to its [serve] settings, once it listens."""
    write_config(folder, serve)
    log = (folder / "stderr.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "toolweave", "serve", "--port", "0", *args],
        env=environment(folder),
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = BANNER.search((folder / "stderr.log").read_text(errors="replace"))
        if found:
            return Served(process, found.group(1), folder)
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    raise AssertionError(f"toolweave serve did not start:\n{(folder / 'stderr.log').read_text()}")


def _descends(pid: int, ancestor: int) -> bool:
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])
        if pid == ancestor:
            return True
    return False


def alive(pids: list[int]) -> list[int]:
    """Those of `pids` still running (zombies count as gone)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running
