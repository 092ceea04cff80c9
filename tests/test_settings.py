from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolweave.errors import ConfigError
from toolweave.settings import DEMO_DOCS, load_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_declare_the_builtin_servers_and_the_time_server() -> None:
    settings = load_settings(env={})
    assert settings.source is None
    servers = settings.servers()
    assert set(servers) == {"docs", "calc", "time"}
    assert servers["time"].args == ["-m", "mcp_server_time"]
    assert str(DEMO_DOCS) in servers["docs"].args
    assert settings.llm.backend == "auto"


def test_lookup_order_explicit_then_env_then_cwd_then_user_dir(tmp_path: Path) -> None:
    user = write(
        tmp_path / "xdg-config" / "toolweave" / "toolweave.toml", "[llm]\nmax_tokens = 11\n"
    )
    assert load_settings(env={}).source == user
    local = write(tmp_path / "toolweave.toml", "[llm]\nmax_tokens = 12\n")
    assert load_settings(env={}).llm.max_tokens == 12
    from_env = write(tmp_path / "env.toml", "[llm]\nmax_tokens = 13\n")
    assert load_settings(env={"TOOLWEAVE_CONFIG": str(from_env)}).llm.max_tokens == 13
    explicit = write(tmp_path / "explicit.toml", "[llm]\nmax_tokens = 14\n")
    settings = load_settings(explicit, env={"TOOLWEAVE_CONFIG": str(from_env)})
    assert (settings.llm.max_tokens, settings.source) == (14, explicit)
    assert local.exists()


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "t.toml", '[llm]\nbackend = "openai"\ntimeout_s = 5\n')
    settings = load_settings(
        path, env={"TOOLWEAVE_LLM__BACKEND": "none", "TOOLWEAVE_MCP__CALL_TIMEOUT_S": "2.5"}
    )
    assert settings.llm.backend == "none"
    assert settings.llm.timeout_s == 5
    assert settings.mcp.call_timeout_s == 2.5


def test_an_empty_environment_variable_is_no_setting(tmp_path: Path) -> None:
    path = write(tmp_path / "t.toml", '[llm]\nbackend = "openai"\n')
    settings = load_settings(path, env={"TOOLWEAVE_STATE_DIR": "", "TOOLWEAVE_LLM__BACKEND": " "})
    assert settings.state_dir is None and settings.llm.backend == "openai"


def test_mcp_servers_in_the_desktop_client_shape(tmp_path: Path) -> None:
    path = write(
        tmp_path / "t.toml",
        """
[mcpServers.git]
command = "uvx"
args = ["mcp-server-git", "--repository", "."]
env = { GIT_TRACE = "0" }

[mcpServers.remote]
url = "https://example.invalid/mcp"
headers = { Authorization = "Bearer x" }

[mcpServers.calc]
disabled = true
command = "unused"
""",
    )
    servers = load_settings(path, env={}).servers()
    assert set(servers) == {"docs", "time", "git", "remote"}
    assert servers["git"].transport == "stdio" and servers["git"].env == {"GIT_TRACE": "0"}
    assert servers["remote"].transport == "http"


def test_a_desktop_client_json_file_is_imported_as_is(tmp_path: Path) -> None:
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(
        json.dumps({"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}})
    )
    path = write(tmp_path / "t.toml", 'mcp_json = ["claude_desktop_config.json"]\n')
    assert load_settings(path, env={}).servers()["fetch"].args == ["mcp-server-fetch"]


def test_missing_config_file_names_the_path_and_its_origin(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nope\.toml \(from --config\) does not exist"):
        load_settings(tmp_path / "nope.toml", env={})
    with pytest.raises(ConfigError, match=r"from \$TOOLWEAVE_CONFIG"):
        load_settings(env={"TOOLWEAVE_CONFIG": str(tmp_path / "gone.toml")})


def test_invalid_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.toml", "[llm]\nbackend = \n")
    with pytest.raises(ConfigError, match=r"bad\.toml: invalid TOML: .*line 2"):
        load_settings(path, env={})


def test_unknown_field_names_file_and_field(tmp_path: Path) -> None:
    path = write(tmp_path / "t.toml", "[llm]\nbakend = 'none'\n")
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert str(path) in message and "`llm.bakend`" in message and "unknown field" in message


def test_wrong_value_says_what_is_expected(tmp_path: Path) -> None:
    path = write(tmp_path / "t.toml", "[llm]\nbackend = 'gpt'\ntimeout_s = -1\n")
    with pytest.raises(ConfigError) as info:
        load_settings(path, env={})
    message = str(info.value)
    assert "`llm.backend`" in message and "'auto', 'embedded', 'openai' or 'none'" in message
    assert "`llm.timeout_s`" in message and "greater than 0" in message


def test_server_needs_exactly_one_of_command_or_url(tmp_path: Path) -> None:
    path = write(tmp_path / "t.toml", "[mcpServers.broken]\nargs = ['x']\n")
    with pytest.raises(ConfigError, match=r"mcpServers\.broken.*exactly one of `command`"):
        load_settings(path, env={})


def test_unknown_environment_variable_is_named() -> None:
    with pytest.raises(ConfigError, match="TOOLWEAVE_LLM__BAKEND"):
        load_settings(env={"TOOLWEAVE_LLM__BAKEND": "none"})


def test_bad_mcp_json_names_the_json_file(tmp_path: Path) -> None:
    write(tmp_path / "desk.json", "{not json")
    path = write(tmp_path / "t.toml", 'mcp_json = ["desk.json"]\n')
    with pytest.raises(ConfigError, match=r"desk\.json \(listed in mcp_json\): invalid JSON"):
        load_settings(path, env={})


def test_relative_paths_are_relative_to_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "conf" / "t.toml", 'docs_dir = "notes"\n')
    assert load_settings(path, env={}).docs_dir == (tmp_path / "conf" / "notes").resolve()


def test_keys_other_desktop_clients_write_are_used_or_warned_about(tmp_path: Path) -> None:
    """Cline, Roo, Cursor and Claude Desktop configs pasted as they are (issue: one extra key
    used to reject the whole file)."""
    desk = {
        "mcpServers": {
            "files": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                "autoApprove": ["read_file"],
                "timeout": 60,
                "transportType": "stdio",
                "disabled": False,
            },
            "memory": {"command": "npx", "alwaysAllow": ["read_graph"], "iconColor": "red"},
            "off": {"command": "x", "disabled": True},
        }
    }
    (tmp_path / "cline.json").write_text(json.dumps(desk))
    settings = load_settings(write(tmp_path / "t.toml", 'mcp_json = ["cline.json"]\n'), env={})
    servers = settings.servers()
    assert "off" not in servers
    files, memory = servers["files"], servers["memory"]
    assert (files.auto_approve, files.timeout, files.type) == (["read_file"], 60, "stdio")
    assert memory.auto_approve == ["read_graph"]
    assert settings.warnings() == [
        "server 'memory': ignored the key(s) iconColor, which no MCP client is known to use"
    ]


def test_every_bad_server_of_a_json_file_is_reported_at_once(tmp_path: Path) -> None:
    desk = {"mcpServers": {"a": {"args": ["x"]}, "b": {"command": "x", "timeout": -1}}}
    (tmp_path / "desk.json").write_text(json.dumps(desk))
    path = write(tmp_path / "t.toml", 'mcp_json = ["desk.json"]\n')
    with pytest.raises(ConfigError) as raised:
        load_settings(path, env={})
    message = str(raised.value)
    assert "mcpServers.a" in message and "mcpServers.b.timeout" in message


def test_deeply_nested_or_random_config_files_are_config_errors(tmp_path: Path) -> None:
    import random

    (tmp_path / "deep.json").write_text("[" * 100_000)
    path = write(tmp_path / "t.toml", 'mcp_json = ["deep.json"]\n')
    with pytest.raises(ConfigError, match=r"deep\.json"):
        load_settings(path, env={})
    rng = random.Random(7)
    for n in range(30):
        junk = tmp_path / f"junk{n}.toml"
        junk.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))))
        try:
            load_settings(junk, env={})
        except ConfigError:
            continue  # a clear error; anything else fails the test
    (tmp_path / "nested.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000)
    with pytest.raises(ConfigError, match="nested"):
        load_settings(tmp_path / "nested.toml", env={})


def test_the_traces_section_bounds_the_store(tmp_path: Path) -> None:
    defaults = load_settings(env={}).traces
    assert defaults.enabled and defaults.max_result_chars == 20_000
    assert (defaults.max_age_days, defaults.max_mb) == (30, 200)
    path = write(tmp_path / "t.toml", "[traces]\nmax_result_chars = 500\nmax_age_days = 7\n")
    settings = load_settings(path, env={"TOOLWEAVE_TRACES__MAX_MB": "5.5"})
    assert (settings.traces.max_result_chars, settings.traces.max_age_days) == (500, 7)
    assert settings.traces.max_mb == 5.5
    with pytest.raises(ConfigError, match=r"field `traces.max_mb`"):
        load_settings(write(tmp_path / "bad.toml", "[traces]\nmax_mb = 0\n"), env={})


@pytest.mark.parametrize(
    ("text", "env"),
    [
        ("[traces]\nenabled = false\n", {}),
        ("[ask]\ntraces = false\n", {}),  # the former name still works
        ("", {"TOOLWEAVE_TRACES__ENABLED": "false"}),
        ("", {"TOOLWEAVE_ASK__TRACES": "false"}),
    ],
)
def test_traces_are_turned_off_by_either_name(
    tmp_path: Path, text: str, env: dict[str, str]
) -> None:
    settings = load_settings(write(tmp_path / "t.toml", text), env=env)
    assert settings.traces.enabled is False and settings.ask.traces is False
