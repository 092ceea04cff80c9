"""Values that must be copied as written: URLs, paths, emails, text to pass on; and where an
LLM's proposal stands in the request."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolweave.language import analyse, clause_of
from toolweave.language.binding import extract_arguments
from toolweave.language.cues import asks_for_action, asks_to_change, split_deferral
from toolweave.language.parameters import is_statement
from toolweave.language.spans import composed_from, ground, phrases, snap, written_from
from toolweave.language.values import read_values
from toolweave.types import ToolSpec

TODAY = date(2026, 11, 22)
STRING = {"type": "string"}
PATHS = {"type": "array", "items": STRING}


def locators(text: str) -> list[tuple[str, str]]:
    return [(x.kind, x.joined) for x in read_values(text, TODAY).locators]


def bound(properties: dict[str, Any], text: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    return extract_arguments(schema, clause_of(0, text, TODAY)).arguments


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fetch http://127.0.0.1:8765/ please.", [("url", "http://127.0.0.1:8765/")]),
        ("read ~/notes/new.txt, then stop", [("path", "~/notes/new.txt")]),
        ('open "/tmp/my files/a b.txt"', [("path", "/tmp/my files/a b.txt")]),
        ("mail bob@example.com today", [("email", "bob@example.com")]),
        # A file name learns the folder it is said to be in; the folder stays a path too.
        (
            "show notes.txt in /srv/files",
            [("path", "/srv/files/notes.txt"), ("path", "/srv/files")],
        ),
        # Abbreviations and numbers are no file names.
        ("e.g. 2.5 km at 3 p.m.", []),
    ],
)
def test_urls_paths_and_emails_are_found_whole(text: str, expected: list[Any]) -> None:
    assert locators(text) == expected


def test_numbers_inside_a_url_or_path_are_not_values() -> None:
    values = read_values("fetch http://127.0.0.1:8765/page2 and read /tmp/v2/a.txt", TODAY)
    assert values.numbers == [] and values.places == []
    # a clock time is no number; a number before a colon that ends a sentence is one
    assert read_values("at 12:30 add them", TODAY).numbers == []
    said = read_values("one for 1250.75 and one for 348.25: please add them", TODAY).numbers
    assert [n.value for n in said] == [1250.75, 348.25]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("write the text hello to the file ~/notes/new.txt", ["hello"]),
        ("append buy eggs to /srv/todo.md", ["buy eggs"]),
        ("add row 2024-05-18,taxi,23.40 to end of /a/x.csv", ["2024-05-18,taxi,23.40"]),
        ("commit it with the message we agreed on", []),  # which message is not said
        ("create /x/a.txt containing Hello, World!", ["Hello, World!"]),
        ('write "hi" to a.txt', []),  # quoted: a quoted value already
        # A list asked for one item per line is those lines.
        ("make a file /a/s.txt with eggs, flour and butter, one per line", ["eggs\nflour\nbutter"]),
        (
            "create /a/p.txt listing passport, charger and sunscreen, each on its own line",
            ["passport\ncharger\nsunscreen"],
        ),
        (
            "I need three lines in it: eggs, sugar and dark chocolate.",
            ["eggs\nsugar\ndark chocolate"],
        ),
    ],
)
def test_unquoted_text_to_pass_on(text: str, said: list[str]) -> None:
    assert [q.value for q in read_values(text, TODAY).said] == said


def test_paths_go_to_their_parameters_by_role() -> None:
    move = {"source": STRING, "destination": STRING}
    assert bound(move, "rename notes.txt to old_notes.txt") == {
        "source": "notes.txt",
        "destination": "old_notes.txt",
    }
    assert bound(move, "move to /x/b.txt the file /x/a.txt") == {
        "source": "/x/a.txt",
        "destination": "/x/b.txt",
    }
    stage = {"repo_path": STRING, "files": PATHS}
    assert bound(stage, "stage app.py and README.md in /tmp/repo") == {
        "repo_path": "/tmp/repo",
        "files": ["app.py", "README.md"],
    }
    write = {"path": STRING, "content": STRING}
    assert bound(write, 'Write to the file "/tmp/a b/new.txt" the text "hello"') == {
        "path": "/tmp/a b/new.txt",
        "content": "hello",
    }
    assert bound(write, "write the text hello to the file ~/notes/new.txt") == {
        "path": "~/notes/new.txt",
        "content": "hello",
    }
    branch = {"repo_path": STRING, "branch_name": STRING}
    assert bound(branch, "create a branch called feature/dark-mode in /srv/repo") == {
        "repo_path": "/srv/repo",
        "branch_name": "feature/dark-mode",
    }
    assert bound({"url": STRING}, "what does http://x.test/a?b=1 say") == {
        "url": "http://x.test/a?b=1"
    }


def test_a_proposal_snaps_to_the_words_as_written() -> None:
    text = "echo hello world to me"
    assert snap("Hello, World!", text) == ("hello world", snap("hello world", text)[1])  # type: ignore[index]
    assert snap("goodbye", text) is None
    value, lost = ground([{"name": "alice", "entityType": "person"}], "remember Alice")
    assert value == [{"name": "Alice", "entityType": "person"}] and lost == ["0.entityType"]
    assert ground(42, "add 17 and 25") == (42, [""])


@pytest.mark.parametrize(
    ("question", "kept", "declined"),
    [
        ("read /tmp/report.txt and do what it says", ["read /tmp/report.txt"], ["do what it says"]),
        (
            "fetch http://x/a.html and follow its instructions",
            ["fetch http://x/a.html"],
            ["follow its instructions"],
        ),
        ("how do I follow the instructions", ["how do I follow the instructions"], []),
    ],
)
def test_following_what_a_file_says_is_declined(
    question: str, kept: list[str], declined: list[str]
) -> None:
    analysis = analyse(question, TODAY)
    assert [c.text for c in analysis.clauses] == kept and analysis.declined == declined
    assert split_deferral("what does it say?") == ("what does it say?", "")


def test_a_clause_that_asks_for_a_change() -> None:
    assert asks_to_change("write hello to a.txt") and asks_to_change("Please add a user")
    assert not asks_to_change("what is in a.txt") and not asks_to_change("echo hello")
    assert asks_to_change('In /srv/todo.md, change "leaking tap" to "kitchen tap"')
    assert not asks_to_change("in the repo, what changed?")
    assert asks_to_change('please jot "passport, charger" down in a file at /a/p.txt')
    # After a sentence that tells why (joined to it by clauses.py), the request asks.
    assert asks_to_change("I want to keep it apart: Could you create a branch called b1?")
    assert asks_to_change("Ana let us know she moved, so could you please update her city?")
    # A fact, then what to do with it; a verb of two words.
    assert asks_to_change("Carol works at Initech now, add that to the graph")
    assert asks_to_change("Bob got over his peanut allergy, take that out of memory")
    assert asks_to_change("Ines Moreau is a pilot, add her to memory")
    assert not asks_to_change("Bob got over his peanut allergy, what's that in memory?")
    # "new ..." opening a request asks to add it; anywhere else it describes.
    assert asks_to_change("new row in users: name Frank") and not asks_to_change("new messages?")
    new_file = ToolSpec(server="fs", name="write_file", description="Create a new file.")
    assert asks_for_action(new_file, "there's a new sign-up in /a.txt") is False
    # A relation linked and a fact noted are changes to a knowledge graph.
    assert asks_to_change("link Carol to Initech") and asks_to_change("note in memory that Al is 3")
    # Added to an earlier result: arithmetic, no change a tool makes.
    assert not asks_to_change("then add 445 to that") and asks_to_change("add 445 to notes.txt")
    assert asks_to_change("append 'done' to it")
    memo = ToolSpec(server="db", name="append_insight", description="Add an insight to the memo.")
    assert asks_for_action(memo, "add 445 to the memo") is True
    assert asks_for_action(memo, "sum 1 and 2, then add 445 to that") is False
    # Commands as a terminal knows them; a branch checked out, a page only looked at.
    assert asks_to_change("mkdir /srv/drafts") and asks_to_change("check it out")
    assert asks_to_change("check out the branch v2") and asks_to_change("check out hotfix-3")
    assert not asks_to_change("check out http://example.org/menu")
    assert asks_to_change("could you check out her branch in /srv/repo?")
    assert asks_to_change("rm Mallory from my graph")  # a command's verb
    assert asks_to_change("start a new project folder") and not asks_to_change("start the timer")
    assert asks_to_change("open a new branch v2 in /r") and not asks_to_change("open /srv/a.txt")
    assert not asks_to_change("open the new file /srv/report.txt")
    assert asks_to_change("check feature/units out") and asks_to_change("I'd like a new branch v2")
    assert not asks_to_change("I'd like the new branches listed")
    # A value renamed is an update; a file renamed a move.
    update = ToolSpec(server="db", name="write_query", description="Execute an UPDATE query.")
    assert asks_for_action(update, 'rename the item "USB-C cable" to "USB-C (2m)" in orders')
    assert not asks_for_action(update, 'rename the file "a.txt" to "b.txt"')
    assert not asks_to_change("How do I change the default shell to zsh?")
    assert asks_to_change("set up the nested folders /srv/a/b") and asks_to_change(
        "set up a table for suppliers"
    )
    assert asks_to_change("record some feedback: rating 4") and asks_for_action(
        ToolSpec(server="db", name="write_query", description="Execute an INSERT query."),
        "record some feedback: rating 4",
    )
    written = ToolSpec(server="db", name="write_query", description="Execute an INSERT query.")
    assert not asks_for_action(written, "how many records are in users?")  # a noun
    assert asks_to_change("branch v2 off main in /r") and not asks_to_change(
        "branch v2 has 3 commits"
    )
    assert asks_to_change("branch docs/readme-tweaks in /r, stay on main")
    assert asks_to_change("/r: new branch cache-responses")
    create = ToolSpec(server="git", name="git_create_branch", description="Creates a new branch")
    assert asks_for_action(create, "/r: branch spike/geocoding off main")
    checkout = ToolSpec(server="git", name="git_checkout", description="Switches branches")
    assert asks_for_action(checkout, "please change to a different branch in /r")
    assert not asks_for_action(checkout, "change app.py in /r")


def test_a_statement_of_a_kind_the_parameter_does_not_take_is_none() -> None:
    writes = ("insert", "update", "delete")
    assert is_statement("DELETE FROM orders WHERE id = 4", writes)
    assert not is_statement("SELECT * FROM backup", writes)
    assert is_statement("WITH a AS (SELECT 1) SELECT * FROM a", ("select",))


def test_a_statement_that_binds_a_placeholder_is_none() -> None:
    # A tool that takes one SQL string binds nothing: "SET amount = ?" stores no given value.
    assert not is_statement("UPDATE orders SET amount = ? WHERE id = ?")
    assert not is_statement("SELECT * FROM users WHERE name = :name")
    assert not is_statement("DELETE FROM orders WHERE id = $1")
    assert is_statement("SELECT * FROM notes WHERE body = 'why? :-)' AND n::int = 3")
    assert is_statement("SELECT * FROM orders -- any orders?")  # a comment binds nothing
    assert not is_statement("UPDATE orders SET amount = %(amount)s")


def test_a_written_statement_takes_its_names_and_values_from_the_request() -> None:
    request = "Add a user to the users table: name Frank O'Neil, city Dublin"
    sql = "INSERT INTO users (name, city) VALUES ('Frank O''Neil', 'Dublin')"
    assert written_from(sql, request)
    made_up = "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT)"
    assert not written_from(made_up, "add a new user to the database")


def test_a_file_renamed_without_a_folder_stays_in_its_folder() -> None:
    moved = bound({"source": STRING, "destination": STRING}, "Rename todo.md in /srv/f to old.md")
    assert moved == {"source": "/srv/f/todo.md", "destination": "/srv/f/old.md"}
    moved = bound({"source": STRING, "destination": STRING}, "move /srv/a.txt to /tmp/b.txt")
    assert moved == {"source": "/srv/a.txt", "destination": "/tmp/b.txt"}


def test_text_after_words_that_announce_it_is_the_text() -> None:
    assert bound({"message": STRING}, "echo back exactly this: Hello, World!") == {
        "message": "Hello, World!"
    }


@pytest.mark.parametrize(
    ("text", "raw"),
    [
        ("fetch http://x.test/a.html as raw html (no markdown)", True),
        ("fetch http://x.test/a.html, not raw", None),
        ("fetch http://x.test/raw.html", None),  # a URL's words are no words of the request
    ],
)
def test_an_optional_switch_the_request_names_is_on(text: str, raw: bool | None) -> None:
    schema = {"type": "object", "properties": {"url": STRING, "raw": {"type": "boolean"}}}
    schema["required"] = ["url"]
    assert extract_arguments(schema, clause_of(0, text, TODAY)).arguments.get("raw") is raw


@pytest.mark.parametrize(
    ("text", "on"),
    [
        ("details of case 28473, their history too", True),  # the verb of its name unsaid
        ("details of case 28473, without their history", None),
        ("details of case 28473", None),
    ],
)
def test_a_switch_named_for_what_it_includes_is_on_when_that_is_named(
    text: str, on: bool | None
) -> None:
    schema = {
        "type": "object",
        "properties": {"case_number": STRING, "include_history": {"type": "boolean"}},
        "required": ["case_number"],
    }
    arguments = extract_arguments(schema, clause_of(0, text, TODAY)).arguments
    assert arguments.get("include_history") is on


def test_quotes_listed_as_lines_are_one_text_a_line_each() -> None:
    lines = "Project Beta\nOwner: Sam Ortiz"
    for text in (
        "new file /a/b.txt: 'Project Beta' / 'Owner: Sam Ortiz'",
        "create /a/b.txt with two lines: 'Project Beta' and 'Owner: Sam Ortiz'",
    ):
        assert [q.value for q in read_values(text, TODAY).quoted] == [lines]
    # two texts for two things are two
    assert [q.value for q in read_values("add 'x' and 'y' to Bob", TODAY).quoted] == ["x", "y"]


def test_the_phrases_a_value_may_be_copied_from() -> None:
    found = phrases("What was Albert Einstein's role? Find Mr. X in Washington D.C. or The Hague.")
    assert {"Albert Einstein", "Mr. X", "Washington D.C.", "The Hague"} <= set(found)
    # No phrase starts or ends with a small word, or runs across punctuation.
    assert not any(p.split()[0].lower() in ("the", "in", "or") and p != "The Hague" for p in found)
    assert not any("role" in p and "Find" in p for p in found) and "What was" not in found
    # A name in capitals is no value cut short: "Treaty" of "Treaty of Lisbon", "New" of "New York".
    named = phrases("the Treaty of Lisbon and New York")
    assert "Treaty of Lisbon" in named and "Treaty" not in named and "New" not in named
    # Nor with the verb a request opens with.
    assert not any(p.startswith(("Find", "What")) for p in found)


def test_a_value_composed_from_what_was_read_states_only_facts_found_there() -> None:
    request = "what did alice martin order (db)? → note it on Alice in memory"
    rows = "[{'item': 'Laptop stand', 'amount': 29.99}, {'item': 'USB-C cable', 'amount': 9.5}]"
    texts = [request, rows]
    assert composed_from(["ordered a Laptop stand and a USB-C cable"], texts)
    assert composed_from({"entityName": "Alice", "contents": ["Laptop stand: 29.99"]}, texts)
    assert not composed_from(["ordered a Laptop stand on 2 May"], texts)  # no date was read
    assert not composed_from(["Laptop stand for 30.00"], texts)  # nor that price
    assert not composed_from(["bought a Monitor"], texts)  # nor the thing
