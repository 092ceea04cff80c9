"""The shared data model: what flows between the pipeline stages.

question -> QuestionAnalysis(Clause[] with Values) -> Candidate[] -> Plan(Step[])
         -> Observation[] -> Answer(Source[])
"""

from __future__ import annotations

import ast
import json
from contextlib import suppress
from datetime import date
from enum import StrEnum
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ServerSpec(_Model):
    """One entry of the ecosystem's standard `mcpServers` map (as desktop clients write it).

    A stdio server has `command` (+ `args`, `env`, `cwd`); a remote server has `url` (+ `headers`).
    Keys other clients write are accepted: `disabled`, `autoApprove` / `alwaysAllow` (tools that
    may run without asking), `timeout` (seconds a call may take), `type` / `transportType`. A key
    no client is known to write is kept aside in `unknown_keys`, for a warning, not an error.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # Clients write either spelling; both switch a server off without deleting it.
    disabled: bool = False
    # Some desktop configs carry a transport hint; the shape (command vs url) decides anyway.
    type: Literal["stdio", "http", "streamable-http", "streamableHttp", "sse"] | None = Field(
        None, validation_alias=AliasChoices("type", "transportType")
    )
    # Tools of this server that may run without asking ("server.tool" names without the server).
    auto_approve: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("autoApprove", "alwaysAllow")
    )
    # Seconds one call may take (a desktop client's per-server timeout); default mcp.call_timeout_s.
    timeout: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _command_or_url(self) -> ServerSpec:
        if bool(self.command) == bool(self.url):
            raise ValueError(
                "give exactly one of `command` (a stdio server) or `url` (a remote one)"
            )
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command else "http"

    @property
    def unknown_keys(self) -> list[str]:
        return sorted(self.model_extra or {})


class ToolHints(_Model):
    """MCP tool annotations (hints only, never trusted for safety decisions)."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


class ToolSpec(_Model):
    """A tool as a server lists it."""

    server: str
    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    hints: ToolHints = Field(default_factory=ToolHints)

    @property
    def key(self) -> str:
        return f"{self.server}.{self.name}"


SegmentKind = Literal["name", "description", "arguments", "query", "topics", "server"]
SegmentOrigin = Literal["spec", "generated", "llm", "logged"]


class Segment(_Model):
    """One searchable piece of a tool or server document; each is its own vector (MaxSim)."""

    text: str
    kind: SegmentKind
    # spec: written by the tool's author; generated: deterministic augmentation; llm: an LLM's
    # synthetic query; logged: a real question whose call of this tool succeeded.
    origin: SegmentOrigin


class ToolDoc(_Model):
    """A tool's enhanced document (Toolshed's five components), as segments."""

    tool: ToolSpec
    segments: list[Segment]

    @property
    def text(self) -> str:
        """The whole document as one text (for lexical search)."""
        return "\n".join(s.text for s in self.segments)


class ServerInfo(_Model):
    """What is known about a server besides its tools (TURA's server document)."""

    name: str
    description: str = ""


class IndexHit(_Model):
    """A tool (or server) found in the index, with its best segment (MaxSim)."""

    key: str  # "server.tool", or the server's name for server-level search
    server: str
    score: float
    segment: str = ""
    origin: str = ""


class Span(_Model):
    """Where a value stands in the text it was read from (character offsets, end exclusive)."""

    start: int
    end: int


class Number(Span):
    value: float
    percent: bool = False
    in_date: bool = False  # a day or a year of a date the text gives ("March 3, 2027")


class Quoted(Span):
    value: str


class Locator(Span):
    """A value that must be copied as written: a URL, a file path or name, an email address."""

    kind: str  # "url", "path" or "email"
    value: str  # as written
    quoted: bool = False  # written in quotes (so also one of the quoted values)
    folder: str = ""  # the folder a file name is said to be in ("notes.txt in /srv")

    @property
    def joined(self) -> str:
        """The path with its folder, where the text gives one apart."""
        return f"{self.folder.rstrip('/')}/{self.value}" if self.folder else self.value


class DateValue(Span):
    # YYYY-MM-DD, relative words resolved against the day of the analysis; a date written with
    # slashes as written ("01/02/2025": which number is the month, only its writer knows)
    iso: str


class ClockTime(Span):
    hhmm: str  # 24-hour HH:MM


class ZoneMention(Span):
    zone: str  # IANA name of the place or zone named


class Place(Span):
    name: str
    preposition: str = ""  # "from", "to", "in"...; "" for a city found by name alone


class Conversion(_Model):
    value: float
    source: str
    target: str


class Values(_Model):
    """The specific values a piece of text gives, each found once (language/values.py)."""

    numbers: list[Number] = Field(default_factory=list)  # quoted strings' digits left out
    quoted: list[Quoted] = Field(default_factory=list)
    # Unquoted text to pass on ("write the text hello to a.txt"), for a content parameter.
    said: list[Quoted] = Field(default_factory=list)
    locators: list[Locator] = Field(default_factory=list)  # in order of mention
    dates: list[DateValue] = Field(default_factory=list)
    times: list[ClockTime] = Field(default_factory=list)
    zones: list[ZoneMention] = Field(default_factory=list)
    places: list[Place] = Field(default_factory=list)
    # The places when the text lists them as alternatives ("Paris, Rome and Oslo"), else [].
    listed_places: list[str] = Field(default_factory=list)
    conversions: list[Conversion] = Field(default_factory=list)
    expression: str | None = None  # the longest arithmetic expression ("15% of 2,340")

    @property
    def count(self) -> int:
        """How many specific values the text gives (numbers, quotes, dates, times, places)."""
        return len(self.counted())

    def counted(self) -> list[Span]:
        """The values `count` counts."""
        found = (self.numbers, self.quoted, self.dates, self.times, self.zones)
        return [x for group in found for x in group] + [x for x in self.locators if not x.quoted]


class Clause(_Model):
    """One atomic intent of the question, with the values it gives (None: not analysed)."""

    index: int
    text: str
    values: Values | None = None
    # What connected servers hold that the clause names ("the orders table", "order 4"), where
    # it names it, with the name as held (catalog/contents.py; language.records.held_in).
    held: list[Quoted] = Field(default_factory=list)
    # Its words that what connected servers hold says ("peanuts" of "Who is allergic to
    # peanuts?", a graph holding "allergic to peanuts"; language.records.said_in).
    about: list[Quoted] = Field(default_factory=list)
    # The fields of what it names that servers hold, by name ("users": id, name, email, city).
    fields: dict[str, list[str]] = Field(default_factory=dict)
    # Those of the fields that hold numbers ("orders": amount): what a total is of.
    numeric: dict[str, list[str]] = Field(default_factory=dict)


class QuestionAnalysis(_Model):
    """A question analysed once (language.analyse): its clauses, and the values of the whole
    question (a value one clause names may serve another), read by every later stage."""

    question: str
    today: date  # the day relative dates were resolved against
    clauses: list[Clause]
    values: Values
    multi_hop: bool = False  # a fact found through another one, or two compared
    small_talk: bool = False
    # Clauses left out: they ask to follow instructions a file, page or result holds.
    declined: list[str] = Field(default_factory=list)
    # A word that points at someone or something the question never names ("he", "that").
    unresolved: str = ""


class Candidate(_Model):
    """A tool proposed for a sub-query, with its retrieval score and the text that matched."""

    tool: ToolSpec
    score: float
    matched: str = ""
    holds: bool = False  # its server holds something the clause names (catalog/contents.py)
    outside: bool = False  # the clause's paths are outside the folders its server may reach
    inside: bool = False  # the clause's paths are all inside the folders its server may reach
    lacks: bool = False  # its server's sampled names lack the first name the clause gives


class ProblemKind(StrEnum):
    NO_TOOL = "no_tool"  # no connected tool fits the clause
    NOT_CONNECTED = "not_connected"  # the step's tool or server is not connected
    ARGUMENTS = "arguments"  # the arguments do not fit the tool's schema
    UNGROUNDED = "ungrounded"  # a tool that changes things lacks a value only the user can give
    WAITING = "waiting"  # a change held back until a value another change lacks is given
    PLAN = "plan"  # the plan is defective here (unknown reference, cycle)


class Route(StrEnum):
    """How much effort a question gets (planning/router.py)."""

    DIRECT = "direct"  # small talk: no tool, no search
    CLARIFY = "clarify"  # ask the user for what only they can say
    SINGLE = "single"  # one step
    PARALLEL = "parallel"  # several independent steps, run together
    ITERATIVE = "iterative"  # multi-hop search: search, read, search again
    PLANNING = "planning"  # steps that feed each other


class Problem(_Model):
    """Why a step cannot be called; it is then not called."""

    kind: ProblemKind
    text: str

    def __str__(self) -> str:
        return self.text


class Step(_Model):
    """One tool call the plan makes, with where each argument came from."""

    id: str
    # Traces written before 0.2 call it "clause".
    clause: Clause = Field(validation_alias=AliasChoices("clause", "clause"))
    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    argument_origins: dict[str, str] = Field(default_factory=dict)
    # Where the clause gives each argument it was extracted from (offsets in `clause.text`).
    argument_spans: dict[str, Span] = Field(default_factory=dict)
    depends_on: list[str] = Field(default_factory=list)
    candidates: list[Candidate] = Field(default_factory=list)
    # The step of the change asked for that this one is part of ("commit app.py" stages it
    # first): asked for with it, though the clause does not say what this tool does.
    part_of: str = ""
    # Set when the step cannot be called (no tool, arguments that do not fit, a plan defect).
    problem: Problem | None = None

    @property
    def key(self) -> str:
        """'server.tool' of the tool the step is bound to."""
        return f"{self.server}.{self.tool}"

    @field_validator("problem", mode="before")
    @classmethod
    def _legacy_problem(cls, value: Any) -> Any:
        """Traces written before 0.2 hold a problem as its text."""
        return {"kind": ProblemKind.PLAN, "text": value} if isinstance(value, str) else value


def call_text(key: str, arguments: dict[str, Any]) -> str:
    """'calc.percentage(percent=15, value=2340)': a call as the user reads it."""
    values = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in arguments.items())
    return f"{key}({values})"


class Plan(_Model):
    steps: list[Step] = Field(default_factory=list)


# A text result longer than this is not read as data (Python literals are costly to parse).
MAX_DATA_CHARS = 1_000_000


class Observation(_Model):
    """The outcome of one tool call. A failed call is data, not an exception."""

    step_id: str
    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    text: str = ""
    structured: Any = None
    error: str | None = None
    latency_ms: float = 0.0
    # The tool was called (a refusal, a step that could not be prepared, a dry run: not).
    called: bool = False

    @property
    def key(self) -> str:
        """'server.tool' of the tool that was called."""
        return f"{self.server}.{self.tool}"

    @property
    def data(self) -> Any:
        """The structured result, else the text read as data when it is a JSON (or Python
        literal) object or list, as many servers send their results; else the text."""
        if self.structured is not None:
            return self.structured
        text = self.text.strip()
        if text.startswith(("{", "[")) and len(text) <= MAX_DATA_CHARS:
            for read in (json.loads, ast.literal_eval):
                with suppress(ValueError, SyntaxError, RecursionError, MemoryError):
                    return read(text)
        return self.text

    @classmethod
    def of(cls, step: Step, *, error: str | None = None, **fields: Any) -> Observation:
        """The observation of `step`: failed when `error` is given."""
        return cls(
            step_id=step.id,
            server=step.server,
            tool=step.tool,
            arguments=step.arguments,
            ok=error is None,
            error=error,
            **fields,
        )


class Source(_Model):
    """A numbered piece of evidence the answer cites as [id]."""

    id: int
    kind: Literal["tool", "document"]
    title: str
    uri: str = ""
    snippet: str = ""


class ServerStatus(_Model):
    name: str
    # idle: configured, not started (servers start when a question needs them)
    state: Literal["idle", "starting", "ready", "failed", "reconnecting"]
    tools: int = 0
    error: str | None = None


class Answer(_Model):
    """What `toolweave ask` returns."""

    @field_validator("route", mode="before")
    @classmethod
    def _no_route(cls, value: Any) -> Any:
        return value or None  # traces written before 0.2 say "" for none

    question: str
    text: str
    # The answer in a few words ("Rensselaer County"), when one was found; `text` begins with it.
    short: str = ""
    # The router's decision (planning.router.Route: direct, clarify (`text` is then the
    # question back), single, parallel, iterative or planning; "" before routing), and why.
    route: Route | None = None
    why: str = ""
    sources: list[Source] = Field(default_factory=list)
    plan: Plan = Field(default_factory=Plan)
    observations: list[Observation] = Field(default_factory=list)
    servers: list[ServerStatus] = Field(default_factory=list)
    llm: str = "none"
    llm_calls: int = 0
    timings_ms: dict[str, float] = Field(default_factory=dict)
    # How the run went where it deviated: plan repairs, removed citations, fallbacks.
    notes: list[str] = Field(default_factory=list)
    # The answer as a JSON value, when a JSON schema was asked for.
    data: Any = None
    # The run's id in the trace store (`toolweave trace show ID`); "" when it was not stored.
    trace_id: str = ""
