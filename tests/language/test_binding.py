from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolweave.language import clause_of
from toolweave.language.binding import (
    extract_arguments,
    feasibility,
    folder_for_folders,
    leaves_a_value,
    listed_sets,
    locators_fill,
    misses_the_table,
    other_kind_of_path,
    rewrites_whole,
    value_sets,
)
from toolweave.language.parameters import options, param_kind
from toolweave.types import Quoted, ToolHints, ToolSpec

TODAY = date(2026, 11, 22)
STRING = {"type": "string"}


def bound(schema: dict[str, Any], text: str) -> dict[str, Any]:
    return extract_arguments(schema, clause_of(0, text, TODAY)).arguments


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a bus from New York to Boston", {"origin": "New York", "destination": "Boston"}),
        ("a bus to Boston from New York", {"origin": "New York", "destination": "Boston"}),
        # No "from" or "to": the places in their order, as for any place parameter.
        ("a bus in Lyon", {"origin": "Lyon"}),
    ],
)
def test_origin_and_destination_follow_from_and_to(text: str, expected: dict[str, str]) -> None:
    schema = {"properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}
    assert bound(schema, text) == expected


def test_an_identifier_is_no_place() -> None:
    schema = {"properties": {"locationId": {"type": "string"}, "city": {"type": "string"}}}
    assert bound(schema, "restaurants in Rome") == {"city": "Rome"}


CITY = {"properties": {"city": {"type": "string"}}, "required": ["city"]}
BMI = {
    "properties": {"height": {"type": "number"}, "weight": {"type": "number"}},
    "required": ["height", "weight"],
}


NAMED = {
    "properties": {"query": {"type": "string", "description": "Matched against entity names"}},
    "required": ["query"],
}
QUERY = {"properties": {"query": {"type": "string"}}, "required": ["query"]}


@pytest.mark.parametrize(
    ("schema", "text", "sets"),
    [
        (CITY, "weather in Paris, Rome and Oslo", [{"city": c} for c in ("Paris", "Rome", "Oslo")]),
        (
            BMI,
            "BMI at 6 feet and 80 kg, also at 5.6 feet and 60 kg",
            [{"height": 6, "weight": 80}, {"height": 5.6, "weight": 60}],
        ),
        (CITY, "weather in Paris", []),  # one set: one call
        (CITY, "flights from Paris to Rome", []),  # a route, not a list
        # A percentage parameter takes one of the numbers; a date's digits are no numbers.
        (
            {
                "properties": {
                    "price": {"type": "number"},
                    "discount_percentage": {"type": "number"},
                },
                "required": ["price", "discount_percentage"],
            },
            "price of 100 and a discount percentage of 10, due on January 31, 2025",
            [],
        ),
        # Quoted strings serve too many parameters to be told apart.
        ({"properties": {"title": {"type": "string"}}, "required": ["title"]}, "'A', 'B'", []),
        (BMI, "BMI at 6 feet, 80 kg and 5.6 feet", []),  # no whole number of sets
        # A data list is no list of calls.
        ({"properties": {"n": {"type": "integer"}}, "required": ["n"]}, "bins " + "1, " * 9, []),
        # Names listed for a search matched against names (server-memory's search_nodes).
        (
            NAMED,
            "everything memory has on Alice and on Carol",
            [{"query": "Alice"}, {"query": "Carol"}],
        ),
        (NAMED, "what did Alice tell Carol?", []),  # two names, no list
        (QUERY, "news on Alice and Carol", []),  # a search of words takes them together
        # A list of numbers one value heads; the other values the same in each set.
        (
            {
                "properties": {"loan_amount": {"type": "number"}, "loan_term": {"type": "integer"}},
                "required": ["loan_amount", "loan_term"],
            },
            "a loan amount of $400,000 for a loan term of 15, 20 and 30 years",
            [{"loan_amount": 400000, "loan_term": t} for t in (15, 20, 30)],
        ),
        # Lists for a list of numbers: a call per list.
        (
            {
                "properties": {"table": {"type": "array", "items": {"type": "integer"}}},
                "required": ["table"],
            },
            "the first table is [45, 55, 35, 65] and the second table is [30, 70, 50, 50]",
            [{"table": [45, 55, 35, 65]}, {"table": [30, 70, 50, 50]}],
        ),
    ],
)
def test_value_sets(schema: dict[str, Any], text: str, sets: list[dict[str, Any]]) -> None:
    assert value_sets(schema, clause_of(0, text, TODAY)) == sets


def one_call(name: str, properties: dict[str, Any]) -> ToolSpec:
    schema = {"properties": properties, "required": list(properties)}
    return ToolSpec(server="s", name=name, input_schema=schema)


def test_feasibility_favours_the_tool_that_uses_the_values() -> None:
    zone = {"type": "string", "description": "IANA timezone"}
    convert = one_call(
        "convert_time",
        {
            "source_timezone": zone,
            "time": {"type": "string", "description": "HH:MM"},
            "target_timezone": zone,
        },
    )
    current = one_call("get_current_time", {"timezone": zone})
    clause = clause_of(0, "what time is it in Tokyo when it is 9:00 in Paris?", TODAY)
    assert feasibility(convert, clause) > feasibility(current, clause)
    # A zone written by its IANA name is one value, and a time's zone the one said before it
    # when none follows it.
    text = "a call in Tokyo (Asia/Tokyo) at 09:00 her time: what is that in Asia/Kolkata time?"
    clause = clause_of(0, text, TODAY)
    assert feasibility(convert, clause) - feasibility(current, clause) >= 0.25
    assert extract_arguments(convert.input_schema, clause).arguments == {
        "source_timezone": "Asia/Tokyo",
        "time": "09:00",
        "target_timezone": "Asia/Kolkata",
    }
    # "my time": where the user says they are
    text = "I'm in Phoenix, calling Taipei at 6 pm my time: what time is that in Taipei?"
    assert extract_arguments(convert.input_schema, clause_of(0, text, TODAY)).arguments == {
        "source_timezone": "America/Phoenix",
        "time": "18:00",
        "target_timezone": "Asia/Taipei",
    }


def test_a_commit_named_is_a_value_a_log_does_not_use() -> None:
    repo = {"type": "string"}
    show = one_call("git_show", {"repo_path": repo, "revision": {"type": "string"}})
    log = one_call("git_log", {"repo_path": repo})
    diff = one_call("git_diff", {"repo_path": repo, "target": {"type": "string"}})
    clause = clause_of(0, "what did the last commit in /srv/repo change?", TODAY)
    assert feasibility(show, clause) == 1.0
    assert feasibility(show, clause) > max(feasibility(log, clause), feasibility(diff, clause))


def test_feasibility_counts_every_value_one_argument_uses() -> None:
    """A statement uses the place and the name it spells out; the table's name alone uses
    neither."""
    read = one_call("read_query", {"query": {"type": "string", "description": "SELECT SQL"}})
    describe = one_call("describe_table", {"table_name": {"type": "string"}})
    clause = clause_of(0, "who in the staff table has Bergen as their town?", TODAY)
    assert feasibility(read, clause) == 1.0
    assert feasibility(describe, clause) == 0.5


def test_a_clause_that_was_not_analysed_is_refused() -> None:
    from toolweave.types import Clause

    with pytest.raises(ValueError, match="not analysed"):
        extract_arguments({"properties": {"q": {"type": "string"}}}, Clause(index=0, text="x"))


def test_each_extracted_value_records_where_the_clause_gives_it() -> None:
    clause = clause_of(0, 'convert 9:30 am from London to Tokyo and label it "trip"', TODAY)
    schema = {
        "properties": {
            "source_timezone": {"type": "string", "description": "IANA timezone"},
            "time": {"type": "string", "description": "HH:MM"},
            "target_timezone": {"type": "string", "description": "IANA timezone"},
            "label": {"type": "string"},
        },
        "required": ["source_timezone", "time", "target_timezone", "label"],
    }
    filled = extract_arguments(schema, clause)
    words = {name: clause.text[s.start : s.end] for name, s in filled.spans.items()}
    assert words == {
        "source_timezone": "London",
        "time": "9:30 am",
        "target_timezone": "Tokyo",
        "label": "trip",
    }
    assert filled.arguments["time"] == "09:30"  # the value normalised, its words kept


def test_an_sql_parameter_takes_the_statement_the_clause_spells_out() -> None:
    """Not one a small model makes up (it had read a user "John" into a query), and only of
    the kind the parameter takes (language/test_sql.py has the statements)."""
    read = {
        "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
        "required": ["query"],
    }
    wanted = {"query": "SELECT * FROM users WHERE city = 'Lyon'"}
    assert bound(read, "find everyone in the users table whose city is Lyon") == wanted
    assert bound(read, "which users have Lyon as their city?") == {}  # no table named
    assert bound(read, "add to the users table: name Bob, city Lyon") == {}
    write = {
        "properties": {"query": {"type": "string", "description": "SQL to execute"}},
        "required": ["query"],
    }
    assert bound(write, "add Bob to the users table") == {}
    assert bound(write, "add to the users table: name Bob, city Lyon") == {
        "query": "INSERT INTO users (name, city) VALUES ('Bob', 'Lyon')"
    }
    # A quoted text is a row's value, never the statement: "comment 'Fast'" is no SQL.
    assert bound(write, "add a row to users with name Bob and the comment 'Fast'") == {
        "query": "INSERT INTO users (name, comment) VALUES ('Bob', 'Fast')"
    }
    assert bound(write, "note 'Fast delivery' in the database") == {}
    assert bound(write, "run 'DELETE FROM users WHERE id = 3'") == {
        "query": "DELETE FROM users WHERE id = 3"
    }


def test_a_file_is_no_folder_and_a_folder_no_file() -> None:
    def tool(name: str, description: str) -> ToolSpec:
        schema = {"properties": {"path": {"type": "string"}}, "required": ["path"]}
        return ToolSpec(server="fs", name=name, description=description, input_schema=schema)

    tree = tool("directory_tree", "A recursive tree of files and directories.")
    read = tool("read_text_file", "Read a file as text. Only works within allowed directories.")
    info = tool("get_file_info", "Metadata about a file or directory.")
    lines = clause_of(0, "what do the first 3 lines of /srv/todo.md say?", TODAY)
    listing = clause_of(0, "What files are in /srv/projects?", TODAY)
    assert other_kind_of_path(tree, lines) and not other_kind_of_path(read, lines)
    assert other_kind_of_path(read, listing) and not other_kind_of_path(tree, listing)
    assert not other_kind_of_path(info, listing) and not other_kind_of_path(info, lines)
    asked = clause_of(0, "I'd like to see which files /srv/projects has", TODAY)
    assert other_kind_of_path(read, asked) and not other_kind_of_path(tree, asked)
    # A path the clause does not call a folder may be either.
    assert not other_kind_of_path(read, clause_of(0, "read /srv/Makefile", TODAY))
    # A new file asked for is no folder made (Qwen2.5-Coder: create_directory(/srv/files)).
    mkdir = tool("create_directory", "Create a new directory.")
    mkdir.hints = ToolHints(read_only=False)
    made = clause_of(0, "make a new file in /srv/files for me", TODAY)
    assert other_kind_of_path(mkdir, made) and not folder_for_folders(mkdir, made)
    # The folder is where a tool that writes files puts it, and no path the request gives.
    write = tool("write_file", "Create a new file or overwrite an existing one.")
    write.hints = ToolHints(read_only=False)
    assert not other_kind_of_path(write, made)
    schema = {"properties": {"path": {"type": "string"}}}
    assert bound(schema, "make me a new document in /srv/files") == {}
    assert not other_kind_of_path(mkdir, clause_of(0, "create the folder /srv/archive", TODAY))
    # nor is a file put into a folder (a move)
    moved = clause_of(0, "put server.log from /srv in the folder /srv/old", TODAY)
    assert other_kind_of_path(mkdir, moved)
    # A folder named by a word before "folder", in the folder the clause gives.
    drafts = clause_of(0, "make a drafts folder in /srv/files", TODAY)
    assert other_kind_of_path(read, drafts) and not other_kind_of_path(tree, drafts)
    assert bound({"properties": {"path": {"type": "string"}}}, drafts.text) == {
        "path": "/srv/files/drafts"
    }
    # A new folder in a folder, unnamed, is no path the request gives; named, the two joined.
    assert bound({"properties": {"path": {"type": "string"}}}, "make a new folder in /srv") == {}
    named = "make a new subfolder in /srv called reports"
    assert bound({"properties": {"path": {"type": "string"}}}, named) == {"path": "/srv/reports"}
    unnamed = "jot this down in a new text file in my /srv folder: 'call Bo'"
    assert bound({"properties": {"path": {"type": "string"}}}, unnamed) == {}


def test_an_edit_list_takes_the_replacements_the_clause_asks_for() -> None:
    item = {"oldText": {"type": "string"}, "newText": {"type": "string"}}
    schema = {
        "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": item}},
        },
        "required": ["path", "edits"],
    }
    assert bound(schema, "in /srv/todo.md swap leaking tap for kitchen tap") == {
        "path": "/srv/todo.md",
        "edits": [{"oldText": "leaking tap", "newText": "kitchen tap"}],
    }
    assert bound(schema, "show me /srv/todo.md") == {"path": "/srv/todo.md"}
    # A text and what it becomes is an edit: a tool that writes a whole content would lose the
    # rest of the file ("make it "June 10" instead of "June 3"" was written as notes.txt).
    text = 'in /srv/notes.txt make it "June 10" instead of "June 3"'
    write = {"properties": {"path": {"type": "string"}, "content": {"type": "string"}}}
    write["required"] = ["path", "content"]
    clause = clause_of(0, text, TODAY)
    assert rewrites_whole(ToolSpec(server="fs", name="write_file", input_schema=write), clause)
    assert not rewrites_whole(ToolSpec(server="fs", name="edit_file", input_schema=schema), clause)
    # So does a line added to a file the request keeps.
    added = clause_of(0, 'add "water the plants" as a new last line of /srv/n.txt', TODAY)
    assert rewrites_whole(ToolSpec(server="fs", name="write_file", input_schema=write), added)
    memo = {"properties": {"insight": {"type": "string"}}, "required": ["insight"]}
    sql = {"properties": {"query": {"type": "string", "description": "SQL"}}, "required": ["query"]}
    into = clause_of(0, "add Carol to the users table with email c@x.org", TODAY)
    into.held = [Quoted(start=16, end=21, value="users")]
    into.fields = {"users": ["id", "name", "email"]}
    assert (
        misses_the_table(ToolSpec(server="db", name="append_insight", input_schema=memo), into) == 2
    )
    assert not misses_the_table(ToolSpec(server="db", name="write_query", input_schema=sql), into)
    # A field of a held table changed, no place given: a record's, not a file's edit.
    edit = {"properties": {"path": {"type": "string"}, "edits": {"type": "array"}}}
    field = clause_of(0, "change order 4's amount to 5.75", TODAY)
    field.held = [Quoted(start=7, end=12, value="orders")]
    field.fields = {"orders": ["id", "item", "amount"]}
    assert misses_the_table(ToolSpec(server="fs", name="edit_file", input_schema=edit), field) == 1
    assert not misses_the_table(ToolSpec(server="db", name="write_query", input_schema=sql), field)
    saved = clause_of(0, "save order 4's amount to /srv/a.txt", TODAY)
    saved.held, saved.fields = field.held, field.fields
    assert not misses_the_table(ToolSpec(server="fs", name="edit_file", input_schema=edit), saved)
    # A row of the table said as "an order", and a file put into, are places too.
    order = clause_of(0, "add an order for Emma with the item 'Carrot cake'", TODAY)
    order.held, order.fields = field.held, field.fields
    assert misses_the_table(ToolSpec(server="db", name="append_insight", input_schema=memo), order)
    assert not misses_the_table(ToolSpec(server="db", name="write_query", input_schema=sql), order)
    given = clause_of(0, "order for Bob Chen (user_id 2): 'Cinnamon roll' at 2.90", TODAY)
    given.held, given.fields = field.held, field.fields  # a row given without a verb
    assert misses_the_table(ToolSpec(server="db", name="append_insight", input_schema=memo), given)
    listed = clause_of(0, "add order: 4, Lamp, 12.50", TODAY)  # a row said by its table
    listed.held, listed.fields = field.held, field.fields
    assert misses_the_table(ToolSpec(server="db", name="append_insight", input_schema=memo), listed)
    item = clause_of(0, "add an unchecked item to my /srv/todo.md", TODAY)
    assert misses_the_table(ToolSpec(server="db", name="append_insight", input_schema=memo), item)
    assert not misses_the_table(ToolSpec(server="fs", name="edit_file", input_schema=edit), item)
    moved = clause_of(0, "rename /srv/a.txt to b.txt", TODAY)  # where a move puts it
    move = {"properties": {"source": {"type": "string"}, "destination": {"type": "string"}}}
    assert not misses_the_table(ToolSpec(server="fs", name="move_file", input_schema=move), moved)
    read = clause_of(0, "add what /srv/a.txt says to memory", TODAY)  # a file read is no place
    assert not misses_the_table(
        ToolSpec(server="db", name="append_insight", input_schema=memo), read
    )


def test_a_count_written_as_a_word_is_read_where_it_counts() -> None:
    schema = {
        "properties": {
            "path": {"type": "string"},
            "head": {"type": "number", "description": "the first N lines"},
            "tail": {"type": "number", "description": "the last N lines"},
        },
        "required": ["path"],
    }
    assert bound(schema, "what do the first three lines of /a/todo.md say?") == {
        "path": "/a/todo.md",
        "head": 3,
    }
    assert bound(schema, "read one of /a/todo.md") == {"path": "/a/todo.md"}
    # "two files" counts files, not the lines a count of the description counts.
    schema["properties"]["tail"]["description"] = "the last N lines of the file"
    assert bound(schema, "a look at two files, /a/todo.md and /a/b.md") == {"path": "/a/todo.md"}


def test_a_number_counts_for_the_parameter_named_beside_it() -> None:
    """Seen on the test half of eval servers: "duration 2, steps 4" gave steps=2."""
    number = {"type": "number"}
    run = {
        "properties": {"duration": number, "steps": {**number, "description": "Number of steps"}}
    }
    for text in ("run it: duration 2, steps 4", "run it with duration 2 and 4 steps"):
        assert bound(run, text) == {"duration": 2, "steps": 4}
    run["properties"]["duration"]["description"] = "Duration of the operation in seconds"
    assert bound(run, "run the long op: 6 s, 3 steps") == {"duration": 6, "steps": 3}
    path = {"type": "string"}
    log = {"properties": {"repo_path": path, "max_count": number}, "required": ["repo_path"]}
    for text in ("show the last 3 commits in /r", "the three most recent commits in /r"):
        assert bound(log, text) == {"repo_path": "/r", "max_count": 3}
    assert bound(log, "show the commits in /r") == {"repo_path": "/r"}
    read = {"properties": {"path": path, "tail": number, "head": number}, "required": ["path"]}
    assert bound(read, "tail -n 2 /a/server.log") == {"path": "/a/server.log", "tail": 2}
    # A path after the number names no unit of it, whatever the description counts.
    read["properties"]["tail"] = {**number, "description": "Only the last N lines of the file"}
    assert bound(read, "tail -n 2 /a/server.log") == {"path": "/a/server.log", "tail": 2}


def test_a_revision_is_copied_as_git_writes_it() -> None:
    show = {
        "properties": {"repo_path": {"type": "string"}, "revision": {"type": "string"}},
        "required": ["repo_path", "revision"],
    }
    assert bound(show, "print HEAD:app/main.py from /srv/repo")["revision"] == "HEAD:app/main.py"
    assert bound(show, "show commit 9c1e07a in /srv/repo")["revision"] == "9c1e07a"
    assert bound(show, "what did the last commit in /srv/repo change?")["revision"] == "HEAD"
    # A file inside the repository, as that revision has it; a target is a revision alone.
    text = "config.py as it is in the latest commit of /srv/repo"
    assert bound(show, text)["revision"] == "HEAD:config.py"
    committed = "the default city in the committed config.py in /srv/repo?"
    assert bound(show, committed)["revision"] == "HEAD:config.py"
    assert "revision" not in bound(show, "what got committed in /srv/repo today?")
    target = {"properties": {"target": {"type": "string"}}}
    assert bound(target, "diff /srv/repo against the latest commit") == {"target": "HEAD"}
    # A diff's target is the other side of a comparison: one commit alone is shown.
    assert bound(target, text) == {}
    diff = {"properties": {"target": {"type": "string"}}, "required": ["target"]}
    assert bound(diff, "diff against HEAD~3") == {"target": "HEAD~3"}
    assert bound(diff, "diff the branch against the one from 2024") == {}  # no revision given
    # The file is part of the value: the tool uses every value "config.py at HEAD" gives.
    tool = ToolSpec(server="git", name="git_show", input_schema=show)
    at_head = clause_of(0, "default api_url in config.py at HEAD of /srv/repo?", TODAY)
    assert feasibility(tool, at_head) == 1.0


def test_a_row_is_found_by_the_name_after_for() -> None:
    """ "the total for Bob Chen": after "for", a person as often as a place; a name said twice
    is one value."""
    sql = {"properties": {"query": {"type": "string", "description": "SQL"}}, "required": ["query"]}
    total = clause_of(0, "total order amount for Bob Chen?", TODAY)
    total.held = [Quoted(start=6, end=11, value="orders")]
    total.fields = {"orders": ["id", "user_id", "amount"], "users": ["id", "name", "city"]}
    query = extract_arguments(sql, total).arguments["query"]
    assert query.endswith("WHERE users.name = 'Bob Chen'")
    text = "update Carla Reyes's record in the users table so Carla Reyes's city is Seville"
    moved = clause_of(0, text, TODAY)
    moved.held = [Quoted(start=35, end=40, value="users")]
    moved.fields = {"users": ["id", "name", "email", "city"]}
    assert extract_arguments(sql, moved).arguments["query"] == (
        "UPDATE users SET city = 'Seville' WHERE name = 'Carla Reyes'"
    )


def test_a_timestamp_takes_a_date_never_a_path() -> None:
    log = {
        "properties": {
            "repo_path": {"type": "string"},
            "start_timestamp": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["repo_path"],
    }
    assert bound(log, "print HEAD:config.py from /srv/repo") == {"repo_path": "/srv/repo"}
    assert bound(log, "commits in /srv/repo since 2024-01-15") == {
        "repo_path": "/srv/repo",
        "start_timestamp": "2024-01-15",
    }


def test_options_a_description_lists_are_a_closed_set() -> None:
    """mcp-server-git's `branch_type` lists its options in words, with no `enum`."""
    said = "Whether to list local branches ('local'), remote branches ('remote') or all ('all')."
    schema = {
        "properties": {"branch_type": {"type": "string", "description": said}},
        "required": ["branch_type"],
    }
    assert bound(schema, "list the remote branches") == {"branch_type": "remote"}
    assert bound(schema, "a branch called hotfix-1.0.1") == {}
    # Examples are no options.
    when = "A date, e.g. 'today' or 'yesterday'."
    assert options({"type": "string", "description": when}) == []


def test_an_earlier_result_is_the_one_value_missing_but_never_a_place() -> None:
    number = {"type": "number"}
    add = one_call("get-sum", {"a": number, "b": number})
    assert feasibility(add, clause_of(1, "then add 445 to that", TODAY)) == 1.0
    files = {"type": "array", "items": {"type": "string"}}
    stage = one_call("git_add", {"repo_path": {"type": "string"}, "files": files})
    text = 'Create /srv/config.json with exactly this content: {"theme": "dark"}'
    assert feasibility(stage, clause_of(0, text, TODAY)) < 0.5  # "this" gives no repository


def test_the_things_a_stated_fact_names_are_not_what_that_fact_asks_to_change() -> None:
    names = {"type": "array", "items": {"type": "string"}}
    forget = one_call("delete_entities", {"entityNames": names})
    fact = "Bob got over his peanut allergy, take that out of memory"
    assert feasibility(forget, clause_of(0, fact, TODAY)) == 0.0
    assert feasibility(forget, clause_of(0, "forget Bob", TODAY)) == 1.0


def test_files_read_one_call_each_and_one_file_is_no_list_of_them() -> None:
    """ "Read a.txt and b.csv" reads each; a tool that would write them alike is not fanned out,
    and one path fills half a list of paths (`read_multiple_files`)."""
    path = {"properties": {"path": {"type": "string"}}, "required": ["path"]}
    text = "read alpha.txt and budget.csv, both in /srv/p"
    assert value_sets(path, clause_of(0, text, TODAY), files=True) == [
        {"path": "/srv/p/alpha.txt"},
        {"path": "/srv/p/budget.csv"},
    ]
    assert value_sets(path, clause_of(0, text, TODAY)) == []
    many = one_call(
        "read_multiple_files", {"paths": {"type": "array", "items": {"type": "string"}}}
    )
    one = one_call("read_text_file", {"path": {"type": "string"}})
    single = clause_of(0, "the biggest expense in /srv/expenses.csv?", TODAY)
    assert feasibility(many, single) < feasibility(one, single)


def test_a_query_matched_against_names_takes_the_name_the_clause_gives() -> None:
    """server-memory's search_nodes matches its query against what it holds, word for word."""
    matched = {"type": "string", "description": "The search query to match against entity names"}
    assert bound(
        {"properties": {"query": matched}, "required": ["query"]}, "look up Ada in memory"
    ) == {"query": "Ada"}
    read = {"properties": {"query": {"type": "string"}}, "required": ["query"]}
    assert bound(read, "look up Ada in memory") == {"query": "look up Ada in memory"}
    # No name given: a word of the clause the server's records say (Engine.rank finds them).
    clause = clause_of(0, "who is allergic to peanuts?", TODAY)
    matching = {"properties": {"query": matched}, "required": ["query"]}
    assert extract_arguments(matching, clause).arguments == {"query": clause.text}
    # in the singular, which a search matching parts of words finds in the plural too
    clause.about = [Quoted(start=19, end=26, value="peanuts")]
    assert extract_arguments(matching, clause).arguments == {"query": "peanut"}
    clause = clause_of(0, "which companies have I stored in memory?", TODAY)
    clause.about = [Quoted(start=6, end=15, value="companies")]
    assert extract_arguments(matching, clause).arguments == {"query": "company"}


MOVE = {
    "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
    "required": ["source", "destination"],
}


@pytest.mark.parametrize(
    ("text", "destination"),
    [
        ("move /data/log.txt into /data/archive", "/data/archive/log.txt"),
        ("move /data/log.txt to the /data/archive folder", "/data/archive/log.txt"),
        ("put log.txt from /data in the folder /data/archive", "/data/archive/log.txt"),
        ("move /data/log.txt to /data/old.txt", "/data/old.txt"),
        ("rename /data/log.txt to old.txt", "/data/old.txt"),
        ("rename the folder /data/old to archive", "/data/archive"),  # a new name alone
        # a new name in the folder the file is moved into
        ("move /data/log.txt into /data/archive, renamed to old.txt", "/data/archive/old.txt"),
        ("move /data/log.txt in /data/archive as old.txt", "/data/archive/old.txt"),
    ],
)
def test_a_file_moved_into_a_folder_keeps_its_name(text: str, destination: str) -> None:
    assert bound(MOVE, text)["destination"] == destination


def test_file_names_after_the_folder_a_request_opens_with_are_in_it() -> None:
    # Not the folder itself moved beside its parent.
    assert bound(MOVE, "in /data/old rename draft.txt to final.txt") == {
        "source": "/data/old/draft.txt",
        "destination": "/data/old/final.txt",
    }


FIND = {
    "properties": {"path": {"type": "string"}, "pattern": {"type": "string"}},
    "required": ["path", "pattern"],
}


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("list *.md in /docs", "*.md"),
        ("find the json files in /docs", "*.json"),
        ("find every json file in /docs", "*.json"),
        ("find every csv in /docs", "*.csv"),
        ("all the pdfs in /docs", "*.pdf"),
        ("which files under /docs end in .yaml? check subfolders too", "**/*.yaml"),
        ("look for .py files anywhere in /docs", "**/*.py"),
        ('search /docs for anything with "draft" in its name', "*draft*"),
        ("files in /docs whose name contains plan", "*plan*"),
        ('find files with "notes" in the name under /docs', "**/*notes*"),
    ],
)
def test_a_file_pattern_is_copied_or_made_from_the_kind_of_file_said(
    text: str, pattern: str
) -> None:
    assert bound(FIND, text) == {"path": "/docs", "pattern": pattern}


def test_a_pattern_described_as_a_regular_expression_takes_no_glob() -> None:
    regex = {"type": "string", "description": "A regular expression to match lines"}
    schema = {"properties": {"pattern": regex}, "required": ["pattern"]}
    assert bound(schema, "find the json files in /docs").get("pattern") != "*.json"


def test_a_count_flag_as_a_command_line_writes_it() -> None:
    schema = {"properties": {"repo_path": {"type": "string"}, "max_count": {"type": "integer"}}}
    assert bound(schema, "git log -n 4 in /src/app") == {"repo_path": "/src/app", "max_count": 4}


def test_a_text_to_be_replaced_is_no_content_to_write() -> None:
    schema = {
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    assert bound(schema, 'in /a/plan.txt, replace "draft" with "final"') == {"path": "/a/plan.txt"}


def test_a_name_a_server_holds_is_the_one_beside_the_noun() -> None:
    schema = {"properties": {"table_name": {"type": "string"}}, "required": ["table_name"]}
    clause = clause_of(0, "rooms table schema?", TODAY)
    assert extract_arguments(schema, clause).arguments == {"table_name": "schema"}
    clause.held = [Quoted(start=0, end=5, value="rooms")]
    assert extract_arguments(schema, clause).arguments == {"table_name": "rooms"}
    # A word before the noun that nothing holds names nothing: "a new git branch".
    branch = {"properties": {"branch_name": {"type": "string"}}, "required": ["branch_name"]}
    for text in ("start a new git branch in /r", "check out another branch in /r"):
        assert extract_arguments(branch, clause_of(0, text, TODAY)).arguments == {}
    clause = clause_of(0, "branch off as chore/readme in /r", TODAY)
    assert extract_arguments(branch, clause).arguments == {"branch_name": "chore/readme"}


def test_a_query_matched_against_names_takes_a_held_name_written_in_lowercase() -> None:
    query = {"type": "string", "description": "The text to match against entity names"}
    schema = {"properties": {"query": query}, "required": ["query"]}
    clause = clause_of(0, "orbit labs deadline?", TODAY)
    clause.held = [Quoted(start=0, end=10, value="Orbit Labs")]
    assert extract_arguments(schema, clause).arguments == {"query": "Orbit Labs"}


def test_all_of_the_options_said_is_the_option_all() -> None:
    kinds = {"type": "string", "enum": ["local", "remote", "all"]}
    schema = {"properties": {"branch_type": kinds}, "required": ["branch_type"]}
    for text in ("list all branches, remote ones included", "show both local and remote branches"):
        assert bound(schema, text) == {"branch_type": "all"}
    assert bound(schema, "list the remote branches") == {"branch_type": "remote"}


def test_a_table_held_is_not_read_for_a_clause_about_a_file_or_page() -> None:
    schema = {
        "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
        "required": ["query"],
    }
    asked = clause_of(0, "show me order 5", TODAY)
    asked.held = [Quoted(start=8, end=13, value="orders")]
    assert extract_arguments(schema, asked).arguments == {
        "query": "SELECT * FROM orders WHERE id = 5"  # the row said by its number
    }
    # "order 1042 in server.log": the file is what is asked about.
    logged = clause_of(0, "order 1042 in /srv/server.log - did the payment go through?", TODAY)
    logged.held = [Quoted(start=0, end=5, value="orders")]
    assert extract_arguments(schema, logged).arguments == {}
    # A domain is no file: "users with an email address at example.com" read the users table.
    domain = clause_of(0, "which users have an email address at example.com?", TODAY)
    domain.held = [Quoted(start=6, end=11, value="users")]
    assert extract_arguments(schema, domain).arguments == {"query": "SELECT * FROM users"}


def test_a_file_is_no_repository_and_the_paths_given_may_fill_a_reading_tool() -> None:
    repo = {"properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}
    log = ToolSpec(
        server="git", name="git_log", description="Shows the commit logs", input_schema=repo
    )
    path = {"properties": {"path": {"type": "string"}}, "required": ["path"]}
    read = ToolSpec(
        server="fs", name="read_text_file", description="Read a file", input_schema=path
    )
    clause = clause_of(0, "order 1042 in /srv/server.log - did the payment go through?", TODAY)
    assert other_kind_of_path(log, clause) and not other_kind_of_path(read, clause)
    assert locators_fill(read, clause) and not locators_fill(log, clause)
    assert not other_kind_of_path(log, clause_of(0, "the log of /srv/repo", TODAY))


def test_a_clock_time_given_for_a_tool_with_no_parameter_for_it() -> None:
    zone = {"type": "string"}
    now = ToolSpec(
        server="t", name="get_current_time", input_schema={"properties": {"timezone": zone}}
    )
    convert = ToolSpec(
        server="t",
        name="convert_time",
        input_schema={
            "properties": {"source_timezone": zone, "time": zone, "target_timezone": zone}
        },
    )
    forecast = ToolSpec(server="w", name="forecast", input_schema={"properties": {"days": zone}})
    clause = clause_of(0, "09:30 Nairobi -> Bangkok time", TODAY)
    assert leaves_a_value(now, clause) and not leaves_a_value(convert, clause)
    tomorrow = clause_of(0, "the weather in Paris tomorrow", TODAY)
    assert not leaves_a_value(forecast, tomorrow)  # days may take it
    date_said = {"type": "string", "description": "Check-in date. Format: YYYY-MM-DD"}
    hotels = ToolSpec(
        server="h", name="search_hotels", input_schema={"properties": {"checkIn": date_said}}
    )
    assert not leaves_a_value(hotels, clause_of(0, "hotels from August 10th", TODAY))
    assert not leaves_a_value(now, clause_of(0, "what time is it in Tokyo?", TODAY))
    # A text to write, for a tool that has no place for one (mcp-server-git's git_add)
    files = {"type": "array", "items": {"type": "string"}}
    add = ToolSpec(server="g", name="git_add", input_schema={"properties": {"files": files}})
    write = ToolSpec(server="f", name="write_file", input_schema={"properties": {"content": zone}})
    said = clause_of(0, "add a file R.txt to /a/old containing the sentence 'Do not edit.'", TODAY)
    assert leaves_a_value(add, said) and not leaves_a_value(write, said)
    text = {"type": "string"}
    staged = ToolSpec(
        server="g", name="git_diff_staged", input_schema={"properties": {"repo_path": text}}
    )
    diff = ToolSpec(
        server="g",
        name="git_diff",
        input_schema={"properties": {"repo_path": text, "target": text}},
    )
    since = clause_of(0, "what changed in /r since HEAD~2?", TODAY)
    assert leaves_a_value(staged, since) and not leaves_a_value(diff, since)


def test_a_message_described_is_no_message_given() -> None:
    commit = {"properties": {"message": {"type": "string"}}, "required": ["message"]}
    assert bound(commit, "commit it in /r with the message we agreed on") == {}
    assert bound(commit, "commit it with the message Fix-typo") == {"message": "Fix-typo"}


def required(**types: str) -> dict[str, Any]:
    return {"properties": {n: {"type": t} for n, t in types.items()}, "required": list(types)}


@pytest.mark.parametrize(
    ("schema", "text", "expected"),
    [
        # Given out in order, each value went to the other parameter.
        (
            required(height="number", weight="number"),
            "a weight of 75 kilograms and a height of 1.7 meters",
            {"weight": 75, "height": 1.7},
        ),
        (
            required(query="string", category="string"),
            "a product in the 'electronics' category with the query 'laptop'",
            {"query": "laptop", "category": "electronics"},
        ),
        # A word of one name only labels too: its last ("a term of 5 years" is the loan
        # term's), not one before it ("a loan of $100,000" is no term).
        (
            required(principal="number", interest_rate="number", loan_term="number"),
            "a loan of $100,000 at an interest rate of 4% for a term of 5 years",
            {"principal": 100000, "interest_rate": 4, "loan_term": 5},
        ),
        (
            required(principal="number", interest_rate="number", loan_term="number"),
            "for a term of 5 years at an interest rate of 4%, a loan of $100,000",
            {"principal": 100000, "interest_rate": 4, "loan_term": 5},
        ),
        # "key" is the name's own word, not its value; the quote is the key's by its label
        (
            required(data="string", encryption_key="string"),
            "encrypt it with the encryption key '12345'",
            {"encryption_key": "12345"},
        ),
    ],
)
def test_a_value_labelled_with_a_parameters_name_fills_it(
    schema: dict[str, Any], text: str, expected: dict[str, Any]
) -> None:
    assert bound(schema, text) == expected


def test_a_parameter_an_earlier_result_takes_leaves_the_clause_s_values_to_the_others() -> None:
    schema = required(data="string", encryption_key="string")
    clause = clause_of(0, "encrypt the joke with 'k-77'", TODAY)
    assert extract_arguments(schema, clause).arguments == {"data": "k-77"}
    assert extract_arguments(schema, clause, ["data"]).arguments == {"encryption_key": "k-77"}


def test_a_name_of_small_words_takes_no_word_that_follows_one() -> None:
    # "where_to": "to" took "find" from "I want to find", "2024-04-12" from "to 2024-04-12".
    assert bound(required(where_to="string"), "I want to find a house from May 1 to May 3") == {}


@pytest.mark.parametrize(
    ("name", "kind"),
    [("appointment_time", "time"), ("start_time", "time"), ("birthdate", "date")],
)
def test_a_time_or_a_date_by_the_last_word_of_its_name(name: str, kind: str) -> None:
    assert param_kind(name, {"type": "string"}) == kind


def test_a_parameter_described_as_an_email_address_takes_one() -> None:
    to = {"type": "string", "description": "The email address to send to."}
    assert param_kind("to", to) == "email"
    subject = {"type": "string", "description": "The subject of the email."}
    schema = {"properties": {"to": to, "subject": subject}, "required": ["to", "subject"]}
    text = "Send an email to John Doe at john.doe@example.com with the subject 'Meeting'"
    assert bound(schema, text) == {"to": "john.doe@example.com", "subject": "Meeting"}


def test_a_code_a_tool_gives_is_no_place_name() -> None:
    code = {"type": "string", "description": "ISO 3166-2 location code, e.g. 'FR' for France."}
    assert param_kind("location", code) == "code"
    assert bound({"properties": {"location": code}}, "COVID-19 news for Brazil") == {}
    either = {"type": "string", "description": "A country code or the country's name."}
    assert param_kind("location", either) == "place"


def test_a_search_by_city_name_or_a_described_location_takes_a_place() -> None:
    q = {"type": "string", "description": "It could be a city name e.g.: q=Paris, a US zip ..."}
    assert param_kind("q", q) == "place"
    assert param_kind("q", {"type": "string", "description": "Search keywords."}) == "query"
    where = {"type": "string", "description": "Location of the house"}
    assert param_kind("where_to", where) == "place"
    assert bound({"properties": {"where_to": where}}, "find a house in San Francisco") == {
        "where_to": "San Francisco"
    }
    assert param_kind("note", {"type": "string", "description": "A place to note"}) == "string"


def test_a_booking_for_myself_is_for_one_person() -> None:
    schema = {
        "properties": {
            "group_size": {"type": "string", "description": "Size of group for the booking"},
            "seats": {"type": "integer"},
            "origin": {"type": "string"},
        }
    }
    assert bound(schema, "get me a bus ticket for just myself") == {"group_size": "1", "seats": 1}
    assert bound(schema, "a bus ticket for just me") == {"group_size": "1", "seats": 1}
    assert bound(schema, "get me a bus ticket for me and my wife") == {}
    assert bound(schema, "can you find a bus for me") == {}  # on my behalf
    assert bound(schema, "get me a bus ticket") == {}


@pytest.mark.parametrize(
    ("text", "artist"),
    [
        ("Find the lyrics for the song 'Imagine' by John Lennon", "John Lennon"),
        ("Play the song 'Bohemian Rhapsody' by 'Queen'", "Queen"),
    ],
)
def test_the_maker_of_a_work_is_named_after_by(text: str, artist: str) -> None:
    # The artist first in the schema: given out in order, the title went to it.
    schema = required(artist="string", title="string")
    assert bound(schema, text) == {"artist": artist, "title": text.split("'")[1]}
    assert bound(required(title="string"), "a song by Queen") == {}


@pytest.mark.parametrize(
    ("schema", "text", "expected"),
    [
        # The words after a number say what it measures, whatever the schema's order.
        (
            required(daily_miles="number", meat_meals_per_week="number", annual_trash="number"),
            "I drive 20 miles a day, produce 500 lbs of trash, and eat 3 meat meals a week",
            {"daily_miles": 20, "meat_meals_per_week": 3, "annual_trash": 500},
        ),
        # A required parameter named by the words wins over an optional one named alike.
        (
            {
                "properties": {
                    "present_value": {"type": "number"},
                    "compounds_per_year": {"type": "integer"},
                    "years": {"type": "integer"},
                },
                "required": ["present_value", "years"],
            },
            "a $5000 investment for a term of 10 years",
            {"present_value": 5000, "years": 10},
        ),
        # "base 6 and height 10": "and" ends what a number's words say.
        (
            required(height="number", base="number"),
            "a triangle with base 6 and height 10",
            {"base": 6, "height": 10},
        ),
        # "accelerating" names the acceleration: two forms of one word.
        (
            required(initial_velocity="number", acceleration="number"),
            "starting at 10 m/s and accelerating at 2 m/s^2",
            {"initial_velocity": 10, "acceleration": 2},
        ),
        # A number in words goes only where its words name the parameter: "two adults", not
        # "two circles" for a radius "of the circle".
        (
            {
                "properties": {
                    "adults": {"type": "integer"},
                    "radius": {"type": "integer", "description": "The radius of the circle."},
                },
                "required": ["adults", "radius"],
            },
            "two circles for two adults",
            {"adults": 2},
        ),
        # As near to two parameters: the schema's order decides, as before.
        (
            required(length="number", height="number"),
            "a wall of 30 feet by 12 feet",
            {"length": 30, "height": 12},
        ),
    ],
)
def test_a_number_goes_to_the_parameter_the_words_around_it_name(
    schema: dict[str, Any], text: str, expected: dict[str, Any]
) -> None:
    assert bound(schema, text) == expected


def test_a_percentage_is_a_fraction_only_where_the_parameter_takes_one() -> None:
    decimal = {"type": "number", "description": "The annual rate as a decimal, 5% is 0.05."}
    plain = {"type": "number", "description": "The annual interest rate."}
    text = "an interest rate of 5%"
    assert bound({"properties": {"rate": decimal}, "required": ["rate"]}, text) == {"rate": 0.05}
    assert bound({"properties": {"rate": plain}, "required": ["rate"]}, text) == {"rate": 5}
    chance = {"type": "number", "description": "Chance of success."}
    schema = {"properties": {"probability": chance}, "required": ["probability"]}
    assert bound(schema, "a 30% chance") == {"probability": 0.3}


@pytest.mark.parametrize(
    ("arguments", "text", "varied"),
    [
        ({"rate": 4, "term": 15}, "a rate of 4% and a term of 15, 20 and 30 years", [15, 20, 30]),
        (
            {"color": "navy"},
            "the RGB values for navy, purple and maroon",
            ["navy", "purple", "maroon"],
        ),
        (
            {"empire": "Persian Empire"},
            "the empires Persian Empire and Mauryan Empire with their history",
            ["Persian Empire", "Mauryan Empire"],
        ),
        # The value bound may be any item of the list: the one beside the unit, the last.
        ({"years": 30}, "an interest rate of 5%, for 10, 20 and 30 years", [10, 20, 30]),
        ({"years": 10}, "for 1,5 and 10 years", [1, 5, 10]),  # "1,5" is no thousands
        (
            {"color": "purple"},
            "the RGB values for navy, purple and maroon?",
            ["navy", "purple", "maroon"],
        ),
        # No list: another argument's value, a verb and its object, a name and a common word.
        ({"a": 17, "b": 25}, "add 17 and 25", []),
        ({"city": "paris"}, "the weather in paris and tell me a joke", []),
        ({"city": "Paris"}, "the weather in Paris and rain tomorrow", []),
        ({"term": 15}, "a term of 15, 20 years", []),  # no "and" or "or": no list
        ({"a": 3, "b": 4}, "sides of 3 and 4, 5 and 12", []),  # a list holding another value
        ({"n": 5}, "values for 5 organic farms", []),  # "or" inside a word joins nothing
    ],
)
def test_a_value_that_heads_a_list_makes_a_call_per_item(
    arguments: dict[str, Any], text: str, varied: list[Any]
) -> None:
    sets = listed_sets(arguments, text)
    if not varied:
        assert sets == []
        return
    name = next(n for n in arguments if len({s[n] for s in sets}) > 1)
    assert [s[name] for s in sets] == varied
    assert all(s | {name: arguments[name]} == arguments for s in sets)


def test_a_name_after_its_noun_is_the_head_nouns_and_an_identifier_holds_a_digit() -> None:
    compartment = {"properties": {"cell_compartment": STRING}, "required": ["cell_compartment"]}
    text = "the proteins in the cell compartments of the nucleus"
    assert bound(compartment, text) == {"cell_compartment": "nucleus"}  # not "compartments"
    case = {"properties": {"case_number": STRING}, "required": ["case_number"]}
    assert bound(case, "case law details of Case No 28473") == {"case_number": "28473"}
    assert bound(case, "case law details, please") == {}  # "law" is no case number


def test_a_number_goes_to_the_parameter_described_in_its_unit_written_whole() -> None:
    def number(description: str) -> dict[str, str]:
        return {"type": "integer", "description": description}

    schema = {
        "properties": {
            "initial_velocity": number("The initial velocity of the object in meters/second."),
            "acceleration": number("The acceleration of the object in meters/second^2."),
            "time": number("The time over which the acceleration is applied in seconds."),
        },
        "required": ["initial_velocity", "acceleration", "time"],
    }
    text = (
        "the final velocity after accelerating at 2 meters/second^2 for a duration of "
        "5 seconds, starting from a speed of 10 meters/second"
    )
    assert bound(schema, text) == {"initial_velocity": 10, "acceleration": 2, "time": 5}


def test_an_optional_number_named_a_few_words_before_it_is_given() -> None:
    schema = {
        "properties": {"player_name": STRING, "starting_level": {"type": "integer"}},
        "required": ["player_name"],
    }
    text = "a new player profile named 'StarPlayer'; set the starting level to 5."
    assert bound(schema, text)["starting_level"] == 5
    assert "starting_level" not in bound(schema, "a profile named 'StarPlayer' with 5 lives")


def test_an_ordinal_before_the_parameters_name_is_its_number() -> None:
    schema = {"properties": {"century": {"type": "integer"}}, "required": ["century"]}
    assert bound(schema, "important wars during the 19th century") == {"century": 19}
    assert bound(schema, "the 3rd war of the century") == {}


def test_a_list_of_numbers_takes_the_list_the_request_writes() -> None:
    schema = {
        "properties": {
            "data": {"type": "array", "items": {"type": "integer"}, "description": "The data."},
            "bins": {"type": "integer", "description": "The number of bins."},
        },
        "required": ["data", "bins"],
    }
    text = "a histogram of the scores with the following data: 85, 90, 88, 92 and 86, in 5 bins"
    assert bound(schema, text) == {"data": [85, 90, 88, 92, 86], "bins": 5}


def test_a_list_of_options_takes_each_option_the_request_says() -> None:
    kinds = ["Organic", "Vegetables", "Fruits", "Dairy"]
    schema = {
        "properties": {
            "location": STRING,
            "categories": {"type": "array", "items": {"type": "string", "enum": kinds}},
        },
        "required": ["location"],
    }
    text = "a grocery store with organic fruits and vegetables in Houston"
    assert bound(schema, text)["categories"] == ["Organic", "Fruits", "Vegetables"]
    assert "categories" not in bound(schema, "a grocery store in Houston")
    # An option of several words when the request says each of them.
    details = ["high_low_temperature", "humidity", "precipitation", "wind"]
    schema["properties"]["categories"]["items"]["enum"] = details
    text = "the high and low temperatures, humidity, and precipitation for London"
    assert bound(schema, text)["categories"] == details[:3]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("a hotel in Berlin, Germany from March 10 to March 20", "Berlin, Germany"),
        ("a lawyer in Boston, MA.", "Boston, MA"),
        ("I'm in Paris, Could you find me a hotel?", "Paris"),  # a sentence goes on
    ],
)
def test_a_place_keeps_the_state_or_country_written_after_it(text: str, place: str) -> None:
    schema = {"properties": {"location": {"type": "string"}}, "required": ["location"]}
    assert bound(schema, text) == {"location": place}
    city = {"properties": {"city": {"type": "string"}}, "required": ["city"]}
    assert bound(city, text) == {"city": place.split(",")[0]}  # a city is only the city


def test_two_lists_make_a_call_per_pair() -> None:
    sets = listed_sets(
        {"genre": "rock", "city": "Paris"}, "rock and jazz concerts in Paris or Rome"
    )
    assert [(s["genre"], s["city"]) for s in sets] == [
        ("rock", "Paris"),
        ("rock", "Rome"),
        ("jazz", "Paris"),
        ("jazz", "Rome"),
    ]


def test_a_name_in_capitals_that_holds_the_parameters_noun_is_the_whole_name() -> None:
    museum = {"properties": {"museum_name": {"type": "string"}}, "required": ["museum_name"]}
    text = "opening hours of the Metropolitan Museum of Art."
    assert bound(museum, text) == {"museum_name": "Metropolitan Museum of Art"}
    text = "art exhibitions in the Museum of Modern Art, New York"  # its noun opens it
    assert bound(museum, text) == {"museum_name": "Museum of Modern Art"}
    player = {"properties": {"player_name": STRING}, "required": ["player_name"]}
    text = "the player stats of Cristiano Ronaldo in the 2019-2020 season"  # not "stats"
    assert bound(player, text) == {"player_name": "Cristiano Ronaldo"}
    league = {"properties": {"league": {"type": "string"}}, "required": ["league"]}
    assert bound(league, "the ranking of Liverpool in the Premier League") == {
        "league": "Premier League"
    }
    # A sentence's first words are capitalised anyway: no name of that.
    assert bound(league, "Top Scorers League please").get("league") != "Top Scorers League"


def test_a_rate_takes_the_number_written_as_a_percentage() -> None:
    loan = {
        "properties": {
            "amount": {"type": "number", "description": "The loan amount"},
            "interest_rate": {"type": "number", "description": "The annual interest rate"},
            "term": {"type": "integer", "description": "The term of the loan in years"},
        },
        "required": ["amount", "interest_rate", "term"],
    }
    said = "a loan of 150,000 dollars with a 4% interest rate over 25 years"
    assert bound(loan, said) == {"amount": 150000, "interest_rate": 4, "term": 25}
    # With no percentage written, a rate takes a plain number as before.
    assert bound(loan, "a loan of 150000 at an interest rate of 4.5 for 25 years") == {
        "amount": 150000, "interest_rate": 4.5, "term": 25,
    }  # fmt: skip


def test_a_quoted_date_and_time_is_no_text_and_goes_whole_where_both_are_asked() -> None:
    event = {
        "properties": {
            "title": {"type": "string", "description": "The title of the event"},
            "start": {"type": "string", "description": "Start, in format YYYY-MM-DD HH:MM"},
            "end_time": {"type": "string", "description": "End time, in format YYYY-MM-DD HH:MM"},
            "guests": {"type": "string", "description": "People invited to the event"},
        },
        "required": ["title", "start", "end_time"],
    }
    said = "create an event titled 'Launch' from '2027-03-01 09:00' to '2027-03-01 17:30'"
    assert bound(event, said) == {
        "title": "Launch", "start": "2027-03-01 09:00", "end_time": "2027-03-01 17:30",
    }  # fmt: skip
    # A time alone stays a time; the quoted date is no title.
    assert bound(event, "an event on the date '2027-03-01' from '09:00' to '10:00'") == {
        "start": "09:00", "end_time": "10:00",
    }  # fmt: skip
