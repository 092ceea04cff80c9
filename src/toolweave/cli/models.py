"""`toolweave models list | pull`: the embedded LLMs, and pulling the opt-in ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from toolweave.cli.common import ConfigOption, err, fail, load_or_exit, out
from toolweave.errors import InputError, ModelFileError
from toolweave.models.bundled import SMOLLM2_GGUF, SPLIT_MODELS, SplitModel, locate, pulled
from toolweave.settings import Settings

models_app = typer.Typer(
    help="The embedded LLMs: list them, pull the opt-in ones.", no_args_is_help=True
)


@models_app.command("list")
def list_models(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """The embedded LLMs toolweave knows: whether each is available (its file present and
    sha256-checked), its size, license and path, and which one llm.model selects."""
    settings = load_or_exit(config)
    rows = [_bundled_row(settings)]
    rows += [_split_row(model, settings) for model in SPLIT_MODELS.values()]
    if as_json:
        out.print_json(json.dumps(rows))
        return
    table = Table(box=None, pad_edge=False)
    for column in ("", "name", "available", "size", "license"):
        table.add_column(column, justify="right" if column == "size" else "left", no_wrap=True)
    table.add_column("path / how to get it", overflow="fold")  # a path is never cut short
    for row in rows:
        table.add_row(
            "*" if row["selected"] else "",
            row["name"],
            "yes" if row["available"] else "no",
            f"{row['size'] / 1e6:,.0f} MB" if row["size"] else "-",
            row["license"],
            escape(row["path"] or row["hint"]),
        )
    out.print(table)
    out.print("[dim]* selected by llm.model[/dim]")


@models_app.command("pull")
def pull_model(
    name: Annotated[str, typer.Argument(help="The model to pull, e.g. qwen2.5-coder-0.5b.")],
    config: ConfigOption = None,
) -> None:
    """Download an opt-in model into <state dir>/models. Its wheels are only downloaded by pip
    (with your pip configuration), never installed: one file is read from each, and the result
    is stored only if its size and sha256 are the pinned ones."""
    from toolweave.models.pull import pull

    settings = load_or_exit(config)
    model = SPLIT_MODELS.get(name)
    if model is None:
        fail(InputError(f"no model {name!r} to pull; known: {', '.join(SPLIT_MODELS)}"), code=2)
    folder = _models_folder(settings)
    try:
        path, downloaded = pull(model, folder, notice=lambda line: err.print(escape(line)))
    except ModelFileError as exc:
        fail(exc, code=1)
    except OSError as exc:  # disk full, no permission on the state dir
        fail(ModelFileError(f"cannot store {model.name} in {folder}: {exc}"), code=1)
    if not downloaded:
        out.print(
            f"{model.name} is already pulled and verified: {escape(str(path))}", soft_wrap=True
        )
        return
    out.print(
        f"pulled {model.name} ({model.size:,} bytes, sha256 checked, license {model.license})"
    )
    out.print(f"  {escape(str(path))}", soft_wrap=True)
    use = f'llm.model = "{model.name}" (or TOOLWEAVE_LLM__MODEL={model.name})'
    out.print(f"use it: {use}", soft_wrap=True)


def _models_folder(settings: Settings) -> Path:
    return settings.state_path() / "models"  # where settings look for a pulled model's name


def _bundled_row(settings: Settings) -> dict[str, Any]:
    row = {
        "name": "smollm2-135m",
        "selected": settings.llm.backend in ("auto", "embedded") and not settings.llm.model,
        "license": "Apache-2.0",
        "hint": SMOLLM2_GGUF.install_hint,
    }
    try:
        path = locate(SMOLLM2_GGUF)
    except ModelFileError:
        return {**row, "available": False, "size": 0, "path": ""}
    return {**row, "available": True, "size": path.stat().st_size, "path": str(path)}


def _split_row(model: SplitModel, settings: Settings) -> dict[str, Any]:
    folder = _models_folder(settings)
    try:
        available = pulled(model, folder).is_file()
    except ModelFileError:
        available = False
    return {
        "name": model.name,
        "selected": Path(settings.llm.model) == folder / model.name,
        "license": model.license,
        "hint": model.pull_hint,
        "available": available,
        "size": model.size,
        "path": str(folder / model.filename) if available else "",
    }
