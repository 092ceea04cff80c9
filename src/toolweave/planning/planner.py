"""The skeleton planner: one independent step per clause, bound to its best tool.

Candidates come in the retriever's fused order, each with its dense cosine as its score. A
clause is bound to the candidate that fits it best (`fit`: the cosine, plus the evidence of the
clause's values and wording, an absolute measure a fused score cannot give: a search tool that
BM25 favours for "what is" must not hide a fitting calculator below it) if that reaches
`min_score`; a clause no candidate fits goes to the fallback search tool (the local documents by
default), so it still gets evidence. The step keeps a shortlist (the fitting tools within
`SHORTLIST_MARGIN` of the chosen one) for the step agent to choose from.
`fan_out` then gives a clause that lists several value sets for its tool a step per set
("weather in Paris, Rome and Oslo": three calls).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Protocol

from toolweave.language.binding import (
    edits_of_read,
    extract_arguments,
    feasibility,
    files_left,
    gives_a_path,
    gives_all,
    locators_fill,
    other_kind_of_path,
    points_at_missing,
    row_table,
    value_sets,
    values_of,
)
from toolweave.language.cues import (
    asks_for_action,
    asks_to_change,
    makes_the_named_thing,
    names_again,
    names_the_other_thing,
    names_what_it_does,
    only_where,
    points_at,
    refers_back,
    tells_me,
)
from toolweave.language.parameters import changes_things, deletes, sql_kinds
from toolweave.language.records import record_kind, records
from toolweave.language.sql import READ_VALUE
from toolweave.language.text import readable_name
from toolweave.language.values import new_folder
from toolweave.navigation.fields import output_fields
from toolweave.navigation.graph import ToolGraph
from toolweave.planning.dataflow import link_data_flow
from toolweave.planning.validate import validate_plan
from toolweave.retrieval.tool_select import finds_nothing, fit_and_gate
from toolweave.types import (
    Candidate,
    Clause,
    Plan,
    Problem,
    ProblemKind,
    QuestionAnalysis,
    Step,
    ToolSpec,
)

SHORTLIST_MARGIN = 0.1
# What a tool the step before feeds (navigation/graph.py) gains on the next clause's fit.
CHAIN_BONUS = 0.15


@dataclass(frozen=True)
class PlanRequest:
    """What a planner plans from: the analysed question and each clause's ranked candidates."""

    analysis: QuestionAnalysis
    candidates: list[list[Candidate]]
    connected: dict[str, ToolSpec]  # every connected tool, by key
    min_score: float  # below it a clause's best tool does not fit: the fallback searches
    fallback: ToolSpec | None = None
    servers: Collection[str] = field(default_factory=set)  # connected servers, for validation
    graph: ToolGraph | None = None  # what runs taught about data flow (default: schemas only)


class Planner(Protocol):
    """Makes the plan, checked and repaired, and notes on how it was made."""

    async def plan(self, request: PlanRequest) -> tuple[Plan, list[str]]: ...


class DeterministicPlanner:
    """A step per clause, fanned out per value set, its data flow linked (ask.planner =
    "deterministic")."""

    async def plan(self, request: PlanRequest) -> tuple[Plan, list[str]]:
        plan, notes = deterministic_plan(request)
        check = validate_plan(plan, request.servers)
        return check.plan, [*notes, *check.repairs, *check.problems]


def plan_steps(
    clauses: list[Clause],
    candidates: list[list[Candidate]],
    *,
    min_score: float,
    fallback: ToolSpec | None,
    graph: ToolGraph | None = None,
) -> Plan:
    steps: list[Step] = []
    searched: set[str] = set()  # the steps searched because no tool fits their clause
    for at, (clause, ranked) in enumerate(zip(clauses, candidates, strict=True)):
        if _asked_of_next(clause, clauses[at + 1 : at + 2]):
            continue  # "which port is it on? check server.log": answered by reading it
        scored = {c.tool.key: fit_and_gate(c, clause, rank) for rank, c in enumerate(ranked)}
        fits = {key: score for key, (score, _) in scored.items()}
        fed: set[str] = set()
        if graph is not None and steps and steps[-1].tool:
            # "find a bus to Boston and buy me a ticket": the ticket the bus search feeds
            fed = {
                c.tool.key
                for c in ranked
                if graph.feeds(steps[-1].key, c.tool.key) and not finds_nothing(c)
            }
            fits = {key: score + CHAIN_BONUS * (key in fed) for key, score in fits.items()}
        fitting = sorted(
            (c for c in ranked if scored[c.tool.key][1] >= min_score),
            key=lambda c: fits[c.tool.key],
            reverse=True,
        )
        named = _of_the_thing_named(fitting, ranked, clause)
        # the thing named decides: no other tool is chosen for it later ("add a relation")
        pinned, fitting = named[:1] != fitting[:1], named
        if steps and (rows := _adds_what_was_read(clause, steps[-1], ranked)):
            fitting = rows  # "read the form in a.txt and add that customer to the users table"
        if steps and _about_the_result(clause, steps[-1], fitting, fallback):
            continue  # "fetch X and tell me what it says": the answer is the earlier result
        # Search answers what is asked, never a change: "insert Frank into users" is not looked
        # up in the documents when no tool fits it.
        change = asks_to_change(clause.text)
        if change and not fitting:  # its values missing: the user is asked for them
            asked = _change_asked_of(clause, ranked, steps[-1].server if steps else "")
            fitting = sorted(asked, key=lambda c: fits[c.tool.key], reverse=True)[:1]
        elif not fitting:  # "which mill supplies the flour, going by <url>?": read it
            fitting = _reads_what_it_gives(clause, ranked, fits)
        tool = fitting[0].tool if fitting else (None if change else fallback)
        best = fits[fitting[0].tool.key] if fitting else 0.0
        shortlist = [
            c
            for c in fitting
            if fits[c.tool.key] >= best - SHORTLIST_MARGIN
            and (c is fitting[0] or not finds_nothing(c))  # no "Weather CLI" not held
        ]
        if tool and tool.key in fed:  # the step agent must not go back to an unfed one
            shortlist = [c for c in shortlist if c.tool.key in fed]
        if pinned:
            shortlist = shortlist[:1]
        problem = f"no connected tool fits this {'change' if change else 'part of the question'}"
        if tool and steps and _again(clause, steps[-1], tool):
            continue  # "What did commit HEAD~2 introduce? Show me that commit.": one call
        if tool and (folder := _folder_first(tool, clause, ranked)):
            steps.append(folder)
        first = _needed_first(tool, clause, ranked) if tool else None
        other = _recorded_too(tool, clause, ranked) if tool else None
        if other and record_kind(other.tool.input_schema) == "things":
            first, other = first or other, None  # the new thing before its relation
        if first:
            steps.append(_step_of(first, clause, "first"))
        steps.append(
            Step(
                id=f"s{clause.index + 1}",
                clause=clause,
                server=tool.server if tool else "",
                tool=tool.name if tool else "",
                candidates=shortlist,
                problem=None if tool else Problem(kind=ProblemKind.NO_TOOL, text=problem),
            )
        )
        if other:
            steps.append(_step_of(other, clause, "then"))
        if tool is not None and not fitting:
            searched.add(steps[-1].id)
    if fallback is not None and any(_reads_what_the_user_names(s, fallback) for s in steps):
        # "How much is a croissant? The price list is at <url>", "fetch <url> and tell me when
        # the bakery opened": the page the user names answers, not a search.
        steps = [s for s in steps if s.key != fallback.key]
    if any(s.tool and s.id not in searched for s in steps):
        steps = [
            s
            for s in steps
            if s.id not in searched or _asked_alone(s.clause) or _feeds_the_next(s.clause, clauses)
        ]
    return Plan(steps=steps)


def _feeds_the_next(clause: Clause, clauses: list[Clause]) -> bool:
    """Whether the next clause goes on from what this one finds ("... and save it to notes.txt",
    "where is the Louvre? what will the weather be there tomorrow"). A part of a request the
    other parts send to the user's tools that no tool fits and nothing uses is no search of its
    own: "Who's our biggest spender? Add up each user's orders ...", "... Keep my edits though.",
    "who's mallory again? check memory"."""
    after = [c.text for c in clauses if c.index == clause.index + 1]
    return bool(after) and (
        refers_back(after[0], possessive=True, personal=True) or _THERE.search(after[0]) is not None
    )


_THERE = re.compile(r"\bthere\b(?!\s+(?:is|are|was|were)\b)", re.IGNORECASE)


def _asked_alone(clause: Clause) -> bool:
    """Whether the clause is a question of its own ("who won the 1998 world cup?"), not one about
    the user's things ("Who's our biggest spender?") or what the request has found ("what's the
    weather like there?")."""
    text = _TELL_ME.sub("", clause.text.strip())
    asks = text.endswith("?") or re.match(r"(?:who|what|when|where|which|how)\b", text, re.I)
    own = bool(clause.held) or _OWN.search(text) is not None or _THERE.search(text) is not None
    return bool(asks) and not own and not refers_back(text, possessive=True, personal=True)


_TELL_ME = re.compile(r"^(?:(?:can|could)\s+you\s+)?(?:please\s+)?(?:tell|show)\s+me\s+", re.I)
_OWN = re.compile(r"\b(?:i|i'm|me|my|mine|we|we're|us|our|ours)\b", re.IGNORECASE)


def _reads_what_it_gives(
    clause: Clause, ranked: list[Candidate], fits: dict[str, float]
) -> list[Candidate]:
    """For a question no tool fits that gives a page or a file, the best-fitting tool that only
    reads and takes just what the question gives ("which mill supplies the flour, going by
    <url>?" reads the page): what the user names answers, not a search."""
    readers = [
        c
        for c in ranked
        if not changes_things(c.tool)
        and not c.outside
        and (locators_fill(c.tool, clause) or _reads_as_given(c.tool, clause))
    ]
    return sorted(readers, key=lambda c: fits[c.tool.key], reverse=True)[:1]


def _reads_as_given(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause gives files and every value the tool requires, its files among them:
    "config.py as committed at HEAD in /srv/repo" and `git_show(repo_path, revision)`, given
    /srv/repo and HEAD:config.py."""
    files = [x.value for x in values_of(clause).locators if x.kind == "path"]
    if not files or not tool.input_schema.get("required") or feasibility(tool, clause) != 1.0:
        return False
    given = " ".join(
        str(v) for v in extract_arguments(tool.input_schema, clause).arguments.values()
    )
    return all(f in given for f in files)


def _change_asked_of(clause: Clause, ranked: list[Candidate], before: str) -> list[Candidate]:
    """The tools of the one server the clause names, holds what it names, reaches the folders
    it gives or the step before used (`before`: "create a branch in /r, check it out, and then
    stage app.py"), that make the change it asks for, by their verbs ("change an email in the
    users table" and `write_query`, "save a new file in /srv saying ..." and `write_file`), when
    none fits for want of values: the values are then asked for, not the change dropped."""
    asked = [
        c
        for c in ranked
        if (c.holds or c.inside or c.tool.server == before)
        and changes_things(c.tool)
        and asks_for_action(c.tool, clause.text)
    ]
    return asked if len({c.tool.server for c in asked}) == 1 else []


def _of_the_thing_named(
    fitting: list[Candidate], ranked: list[Candidate], clause: Clause
) -> list[Candidate]:
    """A change acts on the thing the clause names: "remove the observation that she likes
    hiking" is `delete_observations`, however well Alice fits `delete_entities`; "add a relation
    for that" is `create_relations`, though `add_observations` fits (its values are then asked
    for). So a tool of the same server that makes that change and whose name's thing the clause
    says replaces the first when the first one's is unsaid: for a deletion a fitting one, for an
    addition one whose thing is its verb's object (an addition may name a part of what it adds:
    "add her as a person, with an observation that ...")."""
    if not fitting or not changes_things(first := fitting[0].tool):
        return fitting
    removing = deletes(first)
    for other in fitting[1:] if removing else ranked:
        tool = other.tool
        same = tool.server == first.server and tool.key != first.key
        asked = deletes(tool) == removing and changes_things(tool)
        asked = asked and asks_for_action(tool, clause.text) is True
        named = names_the_other_thing(first, tool, clause)
        if same and asked and named and (removing or makes_the_named_thing(tool, clause)):
            return [other, *(c for c in fitting[1:] if c is not other)]
    return fitting


def _again(clause: Clause, before: Step, tool: ToolSpec) -> bool:
    """The clause asks for what the clause before asked of the same tool, giving nothing new
    ("What changed since HEAD~2? Show the diff."), or to be shown what the tool before gives
    by its name ("what have I not staged yet? show the diff" after git_diff_unstaged)."""
    shown = _SHOW_IT.fullmatch(clause.text.strip())
    again = names_again(clause.text, before.clause.text) or shown
    named = shown is not None and shown["noun"].lower() in readable_name(before.tool).split()
    return bool(again) and (before.key == tool.key or named) and not values_of(clause).count


_SHOW_IT = re.compile(
    r"(?:please\s+)?(?:show|give)\s+(?:me\s+)?(?:the|its)\s+(?P<noun>[a-z]+)\W*", re.I
)


def _folder_first(tool: ToolSpec, clause: Clause, ranked: list[Candidate]) -> Step | None:
    """ "Create /srv/drafts/intro.md ... (the drafts folder doesn't exist yet)": the folder made
    first, at the path the request gives it, by the tool of the same server whose name says it
    creates folders (and takes that path alone)."""
    folder = new_folder(clause.text) if changes_things(tool) else None
    for c in ranked if folder else ():
        required = c.tool.input_schema.get("required") or []
        words = set(readable_name(c.tool.name).split())
        makes = words & {"create", "make"} and words & {"directory", "folder"}
        if c.tool.server == tool.server and c.tool.key != tool.key and makes and len(required) == 1:
            return Step(
                id=f"s{clause.index + 1}-folder",
                clause=clause,
                server=c.tool.server,
                tool=c.tool.name,
                arguments={required[0]: folder},
                argument_origins={required[0]: "question"},
                candidates=[c],
            )
    return None


def _needed_first(tool: ToolSpec, clause: Clause, ranked: list[Candidate]) -> Candidate | None:
    """A step the clause's change needs first: "commit app.py" stages app.py (`git_add`),
    since `git_commit` takes no file: another tool of the same server that changes things,
    takes the files the chosen one has no parameter for, and is given all it needs. "add "x"
    as a new last line of a.txt" reads a.txt, whose last line the edit is made after: the
    best-ranked tool of the same server that changes nothing and is given all it needs."""
    if not changes_things(tool):
        return None
    files = files_left(tool, clause)
    appends = bool(edits_of_read(tool.input_schema.get("properties") or {}, clause, ""))
    return next(
        (
            c
            for c in ranked
            if c.tool.server == tool.server
            and c.tool.key != tool.key
            and (
                (files and changes_things(c.tool) and gives_all(c.tool, clause, files))
                or (
                    appends
                    and not changes_things(c.tool)
                    and not other_kind_of_path(c.tool, clause)  # no folder's tree for a file
                    and gives_all(c.tool, clause, [])
                )
            )
        ),
        None,
    )


def _step_of(candidate: Candidate, clause: Clause, role: str) -> Step:
    return Step(
        id=f"s{clause.index + 1}-{role}",
        clause=clause,
        server=candidate.tool.server,
        tool=candidate.tool.name,
        candidates=[candidate],
        part_of=f"s{clause.index + 1}",
    )


def _recorded_too(tool: ToolSpec, clause: Clause, ranked: list[Candidate]) -> Candidate | None:
    """For a clause that adds a new thing to a graph and says how it relates to one the graph
    holds ("add Nadia as a person who works at Acme Corp"), or a relation and what kind of new
    thing one end is ("Nadia (a person) works at Acme Corp: put her in my graph"): the tool of
    the same server that adds the other, given its records whole (`records`)."""
    mine = record_kind(tool.input_schema) if changes_things(tool) else ""
    wanted = {"things": "relations", "relations": "things"}.get(mine)
    for c in ranked if wanted else ():
        schema = c.tool.input_schema
        if (
            c.tool.server == tool.server
            and changes_things(c.tool)
            and record_kind(schema) == wanted
            and set(schema.get("required") or [])
            <= set(records(schema.get("properties") or {}, clause))
        ):
            return c
    return None


def _adds_what_was_read(clause: Clause, before: Step, ranked: list[Candidate]) -> list[Candidate]:
    """The tools that run an INSERT, for a clause that adds a row to a table without giving it
    after a step that reads a file the user names: the row is the file's (dataflow)."""
    # or, "check the price on <url> and add an order ... at that price", a value it gives
    read = gives_a_path(before.clause) or (
        READ_VALUE.search(clause.text) is not None and bool(values_of(before.clause).locators)
    )
    if row_table(clause) is None or not read:
        return []
    return [c for c in ranked if changes_things(c.tool) and _runs_inserts(c.tool)]


def _runs_inserts(tool: ToolSpec) -> bool:
    properties = tool.input_schema.get("properties") or {}
    return any("insert" in sql_kinds(name, prop) for name, prop in properties.items())


def _asked_of_next(clause: Clause, following: list[Clause]) -> bool:
    """Whether the clause is a question that gives no value of its own, asked of the place the
    clause after it (`following`) only names ("who owns project alpha? it's in alpha.txt")."""
    if not following or not only_where(following[0]):
        return False
    asked = clause.text.rstrip().endswith("?") and not asks_to_change(clause.text)
    return asked and not values_of(clause).count


def _about_the_result(
    clause: Clause, before: Step, fitting: list[Candidate], fallback: ToolSpec | None
) -> bool:
    """Whether the clause asks about the previous step's result, not for a call: it points back
    and no tool fits, or a tool's result comes before and the clause gives no values, asks for
    no change and says no word of a fitting tool's name, and it points back or no fitting tool
    gets a value from it after a step that reads what the user names ("fetch <url> and tell me
    its title", "and summarize it", "open notes.txt and tell me the new date"; "... and decode
    it" calls `decode`), or it names fields of what the tool before returns ("give me the
    conditions and the humidity"). After a search, "its population" is a question of its own."""
    after_tool = fallback is None or before.key != fallback.key
    if _LOOK_IT_UP.match(clause.text) and fallback and _reads_what_the_user_names(before, fallback):
        return True  # "... the deadline in a.txt and the date in b.txt. Could you look those up?"
    if not fitting:  # "... and give me their names", "her email" after a tool's rows
        pointing = refers_back(clause.text, possessive=after_tool, personal=after_tool)
        # "... and tell me what the customers complained about", giving nothing to look up
        pointing = pointing or (
            after_tool and tells_me(clause.text) and not values_of(clause).count
        )
        return not asks_to_change(clause.text) and (pointing or _names_its_fields(clause, before))
    named = any(sum(names_what_it_does(c.tool, clause)) > 0 for c in fitting)
    own = values_of(clause).count or asks_to_change(clause.text) or named
    # "<repo>: current branch? working tree clean?": another question of the same place, which
    # another tool of that server answers
    # (a tool given the same place: not "which files are left?" after a folder's tree)
    required = set(fitting[0].tool.input_schema.get("required") or [])
    given = (
        set(before.candidates[0].tool.input_schema.get("required") or [])
        if before.candidates
        else set()
    )
    other = (
        fitting[0].tool.server == before.server
        and fitting[0].tool.key != before.key
        and bool(required)
        and required <= given
    )
    if not after_tool or own or (other and clause.text.rstrip().endswith("?")):
        return False
    # "open notes.txt and tell me the new date": no fitting tool is given a value to act on,
    # and the step before reads what the user names (a word some server's records say too,
    # "the deadline", is a question about what was read).
    unheld = clause.model_copy(update={"about": []})
    unfed = (
        fallback is not None
        and _reads_what_the_user_names(before, fallback)
        # (a tool that takes nothing is given nothing: "which files are left?")
        and not any(
            feasibility(c.tool, unheld) and c.tool.input_schema.get("required") for c in fitting
        )
    )
    return unfed or refers_back(clause.text, possessive=True) or _names_its_fields(clause, before)


# A request that only asks again for what the sentence before named: "could you look those up
# for me?", "check them please".
_LOOK_IT_UP = re.compile(
    r"^\W*(?:(?:could|can|would|will)\s+you\s+|please\s+)*(?:look|check|find|get|read)\s+"
    r"(?:(?:it|them|those|these|that|this)\s*)?(?:up\s*)?(?:(?:it|them|those|these)\s*)?"
    r"(?:for\s+me\s*)?(?:please\s*)?\W*$",
    re.IGNORECASE,
)


def _names_its_fields(clause: Clause, step: Step) -> bool:
    """Whether the clause, giving no values of its own, names a field of what the step's tool
    returns ("pull the New York structured content and give me the conditions and the
    humidity"); a field every result may have ("name", "id") says nothing."""
    if not step.candidates or values_of(clause).count:
        return False
    words = set(re.findall(r"[a-z0-9]+", clause.text.lower())) - _ANY_RESULTS
    fields = output_fields(step.candidates[0].tool.output_schema or {})
    return any(out.tokens and set(out.tokens) <= words for out in fields)


_ANY_RESULTS = {"name", "id", "time", "date", "text", "type", "value", "result", "data", "status"}


def _reads_what_the_user_names(step: Step, fallback: ToolSpec) -> bool:
    """A step that reads a file or page the user gives (its clause names it), with a tool, or
    one the user points at and is asked for ("open the website and tell me what's new")."""
    if step.key == fallback.key or not step.candidates:
        return False
    tool = step.candidates[0].tool
    return (
        points_at(step.clause)
        or (bool(values_of(step.clause).locators) and not changes_things(tool))
        or points_at_missing(tool, step.clause)
    )


def find_tool(tools: list[ToolSpec], key: str) -> ToolSpec | None:
    """The tool named 'server.tool', if it is connected."""
    return next((t for t in tools if t.key == key), None)


def deterministic_plan(
    request: PlanRequest, tools: dict[str, ToolSpec] | None = None
) -> tuple[Plan, list[str]]:
    """A step per clause, fanned out per value set, its data flow linked (over `tools`, the
    connected ones by default); notes on the links. Not yet validated."""
    tools = request.connected if tools is None else tools
    plan = plan_steps(
        request.analysis.clauses,
        request.candidates,
        min_score=request.min_score,
        fallback=request.fallback,
        graph=request.graph,
    )
    searched = request.fallback.key if request.fallback else ""
    return link_data_flow(fan_out(plan, tools), tools, request.analysis, request.graph, searched)


def fan_out(plan: Plan, tools: dict[str, ToolSpec]) -> Plan:
    """A copy of `plan` where a step whose clause lists several value sets for its tool is a
    step per set, with those values as its arguments; steps renumbered s1..sN. Meant for a plan
    without dependencies yet (the deterministic planner's, before its data flow is linked)."""
    steps: list[Step] = []
    for step in plan.steps:
        tool = tools.get(step.key)
        reads = tool is not None and not changes_things(tool)  # "read a.txt and b.txt": two
        sets = value_sets(tool.input_schema, step.clause, files=reads) if tool else []
        if not sets or tool is None:
            steps.append(step.model_copy(deep=True))
            continue
        # Its values fit this tool: the step agent keeps it.
        chosen = [c for c in step.candidates if c.tool.key == tool.key]
        steps += [
            step.model_copy(
                deep=True,
                update={
                    "arguments": arguments,
                    "argument_origins": dict.fromkeys(arguments, "extracted"),
                    "candidates": chosen,
                },
            )
            for arguments in sets
        ]
    for number, step in enumerate(steps, 1):
        step.id = f"s{number}"
    return Plan(steps=steps)
