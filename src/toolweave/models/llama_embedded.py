"""The embedded LLM: llama.cpp in-process (llama-cpp-python), by default the bundled SmolLM2-135M;
`llm.model` may name a pulled model (`toolweave models pull`), a GGUF file or a hub id instead.

A JSON schema becomes a llama.cpp grammar, so structured output is constrained while it is
sampled, not only validated afterwards. llama.cpp is not thread-safe: one call at a time.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from toolweave.errors import LLMError, ModelFileError
from toolweave.models.base import Completion, Message, Usage
from toolweave.models.bundled import SMOLLM2_GGUF, SPLIT_MODELS, locate, pulled

GRAMMARS = 64  # compiled grammars kept for reuse


def embedded_available() -> str | None:
    """None when the embedded backend can run, else the reason it cannot."""
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'toolweave[embedded]')"
    try:
        locate(SMOLLM2_GGUF)
    except ModelFileError as exc:
        return str(exc)
    return None


class EmbeddedLLM:
    def __init__(
        self,
        model_path: str = "",
        *,
        context_tokens: int = 2048,
        threads: int | None = None,
        temperature: float = 0.0,
        max_tokens: int = 256,
    ) -> None:
        self.model_path = model_path
        self.name = f"embedded:{Path(model_path).name if model_path else 'SmolLM2-135M-Instruct'}"
        self.context_tokens = context_tokens
        self.threads = threads
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.usage = Usage()
        self._llama: Any = None
        self._lock = threading.Lock()
        self._grammars: OrderedDict[str, Any] = OrderedDict()  # the newest GRAMMARS

    def _model(self) -> Any:
        if self._llama is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise LLMError(
                    "the embedded LLM needs llama-cpp-python: pip install 'toolweave[embedded]', "
                    'or set llm.backend = "none" or "openai"'
                ) from None
            options: dict[str, Any] = {
                "n_ctx": self.context_tokens,
                "n_threads": self.threads,
                "verbose": False,
            }
            model = _model_file(self.model_path)
            if Path(model).expanduser().is_file():
                self._llama = Llama(model_path=str(Path(model).expanduser()), **options)
            else:
                self._llama = _from_hub(Llama, model, options)
        return self._llama

    def _grammar(self, schema: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar

        key = json.dumps(schema, sort_keys=True)
        if key in self._grammars:
            self._grammars.move_to_end(key)
        else:
            if len(self._grammars) >= GRAMMARS:  # schemas narrowed to a request's phrases
                self._grammars.popitem(last=False)
            try:
                # In the schema's own property order: the grammar makes the model write the
                # fields in that order, and "id" before "arguments" reads better than sorted.
                self._grammars[key] = LlamaGrammar.from_json_schema(
                    json.dumps(schema), verbose=False
                )
            except Exception:  # schema features llama.cpp cannot compile: plain JSON then
                self._grammars[key] = LlamaGrammar.from_string(_JSON_GRAMMAR, verbose=False)
        return self._grammars[key]

    def _kwargs(self, max_tokens: int | None, temperature: float | None) -> dict[str, Any]:
        return {
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": self.temperature if temperature is None else temperature,
        }

    def _complete_sync(
        self, messages: list[Message], schema: dict[str, Any] | None, kwargs: dict[str, Any]
    ) -> Completion:
        with self._lock:
            llama = self._model()
            if schema is not None:
                kwargs["grammar"] = self._grammar(schema)
            try:
                out = llama.create_chat_completion(messages=messages, **kwargs)
            except ValueError as exc:  # e.g. the prompt exceeds the context window
                raise LLMError(f"the embedded LLM rejected the request: {exc}") from None
        usage = Usage(
            prompt_tokens=out["usage"]["prompt_tokens"],
            completion_tokens=out["usage"]["completion_tokens"],
            requests=1,
        )
        self.usage.add(usage)
        return Completion(
            text=out["choices"][0]["message"]["content"] or "", model=self.name, usage=usage
        )

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        kwargs = self._kwargs(max_tokens, temperature)
        return await asyncio.to_thread(self._complete_sync, list(messages), schema, kwargs)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[str]:
        """Tokens as llama.cpp samples them, handed from its worker thread to the event loop."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[str | BaseException | None] = asyncio.Queue()
        kwargs = self._kwargs(max_tokens, temperature)

        def produce() -> None:
            try:
                with self._lock:
                    chunks = self._model().create_chat_completion(
                        messages=list(messages), stream=True, **kwargs
                    )
                    for chunk in chunks:
                        piece = chunk["choices"][0].get("delta", {}).get("content")
                        if piece:
                            loop.call_soon_threadsafe(queue.put_nowait, piece)
                self.usage.add(Usage(requests=1))
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except BaseException as exc:  # handed to the consumer, raised there
                loop.call_soon_threadsafe(queue.put_nowait, exc)

        worker = asyncio.create_task(asyncio.to_thread(produce))
        while (item := await queue.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
        await worker


def _model_file(model: str) -> str:
    """The GGUF to load. Settings turn a pulled model's name (`llm.model = "qwen2.5-coder-0.5b"`)
    into <state dir>/models/<name>, which is mapped here to that model's checked file."""
    if not model:
        return str(locate(SMOLLM2_GGUF))
    path = Path(model).expanduser()
    if path.name in SPLIT_MODELS and not path.is_file():
        return str(pulled(SPLIT_MODELS[path.name], path.parent))
    return model


def _from_hub(llama: Any, model: str, options: dict[str, Any]) -> Any:
    """`llm.model = "org/repo:file-glob"`: a GGUF from the Hugging Face hub (cached locally)."""
    repo, _, pattern = model.partition(":")
    if repo.count("/") != 1 or repo.startswith((".", "/", "~")):
        raise ModelFileError(
            f"llm.model = {model!r} is neither a GGUF file nor a hub id like "
            "'org/repo:*Q4_K_M.gguf' (nor a model `toolweave models list` shows)"
        )
    try:
        return llama.from_pretrained(repo_id=repo, filename=pattern or "*.gguf", **options)
    except ImportError:
        raise ModelFileError(
            f"llm.model = {model!r} is a hub id: downloading it needs huggingface-hub "
            "(pip install huggingface-hub), or give the path of a local GGUF file"
        ) from None
    except Exception as exc:
        raise ModelFileError(f"llm.model = {model!r}: cannot load it from the hub: {exc}") from None


# Any JSON value (llama.cpp's json.gbnf), for schemas its converter does not support.
_JSON_GRAMMAR = r"""
root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws
object ::= "{" ws ( string ":" ws value ("," ws string ":" ws value)* )? "}" ws
array  ::= "[" ws ( value ("," ws value)* )? "]" ws
string ::= "\"" ( [^"\\\x7F\x00-\x1F] | "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4}) )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws     ::= | " " | "\n" [ \t]{0,20}
"""
