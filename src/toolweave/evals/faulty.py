"""A stdio MCP server made faulty, for `toolweave eval recovery`: it runs the real server given
after `--` and relays its messages both ways, except that every call of the `--fail` tool is
answered with an error result, as an upstream outage would be. Everything else (the handshake,
the tool list, the other tools' calls) is the real server's.

    python -m toolweave.evals.faulty --fail read_text_file -- npx -y @modelcontextprotocol/...
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
from typing import IO, Any

OUTAGE = "the upstream service is unavailable (an outage made by toolweave eval recovery)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fail", required=True, help="the tool whose calls fail")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the server's command")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("the server's command goes after --")
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    lock = threading.Lock()
    threading.Thread(target=_relay, args=(server.stdout, lock), daemon=True).start()
    for line in sys.stdin.buffer:
        if (failed := _failed_call(line, args.fail)) is not None:
            _write(sys.stdout.buffer, json.dumps(failed).encode() + b"\n", lock)
            continue
        try:
            server.stdin.write(line)
            server.stdin.flush()
        except BrokenPipeError:
            break
    server.stdin.close()
    sys.exit(server.wait())


def _failed_call(line: bytes, tool: str) -> dict[str, Any] | None:
    """The error result for a call of `tool`, or None for any other message."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    if (message.get("params") or {}).get("name") != tool:
        return None
    # resultType: newer MCP clients tell a finished result from one that needs input by it.
    result = {
        "content": [{"type": "text", "text": OUTAGE}],
        "isError": True,
        "resultType": "complete",
    }
    return {"jsonrpc": "2.0", "id": message.get("id"), "result": result}


def _relay(source: IO[bytes], lock: threading.Lock) -> None:
    for line in source:
        _write(sys.stdout.buffer, line, lock)


def _write(target: IO[bytes], data: bytes, lock: threading.Lock) -> None:
    with lock:
        target.write(data)
        target.flush()


if __name__ == "__main__":
    main()
