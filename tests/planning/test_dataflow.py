"""Data flow in the deterministic planner: carried values, references to earlier outputs, and
producer steps put in front, over tool specs shaped like NESTFUL's and the real extractors."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from toolweave.language import analyse, clause_of
from toolweave.language.binding import extract_arguments
from toolweave.navigation.fields import best_field, output_fields
from toolweave.navigation.graph import Edge, ToolGraph
from toolweave.planning.dataflow import link_data_flow
from toolweave.planning.planner import fan_out, plan_steps
from toolweave.planning.validate import validate_plan
from toolweave.types import Candidate, Plan, Step, ToolHints, ToolSpec

TODAY = date(2026, 11, 22)


def tool(
    server: str, name: str, inputs: dict[str, str], outputs: dict[str, Any] | None = None
) -> ToolSpec:
    return ToolSpec(
        server=server,
        name=name,
        input_schema={
            "type": "object",
            "properties": {n: {"type": t} for n, t in inputs.items()},
            "required": list(inputs),
        },
        output_schema={"type": "object", "properties": outputs or {}},
    )


STRING, NUMBER = {"type": "string"}, {"type": "number"}
AIRPORTS = tool("air", "search_airport", {"query": "string"}, {"skyId": STRING, "entityId": STRING})
FLIGHTS = tool(
    "air",
    "search_flights",
    {
        "originSkyId": "string",
        "destinationSkyId": "string",
        "originEntityId": "string",
        "destinationEntityId": "string",
        "date": "string",
    },
    {"price": NUMBER},
)
HOTELS = tool("hotels", "search_hotels", {"city": "string", "checkIn": "string"})
SALARY = tool(
    "pay", "gross_salary", {"basic": "number", "allowance": "number"}, {"gross_salary": NUMBER}
)
INVOICE = tool(
    "pay", "create_invoice", {"client": "string", "amount": "number"}, {"invoice_id": STRING}
)
JOKE = tool("fun", "random_joke", {}, {"joke": STRING})
SMS = tool("sms", "send_sms", {"phone_number": "string", "message": "string"})
CARS = tool(
    "cars", "find_cars", {"city": "string"}, {"car_type": STRING, "pickup_location": STRING}
)
RESERVE = tool("cars", "reserve_car", {"car_type": "string", "pickup_location": "string"})
ENCRYPT = tool("crypto", "encrypt_data", {"data": "string", "encryption_key": "string"})
TAX = tool("pay", "sales_tax", {"amount": "number", "tax_rate": "number"}, {"sales_tax": NUMBER})
SQUARE = tool("maths", "square", {"number": "number"}, {"squared": NUMBER})
ALL = (AIRPORTS, FLIGHTS, HOTELS, SALARY, INVOICE, JOKE, SMS, CARS, RESERVE, ENCRYPT, TAX, SQUARE)
TOOLS = {t.key: t for t in ALL}


def plan(question: str, *steps: tuple[str, ToolSpec]) -> Plan:
    return Plan(
        steps=[
            Step(
                id=f"s{n + 1}",
                clause=clause_of(n, text, TODAY),
                server=spec.server,
                tool=spec.name,
                candidates=[Candidate(tool=spec, score=0.5), Candidate(tool=HOTELS, score=0.4)],
            )
            for n, (text, spec) in enumerate(steps)
        ]
    )


def link(question: str, *steps: tuple[str, ToolSpec]) -> tuple[Plan, list[str]]:
    return link_data_flow(plan(question, *steps), TOOLS, analyse(question, TODAY))


def link_over(
    tools: tuple[ToolSpec, ...], question: str, *steps: tuple[str, ToolSpec]
) -> tuple[Plan, list[str]]:
    """`link` over these tools alone."""
    return link_data_flow(
        plan(question, *steps), {t.key: t for t in tools}, analyse(question, TODAY)
    )


def test_a_producer_step_per_role_goes_in_front() -> None:
    question = "Find flights from New York to London on August 15, 2027"
    linked, notes = link(question, (question, FLIGHTS))
    first, second, flights = linked.steps
    assert [s.id for s in linked.steps] == ["s1", "s2", "s3"]
    assert (first.tool, first.arguments) == ("search_airport", {"query": "New York"})
    assert (second.tool, second.arguments) == ("search_airport", {"query": "London"})
    assert flights.arguments == {
        "originSkyId": "{{s1.result.skyId}}",
        "originEntityId": "{{s1.result.entityId}}",
        "destinationSkyId": "{{s2.result.skyId}}",
        "destinationEntityId": "{{s2.result.entityId}}",
    }
    assert flights.depends_on == ["s1", "s2"]
    assert notes == [
        "added s1 (air.search_airport) to give s3 its originSkyId",
        "added s2 (air.search_airport) to give s3 its destinationSkyId",
    ]
    # The date is the clause's own: the step agent extracts it when the step runs.
    assert "date" not in flights.arguments
    # The references fit this tool only, so the step agent keeps it.
    assert [c.tool.key for c in flights.candidates] == ["air.search_flights"]
    assert validate_plan(linked, {"air"}).ok


def test_no_producer_when_the_clause_lacks_its_input() -> None:
    question = "Find me some cheap flights"
    linked, notes = link(question, (question, FLIGHTS))
    assert [s.tool for s in linked.steps] == ["search_flights"]
    assert linked.steps[0].arguments == {} and notes == []


def test_an_earlier_steps_output_of_the_same_name_is_referenced() -> None:
    question = "Find a rental car for tomorrow and reserve it"
    linked, notes = link(
        question, ("Find a rental car for tomorrow", CARS), ("reserve it", RESERVE)
    )
    reserve = linked.steps[1]
    assert reserve.arguments == {
        "car_type": "{{s1.result.car_type}}",
        "pickup_location": "{{s1.result.pickup_location}}",
    }
    assert reserve.depends_on == ["s1"]
    assert reserve.argument_origins == dict.fromkeys(reserve.arguments, "reference")
    assert notes == []


def test_an_output_the_clause_names_is_referenced() -> None:
    question = (
        "Calculate the gross salary with a basic salary of 2000 and an allowance of 500, "
        "and create an invoice for 'ACME' with the amount of the calculated gross salary"
    )
    linked, _ = link(
        question,
        ("Calculate the gross salary with a basic salary of 2000 and an allowance of 500", SALARY),
        ("create an invoice for 'ACME' with the amount of the calculated gross salary", INVOICE),
    )
    assert linked.steps[1].arguments == {"amount": "{{s1.result.gross_salary}}"}
    assert linked.steps[1].depends_on == ["s1"]


def test_it_means_the_previous_result_for_a_content_parameter() -> None:
    question = "Get a random joke and send it as an SMS to the phone number +1234567890"
    linked, _ = link(
        question,
        ("Get a random joke", JOKE),
        ("send it as an SMS to the phone number +1234567890", SMS),
    )
    # The phone number is no content: "it" does not fill it.
    assert linked.steps[1].arguments == {"message": "{{s1.result.joke}}"}


def test_a_value_named_in_another_clause_is_carried() -> None:
    question = "Find flights from Paris to Rome on 3 May 2027 and find hotels in Rome"
    hotels = tool("hotels", "book", {"city": "string", "check_in_date": "string"})
    linked = link_data_flow(
        plan(question, ("find hotels in Rome", hotels)),
        {hotels.key: hotels},
        analyse(question, TODAY),
    )[0]
    assert linked.steps[0].arguments == {"check_in_date": "2027-05-03"}
    assert linked.steps[0].argument_origins == {"check_in_date": "question"}


def test_a_value_the_user_names_wins_over_an_earlier_output() -> None:
    question = "Find a rental car in San Diego and reserve it"
    linked, _ = link(question, ("Find a rental car in San Diego", CARS), ("reserve it", RESERVE))
    assert linked.steps[1].arguments == {
        "pickup_location": "San Diego",
        "car_type": "{{s1.result.car_type}}",
    }


def test_the_input_plan_is_left_as_it_is() -> None:
    question = "Find flights from New York to London"
    original = plan(question, (question, FLIGHTS))
    link_data_flow(original, TOOLS, analyse(question, TODAY))
    assert [s.id for s in original.steps] == ["s1"] and original.steps[0].arguments == {}


def test_output_fields_reach_into_objects_and_lists() -> None:
    schema = {
        "type": "object",
        "properties": {
            "author": {
                "type": "array",
                "items": {"type": "object", "properties": {"id": {"type": "integer"}}},
            },
            "location": {"type": "object", "properties": {"name": STRING}},
        },
    }
    fields = {f.path: (f.tokens, f.kind) for f in output_fields(schema)}
    assert fields["author.0.id"] == (("author", "id"), "integer")
    assert fields["location.name"] == (("location", "name"), "string")
    books = tool("books", "by_author", {"author_id": "integer"})
    authors = ToolSpec(server="books", name="find_author", output_schema=schema)
    match = best_field("author_id", authors)
    assert match is not None and match.field.path == "author.0.id"
    assert best_field("author_id", books) is None  # no output schema: nothing to give


def test_a_clause_listing_several_cities_is_a_step_per_city() -> None:
    question = "Find hotels in Paris, Rome and Oslo"
    hotels = tool("hotels", "search", {"city": "string"})
    planned = fan_out(plan(question, (question, hotels)), {hotels.key: hotels})
    assert [(s.id, s.arguments) for s in planned.steps] == [
        ("s1", {"city": "Paris"}),
        ("s2", {"city": "Rome"}),
        ("s3", {"city": "Oslo"}),
    ]
    assert all([c.tool.key for c in s.candidates] == [hotels.key] for s in planned.steps)
    single = fan_out(plan("Find hotels in Paris", ("Find hotels in Paris", hotels)), {})
    assert [s.id for s in single.steps] == ["s1"]


def test_a_tool_that_changes_things_gets_no_made_up_producer() -> None:
    """write_file's missing content never comes from a step the plan adds on its own (the
    official filesystem server: "Allowed directories: ..." was written as a file's text)."""
    lister = tool("fs", "list_allowed_directories", {}, {"content": STRING})
    writer = tool("fs", "write_file", {"path": "string", "content": "string"})
    reader = tool("fs", "read_summary", {"path": "string", "content": "string"})
    tools = {t.key: t for t in (lister, writer, reader)}
    question = "write something to /tmp/new.txt"
    for consumer, steps in ((writer, 1), (reader, 2)):
        linked, _ = link_data_flow(
            plan(question, (question, consumer)), tools, analyse(question, TODAY)
        )
        assert len(linked.steps) == steps  # a tool that only reads may still get one


def test_it_is_a_whole_result_when_the_tool_declares_no_output() -> None:
    fetcher = tool("web", "fetch", {"url": "string"})
    writer = tool("fs", "write_file", {"path": "string", "content": "string"})
    tools = {t.key: t for t in (fetcher, writer)}
    question = "fetch http://x.test/a and save it to /tmp/a.txt"
    steps = [("fetch http://x.test/a", fetcher), ("save it to /tmp/a.txt", writer)]
    linked, _ = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))
    assert linked.steps[1].arguments == {"content": "{{s1.result}}"}
    assert linked.steps[1].depends_on == ["s1"]


def test_a_file_name_without_the_folder_the_question_names_is_asked_for() -> None:
    writer = tool("fs", "write_file", {"path": "string", "content": "string"})
    folder = tool("fs", "create_directory", {"path": "string"})
    tools = {t.key: t for t in (writer, folder)}
    question = 'make a drafts folder in /srv/files and put a file intro.md in it that says "hi"'
    steps = [
        ("make a drafts folder in /srv/files", folder),
        ('put a file intro.md in it that says "hi"', writer),
    ]
    linked, _ = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))
    made, put = linked.steps
    assert made.problem is None
    assert put.problem is not None and put.problem.text == (
        "fs.write_file needs the folder of intro.md, which the request does not give"
    )
    # Alone, a file name is the server's to place.
    alone = 'put a file intro.md there saying "hi"'
    linked, _ = link_data_flow(plan(alone, (alone, writer)), tools, analyse(alone, TODAY))
    assert linked.steps[0].problem is None
    # Named within the repository the question gives, for a tool that takes it (git_add)
    branch = tool("git", "git_checkout", {"repo_path": "string", "branch_name": "string"})
    stage = tool("git", "git_add", {"repo_path": "string", "files": "array"})
    question = "in /srv/repo, check out x-1 and stage app.py"
    steps = [("in /srv/repo, check out x-1", branch), ("stage app.py", stage)]
    tools = {t.key: t for t in (branch, stage)}
    linked, _ = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))
    assert linked.steps[1].problem is None
    # Placed in the folder the clause moves it into
    mover = tool("fs", "move_file", {"source": "string", "destination": "string"})
    question = "make a folder old in /srv/files and move /srv/files/a.txt into /srv/files/old"
    question += ", renamed to gone.txt"
    steps = [
        ("make a folder old in /srv/files", folder),
        ("move /srv/files/a.txt into /srv/files/old, renamed to gone.txt", mover),
    ]
    tools = {t.key: t for t in (folder, mover)}
    linked, _ = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))
    assert linked.steps[1].problem is None


def linked_steps(question: str, *steps: tuple[str, ToolSpec], search: str = "") -> list[Step]:
    """The linked plan's steps, over the tools of `steps` alone."""
    tools = {spec.key: spec for _, spec in steps}
    analysis = analyse(question, TODAY)
    return link_data_flow(plan(question, *steps), tools, analysis, search=search)[0].steps


def test_the_answer_of_a_step_with_several_outputs_is_its_whole_result_as_text() -> None:
    """ "convert ... and write the result into a file": the whole conversion, not its first
    field (an object a text parameter cannot take)."""
    convert = tool("time", "convert_time", {"time": "string"}, {"source": {}, "target": {}})
    writer = tool("fs", "write_file", {"path": "string", "content": "string"})
    _, write = linked_steps(
        "convert 14:00 to India time and write the answer to /tmp/call.txt",
        ("convert 14:00 to India time", convert),
        ("write the answer to /tmp/call.txt", writer),
    )
    assert write.arguments == {"content": "{{s1.result}}"}


def test_that_at_a_clauses_end_is_the_result_its_one_missing_value_takes() -> None:
    adder = tool("everything", "get-sum", {"a": "number", "b": "number"})
    first = ("sum 1234 and 4321", adder)
    _, add = linked_steps(
        "sum 1234 and 4321 and then add 445 to that", first, ("add 445 to that", adder)
    )
    assert add.arguments == {"b": "{{s1.result}}"}  # a: 445, the clause's
    assert add.depends_on == ["s1"]
    _, add = linked_steps(
        "add 1234 and 4321, and add 445 to the total", first, ("add 445 to the total", adder)
    )
    assert add.arguments == {"b": "{{s1.result}}"}  # "the total", "the sum": that result too
    # Two values missing: "it" says which of them it is no more than for a content parameter.
    mover = tool("fs", "move", {"source": "string", "destination": "string"})
    _, move = linked_steps("sum 1234 and 4321 and move it", first, ("move it", mover))
    assert move.arguments == {}


def test_a_later_step_on_the_same_server_waits_for_a_change_and_shares_its_place() -> None:
    """ "in /srv/repo, git add app.py, then git commit -m ...": the commit runs after the add (in
    parallel it may commit nothing), in the repository the first clause names."""
    add = tool("git", "git_add", {"repo_path": "string", "files": "string"})
    commit = tool("git", "git_commit", {"repo_path": "string", "message": "string"})
    status = tool("git", "git_status", {"repo_path": "string"})
    _, committed = linked_steps(
        'in /srv/repo, git add app.py then git commit -m "Fix it"',
        ("in /srv/repo, git add app.py", add),
        ('git commit -m "Fix it"', commit),
    )
    assert committed.depends_on == ["s1"]
    assert committed.arguments == {"repo_path": "/srv/repo"}
    assert committed.argument_origins == {"repo_path": "question"}
    # Two reads run side by side.
    reads = linked_steps(
        "git status of /srv/a and git status of /srv/b",
        ("git status of /srv/a", status),
        ("git status of /srv/b", status),
    )
    assert [s.depends_on for s in reads] == [[], []]


def test_documents_a_search_found_give_no_tool_that_changes_things_its_values() -> None:
    """ "the peanut allergy note on Bob is wrong, delete it": "it" is not the search's hits."""
    search = tool("search", "search", {"query": "string"})
    delete = tool("memory", "delete_relations", {"relations": "string"})
    question = "the peanut allergy note on Bob is wrong, delete it"
    steps = [("the peanut allergy note on Bob is wrong", search), ("delete it", delete)]
    assert linked_steps(question, *steps, search=search.key)[1].arguments == {}
    # Any other tool's result, yes.
    assert linked_steps(question, *steps)[1].arguments == {"relations": "{{s1.result}}"}


def test_a_closed_set_of_values_takes_no_result() -> None:
    fetcher = tool("web", "fetch", {"url": "string"})
    message = tool("demo", "annotated_message", {"messageType": "string"})
    message.input_schema["properties"]["messageType"]["enum"] = ["error", "debug"]
    steps = [("fetch http://x.test/a", fetcher), ("annotate it", message)]
    assert linked_steps("fetch http://x.test/a and annotate it", *steps)[1].arguments == {}


def test_a_change_acts_on_no_place_a_result_gives() -> None:
    """ "... then add 445 to that", the sum's text had been the path `write_file` wrote to."""
    adder = tool("everything", "get-sum", {"a": "number", "b": "number"}, {"content": STRING})
    writer = tool("fs", "write_file", {"path": "string", "content": "string"})
    steps = [("sum 1234 and 4321", adder), ("write 445 to that", writer)]
    write = linked_steps("sum 1234 and 4321 and then write 445 to that", *steps)[1]
    assert "path" not in write.arguments
    # A read may go where a result points.
    reader = tool("fs", "read_text_file", {"path": "string"})
    steps = [("sum 1234 and 4321", adder), ("read that", reader)]
    assert linked_steps("sum 1234 and 4321, then read that", *steps)[1].arguments == {
        "path": "{{s1.result.content}}"
    }


def test_a_change_runs_no_statement_a_result_gives() -> None:
    """ "Alice rang to say she has a new email. Update it in the users table": the row read
    had been sent to `write_query` as its SQL. A result is data, never a command."""
    rows = tool("db", "read_query", {"query": "string"})
    write = tool("db", "write_query", {"query": "string"})
    write.input_schema["properties"]["query"]["description"] = "SQL query to execute"
    steps = [("find Alice in the users table", rows), ("update it", write)]
    linked = linked_steps("find Alice in the users table and update it", *steps)
    assert "query" not in linked[1].arguments


def test_a_deletion_takes_no_list_from_a_result() -> None:
    """ "the peanut allergy note on Bob is wrong, delete it" after `open_nodes` had deleted all
    of Bob's relations (a run with LLM-written example queries in the index)."""
    nodes = tool("memory", "open_nodes", {"names": "array"}, {"relations": {"type": "array"}})
    delete = tool("memory", "delete_relations", {"relations": "array"})
    question = "the peanut allergy note on Bob is wrong, delete it"
    steps = [("the peanut allergy note on Bob is wrong", nodes), ("delete it", delete)]
    assert linked_steps(question, *steps)[1].arguments == {}


def test_the_records_a_change_keeps_come_from_no_result() -> None:
    """ "look up Bob Chen's city in the db and add it to Bob in my memory graph" had given
    `add_observations` the observations of the graph's own search result."""
    nodes = tool("memory", "search_nodes", {"query": "string"}, {"observations": {"type": "array"}})
    add = tool("memory", "add_observations", {"observations": "array"})
    records = {"type": "array", "items": {"type": "object"}}
    add.input_schema["properties"]["observations"] = records
    steps = [("look up Bob Chen", nodes), ("add it to Bob in my memory graph", add)]
    question = "look up Bob Chen and add it to Bob in my memory graph"
    assert linked_steps(question, *steps)[1].arguments == {}


def test_the_lines_a_clause_asks_for_are_what_is_passed_on() -> None:
    """ "the ERROR line": the reference keeps those lines of the result, as the words say."""
    read = tool("fs", "read_text_file", {"path": "string"})
    write = tool("fs", "write_file", {"path": "string", "content": "string"})
    question = "find the ERROR line in /srv/server.log and save it to /srv/errors.txt"
    steps = (
        ("find the ERROR line in /srv/server.log", read),
        ("save it to /srv/errors.txt", write),
    )
    tools = {read.key: read, write.key: write}
    linked = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))[0]
    assert linked.steps[1].arguments["content"] == "{{s1.result | lines:ERROR}}"
    # "its": the previous result, for a content parameter.
    question = "read /srv/server.log and write its lines into /srv/copy.txt"
    steps = (("read /srv/server.log", read), ("write its lines into /srv/copy.txt", write))
    linked = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))[0]
    assert linked.steps[1].arguments["content"] == "{{s1.result}}"
    # Something made of the result is no part of it: the user is asked.
    question = "read /srv/server.log and write a summary of its contents to /srv/s.txt"
    steps = (
        ("read /srv/server.log", read),
        ("write a summary of its contents to /srv/s.txt", write),
    )
    linked = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))[0]
    assert "content" not in linked.steps[1].arguments


def test_a_result_never_becomes_a_search_query() -> None:
    """Tool output sent to a search provider would leak it: "pull the structured content for
    New York and give me the conditions" had searched for "Cloudy"."""
    weather = tool("w", "get_weather", {"city": "string"}, {"conditions": STRING})
    search = tool("search", "search", {"query": "string"})
    question = "get the weather in Oslo and find the conditions"
    steps = (("get the weather in Oslo", weather), ("find the conditions", search))
    tools = {weather.key: weather, search.key: search}
    plan_ = plan(question, *steps)
    plan_.steps[1].arguments = {}
    linked = link_data_flow(plan_, tools, analyse(question, TODAY), search=search.key)[0]
    assert linked.steps[1].arguments == {}


def test_a_value_the_clause_gives_one_parameter_is_not_carried_to_another() -> None:
    """ "what would 4pm be in Nairobi?" converted from Nairobi to Nairobi."""
    convert = tool(
        "time",
        "convert_time",
        {"source_timezone": "string", "time": "string", "target_timezone": "string"},
    )
    question = "what would 4pm be in Nairobi?"
    linked = link_data_flow(
        plan(question, (question, convert)), {convert.key: convert}, analyse(question, TODAY)
    )[0]
    assert "target_timezone" not in linked.steps[0].arguments


def test_a_line_added_to_a_file_goes_after_its_last_line_as_read() -> None:
    """server-filesystem has no append: "add "x" as a new last line of a.txt" reads the file,
    then edits its last line into itself and the new line; the rest of the file is untouched."""
    read = tool("fs", "read_text_file", {"path": "string"}, {"content": STRING})
    read.hints = ToolHints(read_only=True)
    edit = tool("fs", "edit_file", {"path": "string", "edits": "array"})
    edit.input_schema["properties"]["edits"]["items"] = {
        "type": "object",
        "properties": {"oldText": STRING, "newText": STRING},
    }
    edit.hints = ToolHints(read_only=False)
    tools = {read.key: read, edit.key: edit}

    def linked(question: str) -> Plan:
        ranked = [[Candidate(tool=read, score=0.5), Candidate(tool=edit, score=0.4)]]
        steps = plan_steps([clause_of(0, question, TODAY)], ranked, min_score=0.28, fallback=None)
        return link_data_flow(steps, tools, analyse(question, TODAY))[0]

    plan = linked('add "water the plants" as a new last line of /srv/notes.txt')
    assert [s.tool for s in plan.steps] == ["read_text_file", "edit_file"]
    last = "{{s1.result.content | last_line}}"
    edits = [{"oldText": last, "newText": f"{last}\nwater the plants"}]
    assert plan.steps[1].arguments["edits"] == edits
    assert plan.steps[1].depends_on == ["s1"]
    # No text to add: nothing is made up (the user is asked); reading the end adds nothing.
    plan = linked("append a line to /srv/notes.txt")
    assert "edits" not in plan.steps[-1].arguments
    assert [s.tool for s in linked("what's at the end of /srv/notes.txt?").steps] == [
        "read_text_file"
    ]
    # A to-do ticked off: the line that holds it becomes itself with its box ticked.
    plan = linked("tick off 'call the bank' in /srv/todo.md")
    assert [s.tool for s in plan.steps] == ["read_text_file", "edit_file"]
    line, ticked = (
        "{{s1.result.content | lines:call the bank}}",
        "{{s1.result.content | ticked:call the bank}}",
    )
    assert plan.steps[1].arguments["edits"] == [{"oldText": line, "newText": ticked}]
    # A CSV line described by what it is for and its values: in the file's columns.
    plan = linked("add a line for printing, at a cost of 150, to /srv/budget.csv")
    last, line = (
        "{{s1.result.content | last_line}}",
        "{{s1.result.content | csv_line:for printing, at a cost of 150}}",
    )
    assert plan.steps[1].arguments["edits"] == [{"oldText": last, "newText": f"{last}\n{line}"}]
    # A file's labelled line set to a value: that line, its value replaced.
    plan = linked("/srv/alpha.txt deadline -> 2024-12-06")
    assert plan.steps[1].arguments["edits"] == [
        {
            "oldText": "{{s1.result.content | field:deadline}}",
            "newText": "{{s1.result.content | field:deadline=2024-12-06}}",
        }
    ]
    # The item said done before "tick it off": its line.
    plan = linked("dentist booked, tick it off in /srv/todo.md")
    assert plan.steps[1].arguments["edits"] == [
        {
            "oldText": "{{s1.result.content | lines:dentist}}",
            "newText": "{{s1.result.content | ticked:dentist}}",
        }
    ]
    # The lines given: nothing to read first.
    given = 'tick off the item: change "- [ ] call" to "- [x] call" in /srv/todo.md'
    assert [s.tool for s in linked(given).steps] == ["edit_file"]
    # A folder's tree ranked first is no reading of the file (seen: directory_tree(budget.csv)).
    tree = tool("fs", "directory_tree", {"path": "string"}, {"content": STRING})
    tree.hints = ToolHints(read_only=True)
    ranked = [
        [Candidate(tool=tree, score=0.6), *(Candidate(tool=t, score=0.5) for t in (read, edit))]
    ]
    clause = clause_of(0, "add row printing,150 to /srv/budget.csv", TODAY)
    steps = plan_steps([clause], ranked, min_score=0.28, fallback=None).steps
    assert [s.tool for s in steps] == ["read_text_file", "edit_file"]


def test_it_after_a_part_of_a_page_is_no_whole_page_for_a_change() -> None:
    """ "get the phone number from <url> and remember it" had saved the whole page as a memo:
    "it" is the lines of the page that hold the fact, for a file the request names; a change
    that names no place for them asks what to keep."""
    fetch = tool("web", "fetch", {"url": "string"})
    write = tool("fs", "write_file", {"path": "string", "content": "string"})
    memo = tool("db", "append_insight", {"insight": "string"})
    tools = {fetch.key: fetch, write.key: write, memo.key: memo}

    def content(first: str, second: str, change: ToolSpec = write) -> Any:
        question = f"{first} and {second}"
        steps = ((first, fetch), (second, change))
        linked = link_data_flow(plan(question, *steps), tools, analyse(question, TODAY))[0]
        return linked.steps[1].arguments.get("content" if change is write else "insight")

    page = "http://x.test/a.html"
    assert content(f"get the phone number from {page}", "save it to /a.txt") == (
        "{{s1.result | lines:phone}}"
    )
    assert content(f"look up the carrot cake price on {page}", "save it to /a.txt") == (
        "{{s1.result | lines:carrot}}"
    )
    assert content(f"get the phone number from {page}", "remember it", memo) is None
    assert content(f"fetch {page}", "save it to /a.txt") == "{{s1.result}}"
    assert content(f"get the page {page}", "save it to /a.txt") == "{{s1.result}}"
    assert content(f"download {page}", "save a copy as /a.txt") == "{{s1.result}}"


def test_a_record_keeps_the_facts_the_step_before_read() -> None:
    """ "look up Bob Chen's city in the db and add it to Bob in my memory graph" had asked what
    to add: the record keeps the fact, its value taken from the row read; a lead quoted before
    it comes first; a record whose contents the clause quotes keeps those."""
    rows = tool("db", "read_query", {"query": "string"})
    add = tool("memory", "add_observations", {"observations": "array"})
    item = {"entityName": STRING, "contents": {"type": "array", "items": STRING}}
    add.input_schema["properties"]["observations"] = {
        "type": "array",
        "items": {"type": "object", "properties": item, "required": list(item)},
    }

    def kept(read: str, change: str) -> Any:
        linked = linked_steps(f"{read} and {change}", (read, rows), (change, add))
        return linked[1].arguments.get("observations"), linked[1].depends_on

    city = "{{s1.result | value:city}}"
    read = "look up Bob Chen's city in the db"
    assert kept(read, "add it to Bob in my memory graph") == (
        [{"entityName": "Bob", "contents": [f"city: {city}"]}],
        ["s1"],
    )
    assert kept(read, 'record it on Bob as "lives in" followed by the city')[0] == [
        {"entityName": "Bob", "contents": [f"lives in {city}"]}
    ]
    assert kept(read, 'add "likes tea" to Bob') == (None, [])  # the clause's own, not linked
    assert kept("look up Bob Chen in the db", "add it to Bob")[0] is None  # no fact named
    # what the text says someone did: its lines that name them
    said = kept("read /a/notes.txt", "add an observation on Bob saying what he agreed to do")
    assert said == (
        [{"entityName": "Bob", "contents": ["{{s1.result | lines:Bob}}"]}],
        ["s1"],
    )


def test_a_result_the_clause_names_takes_its_parameter_before_the_values_given_in_order() -> None:
    question = (
        "Calculate the gross salary with a basic salary of 2000 and an allowance of 500, then "
        "encrypt the gross salary with 'k-77' and work out the sales tax on the gross salary at "
        "5%"
    )
    first = "Calculate the gross salary with a basic salary of 2000 and an allowance of 500"
    linked, _ = link(
        question,
        (first, SALARY),
        ("encrypt the gross salary with 'k-77'", ENCRYPT),
        ("work out the sales tax on the gross salary at 5%", TAX),
    )
    # Without the claim, 'k-77' went to `data` and 5 to `amount`, the result to what was left.
    assert linked.steps[1].arguments == {"data": "{{s1.result.gross_salary}}"}
    assert linked.steps[2].arguments == {"amount": "{{s1.result.gross_salary}}"}
    # ... and the step agent gives the clause's values to the other parameters
    assert own_values(linked.steps[1]) == {"encryption_key": "k-77"}
    assert own_values(linked.steps[2]) == {"tax_rate": 5}


def own_values(step: Step) -> dict[str, Any]:
    references = [n for n, o in step.argument_origins.items() if o == "reference"]
    return extract_arguments(TOOLS[step.key].input_schema, step.clause, references).arguments


def test_the_result_of_the_step_before_takes_its_parameter_first_too() -> None:
    first = "Calculate the gross salary with a basic salary of 2000 and an allowance of 500"
    linked, _ = link(
        f"{first} and square the result", (first, SALARY), ("square the result", SQUARE)
    )
    assert linked.steps[1].arguments == {"number": "{{s1.result.gross_salary}}"}
    question = "Get a random joke and encrypt the result with 'k-77'"
    linked, _ = link(
        question, ("Get a random joke", JOKE), ("encrypt the result with 'k-77'", ENCRYPT)
    )
    assert linked.steps[1].arguments == {"data": "{{s1.result.joke}}"}
    assert own_values(linked.steps[1]) == {"encryption_key": "k-77"}


def test_an_id_the_user_cannot_know_is_looked_up_by_the_name_they_give() -> None:
    lookup = tool("music", "artist_id_by_name", {"name": "string"}, {"artist_id": STRING})
    overview = tool("music", "artist_overview", {"artistId": "string"}, {"bio": STRING})
    songs = tool("music", "search_song", {"query": "string"}, {"title": STRING})
    meeting = tool("calendar", "schedule_meeting", {"title": "string"})
    tools = (lookup, overview, songs, meeting)
    question = "Get details about the singer Ed Sheeran on Spotify"
    linked, _ = link_over(tools, question, (question, overview))
    assert [(s.tool, s.arguments) for s in linked.steps] == [
        ("artist_id_by_name", {"name": "Ed Sheeran"}),
        ("artist_overview", {"artistId": "{{s1.result.artist_id}}"}),
    ]
    # A title is no id: no song is searched for John to give the meeting one.
    question = "Schedule a meeting with John"
    linked, _ = link_over(tools, question, (question, meeting))
    assert [s.tool for s in linked.steps] == ["schedule_meeting"]


def test_a_named_result_is_text_only_where_text_is_meant_to_go() -> None:
    question = "Get a random joke and send the joke by SMS to +1234567890"
    second = "send the joke by SMS to +1234567890"
    linked, _ = link(question, ("Get a random joke", JOKE), (second, SMS))
    assert linked.steps[1].arguments == {"message": "{{s1.result.joke}}"}  # not the phone number
    client = tool("pay", "invoice_for", {"client": "string"})
    question = "Create an invoice for 'ACME' with an amount of 10 and bill the invoice id"
    steps = (
        ("Create an invoice for 'ACME' with an amount of 10", INVOICE),
        ("bill the invoice id", client),
    )
    linked, _ = link_over((*ALL, client), question, *steps)
    assert linked.steps[1].arguments == {}  # an invoice id is no client's name


def test_a_record_of_the_same_name_is_no_text_value() -> None:
    record = {"type": "object", "properties": {"isoCode": STRING, "name": STRING}}
    stats = tool("covid", "get_stats", {"country": "string"}, {"location": record})
    news = tool("covid", "get_news", {"location": "string"})
    code = {"type": "string", "description": "ISO 3166-2 location code"}
    news.input_schema["properties"]["location"] = code
    question = "Get COVID-19 stats for France and the news there"
    steps = (("Get COVID-19 stats for France", stats), ("the news there", news))
    linked, _ = link_over((stats, news), question, *steps)
    assert linked.steps[1].arguments == {}


RECIPES = tool("food", "search_recipes", {"diet": "string"}, {"recipes": {"type": "array"}})
SENTIMENT = tool("nlp", "analyze_sentiment", {"text": "string"}, {"sentiment": STRING})
TRANSLATE = tool("nlp", "translate_text", {"text": "string"}, {"translated_text": STRING})
GRAMMAR = tool("nlp", "check_grammar", {"sentence": "string"}, {"corrected": STRING})


@pytest.mark.parametrize(
    ("first", "then", "expected"),
    [
        # the first of a list result is its first item
        (
            ("Search for vegan recipes", RECIPES),
            ("do a sentiment analysis of the first recipe", SENTIMENT),
            {"text": "{{s1.result.recipes.0}}"},
        ),
        # a result named by what was done to it is that tool's output
        (
            ("Translate 'Hello, how are you?' to Spanish", TRANSLATE),
            ("check the translated sentence", GRAMMAR),
            {"sentence": "{{s1.result.translated_text}}"},
        ),
    ],
)
def test_a_result_named_in_its_own_words_is_referenced(
    first: tuple[str, ToolSpec], then: tuple[str, ToolSpec], expected: dict[str, str]
) -> None:
    linked, _ = link_over((first[1], then[1]), f"{first[0]} and {then[0]}", first, then)
    assert linked.steps[1].arguments == expected


def test_no_producer_step_gives_a_record_for_one_value() -> None:
    record = {"type": "object", "properties": {"name": STRING}}
    posts = tool("social", "user_posts", {"username": "string"}, {"location": record})
    news = tool("covid", "get_news", {"location": "string"})
    news.input_schema["properties"]["location"] = {"description": "ISO 3166-2 location code"}
    question = "Get the COVID-19 news for France"
    linked, notes = link_over((posts, news), question, (question, news))
    assert [s.tool for s in linked.steps] == ["get_news"] and notes == []


def test_what_the_clause_is_about_is_made_first_by_the_tool_that_gives_it() -> None:
    news = tool("news", "get_news", {}, {"headlines": {"type": "array"}})
    sentiment = tool("nlp", "analyze_sentiment", {"text": "string"}, {"sentiment": STRING})
    question = "Analyze the sentiment of the latest news headlines"
    linked, notes = link_over((news, sentiment), question, (question, sentiment))
    assert [(s.tool, s.arguments) for s in linked.steps] == [
        ("get_news", {}),
        ("analyze_sentiment", {"text": "{{s1.result.headlines}}"}),
    ]
    assert notes == ["added s1 (news.get_news) to give s2 its text"]
    # Only a thing the clause is "of" is made: here the headlines are what it analyses.
    question = "Analyze the latest news headlines"
    linked, _ = link_over((news, sentiment), question, (question, sentiment))
    assert [s.tool for s in linked.steps] == ["analyze_sentiment"]


def test_a_thing_named_by_a_quoted_description_is_looked_up_in_its_listing() -> None:
    """ "what did the "Fix typo" commit change?": no user knows a commit's hash; the log lists
    the commits on the same server, its record that holds the description gives it."""
    show = tool("git", "git_show", {"repo_path": "string", "revision": "string"})
    show.description = "Shows the contents of a commit"
    log = tool("git", "git_log", {"repo_path": "string"})
    log.description = "Shows the commit logs"
    staged = tool("git", "git_diff_staged", {"repo_path": "string"})
    staged.description = "Shows changes that are staged for commit"
    question = 'what did the "Fix typo" commit in /srv/repo change?'
    looked, shown = link_over((show, staged, log), question, (question, show))[0].steps
    assert (looked.key, looked.arguments) == ("git.git_log", {"repo_path": "/srv/repo"})
    assert shown.arguments["revision"] == f"{{{{{looked.id}.result | value:commit of fix typo}}}}"
    assert shown.depends_on == [looked.id]
    # a text passed on is no description of a thing
    said = "show the commit with the message 'Fix typo' in /srv/repo"
    assert len(link_over((show, log), said, (said, show))[0].steps) == 1


def test_a_producer_taking_two_places_takes_each_as_the_clause_gives_it() -> None:
    search = tool(
        "trips", "search_trips", {"origin_city": "string", "destination_city": "string"},
        {"airline": STRING},
    )  # fmt: skip
    book = tool(
        "trips", "book_trip",
        {"origin_city": "string", "destination_city": "string", "airline": "string"},
    )  # fmt: skip
    question = "Book a trip from Paris to Rome"
    linked, _ = link_over((search, book), question, (question, book))
    first, booked = linked.steps
    assert first.arguments == {"origin_city": "Paris", "destination_city": "Rome"}
    assert booked.arguments["airline"] == "{{s1.result.airline}}"


def test_a_place_is_no_plain_string_of_a_producer_that_takes_several() -> None:
    booking = tool(
        "clinic", "book_visit", {"doctor_name": "string", "visit_date": "string"},
        {"car_type": STRING},
    )  # fmt: skip
    question = "Reserve a car in Lisbon on 2027-01-05"
    linked, _ = link_over((booking, RESERVE), question, (question, RESERVE))
    assert [s.tool for s in linked.steps] == ["reserve_car"]


def test_a_result_named_by_its_first_word_made_a_participle_is_referenced() -> None:
    discount = tool(
        "shop", "calculate_discount", {"original_price": "number", "discount_percentage": "number"},
        {"discount_amount": NUMBER},
    )  # fmt: skip
    question = (
        "Work out the discount on a 200 dollar item at 15%, then create an invoice for "
        "'Ann' with the discounted price as the amount"
    )
    first, then = "Work out the discount on a 200 dollar item at 15%", question.split(", then ")[1]
    linked, _ = link_over((discount, INVOICE), question, (first, discount), (then, INVOICE))
    assert linked.steps[1].arguments["amount"] == "{{s1.result.discount_amount}}"


def _weather(name: str) -> ToolSpec:
    q = {"type": "string", "description": "Query: a city name e.g.: q=Paris, or a US zip."}
    location = {"type": "object", "properties": {"name": STRING, "region": STRING}}
    return ToolSpec(
        server="weather",
        name=name,
        input_schema={"type": "object", "properties": {"q": q}, "required": ["q"]},
        output_schema={"type": "object", "properties": {"location": location}},
    )


def test_a_place_an_earlier_step_resolved_is_taken_from_its_result() -> None:
    # The forecast is of the location the first step found, not the name again; a field that
    # only echoes the parameter (a bus search's "origin") leaves the name as the user wrote it.
    now, forecast = _weather("current"), _weather("forecast")
    graph = ToolGraph.derived([now, forecast])  # taught by a run that went well
    graph.record([(Edge("feeds", now.key, forecast.key, "location.name", "q"), True)])
    question = "What is the weather in Miami now? And the forecast for these dates?"
    asked = plan(
        question, (question.split("? ")[0], now), ("the forecast for these dates?", forecast)
    )
    tools = {now.key: now, forecast.key: forecast}
    linked, _ = link_data_flow(asked, tools, analyse(question, TODAY), graph)
    assert linked.steps[1].arguments == {"q": "{{s1.result.location.name}}"}
    echo = tool("buses", "find_bus", {"origin": "string"}, {"origin": STRING, "time": STRING})
    buy = tool("buses", "buy_ticket", {"origin": "string", "time": "string"})
    question = "Find a bus from Boston and buy me a ticket"
    linked, _ = link_over(
        (echo, buy), question, ("Find a bus from Boston", echo), ("buy me a ticket", buy)
    )
    assert linked.steps[1].arguments == {"origin": "Boston", "time": "{{s1.result.time}}"}
