"""OpenAI-compatible chat: `POST /v1/chat/completions` and `GET /v1/models` (model "toolweave").

The last user message is the question; the user message before it is what a follow-up may
point back at ("and the weather there?"). The reply's content is the answer with its [n]
citations and a "Sources" list under it (what a chat UI shows). The sources are also given as
data in an extension field, `sources` (a list of {id, kind, title, uri, snippet}), beside
`toolweave` ({trace_id, route, short}); OpenAI SDKs keep unknown fields (`completion.sources`).
Sampling parameters (temperature, max_tokens, ...) are accepted and not used.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from toolweave.api.guard import error_body
from toolweave.api.requests import IGNORED_CHAT_FIELDS, BadRequest, ChatBody, parse
from toolweave.api.service import Service, source_of, until_gone, until_gone_streaming
from toolweave.engine import AskOptions, Finished, check_question
from toolweave.types import Answer

MODEL = "toolweave"


async def models(_: Request) -> Response:
    return JSONResponse({"object": "list", "data": [_model()]})


def _model() -> dict[str, Any]:
    return {"id": MODEL, "object": "model", "created": 0, "owned_by": "toolweave"}


def chat_completions(service: Service) -> Callable[[Request], Awaitable[Response]]:
    async def complete(request: Request) -> Response:
        body = parse(ChatBody, await request.body(), ignored=IGNORED_CHAT_FIELDS)
        if body.model != MODEL:
            raise BadRequest(404, f"model {body.model!r} does not exist; the model is {MODEL!r}")
        question, earlier = conversation(body)
        question = check_question(question, service.settings.ask.max_question_chars)
        options = AskOptions(earlier=earlier, source=source_of(request))
        reply = Reply()
        if body.stream:
            chunks = until_gone_streaming(request, _chunks(service, question, options, reply))
            return StreamingResponse(chunks, media_type="text/event-stream")
        answer = await until_gone(request, service.ask(question, options))
        return JSONResponse(service.masked(reply.completion(answer)))

    return complete


def conversation(body: ChatBody) -> tuple[str, str]:
    """The question (the last user message) and the user message before it."""
    said = [m.text for m in body.messages if m.role == "user" and m.text.strip()]
    if not said:
        raise BadRequest(422, "messages: there is no user message with text to answer")
    return said[-1], said[-2] if len(said) > 1 else ""


class Reply:
    """One completion's id and time, and its shapes."""

    def __init__(self) -> None:
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": MODEL}

    def completion(self, answer: Answer) -> dict[str, Any]:
        message = {"role": "assistant", "content": content(answer)}
        choice = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
        return self._head("chat.completion") | {
            "choices": [choice],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            **extension(answer),
        }

    def chunk(self, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        data = self._head("chat.completion.chunk") | {"choices": [choice], **extra}
        return f"data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def content(answer: Answer) -> str:
    """The answer's text, then its sources, numbered as the text cites them."""
    if not answer.sources:
        return answer.text
    lines = [f"[{s.id}] {s.title}" + (f" ({s.uri})" if s.uri else "") for s in answer.sources]
    return answer.text + "\n\nSources:\n" + "\n".join(lines)


def extension(answer: Answer) -> dict[str, Any]:
    return {
        "sources": [s.model_dump(mode="json") for s in answer.sources],
        "toolweave": {"trace_id": answer.trace_id, "route": answer.route, "short": answer.short},
    }


async def _chunks(
    service: Service, question: str, options: AskOptions, reply: Reply
) -> AsyncIterator[bytes]:
    """The streamed reply: the role at once, the content when the answer is written, the
    sources with the last chunk, then [DONE]; an error as OpenAI streams one."""
    yield reply.chunk({"role": "assistant", "content": ""})
    try:
        async for event in service.stream(question, options):
            if isinstance(event, Finished):
                answer = event.answer
                yield reply.chunk({"content": service.masked(content(answer))})
                yield reply.chunk({}, "stop", **service.masked(extension(answer)))
    except Exception as exc:
        status, message = service.error_message(exc)
        yield f"data: {error_body(status, message).decode()}\n\n".encode()
    yield b"data: [DONE]\n\n"
