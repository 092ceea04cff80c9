"""`http_providers`: the shipped and extra YAML adapters that the settings enable, each as an
`HttpProvider` with its `[grounding.providers.NAME]` overrides applied. It sits above both the
adapter loader (adapters.py) and the client (http.py), so neither has to import the other's user.
"""

from __future__ import annotations

from collections.abc import Mapping

from toolweave.errors import ConfigError
from toolweave.grounding.providers.adapters import load_adapter_specs
from toolweave.grounding.providers.http import HttpProvider
from toolweave.settings import GroundingSettings, ProviderSettings

# Providers configured under [grounding.providers] that are not YAML adapters.
NON_HTTP_PROVIDERS = frozenset({"local"})


def http_providers(
    settings: GroundingSettings, env: Mapping[str, str] | None = None
) -> dict[str, HttpProvider]:
    """The enabled adapters as providers, with `[grounding.providers.NAME]` overrides applied."""
    specs = load_adapter_specs(settings.adapters_dir)
    if unknown := sorted(set(settings.providers) - set(specs) - NON_HTTP_PROVIDERS):
        raise ConfigError(
            f"grounding.providers: no search adapter named {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(sorted(specs | dict.fromkeys(NON_HTTP_PROVIDERS)))} "
            "(add an adapter file to grounding.adapters_dir for another API)"
        )
    providers: dict[str, HttpProvider] = {}
    for name, spec in specs.items():
        override = settings.providers.get(name, ProviderSettings())
        if not override.enabled:
            continue
        providers[name] = HttpProvider(
            spec,
            env=env,
            endpoint=override.endpoint,
            timeout_s=override.timeout_s or spec.timeout_s or settings.timeout_s,
            cost_per_call=override.cost_per_call,
        )
    return providers
