"""`toolweave serve` under load: warm latency of the bench_ask questions through POST /v1/ask
beside the cold CLI, time to the first streamed events, and 1/4/16/64 concurrent clients
(throughput, p50/p99, errors, the server's RSS over the run). The load clients run on the same
machine as the server (loopback), so they share its cores.

Prints tables and writes benchmarks/results/serve.json. Usage:
    .venv/bin/python benchmarks/bench_serve.py [--requests 100] [--seconds 60] [--cold-runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
from bench_ask import QUESTIONS, cold, percentile

RESULTS = Path(__file__).parent / "results" / "serve.json"
KEY = "bench-key-0123456789abcdef"
DEMO = QUESTIONS["demo (2 tools)"]
CLIENTS = (1, 4, 16, 64)


def start(state: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env |= {"TOOLWEAVE_STATE_DIR": str(state), "TOOLWEAVE_API_KEYS": KEY}
    env["TOOLWEAVE_SERVE__RATE_PER_MINUTE"] = "0"  # the load is the point here
    state.mkdir(parents=True, exist_ok=True)
    log = state / "serve.log"
    command = [sys.executable, "-m", "toolweave", "serve", "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    while process.poll() is None:
        if found := re.search(r"serving (http://\S+?:\d+)", log.read_text(errors="replace")):
            return process, found.group(1)
        time.sleep(0.1)
    raise SystemExit(f"toolweave serve did not start:\n{log.read_text()}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def summary(walls: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(walls, 0.5), 1), "p99_ms": round(percentile(walls, 0.99), 1)}


def warm(http: httpx2.Client, requests: int) -> list[dict[str, object]]:
    """Each question `requests` times in a row, after one warm-up request."""
    rows = []
    for label, question in QUESTIONS.items():
        http.post("/v1/ask", json={"question": question}).raise_for_status()
        walls, ok = [], True
        for _ in range(requests):
            started = time.perf_counter()
            reply = http.post("/v1/ask", json={"question": question})
            walls.append((time.perf_counter() - started) * 1000)
            ok = (
                ok
                and reply.status_code == 200
                and all(o["ok"] for o in reply.json()["observations"])
            )
        rows.append({"question": label, **summary(walls), "all_ok": ok})
    return rows


def streamed(http: httpx2.Client, requests: int) -> dict[str, object]:
    """Time from the request to the first event, the route event and the answer."""
    firsts, routes, answers = [], [], []
    for _ in range(requests):
        started = time.perf_counter()
        with http.stream("POST", "/v1/ask", json={"question": DEMO, "stream": True}) as reply:
            first = True
            for line in reply.iter_lines():
                now = (time.perf_counter() - started) * 1000
                if line.startswith("event: ") and first:
                    firsts.append(now)
                    first = False
                if line == "event: route":
                    routes.append(now)
                if line == "event: answer":
                    answers.append(now)
    return {
        "first_event_p50_ms": round(percentile(firsts, 0.5), 1),
        "route_event_p50_ms": round(percentile(routes, 0.5), 1),
        "answer_event_p50_ms": round(percentile(answers, 0.5), 1),
        "requests": requests,
    }


async def load(url: str, clients: int, seconds: float, pid: int) -> dict[str, object]:
    """`clients` clients asking the demo question back to back for `seconds`."""
    walls: list[float] = []
    errors = 0
    rss: list[tuple[float, float]] = []
    stop = time.monotonic() + seconds
    limits = httpx2.Limits(max_connections=clients)
    headers = {"Authorization": f"Bearer {KEY}"}

    async def client(http: httpx2.AsyncClient) -> None:
        nonlocal errors
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                reply = await http.post("/v1/ask", json={"question": DEMO})
                failed = reply.status_code != 200 or "351" not in reply.json()["text"]
            except httpx2.HTTPError:
                failed = True
            errors += failed
            walls.append((time.perf_counter() - started) * 1000)

    async def sample() -> None:
        begun = time.monotonic()
        while time.monotonic() < stop:
            rss.append((time.monotonic() - begun, rss_mb(pid)))
            await asyncio.sleep(1)

    async with httpx2.AsyncClient(base_url=url, headers=headers, timeout=60, limits=limits) as http:
        began = time.perf_counter()
        await asyncio.gather(sample(), *(client(http) for _ in range(clients)))
        elapsed = time.perf_counter() - began
    first = [mb for t, mb in rss if t < 10]
    last = [mb for t, mb in rss if t >= seconds - 10]
    return {
        "clients": clients,
        "requests": len(walls),
        "per_s": round(len(walls) / elapsed, 1),
        **summary(walls),
        "errors": errors,
        "rss_first_10s_mb": round(statistics.mean(first), 1) if first else None,
        "rss_last_10s_mb": round(statistics.mean(last), 1) if last else None,
    }


def bench(requests: int, seconds: float, cold_runs: int) -> dict[str, object]:
    state = Path(tempfile.mkdtemp(prefix="toolweave-bench-serve-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWEAVE_")}
    env["TOOLWEAVE_STATE_DIR"] = str(state / "cold")
    cold_rows = cold(cold_runs, env)
    process, url = start(state / "served")
    try:
        headers = {"Authorization": f"Bearer {KEY}"}
        with httpx2.Client(base_url=url, headers=headers, timeout=60) as http:
            warm_rows = warm(http, requests)
            stream = streamed(http, min(requests, 20))
        loads = [asyncio.run(load(url, n, seconds, process.pid)) for n in CLIENTS]
    finally:
        process.terminate()
        process.wait(60)
    for row, cold_row in zip(warm_rows, cold_rows, strict=True):
        row["cold_cli_ms"] = cold_row["wall_ms_median"]
        row["speedup"] = round(float(cold_row["wall_ms_median"]) / float(row["p50_ms"]), 1)  # type: ignore[arg-type]
    return {
        "benchmark": "serve",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "requests": requests,
        "seconds_per_load": seconds,
        "cold_runs": cold_runs,
        "warm": warm_rows,
        "stream": stream,
        "load": loads,
    }


def table(rows: list[dict[str, object]], columns: list[str]) -> None:
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100, help="warm requests per question")
    parser.add_argument("--seconds", type=float, default=60, help="seconds per load level")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold CLI runs per question")
    options = parser.parse_args()
    result = bench(options.requests, options.seconds, options.cold_runs)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"warm: POST /v1/ask, {result['requests']} requests per question, one at a time")
    table(result["warm"], ["question", "p50_ms", "p99_ms", "cold_cli_ms", "speedup", "all_ok"])  # type: ignore[arg-type]
    print(f"streamed (demo question): {result['stream']}")
    print(f"load: the demo question, {result['seconds_per_load']} s per level")
    columns = ["clients", "requests", "per_s", "p50_ms", "p99_ms", "errors"]
    table(result["load"], [*columns, "rss_first_10s_mb", "rss_last_10s_mb"])  # type: ignore[arg-type]
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
