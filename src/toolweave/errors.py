"""The one exception tree of toolweave.

    ToolweaveError
    ├── ConfigError            a settings file or variable is wrong (names file, field, expectation)
    ├── InputError             a question or argument the user gave cannot be used
    │   └── BadRequest         api.requests: an HTTP request body the API cannot use (400/422)
    ├── ModelError
    │   ├── ModelFileError     a bundled model file is missing or fails its sha256 check
    │   ├── EmbedderError      an embedding backend failed
    │   └── LLMError
    │       ├── LLMUnavailableError   no LLM is configured (backend "none")
    │       ├── LLMRequestError       the LLM could not be reached or kept failing
    │       └── StructuredOutputError output still invalid for its JSON schema after one repair
    ├── ServerError            an MCP server could not be started or reached
    ├── ProviderError          grounding.records: one search provider failed one request
    ├── IndexMismatchError     index.store: the tool index on disk must be rebuilt
    └── UnresolvedReference    planning.references: a step's argument names a missing result

Classes defined outside this module are prefixed with their module (under `toolweave.`);
tests/test_errors.py fails when a subclass of ToolweaveError is missing here.

A failing tool call is not an exception: it becomes an `Observation` with an error (data for the
next decision). Every message says what was wrong and what to do.
"""

from __future__ import annotations


class ToolweaveError(Exception):
    """Base of every error toolweave raises on purpose."""


class ConfigError(ToolweaveError):
    """Settings that cannot be used."""


class InputError(ToolweaveError):
    """User input that cannot be used."""


class ModelError(ToolweaveError):
    """A model backend failed."""


class ModelFileError(ModelError):
    """A bundled model file is missing or corrupt."""


class EmbedderError(ModelError):
    """An embedding backend failed."""


class LLMError(ModelError):
    """An LLM backend failed."""


class LLMUnavailableError(LLMError):
    """No LLM is configured."""


class LLMRequestError(LLMError):
    """The LLM endpoint could not be reached or kept returning errors."""


class StructuredOutputError(LLMError):
    """The LLM's output did not match the requested JSON schema, even after a repair attempt."""

    def __init__(self, message: str, *, output: str, problems: list[str]) -> None:
        super().__init__(message)
        self.output = output
        self.problems = problems


class ServerError(ToolweaveError):
    """An MCP server could not be started or reached."""
