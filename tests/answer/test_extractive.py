from __future__ import annotations

import pytest

from toolweave.answer.extractive import (
    compose_answer,
    document_hits,
    essentials,
    render_result,
)
from toolweave.language.questions import content_terms
from toolweave.language.text import split_sentences
from toolweave.models.onnx_embedder import OnnxEmbedder
from toolweave.types import Clause, Observation, Plan, Problem, ProblemKind, Step

pytestmark = pytest.mark.anyio


def test_render_prefers_summary_then_fields_then_text() -> None:
    assert (
        render_result({"result": 351, "summary": "15% of 2,340 = 351"}, "") == "15% of 2,340 = 351"
    )
    assert render_result(
        {"timezone": "Asia/Tokyo", "is_dst": False, "source": {"day_of_week": "Sunday"}}, ""
    ) == ("timezone: Asia/Tokyo; is dst: no; source day of week: Sunday")
    assert render_result(None, "  plain\n text ") == "plain\ntext"
    assert render_result(None, "x" * 5000).endswith("…")


def test_a_result_shows_the_records_that_name_what_the_clause_names() -> None:
    graph = {
        "entities": [
            {"name": "Alice", "entityType": "person", "observations": ["likes hiking"]},
            {"name": "Bob", "entityType": "person", "observations": ["likes tea", "no peanuts"]},
        ],
        "relations": [{"from": "Alice", "to": "Acme", "relationType": "works at"}],
    }
    shown = render_result(graph, "", "look up Bob in my memory graph")
    assert shown.startswith("entities: name: Bob, entityType: person, observations: [likes tea;")
    assert "Alice" not in shown.split("relations:")[0] and "works at" in shown
    # A diff keeps its lines.
    assert render_result(None, "diff --git a/x b/x\n-a\n+b\n") == "diff --git a/x b/x\n-a\n+b"


def test_rows_a_server_sends_as_a_python_literal_are_read_and_filtered_by_value() -> None:
    """mcp-server-sqlite answers a SELECT with the repr of a list of dicts; every row has a
    "city" key, so only values choose the rows."""
    rows = [
        {"id": 1, "name": "Alice Martin", "city": "Lyon"},
        {"id": 2, "name": "Bruno Costa", "city": "Porto"},
    ]
    observation = Observation(step_id="s1", server="db", tool="read_query", ok=True, text=str(rows))
    assert observation.data == rows
    shown = render_result(observation.data, observation.text, "which users have Lyon as their city")
    assert shown == "id: 1, name: Alice Martin, city: Lyon"
    # Every row asked for, whatever one of them says ("DROP TABLE" is no "table" asked for).
    rows.append({"id": 3, "name": "Mallory", "city": "DROP TABLE x"})
    shown = render_result(rows, "", "read every city in the users table")
    assert "Lyon" in shown and "Porto" in shown
    assert render_result(rows, "", "the users in the users table from Lyon").count("id:") == 1
    garbled = Observation(step_id="s1", server="db", tool="q", ok=True, text="[1, 2")
    assert garbled.data == "[1, 2"


def test_document_hits_only_for_search_like_results() -> None:
    assert document_hits({"results": [{"text": "a", "title": "t"}, {"n": 1}]}) == [
        {"text": "a", "title": "t"}
    ]
    assert document_hits({"results": []}) == []
    assert document_hits({"timezone": "UTC"}) is None
    # Records of what a change did, none with a passage (server-memory's add_observations).
    done = {"results": [{"entityName": "Bob", "addedObservations": ["plays the cello"]}]}
    assert document_hits(done) is None


def test_split_sentences() -> None:
    text = "# Title\n\nFirst sentence is here. Second one is too!\n\n- a bullet point item"
    assert split_sentences(text) == [
        "First sentence is here.",
        "Second one is too!",
        "a bullet point item",
    ]
    wiki = (
        "Roads were poor.[citation needed] As of 2015[update], the town had 12 shops.[3] "
        "It grew fast."
    )
    assert split_sentences(wiki) == [
        "Roads were poor.",
        "As of 2015, the town had 12 shops.",
        "It grew fast.",
    ]


def step(i: int, text: str, server: str = "s", tool: str = "t") -> Step:
    return Step(id=f"s{i}", clause=Clause(index=i, text=text), server=server, tool=tool)


async def test_answer_cites_tools_and_closest_document_sentences() -> None:
    plan = Plan(
        steps=[
            step(0, "15% of 2,340", "calc", "percentage"),
            step(1, "when to prune roses", "docs", "search_docs"),
            step(2, "x"),
        ]
    )
    observations = [
        Observation(
            step_id="s0",
            server="calc",
            tool="percentage",
            arguments={"percent": 15},
            ok=True,
            structured={"summary": "15% of 2,340 = 351"},
        ),
        Observation(
            step_id="s1",
            server="docs",
            tool="search_docs",
            ok=True,
            structured={
                "results": [
                    {
                        "path": "g.md",
                        "title": "Garden",
                        "text": "Tomatoes need sun every day. "
                        "Prune roses in late winter before growth.",
                    }
                ]
            },
        ),
        Observation(step_id="s2", server="s", tool="t", ok=False, error="server down"),
    ]
    composed = await compose_answer("x", plan, observations, OnnxEmbedder(), max_sources_per_step=3)
    text, sources = composed.text, composed.sources
    lines = text.splitlines()
    assert lines[0] == "15% of 2,340 = 351 [1]"
    assert lines[1].startswith("Prune roses in late winter before growth. [2]")
    assert lines[2] == "Could not answer “x”: server down"
    assert [(s.id, s.kind) for s in sources] == [(1, "tool"), (2, "document")]
    assert sources[0].title == "calc.percentage(percent=15)" and sources[1].uri == "g.md"


async def test_what_the_user_is_asked_for_is_said_last() -> None:
    """ "Commit app.py in /r? Use the message I drafted": the question back ends the answer,
    after the step that waited on it."""
    asked = step(0, "commit app.py in /r", "git", "git_commit").model_copy(
        update={"problem": Problem(kind=ProblemKind.UNGROUNDED, text="it needs the message")}
    )
    plan = Plan(steps=[asked, step(1, "use the message I drafted", "git", "git_log")])
    observations = [
        Observation(step_id="s0", server="git", tool="git_commit", ok=False, error="not run"),
        Observation(step_id="s1", server="git", tool="git_log", ok=False, error="s0 failed"),
    ]
    composed = await compose_answer("x", plan, observations, OnnxEmbedder(), max_sources_per_step=3)
    assert composed.text.splitlines() == [
        "Could not answer “use the message I drafted”: s0 failed",
        "To “commit app.py in /r”, it needs the message: what should it be?",
    ]


async def test_documents_that_do_not_answer_are_said_not_to() -> None:
    plan = Plan(steps=[step(0, "what is the weather in Paris tomorrow")])
    hits = {
        "results": [
            {"path": "a.md", "title": "A", "text": "Gradient descent minimises a loss function."}
        ]
    }
    observations = [Observation(step_id="s0", server="s", tool="t", ok=True, structured=hits)]
    question = "what is the weather in Paris tomorrow"
    composed = await compose_answer(
        question, plan, observations, OnnxEmbedder(), max_sources_per_step=3
    )
    text, sources = composed.text, composed.sources
    assert composed.short == ""
    assert text == "The documents found do not answer “what is the weather in Paris tomorrow”."
    assert len(sources) == 1


async def test_later_rounds_of_a_search_answer_the_question_not_their_own_query() -> None:
    question = "what is the weather in Paris tomorrow"
    follow_up = "Gradient descent: optimisation what is the weather in Paris tomorrow"
    later = step(1, follow_up).model_copy(update={"depends_on": ["s0"]})
    plan = Plan(steps=[step(0, question), later])
    found = [
        {"results": [{"path": "a.md", "title": "A", "text": "Gradient descent minimises a loss."}]},
        {"results": [{"path": "b.md", "title": "B", "text": "Paris will be sunny tomorrow."}]},
    ]
    observations = [
        Observation(step_id=f"s{n}", server="s", tool="t", ok=True, structured=hits)
        for n, hits in enumerate(found)
    ]
    composed = await compose_answer(
        question, plan, observations, OnnxEmbedder(), max_sources_per_step=3
    )
    # One line, from both rounds' passages; the follow-up query is nowhere in the answer.
    assert "Paris will be sunny tomorrow. [2]" in composed.text
    assert follow_up not in composed.text and len(composed.text.splitlines()) == 1


def test_a_long_evidence_sentence_keeps_the_parts_that_bear_on_the_question() -> None:
    said = set(content_terms("How many albums did the Comets sell? 40 million"))
    sentence = (
        "The Comets (formed in Leeds, 1990) were a rock band, touring widely in Europe and "
        "Japan for ten years, and sold 40 million albums, before splitting up in 2001."
    )
    cut = essentials(sentence, said, "40 million")
    # The subject with its parenthesis whole, the part with the answer, "…" for the rest.
    assert cut == (
        "The Comets (formed in Leeds, 1990) were a rock band … and sold 40 million albums …"
    )
    assert essentials("The Comets sold 40 million albums.", said) == (
        "The Comets sold 40 million albums."
    )
    run_on = " ".join(f"Member{n} as Role{n}" for n in range(40)) + " Ann Vey as the Comet"
    around = essentials(run_on, said, "Ann Vey")
    assert "Ann Vey" in around and around.startswith("…") and len(around.split()) <= 27
