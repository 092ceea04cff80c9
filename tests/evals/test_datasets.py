from __future__ import annotations

from pathlib import Path

import pytest

from toolweave.errors import InputError
from toolweave.evals.datasets import DATASETS, DEV_DATASETS, load_dataset, toollens_tool

from ..benchmarks_dir import BENCHMARKS, needs_benchmarks

pytestmark = needs_benchmarks
ROOT = BENCHMARKS
SIZES = {
    "toole-single": (199, 2000),
    "toole-multi": (199, 497),
    "seal-in": (4076, 700),
    "seal-out": (4076, 654),
    "toollens": (464, 1877),
    "livemcp": (527, 94),
}


@pytest.mark.parametrize("name", DATASETS)
def test_each_dataset_loads_with_its_published_size(name: str) -> None:
    dataset = load_dataset(name, ROOT)
    assert (len(dataset.tools), len(dataset.queries)) == SIZES[name]
    keys = {dataset.gold_key(t.key) for t in dataset.tools}
    assert all(q.gold and q.gold <= keys for q in dataset.queries)


@pytest.mark.parametrize(
    ("test", "dev"),
    [("toole-single", "toole-dev"), ("seal-in", "seal-dev"), ("toollens", "toollens-dev")],
)
def test_dev_splits_and_logged_queries_never_hold_a_test_query(test: str, dev: str) -> None:
    tests, tuning = load_dataset(test, ROOT), load_dataset(dev, ROOT)
    test_texts = {q.text for q in tests.queries}
    assert tuning.queries and not test_texts & {q.text for q in tuning.queries}
    logged = {text for texts in tests.logged.values() for text in texts}
    assert len(logged) > 500 and not test_texts & logged
    keys = {tests.gold_key(t.key) for t in tests.tools}
    assert set(tests.logged) <= keys and all(q.gold <= keys for q in tuning.queries)


def test_dev_datasets_are_named() -> None:
    assert {load_dataset(name, ROOT, limit=5).name for name in DEV_DATASETS} == set(DEV_DATASETS)


def test_sampling_is_deterministic() -> None:
    a = load_dataset("toole-single", ROOT, limit=50)
    b = load_dataset("toole-single", ROOT, limit=50)
    assert [q.id for q in a.queries] == [q.id for q in b.queries] and len(a.queries) == 50


def test_toollens_entries_become_tools() -> None:
    tool = toollens_tool(
        "category_name:Food, tool_name:Worldwide Recipes, api_name:Suggestions, "
        "api_description:Get Suggestions, "
        'required_params: [{"name": "q", "type": "STRING", "description": ""}], '
        'optional_params: [], return_schema: {"a": "b"}'
    )
    assert (tool.server, tool.name) == ("worldwide-recipes", "Suggestions")
    assert tool.input_schema["properties"]["q"]["type"] == "string" and tool.input_schema[
        "required"
    ] == ["q"]


def test_unknown_dataset_and_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown dataset"):
        load_dataset("nope", ROOT)
    with pytest.raises(InputError, match="TOOLWEAVE_BENCHMARKS_DIR"):
        load_dataset("seal-in", tmp_path / "none")
