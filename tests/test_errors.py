"""The exception tree drawn in toolweave.errors lists every exception class of the package."""

from __future__ import annotations

import importlib
import pkgutil
import re

import toolweave
from toolweave import errors
from toolweave.errors import ToolweaveError

# Import names of the optional extras (pyproject's optional-dependencies): a module needing one
# may fail to import here; any other failing import is a bug.
OPTIONAL = {"llama_cpp", "langgraph", "mcp_server_git"}


def import_all() -> None:
    # A package that fails is imported (and judged) by the loop before the walk tries it: the
    # walk's own error can be ignored.
    for module in pkgutil.walk_packages(toolweave.__path__, "toolweave.", onerror=lambda _: None):
        if module.name.rsplit(".", 1)[-1] == "__main__":  # runs the CLI
            continue
        try:
            importlib.import_module(module.name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in OPTIONAL:
                raise


def subclasses(cls: type) -> set[type]:
    direct: list[type] = cls.__subclasses__()
    return {*direct, *(deeper for sub in direct for deeper in subclasses(sub))}


def test_the_docstring_draws_every_toolweave_error() -> None:
    import_all()
    ours = {c for c in subclasses(ToolweaveError) if c.__module__.startswith("toolweave.")}
    assert any(c.__module__ != errors.__name__ for c in ours), "the package walk found too little"
    drawing = (errors.__doc__ or "").splitlines()
    for cls in sorted(ours, key=lambda c: c.__name__):
        line = next((x for x in drawing if re.search(rf"── {cls.__name__}\b", x)), None)
        assert line, f"draw {cls.__name__} in the exception tree of toolweave/errors.py"
        where = cls.__module__.removeprefix("toolweave.")
        if cls.__module__ != errors.__name__:
            assert where in line, f"name {cls.__name__}'s module ({where}) in the exception tree"
