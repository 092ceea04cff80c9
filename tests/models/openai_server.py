"""A local HTTP server that speaks the OpenAI wire format, answering from a script.

Each request to a path takes the next scripted reply for it: a JSON body, a list of SSE events,
raw bytes, or an error status. Requests are recorded for assertions.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    events: list[Any] | None = None  # SSE: each item is JSON-encoded into one `data:` line
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


def chat_reply(content: str, prompt_tokens: int = 7, completion_tokens: int = 3) -> Reply:
    return Reply(
        json={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def stream_reply(pieces: list[str]) -> Reply:
    chunks: list[Any] = [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": p}}],
        }
        for p in pieces
    ]
    chunks.append(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": len(pieces)},
        }
    )
    return Reply(events=chunks)


class OpenAIServer:
    def __init__(self) -> None:
        self.script: dict[str, deque[Reply]] = defaultdict(deque)
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"null")
                server.requests.append((self.path, dict(self.headers), body))
                queue = server.script[self.path]
                reply = (
                    queue.popleft() if queue else Reply(status=404, json={"error": "unscripted"})
                )
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                if reply.events is not None:
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    for event in reply.events:
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    return
                payload = reply.raw if reply.raw is not None else json.dumps(reply.json).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def add(self, path: str, *replies: Reply) -> None:
        self.script[path].extend(replies)
