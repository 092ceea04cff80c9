"""`toolweave eval retrieval`, `calls` and `plans`: metrics on the shared benchmarks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolweave.cli.common import Bar, ConfigOption, load_or_exit, out, run_or_exit
from toolweave.settings import Settings

if TYPE_CHECKING:
    from toolweave.evals.ranking import ToolRanker

eval_app = typer.Typer(help="Evaluate toolweave on the shared benchmarks.")
JsonOption = Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")]
SampleOption = Annotated[
    int | None, typer.Option(help="At most this many items per dataset (seeded sample).")
]


@eval_app.command("retrieval")
def eval_retrieval(
    datasets: Annotated[
        list[str] | None,
        typer.Argument(
            help="toole-single, toole-multi, seal-in, seal-out, toollens, livemcp (default: all "
            "six); toole-dev, seal-dev, toollens-dev are the tuning splits."
        ),
    ] = None,
    variants: Annotated[
        list[str] | None,
        typer.Option(
            "--variant",
            help="A retrieval variant (repeatable; default: all without an LLM). See --list.",
        ),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="At most this many queries per dataset.")
    ] = None,
    list_variants: Annotated[bool, typer.Option("--list", help="List the variants.")] = False,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Tool retrieval: Recall@1/5/10, P@5, nDCG@5/10, COMP@5 and latency per dataset and variant."""
    from toolweave.evals.datasets import DATASETS
    from toolweave.evals.retrieval import (
        CONFIGS,
        DEFAULT_CONFIGS,
        markdown,
        run_retrieval_eval,
    )
    from toolweave.models import make_embedder, make_llm

    if list_variants:
        for c in CONFIGS.values():
            out.print(f"{c.name:18} documents={c.style:12} {c.about}", soft_wrap=True)
        return
    settings = load_or_exit(config)
    with Bar() as progress:
        rows = run_or_exit(
            run_retrieval_eval(
                settings.benchmarks_dir,
                settings.state_path() / "evals",
                make_embedder(settings.embedder),
                list(datasets or DATASETS),
                list(variants or DEFAULT_CONFIGS),
                limit=limit,
                on_progress=progress,
                llm=lambda: make_llm(settings.llm),
            )
        )
    _print_rows(rows, markdown, as_json)


@eval_app.command("calls")
def eval_calls(
    datasets: Annotated[
        list[str] | None,
        typer.Argument(
            help="bfcl-simple, bfcl-multiple, bfcl-parallel, bfcl-parallel-multiple, seal-calls "
            "(default: all five)."
        ),
    ] = None,
    limit: SampleOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Tool-call accuracy of the step agent (extractors + the configured LLM): BFCL AST match,
    Seal-Tools name/keys/values score."""
    from toolweave.evals.calls import DATASETS, markdown, run_call_eval
    from toolweave.models import make_llm

    settings = load_or_exit(config)
    with Bar() as progress, _ranker(settings) as ranker:
        rows = run_or_exit(
            run_call_eval(
                settings.benchmarks_dir,
                list(datasets or DATASETS),
                make_llm(settings.llm),
                ranker,
                limit=limit,
                on_progress=progress,
            )
        )
    _print_rows(rows, markdown, as_json)


@eval_app.command("plans")
def eval_plans(
    datasets: Annotated[
        list[str] | None,
        typer.Argument(
            help="nestful-executable, nestful-glaive, nestful-sgd (default: all three)."
        ),
    ] = None,
    planners: Annotated[
        list[str] | None,
        typer.Option("--planner", help="deterministic or llm (repeatable; default: both)."),
    ] = None,
    limit: SampleOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Plan quality on NESTFUL: call F1, data-flow edge F1, tool names in order and full-sequence
    accuracy, per planner (deterministic; llm = the configured LLM)."""
    from toolweave.evals.plans import DATASETS, PLANNERS, markdown, run_plan_eval
    from toolweave.models import make_llm

    settings = load_or_exit(config)
    with Bar() as progress, _ranker(settings) as ranker:
        rows = run_or_exit(
            run_plan_eval(
                settings.benchmarks_dir,
                list(datasets or DATASETS),
                list(planners or PLANNERS),
                make_llm(settings.llm),
                ranker,
                min_score=settings.ask.min_tool_score,
                limit=limit,
                on_progress=progress,
            )
        )
    _print_rows(rows, markdown, as_json)


@contextmanager
def _ranker(settings: Settings) -> Iterator[ToolRanker]:
    """Tools ranked as `ask` ranks them; their indexes kept under <state>/evals/tools."""
    from toolweave.evals.ranking import ToolRanker
    from toolweave.models import make_embedder

    ranker = ToolRanker(make_embedder(settings.embedder), settings.state_path() / "evals" / "tools")
    try:
        yield ranker
    finally:
        ranker.close()


def _print_rows(rows: list[Any], markdown: Callable[[Any], str], as_json: bool) -> None:
    if as_json:
        out.print_json(json.dumps([asdict(r) for r in rows]))
    else:
        print(markdown(rows))
