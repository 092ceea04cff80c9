"""One settings object, read from `toolweave.toml` and `TOOLWEAVE_*` environment variables.

The file is looked up in this order: `--config PATH`, `$TOOLWEAVE_CONFIG`, `./toolweave.toml`,
then `toolweave.toml` in the user config directory; with none of them the defaults apply.
Environment variables override the file: `TOOLWEAVE_LLM__BACKEND=none` sets `llm.backend`.
MCP servers use the `mcpServers` shape desktop clients write, so an existing config can be pasted
(as TOML tables) or imported as it is (`mcp_json = ["claude_desktop_config.json"]`).
"""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from toolweave.errors import ConfigError
from toolweave.types import ServerSpec

CONFIG_FILENAME = "toolweave.toml"
ENV_PREFIX = "TOOLWEAVE_"
ENV_CONFIG = "TOOLWEAVE_CONFIG"
# The service's API keys (comma-separated): secrets, so never a setting `toolweave config` shows.
ENV_API_KEYS = "TOOLWEAVE_API_KEYS"
DEMO_DOCS = Path(__file__).parent / "data" / "demo_docs"
# (section, key) of the settings that are paths; "" is the top level, "a.b" a nested table.
PATH_SETTINGS = [
    ("", "docs_dir"),
    ("", "state_dir"),
    ("", "benchmarks_dir"),
    ("index", "path"),
    ("index", "logged_queries"),
    ("grounding", "corpus"),
    ("grounding", "adapters_dir"),
    ("grounding.cache", "path"),
    ("serve", "api_keys_file"),
]
WEB_PROVIDERS = ["tavily", "brave", "exa", "serper", "bing", "searxng"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LLMSettings(_Section):
    # auto: the embedded model when llama-cpp-python and its weights are installed, else none.
    backend: Literal["auto", "embedded", "openai", "none"] = "auto"
    # openai: the model name sent to the server; embedded: a GGUF path, a hub id
    # "org/repo:*.gguf", or the name of a model pulled into <state dir>/models with
    # `toolweave models pull` ("qwen2.5-coder-0.5b"); empty = the bundled SmolLM2.
    model: str = ""
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0)
    temperature: float = Field(0.0, ge=0)
    max_tokens: int = Field(256, gt=0)
    context_tokens: int = Field(2048, gt=0)
    threads: int | None = Field(None, gt=0)


class EmbedderSettings(_Section):
    backend: Literal["bundled", "openai"] = "bundled"
    model: str = "text-embedding-3-small"
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(30.0, gt=0)
    batch_size: int = Field(32, gt=0)
    threads: int | None = Field(None, gt=0)


class MCPSettings(_Section):
    start_timeout_s: float = Field(30.0, gt=0)
    call_timeout_s: float = Field(30.0, gt=0)
    # Reconnect a crashed or failed server, waiting 0.5 s, 1 s, 2 s ... up to max_backoff_s.
    reconnect: bool = True
    max_backoff_s: float = Field(30.0, gt=0)
    # Learn the names each server holds (tables, entities) from its argument-free listing tools
    # (list_*, read_*), a table's columns from a tool that describes one and the names in its
    # rows from a tool that runs a SELECT, when it starts and after a question changed it
    # (catalog/contents.py).
    sample_contents: bool = True


class IndexSettings(_Section):
    # The tool index of the configured servers; empty: <state dir>/index.
    path: Path | None = None
    # Exact search below this many segments, approximate (faiss IVF) above.
    ann_threshold: int = Field(100_000, gt=0)
    # Inverted lists scanned per query: 32 kept recall@10 within 1% of exact at 2M segments.
    nprobe: int = Field(32, gt=0)
    # Template example queries and key topics per tool: off, they did not earn their place in
    # the retrieval ablations (R@5 level or lower on every dev and test split).
    generated_queries: bool = False
    # Synthetic queries per tool from the LLM (TURA-style augmentation); 0 turns it off.
    llm_queries_per_tool: int = Field(0, ge=0, le=50)
    llm_temperature: float = Field(1.2, ge=0, le=2)
    # JSONL of {"tool": "server.tool", "query": "..."}: real questions that tool answered.
    logged_queries: Path | None = None
    # Learn from runs: a clause a tool answered well becomes its example query (index/learned.py).
    learn: bool = True


class AskSettings(_Section):
    max_question_chars: int = Field(8000, gt=0)
    # Below this cosine similarity no tool fits a clause and it goes to document search.
    min_tool_score: float = Field(0.28, ge=-1, le=1)
    # The documents a search step reads and lists: what one round of an iterative search
    # returns (grounding/search_loop.py), so that the answer reads what the search read.
    max_sources_per_step: int = Field(5, gt=0)
    # The tool ("server.tool") a clause falls back to when no tool fits it; "" for none.
    fallback_tool: str = "search.search"
    # deterministic: a step per clause; llm: TURA-style tasks with dependencies from the LLM
    # (falls back to deterministic when the LLM is unavailable or its plan stays invalid).
    planner: Literal["deterministic", "llm"] = "deterministic"
    # extractive: the short answer read from the documents and the sentences that lead to it, or
    # the tools' results; abstractive: the LLM chooses the short answer among the reader's (or
    # gives one found in the evidence), and writes tool answers from the numbered sources
    # (citations checked, unknown ones removed).
    answer: Literal["extractive", "abstractive"] = "extractive"
    # rules: the deterministic router; llm: the LLM chooses between answering directly, asking
    # back, running the plan and searching iteratively (the rules decide when it cannot).
    router: Literal["rules", "llm"] = "rules"
    # rules: a clause no tool fits by its description is searched; llm: the LLM may first pick
    # one of its candidates (planning/tool_pick.py).
    tool_pick: Literal["rules", "llm"] = "rules"
    # Rounds of planning search (search, read, search again) for a multi-hop question.
    search_rounds: int = Field(3, gt=0)
    # Budgets of one question; what does not fit is reported as not done (a partial answer).
    max_steps: int = Field(16, gt=0)
    max_tool_calls: int = Field(32, gt=0)
    max_llm_tokens: int = Field(20_000, gt=0)
    deadline_s: float = Field(120.0, gt=0)
    # The former name of traces.enabled, still read: either one set to false turns traces off.
    traces: bool = True


class TracesSettings(_Section):
    # Store every run (plan, tool calls, LLM prompts and responses) in <state dir>/traces.sqlite.
    enabled: bool = True
    # A tool result longer than this is stored as its head, its size and its sha256 (a 6.7 MB
    # file read made a 14 MB store); the answer itself keeps the whole result.
    max_result_chars: int = Field(20_000, gt=0)
    # After each stored run, traces older than this are deleted, then the oldest ones while the
    # store holds more than max_mb.
    max_age_days: float = Field(30.0, gt=0)
    max_mb: float = Field(200.0, gt=0)


class GraphSettings(_Section):
    # The tool graph beside the index (navigation/graph.py): data flow, stand-ins, tool health.
    learn: bool = True  # each run's outcomes change its weights
    plan: bool = True  # the planner takes links that worked over the schemas' guess
    recover: bool = True  # a failed read-only call is tried once more with a stand-in
    retrieve: bool = True  # a tool search ranks higher the tools runs used with its best ones
    # a step's last candidate is the best tool of its top 30 that no run has gone well with, so
    # traffic can teach a tool the ranking never offers (retrieval/retriever.py `explore`)
    explore: bool = True


class PolicySettings(_Section):
    # Tools that may change or delete data and run without asking: "server.tool" or "server.*"
    # (a server's own `autoApprove` list in mcpServers counts too). See execution/policy.py.
    auto_approve: list[str] = Field(default_factory=list)


class ServeSettings(_Section):
    """`toolweave serve`: the HTTP API and the MCP front (api/)."""

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    # API keys, one per line, besides $TOOLWEAVE_API_KEYS (comma-separated).
    api_keys_file: Path | None = None
    max_body_bytes: int = Field(1_000_000, gt=0)
    # Requests per minute and key (per client address without keys); 0: no limit.
    rate_per_minute: int = Field(120, ge=0)
    # A request still running after this is cancelled and answered 504.
    deadline_s: float = Field(120.0, gt=0)
    # Origins a browser may call the API from; empty: CORS off.
    cors_origins: list[str] = Field(default_factory=list)
    # On SIGTERM: how long running requests may take to finish before they are cancelled.
    grace_s: float = Field(10.0, ge=0)


class ProviderSettings(_Section):
    """Overrides of one provider's adapter (`[grounding.providers.NAME]`)."""

    enabled: bool = True
    # Another address for the same API: a self-hosted SearXNG, a proxy, a local test server.
    endpoint: str | None = None
    timeout_s: float | None = Field(None, gt=0)
    cost_per_call: float | None = Field(None, ge=0)


class CacheSettings(_Section):
    backend: Literal["sqlite", "redis", "none"] = "sqlite"
    # The SQLite file; empty: <state dir>/grounding/cache.sqlite.
    path: Path | None = None
    redis_url: str = "redis://127.0.0.1:6379/0"
    semantic: bool = True
    # Cosine similarity from which a cached query counts as the same question.
    semantic_threshold: float = Field(0.9, ge=0, le=1)
    # Time to live of recency-sensitive queries (news, "latest", "today") and of the rest.
    ttl_recent_s: int = Field(3600, gt=0)
    ttl_factoid_s: int = Field(7 * 86400, gt=0)


class GroundingSettings(_Section):
    # Providers tried in order per request class; unavailable ones (no key) are skipped.
    chains: dict[str, list[str]] = Field(
        default_factory=lambda: {
            "web": [*WEB_PROVIDERS, "local"],
            "news": [*WEB_PROVIDERS, "local"],
        }
    )
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    # More YAML adapters (a file named like a shipped one replaces it).
    adapters_dir: Path | None = None
    timeout_s: float = Field(8.0, gt=0)
    # After this many failures in a row a provider is skipped for cooldown_s, then tried once.
    breaker_failures: int = Field(3, gt=0)
    breaker_cooldown_s: float = Field(30.0, ge=0)
    # The local provider's corpus: a folder of documents or a JSONL file; empty: docs_dir.
    corpus: Path | None = None
    cache: CacheSettings = Field(default_factory=CacheSettings)


class Settings(_Section):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    llm: LLMSettings = Field(default_factory=LLMSettings)
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    mcp: MCPSettings = Field(default_factory=MCPSettings)
    ask: AskSettings = Field(default_factory=AskSettings)
    traces: TracesSettings = Field(default_factory=TracesSettings)
    policy: PolicySettings = Field(default_factory=PolicySettings)
    index: IndexSettings = Field(default_factory=IndexSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    grounding: GroundingSettings = Field(default_factory=GroundingSettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)
    docs_dir: Path = DEMO_DOCS
    state_dir: Path | None = None
    benchmarks_dir: Path = Path("../shared/benchmarks")
    mcp_json: list[Path] = Field(default_factory=list)
    mcp_servers: dict[str, ServerSpec] = Field(default_factory=dict, alias="mcpServers")
    # Where the settings came from (None: defaults only); not a setting itself.
    source: Path | None = Field(None, exclude=True)

    @model_validator(mode="after")
    def _traces_alias(self) -> Settings:
        """ask.traces is the former name of traces.enabled: either set to false wins."""
        self.traces.enabled = self.ask.traces = self.traces.enabled and self.ask.traces
        return self

    @model_validator(mode="after")
    def _pulled_model(self) -> Settings:
        """A bare llm.model name for the embedded backend names a model pulled into
        <state dir>/models: made a path here, where the state dir is known; the models layer
        maps it to that model's file, or says how to pull it."""
        model = self.llm.model
        bare = model and not any(c in model for c in "/\\:") and not model.endswith(".gguf")
        if self.llm.backend in ("auto", "embedded") and bare and not Path(model).is_file():
            self.llm.model = str(self.state_path() / "models" / model)
        return self

    def servers(self) -> dict[str, ServerSpec]:
        """The enabled servers: built-in defaults, then JSON imports, then the file's own."""
        return {name: spec for name, spec in self.all_servers().items() if not spec.disabled}

    def all_servers(self) -> dict[str, ServerSpec]:
        """Every configured server, disabled ones too."""
        merged = default_servers(self.docs_dir)
        for path in self.mcp_json:
            merged.update(_read_mcp_json(path))
        merged.update(self.mcp_servers)
        return merged

    def warnings(self) -> list[str]:
        """What the settings hold that toolweave ignores, for the user to hear about."""
        return [
            f"server {name!r}: ignored the key(s) {', '.join(spec.unknown_keys)}, which no MCP "
            "client is known to use"
            for name, spec in self.all_servers().items()
            if spec.unknown_keys
        ]

    def index_path(self) -> Path:
        return self.index.path or self.state_path() / "index"

    def zero_shot(self, **sections: Any) -> Settings:
        """A copy that learns nothing from its runs (an evaluation's), with `sections` replaced:
        each question measured as the first one would be."""
        index = self.index.model_copy(update={"learn": False})
        graph = self.graph.model_copy(update={"learn": False})
        return self.model_copy(update={"index": index, "graph": graph, **sections})

    def state_path(self) -> Path:
        if self.state_dir is not None:
            return self.state_dir
        import platformdirs

        return Path(platformdirs.user_state_dir("toolweave"))


def default_servers(docs_dir: Path) -> dict[str, ServerSpec]:
    """The built-in servers plus the official time server, run with this Python."""
    python = sys.executable
    return {
        "docs": ServerSpec(
            command=python, args=["-m", "toolweave.servers.docs", "--root", str(docs_dir)]
        ),
        "calc": ServerSpec(command=python, args=["-m", "toolweave.servers.calc"]),
        "time": ServerSpec(command=python, args=["-m", "mcp_server_time"]),
    }


def load_settings(path: str | Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Find, read, merge with the environment and validate the settings."""
    env = dict(os.environ) if env is None else env
    source = find_config(path, env)
    data = read_toml(source) if source else {}
    if source:
        _resolve_paths(data, source.parent)
    _apply_env(data, env)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, source)) from None
    settings.source = source
    for json_path in settings.mcp_json:
        _read_mcp_json(json_path)  # fail now, naming the file, not at first use
    return settings


def find_config(path: str | Path | None, env: dict[str, str]) -> Path | None:
    if path is not None:
        return _must_exist(Path(path), "--config")
    if env.get(ENV_CONFIG):
        return _must_exist(Path(env[ENV_CONFIG]), f"${ENV_CONFIG}")
    local = Path.cwd() / CONFIG_FILENAME
    if local.is_file():
        return local
    import platformdirs

    user = Path(platformdirs.user_config_dir("toolweave")) / CONFIG_FILENAME
    return user if user.is_file() else None


def _must_exist(path: Path, origin: str) -> Path:
    path = path.expanduser()
    if not path.is_file():
        raise ConfigError(
            f"config file {path} (from {origin}) does not exist; "
            f"create it or point {origin} at an existing {CONFIG_FILENAME}"
        )
    return path


def read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read: {exc}") from None


def _read_mcp_json(path: Path) -> dict[str, ServerSpec]:
    path = path.expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} (listed in mcp_json): cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path} (listed in mcp_json): invalid JSON: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path} (listed in mcp_json): JSON nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers"), dict):
        raise ConfigError(f'{path}: expected a JSON object with an "mcpServers" object')
    servers: dict[str, ServerSpec] = {}
    problems: list[str] = []  # every bad server of the file, not just the first
    for name, entry in data["mcpServers"].items():
        try:
            servers[name] = ServerSpec.model_validate(entry)
        except ValidationError as exc:
            problems += _describe(exc, path, prefix=f"mcpServers.{name}").splitlines()[1:]
    if problems:
        raise ConfigError("\n".join([f"{path}: invalid settings", *problems]))
    return servers


def _resolve_paths(data: dict[str, Any], base: Path) -> None:
    """Relative paths in a file are relative to that file, not to the working directory."""
    for section, key in PATH_SETTINGS:
        table: Any = data
        for part in section.split(".") if section else []:
            table = table.get(part, {}) if isinstance(table, dict) else {}
        if isinstance(table, dict) and isinstance(table.get(key), str):
            table[key] = str((base / Path(table[key]).expanduser()).resolve())
    if isinstance(data.get("mcp_json"), list):
        data["mcp_json"] = [
            str(base / Path(p).expanduser()) if isinstance(p, str) else p for p in data["mcp_json"]
        ]


def _apply_env(data: dict[str, Any], env: dict[str, str]) -> None:
    """`TOOLWEAVE_SECTION__FIELD=value` overrides `section.field` (`__` separates levels). An
    empty variable is no setting: `TOOLWEAVE_STATE_DIR=` keeps the default state folder, not the
    current one."""
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or name in (ENV_CONFIG, ENV_API_KEYS):
            continue
        if not raw.strip():
            continue
        path = name[len(ENV_PREFIX) :].lower().split("__")
        model: type[BaseModel] | None = Settings
        target = data
        for depth, part in enumerate(path):
            if model is None or part not in model.model_fields or part in ("source", "mcp_servers"):
                raise ConfigError(
                    f"environment variable {name}: `{'.'.join(path[: depth + 1])}` is not a "
                    "setting; see `toolweave config` for the settings and their values"
                )
            if depth == len(path) - 1:
                target[part] = _parse_env_value(raw)
                break
            annotation = model.model_fields[part].annotation
            model = (
                annotation
                if isinstance(annotation, type) and issubclass(annotation, BaseModel)
                else None
            )
            target = target.setdefault(part, {})


def _parse_env_value(raw: str) -> Any:
    """JSON lists and objects are parsed; everything else stays text for pydantic to convert."""
    if raw.strip().startswith(("[", "{")):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _describe(exc: ValidationError, source: Path | None, prefix: str = "") -> str:
    where = str(source) if source else "settings (defaults and environment)"
    lines = [f"{where}: invalid settings"]
    for error in exc.errors():
        loc = ".".join(str(part) for part in error["loc"])
        field = f"{prefix}.{loc}" if prefix and loc else (prefix or loc or "(top level)")
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown field (check its spelling and section)"
        got = "" if error["type"] in ("missing", "extra_forbidden") else f"; got {error['input']!r}"
        lines.append(f"  field `{field}`: {message}{got}")
    return "\n".join(lines)
