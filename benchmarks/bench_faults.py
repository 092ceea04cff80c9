"""Faults as a user meets them: each scenario run through the real CLI, timed, with a check for
server processes left behind and for data lost (the tool index and the traces still open).

Prints a table and writes benchmarks/results/faults.json. Usage:
    .venv/bin/python benchmarks/bench_faults.py
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "faults.json"
DEMO = "What is 15% of 2,340, and what time is it in Tokyo?"
MARKER = f"toolweave-fault-{os.getpid()}"
HANG = f'command = "{sys.executable}"\nargs = ["-c", "import time; time.sleep(600)", "{MARKER}"]\n'


def environment(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    return env | {"TOOLWEAVE_STATE_DIR": str(state)}


def toolweave(folder: Path, *args: str | bytes, timeout: float = 300) -> tuple[int, str, float]:
    """Exit code, the last line of stderr (what the user sees on failure) and seconds."""
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "toolweave", *args],
        cwd=folder,
        env=environment(folder / "state"),
        capture_output=True,
        timeout=timeout,
    )
    seconds = time.perf_counter() - started
    said = (run.stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
    if run.returncode == 0:
        said = (run.stdout.decode(errors="replace").strip().splitlines() or [""])[0]
    return run.returncode, said, seconds


def orphans() -> int:
    found = subprocess.run(["pgrep", "-f", MARKER], capture_output=True, text=True).stdout
    return len(found.split())


def data_intact(folder: Path) -> bool:
    """The index answers a search and the trace store lists its runs."""
    search = toolweave(folder, "tools", "search", "time in Tokyo", "--json")
    traces = toolweave(folder, "trace", "list", "--json")
    return search[0] == 0 and traces[0] == 0


def signalled(folder: Path, sent: signal.Signals) -> tuple[int, str, float]:
    """The first `ask` of a fresh state dir (it waits for every server, to index their tools)
    with a server that hangs while starting, interrupted once the servers run."""
    cli = subprocess.Popen(
        [sys.executable, "-m", "toolweave", "ask", "what is 2+2"],
        cwd=folder,
        env=environment(folder / "fresh-state"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    while not orphans():
        time.sleep(0.1)
    time.sleep(1.0)
    started = time.perf_counter()
    cli.send_signal(sent)
    cli.wait(timeout=60)
    stderr = cli.stderr.read().decode() if cli.stderr else ""
    return cli.returncode, stderr.strip(), time.perf_counter() - started


def scenarios(root: Path) -> list[tuple[str, Callable[[Path], tuple[int, str, float]], str]]:
    """(scenario, how to run it, the settings file's text)."""
    hang = f"[mcpServers.hang]\n{HANG}[mcp]\nstart_timeout_s = 600\n"

    def rebuild_three(folder: Path) -> tuple[int, str, float]:
        started = time.perf_counter()
        command = [sys.executable, "-m", "toolweave", "index", "--rebuild"]
        env = environment(folder / "state")
        runs = [
            subprocess.Popen(command, cwd=folder, env=env, stderr=subprocess.PIPE) for _ in "123"
        ]
        codes = [run.wait(timeout=300) for run in runs]
        return max(codes), f"exit codes {codes}", time.perf_counter() - started

    def ask(question: str | bytes) -> Callable[[Path], tuple[int, str, float]]:
        return lambda folder: toolweave(folder, "ask", question)

    ghost = '[mcpServers.ghost]\ncommand = "no-such-command"\n'
    return [
        ("demo, no fault (for comparison)", ask(DEMO), ""),
        ("demo, a server that hangs while starting is configured", ask(DEMO), hang),
        ("Ctrl-C while a server hangs starting", lambda f: signalled(f, signal.SIGINT), hang),
        ("SIGTERM while a server hangs starting", lambda f: signalled(f, signal.SIGTERM), hang),
        ("a server whose command does not exist", ask(DEMO), ghost),
        ("question with bytes that are not UTF-8", ask(b"What is 15% of 2,340? caf\xe9 \xff"), ""),
        ("a 100 KB question", ask("w" * 102_400), ""),
        ("settings file of random bytes", ask(DEMO), "\x00\xff[[[=\n"),
        ("three `index --rebuild` at once", rebuild_three, ""),
    ]


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="toolweave-faults-") as tmp:
        root = Path(tmp)
        for number, (name, run, settings) in enumerate(scenarios(root)):
            folder = root / f"s{number}"
            folder.mkdir()
            toolweave(folder, "index")  # an index and a trace store to lose, or not
            toolweave(folder, "ask", DEMO)
            (folder / "toolweave.toml").write_text(settings, errors="surrogateescape")
            code, said, seconds = run(folder)
            time.sleep(1.0)
            left = orphans()
            subprocess.run(["pkill", "-f", MARKER], check=False)
            (folder / "toolweave.toml").write_text("")
            rows.append(
                {
                    "scenario": name,
                    "exit": code,
                    "user sees": said[:100],
                    "seconds": round(seconds, 2),
                    "orphans": left,
                    "data intact": data_intact(folder),
                }
            )
    RESULTS.parent.mkdir(exist_ok=True)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    RESULTS.write_text(json.dumps({"machine": machine, "rows": rows}, indent=2) + "\n")
    print("| scenario | exit | what the user sees | seconds | orphans | data intact |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['scenario']} | {r['exit']} | {r['user sees']} | {r['seconds']} | "
            f"{r['orphans']} | {r['data intact']} |"
        )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
