"""The HTTP API over an opened Service, and the MCP front mounted at /mcp behind the same guard.

    POST /v1/ask                the Answer as JSON, or its events as SSE (`"stream": true`)
    POST /v1/chat/completions   OpenAI-compatible (api/chat.py);  GET /v1/models
    POST /v1/tools/search       the tool index searched;  GET /v1/tools  servers and tools
    GET  /v1/traces[/{id}]      stored runs;  POST /v1/traces/{id}/feedback  good | bad
    GET  /healthz /readyz /metrics
    /mcp                        the MCP front (api/front.py), streamable HTTP

Errors have one shape (api/guard.py); no exception text that is not ours reaches a client.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from toolweave.api.chat import chat_completions, models
from toolweave.api.events import engine_events, sse
from toolweave.api.front import front_routes
from toolweave.api.guard import BodyTooLarge, Guard, RateLimit, error_body
from toolweave.api.metrics import Timed
from toolweave.api.requests import AskBody, BadRequest, FeedbackBody, ToolSearchBody, parse
from toolweave.api.service import (
    ClientGone,
    Service,
    source_of,
    until_gone,
    until_gone_streaming,
)
from toolweave.engine import AskOptions, check_question
from toolweave.errors import InputError, ToolweaveError
from toolweave.traces import Trace

CLIENT_GONE = 499  # nginx's code for "the client closed the request": nobody reads it
TRACES_MAX = 200
# Answered by the app; anything else also reaches the server log with its traceback.
HANDLED = (ToolweaveError, TimeoutError, ClientGone, BodyTooLarge, Exception)


def create_app(service: Service, *, host: str = "127.0.0.1") -> Starlette:
    """The HTTP API and the MCP front over `service` (opened by the caller). `host`: where it
    listens (the MCP front guards a loopback host against DNS rebinding)."""
    serve = service.settings.serve
    mcp_routes, sessions = front_routes(service, host)

    async def ask(request: Request) -> Response:
        body = parse(AskBody, await request.body())
        question = check_question(body.question, service.settings.ask.max_question_chars)
        options = await service.options(body, source_of(request))
        if body.stream or "text/event-stream" in request.headers.get("accept", ""):
            chunks = until_gone_streaming(request, _ask_events(service, question, options))
            return StreamingResponse(chunks, media_type="text/event-stream")
        answer = await until_gone(request, service.ask(question, options))
        return JSONResponse(service.answer_json(answer))

    async def search_tools(request: Request) -> Response:
        body = parse(ToolSearchBody, await request.body())
        found = await service.search_tools(body.query, body.k, body.servers)
        return JSONResponse({"query": body.query, "results": found})

    async def tools(_: Request) -> Response:
        engine = service.engine
        data = {
            "servers": [s.model_dump(mode="json") for s in engine.servers],
            "tools": [t.model_dump(mode="json") for t in engine.candidates()],
        }
        return JSONResponse(service.masked(data))

    async def traces(request: Request) -> Response:
        limit = _int_param(request, "limit", 20, 1, TRACES_MAX)
        found = await service.with_traces(lambda store: store.list(limit))
        return JSONResponse([t.model_dump(mode="json") for t in found])

    async def stored(request: Request) -> Trace:
        """The trace the path names (an id or its unique start), else 404."""
        trace_id = request.path_params["trace_id"]
        try:
            return await service.with_traces(lambda store: store.get(trace_id))
        except InputError as exc:
            raise BadRequest(404, str(exc)) from None

    async def trace(request: Request) -> Response:
        return JSONResponse((await stored(request)).model_dump(mode="json"))

    async def feedback(request: Request) -> Response:
        """`{"rating": "good" | "bad"}` on a stored run; bad unlearns what it taught."""
        body = parse(FeedbackBody, await request.body())
        found = await stored(request)
        changed = await service.engine.feedback(found.id, body.rating)
        return JSONResponse({"trace_id": found.id, "rating": body.rating, "unlearned": changed})

    async def graph(request: Request) -> Response:
        """The tool graph as JSON; `?tool=` (server.tool or a name) narrows it to that tool."""
        try:
            data = service.engine.graph.around(request.query_params.get("tool"))
        except InputError as exc:
            raise BadRequest(404, str(exc)) from None
        return JSONResponse(service.masked(data))

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        engine = service.opened
        servers = [s.model_dump(mode="json") for s in engine.servers] if engine else []
        settling = any(s["state"] in ("starting", "reconnecting") for s in servers)
        ready = engine is not None and not settling
        body = service.masked({"ready": ready, "servers": servers})
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics(_: Request) -> Response:
        return Response(service.metrics.text(), media_type=CONTENT_TYPE_LATEST)

    routes = [
        Route("/v1/ask", ask, methods=["POST"]),
        Route("/v1/chat/completions", chat_completions(service), methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/tools/search", search_tools, methods=["POST"]),
        Route("/v1/tools", tools, methods=["GET"]),
        Route("/v1/traces", traces, methods=["GET"]),
        Route("/v1/traces/{trace_id}", trace, methods=["GET"]),
        Route("/v1/traces/{trace_id}/feedback", feedback, methods=["POST"]),
        Route("/v1/graph", graph, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        *mcp_routes,
    ]
    middleware = [
        Middleware(Timed, metrics=service.metrics),
        Middleware(
            Guard, keys=service.keys, limit=RateLimit(serve.rate_per_minute),
            max_body_bytes=serve.max_body_bytes,
        ),
    ]  # fmt: skip
    if serve.cors_origins:
        cors = Middleware(
            CORSMiddleware,
            allow_origins=serve.cors_origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["authorization", "content-type", "mcp-session-id"],
        )
        middleware.insert(0, cors)
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            **dict.fromkeys(HANDLED, _error_handler(service)),
            404: _not_found,
            405: _not_allowed,
        },
        lifespan=lambda _app: sessions.run(),
    )


async def _ask_events(service: Service, question: str, options: AskOptions) -> AsyncIterator[bytes]:
    """The SSE body of a streamed /v1/ask: the run's events, then `done`."""
    try:
        async for event in service.stream(question, options):
            for chunk in engine_events(event, service.answer_json):
                yield chunk
    except Exception as exc:
        status, message = service.error_message(exc)
        yield sse("error", json.loads(error_body(status, message)))
    yield sse("done", {})


def _int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise BadRequest(422, f"{name}: a whole number from {low} to {high}")
    return int(raw)


def _error_handler(service: Service) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def handle(request: Request, exc: Exception) -> Response:
        if isinstance(exc, ClientGone):
            return Response(status_code=CLIENT_GONE)
        if isinstance(exc, BodyTooLarge):
            limit = service.settings.serve.max_body_bytes
            return _error(413, f"the request body is over {limit:,} bytes")
        return _error(*service.error_message(exc))

    return handle


def _error(status: int, message: str) -> Response:
    return Response(error_body(status, message), status_code=status, media_type="application/json")


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error(404, f"no such endpoint: {request.method} {request.url.path}")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return _error(405, f"{request.method} is not allowed on {request.url.path}")
