"""The grounding package has no import cycle: imports point one way inside it.

Read from the source with `ast`, so an import inside a function (where the old cycles hid) or
under TYPE_CHECKING counts as much as one at the top of a module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import toolweave.grounding

GROUNDING = Path(toolweave.grounding.__file__).parent
PREFIX = "toolweave.grounding"


def module_name(path: Path) -> str:
    parts = path.relative_to(GROUNDING).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PREFIX, *parts))


def imported(node: ast.AST, module: str, is_package: bool, modules: set[str]) -> set[str]:
    """The grounding modules one import statement loads, its packages' __init__ included."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:  # relative: resolved against this module's package
            package = module.split(".")
            package = package[: len(package) - node.level + int(is_package)]
            base = ".".join(package + ([base] if base else []))
        # `from package import module` loads the module; `from module import name` the module.
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    else:
        return set()
    loaded = set()
    for name in names:
        parts = name.split(".")
        for end in range(len(parts), 0, -1):  # importing a.b.c runs a/__init__ and a/b/__init__
            prefix = ".".join(parts[:end])
            if prefix in modules and prefix != module:
                loaded.add(prefix)
    return loaded


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in GROUNDING.rglob("*.py")}
    modules = set(paths)
    graph = {}
    for module, path in paths.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = {
            target
            for node in ast.walk(tree)
            for target in imported(node, module, is_package, modules)
            # A module's own packages are loaded before it, whatever it imports.
            if not module.startswith(target + ".")
        }
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path of modules (first == last), or None."""
    state: dict[str, str] = {}  # "open" while on the current path, then "done"
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = "open"
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state and (cycle := visit(module)):
            return cycle
    return None


def test_the_graph_sees_the_subpackages_and_imports_inside_functions() -> None:
    graph = import_graph()
    assert {f"{PREFIX}.providers.http", f"{PREFIX}.cache.sqlite", f"{PREFIX}.gateway"} <= set(graph)
    # open_gateway imports the providers inside the function.
    assert f"{PREFIX}.providers.registry" in graph[f"{PREFIX}.gateway"]
    assert f"{PREFIX}.cache.base" in graph[f"{PREFIX}.cache.redis"]


def test_grounding_modules_import_each_other_one_way() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_find_cycle_reports_a_loop() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_shipped_adapters_are_package_data_next_to_their_loader() -> None:
    from toolweave.grounding.providers.adapters import ADAPTERS_DIR, load_adapter_specs

    assert ADAPTERS_DIR == GROUNDING / "providers" / "adapters"
    assert sorted(load_adapter_specs()) == sorted(p.stem for p in ADAPTERS_DIR.glob("*.yaml"))
    assert "brave" in load_adapter_specs()
