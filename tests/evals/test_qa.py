"""`toolweave eval qa`: the shared data loaded and split, SQuAD scoring, and a real run of the
engine over a small corpus of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolweave.evals.qa import (
    Corpus,
    Item,
    contains,
    f1_score,
    load_items,
    normalize,
    run_qa_eval,
    score,
    split_items,
)
from toolweave.settings import load_settings
from toolweave.types import Answer, Source

from ..benchmarks_dir import BENCHMARKS, needs_benchmarks

pytestmark = pytest.mark.anyio


def test_squad_normalisation_and_f1() -> None:
    assert normalize("The  Rensselaer County!") == "rensselaer county"
    assert f1_score("Rensselaer County", "the Rensselaer County") == 1.0
    assert f1_score("Hoosick", "Rensselaer County") == 0.0
    assert round(f1_score("30 teams", "30 Major League Baseball teams"), 3) == 0.571
    assert contains("It is in Rensselaer County, New York.", "rensselaer county")
    assert not contains("Rensselaer Countyside", "Rensselaer County")


@needs_benchmarks
def test_the_shared_questions_and_their_corpus() -> None:
    items, paragraphs = load_items(BENCHMARKS)
    assert [len(items["hotpot"]), len(items["musique"])] == [200, 200]
    urls = {p["url"] for p in paragraphs}
    assert len(urls) == len(paragraphs) > 4_000  # the union, each paragraph once
    assert all(
        item.supporting and set(item.supporting) <= urls for d in items.values() for item in d
    )
    for dataset in items.values():
        dev, test = split_items(dataset, "dev"), split_items(dataset, "test")
        assert len(dev) == len(test) == 100 and not {i.id for i in dev} & {i.id for i in test}
        assert [i.id for i in split_items(list(reversed(dataset)), "dev")] == [i.id for i in dev]


def test_an_answer_is_scored_on_its_short_answer_text_and_citations() -> None:
    item = Item(
        "hotpot", "q1", "Where was Lyman Sherwood born?", ["Rensselaer County"], ["u1", "u2"]
    )
    corpus = Corpus(Path("corpus.jsonl"), {"u1": "born in Rensselaer County", "u2": "", "u3": ""})
    answer = Answer(
        question=item.question,
        text="Rensselaer County [1]\nHe was born in Hoosick, Rensselaer County. [1] Other. [3]",
        short="Rensselaer County",
        sources=[
            Source(id=1, kind="document", title="Lyman Sherwood", uri="u1"),
            Source(id=2, kind="document", title="Politician", uri="u2"),
            Source(id=3, kind="document", title="Noise", uri="u3"),
        ],
    )
    result = score(item, answer, corpus)
    assert (result.em, result.f1, result.in_text, result.in_sources) == (1.0, 1.0, True, True)
    assert result.support == 0.5  # u2 is listed but not cited
    assert result.precision == 2 / 3  # "Other. [3]" holds neither the answer nor support
    assert result.words == len(answer.text.split())


def _write_benchmarks(root: Path) -> None:
    folder = root / "multihop"
    folder.mkdir(parents=True)
    hotpot = {
        "_id": "h1",
        "question": "What is the seat of the county where Van Hook Township is located?",
        "answer": "Stanley",
        "supporting_facts": [["Van Hook Township", 0], ["Mountrail County", 1]],
        "context": [
            ["Van Hook Township", ["Van Hook Township is a township in Mountrail County."]],
            ["Mountrail County", ["Mountrail County is a county.", " Its seat is Stanley."]],
            ["Lake Sakakawea", ["Lake Sakakawea is a reservoir on the Missouri River."]],
        ],
    }
    musique = {
        "id": "m1",
        "question": "Who was born earlier, Simone Bolelli or Caroline Wozniacki?",
        "answer": "Simone Bolelli",
        "answer_aliases": ["Bolelli"],
        "paragraphs": [
            {
                "title": "Simone Bolelli",
                "paragraph_text": "Simone Bolelli (born 8 October "
                "1985) is an Italian tennis player.",
                "is_supporting": True,
            },
            {
                "title": "Caroline Wozniacki",
                "paragraph_text": "Caroline Wozniacki (born 11 July "
                "1990) is a Danish tennis player.",
                "is_supporting": True,
            },
        ],
    }
    # Two items per dataset: one lands in each half.
    for name, item, key in (("hotpot", hotpot, "_id"), ("musique", musique, "id")):
        twin = {**item, key: item[key] + "b"}
        (folder / f"{name}.json").write_text(json.dumps(item) + "\n" + json.dumps(twin) + "\n")


async def test_a_real_run_over_a_corpus_of_its_own(tmp_path: Path) -> None:
    _write_benchmarks(tmp_path / "bench")
    (tmp_path / "toolweave.toml").write_text("")
    settings = load_settings(
        tmp_path / "toolweave.toml",
        env={
            "TOOLWEAVE_STATE_DIR": str(tmp_path / "state"),
            "TOOLWEAVE_LLM__BACKEND": "none",
            "TOOLWEAVE_BENCHMARKS_DIR": str(tmp_path / "bench"),
        },
    )
    notices: list[str] = []
    rows, results = await run_qa_eval(settings, ["hotpot", "musique"], "dev", notice=notices.append)
    assert [(r.dataset, r.questions) for r in rows] == [("hotpot", 1), ("musique", 1)]
    assert {r.short for r in results} == {"Stanley", "Simone Bolelli"}
    assert all(r.em == 1.0 and r.in_text and r.support == 1.0 for r in results)
    assert all(r.route == "iterative" and r.queries for r in results)
    assert any("indexing 5 passages" in n for n in notices)  # progress of the corpus index
    assert set(rows[0].stages_p50_ms) >= {"answer", "execute", "total"}
    # The corpus file is not rewritten when nothing changed: its index is kept.
    corpus = tmp_path / "state" / "evals" / "qa" / "corpus.jsonl"
    written = corpus.stat().st_mtime_ns
    await run_qa_eval(settings, ["hotpot"], "test", notice=notices.append)
    assert corpus.stat().st_mtime_ns == written
