"""The gateway's search providers: everything that answers a `SearchRequest` with results.

    registry.py   http_providers: the enabled YAML adapters as providers, settings applied
    local.py      LocalProvider: BM25 + dense search over the user's documents (the default)
    http.py       HttpProvider: one HTTP search API, as its adapter describes it
    adapters.py   the adapter model (AdapterSpec), its templates, loading the YAML files
    adapters/     the shipped adapter files (package data)
    base.py       Provider, the protocol the gateway calls every provider through

Imports point down that list; this file imports nothing, so importing a submodule loads only
what that submodule needs.
"""
