"""The request bodies the API accepts, and their errors as a client should read them: 400 for a
body that is not JSON, 422 naming each wrong field."""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolweave.errors import InputError

Body = TypeVar("Body", bound=BaseModel)


class BadRequest(InputError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class AskOptionsBody(_Strict):
    # The CLI's --yes / --dry-run / --schema / --after.
    yes: bool = False
    dry_run: bool = False
    answer_schema: dict[str, Any] | None = Field(None, alias="schema")
    after: str | None = Field(None, description="an earlier run's trace id this follows up")


class AskBody(_Strict):
    question: str
    stream: bool = False
    options: AskOptionsBody = Field(default_factory=AskOptionsBody)


class FeedbackBody(_Strict):
    rating: Literal["good", "bad"]


class ToolSearchBody(_Strict):
    query: str
    k: int = Field(10, ge=1, le=100)
    servers: bool = False  # rank servers, not tools


class ChatMessage(BaseModel):
    """An OpenAI chat message; `content` is text or a list of parts (only text parts are read)."""

    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, list):
            return " ".join(str(p.get("text", "")) for p in self.content if p.get("type") == "text")
        return self.content or ""


# What an OpenAI client may send besides model, messages and stream: accepted and not used (the
# answer is not sampled), as OpenAI-compatible servers do. Any other field is refused.
IGNORED_CHAT_FIELDS = (
    "temperature top_p n stop max_tokens max_completion_tokens presence_penalty "
    "frequency_penalty logit_bias logprobs top_logprobs user seed stream_options tools "
    "tool_choice parallel_tool_calls response_format metadata store service_tier "
    "reasoning_effort modalities prediction audio web_search_options"
).split()


class ChatBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    model: str = "toolweave"
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False


def parse(model: type[Body], raw: bytes, *, ignored: tuple[str, ...] | list[str] = ()) -> Body:
    """The body as `model`, or a BadRequest naming what is wrong."""
    try:
        data = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(400, f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadRequest(400, "the body's JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise BadRequest(400, "the body must be a JSON object")
    if ignored:
        unknown = sorted(set(data) - set(model.model_fields) - set(ignored))
        if unknown:
            raise BadRequest(422, f"unknown field(s): {', '.join(unknown)}")
        data = {k: v for k, v in data.items() if k in model.model_fields}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadRequest(422, describe(exc)) from None


def describe(exc: ValidationError) -> str:
    """Each error as `field: message`, the way a client fixes it."""
    parts = []
    for error in exc.errors()[:5]:
        field = ".".join(str(p) for p in error["loc"]) or "body"
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        parts.append(f"{field}: {message}")
    return "; ".join(parts)
