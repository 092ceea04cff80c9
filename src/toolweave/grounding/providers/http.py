"""`HttpProvider`: the `Provider` (base.py) that speaks one HTTP search API as its adapter
(adapters.py) describes it. It fills the adapter's templates into a request, sends it with one
httpx2 client per provider, maps what goes wrong to a `ProviderError` (secrets blanked out) and
turns the answer's result list into `SearchResult`s. registry.py builds them from the settings.
"""

from __future__ import annotations

import email.utils
import html
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlsplit

import httpx2

from toolweave.grounding.providers.adapters import (
    AdapterSpec,
    Call,
    env_refs,
    render_template,
    render_text,
)
from toolweave.grounding.records import FailureKind, ProviderError, SearchRequest, SearchResult

# A snippet is a preview for ranking and citing; the full text, when an API gives it, is content.
SNIPPET_CHARS = 500
ERROR_EXCERPT_CHARS = 200
FRESHNESS_DAYS = {"day": 1, "week": 7, "month": 31, "year": 366}
USER_AGENT = "toolweave (search gateway)"

_FIELD_REF = re.compile(r"\{([\w.]+)\}")
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")


_MISSING: Any = object()


def _lookup(data: Any, path: str) -> Any:
    """`a.b.0.c` in nested JSON, or `_MISSING`."""
    for part in path.split("."):
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return _MISSING
    return data


def _field(item: dict[str, Any], spec: str) -> Any:
    """A dotted path, or a URL template whose `{path}` values are percent-encoded."""
    if "{" not in spec:
        value = _lookup(item, spec)
        return None if value is _MISSING else value
    parts: list[str] = []
    for ref in _FIELD_REF.findall(spec):
        value = _lookup(item, ref)
        if value is _MISSING or value is None or value == "":
            return None  # a URL without its key is no URL
        parts.append(quote(str(value), safe="/:@!$&'()*+,;=-._~"))
    pieces = iter(parts)
    return _FIELD_REF.sub(lambda _: next(pieces), spec)


def _clean(value: Any) -> str:
    """Plain text: APIs highlight matches with tags (<strong>, searchmatch spans) and entities."""
    if value is None:
        return ""
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", str(value)))).strip()


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def _score(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _in_domains(url: str, domains: list[str]) -> bool:
    if not domains:
        return True
    host = (urlsplit(url).hostname or "").lower()
    wanted = (d.lower().removeprefix("www.") for d in domains)
    return any(host == d or host.endswith("." + d) for d in wanted)


def _site_terms(query: str, domains: list[str]) -> str:
    terms = [f"site:{domain}" for domain in domains]
    joined = terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")"
    return f"{query} {joined}"


def _retry_after(header: str | None) -> float | None:
    """Seconds to wait: the header is either a number of seconds or an HTTP date."""
    if not header:
        return None
    try:
        return max(0.0, float(header))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class HttpProvider:
    """A `Provider` speaking one HTTP search API as its adapter describes."""

    def __init__(
        self,
        spec: AdapterSpec,
        *,
        env: Mapping[str, str] | None = None,
        endpoint: str | None = None,
        timeout_s: float = 8.0,
        cost_per_call: float | None = None,
    ) -> None:
        self.spec = spec
        self.name = spec.name
        self.capabilities = frozenset(spec.capabilities)
        self.cost_per_call = spec.cost_per_call if cost_per_call is None else cost_per_call
        self.timeout_s = timeout_s
        self._endpoint = endpoint or spec.endpoint
        templates = [self._endpoint, *spec.templates()]
        env = os.environ if env is None else env
        # Only the variables the adapter names are kept, and only to fill its requests.
        self._env = {name: env[name] for t in templates for name, _ in env_refs(t) if env.get(name)}
        self._required = sorted({name for t in templates for name, dflt in env_refs(t) if not dflt})
        self._secrets = [
            self._env[name]
            for t in spec.templates()
            for name, _ in env_refs(t)
            if len(self._env.get(name, "")) >= 4
        ]
        self._native_domains = spec.filters_domains()
        self._client: httpx2.AsyncClient | None = None

    def unavailable_reason(self) -> str | None:
        missing = [name for name in self._required if name not in self._env]
        if not missing:
            return None
        return f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set"

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        if reason := self.unavailable_reason():
            raise ProviderError(self.name, "unavailable", reason)
        call = self.spec.call(request.kind)
        data = await self._fetch(call, self._values(request))
        return self._records(self._items(data, call), call, request)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def _values(self, request: SearchRequest) -> dict[str, Any]:
        query = request.query
        if request.domains and not self._native_domains and self.spec.site_terms:
            query = _site_terms(query, request.domains)
        limit = self.spec.max_results_limit or request.max_results
        language, _, country = request.locale.partition("-")
        days = FRESHNESS_DAYS.get(request.freshness)
        since = (datetime.now(UTC) - timedelta(days=days)).date().isoformat() if days else None
        values: dict[str, Any] = {
            "query": query,
            "max_results": min(request.max_results, limit),
            "freshness": None if request.freshness == "any" else request.freshness,
            "since": since,
            "locale": request.locale,
            "language": language,
            "country": country or None,
            "domains": list(request.domains) or None,
            "kind": request.kind,
        }
        for name, mapping in self.spec.values.items():
            raw = values[name]
            values[name] = None if raw is None else mapping.get(str(raw))
        return values

    async def _fetch(self, call: Call, values: dict[str, Any]) -> Any:
        base = render_text(self._endpoint, {}, self._env).rstrip("/")
        body = None if call.body is None else render_template(call.body, values, self._env)
        try:
            response = await self._http().request(
                self.spec.method,
                base + call.path,
                params=render_template(call.params, values, self._env),
                headers=render_template(self.spec.headers, values, self._env),
                json=body,
            )
        except httpx2.TimeoutException:
            raise self._error("timeout", f"no answer within {self.timeout_s:g} s") from None
        except httpx2.TransportError as exc:
            raise self._error("http", f"cannot reach {base}: {exc!r}") from None
        self._check_status(response)
        try:
            return response.json()
        except ValueError:
            raise self._error(
                "malformed", f"the answer is not JSON: {_excerpt(response)}"
            ) from None

    def _http(self) -> httpx2.AsyncClient:
        # One client per provider keeps its connections alive between searches. Redirects are
        # not followed: they would carry the key header to whatever host they point at.
        if self._client is None:
            self._client = httpx2.AsyncClient(
                timeout=httpx2.Timeout(self.timeout_s), headers={"User-Agent": USER_AGENT}
            )
        return self._client

    def _check_status(self, response: httpx2.Response) -> None:
        status = response.status_code
        if status == 429:
            raise self._error(
                "rate_limited",
                f"rate limited (HTTP 429): {_excerpt(response)}",
                _retry_after(response.headers.get("retry-after")),
            )
        if not 200 <= status < 300:
            raise self._error("http", f"HTTP {status}: {_excerpt(response)}")

    def _items(self, data: Any, call: Call) -> list[Any]:
        found = _lookup(data, call.results)
        if found is _MISSING and self.spec.results_optional and isinstance(data, dict):
            return []
        if not isinstance(found, list):
            raise self._error("malformed", f"the answer has no result list at `{call.results}`")
        return found

    def _records(self, items: list[Any], call: Call, request: SearchRequest) -> list[SearchResult]:
        records: list[SearchResult] = []
        for item in items:
            if len(records) == request.max_results:
                break
            if not isinstance(item, dict):
                continue
            got = {name: _field(item, spec) for name, spec in call.fields.items()}
            url = str(got["url"] or "").strip()
            if not url or not _in_domains(url, request.domains):
                continue
            records.append(
                SearchResult(
                    title=_clean(got["title"]) or url,
                    url=url,
                    snippet=_shorten(_clean(got.get("snippet")), SNIPPET_CHARS),
                    content=str(got["content"]) if got.get("content") else None,
                    published=str(got["published"]) if got.get("published") else None,
                    score=_score(got.get("score")),
                    provider=self.name,
                    rank=len(records) + 1,
                )
            )
        return records

    def _error(
        self, kind: FailureKind, message: str, retry_after_s: float | None = None
    ) -> ProviderError:
        for secret in self._secrets:
            message = message.replace(secret, "***")
        return ProviderError(self.name, kind, message, retry_after_s)


def _excerpt(response: httpx2.Response) -> str:
    text = _SPACE.sub(" ", response.text).strip()
    return _shorten(text, ERROR_EXCERPT_CHARS) or "(empty body)"
