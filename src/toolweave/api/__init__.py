"""Surfaces over one warm Engine: the HTTP API (OpenAI-compatible chat included) and the MCP
front, served by `toolweave serve` (cli/serve.py).

    service.py   the Service: the engine, secrets, metrics; a run within its deadline
    app.py       the Starlette app: routes, errors, the guard, CORS, /mcp
    chat.py      /v1/chat/completions and /v1/models
    front.py     the MCP front's tools: search_tools, call_tool, ask
    guard.py     API keys, rate limit, body size, the error shape
    requests.py  request bodies and their validation errors
    events.py    engine events as Server-Sent Events
    metrics.py   Prometheus metrics
"""
