"""The gateway's vocabulary: one request shape, one result record, one provider failure.

Every provider, whatever its wire format, answers a `SearchRequest` with `SearchResult`s, and
fails with a `ProviderError` whose `kind` tells the fallback chain what happened. The interface
providers implement, `Provider`, is in providers/base.py.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field, field_validator

from toolweave.errors import InputError, ToolweaveError

Freshness = Literal["any", "day", "week", "month", "year"]
RequestKind = Literal["web", "news"]
FailureKind = Literal["timeout", "rate_limited", "http", "malformed", "empty", "unavailable"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


MAX_QUERY_CHARS = 2000


class SearchRequest(_Record):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    # Retrieval depth: how many results the caller wants back.
    max_results: int = Field(5, ge=1, le=50)
    freshness: Freshness = "any"
    locale: str = "en-US"
    # Restrict to these sites (providers that cannot are asked with `site:` terms instead).
    domains: list[str] = Field(default_factory=list)
    # The request class: picks the fallback chain.
    kind: RequestKind = "web"

    @field_validator("domains", mode="before")
    @classmethod
    def _no_domains(cls, value: Any) -> Any:
        return [] if value is None else value

    @classmethod
    def checked(cls, **fields: Any) -> SearchRequest:
        """Validated, or an InputError naming the field whose value cannot be used."""
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            problem = exc.errors()[0]
            field = ".".join(str(part) for part in problem["loc"]) or "request"
            raise InputError(f"search request: `{field}`: {problem['msg']}") from None

    def parameters_key(self) -> str:
        """Every parameter but the query: a cached answer is only reused under the same ones."""
        params = self.model_dump(exclude={"query"})
        params["domains"] = sorted(params["domains"])
        return json.dumps(params, sort_keys=True, separators=(",", ":"))


class SearchResult(BaseModel):
    # Ignores unknown keys so a stored record (with its computed source_id) loads back.
    model_config = ConfigDict(extra="ignore")

    title: str
    url: str
    snippet: str = ""
    content: str | None = None
    published: str | None = None
    provider: str
    rank: int = Field(ge=1)
    score: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def source_id(self) -> str:
        """Stable across providers and runs, so a citation can be checked against the ledger."""
        return source_id_for(self.url or f"{self.provider}:{self.title}")


def source_id_for(locator: str) -> str:
    normalized = locator.strip().rstrip("/").lower()
    for prefix in ("https://", "http://"):
        normalized = normalized.removeprefix(prefix)
    return "s" + hashlib.sha1(normalized.encode()).hexdigest()[:10]


class ProviderError(ToolweaveError):
    """One provider failed one request; the chain moves on to the next provider."""

    def __init__(
        self, provider: str, kind: FailureKind, message: str, retry_after_s: float | None = None
    ) -> None:
        super().__init__(f"{provider}: {message}")
        self.provider = provider
        self.kind = kind
        self.retry_after_s = retry_after_s
