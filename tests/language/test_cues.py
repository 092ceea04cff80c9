from __future__ import annotations

import pytest

from toolweave.language.cues import (
    appends,
    asks_for_action,
    asks_to_change,
    facts_named,
    lines_asked,
    names_again,
    negation_agrees,
    points_back,
    request_start,
    searchable,
    tells_me,
    unticks,
)
from toolweave.language.values import composed
from toolweave.types import ToolSpec


@pytest.mark.parametrize(
    ("text", "searched"),
    [
        ("Can you help me find a hotel in Rome?", "find a hotel in Rome?"),
        ("I need your help to track a package.", "track a package."),
        ("Please help me to translate this", "translate this"),
        ("I'm looking for a vegan restaurant", "a vegan restaurant"),
        ("I would like to book a flight", "book a flight"),
        # Questions keep their words; a wrapper with nothing after it stays as it is.
        ("What time is it in Tokyo?", "What time is it in Tokyo?"),
        ("Please help me.", "Please help me."),
    ],
)
def test_the_request_wrapper_is_not_searched(text: str, searched: str) -> None:
    assert searchable(text) == searched


def test_a_thing_named_before_asked_for_again() -> None:
    earlier = "What did commit HEAD~2 of /r introduce?"
    assert names_again("Show me that commit.", earlier)
    assert not names_again("Show me the latest commit.", earlier)
    assert not names_again("Show me that branch.", earlier)
    assert not names_again("How tall is that tower?", "Look up the Eiffel Tower.")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("find the ERROR line in /srv/server.log", "ERROR"),
        ("read the error entries of a.log", "error"),
        ("show the lines mentioning timeout in a.log", "timeout"),
        ('all lines with "WARN" in a.log', "WARN"),
        ("the first 3 lines of todo.md", ""),  # a count, not a word
        ("the last line of todo.md", ""),
        ("the second line of a.log", ""),  # a place or a role, not a word the lines hold
        ("the header line of a.csv", ""),
        ("the three lines of a.log", ""),
        ("lines containing 404 in a.log", "404"),
        ('save the "a|b" lines of x.log', ""),  # no word a reference can carry
        ("read /srv/a.log", ""),
    ],
)
def test_the_lines_a_clause_asks_for(text: str, word: str) -> None:
    assert lines_asked(text) == word


def test_a_state_the_clause_denies_is_the_tool_that_denies_it() -> None:
    """mcp-server-git: "what haven't I staged" is the diff of what is not yet staged."""
    unstaged = ToolSpec(
        server="git",
        name="git_diff_unstaged",
        description="Shows changes in the working directory that are not yet staged",
    )
    staged = ToolSpec(
        server="git", name="git_diff_staged", description="Shows changes that are staged"
    )
    for text in ("what have I changed but not staged yet?", "show me the unstaged changes"):
        assert negation_agrees(unstaged, text) == 1 and negation_agrees(staged, text) == -1
    # Nothing denied, or an inability, not a state: no say.
    assert negation_agrees(staged, "show me the staged changes") == 0
    finder = ToolSpec(server="fs", name="search_files", description="Find files by name")
    assert negation_agrees(finder, "I can't find the notes file, search for it") == 0


def test_adding_up_asks_for_a_sum_and_telling_for_what_a_result_says() -> None:
    assert not asks_to_change("could you add up the amounts of his orders")
    assert not asks_to_change("Please add the grocery amounts together using the sum tool")
    assert asks_to_change("add Carol to the users table")
    # a request that goes on after a comma is no fact before one
    assert asks_to_change("add her to your memory as a person, with her email as a note")
    assert tells_me("and tell me what comes back") and tells_me("tell me which files changed")
    assert not tells_me("tell me a joke") and not tells_me("what did they say?")


def test_the_facts_a_clause_names_and_a_lead_before_one() -> None:
    assert facts_named("add Dmitri Volkov to memory with his email address") == ["email"]
    assert facts_named("noting its owner and its deadline") == ["owner", "deadline"]
    assert facts_named("look up Bob Chen's city in the db") == ["city"]
    assert facts_named("get the phone number from a.html") == ["phone"]
    assert facts_named("add it to Bob in memory") == []
    assert facts_named("what's the name and the time?") == []  # said of too many things
    assert composed('record it on Bob as "lives in" followed by the city') == ("lives in", "city")
    assert composed("add 'default city is' plus that city") == ("default city is", "city")
    assert composed('add "likes tea" to Bob') is None


def test_a_record_given_for_someone_is_a_change() -> None:
    assert asks_to_change("feedback from emma schultz: 3 stars, 'Mouse is fine.'")
    assert asks_to_change("new order for Carla Reyes: 'Mouse pad', 9.99")
    assert not asks_to_change("orders for Carla Reyes: total amount")
    assert not asks_to_change("weather for Paris: 'tomorrow'?")
    # a request or a question after the colon, or an apostrophe that quotes nothing
    for text in (
        "Search for Bob: what's his email",
        "Tasks for today: list the ones marked 'urgent'",
        "Emails from Alice: summarize them, don't delete anything",
        "Summarize the meeting notes: focus on action items.",
        "Release notes: what changed in v2",
        "Read my notes: /a/notes.txt",
        "/a/alpha.txt deadline -> ?",
        "/a/data.csv revenue -> total",
        "Did I check it off?",
    ):
        assert not asks_to_change(text), text
    # notes given by the noun alone
    assert asks_to_change("Acme Corp obs: CEO is Wile E. Coyote")
    assert asks_to_change("memory notes → Bob: 'has a dog named Pepper'")
    assert not asks_to_change("Bob's notes: anything new?")
    # a file's field set by an arrow
    assert asks_to_change("/a/alpha.txt deadline -> 2024-12-06")
    assert not asks_to_change("/a/alpha.txt deadline?")
    # a question of a noun the verb's word opens
    assert not asks_to_change("/srv/repo: commit msg that introduced the config loader?")
    assert asks_to_change("commit message fix the loader")


def test_a_to_do_ticked_off_is_a_change() -> None:
    for text in (
        "tick off 'call the bank' in todo.md",
        'todo.md: mark "call the bank" done',
        "mark the 'call the bank' item in /a/todo.md as done",
        "cross 'call the bank' off",
        "dentist booked, tick it off in /a/todo.md",
    ):
        assert asks_to_change(text), text
    assert not asks_to_change("what's marked done in todo.md?")
    # or opened again
    for text in ("untick it in todo.md", 'mark "call the bank" as not done again in todo.md'):
        assert asks_to_change(text) and unticks(text), text
    assert not unticks("mark 'call the bank' as done")


def test_a_change_asked_politely_after_its_place_is_a_change() -> None:
    assert asks_to_change("in /srv/repo, Could you create a new branch for me?")
    assert not asks_to_change("in /srv/repo, could you tell me which branch is checked out?")


def test_a_line_added_to_a_file_that_is_there() -> None:
    assert appends('add "call the plumber" to /a/notes.txt')
    assert appends("add an unchecked item to my ~/todo.md")
    assert not appends("add a line to a new file /a/b.txt")  # made whole
    assert not appends("add Bob to memory")


def test_a_verb_going_on_asks_for_nothing() -> None:
    write = ToolSpec(server="db", name="write_query", description="Execute an INSERT query")
    assert asks_for_action(write, "put a row into the users table")
    assert not asks_for_action(write, "I'm putting together a guide: which orders are big?")
    # nor a noun right after a participle; a verb after a comma is one
    edit = ToolSpec(server="fs", name="edit_file", description="Make edits to a text file")
    assert not asks_for_action(edit, "show me the uncommitted changes to app.py")
    delete = ToolSpec(server="db", name="write_query", description="Execute a DELETE query")
    assert asks_for_action(delete, "order 7 was cancelled, delete it from the orders table")


def test_a_quoted_name_is_no_word_of_the_sentence() -> None:
    # "link" after "the 'works at'" is a noun: nothing is made.
    made = ToolSpec(server="fs", name="write_file", description="Create a new file.")
    assert not asks_for_action(made, "Bob left Initech, drop the 'works at' link")
    assert asks_for_action(made, "create the file 'a.txt'")


def test_a_change_said_without_its_verb() -> None:
    for text in (
        "relation: Carol mentors Bob",
        "memory: Carol 'reports to' Alice",
        "Bob: + 'speaks Japanese', + 'runs marathons'",
        "Project Falcon: add note 'kickoff'",
        # terse signs and verbs (eval servers, dev fresh14)
        "orders += Dmitri Volkov / USB hub / 19.90",
        "memory ← new person Hana, teaches yoga on tuesdays",
        "graph: Carol knows Bob",
        "/r: T.md → stage",
        "branch off as chore/readme in /r",
        "hop onto branch chore/readme",
        "Dmitri Volkov ordered a USB hub: could you enter that order in the orders table?",
    ):
        assert asks_to_change(text), text
    assert not asks_to_change("graph: who knows Bob?")
    assert not asks_to_change("Bob: what does he like?")
    assert not asks_to_change("/srv/repo: commit msg that introduced the config loader?")


def test_a_request_starts_after_the_sentences_telling_why() -> None:
    text = "I mixed people up: Bob never met Alice: could you delete the relation?"
    assert text[request_start(text) :] == "could you delete the relation?"
    assert request_start("Bob: remove 'likes tea'") == 0  # what it is about, not why
    assert request_start("What is 2+2?") == 0


def test_a_request_that_points_at_what_the_one_before_found() -> None:
    for clause in (
        "→ note it on Alice in memory",
        "save that price in a new file /f/cake.txt",
        "add them to memory as a person",
        "put his email into /f/a.txt",
    ):
        assert points_back(clause), clause
    for clause in ("note that Bob likes tea", "create /f/b.txt", "add an item to /f/todo.md"):
        assert not points_back(clause), clause


def test_someones_field_and_what_it_becomes_asks_for_that_change() -> None:
    """Seen on mcp-server-sqlite: "dmitri volkov's email → dmitri.volkov@example.net" had been
    a read of his email saved to "the file" dmitri.volkov@example.net, as a memo."""
    assert asks_to_change("Dmitri Volkov's email → dmitri.volkov@example.net")
    assert asks_to_change("Bob's city -> Vancouver")
    assert asks_to_change("emma schultz's email is now emma@schultz.example → users")
    assert asks_to_change("Bob Chen moved to Vancouver, update his city")  # a fact, then his field
    assert not asks_to_change("Bob's orders -> /a/orders.txt")  # saved to a file: a read first
    assert not asks_to_change("what is Bob's city?")
    # ... and a tool that updates rows is what it asks for, with no verb said
    update = ToolSpec(server="db", name="write_query", description="Execute an UPDATE query")
    assert asks_for_action(update, "Dmitri Volkov's email → dmitri.volkov@example.net")


def test_logging_a_thing_records_it_and_reads_no_log() -> None:
    history = ToolSpec(server="git", name="git_log", description="Shows the commit logs")
    insert = ToolSpec(server="db", name="write_query", description="Execute an INSERT query")
    assert not asks_for_action(history, "log an order: Alice Martin, 39.95")
    assert asks_for_action(insert, "log an order: Alice Martin, 39.95")


def test_tracking_a_file_stages_it() -> None:
    add = ToolSpec(
        server="git", name="git_add", description="Adds file contents to the staging area"
    )
    log = ToolSpec(server="git", name="git_log", description="Shows the commit logs")
    assert asks_for_action(add, "start tracking TODO.md in /srv/repo")
    assert asks_for_action(add, "track notes.txt in git")
    assert not asks_for_action(add, "track my package")
    assert not asks_for_action(log, "start tracking TODO.md")  # no commit asked for
