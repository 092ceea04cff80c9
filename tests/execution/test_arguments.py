from __future__ import annotations

from datetime import date

import pytest

from toolweave.execution.arguments import _statements_described, fill_arguments
from toolweave.language import clause_of
from toolweave.language.parameters import param_kind, sql_kinds
from toolweave.models import NoLLM
from toolweave.types import Clause, ToolSpec

from ..fakes import ScriptedLLM

pytestmark = pytest.mark.anyio
TODAY = date(2026, 11, 22)


def c(text: str) -> Clause:
    return clause_of(0, text, TODAY)


def tool(properties: dict, required: list[str], name: str = "t") -> ToolSpec:
    return ToolSpec(
        server="s",
        name=name,
        input_schema={"type": "object", "properties": properties, "required": required},
    )


PERCENTAGE = tool(
    {"percent": {"type": "number"}, "value": {"type": "number"}}, ["percent", "value"]
)
CURRENT_TIME = tool(
    {"timezone": {"type": "string", "description": "IANA timezone name"}}, ["timezone"]
)
CONVERT_TIME = tool(
    {
        "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
        "target_timezone": {"type": "string", "description": "Target IANA timezone name"},
    },
    ["source_timezone", "time", "target_timezone"],
)
UNITS = tool(
    {
        "value": {"type": "number"},
        "from_unit": {"type": "string", "description": "unit"},
        "to_unit": {"type": "string", "description": "unit"},
    },
    ["value", "from_unit", "to_unit"],
)


async def test_percent_parameter_takes_the_percentage() -> None:
    filled = await fill_arguments(PERCENTAGE, c("What is 2,340 plus 15% of it"), NoLLM())
    assert filled.arguments == {"percent": 15, "value": 2340}
    assert (
        filled.origins == {"percent": "extracted", "value": "extracted"} and filled.problem is None
    )


async def test_timezones_times_in_schema_order() -> None:
    filled = await fill_arguments(CONVERT_TIME, c("convert 9:30 am from London to Tokyo"), NoLLM())
    assert filled.arguments == {
        "source_timezone": "Europe/London",
        "time": "09:30",
        "target_timezone": "Asia/Tokyo",
    }


async def test_unit_conversion_arguments() -> None:
    filled = await fill_arguments(UNITS, c("how far is 26.2 miles in km?"), NoLLM())
    assert filled.arguments == {"value": 26.2, "from_unit": "miles", "to_unit": "km"}


async def test_query_and_enum_and_date_kinds() -> None:
    search = tool(
        {
            "query": {"type": "string"},
            "sort": {"type": "string", "enum": ["newest", "oldest"]},
            "since": {"type": "string", "format": "date"},
        },
        ["query"],
    )
    filled = await fill_arguments(
        search, c('newest news about "solar power" since yesterday'), NoLLM()
    )
    assert filled.arguments == {"query": "solar power", "sort": "newest", "since": "2026-11-21"}
    assert param_kind("count", {"type": "integer"}) == "integer"


async def test_missing_required_without_llm_is_a_problem_not_a_guess() -> None:
    filled = await fill_arguments(CURRENT_TIME, c("what time is it on the moon"), NoLLM())
    assert filled.arguments == {}
    assert "'timezone' is a required property" in str(filled.problem or "")
    assert "no LLM is configured" in (filled.llm_error or "")


async def test_llm_fills_only_what_extractors_left() -> None:
    llm = ScriptedLLM('{"timezone": "Europe/Berlin"}')
    filled = await fill_arguments(CURRENT_TIME, c("what time is it at the Brandenburg Gate"), llm)
    assert filled.arguments == {"timezone": "Europe/Berlin"} and filled.origins == {
        "timezone": "generated"
    }
    asked = llm.calls[0][-1]["content"]
    assert "Brandenburg Gate" in asked and "timezone" in asked


async def test_a_timezone_for_no_place_named_is_asked_for() -> None:
    """Seen on mcp-server-time: "what time is it there right now?" ran in America/New_York."""
    llm = ScriptedLLM('{"timezone": "America/New_York"}')
    filled = await fill_arguments(CURRENT_TIME, c("what time is it there right now?"), llm)
    assert filled.problem is not None and "needs the timezone" in str(filled.problem)


async def test_llm_garbage_leaves_a_problem() -> None:
    filled = await fill_arguments(
        CURRENT_TIME, c("what time is it there"), ScriptedLLM("nope", "still nope")
    )
    assert filled.problem and "required" in str(filled.problem)
    assert "after one repair attempt" in (filled.llm_error or "")


async def test_types_are_coerced_to_the_schema() -> None:
    llm = ScriptedLLM('{"count": 3.0}')
    counted = tool({"count": {"type": "integer"}, "label": {"type": "string"}}, ["count"])
    filled = await fill_arguments(counted, c('label it "7"'), llm)
    assert filled.arguments == {"count": 3, "label": "7"}
    assert type(filled.arguments["count"]) is int
    # A number the request does not give is asked for, not used.
    assert filled.problem is not None and filled.problem.kind == "ungrounded"


async def test_the_zone_a_clock_time_is_given_in_is_the_source() -> None:
    text = "what time is it in Sydney when it is 9:00 in Berlin?"
    filled = await fill_arguments(CONVERT_TIME, c(text), NoLLM())
    assert filled.arguments["source_timezone"] == "Europe/Berlin"
    assert filled.arguments["target_timezone"] == "Australia/Sydney"


async def test_optional_counts_are_not_taken_from_stray_numbers() -> None:
    search = tool({"query": {"type": "string"}, "k": {"type": "integer"}}, ["query"])
    filled = await fill_arguments(search, c("what is 2+2"), NoLLM())
    assert filled.arguments == {"query": "what is 2+2"} and filled.origins == {"query": "question"}


async def test_a_percent_parameter_needs_a_percentage() -> None:
    filled = await fill_arguments(PERCENTAGE, c("what is 2 and 2"), NoLLM())
    assert "percent" not in filled.arguments and filled.problem


async def test_a_tool_that_changes_things_is_not_called_with_nothing_to_change() -> None:
    """server-memory's create_entities(entities=[]) and delete_observations(deletions=[]) report
    success having changed nothing."""
    create = ToolSpec(
        server="memory",
        name="create_entities",
        input_schema={
            "type": "object",
            "properties": {"entities": {"type": "array", "items": {"type": "object"}}},
            "required": ["entities"],
        },
    )
    filled = await fill_arguments(create, c("remember nothing"), NoLLM(), given={"entities": []})
    assert filled.problem is not None and "would change nothing: entities is empty" in str(
        filled.problem
    )
    delete = create.model_copy(update={"name": "delete_observations"})
    filled = await fill_arguments(delete, c("delete it"), NoLLM(), given={"entities": []})
    assert filled.problem is not None
    some = await fill_arguments(create, c("x"), NoLLM(), given={"entities": [{"name": "Alice"}]})
    assert some.problem is None


STRING = {"type": "string"}
WRITE_FILE = tool({"path": STRING, "content": STRING}, ["path", "content"], name="write_file")
CREATE_ENTITIES = tool(
    {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "entityType": {"type": "string"}},
            },
        }
    },
    ["entities"],
    name="create_entities",
)


async def test_a_tool_that_changes_things_never_runs_with_an_invented_value() -> None:
    """The model proposed text the request does not give: asked for, not written."""
    llm = ScriptedLLM('{"content": "Allowed directories: /tmp"}')
    filled = await fill_arguments(WRITE_FILE, c("write something to /tmp/new.txt"), llm)
    assert filled.origins == {"path": "extracted", "content": "generated"}
    assert filled.problem is not None and filled.problem.kind == "ungrounded"
    assert "needs the content, which the request does not give" in filled.problem.text


async def test_a_proposal_in_the_requests_words_is_used_as_written() -> None:
    llm = ScriptedLLM('{"content": "Hello, World"}')
    filled = await fill_arguments(WRITE_FILE, c("save hello world as /tmp/a.txt"), llm)
    assert filled.problem is None
    assert filled.arguments == {"path": "/tmp/a.txt", "content": "hello world"}
    assert filled.origins["content"] == "chosen" and filled.spans["content"].start == 5


async def test_a_classification_may_be_written_a_name_may_not() -> None:
    llm = ScriptedLLM('{"entities": [{"name": "Alice", "entityType": "person"}]}')
    filled = await fill_arguments(CREATE_ENTITIES, c("remember Alice"), llm)
    assert filled.problem is None and filled.origins == {"entities": "generated"}
    llm = ScriptedLLM('{"entities": [{"name": "Carol", "entityType": "person"}]}')
    filled = await fill_arguments(CREATE_ENTITIES, c("remember Alice"), llm)
    assert filled.problem is not None and filled.problem.kind == "ungrounded"
    # A thing the request names by a common noun is no name the model may write.
    llm = ScriptedLLM('{"entities": [{"name": "project", "entityType": "project"}]}')
    filled = await fill_arguments(CREATE_ENTITIES, c("add a new project to my graph"), llm)
    assert filled.problem is not None


async def test_records_the_model_repeats_are_no_records_to_make() -> None:
    """Seen with SmolLM2 on server-memory: "add that supplier as a company", after a page was
    read, made the entity "Rosa Delgado" twice, observed as its own name."""
    page = ["Rosa Delgado opened the bakery. Marco Delgado built the oven."]
    said = c("check the page and add that supplier to my knowledge graph as a company")
    twice = '{"name": "Rosa Delgado", "entityType": "company"}'
    llm = ScriptedLLM(f'{{"entities": [{twice}, {twice}]}}')
    filled = await fill_arguments(CREATE_ENTITIES, said, llm, read=page)
    assert filled.problem is not None
    echo = '{"name": "Rosa Delgado", "entityType": "company", "observations": ["Rosa Delgado"]}'
    filled = await fill_arguments(
        CREATE_ENTITIES, said, ScriptedLLM(f'{{"entities": [{echo}]}}'), read=page
    )
    assert filled.problem is not None
    once = '{"name": "Rosa Delgado", "entityType": "company"}'
    filled = await fill_arguments(
        CREATE_ENTITIES, said, ScriptedLLM(f'{{"entities": [{once}]}}'), read=page
    )
    assert filled.problem is None  # one record from what was read stands


async def test_someone_a_read_names_is_the_record_of_a_change_pointing_at_them() -> None:
    """No model asked: "Owner: Priya Nair" read from alpha.txt is the owner to add."""
    strings = {"type": "array", "items": {"type": "string"}}
    fields = {"name": {"type": "string"}, "entityType": {"type": "string"}, "observations": strings}
    entities = {"type": "array", "items": {"type": "object", "properties": fields}}
    create = tool({"entities": entities}, ["entities"], name="create_entities")
    said = clause_of(
        1,
        "add the project's owner to my knowledge graph as a person, with an observation that "
        "they own Project Alpha",
        TODAY,
    )
    read = ["read /f/alpha.txt → Project Alpha\nOwner: Priya Nair\nDeadline: 2024-11-15"]
    filled = await fill_arguments(create, said, NoLLM(), read=read)
    assert filled.problem is None and filled.origins == {"entities": "reference"}
    made = {"name": "Priya Nair", "entityType": "person", "observations": ["own Project Alpha"]}
    assert filled.arguments == {"entities": [made]}
    two = ["read /f/alpha.txt → Owner: Priya Nair\nOwner: Tom Berg"]  # which? asked
    assert (await fill_arguments(create, said, NoLLM(), read=two)).problem is not None
    # "that person" is one, who the rows read name
    said = clause_of(
        1, "add that person to the knowledge graph with a note that they bought a Monitor", TODAY
    )
    rows = ["who ordered the Monitor → [{'item': 'Monitor', 'user_name': 'Carla Reyes'}]"]
    filled = await fill_arguments(create, said, NoLLM(), read=rows)
    made = {"name": "Carla Reyes", "entityType": "person", "observations": ["bought a Monitor"]}
    assert filled.arguments == {"entities": [made]}


async def test_a_proposal_from_inside_a_path_is_no_value_of_the_users() -> None:
    """Seen on mcp-server-git: the model named the branch after a folder of the repository."""
    names = ["repo_path", "branch_name"]
    branch = tool(dict.fromkeys(names, STRING), names, name="git_create_branch")
    llm = ScriptedLLM('{"branch_name": "eval-x1"}')
    filled = await fill_arguments(branch, c("create a new branch in /tmp/eval-x1/repo"), llm)
    assert filled.arguments["repo_path"] == "/tmp/eval-x1/repo"
    assert filled.origins["branch_name"] == "generated"
    assert filled.problem is not None and "needs the branch name" in filled.problem.text


async def test_a_proposal_never_reaches_across_a_path() -> None:
    llm = ScriptedLLM('{"content": "in /tmp/a.txt: Meeting moved"}')
    filled = await fill_arguments(WRITE_FILE, c("put this in /tmp/a.txt: Meeting moved"), llm)
    assert filled.origins["content"] == "generated" and filled.problem is not None
    llm = ScriptedLLM('{"content": "Meeting moved"}')
    filled = await fill_arguments(WRITE_FILE, c("put this in /tmp/a.txt: Meeting moved"), llm)
    assert filled.arguments["content"] == "Meeting moved" and filled.problem is None


async def test_a_path_another_argument_took_is_not_proposed_again() -> None:
    """Seen with Qwen2.5-Coder on mcp-server-git: files=[the repository's own path]."""
    paths = {"type": "array", "items": STRING}
    stage = tool({"repo_path": STRING, "files": paths}, ["repo_path", "files"], name="git_add")
    llm = ScriptedLLM('{"files": ["/srv/repo"]}')
    filled = await fill_arguments(stage, c("git add the file I was working on in /srv/repo"), llm)
    assert filled.origins["files"] == "generated" and filled.problem is not None


WRITE_QUERY = tool(
    {"query": {"type": "string", "description": "SQL query to execute"}}, ["query"], "write_query"
)


async def test_sql_the_model_writes_must_be_a_statement() -> None:
    """Seen on mcp-server-sqlite: "delete it" copied from the request ran as a write query."""
    llm = ScriptedLLM('{"query": "delete it"}')
    filled = await fill_arguments(WRITE_QUERY, c("the note on Bob is wrong, delete it"), llm)
    assert filled.problem is not None and "needs the query" in filled.problem.text
    sql = "UPDATE orders SET amount = 5.75 WHERE id = 4"
    filled = await fill_arguments(
        WRITE_QUERY, c("set the amount of order 4 to 5.75"), ScriptedLLM(f'{{"query": "{sql}"}}')
    )
    assert filled.problem is None and filled.arguments == {"query": sql}
    # A change of rows of another kind than asked: "change his city" made no INSERT.
    insert = "INSERT INTO users (city) VALUES ('Vancouver')"
    llm = ScriptedLLM(f'{{"query": "{insert}"}}')
    filled = await fill_arguments(WRITE_QUERY, c("change his city in users to Vancouver"), llm)
    assert filled.problem is not None and "needs the query" in filled.problem.text
    # nor any other statement: a table made up for a row to add
    create = "CREATE TABLE users_table (name, email, address)"
    llm = ScriptedLLM(f'{{"query": "{create}"}}')
    asked = "add them to the users table as Rosa's Bakery, with the email address on their page"
    described = {"type": "string", "description": "CREATE TABLE SQL statement"}
    create_table = tool({"query": described}, ["query"], "create_table")
    filled = await fill_arguments(create_table, c(asked), llm)
    assert filled.problem is not None and "needs the query" in filled.problem.text
    # nor one with a value nobody gave (Qwen2.5-Coder wrote a city for "update her city").
    update = "UPDATE users SET city = 'New York' WHERE name = 'Emma Schultz'"
    llm = ScriptedLLM(f'{{"query": "{update}"}}')
    filled = await fill_arguments(WRITE_QUERY, c("update Emma Schultz's city in users"), llm)
    assert filled.problem is not None and "needs the query" in filled.problem.text
    llm = ScriptedLLM('{"query": "UPDATE orders SET amount = 10 WHERE id = 6"}')
    filled = await fill_arguments(WRITE_QUERY, c("change the amount on order 6"), llm)
    assert filled.problem is not None and "needs the query" in filled.problem.text


async def test_a_reading_tool_gets_no_made_up_name_of_a_thing() -> None:
    """Seen on mcp-server-sqlite: describe_table(table_name="users.please.name.frank...")."""
    describe = tool({"table_name": STRING}, ["table_name"], name="describe_table")
    request = "new row in users please - name: Frank O'Neil, email: frank@example.com"
    llm = ScriptedLLM('{"table_name": "users.please.name.frank.oneil.email.frank@example.com"}')
    filled = await fill_arguments(describe, c(request), llm)
    assert filled.problem is not None and "needs the table name" in filled.problem.text
    filled = await fill_arguments(describe, c(request), ScriptedLLM('{"table_name": "users"}'))
    assert filled.problem is None and filled.arguments == {"table_name": "users"}


async def test_a_timezone_the_model_writes_is_one_the_request_names() -> None:
    """Seen on the fresh dev asks: São Paulo (not read as a zone then) ran in America/New_York,
    and "convert 16:00 to Nairobi time" converted from Nairobi to Nairobi."""
    filled = await fill_arguments(CURRENT_TIME, c("what time is it in São Paulo?"), NoLLM())
    assert filled.arguments == {"timezone": "America/Sao_Paulo"}
    llm = ScriptedLLM('{"source_timezone": "Africa/Nairobi"}')
    filled = await fill_arguments(CONVERT_TIME, c("convert 16:00 to Nairobi time"), llm)
    assert filled.arguments.get("target_timezone") == "Africa/Nairobi"
    assert filled.problem is not None and "source timezone" in str(filled.problem)
    # A place no zone is named after: the model's zone stands ("Lyon": Europe/Paris), beside
    # arguments of any type.
    people = {"type": "array", "items": {"type": "string"}}
    event = tool({"timezone": {"type": "string"}, "people": people}, ["timezone", "people"])
    llm = ScriptedLLM('{"timezone": "Europe/Paris", "people": ["Ann"]}')
    filled = await fill_arguments(event, c("plan a call at noon in Lyon with Ann"), llm)
    assert filled.arguments["timezone"] == "Europe/Paris" and filled.problem is None


async def test_the_model_chooses_a_name_among_the_requests_phrases() -> None:
    """Seen on BFCL: the 135M model typed "Buddhist" for Buddhism, "Ronaldo's matches" for
    Ronaldo; held to the request's phrases it can only copy one of them."""
    info = tool(
        {
            "religion": {"type": "string", "description": "Name of the religion."},
            "sql": {"type": "string", "description": "The SQL query to run."},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        ["religion", "sql", "tags"],
    )
    answer = '{"religion": "Tibetan Buddhism", "sql": "SELECT 1", "tags": ["Asia"]}'
    llm = ScriptedLLM(answer)
    filled = await fill_arguments(info, c("the full history of Tibetan Buddhism in Asia"), llm)
    sampled = (llm.schemas[0] or {})["properties"]
    choices = sampled["religion"]["enum"]
    assert "Tibetan Buddhism" in choices and "full history" in choices
    assert not any(p.split()[0] in ("the", "of", "in") for p in choices)
    assert sampled["tags"]["items"]["enum"] == choices
    assert "enum" not in sampled["sql"]  # a statement the model writes is not copied
    assert filled.arguments["religion"] == "Tibetan Buddhism"
    assert filled.origins["religion"] == "chosen"


async def test_the_models_items_of_a_list_the_request_writes_are_that_whole_list() -> None:
    """Seen on BFCL: the model chose ["cheese"] of "pasta and cheese" for `ingredients`."""
    texts = {"type": "array", "items": {"type": "string"}}
    recipes = tool({"ingredients": texts}, ["ingredients"], name="find_recipe")
    llm = ScriptedLLM('{"ingredients": ["cheese"]}')
    filled = await fill_arguments(recipes, c("a dinner recipe with pasta and cheese"), llm)
    assert filled.arguments["ingredients"] == ["pasta", "cheese"]


async def test_the_models_part_of_a_name_in_capitals_is_the_whole_name() -> None:
    """Seen on BFCL: the model chose "Liga" of "La Liga", "Treaty" of "Treaty of Lisbon"."""
    scorer = tool({"league": STRING}, ["league"], name="top_scorer")
    filled = await fill_arguments(
        scorer, c("Get the top scorer of La Liga"), ScriptedLLM('{"league": "Liga"}')
    )
    assert filled.arguments["league"] == "La Liga"
    person = tool({"scientist": STRING}, ["scientist"], name="contribution")
    text = "What was Albert Einstein's contribution to science?"  # no "'s", no "Lawyer"
    filled = await fill_arguments(person, c(text), ScriptedLLM('{"scientist": "Einstein"}'))
    assert filled.arguments["scientist"] == "Albert Einstein"
    filled = await fill_arguments(
        person, c("the cases of Lawyer John Doe"), ScriptedLLM('{"scientist": "John Doe"}')
    )
    assert filled.arguments["scientist"] == "John Doe"
    # A place the model chose is no part of a bigger name: Lisbon is no treaty.
    town = tool({"city": STRING}, ["city"], name="weather")
    text = "the weather in Lisbon, where the Treaty of Lisbon was signed"
    filled = await fill_arguments(town, c(text), ScriptedLLM('{"city": "Lisbon"}'))
    assert filled.arguments["city"] == "Lisbon"


async def test_no_phrase_is_forced_on_a_change_a_path_or_a_text() -> None:
    """Seen on mcp-server-git: held to the phrases, "make a new branch in /r" created the
    branch "new branch"; a path or a text to write is no phrase of the request either."""
    branch = tool({"branch_name": STRING}, ["branch_name"], name="git_create_branch")
    llm = ScriptedLLM('{"branch_name": "feature-x"}')
    filled = await fill_arguments(branch, c("make a new branch in /srv/repo"), llm)
    assert "enum" not in (llm.schemas[0] or {})["properties"]["branch_name"]
    assert filled.problem is not None and "needs the branch name" in filled.problem.text
    read = tool({"path": STRING, "text": STRING}, ["path", "text"], name="read_text")
    llm = ScriptedLLM('{"path": "files", "text": "x"}')
    await fill_arguments(read, c("where am I allowed to read files?"), llm)
    assert not any("enum" in p for p in (llm.schemas[0] or {})["properties"].values())


async def test_a_word_of_the_parameters_name_is_no_value() -> None:
    """Seen on mcp-server-sqlite: "What columns does that table have?" gave describe_table
    table_name="table"."""
    describe = tool({"table_name": STRING}, ["table_name"], name="describe_table")
    for proposed in ("table", "that table"):
        llm = ScriptedLLM(f'{{"table_name": "{proposed}"}}')
        filled = await fill_arguments(describe, c("What columns does that table have?"), llm)
        assert filled.problem is not None and "needs the table name" in filled.problem.text
    llm = ScriptedLLM('{"table_name": "feedback"}')
    filled = await fill_arguments(describe, c("What columns does the feedback table have?"), llm)
    assert filled.problem is None and filled.arguments == {"table_name": "feedback"}


async def test_the_tools_own_name_in_the_request_is_no_value() -> None:
    """Seen on BFCL: "use the function 'calculate_density'" gave unit='calculate_density'."""
    density = tool({"unit": STRING}, ["unit"], name="calculate_density")
    filled = await fill_arguments(density, c("use the function 'calculate_density'"), NoLLM())
    assert "unit" not in filled.arguments


RELATION = {
    "type": "object",
    "properties": {
        "from": {
            "type": "string",
            "description": "The name of the entity where the relation starts",
        },
        "to": {"type": "string", "description": "The name of the entity where the relation ends"},
        "relationType": {"type": "string", "description": "The type of the relation"},
    },
    "required": ["from", "to", "relationType"],
}
CREATE_RELATIONS = tool(
    {"relations": {"type": "array", "items": RELATION}}, ["relations"], name="create_relations"
)


async def test_a_relation_s_ends_are_names_the_request_gives() -> None:
    """Seen with Qwen2.5-Coder: "add that company to my knowledge graph" after reading about
    "the bakery's flour supplier" had made a relation from "supplier" to "Bakery"."""
    clause = c("see where the bakery's flour supplier buys and add that company to my graph")
    made_up = '{"relations": [{"from": "supplier", "to": "Bakery", "relationType": "supplier"}]}'
    filled = await fill_arguments(CREATE_RELATIONS, clause, ScriptedLLM(made_up))
    assert filled.problem is not None and "relations" in filled.problem.text
    given = c("link Initech to Acme Corp in my graph with the relation competes with")
    named = (
        '{"relations": [{"from": "Initech", "to": "Acme Corp", "relationType": "competes with"}]}'
    )
    filled = await fill_arguments(CREATE_RELATIONS, given, ScriptedLLM(named))
    assert filled.problem is None, filled.problem


async def test_names_of_things_to_delete_are_names_the_request_gives() -> None:
    """Seen with Qwen2.5-Coder: "Please delete that company from my knowledge graph" deleted
    an entity "company" (there was none; the user is asked which)."""
    names = {"type": "array", "items": STRING, "description": "An array of entity names"}
    delete = tool({"entityNames": names}, ["entityNames"], name="delete_entities")
    llm = ScriptedLLM('{"entityNames": ["company"]}')
    filled = await fill_arguments(delete, c("Please delete that company from my graph"), llm)
    assert filled.problem is not None and "entity names" in filled.problem.text
    llm = ScriptedLLM('{"entityNames": ["Globex"]}')
    filled = await fill_arguments(delete, c("Please delete Globex from my graph"), llm)
    assert filled.problem is None and filled.arguments == {"entityNames": ["Globex"]}


async def test_a_path_the_model_gives_a_change_is_one_the_request_writes_whole() -> None:
    """Seen with Qwen2.5-Coder: "make a new subfolder in /srv/files/projects" made the folder
    "srv/files/projects" (the part after the slash), relative to the server's own folder."""
    mkdir = tool(
        {"path": {"type": "string", "description": "Path of the directory"}},
        ["path"],
        name="create_directory",
    )
    llm = ScriptedLLM('{"path": "srv/files/projects"}')
    filled = await fill_arguments(mkdir, c("make a new subfolder in /srv/files/projects"), llm)
    assert filled.problem is not None and "path" in filled.problem.text


async def test_a_text_the_model_gives_a_change_is_one_the_request_gives_as_text() -> None:
    """Seen with Qwen2.5-Coder: "add another item to my todo list in /srv/todo.md" overwrote
    the list with the words "another item to my todo list"."""
    write = tool(
        {"path": {"type": "string"}, "content": {"type": "string"}},
        ["path", "content"],
        name="write_file",
    )
    llm = ScriptedLLM('{"content": "another item to my todo list"}')
    filled = await fill_arguments(write, c("add another item to my todo list in /srv/todo.md"), llm)
    assert filled.problem is not None and "content" in filled.problem.text
    llm = ScriptedLLM('{"content": "water the plants"}')
    filled = await fill_arguments(write, c("write 'water the plants' to /srv/todo.md"), llm)
    assert filled.problem is None and filled.arguments["content"] == "water the plants"
    # nor the asking itself (seen with Qwen2.5-Coder: the file overwritten with that sentence)
    asked = c("one errand in /srv/todo.md is done. Please take it out of the file for me.")
    llm = ScriptedLLM('{"content": "Please take it out of the file for me."}')
    filled = await fill_arguments(write, asked, llm)
    assert filled.problem is not None and "content" in filled.problem.text


async def test_a_thing_of_someones_the_request_names_is_no_observation() -> None:
    """Seen with Qwen2.5-Coder: "I keep forgetting Bob's birthday. Could you add it to his
    entry?" added the observation "birthday" to Bob: a date nobody gave."""
    observation = {
        "type": "object",
        "properties": {"entityName": STRING, "contents": {"type": "array", "items": STRING}},
    }
    add = tool(
        {"observations": {"type": "array", "items": observation}},
        ["observations"],
        name="add_observations",
    )
    asked = c("I keep forgetting Bob's birthday. Could you add it to his entry in my graph?")
    llm = ScriptedLLM('{"observations": [{"entityName": "Bob", "contents": ["birthday"]}]}')
    filled = await fill_arguments(add, asked, llm)
    assert filled.problem is not None and "observations" in filled.problem.text
    for given, said in [
        ("note in my graph that Bob plays the cello", "plays the cello"),
        ("add to my graph: Bob's birthday is May 3", "birthday is May 3"),
    ]:
        llm = ScriptedLLM(f'{{"observations": [{{"entityName": "Bob", "contents": ["{said}"]}}]}}')
        filled = await fill_arguments(add, c(given), llm)
        assert filled.problem is None, filled.problem


async def test_a_name_the_model_gives_a_change_is_no_part_of_a_longer_word() -> None:
    """Seen with Qwen2.5-Coder on mcp-server-git: "new branch in /srv/repo: feature/dark-mode"
    made the branch "dark-mode"."""
    branch = tool(
        {"repo_path": STRING, "branch_name": STRING},
        ["repo_path", "branch_name"],
        name="git_create_branch",
    )
    llm = ScriptedLLM('{"branch_name": "dark-mode"}')
    filled = await fill_arguments(branch, c("new branch in /srv/repo: feature/dark-mode"), llm)
    assert filled.arguments.get("branch_name") != "dark-mode" or filled.problem is not None


def test_the_statements_a_tool_describes_are_those_its_sql_takes() -> None:
    """Seen on mcp-server-sqlite: write_query ("Execute an INSERT, UPDATE, or DELETE query")
    was given the SELECT a request's words make, its `query` parameter saying no kind."""
    query = {"type": "string", "description": "SQL query to execute"}
    write = tool({"query": query}, ["query"], "write_query")
    write.description = "Execute an INSERT, UPDATE, or DELETE query on the SQLite database"
    ((name, prop),) = _statements_described(write)["properties"].items()
    assert sql_kinds(name, prop) == ("insert", "update", "delete")
    write.description = "Run SQL"  # none described: the schema as it is
    assert _statements_described(write) == write.input_schema
