"""HTTP search providers described by YAML adapters: one small file per API, one generic client
(`HttpProvider`, http.py). This module owns the adapter model (`AdapterSpec`), its templates and
their rendering, and loading the files; registry.py turns the enabled ones into providers.

An adapter file says where a request goes (base `endpoint` + `path`, `method`, `headers`, query
`params` and/or a JSON `body`) and where the results are in the answer (`results`: a dotted path
to the list; `fields`: a dotted path, or a `{field}` URL template, per `SearchResult` field).
The shipped adapters live in `adapters/`; `grounding.adapters_dir` adds more, and a file named
like a shipped one replaces it.

Strings in headers, params and body take placeholders filled per request:

    {query} {max_results} {freshness} {since} {locale} {language} {country} {domains} {kind}

A placeholder that is the whole value keeps its type (`{max_results}` stays an int, `{domains}` a
list). One with no value (freshness "any", no domains, a value its map lacks) drops the
parameter. `values` maps a placeholder's value to the API's words (`week: pw`). `${ENV}` and
`${ENV:-default}` read the environment; an unset `${ENV}` makes the provider unavailable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from toolweave.errors import ConfigError
from toolweave.grounding.records import RequestKind

# The shipped adapter files: package data next to this module.
ADAPTERS_DIR = Path(__file__).parent / "adapters"
PLACEHOLDERS = frozenset(
    "query max_results freshness since locale language country domains kind".split()
)
CAPABILITIES = frozenset({"web", "news", "freshness", "domains", "content", "local"})
RESULT_FIELDS = frozenset({"title", "url", "snippet", "content", "published", "score"})

_TOKEN = re.compile(r"\$\{(?P<env>\w+)(?::-(?P<default>[^}]*))?\}|\{(?P<name>\w+)\}")
# A marker for "no value": the enclosing parameter is left out of the request.
_DROP: Any = object()


def _checked_path(value: str | None) -> str | None:
    if value and not value.startswith("/"):
        raise ValueError("must start with /")
    return value


def _checked_templates(value: Any) -> Any:
    if unknown := sorted(_placeholders(value) - PLACEHOLDERS):
        names = ", ".join("{" + name + "}" for name in unknown)
        raise ValueError(f"unknown placeholders {names}; known: {sorted(PLACEHOLDERS)}")
    return value


ApiPath = Annotated[str, AfterValidator(_checked_path)]
Templates = Annotated[dict[str, Any], AfterValidator(_checked_templates)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KindOverride(_Spec):
    """What changes for one request kind (news), merged over the adapter's own values."""

    path: ApiPath | None = None
    params: Templates = Field(default_factory=dict)
    body: Templates = Field(default_factory=dict)
    results: str | None = None
    fields: dict[str, str] = Field(default_factory=dict)


class AdapterSpec(_Spec):
    """One YAML adapter file."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    # The API's base URL; `[grounding.providers.NAME] endpoint` replaces it (a proxy, a test).
    endpoint: str
    path: ApiPath = ""
    method: Literal["GET", "POST"] = "GET"
    headers: Annotated[dict[str, str], AfterValidator(_checked_templates)] = Field(
        default_factory=dict
    )
    params: Templates = Field(default_factory=dict)
    body: Templates | None = None
    # Per placeholder: its value -> what the API expects; values missing from a map are dropped.
    values: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # The most results the API returns per call (asking for more is an error there).
    max_results_limit: int | None = Field(None, ge=1)
    # Without a native domain filter, ask with `site:` terms (off where the API ignores them).
    site_terms: bool = True
    results: str = Field(min_length=1)
    # The API leaves the result list out when nothing matched (instead of an empty list).
    results_optional: bool = False
    fields: dict[str, str]
    kinds: dict[RequestKind, KindOverride] = Field(default_factory=dict)
    capabilities: list[str] = Field(default_factory=lambda: ["web"])
    # USD per call, from the published list price; informs the gateway's cost accounting.
    cost_per_call: float = Field(0.0, ge=0)
    timeout_s: float | None = Field(None, gt=0)

    @field_validator("endpoint")
    @classmethod
    def _endpoint_is_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://", "${")):
            raise ValueError("must start with http://, https:// or an ${ENV} variable")
        if any(match["name"] for match in _TOKEN.finditer(value)):
            raise ValueError("takes ${ENV} variables only, not request placeholders")
        return value

    @field_validator("values")
    @classmethod
    def _maps_known_placeholders(cls, value: dict[str, dict[str, Any]]) -> dict[str, Any]:
        if unknown := sorted(set(value) - PLACEHOLDERS):
            raise ValueError(f"maps unknown placeholders {unknown}; known: {sorted(PLACEHOLDERS)}")
        return value

    @field_validator("fields")
    @classmethod
    def _fields_are_result_fields(cls, value: dict[str, str]) -> dict[str, str]:
        if unknown := sorted(set(value) - RESULT_FIELDS):
            raise ValueError(f"unknown result fields {unknown}; known: {sorted(RESULT_FIELDS)}")
        if not {"title", "url"} <= set(value):
            raise ValueError("needs at least `title` and `url`")
        return value

    @field_validator("capabilities")
    @classmethod
    def _known_capabilities(cls, value: list[str]) -> list[str]:
        if unknown := sorted(set(value) - CAPABILITIES):
            raise ValueError(f"unknown capabilities {unknown}; known: {sorted(CAPABILITIES)}")
        return value

    @model_validator(mode="after")
    def _body_needs_post(self) -> AdapterSpec:
        if self.body is not None and self.method != "POST":
            raise ValueError("`body` is sent with method POST only")
        return self

    def call(self, kind: RequestKind) -> Call:
        """The request and response shape for one kind of request."""
        over = self.kinds.get(kind, KindOverride())
        return Call(
            path=over.path if over.path is not None else self.path,
            params=_merged(self.params, over.params),
            body=None if self.body is None else _merged(self.body, over.body),
            results=over.results or self.results,
            fields=self.fields | over.fields,
        )

    def templates(self) -> Iterator[Any]:
        """Every request template except the endpoint."""
        yield self.headers
        yield self.params
        yield self.body
        for over in self.kinds.values():
            yield over.params
            yield over.body

    def filters_domains(self) -> bool:
        return any("domains" in _placeholders(template) for template in self.templates())


@dataclass(frozen=True)
class Call:
    path: str
    params: dict[str, Any]
    body: dict[str, Any] | None
    results: str
    fields: dict[str, str]


def _merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A kind's values over the adapter's; a null one removes the parameter."""
    return {key: value for key, value in (base | override).items() if value is not None}


def _strings(template: Any) -> Iterator[str]:
    if isinstance(template, str):
        yield template
    elif isinstance(template, dict):
        for item in template.values():
            yield from _strings(item)
    elif isinstance(template, list):
        for item in template:
            yield from _strings(item)


def _placeholders(template: Any) -> set[str]:
    return {m["name"] for s in _strings(template) for m in _TOKEN.finditer(s) if m["name"]}


def env_refs(template: Any) -> Iterator[tuple[str, bool]]:
    """(variable, has a default) for every `${ENV}` in the template."""
    for text in _strings(template):
        for match in _TOKEN.finditer(text):
            if match["env"]:
                yield match["env"], match["default"] is not None


def render_template(template: Any, values: Mapping[str, Any], env: Mapping[str, str]) -> Any:
    """The template with placeholders filled; `_DROP` when a needed value is missing."""
    if isinstance(template, str):
        return render_text(template, values, env)
    if isinstance(template, dict):
        rendered = {key: render_template(item, values, env) for key, item in template.items()}
        return {key: item for key, item in rendered.items() if item is not _DROP}
    if isinstance(template, list):
        return [
            item
            for item in (render_template(t, values, env) for t in template)
            if item is not _DROP
        ]
    return template


def render_text(text: str, values: Mapping[str, Any], env: Mapping[str, str]) -> Any:
    whole = _TOKEN.fullmatch(text)
    if whole and whole["name"]:
        value = values[whole["name"]]
        return _DROP if value is None else value
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        if match["env"]:
            return env.get(match["env"]) or match["default"] or ""
        value = values[match["name"]]
        if value is None:
            missing = True
            return ""
        return ",".join(map(str, value)) if isinstance(value, list) else str(value)

    # One pass: text coming from a value (a query with "{x}" in it) is never expanded again.
    rendered = _TOKEN.sub(fill, text)
    return _DROP if missing else rendered


def load_adapter_specs(extra_dir: Path | None = None) -> dict[str, AdapterSpec]:
    """The shipped adapters, then extra_dir's; a file named like a shipped one replaces it."""
    if extra_dir is not None and not extra_dir.is_dir():
        raise ConfigError(
            f"grounding.adapters_dir {extra_dir} is not a folder; create it or fix the setting"
        )
    folders = [ADAPTERS_DIR] if extra_dir is None else [ADAPTERS_DIR, extra_dir]
    specs: dict[str, AdapterSpec] = {}
    for folder in folders:
        for path in sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml")):
            spec = read_adapter(path)
            specs[spec.name] = spec
    return specs


def read_adapter(path: Path) -> AdapterSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of adapter fields (name, endpoint, ...)")
    try:
        spec = AdapterSpec.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None
    if spec.name != path.stem:
        raise ConfigError(
            f"{path}: field `name`: {spec.name!r} differs from the file name; "
            f"name the file {spec.name}{path.suffix} or the adapter {path.stem!r}"
        )
    return spec


def _describe(exc: ValidationError, path: Path) -> str:
    lines = [f"{path}: invalid search adapter"]
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "(top level)"
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown field (check its spelling)"
        lines.append(f"  field `{field}`: {message}")
    return "\n".join(lines)
