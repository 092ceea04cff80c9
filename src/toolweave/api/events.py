"""The engine's events as Server-Sent Events (`POST /v1/ask` with `"stream": true`):

event: progress   {"stage": "choosing tools"}
event: route      {"route": "parallel", "why": "..."}
event: plan       {"steps": [...]}
event: step       {"kind": "started" | "finished" | "failed" | "skipped", "step_id", ...}
event: sources    [{"id": 1, "title": ..., "uri": ...}, ...]
event: answer     the whole Answer, as `POST /v1/ask` returns it
event: error      {"error": {"message", "type", "code"}}: the run ended without an answer
event: done       {}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from toolweave.engine import EngineEvent, Finished, Planned, Progress, StepEvent
from toolweave.types import Answer


def sse(name: str, data: Any) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def engine_events(event: EngineEvent, answer_json: Callable[[Answer], Any]) -> list[bytes]:
    """The SSE messages one engine event becomes."""
    if isinstance(event, Progress):
        return [sse("progress", {"stage": event.stage})]
    if isinstance(event, Planned):
        decision = {"route": str(event.decision.route), "why": event.decision.reason}
        return [sse("route", decision), sse("plan", event.plan.model_dump(mode="json"))]
    if isinstance(event, StepEvent):
        step = event.event
        data = {"kind": str(step.kind), "step_id": step.step_id, "at_ms": step.at_ms}
        data |= {"elapsed_ms": step.elapsed_ms, "detail": step.detail}
        return [sse("step", data)]
    if isinstance(event, Finished):
        sources = [s.model_dump(mode="json") for s in event.answer.sources]
        return [sse("sources", sources), sse("answer", answer_json(event.answer))]
    return []
