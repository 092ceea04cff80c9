from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from toolweave.index import ToolIndex, sync_index
from toolweave.index.fusion import convex_fusion, rrf_fusion, zscore_fusion
from toolweave.language import analyse
from toolweave.language.cues import asks_to_change, says_what_it_gives
from toolweave.retrieval.retriever import (
    RetrievalOptions,
    ToolRetriever,
    _aggregate,
)
from toolweave.retrieval.tool_select import _outside, fit, lacks_name, rank_tools
from toolweave.types import Candidate, IndexHit, Quoted, ToolHints, ToolSpec

from ..fakes import HashingEmbedder, ScriptedLLM

pytestmark = pytest.mark.anyio


def hit(key: str, score: float) -> IndexHit:
    return IndexHit(key=key, server="s", score=score)


def best_first(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda key: -scores[key])


def test_rrf_rewards_agreement() -> None:
    fused = rrf_fusion([[hit("a", 0.9), hit("b", 0.8)], [hit("b", 5.0), hit("c", 4.0)]], 60)
    assert best_first(fused) == ["b", "a", "c"]


def test_convex_normalises_each_source() -> None:
    fused = convex_fusion([hit("a", 0.9), hit("b", 0.1)], [hit("b", 30.0), hit("a", 10.0)], 0.7)
    assert best_first(fused) == ["a", "b"]
    assert fused["a"] == pytest.approx(0.7)


def test_zscore_follows_the_confident_list() -> None:
    # Dense is flat (no tool stands out) and ranks "d" fifth; BM25 has "d" far above the rest.
    # The z-score fusion follows the confident list; RRF puts the dense leader first.
    keys = ["a", "b", "c", "e", "d", "f", "g", "h", "i", "j"]
    dense = [hit(key, 0.55 - i / 100) for i, key in enumerate(keys)]
    others = [hit(key, 3.0 - i / 10) for i, key in enumerate(keys) if key != "d"]
    lexical = [hit("d", 30.0), *others]
    assert best_first(zscore_fusion([dense, lexical], 10))[0] == "d"
    assert best_first(rrf_fusion([dense, lexical], 60))[0] == "a"


def test_zscore_gives_a_missing_tool_the_lowest_score_of_that_list() -> None:
    fused = zscore_fusion([[hit("a", 1.0), hit("b", 0.0)], [hit("b", 1.0), hit("c", 0.0)]], 2)
    assert fused["a"] == pytest.approx(1.0 + -1.0) and fused["c"] == pytest.approx(-1.0 + -1.0)


def test_zscore_does_not_trust_a_short_list_of_weak_near_ties() -> None:
    # BM25 found three tools on a stop-word-like match; dense clearly prefers "b".
    dense = [hit("b", 0.47), hit("a", 0.09), hit("c", 0.05)]
    lexical = [hit("a", 0.06), hit("c", 0.05), hit("b", 0.05)]
    assert best_first(zscore_fusion([dense, lexical], 50))[0] == "b"


def ranked(*hits: IndexHit) -> tuple[dict[str, float], dict[str, IndexHit]]:
    return {h.key: h.score for h in hits}, {h.key: h for h in hits}


def test_each_clause_keeps_its_best_tools() -> None:
    whole = ranked(*(hit(f"w{i}", 1.0 - i / 100) for i in range(10)))
    clause_a = ranked(hit("a1", 0.5), hit("a2", 0.4))
    clause_b = ranked(hit("b1", 0.3))
    found = _aggregate([whole, clause_a, clause_b], 5, clauses=2)
    keys = [h.key for h in found]
    assert "a1" in keys and "b1" in keys and len(keys) == 5
    assert [h.score for h in found] == sorted((h.score for h in found), reverse=True)


def test_a_tool_keeps_its_best_score_over_queries() -> None:
    found = _aggregate([ranked(hit("t", 0.2), hit("u", 0.3)), ranked(hit("t", 0.9))], 2, clauses=1)
    assert [(h.key, h.score) for h in found] == [("t", 0.9), ("u", 0.3)]


async def two_tool_index(tmp_path: Path) -> tuple[ToolIndex, HashingEmbedder]:
    embedder = HashingEmbedder()
    tools = [
        ToolSpec(server="travel", name="book_hotel", description="Book a hotel room in a city."),
        ToolSpec(server="weather", name="get_forecast", description="Weather forecast for a city."),
        *[
            ToolSpec(server="misc", name=f"tool_{i}", description=f"Unrelated thing number {i}.")
            for i in range(30)
        ],
    ]
    index = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    await sync_index(index, embedder, tools)
    return index, embedder


async def test_a_two_part_question_finds_both_tools(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    retriever = ToolRetriever(index, embedder, RetrievalOptions())
    question = "Book a hotel room in Paris and tell me the weather forecast there"
    assert retriever.queries(question)[1:] == [
        "Book a hotel room in Paris",
        "tell me the weather forecast in Paris",
    ]
    keys = [h.key for h in await retriever.search(question, 3)]
    assert {"travel.book_hotel", "weather.get_forecast"} <= set(keys)
    with pytest.raises(ValueError, match="dense search, lexical search or both"):
        ToolRetriever(index, embedder, RetrievalOptions(dense=False, lexical=False))


async def test_the_tools_runs_used_with_the_best_one_are_raised(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    question = "Book a hotel room in Paris"
    plain = [
        h.key for h in await ToolRetriever(index, embedder, RetrievalOptions()).search(question, 3)
    ]
    assert plain[0] == "travel.book_hotel" and "misc.tool_7" not in plain

    def companions(tool: str) -> list[tuple[str, float]]:
        # Runs that booked a hotel used tool_7 too (and a tool no longer indexed).
        return [("misc.tool_7", 1.0), ("gone.tool", 1.0)] if tool == "travel.book_hotel" else []

    learned = ToolRetriever(index, embedder, RetrievalOptions(), companions=companions)
    found = await learned.search(question, 3)
    assert [h.key for h in found][:2] == ["travel.book_hotel", "misc.tool_7"]
    assert found[1].server == "misc" and "gone.tool" not in [h.key for h in found]
    # Nothing learned: the ranking is the plain one.
    unused = ToolRetriever(index, embedder, RetrievalOptions(), companions=lambda _: [])
    assert [h.key for h in await unused.search(question, 3)] == plain


async def test_a_run_s_last_try_explores_a_tool_no_run_has_gone_well_with(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    question = "Book a hotel room in Paris"
    plain = ToolRetriever(index, embedder, RetrievalOptions())
    ranking = [h.key for h in await plain.search(question, 30)]

    async def tries(taught: set[str], explore: bool = True) -> list[str]:
        options = RetrievalOptions()
        retriever = ToolRetriever(index, embedder, options, succeeded=taught.__contains__)
        return [h.key for h in await retriever.search(question, 3, explore=explore)]

    # Runs went well with the four best: the third try is the fifth, the best untaught one.
    assert await tries(set(ranking[:4])) == [*ranking[:2], ranking[4]]
    assert await tries(set(ranking[:4]), explore=False) == ranking[:3]  # what users are shown
    assert await tries(set()) == ranking[:3]  # nothing taught yet: the plain ranking
    assert await tries(set(ranking)) == ranking[:3]  # nothing left untaught in the top 30
    # A step's shortlist alike: its last candidate is the best tool of the clause no run taught.
    [clause] = await plain.rank_clauses([question])
    taught = set(clause.keys[:4]).__contains__
    learned = ToolRetriever(index, embedder, RetrievalOptions(), succeeded=taught)
    [candidates] = await rank_tools(learned, index.tool_specs(), [question], k=3)
    assert [c.tool.key for c in candidates][:3] == [*clause.keys[:2], clause.keys[4]]


def test_variants_only_compete_on_score() -> None:
    whole = ranked(*(hit(f"w{i}", 1.0 - i / 100) for i in range(10)))
    variant = ranked(hit("v1", 0.2))
    assert "v1" not in [h.key for h in _aggregate([whole, variant], 5, clauses=0)]
    assert "v1" in [h.key for h in _aggregate([whole, variant], 5, clauses=1)]


async def test_the_llms_sub_queries_are_searched_as_clauses(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    answer = (
        '{"subqueries": ["book a hotel room in Paris", "weather forecast for Paris"], '
        '"variants": ["Paris trip"], "step_back": "travel"}'
    )
    llm = ScriptedLLM(answer)
    retriever = ToolRetriever(index, embedder, RetrievalOptions(expand=True), llm=llm)
    keys = [h.key for h in await retriever.search("hotle in Paris + what's it like outside", 3)]
    assert {"travel.book_hotel", "weather.get_forecast"} <= set(keys)
    assert "hotle in Paris" in llm.calls[0][-1]["content"]
    assert retriever.last_problem == "" and retriever.last_timing["expand_ms"] >= 0


async def test_a_failed_expansion_leaves_the_plain_search(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    llm = ScriptedLLM("no", "json", "here")
    retriever = ToolRetriever(index, embedder, RetrievalOptions(expand=True), llm=llm)
    plain = ToolRetriever(index, embedder, RetrievalOptions())
    question = "Book a hotel room in Paris"
    assert await retriever.search(question, 3) == await plain.search(question, 3)
    assert retriever.last_problem.startswith("query expansion failed")


async def test_the_llm_reorders_the_top_tools(tmp_path: Path) -> None:
    index, embedder = await two_tool_index(tmp_path)
    question = "Book a hotel room in Paris"
    plain = [
        h.key for h in await ToolRetriever(index, embedder, RetrievalOptions()).search(question, 4)
    ]
    assert plain[0] == "travel.book_hotel"
    llm = ScriptedLLM(json.dumps({"ranking": [plain[2]]}))
    options = RetrievalOptions(llm_rerank=True)
    reranked = await ToolRetriever(index, embedder, options, llm=llm).search(question, 4)
    # The LLM's choice first, the rest in their retrieval order.
    assert [h.key for h in reranked] == [plain[2], plain[0], plain[1], plain[3]]
    assert "- travel.book_hotel: Book a hotel room in a city." in llm.calls[0][-1]["content"]
    failing = ToolRetriever(index, embedder, options, llm=ScriptedLLM("no", "no", "no"))
    assert [h.key for h in await failing.search(question, 4)] == plain
    assert failing.last_problem.startswith("LLM reranking failed")
    with pytest.raises(ValueError, match="need an LLM"):
        ToolRetriever(index, embedder, options)


async def test_tool_selection_ranks_by_fusion_and_gates_on_cosine(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    tools = [
        ToolSpec(server="a", name="fetch", description="Of the, for it, to it."),
        # Dense search favours the document of common words; BM25 the one of the rare words.
        ToolSpec(server="b", name="ledger", description="Zyxcorp Qwerty records."),
        ToolSpec(server="c", name="down", description="Zyxcorp Qwerty records, offline."),
        *[ToolSpec(server="m", name=f"t{i}", description=f"Thing {i}.") for i in range(20)],
    ]
    index = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    await sync_index(index, embedder, tools)
    clause = "of the Zyxcorp Qwerty for it, to it"
    vector = await embedder.embed([clause])
    dense = [h.key for h in index.search(vector[0], 3)]
    connected = [t for t in tools if t.server != "c"]
    retriever = ToolRetriever(index, embedder, RetrievalOptions())
    [candidates] = await rank_tools(retriever, connected, [clause], vector)
    assert dense[0] != "b.ledger" and candidates[0].tool.key == "b.ledger"
    assert "c.down" not in [c.tool.key for c in candidates]
    # The score stays the dense cosine: the planner's "does any tool fit" gate reads it.
    cosines = {h.key: h.score for h in index.search(vector[0], 30)}
    assert all(c.score == pytest.approx(cosines[c.tool.key]) for c in candidates)


RANK_TWICE = """
import asyncio, json, sys
from pathlib import Path
from toolweave.index import open_index, sync_index
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.retrieval.retriever import RetrievalOptions, ToolRetriever
from toolweave.settings import IndexSettings
from toolweave.types import ToolSpec

async def main():
    embedder = OnnxEmbedder()
    index = await open_index(IndexSettings(), embedder, Path(sys.argv[1]))
    # Twins: the same text under other names, so every score ties within a pair.
    tools = [
        ToolSpec(server=f"s{n}", name="lookup", description=text)
        for n, text in enumerate(["Weather forecast for a city."] * 3 + ["Convert units."] * 3)
    ]
    await sync_index(index, embedder, tools)
    retriever = ToolRetriever(index, embedder, RetrievalOptions())
    hits = await retriever.search("weather in Oslo and convert 3 miles to km", k=6)
    print(json.dumps([h.key for h in hits]))

asyncio.run(main())
"""


def test_ties_are_ranked_the_same_in_every_process(tmp_path: Path) -> None:
    """Python's string hashing changes per process: no ranking may depend on it."""
    runs = []
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        folder = tmp_path / seed
        done = subprocess.run(
            [sys.executable, "-c", RANK_TWICE, str(folder)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    assert runs[0] == runs[1] == runs[2] and len(runs[0]) == 6
    weather = [key for key in runs[0] if key in {"s0.lookup", "s1.lookup", "s2.lookup"}]
    assert weather == sorted(weather)  # tied scores in key order


def decoys(words: str) -> list[ToolSpec]:
    """Eight tools whose descriptions say the question's words, to rank above the one wanted;
    each of its own server (eight tools of one server saying "staff" name it "the staff")."""
    return [ToolSpec(server=f"m{i}", name=f"t{i}", description=f"{words} {i}.") for i in range(8)]


async def retriever_over(folder: Path, tools: list[ToolSpec]) -> ToolRetriever:
    embedder = HashingEmbedder()
    index = ToolIndex(folder, embedder_id=embedder.id, dim=embedder.dim)
    await sync_index(index, embedder, tools)
    return ToolRetriever(index, embedder, RetrievalOptions())


async def test_a_tool_whose_every_value_the_clause_gives_is_a_candidate(tmp_path: Path) -> None:
    """Beyond the k best, an analysed clause brings the read-only tools it fills whole: a
    terse description ranks `read_query` low for a question about a table's rows."""
    sql = {"query": {"type": "string", "description": "SELECT SQL query"}}
    read = ToolSpec(
        server="db",
        name="read_query",
        description="Execute a statement.",
        input_schema={"properties": sql, "required": ["query"]},
    )
    others = decoys("Who in the staff town table")
    retriever = await retriever_over(tmp_path, [read, *others])
    [clause] = analyse("who in the staff table has Bergen as their town?", date(2026, 1, 5)).clauses

    def keys(ranked: list[list[Candidate]]) -> list[str]:
        return [c.tool.key for c in ranked[0]]

    assert "db.read_query" not in keys(
        await rank_tools(retriever, [read, *others], [clause.text], k=3)
    )
    assert "db.read_query" in keys(await rank_tools(retriever, [read, *others], [clause], k=3))


async def test_the_tools_of_a_server_that_holds_what_the_clause_names_are_candidates(
    tmp_path: Path,
) -> None:
    """A server that holds a name the clause gives (catalog/contents.py) brings its reading
    tools beyond the k best, marked, so `fit` weighs them: nothing in a knowledge graph's tool
    descriptions says it knows Bob."""
    graph = ToolSpec(server="graph", name="read_graph", description="Read the entire graph.")
    others = decoys("What you know about people")
    retriever = await retriever_over(tmp_path, [graph, *others])
    [clause] = analyse("what do you know about Bob?", date(2026, 1, 5)).clauses

    async def holding(held: dict[str, list[str]]) -> list[tuple[str, bool]]:
        [ranked] = await rank_tools(retriever, [graph, *others], [clause], k=3, held=held)
        return [(c.tool.key, c.holds) for c in ranked if c.tool.server == "graph"]

    assert await holding({}) == []
    assert await holding({"graph": ["Carol"]}) == []
    assert await holding({"graph": ["Alice", "Bob"]}) == [("graph.read_graph", True)]


async def test_a_server_whose_records_say_the_clause_s_words_is_a_candidate_beyond_the_ranking(
    tmp_path: Path,
) -> None:
    """A question that names nothing held brings the reading tools of a server whose records
    say its words (catalog/contents.py: the stems), even one the fused ranking never found
    (mcp-server-sqlite's `read_query` was not among the 50 best for "the comment column of
    feedback")."""
    graph = ToolSpec(server="graph", name="read_graph", description="Read the entire graph.")
    others = decoys("Who is allergic to pollen")
    embedder = HashingEmbedder()
    index = ToolIndex(tmp_path, embedder_id=embedder.id, dim=embedder.dim)
    await sync_index(index, embedder, [graph, *others])
    retriever = ToolRetriever(index, embedder, RetrievalOptions(depth=3))
    [clause] = analyse("Who is allergic to peanuts?", date(2026, 1, 5)).clauses

    async def holding(about: dict[str, frozenset[str]]) -> list[tuple[str, bool]]:
        [ranked] = await rank_tools(retriever, [graph, *others], [clause], k=3, about=about)
        return [(c.tool.key, c.holds) for c in ranked if c.tool.server == "graph"]

    assert await holding({}) == []
    assert await holding({"graph": frozenset({"pollen"})}) == []
    assert await holding({"graph": frozenset({"peanut"})}) == [("graph.read_graph", True)]

    # A server's folders: its tools are marked outside for a path elsewhere.
    fs = ToolSpec(
        server="fs",
        name="read_file",
        description="Read a file.",
        input_schema={"properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
    [clause] = analyse("read /srv/notes.txt", date(2026, 1, 5)).clauses
    for roots, outside in (({"fs": ["/srv"]}, False), ({"fs": ["/home/x"]}, True), ({}, False)):
        [ranked] = await rank_tools(retriever, [fs, graph], [clause], k=3, roots=roots)
        assert [c.outside for c in ranked if c.tool.server == "fs"] == [outside]


async def test_a_change_the_clause_puts_in_a_server_is_made_there(tmp_path: Path) -> None:
    """Seen on the official servers: "Add a company called "Globex" to memory" wrote "Globex"
    to mcp-server-sqlite's memo, whose description fits better than the graph's."""
    schema = {"properties": {"insight": {"type": "string"}}, "required": ["insight"]}
    memo = ToolSpec(
        server="sqlite", name="append_insight", description="Add an insight.", input_schema=schema
    )
    graph = ToolSpec(server="memory", name="create_entities", description="Create entities.")
    retriever = await retriever_over(tmp_path, [memo, graph])

    async def keys(text: str) -> list[str]:
        [clause] = analyse(text, date(2026, 1, 5)).clauses
        [ranked] = await rank_tools(retriever, [memo, graph], [clause])
        return sorted(c.tool.key for c in ranked)

    assert await keys('Add an insight "Globex" to memory') == ["memory.create_entities"]
    assert await keys('Add an insight "Globex"') == [
        "memory.create_entities",
        "sqlite.append_insight",
    ]


def test_a_metadata_tool_fits_only_a_question_about_metadata() -> None:
    """Official server-filesystem's and mcp-server-sqlite's descriptions, at the same cosine."""
    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    info = ToolSpec(
        server="fs",
        name="get_file_info",
        description="Retrieve detailed metadata about a file or directory.",
        input_schema=path,
    )
    read = ToolSpec(
        server="fs", name="read_text_file", description="Read a file.", input_schema=path
    )

    def best(text: str) -> str:
        clause = analyse(text, date(2026, 11, 26)).clauses[0]
        return max((info, read), key=lambda t: fit(Candidate(tool=t, score=0.3), clause, 0)).name

    assert best("what was the revenue in the report /srv/report.txt?") == "read_text_file"
    assert best("how big is /srv/report.txt?") == "get_file_info"
    assert best("how many bytes is /srv/report.txt?") == "get_file_info"
    # "when was" asks for a date of the file only when it says what was done to the file
    assert best("when was the final proposal sent (/srv/draft.txt)?") == "read_text_file"
    assert best("when was /srv/report.txt last touched?") == "get_file_info"
    # a sentence that only tells why asks for no metadata; the one that asks does
    told = "A friend asked me how big the oven is. Could you tell me {} /srv/oven.txt?"
    assert best(told.format("how many loaves it holds, from")) == "read_text_file"
    assert best(told.format("the size in bytes of")) == "get_file_info"
    # an owner of no file given nor pointed at: "the owner" of a project, as a file says
    assert best("and tell me who the owner is") == "read_text_file"
    assert best("and tell me how big it is") == "get_file_info"
    assert best("columns and types please") == "get_file_info"  # not only of a file
    # a word in capitals is what the file says: a log level, no info asked for
    assert best("how many INFO lines in /srv/server.log") == "read_text_file"
    assert best("how many lines of /srv/server.log are at the INFO level?") == "read_text_file"


def test_a_tool_that_declares_it_only_reads_makes_no_change() -> None:
    """server-filesystem's read_text_file declares readOnlyHint: "create a README.txt in
    /srv/inv saying ..." is no reading of it, however close its words; a tool that says
    nothing of what it does is penalised less (it may change things unsaid)."""
    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    read = ToolSpec(server="fs", name="read_text_file", description="Read a file.")
    read.input_schema = path
    clause = analyse("create a README.txt in /srv/inv", date(2026, 11, 27)).clauses[0]
    unsaid = fit(Candidate(tool=read, score=0.3), clause, 0)
    read.hints = ToolHints(read_only=True)
    declared = fit(Candidate(tool=read, score=0.3), clause, 0)
    assert declared < unsaid - 0.1


def test_a_path_outside_the_folders_a_server_may_reach_counts_against_its_tools() -> None:
    """server-filesystem says which folders it may reach: a git repository elsewhere is no
    folder to list with it (it had answered "Access denied")."""
    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    listing = ToolSpec(server="fs", name="list_directory", input_schema=path)
    clause = analyse("what is in /srv/repo?", date(2026, 11, 26)).clauses[0]
    inside = fit(Candidate(tool=listing, score=0.3), clause, 0)
    outside = fit(Candidate(tool=listing, score=0.3, outside=True), clause, 0)
    assert outside < inside - 0.3
    # A file named in a folder is where the folder is: "config.py ... in /srv/repo".
    clause = analyse("check config.py at HEAD in /srv/repo", date(2026, 11, 28)).clauses[0]
    assert _outside(clause, ["/srv/files"]) and not _outside(clause, ["/srv"])


def test_a_sum_with_no_numbers_to_add_counts_against_it() -> None:
    number = {"type": "number"}
    two = {"type": "object", "properties": {"a": number, "b": number}, "required": ["a", "b"]}
    add = Candidate(tool=ToolSpec(server="e", name="get-sum", input_schema=two), score=0.3)

    def fitted(text: str) -> float:
        return fit(add, analyse(text, date(2026, 11, 26)).clauses[0], 0)

    no_numbers = fitted("sum the amount column of orders")
    assert no_numbers < 0.3 < fitted("add 17 and 25")
    assert fitted("add these two numbers together") > no_numbers  # it points at them: ask which


def test_arithmetic_on_numbers_written_is_no_change() -> None:
    """mcp-server-git's git_add had fit "add 318 and 47.6 using the demo server's addition
    tool" above everything's get-sum (eval servers, dev fresh14), and a memo "318 and 47.6"."""
    number = {"type": "number"}
    two = {"type": "object", "properties": {"a": number, "b": number}, "required": ["a", "b"]}
    add = Candidate(tool=ToolSpec(server="e", name="get-sum", input_schema=two), score=0.16)
    files = {"repo_path": {"type": "string"}, "files": {"type": "array"}}
    stage = ToolSpec(
        server="git",
        name="git_add",
        description="Adds file contents to the staging area",
        input_schema={"type": "object", "properties": files, "required": list(files)},
    )
    staged = Candidate(tool=stage, score=0.27)
    for text in (
        "Could you add 318 and 47.6 using the demo server's addition tool?",
        "318 + 47.6 via the demo server's adder",
    ):
        clause = analyse(text, date(2026, 12, 8)).clauses[0]
        assert fit(staged, clause, 0) == -1.0
        assert fit(add, clause, 1) > 0.28  # the planner's min_tool_score
    clause = analyse("add 2 and 3 to the list in /srv/a.txt", date(2026, 12, 8)).clauses[0]
    assert asks_to_change(clause.text)  # where the numbers go: a change


def test_a_tool_whose_output_schema_gives_what_is_asked_fits_better() -> None:
    """server-everything's get-structured-content had lost "weather in Chicago?" to
    mcp-server-time's get_current_time, which Chicago's zone fills too (as ranked there)."""
    city = {"type": "string", "enum": ["New York", "Chicago"], "description": "Choose city"}
    weather = ToolSpec(
        server="everything",
        name="get-structured-content",
        description="Returns structured content along with an output schema for client data",
        input_schema={"type": "object", "properties": {"location": city}, "required": ["location"]},
        output_schema={
            "type": "object",
            "properties": {
                "temperature": {"type": "number", "description": "Temperature in celsius"},
                "conditions": {"type": "string", "description": "Weather conditions description"},
            },
        },
    )
    zone = {"timezone": {"type": "string", "description": "IANA timezone name"}}
    now = ToolSpec(
        server="time",
        name="get_current_time",
        description="Get current time in a specific timezones",
        input_schema={"type": "object", "properties": zone, "required": ["timezone"]},
        output_schema={"type": "object", "properties": {"datetime": {"type": "string"}}},
    )

    def fits(text: str) -> tuple[float, float]:
        clause = analyse(text, date(2026, 12, 8)).clauses[0]
        return fit(Candidate(tool=weather, score=0.165), clause, 2), fit(
            Candidate(tool=now, score=0.209), clause, 1
        )

    sample, clock = fits("weather in Chicago?")
    assert sample > clock
    sample, clock = fits("what time is it in Chicago?")
    assert clock > sample
    # a choice of options none of which the clause names fits nothing (as ranked: 0.445)
    clause = analyse("what cities are our users in?", date(2026, 12, 8)).clauses[0]
    assert fit(Candidate(tool=weather, score=0.445), clause, 0) < 0.28
    # what it echoes of its inputs it is given, not asked for (NESTFUL's SGD bookings)
    echo = weather.model_copy(update={"output_schema": {"properties": {"location": city}}})
    clause = analyse("the location of Chicago", date(2026, 12, 8)).clauses[0]
    assert not says_what_it_gives(echo, clause) and says_what_it_gives(
        weather, analyse("conditions in Chicago", date(2026, 12, 8)).clauses[0]
    )


def test_a_tool_none_of_whose_inputs_a_clause_with_a_page_gives_counts_against_it() -> None:
    text = {"type": "string"}
    zones = {"properties": {"source": text, "target": text}, "required": ["source", "target"]}
    convert = ToolSpec(server="t", name="convert_time", input_schema=zones)
    candidate = Candidate(tool=convert, score=0.3)

    def fitted(said: str) -> float:
        return fit(candidate, analyse(said, date(2026, 11, 26)).clauses[0], 0)

    page = fitted("what are the Saturday opening hours according to https://shop.example/?")
    assert page < fitted("what are the Saturday opening hours?")


def test_a_change_of_existing_things_fits_no_name_the_server_lacks() -> None:
    """server-memory's add_observations adds to "existing entities": "remember that Dana plays
    the cello" of a graph without Dana would fail with "not found"."""
    text, texts = {"type": "string"}, {"type": "array", "items": {"type": "string"}}
    record = {"type": "object", "properties": {"entityName": text, "contents": texts}}
    schema = {"type": "object", "properties": {"observations": {"type": "array", "items": record}}}
    schema["required"] = ["observations"]
    add = ToolSpec(
        server="memory",
        name="add_observations",
        description="Add new observations to existing entities in the knowledge graph",
        input_schema=schema,
        hints=ToolHints(read_only=False),
    )
    clause = analyse("remember that Dana plays the cello", date(2026, 11, 26)).clauses[0]
    assert lacks_name(clause, ["Bob"]) and not lacks_name(clause, ["Dana"])
    assert not lacks_name(clause, None)  # what the server holds is not known: no telling
    held = fit(Candidate(tool=add, score=0.3), clause, 0)
    lacking = fit(Candidate(tool=add, score=0.3, lacks=True), clause, 0)
    assert lacking < held - 0.15
    # Values that fit it fit nothing then: "add an entity "Weather CLI" ... with an observation"
    # had gone to add_observations, its values counted.
    given = analyse("add the observation 'likes tea' to Dana", date(2026, 11, 26)).clauses[0]
    fitting = fit(Candidate(tool=add, score=0.3), given, 0)
    assert fit(Candidate(tool=add, score=0.3, lacks=True), given, 0) < fitting - 0.6
    add.description = "Add new observations to entities"  # any, then: it may create them
    assert fit(Candidate(tool=add, score=0.3, lacks=True), clause, 0) == held
    # A deletion of a name the server lacks deletes nothing: as unfit, whatever it says.
    delete = ToolSpec(
        server="memory",
        name="delete_entities",
        description="Delete multiple entities",
        input_schema={"type": "object", "properties": {"entityNames": {"type": "array"}}},
        hints=ToolHints(read_only=False, destructive=True),
    )
    clause = analyse("forget Dana", date(2026, 11, 26)).clauses[0]
    assert fit(Candidate(tool=delete, score=0.3, lacks=True), clause, 0) < (
        fit(Candidate(tool=delete, score=0.3), clause, 0) - 0.3
    )
    # A read of things by their names opens nothing the server lacks ("do I know anybody in
    # Leeds?" of a graph holding no "Leeds").
    names = {"type": "array", "items": {"type": "string"}}
    open_nodes = ToolSpec(
        server="memory",
        name="open_nodes",
        description="Open specific nodes in the knowledge graph by their names",
        input_schema={"type": "object", "properties": {"names": names}, "required": ["names"]},
        hints=ToolHints(read_only=True),
    )
    clause = analyse("do I know anybody in Leeds?", date(2026, 11, 26)).clauses[0]
    assert fit(Candidate(tool=open_nodes, score=0.3, lacks=True), clause, 0) < (
        fit(Candidate(tool=open_nodes, score=0.3), clause, 0) - 0.3
    )


def test_a_change_put_into_a_table_fits_no_tool_that_takes_no_table() -> None:
    """ "add an order to the orders table ... with item 'Cinnamon roll'" had written the item
    to mcp-server-sqlite's memo (`append_insight`), a change nobody asked for."""
    memo = ToolSpec(
        server="db",
        name="append_insight",
        description="Add a business insight to the memo",
        input_schema={"properties": {"insight": {"type": "string"}}, "required": ["insight"]},
        hints=ToolHints(read_only=False),
    )
    text = "add an order to the orders table for user_id 2 with item 'Cinnamon roll'"
    clause = analyse(text, date(2026, 11, 26)).clauses[0]
    clause.held = [Quoted(start=20, end=26, value="orders")]
    clause.fields = {"orders": ["id", "user_id", "item", "amount"]}
    assert fit(Candidate(tool=memo, score=0.5), clause, 0) == -1.0
    # "to the Project Falcon entity": a name the graph holds, no table
    text = "add the observation 'kickoff' to the Project Falcon entity"
    clause = analyse(text, date(2026, 11, 26)).clauses[0]
    clause.held = [Quoted(start=36, end=50, value="Project Falcon")]
    assert fit(Candidate(tool=memo, score=0.5), clause, 0) > -1.0


def test_a_question_that_asks_for_no_change_fits_no_tool_that_changes_things() -> None:
    commit = ToolSpec(
        server="git",
        name="git_commit",
        description="Records changes to the repository",
        input_schema={"properties": {"message": {"type": "string"}}, "required": ["message"]},
        hints=ToolHints(read_only=False),
    )
    question = analyse("/srv/r: commit msg that added the loader?", date(2026, 11, 26)).clauses[0]
    assert fit(Candidate(tool=commit, score=0.5), question, 0) == -1.0
    asked = analyse("could you commit it with the message 'x'?", date(2026, 11, 26)).clauses[0]
    assert fit(Candidate(tool=commit, score=0.5), asked, 0) > 0
    # A change whose verbs say nothing here (server-everything's toggle-simulated-logging) fits
    # no statement of the user's own plans.
    toggle = ToolSpec(
        server="everything",
        name="toggle-simulated-logging",
        description="Toggles simulated, random-leveled logging on or off.",
        hints=ToolHints(read_only=False),
    )
    said = analyse("I'm about to start a fresh log", date(2026, 11, 28)).clauses[0]
    assert fit(Candidate(tool=toggle, score=0.5), said, 0) == -1.0


async def test_a_text_given_to_pass_on_says_no_tool(tmp_path: Path) -> None:
    """Seen on mcp-server-git: "commit it with exactly this message: app.py: add units option"
    ranked git_commit below tools the message's words fit; a message is what the tool passes
    on, not what it does."""
    text = {"type": "string"}
    commit = ToolSpec(
        server="git",
        name="git_commit",
        description="Records changes to the repository.",
        input_schema={"properties": {"message": text}, "required": ["message"]},
    )
    memo = ToolSpec(
        server="sqlite",
        name="append_insight",
        description="Add a business insight to the memo.",
        input_schema={"properties": {"insight": text}, "required": ["insight"]},
    )
    retriever = await retriever_over(tmp_path, [commit, memo])
    said = "commit it with this message: add a business insight to the memo"
    [clause] = analyse(said, date(2026, 11, 28)).clauses
    assert [v.value for v in clause.values.said] == ["add a business insight to the memo"]
    [ranked] = await rank_tools(retriever, [commit, memo], [clause], k=2)
    assert ranked[0].tool.key == "git.git_commit"


def test_a_value_only_another_server_holds_is_no_value_for_this_one() -> None:
    """ "look up order number 6": server-memory's search_nodes(query) was filled with "orders",
    the database's table, and ranked above the database's read_query."""
    said = "The search query to match against entity names, types, and observation content"
    query = {"type": "string", "description": said}
    schema = {"type": "object", "properties": {"query": query}, "required": ["query"]}
    search = ToolSpec(server="memory", name="search_nodes", input_schema=schema)
    search.hints = ToolHints(read_only=True)
    text = "a customer asks about order number 6: could you look it up"
    clause = analyse(text, date(2026, 11, 28)).clauses[0]
    clause.held = [Quoted(start=22, end=27, value="orders")]
    elsewhere = fit(Candidate(tool=search, score=0.3), clause, 0)
    held = fit(Candidate(tool=search, score=0.3, holds=True), clause, 0)
    assert elsewhere < held - 0.3
