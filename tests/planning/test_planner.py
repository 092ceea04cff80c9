"""Which tool a clause is bound to: `fit` (retrieval/tool_select.py) over the ranked candidates."""

from __future__ import annotations

from datetime import date

from toolweave.language import analyse, clause_of
from toolweave.navigation.graph import ToolGraph
from toolweave.planning.dataflow import link_data_flow
from toolweave.planning.planner import plan_steps
from toolweave.types import Candidate, Quoted, ToolHints, ToolSpec

TODAY = date(2026, 11, 22)


def tool(name: str, properties: dict, *, read_only: bool | None = None) -> ToolSpec:
    return ToolSpec(
        server="s",
        name=name,
        input_schema={"type": "object", "properties": properties, "required": list(properties)},
        hints=ToolHints(read_only=read_only),
    )


NUMBER, STRING = {"type": "number"}, {"type": "string"}
ADD_OBSERVATIONS = tool("add_observations", {"observations": {"type": "array"}})
GET_SUM = tool("get-sum", {"a": NUMBER, "b": NUMBER}, read_only=True)
READ_FILE = tool("read_text_file", {"path": STRING}, read_only=True)
WRITE_FILE = tool("write_file", {"path": STRING, "content": STRING}, read_only=False)
DELETE = tool("delete_entities", {"entityNames": {"type": "array"}}, read_only=False)
SEARCH = tool("search", {"query": STRING}, read_only=True)


def bound(text: str, *ranked: tuple[ToolSpec, float]) -> str:
    candidates = [[Candidate(tool=t, score=score) for t, score in ranked]]
    plan = plan_steps([clause_of(0, text, TODAY)], candidates, min_score=0.28, fallback=SEARCH)
    return plan.steps[0].tool


def tools_planned(texts: list[str], candidates: list[list[Candidate]]) -> list[str]:
    """The tools of the plan for the clauses `texts`, each ranked as `candidates` says."""
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    return [s.tool for s in plan.steps]


def test_the_tool_the_values_fit_wins_over_a_better_ranked_one() -> None:
    # As ranked on the official servers: the word "add" put add_observations first.
    assert bound("add 17 and 25", (ADD_OBSERVATIONS, 0.20), (GET_SUM, 0.288)) == "get-sum"


def test_a_request_for_a_change_is_no_read() -> None:
    text = "write the text hello to /tmp/a.txt"
    assert bound(text, (READ_FILE, 0.542), (WRITE_FILE, 0.537)) == "write_file"


def test_a_change_no_tool_fits_is_not_searched() -> None:
    """Search answers what is asked: a change goes to no document search."""
    text = "insert Frank O'Neil from Dublin into users"
    assert bound(text, (READ_FILE, 0.1)) == ""
    assert bound("who is Frank O'Neil?", (READ_FILE, 0.1)) == "search"


GIT = tool("git_status", {"repo_path": STRING}).model_copy(update={"server": "git"})
DIFF_STAGED = GIT.model_copy(update={"name": "git_diff_staged"})
DIFF_UNSTAGED = GIT.model_copy(update={"name": "git_diff_unstaged"})
COMMIT = GIT.model_copy(update={"name": "git_commit"})
LIST = tool("list_directory", {"path": STRING}, read_only=True)


def test_the_tool_whose_name_the_clause_says_wins() -> None:
    # As ranked on the official servers (eval servers, dev).
    text = "show the unstaged diff in /tmp/repo"
    assert bound(text, (DIFF_STAGED, 0.60), (DIFF_UNSTAGED, 0.55)) == "git_diff_unstaged"
    text = "What have I changed in /tmp/repo that isn't staged yet?"  # not staged: unstaged
    assert bound(text, (DIFF_STAGED, 0.60), (DIFF_UNSTAGED, 0.55)) == "git_diff_unstaged"
    assert bound("ls /tmp/files/projects", (READ_FILE, 0.367), (LIST, 0.314)) == "list_directory"
    # A noun by the word a request uses for it: the history is the log.
    log = GIT.model_copy(update={"name": "git_log"})
    text = "read the git history of /tmp/repo"  # as ranked on the official server (eval, dev)
    assert bound(text, (DIFF_STAGED, 0.35), (log, 0.32)) == "git_log"
    text = "anything uncommitted in /tmp/repo?"
    assert bound(text, (DIFF_STAGED, 0.346), (GIT, 0.300)) == "git_status"
    # as ranked on mcp-server-git (eval servers, dev fresh12)
    text = "I'd like to know which files git isn't tracking yet in /tmp/repo"
    assert bound(text, (log, 0.525), (DIFF_UNSTAGED, 0.502), (GIT, 0.454)) == "git_status"
    assert bound("/tmp/repo: untracked files?", (log, 0.50), (GIT, 0.45)) == "git_status"
    # the changes not committed are the unstaged diff; a noun after a participle edits nothing
    edit = tool("edit_file", {"path": STRING, "edits": {"type": "array"}}, read_only=False)
    text = "Could you show me the uncommitted changes to app.py in the repository at /tmp/repo"
    ranked = ((edit, 0.49), (DIFF_STAGED, 0.381), (DIFF_UNSTAGED, 0.376), (GIT, 0.283))
    assert bound(text, *ranked) == "git_diff_unstaged"
    # ... though the tool's verb is unsaid (as ranked on server-filesystem, eval servers dev)
    sizes = tool("list_directory_with_sizes", {"path": STRING}, read_only=True)
    for text in (
        "which file in /tmp/files/projects is the biggest?",
        "tell me which file in /tmp/files/projects takes up the most space",
    ):
        assert bound(text, (LIST, 0.388), (sizes, 0.382)) == "list_directory_with_sizes"
    assert bound("what's in /tmp/files/projects", (LIST, 0.388), (sizes, 0.382)) == (
        "list_directory"
    )
    text = "What have I changed in /tmp/repo that I haven't staged yet?"
    assert bound(text, (DIFF_STAGED, 0.60), (DIFF_UNSTAGED, 0.55)) == "git_diff_unstaged"
    text = "save the result in /tmp/files/sum.txt"
    assert bound(text, (READ_FILE, 0.420), (WRITE_FILE, 0.272)) == "write_file"
    # The words of a path are no words of the request: "files" asks for no search_files.
    text = "What's in /tmp/files/notes.txt?"
    assert bound(text, (READ_FILE, 0.40), (tool("search_files", {"path": STRING}), 0.39)) == (
        "read_text_file"
    )


def test_a_noun_of_a_tools_name_alone_asks_for_no_tool() -> None:
    percentage = tool("percentage", {"percent": NUMBER, "value": NUMBER}, read_only=True)
    text = "What percentage of Eritrea adheres to the religion of the region?"
    assert bound(text, (percentage, 0.20)) == "search"
    # Nor with a number in the clause: a noun chooses between tools that fit, it makes none fit.
    change = tool("percent_change", {"old": NUMBER, "new": NUMBER}, read_only=True)
    text = "When did Lexus change the body style of the RX 350?"
    assert bound(text, (change, 0.10)) == "search"


def test_the_noun_of_a_tool_whose_verb_is_unsaid_is_only_where_the_values_are() -> None:
    """mcp-server-sqlite's names: "the users table" is where the rows are, it asks for no
    `describe_table` (MiniLM ranked it first, 0.07 above `read_query`)."""
    sql = {"query": {"type": "string", "description": "SELECT SQL query to execute"}}
    read = tool("read_query", sql, read_only=True)
    describe = tool("describe_table", {"table_name": STRING}, read_only=True)
    text = "find everyone in the users table whose city is Lyon"
    assert bound(text, (describe, 0.25), (read, 0.18)) == "read_query"
    assert bound("describe the users table", (describe, 0.25), (read, 0.18)) == "describe_table"


def test_a_noun_that_names_a_change_asks_for_none() -> None:
    text = "Show me config.py as it is in the latest commit of /tmp/repo"
    assert bound(text, (COMMIT, 0.40), (GIT, 0.35)) == "git_status"


def test_a_tool_that_changes_what_the_clause_does_not_ask_for_never_fits() -> None:
    assert bound("how many entities are there", (DELETE, 0.6)) == "search"


def test_a_change_acts_on_the_thing_the_clause_names() -> None:
    # As ranked on server-memory (eval servers, dev): Alice filled delete_entities, and would
    # have been deleted for "remove the observation that she likes hiking".
    forget = tool("delete_observations", {"deletions": {"type": "array"}}, read_only=False)
    held = [
        [
            Candidate(tool=DELETE, score=0.351, holds=True),
            Candidate(tool=forget, score=0.434, holds=True),
        ]
    ]
    text = "Alice gave up hiking, please remove the observation that she likes hiking"
    assert tools_planned([text], held) == ["delete_observations"]
    assert tools_planned(["delete Alice"], held) == ["delete_entities"]


def test_an_addition_makes_the_thing_its_verb_names() -> None:
    # server-memory's schemas: add_observations had been given Alice and "has been moved onto
    # a different project" for "add a relation for that" (eval servers, dev fresh14).
    def items(**fields: dict) -> dict:
        return {"type": "array", "items": {"type": "object", "properties": fields}}

    strings = {"type": "array", "items": STRING}
    observe = tool("add_observations", {"observations": items(entityName=STRING, contents=strings)})
    relate = tool("create_relations", {"relations": items(**dict.fromkeys(("from", "to"), STRING))})
    make = tool("create_entities", {"entities": items(name=STRING, observations=strings)})
    held = [
        [
            Candidate(tool=observe, score=0.45, holds=True),
            Candidate(tool=relate, score=0.40, holds=True),
            Candidate(tool=make, score=0.35, holds=True),
        ]
    ]
    text = "Alice has been moved onto a different project: add a relation for that in memory"
    assert tools_planned([text], held) == ["create_relations"]
    # a part of what it adds is no thing it makes
    text = "add Dana as a person, with an observation that she plays the cello"
    ranked = [[Candidate(tool=make, score=0.45), Candidate(tool=observe, score=0.40)]]
    assert tools_planned([text], ranked) == ["create_entities"]


def test_a_change_the_clause_gives_the_values_for_wins() -> None:
    # As ranked on the official servers (eval servers, dev): a change none of whose values the
    # clause gives cannot be the one asked for.
    create = tool("create_table", {"query": {"type": "string", "description": "CREATE TABLE SQL"}})
    write = tool("write_query", {"query": {"type": "string", "description": "SQL to execute"}})
    # mcp-server-sqlite's words
    create = create.model_copy(update={"description": "Create a new table in the database"})
    said = "Execute an INSERT, UPDATE, or DELETE query on the SQLite database"
    write = write.model_copy(update={"description": said})
    text = "Add a row to the staff table: name Ida Vos, town Bergen"
    assert bound(text, (create, 0.280), (write, 0.132)) == "write_query"


def test_a_file_the_change_has_no_place_for_is_staged_first() -> None:
    """mcp-server-git's schemas: `git_commit` takes no file, `git_add` takes "app.py"."""
    repo = {"repo_path": STRING}
    commit = tool("git_commit", repo | {"message": STRING})
    add = tool("git_add", repo | {"files": {"type": "array", "items": STRING}})
    ranked = [Candidate(tool=commit, score=0.30), Candidate(tool=add, score=0.20)]

    def planned(text: str) -> list[str]:
        clauses = [clause_of(0, text, TODAY)]
        plan = plan_steps(clauses, [ranked], min_score=0.28, fallback=SEARCH)
        return [
            f"{s.tool}{' (part of ' + s.part_of + ')' if s.part_of else ''}" for s in plan.steps
        ]

    text = 'Commit app.py in /srv/repo with the message "Fix the units"'
    assert planned(text) == ["git_add (part of s1)", "git_commit"]  # asked with the commit
    plan = plan_steps([clause_of(0, text, TODAY)], [ranked], min_score=0.28, fallback=SEARCH)
    linked, _ = link_data_flow(plan, {t.key: t for t in (commit, add)}, analyse(text, TODAY))
    assert [(s.id, s.part_of) for s in linked.steps] == [("s1", "s2"), ("s2", "")]
    assert planned('commit in /srv/repo, message "Fix"') == ["git_commit"]  # nothing to stage


def test_nothing_fits_below_the_threshold() -> None:
    assert bound("who won the 1998 world cup", (GET_SUM, 0.1)) == "search"


FETCH = tool("fetch", {"url": STRING}, read_only=True)


def test_a_page_the_user_names_answers_instead_of_a_search() -> None:
    question = "How much is a croissant? The price list is at http://x.test/prices.html"
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(question.split("? "))]
    candidates = [[Candidate(tool=GET_SUM, score=0.1)], [Candidate(tool=FETCH, score=0.5)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["fetch"]
    # Without the page, the question is searched.
    plan = plan_steps(clauses[:1], candidates[:1], min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["search"]
    # A question that gives the page reads it, though no tool fits it well.
    going_by = clause_of(0, "which mill supplies the flour, going by http://x.test/a.html?", TODAY)
    plan = plan_steps(
        [going_by], [[Candidate(tool=FETCH, score=0.0)]], min_score=0.28, fallback=SEARCH
    )
    assert [s.tool for s in plan.steps] == ["fetch"]


def test_a_clause_about_a_tools_result_asks_for_no_call_of_its_own() -> None:
    """ "fetch <url> and tell me its meta description": the page answers; a tool that fits the
    second clause a little (the official everything server's get-annotated-message) is no
    part of it. After a search, "its population" is a question to search."""
    message = tool("get-annotated-message", {"messageType": STRING}, read_only=True)

    def steps(
        first: ToolSpec, second: str, first_text: str = "fetch http://x.test/a.html"
    ) -> list[str]:
        texts = [first_text, second]
        clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
        candidates = [[Candidate(tool=first, score=0.5)], [Candidate(tool=message, score=0.4)]]
        return [
            s.tool for s in plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH).steps
        ]

    assert steps(FETCH, "tell me its meta description") == ["fetch"]
    # Nor when the page the user names comes first and the clause gives the tool no value; a
    # value of its own is a request of its own.
    assert steps(FETCH, "tell me the meta description") == ["fetch"]
    assert steps(FETCH, 'tell me the "error" message') == ["fetch", "get-annotated-message"]
    # Nor after a page the user points at, to be asked for.
    assert steps(FETCH, "tell me what's new", first_text="open the website") == ["fetch"]
    # A word a server's records say ("deadline" in a knowledge graph) is still about the page.
    matched = {"type": "string", "description": "The query to match against what it holds"}
    graph = tool("search_nodes", {"query": matched}, read_only=True)
    texts = ["fetch http://x.test/a.html", "tell me the deadline"]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    clauses[1].about = [Quoted(start=12, end=20, value="deadline")]
    candidates = [[Candidate(tool=FETCH, score=0.5)], [Candidate(tool=graph, score=0.4)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["fetch"]
    assert steps(SEARCH, "tell me its meta description") == ["search", "get-annotated-message"]
    # A clause that says what a fitting tool does calls it (NESTFUL: "... and decode it").
    message = tool("decode_message", {"messageType": STRING}, read_only=True)
    assert steps(FETCH, "decode it") == ["fetch", "decode_message"]
    # A clause that names fields of what the tool before returns asks about its result.
    weather = tool("get-structured-content", {"location": STRING}, read_only=True)
    weather.output_schema = {"properties": {"conditions": STRING, "humidity": NUMBER}}
    pulled = "pull the structured content for New York"
    assert steps(weather, "give me the conditions", first_text=pulled) == ["get-structured-content"]
    assert len(steps(weather, "give me the weather", first_text=pulled)) == 2  # no field


def test_a_question_asked_of_the_place_named_after_it_is_answered_by_reading_it() -> None:
    """ "which port is the server on? check server.log": one read (the mcp-server-filesystem's
    list_allowed_directories, which takes nothing, had answered the question on its own)."""
    takes_nothing = tool("list_allowed_directories", {}, read_only=True)

    def steps(question: str, where: str) -> list[str]:
        clauses = [clause_of(n, text, TODAY) for n, text in enumerate([question, where])]
        candidates = [[Candidate(tool=takes_nothing, score=0.4)]]
        candidates.append([Candidate(tool=READ_FILE, score=0.5)])
        plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
        return [s.tool for s in plan.steps]

    for where in ("check /srv/server.log", "it's written in /srv/server.log", "see /srv/a.log."):
        assert steps("which port is the server on?", where) == ["read_text_file"]
    # after a clause that asks more, the question is a request of its own
    both = ["list_allowed_directories", "read_text_file"]
    assert steps("which port is the server on?", "check /srv/server.log for errors") == both
    assert steps("which port is the server on?", "then open /srv/server.log") == both


def test_a_thing_asked_for_again_is_one_call() -> None:
    show = tool("git_show", {"repo_path": STRING, "revision": STRING}, read_only=True)
    texts = ["What did commit HEAD~2 of /r introduce?", "Show me that commit."]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    candidates = [[Candidate(tool=show, score=0.5)], [Candidate(tool=show, score=0.5)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["git_show"]
    texts = ["What changed in /r since HEAD~2?", "Show the diff."]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["git_show"]
    # The thing the tool before gives by its name, though another tool fits the words better
    texts = ["/r: what have I changed but not staged yet?", "show the diff"]
    candidates = [
        [Candidate(tool=DIFF_UNSTAGED, score=0.5)],
        [Candidate(tool=DIFF_STAGED, score=0.5)],
    ]
    assert tools_planned(texts, candidates) == ["git_diff_unstaged"]
    # Something else asked of it is a request of its own.
    texts = ["Look up the Eiffel Tower.", "How tall is that tower?"]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    candidates = [[Candidate(tool=SEARCH, score=0.5)], [Candidate(tool=SEARCH, score=0.5)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["search", "search"]


def test_another_question_of_the_same_place_is_a_call_of_its_own() -> None:
    """ "<repo>: current branch? working tree clean?" had answered the second from the first."""
    branch = tool("git_branch", {"repo_path": STRING}, read_only=True)
    status = tool("git_status", {"repo_path": STRING}, read_only=True)
    texts = ["/r: current branch?", "working tree clean?"]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    candidates = [[Candidate(tool=branch, score=0.5)], [Candidate(tool=status, score=0.5)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["git_branch", "git_status"]
    # Not so a question of what was read that another tool cannot be given ("which files are
    # left?" after a folder's tree: server-filesystem's read_multiple_files takes files, and
    # list_allowed_directories nothing)
    tree = tool("directory_tree", {"path": STRING}, read_only=True)
    files = tool("read_multiple_files", {"paths": {"type": "array"}}, read_only=True)
    allowed = tool("list_allowed_directories", {}, read_only=True)
    texts = ["show /a/projects as a tree, leave out the old folder", "Which files are left?"]
    asked = [Candidate(tool=files, score=0.45), Candidate(tool=allowed, score=0.4)]
    assert tools_planned(texts, [[Candidate(tool=tree, score=0.5)], asked]) == ["directory_tree"]


def test_a_request_to_look_up_what_was_named_is_the_reading_of_it() -> None:
    """ "I need the deadline in /a/alpha.txt. Could you look those up for me?" had searched
    for files in alpha.txt (server-filesystem's search_files)."""
    finder = tool("search_files", {"path": STRING, "pattern": STRING}, read_only=True)
    texts = ["I need the deadline in /a/alpha.txt", "Could you look those up for me?"]
    candidates = [[Candidate(tool=READ_FILE, score=0.5)], [Candidate(tool=finder, score=0.5)]]
    assert tools_planned(texts, candidates) == ["read_text_file"]


def test_a_number_added_to_the_earlier_result_is_a_step_of_its_own() -> None:
    """ "sum 1234 and 4321 and then add 445 to that" (server-everything's get-sum, which MiniLM
    ranks low for the second clause): "that" is the one value still missing."""
    texts = ["sum 1234 and 4321", "add 445 to that"]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    candidates = [[Candidate(tool=GET_SUM, score=0.489)], [Candidate(tool=GET_SUM, score=0.12)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["get-sum", "get-sum"]


def test_what_the_request_calls_the_values_counts_for_the_tools_that_take_such() -> None:
    """As ranked on the official servers (eval servers, dev): a path called a directory is for
    a tool named for folders, not `git_show`, whose verb the request says; a page pointed at and
    not given is for the tool that fetches one, which then asks for it (not a document search);
    a question about a page wants none fetched."""
    show = GIT.model_copy(update={"name": "git_show"})
    text = "show the contents of the /tmp/files/projects directory"
    assert bound(text, (show, 0.355), (LIST, 0.416)) == "list_directory"
    fetch = tool("fetch", {"url": STRING}, read_only=True).model_copy(update={"server": "fetch"})
    for text in ("get the webpage for me", "download the article and summarize it"):
        assert bound(text, (SEARCH, 0.389), (fetch, 0.369)) == "fetch"
    text = "who runs the website surpassed by Baidu Baike?"
    assert bound(text, (SEARCH, 0.389), (fetch, 0.369)) == "search"


def test_a_fact_then_what_to_do_with_it_after_a_dash_is_one_request() -> None:
    observations = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"entityName": STRING, "contents": {"type": "array", "items": STRING}},
            "required": ["entityName", "contents"],
        },
    }
    add = tool("add_observations", {"observations": observations}, read_only=False)
    search = tool("search_nodes", {"query": STRING}, read_only=True)
    text = 'Alice "prefers window seats" - save that in memory'
    assert bound(text, (search, 0.107), (add, 0.135)) == "add_observations"


def test_a_tool_that_takes_nothing_fits_no_clause_that_gives_values() -> None:
    """As ranked on mcp-server-sqlite (eval servers, dev): the verb "list" had sent a question
    with a condition to `list_tables()`; a description does not insert a row."""
    sql = {"query": {"type": "string", "description": "SELECT SQL query to execute"}}
    read = tool("read_query", sql, read_only=True)
    tables = ToolSpec(server="s", name="list_tables", hints=ToolHints(read_only=True))
    text = "please list the users in the users table whose city is Lyon"
    assert bound(text, (tables, 0.309), (read, 0.212)) == "read_query"
    assert bound("list the tables", (tables, 0.309), (read, 0.212)) == "list_tables"
    describe = tool("describe_table", {"table_name": STRING}, read_only=True).model_copy(
        update={"description": "Get the schema information for a specific table"}
    )
    write = tool("write_query", {"query": STRING}, read_only=False).model_copy(
        update={"description": "Execute an INSERT, UPDATE, or DELETE query"}
    )
    clause = clause_of(0, "please insert a row into the users table", TODAY)
    held = [
        [
            Candidate(tool=describe, score=0.263, holds=True),
            Candidate(tool=write, score=0.319, holds=True),
        ]
    ]
    plan = plan_steps([clause], held, min_score=0.28, fallback=SEARCH)
    assert plan.steps[0].tool == "write_query"  # which then asks for the row


def test_a_change_asked_of_a_named_server_without_its_values_is_its_tools_to_ask() -> None:
    write = tool("write_query", {"query": STRING}, read_only=False).model_copy(
        update={"description": "Execute an INSERT, UPDATE, or DELETE query"}
    )
    clause = clause_of(0, "Can you change an email in the users table for me?", TODAY)

    def planned(*candidates: Candidate) -> str:
        return (
            plan_steps([clause], [list(candidates)], min_score=0.28, fallback=SEARCH).steps[0].tool
        )

    assert planned(Candidate(tool=write, score=0.05, holds=True)) == "write_query"
    # Or whose folders hold the paths the clause gives (server-filesystem's allowed ones).
    file = tool("write_file", {"path": STRING, "content": STRING}, read_only=False)
    clause = clause_of(0, "save a new file in /srv saying 'call Bo'", TODAY)
    assert planned(Candidate(tool=file, score=0.05, inside=True)) == "write_file"
    clause = clause_of(0, "Can you change an email in the users table for me?", TODAY)
    # Not a tool of a server the clause does not name, nor one of two servers.
    assert planned(Candidate(tool=write, score=0.05)) == ""
    other = write.model_copy(update={"server": "t"})
    both = (
        Candidate(tool=write, score=0.05, holds=True),
        Candidate(tool=other, score=0.05, holds=True),
    )
    assert planned(*both) == ""


def test_a_part_of_a_request_for_tools_that_no_tool_fits_is_searched_only_when_asked_alone() -> (
    None
):
    """Seen on mcp-server-sqlite: "Who's our biggest spender? Add up each user's orders ..."
    searched the documents for "Who's our biggest spender?"; a question of its own still is."""
    rows = tool("read_query", {"query": STRING}, read_only=True)

    def steps(*texts: str) -> list[str]:
        clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
        candidates = [
            [
                Candidate(
                    tool=rows if "orders" in text else GET_SUM,
                    score=0.5 if "orders" in text else 0.1,
                )
            ]
            for text in texts
        ]
        plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
        return [s.tool for s in plan.steps]

    assert steps("Who's our biggest spender?", "add up the orders of each user") == ["read_query"]
    assert steps("list the orders of Bob", "Keep my edits though.") == ["read_query"]
    assert steps("list the orders of Bob", "who won the 1998 world cup?") == [
        "read_query",
        "search",
    ]
    # One the next part goes on from is searched: "... tell me the orders of their winner".
    assert steps("who won the 1998 world cup?", "list the orders of their captain") == [
        "search",
        "read_query",
    ]


def test_a_person_the_clause_points_back_at_is_in_the_rows_read() -> None:
    """ "find Carla Reyes in users and give me her email": her row answers, no search does."""
    rows = tool("read_query", {"query": STRING}, read_only=True)

    def steps(second: str) -> list[str]:
        texts = ["find Carla Reyes in users", second]
        clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
        candidates = [[Candidate(tool=rows, score=0.5)], [Candidate(tool=GET_SUM, score=0.1)]]
        plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
        return [s.tool for s in plan.steps]

    assert steps("give me her email") == ["read_query"]
    assert steps("what was his comment?") == ["read_query"]
    assert steps("who won the 1998 world cup?") == ["read_query", "search"]
    # So does asking to be told what they say, giving nothing to look up.
    assert steps("tell me what the customers complained about?") == ["read_query"]
    assert steps("tell me what the weather is in Oslo") == ["read_query", "search"]
    # A tool that fits what is asked of the person is called (NESTFUL: "Find the biography of
    # Eminem from Spotify and retrieve his albums").
    albums = tool("get_albums", {"artist": STRING}, read_only=True)
    texts = ["find the biography of Eminem", "retrieve his albums"]
    clauses = [clause_of(n, text, TODAY) for n, text in enumerate(texts)]
    candidates = [[Candidate(tool=rows, score=0.5)], [Candidate(tool=albums, score=0.6)]]
    plan = plan_steps(clauses, candidates, min_score=0.28, fallback=SEARCH)
    assert [s.tool for s in plan.steps] == ["read_query", "get_albums"]


def test_a_folder_the_request_says_is_new_is_made_first() -> None:
    """ "Create /srv/drafts/intro.md ... (the drafts folder doesn't exist yet)": server-filesystem
    writes no file into a missing folder, so `create_directory` makes /srv/drafts first."""
    make = tool("create_directory", {"path": STRING}, read_only=False)

    def planned(text: str) -> list[tuple[str, dict]]:
        ranked = [Candidate(tool=WRITE_FILE, score=0.5), Candidate(tool=make, score=0.3)]
        plan = plan_steps([clause_of(0, text, TODAY)], [ranked], min_score=0.28, fallback=SEARCH)
        return [(s.tool, s.arguments) for s in plan.steps]

    text = 'Create /srv/drafts/intro.md with the text "# Hi" (the drafts folder doesn\'t exist yet)'
    assert planned(text) == [("create_directory", {"path": "/srv/drafts"}), ("write_file", {})]
    assert planned('Create /srv/drafts/intro.md with the text "# Hi"') == [("write_file", {})]


def test_a_row_a_file_gives_is_inserted_from_it() -> None:
    """ "Read the form in /a/form.txt and add that customer to the users table": mcp-server-
    sqlite's write_query runs the INSERT of the row the file's labelled lines give (dataflow),
    not create_table; the file's text is never run as a statement."""
    sql = {"type": "string", "description": "SQL query to execute"}
    write = tool("write_query", {"query": sql})
    create = tool("create_table", {"query": {**sql, "description": "CREATE TABLE SQL statement"}})

    def planned(first: str, second: str) -> list[tuple[str, dict]]:
        clauses = [clause_of(n, text, TODAY) for n, text in enumerate([first, second])]
        clauses[1].held = [Quoted(start=second.index("users"), end=0, value="users")]
        clauses[1].fields = {"users": ["id", "name", "email", "city"]}
        ranked = [[Candidate(tool=READ_FILE, score=0.5)]]
        ranked.append([Candidate(tool=create, score=0.5), Candidate(tool=write, score=0.3)])
        plan = plan_steps(clauses, ranked, min_score=0.28, fallback=SEARCH)
        tools = {t.key: t for t in (READ_FILE, write, create)}
        linked, _ = link_data_flow(plan, tools, analyse(f"{first}. {second}", TODAY))
        return [(s.tool, s.arguments) for s in linked.steps]

    row = "{{s1.result | row:users:name,email,city}}"
    assert planned("read /a/form.txt", "add that customer to the users table") == [
        ("read_text_file", {}),
        ("write_query", {"query": row}),
    ]
    # The request's own row is its own; nothing read, nothing taken from a result.
    own = planned("read /a/form.txt", "add Frank (frank@x.org) to the users table")
    assert row not in str(own)
    assert planned("what time is it", "add that customer to the users table")[-1][1] == {}


def test_a_row_with_a_value_a_page_gives_is_inserted_with_it() -> None:
    """ "Check the price on <url> and add an order for user 3 of a Baguette at that price": the
    INSERT the clause spells out, its amount the page's price of a baguette (a reference)."""
    sql = {"type": "string", "description": "SQL query to execute"}
    write = tool("write_query", {"query": sql})
    create = tool("create_table", {"query": {**sql, "description": "CREATE TABLE SQL statement"}})
    fetch = tool("fetch", {"url": STRING}, read_only=True)
    first, second = "check the price on http://x.test/p.html", "add an order for user 3 "
    clauses = [clause_of(0, first, TODAY)]
    fields = {"orders": ["id", "user_id", "item", "amount"], "users": ["id", "name"]}

    def planned(said: str) -> list[tuple[str, dict]]:
        clause = clause_of(1, f"{second}{said}", TODAY)
        clause.held = [
            Quoted(start=7, end=12, value="orders"),
            Quoted(start=23, end=27, value="users"),
        ]
        clause.fields, clause.numeric = fields, {"orders": ["id", "user_id", "amount"]}
        ranked = [[Candidate(tool=fetch, score=0.5)]]
        ranked.append([Candidate(tool=create, score=0.5), Candidate(tool=write, score=0.3)])
        plan = plan_steps([*clauses, clause], ranked, min_score=0.28, fallback=SEARCH)
        tools = {t.key: t for t in (fetch, write, create)}
        linked, _ = link_data_flow(plan, tools, analyse(f"{first} and {clause.text}", TODAY))
        return [(s.tool, s.arguments) for s in linked.steps]

    price = "{{s1.result | value:price of baguette}}"
    query = f"INSERT INTO orders (user_id, item, amount) VALUES (3, 'Baguette', {price})"
    assert planned("of a Baguette at that price") == [
        ("fetch", {}),
        ("write_query", {"query": query}),
    ]
    # No value read before: no row made without it
    clause = clause_of(0, f"{second}of a Baguette at that price", TODAY)
    clause.held = [Quoted(start=7, end=12, value="orders")]
    clause.fields, clause.numeric = fields, {"orders": ["id", "user_id", "amount"]}
    alone = plan_steps(
        [clause], [[Candidate(tool=write, score=0.5)]], min_score=0.28, fallback=SEARCH
    )
    assert (
        link_data_flow(alone, {write.key: write}, analyse(clause.text, TODAY))[0].steps[0].arguments
        == {}
    )


def test_the_next_clause_takes_the_tool_the_step_before_feeds() -> None:
    find = ToolSpec(
        server="buses",
        name="find_bus",
        description="Find a bus between two cities",
        input_schema={"type": "object", "properties": {"origin": STRING}, "required": ["origin"]},
        output_schema={"type": "object", "properties": {"departure_time": STRING}},
    )
    bus_ticket = tool("buy_bus_ticket", {"departure_time": STRING})
    event_ticket = tool("buy_event_tickets", {"event_name": STRING})
    clauses = [
        clause_of(0, "Find a bus from Chicago", TODAY),
        clause_of(1, "buy me a ticket", TODAY),
    ]
    # As ranked on NESTFUL's SGD tools: the event tickets first for "buy me a ticket".
    candidates = [
        [Candidate(tool=find, score=0.53)],
        [Candidate(tool=event_ticket, score=0.53), Candidate(tool=bus_ticket, score=0.43)],
    ]

    def chosen(graph: ToolGraph | None) -> list[str]:
        plan = plan_steps(clauses, candidates, min_score=0.28, fallback=None, graph=graph)
        return [[c.tool.name for c in s.candidates] for s in plan.steps][1]

    assert chosen(None)[0] == "buy_event_tickets"
    graph = ToolGraph.derived([find, bus_ticket, event_ticket])
    assert graph.feeds(find.key, bus_ticket.key) and not graph.feeds(find.key, event_ticket.key)
    assert chosen(graph) == ["buy_bus_ticket"]  # the step agent cannot go back to the events


def test_a_request_for_the_subfolders_too_goes_to_a_tool_that_goes_down_into_them() -> None:
    listing = tool("list_directory", {"path": STRING}, read_only=True).model_copy(
        update={"description": "Get a detailed listing of all files and directories in a path."}
    )
    tree = tool("directory_tree", {"path": STRING}, read_only=True).model_copy(
        update={"description": "Get a recursive tree view of files and directories."}
    )
    # As ranked on the official filesystem server: the listing first.
    ranked = ((listing, 0.45), (tree, 0.39))
    assert bound("show me everything under /srv/projects, subfolders included", *ranked) == (
        "directory_tree"
    )
    assert bound("show me everything in /srv/projects", *ranked) == "list_directory"


def test_a_new_thing_related_to_one_the_graph_holds_is_added_with_its_relation() -> None:
    """server-memory's schemas: "Kofi ..., works at Initech" adds Kofi, then the relation to
    Initech (an entity the graph holds); a relation to a new thing whose kind is said adds the
    thing first. Nothing relates to a name the graph does not hold."""
    text_of = {"type": "string"}
    entity = {"name": text_of, "entityType": text_of, "observations": {"type": "array"}}
    relation = {"from": text_of, "to": text_of, "relationType": text_of}

    def records_of(fields: dict) -> dict:
        items = {"type": "object", "properties": fields, "required": list(fields)}
        return {"type": "array", "items": items}

    create = tool("create_entities", {"entities": records_of(entity)}, read_only=False)
    relate = tool("create_relations", {"relations": records_of(relation)}, read_only=False)

    def planned(text: str, held: str, first: ToolSpec) -> list[str]:
        clause = clause_of(0, text, TODAY)
        at = text.rindex(held)
        clause.held = [Quoted(start=at, end=at + len(held), value=held)]
        ranked = [Candidate(tool=first, score=0.3)]
        ranked += [Candidate(tool=t, score=0.2) for t in (create, relate) if t is not first]
        return [
            s.tool for s in plan_steps([clause], [ranked], min_score=0.0, fallback=SEARCH).steps
        ]

    both = ["create_entities", "create_relations"]
    text = "new person Kofi Mensah ('QA tester, joined in September'), works at Initech"
    assert planned(text, "Initech", create) == both
    assert (
        planned(
            "add person Hiro Sato (note 'joined Initech'), Hiro Sato works at Initech",
            "Initech",
            create,
        )
        == both
    )
    text = "My new contact Kofi Mensah (a person) works at Initech: please put him in my graph"
    assert planned(text, "Initech", relate) == both
    text = "add Nadia Haddad to memory as a person who works at Acme Corp"
    assert planned(text, "Nadia", create) == ["create_entities"]
    # Who does it to the new thing: "..., Carol leads it"
    text = "mem: new project 'Project Osprey' (obs 'deadline is June 30'), Carol leads it"
    assert planned(text, "Carol", create) == both
    # One thing named relates nothing: "the cello" is no thing of the graph's.
    clause = clause_of(0, "remember that Dana plays the cello", TODAY)
    named = {"name": text_of, "entityType": text_of}
    create = tool("create_entities", {"entities": records_of(named)}, read_only=False)
    ranked = [Candidate(tool=relate, score=0.3), Candidate(tool=create, score=0.2)]
    chosen = plan_steps([clause], [ranked], min_score=0.0, fallback=SEARCH).steps
    assert [s.tool for s in chosen] == ["create_entities"]


def test_a_change_no_tool_fits_goes_to_the_server_of_the_step_before() -> None:
    """ "create a branch units-flag in /r, check it out, and then stage app.py": the staging
    gives no repository, and is mcp-server-git's git_add all the same."""
    repo, files = {"repo_path": STRING}, {"files": {"type": "array", "items": STRING}}
    git = {"server": "git"}
    create = tool("git_create_branch", repo | {"branch_name": STRING}, read_only=False)
    add = tool("git_add", repo | files, read_only=False).model_copy(update=git)
    note = tool("append_insight", {"insight": STRING}, read_only=False)
    clauses = [clause_of(0, "create a branch units-flag in /r", TODAY)]
    clauses.append(clause_of(1, "stage app.py", TODAY))
    ranked = [
        [Candidate(tool=create.model_copy(update=git), score=0.5)],
        [Candidate(tool=add, score=0.1), Candidate(tool=note, score=0.1)],
    ]
    plan = plan_steps(clauses, ranked, min_score=0.28, fallback=SEARCH)
    assert [s.key for s in plan.steps] == ["git.git_create_branch", "git.git_add"]
    alone = plan_steps(clauses[1:], ranked[1:], min_score=0.28, fallback=SEARCH)
    assert [s.key for s in alone.steps] == ["."]  # no server it is on: asked, not guessed


def test_a_question_no_tool_fits_is_read_by_a_tool_given_all_it_needs() -> None:
    """mcp-server-git's git_show: "config.py as committed at HEAD in /srv/repo" gives it the
    repository and HEAD:config.py; server-filesystem cannot reach the repository."""
    show = tool("git_show", {"repo_path": STRING, "revision": STRING}, read_only=True)
    show = show.model_copy(update={"server": "git", "description": "Shows a commit"})
    text = "Check config.py as committed at HEAD in /srv/repo: what file does load_config read?"
    outside = Candidate(tool=READ_FILE, score=0.37, outside=True)
    plan = plan_steps(
        [clause_of(0, text, TODAY)],
        [[outside, Candidate(tool=show, score=0.05)]],
        min_score=0.28,
        fallback=SEARCH,
    )
    assert [(s.tool, s.arguments) for s in plan.steps] == [("git_show", {})]
    # A question that gives no file is searched, whatever tool its words fill (the time in
    # "Miami" for "the enrollment at the school that owns the Miami Hurricane")
    now = tool("get_current_time", {"timezone": STRING}, read_only=True)
    text = "What is the enrollment at the school that owns the Miami Hurricane?"
    plan = plan_steps(
        [clause_of(0, text, TODAY)],
        [[Candidate(tool=now, score=0.05)]],
        min_score=0.28,
        fallback=SEARCH,
    )
    assert [s.tool for s in plan.steps] == ["search"]
    # Without the revision, git_show is not given all it needs: the question is searched
    text = "Check config.py in /srv/repo: what file does load_config read?"
    plan = plan_steps(
        [clause_of(0, text, TODAY)],
        [[outside, Candidate(tool=show, score=0.05)]],
        min_score=0.28,
        fallback=SEARCH,
    )
    assert [s.tool for s in plan.steps] == ["search"]
