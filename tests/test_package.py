"""The public surface is pinned, and imports point one way (STYLE.md habits 1 and 2)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import toolweave

PACKAGE = Path(toolweave.__file__).parent
# Lower layers never import higher ones; equal ranks may import each other. `language` depends
# on nothing but the data model, so it sits low enough for the catalogue's documents to use it.
LAYERS = {
    "errors": 0, "types": 0, "settings": 1, "secrets": 1, "storage": 1, "models": 2, "prompts": 3,
    "language": 3, "catalog": 4, "servers": 4, "index": 5, "navigation": 5, "retrieval": 6,
    "planning": 7, "execution": 8, "grounding": 9, "answer": 10, "traces": 10, "engine": 11,
    "evals": 12, "api": 12, "cli": 13, "__init__": 13, "__main__": 13,
}  # fmt: skip


def test_exported_names_are_pinned() -> None:
    assert sorted(toolweave.__all__) == [
        "Answer", "AskOptions", "ConfigError", "Engine", "InputError", "LLMError", "ModelError",
        "Observation", "Plan", "ServerError", "ServerSpec", "Settings", "Source", "Step",
        "StructuredOutputError", "ToolSpec", "ToolweaveError", "__version__", "ask",
        "load_settings",
    ]  # fmt: skip
    assert callable(toolweave.ask) and callable(toolweave.Engine.open)


def layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def imported(tree: ast.AST) -> list[str]:
    """The toolweave modules a module imports, by `from ... import` and plain `import` alike."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name.removeprefix("toolweave.") for name in found if name.startswith("toolweave.")]


def test_imports_point_one_way() -> None:
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        for target in imported(ast.parse(path.read_text())):
            if layer(target) > layer(module):
                wrong.append(f"{module} imports {target}")
    assert wrong == []


def test_the_layer_check_sees_plain_imports_too() -> None:
    tree = ast.parse("import toolweave.engine\nfrom toolweave.cli import app")
    assert [layer(name) for name in imported(tree)] == [LAYERS["engine"], LAYERS["cli"]]


def test_builtin_servers_depend_on_nothing_but_themselves() -> None:
    for path in (PACKAGE / "servers").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("toolweave."):
                assert node.module.startswith("toolweave.servers"), f"{path.name}: {node.module}"


def test_importing_toolweave_loads_no_heavy_library() -> None:
    heavy = ("mcp", "onnxruntime", "llama_cpp", "numpy", "httpx2")
    code = f"import sys, toolweave; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"
