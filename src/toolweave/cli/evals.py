"""`toolweave eval retrieval`, `calls`, `plans` and `qa`: metrics on the shared benchmarks;
`servers`: requests to real third-party MCP servers."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolweave.cli.common import Bar, ConfigOption, fail, load_or_exit, out, run_or_exit
from toolweave.errors import InputError
from toolweave.settings import Settings

if TYPE_CHECKING:
    from toolweave.evals.own_benchmark import OwnBenchmark
    from toolweave.evals.ranking import ToolRanker

eval_app = typer.Typer(help="Evaluate toolweave on the shared benchmarks.")
JsonOption = Annotated[bool, typer.Option("--json", help="Print the metrics as JSON.")]
SampleOption = Annotated[
    int | None, typer.Option(help="At most this many items per dataset (seeded sample).")
]
SplitOption = Annotated[
    str | None,
    typer.Option(
        help="dev (tune on it) or test (only report it): a seeded half of each dataset; "
        "default: all items."
    ),
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
    tools: Annotated[
        Path | None,
        typer.Option(
            help="Your own benchmark's tools: JSON Lines, one MCP tool (as tools/list gives it) "
            'with its "server" per line. Needs --queries.'
        ),
    ] = None,
    queries: Annotated[
        Path | None,
        typer.Option(
            help='Your own benchmark\'s queries: JSON Lines, {"query": ..., "gold": [...]} per '
            "line. Needs --tools; the dataset is named after this file.",
        ),
    ] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Tool retrieval: Recall@1/5/10, P@5, nDCG@5/10, COMP@5 and latency per dataset and variant,
    on the shared datasets or on your own (--tools with --queries)."""
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
    own = _own_benchmark(datasets or [], tools, queries)
    settings = load_or_exit(config)
    with Bar() as progress:
        rows = run_or_exit(
            run_retrieval_eval(
                settings.benchmarks_dir,
                settings.state_path() / "evals",
                make_embedder(settings.embedder),
                [own] if own else list(datasets or DATASETS),
                list(variants or DEFAULT_CONFIGS),
                limit=limit,
                on_progress=progress,
                llm=lambda: make_llm(settings.llm),
            )
        )
    _print_rows(rows, markdown, as_json)


def _own_benchmark(
    datasets: list[str], tools: Path | None, queries: Path | None
) -> OwnBenchmark | None:
    """The user's benchmark files, when given: both, and instead of dataset names."""
    from toolweave.evals.own_benchmark import OwnBenchmark

    if (tools is None) != (queries is None):
        given, missing = ("--tools", "--queries") if tools else ("--queries", "--tools")
        fail(InputError(f"{given} needs {missing} too: give both files of your benchmark"), code=2)
    if tools is None or queries is None:
        return None
    if datasets:
        fail(
            InputError(
                f"dataset names ({' '.join(datasets)}) do not go with --tools/--queries: "
                "run your benchmark and the shared datasets as separate commands"
            ),
            code=2,
        )
    return OwnBenchmark(tools, queries)


@eval_app.command("calls")
def eval_calls(
    datasets: Annotated[
        list[str] | None,
        typer.Argument(
            help="bfcl-simple, bfcl-multiple, bfcl-parallel, bfcl-parallel-multiple, seal-calls "
            "(default: all five)."
        ),
    ] = None,
    split: SplitOption = None,
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
                split=split,
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
    graphs: Annotated[
        list[str] | None,
        typer.Option(
            "--graph",
            help="The tool graph data flow is linked by: schema (the schemas') or gold (taught "
            "the gold chains of the other half of the items, 2-fold); repeatable; default: "
            "schema.",
        ),
    ] = None,
    split: SplitOption = None,
    limit: SampleOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Plan quality on NESTFUL: call F1, data-flow edge F1, tool names in order and full-sequence
    accuracy, per planner (deterministic; llm = the configured LLM) and tool graph."""
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
                split=split,
                limit=limit,
                graphs=tuple(graphs or ["schema"]),
                on_progress=progress,
            )
        )
    _print_rows(rows, markdown, as_json)


@eval_app.command("servers")
def eval_servers(
    splits: Annotated[
        list[str] | None,
        typer.Argument(help="dev, test (default: dev; tune on dev only)."),
    ] = None,
    phrasings: Annotated[
        int | None, typer.Option(help="At most this many phrasings per task.")
    ] = None,
    gold: Annotated[
        bool,
        typer.Option("--gold", help="Make the expected calls instead of asking: checks the suite."),
    ] = False,
    tasks: Annotated[
        list[str] | None,
        typer.Option("--task", help="Only the tasks whose id starts so (repeatable)."),
    ] = None,
    details: Annotated[
        Path | None, typer.Option(help="Write every request's result (JSON) to this file.")
    ] = None,
    learn_from: Annotated[
        str | None,
        typer.Option(
            help="First let the engine learn from this split's runs (each from a user of its "
            "own; a run the checks fail is rated bad), then measure the splits with what it "
            "learned. Learn from dev only, measure test."
        ),
    ] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Real third-party MCP servers (npm and PyPI, installed on first use) in a throw-away
    sandbox: tool choice, exact arguments, task success, unrequested side effects and invented
    values per request, asked with your consent given (as `ask --yes`)."""
    from toolweave.evals.servers import as_json as to_json
    from toolweave.evals.servers import markdown, run_servers_eval

    settings = load_or_exit(config)
    chosen = _server_splits(splits)
    if learn_from is not None and learn_from in chosen:
        fail(InputError(f"--learn-from {learn_from}: a split learned from is not measured"), code=2)
    if learn_from is not None:
        _server_splits([learn_from])
    with Bar() as progress:
        rows, results = run_or_exit(
            run_servers_eval(
                settings,
                chosen,
                gold=gold,
                only=tasks,
                limit=phrasings,
                learn_from=learn_from,
                on_progress=progress,
                notice=lambda text: print(text, file=sys.stderr),
            )
        )
    if details is not None:
        details.write_text(json.dumps(to_json(rows, results), indent=1))
    if as_json:
        out.print_json(json.dumps(to_json(rows, results)))
    else:
        print(markdown(rows))


@eval_app.command("recovery")
def eval_recovery(
    splits: Annotated[
        list[str] | None, typer.Argument(help="dev, test (default: dev; tune on dev only).")
    ] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """The `eval servers` requests whose answers state facts, asked again with the tool that
    first answered each made to fail (its real server behind a proxy that fails its calls), with
    recovery off and on: how many are still answered, and how many took a stand-in."""
    from toolweave.evals.recovery import markdown, run_recovery_eval

    settings = load_or_exit(config)
    with Bar() as progress:
        rows, results = run_or_exit(
            run_recovery_eval(
                settings, _server_splits(splits), on_progress=progress,
                notice=lambda text: print(text, file=sys.stderr),
            )
        )  # fmt: skip
    if as_json:
        out.print_json(json.dumps({"rows": [asdict(r) for r in rows],
                                   "results": [asdict(r) for r in results]}))  # fmt: skip
    else:
        print(markdown(rows))


def _server_splits(splits: list[str] | None) -> list[str]:
    """The chosen splits of the servers suite (default: dev), or exit 2 naming the unknown."""
    from toolweave.evals.servers import SPLITS

    chosen = list(splits or ["dev"])
    if unknown := set(chosen) - set(SPLITS):
        known = ", ".join(SPLITS)
        fail(InputError(f"unknown split(s) {', '.join(sorted(unknown))}: choose {known}"), code=2)
    return chosen


@eval_app.command("qa")
def eval_qa(
    datasets: Annotated[
        list[str] | None, typer.Argument(help="hotpot, musique (default: both).")
    ] = None,
    split: Annotated[str, typer.Option(help="dev (tune on it) or test (only report it).")] = "dev",
    limit: Annotated[int | None, typer.Option(help="At most this many questions each.")] = None,
    details: Annotated[
        Path | None, typer.Option(help="Write every question's result (JSON) to this file.")
    ] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Search-grounded answers on HotpotQA and MuSiQue, the union of their paragraphs as the
    local corpus: short-answer EM and F1, the answer in the text and in the sources, cited
    supporting paragraphs, citation precision, words and latency per stage."""
    from toolweave.evals.datasets import SPLITS
    from toolweave.evals.qa import DATASETS, markdown, run_qa_eval
    from toolweave.evals.qa import as_json as to_json

    settings = load_or_exit(config)
    chosen = list(datasets or DATASETS)
    if unknown := set(chosen) - set(DATASETS):
        fail(
            InputError(f"unknown dataset(s) {', '.join(sorted(unknown))}: choose hotpot, musique"),
            code=2,
        )
    if split not in SPLITS:
        fail(InputError(f"unknown split {split!r}: choose dev or test"), code=2)
    with Bar() as progress:
        rows, results = run_or_exit(
            run_qa_eval(
                settings,
                chosen,
                split,
                limit=limit,
                on_progress=progress,
                notice=lambda text: print(text, file=sys.stderr),
            )
        )
    if details is not None:
        details.write_text(json.dumps(to_json(rows, results), indent=1))
    if as_json:
        out.print_json(json.dumps(to_json(rows, results)))
    else:
        print(markdown(rows))


@eval_app.command("learning")
def eval_learning(
    datasets: Annotated[
        list[str] | None,
        typer.Argument(
            help="toole-single, toollens (default: both); their training splits stream."
        ),
    ] = None,
    runs: Annotated[
        str,
        typer.Option(help="Checkpoints: simulated runs after which the test split is measured."),
    ] = "0,100,1000,5000",
    tries: Annotated[
        int, typer.Option(help="Tools a run tries in rank order before it fails.", min=1)
    ] = 5,
    poison: Annotated[
        bool,
        typer.Option(
            "--poison",
            help="Instead: flood one tool with 1,000 other tools' queries, from one source and "
            "from 1,000, and measure the other test queries' R@5 and how often it ranks first.",
        ),
    ] = False,
    companions: Annotated[
        bool,
        typer.Option(
            help="Rank higher the tools that runs used together with the best ones (the tool "
            "graph's with edges); --no-companions: learned example queries alone."
        ),
    ] = True,
    explore: Annotated[
        bool,
        typer.Option(
            help="A run's last try goes to the best tool of its top 30 that no run has gone "
            "well with (as `ask` does, `graph.explore`); --no-explore: the tries in rank order."
        ),
    ] = True,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """The learning curve of the tool index fed by traffic alone: the training queries run as
    simulated runs (a gold tool among the first --tries succeeds and teaches the query; a wrong
    one fails), and the test split's R@1/R@5/nDCG@5/COMP@5 after each checkpoint."""
    from toolweave.evals.learning import DATASETS, markdown, run_learning_eval
    from toolweave.models import make_embedder

    chosen = list(datasets or DATASETS)
    if unknown := set(chosen) - set(DATASETS):
        fail(InputError(f"unknown dataset(s) {', '.join(sorted(unknown))}: choose "
                        f"{', '.join(DATASETS)}"), code=2)  # fmt: skip
    try:
        checkpoints = sorted({int(n) for n in runs.split(",")})
    except ValueError:
        fail(InputError(f"--runs {runs!r}: comma-separated whole numbers, e.g. 0,100,1000"), code=2)
    if checkpoints[0] < 0:
        fail(InputError("--runs: no negative checkpoints"), code=2)
    settings = load_or_exit(config)
    with Bar() as progress:
        points = run_or_exit(
            run_learning_eval(
                settings.benchmarks_dir,
                settings.state_path() / "evals",
                make_embedder(settings.embedder),
                chosen,
                checkpoints=checkpoints,
                tries=tries,
                poison=poison,
                companions=companions,
                explore=explore,
                on_progress=progress,
            )
        )
    _print_rows(points, markdown, as_json)


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
