"""The secrets of the configuration, masked wherever text leaves the process.

Secrets are the values of the configured servers' `env` and `headers` (with the credentials of
a header like `Bearer <token>` on their own), the API keys of the LLM and the embedder (read
from the variables their `api_key_env` names) and the keys of `toolweave serve`. Their values
are replaced by a mask in server errors, stored traces, API responses and `toolweave config`;
text shorter than `MIN_SECRET_CHARS` is left alone (masking every "1" or "true" would garble
everything and protect nothing).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from toolweave.errors import ConfigError
from toolweave.settings import ENV_API_KEYS, Settings
from toolweave.types import ServerSpec

MIN_SECRET_CHARS = 6
# Enough of a long key to tell which kind it is ("sk-", "ghp", "Bea"rer), not to guess it.
SHOWN_CHARS = 3
SHOWN_FROM_CHARS = 20


def mask(value: str) -> str:
    """`value` as it may be shown: its kind and length, never its content."""
    shown = value[:SHOWN_CHARS] if len(value) >= SHOWN_FROM_CHARS else ""
    return f"{shown}…(masked, {len(value)} chars)" if shown else "****"


def mask_secrets(text: str, secrets: Iterable[str]) -> str:
    """`text` with each secret (of `MIN_SECRET_CHARS` or more) replaced by its mask."""
    return _mask(text, _longest_first(secrets))


def mask_data(value: Any, secrets: Iterable[str]) -> Any:
    """JSON-like data with the secrets masked in every string, keys too. Masking the data, not
    its JSON text, keeps it valid JSON: a secret of digits leaves the numbers alone."""
    ordered = _longest_first(secrets)
    return _mask_data(value, ordered) if ordered else value


def masked_server(spec: ServerSpec) -> dict[str, Any]:
    """The server's settings as `toolweave config` shows them: every env and header value
    masked, whatever its length."""
    shown = spec.model_dump(exclude_defaults=True)
    for table in ("env", "headers"):
        if table in shown:
            shown[table] = {key: mask(value) for key, value in shown[table].items()}
    return shown


def server_secrets(specs: Iterable[ServerSpec]) -> list[str]:
    """The values of these servers' `env` and `headers`."""
    found: list[str] = []
    for spec in specs:
        found += spec.env.values()
        for value in spec.headers.values():
            # "Bearer <token>": the token may be quoted on its own (an error echoing it).
            found += [value, value.split(" ", 1)[-1].strip()]
    return _usable(found)


def api_keys(settings: Settings, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The LLM's and the embedder's API keys that are set, by the variable holding each."""
    env = os.environ if env is None else env
    names = (settings.llm.api_key_env, settings.embedder.api_key_env)
    return {name: env[name] for name in names if env.get(name)}


def service_keys(
    settings: Settings, env: Mapping[str, str] | None = None, *, strict: bool = True
) -> list[str]:
    """The keys `toolweave serve` accepts: $TOOLWEAVE_API_KEYS (comma-separated) and the lines
    of serve.api_keys_file. An unreadable file is a ConfigError, or skipped unless `strict`."""
    env = os.environ if env is None else env
    keys = env.get(ENV_API_KEYS, "").split(",")
    path = settings.serve.api_keys_file
    if path is not None:
        try:
            keys += path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            if strict:
                raise ConfigError(f"serve.api_keys_file {path}: cannot read it ({exc})") from None
    return sorted({key.strip() for key in keys if key.strip()})


def configured_secrets(settings: Settings, env: Mapping[str, str] | None = None) -> list[str]:
    """Every secret of these settings: of the servers (disabled ones too), the LLM's and the
    embedder's API keys and the service's keys."""
    specs = settings.all_servers().values()
    keys = [*api_keys(settings, env).values(), *service_keys(settings, env, strict=False)]
    return _usable([*server_secrets(specs), *keys])


def _usable(values: Iterable[str]) -> list[str]:
    return sorted({v for v in values if len(v) >= MIN_SECRET_CHARS})


def _longest_first(secrets: Iterable[str]) -> list[str]:
    """A secret that contains another is masked whole."""
    return sorted(_usable(secrets), key=len, reverse=True)


def _mask(text: str, ordered: list[str]) -> str:
    for secret in ordered:
        if secret in text:
            text = text.replace(secret, mask(secret))
    return text


def _mask_data(value: Any, ordered: list[str]) -> Any:
    if isinstance(value, str):
        return _mask(value, ordered)
    if isinstance(value, dict):
        return {_mask(str(k), ordered): _mask_data(v, ordered) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_data(item, ordered) for item in value]
    return value
