"""The tool-call evaluation: loaders on the real files, the BFCL schema conversion, the step
agent run against fakes and the real embedder, and once end to end with the embedded LLM."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolweave.errors import InputError
from toolweave.evals.ast_match import Answer, Call
from toolweave.evals.calls import (
    BFCL_CATEGORIES,
    DATASETS,
    BfclGold,
    CallCase,
    CallDataset,
    CallRow,
    _sets,
    bfcl_schema,
    bfcl_tool,
    evaluate_calls,
    load_call_dataset,
    markdown,
    predict,
    run_call_eval,
    score_bfcl,
    score_seal,
)
from toolweave.evals.ranking import ToolRanker
from toolweave.models import Completion, Message, NoLLM
from toolweave.models.llama_embedded import EmbeddedLLM, embedded_available
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.models.structured import schema_problems
from toolweave.retrieval.tool_select import CANDIDATES

from ..benchmarks_dir import BENCHMARKS, needs_benchmarks
from ..fakes import ScriptedLLM
from .test_ast_match import _gold_call

pytestmark = pytest.mark.anyio
EMBEDDER = OnnxEmbedder()
TODAY = date(2025, 1, 1)
# (items, gold calls): parallel has 109x2 + 52x3 + 36x4 + 6 + 2x8 calls.
SIZES = {
    "bfcl-simple": (400, 400),
    "bfcl-multiple": (200, 200),
    "bfcl-parallel": (200, 540),
    "bfcl-parallel-multiple": (200, 607),
    "seal-calls": (200, 200),
}


@needs_benchmarks
@pytest.mark.parametrize("name", DATASETS)
def test_each_dataset_loads_with_its_size(name: str) -> None:
    dataset = load_call_dataset(name, BENCHMARKS)
    assert (len(dataset.cases), sum(c.gold_calls for c in dataset.cases)) == SIZES[name]
    assert all(c.question.strip() and c.tools for c in dataset.cases)
    assert all(c.parallel == ("parallel" in name) for c in dataset.cases)


@needs_benchmarks
def test_bfcl_candidates_and_seal_catalogue() -> None:
    multiple = load_call_dataset("bfcl-multiple", BENCHMARKS)
    assert {len(c.tools) for c in multiple.cases} == {2, 3, 4}
    seal = load_call_dataset("seal-calls", BENCHMARKS)
    names = {t.name for t in seal.cases[0].tools}
    assert len(names) == 4076
    assert all(isinstance(c.gold, Call) and c.gold.name in names for c in seal.cases)
    assert all(c.id.startswith("test_in_domain-easy-") for c in seal.cases)


@needs_benchmarks
def test_the_dev_and_test_halves_part_the_items() -> None:
    whole = load_call_dataset("bfcl-parallel", BENCHMARKS)
    dev = load_call_dataset("bfcl-parallel", BENCHMARKS, split="dev")
    test = load_call_dataset("bfcl-parallel", BENCHMARKS, split="test")
    ids = {c.id for c in dev.cases}
    assert not ids & {c.id for c in test.cases} and dev.split == "dev"
    assert ids | {c.id for c in test.cases} == {c.id for c in whole.cases}


def test_a_limit_samples_the_same_items_every_time() -> None:
    first = load_call_dataset("bfcl-parallel", BENCHMARKS, limit=5)
    again = load_call_dataset("bfcl-parallel", BENCHMARKS, limit=5)
    assert len(first.cases) == 5 and [c.id for c in first.cases] == [c.id for c in again.cases]
    with pytest.raises(InputError, match="unknown dataset"):
        load_call_dataset("bfcl-live", BENCHMARKS)


def test_bfcl_types_become_json_schema() -> None:
    coordinate = {"type": "tuple", "items": {"type": "float"}, "description": "(lat, lon)"}
    assert bfcl_schema(coordinate) == {
        "type": "array",
        "items": {"type": "number"},
        "description": "(lat, lon)",
    }
    flag = {"type": "boolean", "default": True, "optional": True}
    assert bfcl_schema(flag) == {"type": "boolean", "default": True}
    area = {"type": "dict", "properties": {"width": {"type": "integer"}}, "required": ["width"]}
    assert bfcl_schema(area) == {
        "type": "object",
        "properties": {"width": {"type": "integer"}},
        "required": ["width"],
    }
    assert bfcl_schema({"type": "any"}) == {"type": "string"}


@needs_benchmarks
@pytest.mark.parametrize("name", list(BFCL_CATEGORIES))
def test_converted_schemas_are_valid_and_accept_the_gold_calls(name: str) -> None:
    """Except where the gold gives a variable name (parallel_multiple_21: x="data['sales']"
    for an array) or strings for integers (parallel_multiple_94)."""
    rejected = set()
    for case in load_call_dataset(name, BENCHMARKS).cases:
        assert isinstance(case.gold, BfclGold)
        for tool in case.tools:
            Draft202012Validator.check_schema(tool.input_schema)
        for answer in case.gold.answers:
            call = _gold_call(answer, case.gold.functions)
            tool = next(t for t in case.tools if t.name == call.name)
            if schema_problems(call.arguments, tool.input_schema):
                rejected.add(case.id)
    expected = {"parallel_multiple_21", "parallel_multiple_94"}
    assert rejected == (expected if name == "bfcl-parallel-multiple" else set())


def function(name: str, description: str, required: list[str], **params: str) -> dict[str, Any]:
    """A BFCL function document; each parameter as "type: description"."""
    properties = {
        n: {"type": typed.split(": ", 1)[0], "description": typed.split(": ", 1)[1]}
        for n, typed in params.items()
    }
    return {
        "name": name,
        "description": description,
        "parameters": {"type": "dict", "properties": properties, "required": required},
    }


# Two real BFCL functions (simple_python_8, simple_python_0) and one of simple_python_215.
CIRCLE = function(
    "geometry.area_circle",
    "Calculate the area of a circle given the radius.",
    ["radius"],
    radius="integer: The radius of the circle.",
    units="string: The units of the radius.",
)
TRIANGLE = function(
    "calculate_triangle_area",
    "Calculate the area of a triangle given its base and height.",
    ["base", "height"],
    base="integer: The base of the triangle.",
    height="integer: The height of the triangle.",
)
MOVIE = function(
    "movie_details.brief",
    "This function retrieves a brief about a specified movie.",
    ["title"],
    title="string: Title of the movie",
)


def case(
    question: str, functions: list[dict[str, Any]], answers: list[Answer], parallel: bool = False
) -> CallCase:
    return CallCase(
        id=question[:20],
        question=question,
        tools=[bfcl_tool(f) for f in functions],
        parallel=parallel,
        gold=BfclGold(functions, answers),
        gold_calls=len(answers),
    )


class CountingScript(ScriptedLLM):
    """The scripted fake, counting its requests in `usage` as real backends do."""

    async def complete(self, messages: Sequence[Message], **kwargs: Any) -> Completion:
        self.usage.requests += 1
        return await super().complete(messages, **kwargs)


async def test_the_step_agent_chooses_the_tool_per_clause_and_fills_the_arguments(
    tmp_path: Path,
) -> None:
    circle_10: Answer = {"geometry.area_circle": {"radius": [10], "units": ["meters", ""]}}
    dataset = CallDataset(
        "tiny",
        "AST accuracy",
        [
            case(
                "What's the area of a circle with a radius of 10?", [TRIANGLE, CIRCLE], [circle_10]
            ),
            case(
                "Find the area of a triangle with base 10 and height 5. "
                "What is the area of a circle with radius 3?",
                [CIRCLE, TRIANGLE],
                [
                    {"geometry.area_circle": {"radius": [3], "units": [""]}},
                    {"calculate_triangle_area": {"base": [10], "height": [5]}},
                ],
                parallel=True,
            ),
            case("Tell me about the film Interstellar", [MOVIE], [_title("Interstellar")]),
            case("Tell me about the film Inception", [MOVIE], [_title("Inception")]),
        ],
        score_bfcl,
    )
    llm = CountingScript('{"title": "interstellar"}', '{"title": "Interstellar"}')
    row = await evaluate_calls(dataset, llm, ToolRanker(EMBEDDER, tmp_path), today=TODAY)
    assert [r.calls for r in row.results[:2]] == [
        [Call("geometry.area_circle", {"radius": 10})],
        [
            Call("calculate_triangle_area", {"base": 10, "height": 5}),
            Call("geometry.area_circle", {"radius": 3}),
        ],
    ]
    assert [r.score for r in row.results] == [1.0, 1.0, 1.0, 0.0]
    assert (row.items, row.score, row.gold_calls, row.predicted_calls) == (4, 0.75, 5, 5)
    assert row.llm_calls == 2 and len(llm.calls) == 2  # only the titles needed the LLM
    assert row.results[0].origins == [{"radius": "extracted"}]
    assert row.results[2].origins == [{"title": "chosen"}]
    assert "Request: Tell me about the film Interstellar" in llm.calls[0][-1]["content"]
    assert row.mismatches == {"value_error": 1} and row.latency_p50_ms > 0


def _title(title: str) -> Answer:
    return {"movie_details.brief": {"title": [title]}}


async def test_the_ranker_gives_the_closest_tools_best_first(tmp_path: Path) -> None:
    others = [
        {"name": n, "description": d, "parameters": {"type": "dict", "properties": {}}}
        for n, d in [
            ("get_stock_price", "Get the closing stock price for a company on a date."),
            ("spotify.play", "Play specific tracks from a given artist for a time."),
        ]
    ]
    tools = [bfcl_tool(f) for f in [MOVIE, *others, TRIANGLE, CIRCLE]]
    question = "What's the area of a circle with a radius of 10?"
    ranker = ToolRanker(EMBEDDER, tmp_path)
    [found] = await ranker.rank([question], tools)
    assert [c.tool.name for c in found][:2] == ["geometry.area_circle", "calculate_triangle_area"]
    assert len(found) == min(CANDIDATES, len(tools))
    [[only]] = await ranker.rank([question], tools[:1])
    assert only.tool.name == "movie_details.brief"
    # The list's index is built once and named by its content: a changed tool gets its own.
    changed = [tools[0].model_copy(update={"description": "Something else."}), *tools[1:]]
    await ranker.rank([question], tools)
    await ranker.rank([question], changed)
    assert len(list(tmp_path.iterdir())) == 2
    ranker.close()


def test_seal_mismatches_say_what_was_wrong() -> None:
    gold = Call("getFilmMarketing", {"film_title": "Avengers: Endgame", "platform": "Facebook"})
    seal = CallCase("s", "q", [], False, gold, 1)
    assert score_seal(seal, [gold]) == (1.0, None)
    kinds = {
        "wrong_tool": [Call("getFilmReviews", {})],
        "wrong_keys": [Call("getFilmMarketing", {"film_title": "Avengers: Endgame"})],
        "wrong_values": [Call("getFilmMarketing", {**gold.arguments, "platform": "X"})],
    }
    for kind, calls in kinds.items():
        score, mismatch = score_seal(seal, calls)
        assert mismatch is not None and mismatch.kind == kind and score < 1
    assert score_seal(seal, [])[0] == 0.0


def _row(name: str, score: float) -> CallRow:
    return CallRow(name, "dev", "AST accuracy", 10, score, score, 10, 10, 0, 0, 1.0, 2.0, {})


def test_markdown_adds_the_bfcl_overall_only_when_all_four_ran() -> None:
    rows = [_row(n, s) for n, s in zip(BFCL_CATEGORIES, (0.5, 0.25, 0.0, 1.0), strict=True)]
    assert "| bfcl overall | dev | AST, mean of 4 |  | 0.438 |" in markdown(rows)
    assert "bfcl overall" not in markdown(rows[:3])
    assert (
        markdown(rows[:1]).splitlines()[2].startswith("| bfcl-simple | dev | AST accuracy | 10 |")
    )


@pytest.fixture(scope="module")
def llm() -> EmbeddedLLM:
    assert embedded_available() is None, embedded_available()
    return EmbeddedLLM(max_tokens=64)


@needs_benchmarks
@pytest.mark.embedded_llm
async def test_run_call_eval_with_the_embedded_llm(llm: EmbeddedLLM, tmp_path: Path) -> None:
    requests = llm.usage.requests
    progress: list[tuple[str, int, int]] = []
    rows = await run_call_eval(
        BENCHMARKS,
        ["bfcl-simple"],
        llm,
        ToolRanker(EMBEDDER, tmp_path),
        limit=3,
        on_progress=lambda *p: progress.append(p),
    )
    [row] = rows
    assert (row.dataset, row.items, row.gold_calls, row.predicted_calls) == ("bfcl-simple", 3, 3, 3)
    assert row.llm_calls == llm.usage.requests - requests
    assert 0.0 <= row.score <= 1.0 and row.latency_p95_ms >= row.latency_p50_ms > 0
    assert sum(row.mismatches.values()) == sum(r.score < 1 for r in row.results)
    assert ("bfcl-simple", 2, 3) in progress


ENTROPY = function(
    "calculate_entropy_change",
    "Calculate the entropy change of a process.",
    ["initial_temp", "final_temp", "heat_capacity"],
    initial_temp="integer: The initial temperature.",
    final_temp="integer: The final temperature.",
    heat_capacity="float: The heat capacity.",
)


async def test_a_several_call_question_makes_a_call_per_set_of_values(tmp_path: Path) -> None:
    """Seen on BFCL parallel: a scene-setting sentence made a call of its own, a call's values
    in two sentences made two half calls, and "the same" value was left out of the second."""
    ranker = ToolRanker(EMBEDDER, tmp_path)
    question = (
        "Imagine you run a thermodynamics experiment. The process starts at an initial "
        "temperature of 300 Kelvin and ends at a final temperature of 350 Kelvin. The heat "
        "capacity is 4.18 J/K. Then a process starts at an initial temperature of 250 Kelvin "
        "and ends at a final temperature of 260 Kelvin with the same heat capacity."
    )
    steps = await predict(question, [bfcl_tool(ENTROPY)], True, NoLLM(), ranker, TODAY)
    assert [s.arguments for s in steps] == [
        {"initial_temp": 300, "final_temp": 350, "heat_capacity": 4.18},
        {"initial_temp": 250, "final_temp": 260, "heat_capacity": 4.18},
    ]
    # One question, one call: none of this happens outside the parallel categories.
    one = await predict(question, [bfcl_tool(ENTROPY)], False, NoLLM(), ranker, TODAY)
    assert len(one) == 1
    ranker.close()


TRIANGLE_PROPERTIES = function(
    "triangle_properties.get",
    "Properties of a triangle from its sides.",
    ["side1", "side2", "side3"],
    side1="integer: The first side.",
    side2="integer: The second side.",
    side3="integer: The third side.",
    get_area="boolean: Whether to calculate the area.",
    get_perimeter="boolean: Whether to calculate the perimeter.",
)
FLIGHT = function(
    "book_flight",
    "Book a direct flight for a specific date and time from departure city to destination city.",
    ["departure_city", "destination_city", "date"],
    departure_city="string: The city where you want to start your journey.",
    destination_city="string: The city where you want to end your journey.",
    date="string: The date of the flight, in the format YYYY-MM-DD.",
)


@pytest.mark.parametrize(
    ("tool", "question", "calls"),
    [
        # A sentence giving only options completes the call before, not a second triangle.
        (
            TRIANGLE_PROPERTIES,
            "For the triangle, the sides are 5 units, 7 units, and 9 units respectively. "
            "You want to calculate the area and perimeter of this triangle.",
            [{"side1": 5, "side2": 7, "side3": 9, "get_area": True, "get_perimeter": True}],
        ),
        # The values given again after "and": a call each.
        (
            FLIGHT,
            "Book a flight from San Francisco to Tokyo on May 3rd 2022 and another flight "
            "from Tokyo to Sydney on May 18th 2022.",
            [
                {
                    "departure_city": "San Francisco",
                    "destination_city": "Tokyo",
                    "date": "2022-05-03",
                },
                {"departure_city": "Tokyo", "destination_city": "Sydney", "date": "2022-05-18"},
            ],
        ),
    ],
)
async def test_the_parallel_calls_follow_the_questions_sentences(
    tool: dict[str, Any], question: str, calls: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Seen on BFCL parallel and parallel-multiple."""
    ranker = ToolRanker(EMBEDDER, tmp_path)
    steps = await predict(question, [bfcl_tool(tool)], True, NoLLM(), ranker, TODAY)
    assert [s.arguments for s in steps] == calls
    ranker.close()


def test_value_sets_are_crossed_with_the_lists_of_the_other_names() -> None:
    """Seen on BFCL parallel: "Lakers and Bulls in NBA seasons 2018 and 2020" made a call per
    season, for the Lakers only."""
    text = "Find the winning percentage of Lakers and Bulls in NBA seasons 2018 and 2020."
    seasons = [{"season": 2018}, {"season": 2020}]
    crossed = _sets(seasons, {"team": "Lakers", "season": 2018}, text)
    assert crossed == [
        {"season": 2018, "team": "Lakers"},
        {"season": 2018, "team": "Bulls"},
        {"season": 2020, "team": "Lakers"},
        {"season": 2020, "team": "Bulls"},
    ]
    # A list the value sets already vary is not crossed again.
    cities = [{"city": "Paris"}, {"city": "Rome"}]
    assert _sets(cities, {"city": "Paris"}, "weather in Paris and Rome") == cities
