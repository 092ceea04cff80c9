"""Models layer: the `LLM` and `Embedder` protocols and the backends chosen by settings.

Backends import their heavy libraries (onnxruntime, llama.cpp) only when first used.
"""

from __future__ import annotations

from toolweave.models.base import LLM, Completion, Embedder, Message, NoLLM, Usage
from toolweave.models.structured import complete_json
from toolweave.settings import EmbedderSettings, LLMSettings

__all__ = [
    "LLM",
    "Completion",
    "Embedder",
    "Message",
    "NoLLM",
    "Usage",
    "complete_json",
    "make_embedder",
    "make_llm",
]


def make_llm(settings: LLMSettings) -> LLM:
    if settings.backend == "none":
        return NoLLM()
    if settings.backend == "openai":
        from toolweave.models.openai_http import OpenAIChat, OpenAIHTTP

        http = OpenAIHTTP(
            settings.base_url,
            api_key_env=settings.api_key_env,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
        )
        return OpenAIChat(
            http,
            settings.model or "default",
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
        )
    from toolweave.models.llama_embedded import EmbeddedLLM, embedded_available

    if settings.backend == "auto" and not settings.model and (reason := embedded_available()):
        return NoLLM(f"no LLM: the embedded one is unavailable ({reason})")
    return EmbeddedLLM(
        settings.model,
        context_tokens=settings.context_tokens,
        threads=settings.threads,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
    )


def make_embedder(settings: EmbedderSettings) -> Embedder:
    if settings.backend == "openai":
        from toolweave.errors import EmbedderError
        from toolweave.models.openai_http import OpenAIEmbedder, OpenAIHTTP

        http = OpenAIHTTP(
            settings.base_url,
            api_key_env=settings.api_key_env,
            timeout_s=settings.timeout_s,
            error=EmbedderError,
        )
        return OpenAIEmbedder(http, settings.model, batch_size=settings.batch_size)
    from toolweave.models.onnx_embedder import OnnxEmbedder

    return OnnxEmbedder(batch_size=settings.batch_size, threads=settings.threads)
