"""Data flow for the deterministic planner: where a step's missing inputs come from.

First, an earlier step's result that the clause names as a known thing ("the gross salary",
"the first recipe", "the result") takes the parameter it is meant for, before the clause's own
values are given out in order (`_claim_named`). Then a required parameter that the step's own
clause does not give (the extractors find nothing) is taken, in this order:
  1. from another clause of the question, when it is a value a user names (a date, a clock time,
     a place, a time zone, a quoted string): a carried entity ("flights on 1 May ... and hotels"
     books the hotel for 1 May);
  2. from an earlier step's result, when that step's tool declares an output field meaning the
     same (`skyId` for `originSkyId`, `author[0].id` for `author_id`): the argument becomes the
     reference `{{s1.result.skyId}}` and the step depends on s1;
  3. from a connected tool the plan does not use yet, when it outputs the field and the clause
     gives its own required inputs: a producer step goes in front (a toolchain: the airport
     search before the flight search); not for a tool that changes things.
In 2 and 3 the tool graph (navigation/graph.py) speaks first: a link that worked in earlier runs
(or gold chains) is taken over the schema's guess, and one that failed more than it worked is
not taken; among producers, the most trusted, then the one needing the fewest inputs.
A role in the parameter's name ("origin", "destination") is a separate producer each, given the
place the clause names "from" or "to". What nothing produces stays
missing, for the step agent or, for a place, for the router's clarifying question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from toolweave.language.binding import (
    Filled,
    edits_of_read,
    extract_arguments,
    gives_a_path,
    looked_up,
    place_for_role,
    row_table,
    statement_reading,
    values_of,
)
from toolweave.language.cues import (
    fact_asked,
    facts_named,
    lines_asked,
    passes_its,
    refers_back,
    says_what_they_did,
)
from toolweave.language.parameters import (
    CONTENT_NAMES,
    FOLDER_WORDS,
    LOCATOR_KINDS,
    NUMERIC_KINDS,
    changes_things,
    deletes,
    json_type,
    options,
    param_kind,
    place_role,
    sql_kinds,
)
from toolweave.language.records import names_in, record_keeping
from toolweave.language.sql import thing_added
from toolweave.language.text import readable_name
from toolweave.language.values import composed
from toolweave.navigation.fields import WHOLE, Match, OutputField, best_field, output_fields
from toolweave.navigation.graph import NEUTRAL, ToolGraph
from toolweave.planning.references import rename_references
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

# Kinds of value a user names, so one named anywhere in the question may be carried to a step.
CARRIED_KINDS = {"date", "time", "place", "timezone"}


def link_data_flow(
    plan: Plan,
    tools: dict[str, ToolSpec],
    analysis: QuestionAnalysis,
    graph: ToolGraph | None = None,
    search: str = "",
) -> tuple[Plan, list[str]]:
    """A copy of `plan` whose steps take their missing inputs as described above, with producer
    steps added where needed (steps renumbered s1..sN in order), and notes on what was linked.
    Without a `graph`, the one the tools' schemas give. The documents the `search` tool (the
    fallback's key) finds never give a tool that changes things its values."""
    linker = _Linker(tools, analysis, graph or ToolGraph.derived(tools.values()), search)
    for step in plan.model_copy(deep=True).steps:
        linker.add(step)
    plan = linker.renumbered()
    notes = [
        f"added {p.id} ({p.key}) to give {step.id} its {name}" for p, step, name in linker.added
    ]
    return plan, notes


@dataclass
class _Links:
    """What one step's references already use."""

    roles: dict[str, str] = field(default_factory=dict)  # role -> the step serving it
    fields: set[tuple[str, str]] = field(default_factory=set)  # (step id, output path)

    def may_serve(self, role: str, producer: str) -> bool:
        """One producer per role: the origin's airport is not the destination's."""
        others = {served for other, served in self.roles.items() if other != role}
        return self.roles.get(role, producer) == producer and producer not in others


class _Linker:
    def __init__(
        self, tools: dict[str, ToolSpec], analysis: QuestionAnalysis, graph: ToolGraph, search: str
    ) -> None:
        self.tools = tools
        self.graph = graph
        self.search = search
        # The whole question as one clause: a value another clause names may be carried.
        self.question = Clause(index=-1, text=analysis.question, values=analysis.values)
        self.steps: list[Step] = []
        self.added: list[tuple[Step, Step, str]] = []  # producer, consumer, parameter
        self.fresh = 0

    def tool_of(self, step: Step) -> ToolSpec | None:
        return self.tools.get(step.key)

    def add(self, step: Step) -> None:
        tool = self.tool_of(step)
        if step.problem is None and tool is not None:
            given = self._fill(step, tool)
            step.problem = self._unplaced(step, tool, given)
            self._after_changes(step, tool)
        self.steps.append(step)

    def _after_changes(self, step: Step, tool: ToolSpec) -> None:
        """Steps on one server run in the order asked where either changes things: "git add
        app.py, then git commit" commits what was staged, "write a.txt and read it" reads it."""
        for earlier in reversed(self.steps):
            other = self.tool_of(earlier)
            if earlier.problem is None and other and other.server == tool.server:
                changing = changes_things(tool) or changes_things(other)
                if changing and earlier.id not in step.depends_on:
                    step.depends_on.append(earlier.id)
                return

    def _unplaced(self, step: Step, tool: ToolSpec, given: dict[str, Any]) -> Problem | None:
        """A file name without its folder, for a tool that changes things, in a question that
        names a folder elsewhere ("make a drafts folder in /srv and put intro.md in it"): the
        server would place it in a folder of its own choosing, so the user is asked; not for a
        tool given the folder its names are within (git_add's `repo_path`)."""
        own = values_of(step.clause).locators
        named = [
            x.value for x in values_of(self.question).locators if x.value.startswith(("/", "~"))
        ]
        loose = [x.value for x in own if x.kind == "path" and not x.joined.startswith(("/", "~"))]
        # "move /a/b.txt into /a/new, renamed to c.txt": placed in a folder this clause names
        placed = {f"{x.value.rstrip('/')}/{name}" for x in own for name in loose}
        loose = [n for n in loose if not placed & set(map(str, given.values()))]
        # "stage app.py" with the repository given: its files are named within it
        within = any(set(readable_name(n).split()) & FOLDER_WORDS for n in step.arguments)
        if within or not (changes_things(tool) and loose and set(named) - {x.value for x in own}):
            return None
        text = f"{tool.key} needs the folder of {loose[0]}, which the request does not give"
        return Problem(kind=ProblemKind.UNGROUNDED, text=text)

    def _fill(self, step: Step, tool: ToolSpec) -> dict[str, Any]:
        """Fills what the clause leaves to the question or to earlier steps; returns all the
        arguments the step has."""
        self._keep_facts(step, tool)
        links = _Links()
        self._claim_named(step, tool, links)
        references = [n for n, o in step.argument_origins.items() if o == "reference"]
        given = extract_arguments(tool.input_schema, step.clause, references)
        missing = _missing(tool, step, given)
        carried = extract_arguments(_only(tool.input_schema, missing), self.question)
        # "what would 4pm be in Nairobi?" gives one zone, the source's, not the target's too.
        own = given.arguments.values()
        properties = _properties(tool)
        for name in missing:
            kind = param_kind(name, properties.get(name, {}))
            value = carried.arguments.get(name) if kind in CARRIED_KINDS else None
            if value in own or (kind == "place" and self._resolved(value, step, tool, name)):
                value = None
            if value is None and kind in LOCATOR_KINDS:
                value = self._same_place(name)
            if value is not None:
                step.arguments[name] = value
                step.argument_origins[name] = "question"
        left = [name for name in missing if name not in step.arguments]
        for name in left:
            self._link(step, tool, name, links, alone=len(left) == 1)
        if any(origin == "reference" for origin in step.argument_origins.values()):
            # The references fit this tool: the step agent must not switch to another.
            step.candidates = [c for c in step.candidates if c.tool.key == tool.key]
        return {**given.arguments, **step.arguments}

    def _resolved(self, place: Any, step: Step, tool: ToolSpec, name: str) -> bool:
        """A place the question named for an earlier step whose result gives it to this one
        ("the weather in Miami ... and the forecast for these dates": the location's name the
        first found), so the steps are of one place as the first resolved it."""
        for earlier in self._earlier(tool):
            match = self._match(earlier, step, name)
            # a field that echoes the parameter ("origin") gives back only what was given
            if place in self._given(earlier).values() and match and match.field.path != name:
                return True
        return False

    def _given(self, step: Step) -> dict[str, Any]:
        """The arguments an earlier step has or its clause gives (the step agent fills the
        rest when it runs)."""
        tool = self.tool_of(step)
        told = extract_arguments(tool.input_schema, step.clause).arguments if tool else {}
        return {**told, **step.arguments}

    def _keep_facts(self, step: Step, tool: ToolSpec) -> None:
        """ "Look up Bob Chen's city in the db and add it to Bob in memory": the record keeps
        the facts the step before read (`_kept`), not the words the clause says around them."""
        read = self.steps[-1] if self.steps else None
        reader = self.tool_of(read) if read else None
        if read is None or reader is None or read.problem or changes_things(reader):
            return
        result = self._as_text(read)
        if not changes_things(tool) or result is None:
            return
        kept = _kept(step.clause, read.clause, result)
        for name, prop in _properties(tool).items():
            if kept and (record := record_keeping(prop, step.clause, kept)):
                _reads(step, name, [record], read)

    def _changes(self, step: Step) -> bool:
        tool = self.tool_of(step)
        return tool is not None and changes_things(tool)

    def _same_place(self, name: str) -> Any:
        """The path or address an earlier step's clause gives its parameter of this name: "in
        /srv/repo, git add app.py, then git commit" commits in /srv/repo."""
        for earlier in reversed(self.steps):
            tool = self.tool_of(earlier)
            if earlier.problem is None and tool and name in _properties(tool):
                given = extract_arguments(tool.input_schema, earlier.clause)
                if given.origins.get(name) == "extracted":
                    return given.arguments[name]
        return None

    def _link(self, step: Step, tool: ToolSpec, name: str, links: _Links, *, alone: bool) -> None:
        if tool.key == self.search:
            return  # a result's text never becomes a query sent out to a search provider
        prop = _properties(tool).get(name, {})
        if changes_things(tool) and param_kind(name, prop) in LOCATOR_KINDS:
            return  # what a change acts on is where the user says: never a result's text
        if changes_things(tool) and sql_kinds(name, prop):
            # a result is data, never a command: only a row, or a value in one
            if not self._row_read(step, name, prop):
                self._value_read(step, name, prop)
            return
        if deletes(tool) and json_type(prop) == "array":
            return  # nor what a deletion deletes: a node's relations are not "the note on Bob"
        records = json_type(prop) == "array" and json_type(prop.get("items") or {}) == "object"
        if changes_things(tool) and records:
            self._append(step, tool, name)  # "add "x" as a new last line of a.txt"
            return  # nor the records it keeps ("observations": [{entityName, contents}])
        earlier = self._earlier(tool)
        for producer in earlier:
            match = self._match(producer, step, name)
            if match and links.may_serve(match.role, producer.id):
                self._refer(step, name, producer, match, links)
                return
        kind = json_type(prop)
        for producer in earlier:
            named = self._mentioned(producer, step.clause.text, kind, links)
            if named is not None and _meant_for(tool, name, named):
                self._refer(step, name, producer, Match(named, f"mention {named.path}"), links)
                return
        # A closed set of values ("messageType": error, debug ...) is no result.
        content = name.lower() in CONTENT_NAMES
        pointable = (alone or content) and not options(prop)
        # "write its commit messages into a.txt", not "write a summary of its contents".
        passes = content and passes_its(step.clause.text)
        # "get the phone number from <url> and remember it": "it" is the number, not the page,
        # and a change that names no place for its line (a file) asks for what to keep.
        read = earlier[0].clause.text if earlier else ""
        if changes_things(tool) and fact_asked(read) and not values_of(step.clause).locators:
            return
        if earlier and pointable and (refers_back(step.clause.text) or passes):
            # "get a joke and send it", "add 445 to the result": the previous step's result.
            pointed = self._compatible(earlier[0], kind, links)
            if pointed is not None:
                self._refer(step, name, earlier[0], Match(pointed, "it"), links)
                return
        if not changes_things(tool) and self._listed(step, tool, name):
            return
        # A tool that changes things takes its values from the user or the steps the question
        # asks for, never from a step the plan made up ("list directories" as a file's text).
        made = None if changes_things(tool) else self._producer(step, name)
        if made is not None:
            producer, match = made
            self.steps.append(producer)
            self.added.append((producer, step, name))
            self._refer(step, name, producer, match, links)

    def _listed(self, step: Step, tool: ToolSpec, name: str) -> bool:
        """ "What did the "Update README with usage" commit change?": the value a thing named by
        a quoted description has (git_show's revision) read from the listing of such things on
        the same server (git_log: "Shows the commit logs"), given what the step has: the
        listed record that holds the description, its value labelled as the thing ("Commit:
        9540...")."""
        described = looked_up(tool, name, step.clause)
        if described is None:
            return False
        noun, description = described
        given = {**extract_arguments(tool.input_schema, step.clause).arguments, **step.arguments}
        for other in self.tools.values():
            listing = _LISTS.search(other.description) and re.search(
                rf"\b{re.escape(noun)}", other.description, re.IGNORECASE
            )
            needed = _required(other)
            if other.server != tool.server or other.key == tool.key or changes_things(other):
                continue
            if not listing or not all(n in given for n in needed):
                continue
            producer = self._new_step(other, step.clause, {n: given[n] for n in needed}, name)
            self.steps.append(producer)
            self.added.append((producer, step, name))
            thing = " ".join(re.findall(r"[a-z0-9]+", description.lower()))
            listed = self._as_text(producer) or f"{producer.id}.result"
            _reads(step, name, "{{" + f"{listed} | value:{noun} of {thing}" + "}}", producer)
            return True
        return False

    def _earlier(self, tool: ToolSpec) -> list[Step]:
        """The steps whose results may fill the tool's parameters, the nearest first: what a
        change reports is no value of another change."""
        return [
            s
            for s in reversed(self.steps)
            if s.problem is None
            and not (changes_things(tool) and (s.key == self.search or self._changes(s)))
        ]

    def _claim_named(self, step: Step, tool: ToolSpec, links: _Links) -> None:
        """An earlier result the clause names as a known thing ("the gross salary", "their
        age", "the encrypted data"; "the result" of the step before, for a tool that changes
        nothing) fills a parameter before the clause's own values are given out in order, so
        "encrypt the GCD with the key 'k'" leaves 'k' to the key (`_claimed`)."""
        if tool.key == self.search:
            return
        kept = _kept_by_clause(tool, step.clause)
        made = {id(producer) for producer, _, _ in self.added}
        earlier = [p for p in self._earlier(tool) if not (changes_things(tool) and id(p) in made)]
        text = step.clause.text
        for producer in earlier:
            for field_ in self._unused(producer, "string", links):
                if (named := _named_result(field_, text)) is None:
                    continue
                out, at = named
                open_ = [n for n in self._open(step, tool, kept) if _takes_result(tool, n, out)]
                if name := _claimed(tool, out, at, open_, text):
                    self._refer(step, name, producer, Match(out, f"named {out.path}"), links)
        self._claim_made(step, tool, links, kept)
        back = _RESULT.search(text)
        if back is None or not earlier or changes_things(tool) or links.fields:
            return
        open_ = [n for n in self._open(step, tool, kept) if _takes_result(tool, n, WHOLE)]
        if name := _claimed(tool, WHOLE, back, open_, text):
            pointed = self._compatible(earlier[0], json_type(_properties(tool)[name]), links)
            if pointed is not None:
                self._refer(step, name, earlier[0], Match(pointed, "the result"), links)

    def _open(self, step: Step, tool: ToolSpec, kept: set[str]) -> list[str]:
        return [n for n in _properties(tool) if n not in step.arguments and n not in kept]

    def _row_read(self, step: Step, name: str, prop: dict[str, Any]) -> bool:
        """ "Read the form in a.txt and add that customer to the users table": the INSERT of
        the row the file's labelled lines give ("Name: Grace Hopper"), in the table's columns,
        when the step before reads a file the user names; the values are the file's, quoted as
        SQL values, never its text as a statement."""
        read = self.steps[-1] if self.steps else None
        reader = self.tool_of(read) if read else None
        table = row_table(step.clause)
        if read is None or reader is None or table is None or changes_things(reader):
            return False
        text = self._as_text(read)
        if "insert" not in sql_kinds(name, prop) or not gives_a_path(read.clause) or text is None:
            return False
        columns = ",".join(c for c in step.clause.fields[table] if c != "id")
        _reads(step, name, "{{" + f"{text} | row:{table}:{columns}" + "}}", read)
        return True

    def _value_read(self, step: Step, name: str, prop: dict[str, Any]) -> None:
        """ "Check the price on <url> and add an order for user 3 of a Baguette at that price":
        the INSERT the clause spells out, the amount the price the page gives for the thing the
        row is of (a `value:price of baguette` reference), after a step that reads a page or a
        file the user names."""
        read = self.steps[-1] if self.steps else None
        reader = self.tool_of(read) if read else None
        thing = thing_added(step.clause.text)
        if read is None or reader is None or changes_things(reader) or thing is None:
            return
        text = self._as_text(read)
        if (
            "insert" not in sql_kinds(name, prop)
            or not values_of(read.clause).locators
            or text is None
        ):
            return
        fact = " ".join(re.findall(r"[a-z0-9]+", thing.lower()))
        value = "{{" + f"{text} | value:price of {fact}" + "}}"
        if (sql := statement_reading(step.clause, ("insert",), value)) is not None:
            _reads(step, name, sql, read)

    def _append(self, step: Step, tool: ToolSpec, name: str) -> None:
        """The edit of a line of the file the step before read for it (`planner._needed_first`):
        the text the clause gives added after its last line, or the line that holds it ticked
        off; only that line is taken from it."""
        read = next((s for s in reversed(self.steps) if s.clause.index == step.clause.index), None)
        reader = self.tool_of(read) if read else None
        if read is None or reader is None or reader.server != tool.server:
            return
        text = self._as_text(read)
        if changes_things(reader) or text is None:
            return
        edits = edits_of_read(_properties(tool), step.clause, text)
        if name in edits:
            _reads(step, name, edits[name], read)

    def _match(self, producer: Step, consumer: Step, name: str) -> Match | None:
        """The producer's field for the consumer's parameter: the one the graph learned works,
        else the schema's, unless that failed more often than it worked."""
        tool = self.tool_of(producer)
        if tool is None:
            return None
        schema = best_field(name, tool)
        known = self.graph.producers(consumer.key, name, among={tool.key})
        weights = {edge.field: weight for edge, weight in known}
        if trusted := [edge.field for edge, weight in known if weight > NEUTRAL]:
            if schema and schema.field.path == trusted[0]:
                return schema
            return Match(_field(tool, trusted[0]), "")
        if schema and weights.get(schema.field.path, NEUTRAL) < NEUTRAL:
            return None
        return schema if schema and _fits(self._type(consumer, name), schema.field.kind) else None

    def _type(self, step: Step, name: str) -> str:
        """The JSON type of the step's parameter (text when its tool is unknown)."""
        tool = self.tool_of(step)
        return json_type(_properties(tool).get(name, {})) if tool else "string"

    def _mentioned(
        self, producer: Step, clause: str, kind: str, links: _Links
    ) -> OutputField | None:
        """The producer's output field the clause names ("... with the encrypted data"), of a
        type the parameter takes, not yet used by this step; the longest name wins."""
        words = f" {' '.join(re.findall(r'[a-z0-9]+', readable_name(clause)))} "
        named = [
            out
            for out in self._unused(producer, kind, links)
            if f" {' '.join(out.tokens)} " in words
        ]
        return max(named, key=lambda out: len(out.tokens), default=None)

    def _as_text(self, producer: Step) -> str | None:
        """What of the producer's result a text parameter takes, as a reference's start
        ("s1.result.content"), or None."""
        text = self._compatible(producer, "string", _Links())
        if text is None:
            return None
        return f"{producer.id}.result{'.' + text.path if text.path else ''}"

    def _compatible(self, producer: Step, kind: str, links: _Links) -> OutputField | None:
        """What of the producer's result the parameter takes: its one top-level output field,
        else the whole result for text or when it declares none (read as the parameter's type
        when the step runs), else the first top-level field of the parameter's type."""
        tool = self.tool_of(producer)
        declared = output_fields(tool.output_schema or {} if tool else {})
        top = [out for out in declared if "." not in out.path]
        if not top:
            return WHOLE
        unused = [out for out in self._unused(producer, kind, links) if "." not in out.path]
        if len(top) == 1:
            return unused[0] if unused else None
        return WHOLE if kind == "string" else next(iter(unused), None)

    def _unused(self, producer: Step, kind: str, links: _Links) -> list[OutputField]:
        tool = self.tool_of(producer)
        return [
            out
            for out in output_fields(tool.output_schema or {} if tool else {})
            if _fits(kind, out.kind) and (producer.id, out.path) not in links.fields
        ]

    def _refer(self, step: Step, name: str, producer: Step, match: Match, links: _Links) -> None:
        links.roles[match.role] = producer.id
        links.fields.add((producer.id, match.field.path))
        path = f".{match.field.path}" if match.field.path else ""
        # "find the ERROR line in server.log and save it to errors.txt", "get the phone number
        # from <url> and save it to p.txt": those lines, not all.
        word = lines_asked(producer.clause.text) or fact_asked(producer.clause.text)
        only = f" | lines:{word}" if word else ""
        step.arguments[name] = "{{" + f"{producer.id}.result{path}{only}" + "}}"
        step.argument_origins[name] = "reference"
        if producer.id not in step.depends_on:
            step.depends_on.append(producer.id)

    def _producer(self, step: Step, name: str) -> tuple[Step, Match] | None:
        """A new step with a connected tool that the graph says outputs `name` and whose inputs
        the clause gives, or None."""
        order = {key: n for n, key in enumerate(self.tools)}
        kind = self._type(step, name)
        options = []
        for edge, weight in self.graph.producers(step.key, name, among=self.tools):
            tool = self.tools[edge.source]
            if weight < NEUTRAL or tool.key == step.key or name in _required(tool):
                continue  # a tool cannot feed itself, nor need what it is to give
            if not _fits(kind, _field(tool, edge.field).kind):
                continue  # a post's "location" record is no location code
            schema = best_field(name, tool)
            role = schema.role if schema and schema.field.path == edge.field else ""
            # An id the user cannot know is looked up by a name they give ("Beyonce").
            by_name = readable_name(name).split()[-1:] == ["id"]
            arguments = self._producer_inputs(tool, step.clause, role, by_name=by_name)
            if arguments is not None:
                rank = (-weight, len(_required(tool)), order[tool.key])
                options.append((rank, tool, Match(_field(tool, edge.field), role), arguments))
        if not options:
            return None
        _, tool, match, arguments = min(options, key=lambda option: option[0])
        return self._new_step(tool, step.clause, arguments, name), match

    def _new_step(
        self, tool: ToolSpec, clause: Clause, arguments: dict[str, Any], gives: str
    ) -> Step:
        self.fresh += 1
        return Step(
            id=f"new{self.fresh}",
            clause=clause,
            server=tool.server,
            tool=tool.name,
            arguments=arguments,
            argument_origins=dict.fromkeys(arguments, "extracted"),
            candidates=[Candidate(tool=tool, score=1.0, matched=f"gives {gives}")],
        )

    def _claim_made(self, step: Step, tool: ToolSpec, links: _Links, kept: set[str]) -> None:
        """What the clause names as a known thing it is about ("the sentiment of the latest
        news headlines") that no step gives but another connected tool outputs from inputs the
        clause gives is made first by that tool (the news search); not for a tool that changes
        things, nor by one."""
        if changes_things(tool) or links.fields:
            return
        planned = {s.key for s in self.steps} | {tool.key, self.search}
        text = step.clause.text
        best: tuple[int, ToolSpec, OutputField, str, dict[str, Any]] | None = None
        for other in self.tools.values():
            if other.key in planned or changes_things(other):
                continue
            for field_ in output_fields(other.output_schema or {}):
                named = _named_result(field_, text)
                if named is None or not re.search(r"\bof\s+$", text[: named[1].start()]):
                    continue  # "the sentiment of the news headlines", not "the current weather"
                out, at = named
                open_ = [n for n in self._open(step, tool, kept) if _takes_result(tool, n, out)]
                name = _claimed(tool, out, at, open_, text)
                inputs = self._producer_inputs(other, step.clause, "", by_name=False)
                if name and inputs is not None and (best is None or len(out.tokens) > best[0]):
                    best = (len(out.tokens), other, out, name, inputs)
        if best is not None:
            _, other, out, name, inputs = best
            producer = self._new_step(other, step.clause, inputs, out.path)
            self.steps.append(producer)
            self.added.append((producer, step, name))
            self._refer(step, name, producer, Match(out, f"named {out.path}"), links)

    def _producer_inputs(
        self, tool: ToolSpec, clause: Clause, role: str, *, by_name: bool
    ) -> dict[str, Any] | None:
        """The producer's required inputs from the clause (the role's place, else, `by_name`,
        a name the clause gives, for a name or search), or None when the clause lacks one."""
        schema = tool.input_schema
        required = _required(tool)
        found = extract_arguments(schema, clause).arguments
        side = place_role(role)
        values = values_of(clause)
        place = (place_for_role(values, side) if side else None) or next(
            (p.name for p in values.places), None
        )
        place = place or (_name_for(tool, clause) if by_name else None)
        kinds = {n: param_kind(n, (schema.get("properties") or {}).get(n, {})) for n in required}
        # A producer taking two places ("origin_city", "destination_city") takes each as bound.
        own = [n for n, k in kinds.items() if k == "place" and n in found]
        arguments = {}
        for name, kind in kinds.items():
            if len(own) > 1 and name in own:
                arguments[name] = found[name]
            # A plain string takes the place only as a lookup's one input: "San Francisco" is
            # no doctor_name of an appointment booked by name, date and time.
            elif (kind in ("place", "query") or (kind == "string" and len(kinds) == 1)) and place:
                arguments[name] = place
            elif name in found and found[name] != clause.text:
                arguments[name] = found[name]
            else:
                return None
        return arguments

    def renumbered(self) -> Plan:
        ids = {step.id: f"s{n}" for n, step in enumerate(self.steps, 1)}
        for step in self.steps:
            step.id = ids[step.id]
            step.arguments = rename_references(step.arguments, ids)
            step.depends_on = [ids.get(need, need) for need in step.depends_on]
            step.part_of = ids.get(step.part_of, step.part_of)
        return Plan(steps=self.steps)


# A result named as a known thing: "the gross salary", "their age", "the calculated age".
_KNOWN = r"\b(?:the|its|their|his|her|that|this)\s+(?:\w+\s+){0,2}"
# One word that names no one result: "the name", "the date" may be anything's.
_VAGUE_FIELDS = {"name", "id", "date", "time", "type", "status", "data", "value", "result"}
_VAGUE_FIELDS |= {"results", "location", "title", "url", "text", "message", "count", "total"}


def _named_result(out: OutputField, text: str) -> tuple[OutputField, re.Match[str]] | None:
    """The output field the clause names as a known thing, and where; "the first recipe" of
    a list of recipes is its first item."""
    if not out.tokens or (len(out.tokens) == 1 and out.tokens[0] in _VAGUE_FIELDS):
        return None
    words = r"[\s_-]+".join(re.escape(w) for w in out.tokens)
    if at := re.search(rf"{_KNOWN}{words}\b", text, re.IGNORECASE):
        return out, at
    # "the encrypted email" is what encrypt_data gave (`encrypted_data`), "the discounted price"
    # what calculate_discount gave (`discount_amount`), whatever its noun
    first = out.tokens[0]
    made = re.escape(first) if first.endswith("ed") else rf"{re.escape(first)}e?d"
    if len(out.tokens) > 1 and (at := re.search(rf"\bthe\s+{made}\s+\w+", text, re.I)):
        return out, at
    one = words.removesuffix("s")
    if out.kind != "array" or one == words:
        return None
    if at := re.search(rf"\bthe\s+first\s+{one}\b", text, re.IGNORECASE):
        return OutputField(f"{out.path}.0", out.tokens), at
    return None


# The result of the step before, by its name: "the result", "the search results".
_RESULT = re.compile(r"\bthe\s+(?:\w+\s+)?(?:result|results|output)\b", re.IGNORECASE)


def _reads(step: Step, name: str, value: Any, read: Step) -> None:
    """The step's parameter takes a value made of what `read` gives, once it has run."""
    step.arguments[name] = value
    step.argument_origins[name] = "reference"
    if read.id not in step.depends_on:
        step.depends_on.append(read.id)


# A tool that lists things: "Shows the commit logs", "List Git branches".
_LISTS = re.compile(r"\b(?:list|lists|listing|logs?|history|all)\b", re.IGNORECASE)


def _kept_by_clause(tool: ToolSpec, clause: Clause) -> set[str]:
    """The parameters the clause gives a value of their own: one it labels ("a rate of 5%"),
    or a path, date, place... (not text or a number given out in order, which a named
    result may displace)."""
    found = extract_arguments(tool.input_schema, clause)
    properties = _properties(tool)
    loose = {"query", "string"} | NUMERIC_KINDS
    strong = {
        n
        for n, origin in found.origins.items()
        if origin == "extracted" and param_kind(n, properties.get(n, {})) not in loose
    }
    return found.labelled | strong


def _takes_result(tool: ToolSpec, name: str, out: OutputField) -> bool:
    """Whether the parameter may take this result: text takes any, a number only a number;
    never a closed set of values, a statement, or what a change acts on."""
    prop = _properties(tool).get(name, {})
    kind = param_kind(name, prop)
    if options(prop) or sql_kinds(name, prop):
        return False
    if kind in LOCATOR_KINDS:
        return not changes_things(tool)
    if kind in NUMERIC_KINDS:
        return out is WHOLE or _fits("number", out.kind)
    return kind in ("query", "string")


def _fits(kind: str, made: str) -> bool:
    """Whether a parameter of JSON type `kind` takes an output of type `made`: text takes
    any one value, a number any number."""
    numbers = {"number", "integer"}
    if made == "object":  # a record ("location": {name, isoCode, ...}) is no one value
        return kind == "object"
    return kind in (made, "string") or {kind, made} <= numbers


def _claimed(
    tool: ToolSpec, out: OutputField, at: re.Match[str], names: list[str], text: str
) -> str | None:
    """Of the open parameters, the one the clause names the result as ("the pace as the data",
    "an allowance equal to the GCD"), else one sharing a word with it ("the translated text"
    for text), else the first content parameter, else the first required number."""
    required = set(_required(tool))

    def named_as(name: str) -> bool:
        label = r"\s+".join(w.removesuffix("s") + "(?:e?s)?" for w in readable_name(name).split())
        after = re.match(rf"\s+as\s+(?:the\s+|an?\s+)?{label}\b", text[at.end() :], re.I)
        before = re.search(rf"\b{label}\s+(?:as|equal\s+to|of)\s+$", text[: at.start()], re.I)
        return bool(after or before)

    fit = [n for n in names if named_as(n) or _meant_for(tool, n, out)]
    ranked = sorted(
        fit,
        key=lambda n: (not named_as(n), not _shares(n, out), -_content(n), n not in required),
    )
    return ranked[0] if ranked else None


def _meant_for(tool: ToolSpec, name: str, out: OutputField) -> bool:
    """Whether a named result goes to the parameter without the clause saying so: text where
    text is meant to go (an invoice id is no client's name), a number to any number ("the GCD
    of their age and 36")."""
    prop = _properties(tool).get(name, {})
    return _shares(name, out) or bool(_content(name)) or json_type(prop) != "string"


def _shares(name: str, out: OutputField) -> bool:
    return bool(set(readable_name(name).split()) & set(out.tokens))


def _content(name: str) -> int:
    """2 for a content parameter ("message"), 1 for one named for content ("principal amount",
    "phone number"), else 0."""
    if name.lower() in CONTENT_NAMES:
        return 2
    words = readable_name(name).split()
    return int(bool(words) and words[-1] in CONTENT_NAMES)


def _name_for(tool: ToolSpec, clause: Clause) -> str | None:
    """The first name the clause gives that is not the service's own ("Search Instagram for
    Beyonce": Beyonce, for Instagram's user search)."""
    own = set(re.findall(r"[a-z0-9]+", f"{readable_name(tool.name)} {tool.description}".lower()))
    named = (n.value for n in names_in(clause))
    return next((n for n in named if not set(re.findall(r"[a-z0-9]+", n.lower())) & own), None)


def _kept(clause: Clause, read: Clause, result: str) -> list[str]:
    """What a record keeps of the facts a clause names, or those the clause it points back at
    read ("... city in the db and add it to Bob"): each "city: <its value in `result`>" (a
    `value:` reference), or '"lives in" followed by the city' as "lives in <the city>"; nothing
    when the clause quotes what to keep."""
    facts = facts_named(clause.text) or (facts_named(read.text) if refers_back(clause.text) else [])

    def value(fact: str) -> str:
        return "{{" + f"{result} | value:{fact}" + "}}"

    if not facts and says_what_they_did(clause.text) and (names := names_in(clause)):
        return ["{{" + f"{result} | lines:{names[0].value}" + "}}"]  # the lines that name them
    if not facts:
        return []
    if lead := composed(clause.text):
        return [f"{lead[0].strip()} {value(lead[1])}"]
    if values_of(clause).quoted:
        return []
    return [f"{fact}: {value(fact)}" for fact in facts]


def _missing(tool: ToolSpec, step: Step, found: Filled) -> list[str]:
    """Required parameters that neither the plan nor the step's clause (`found`) gives."""
    return [
        name
        for name in tool.input_schema.get("required") or []
        if name not in step.arguments and found.origins.get(name) != "extracted"
    ]


def _field(tool: ToolSpec, path: str) -> OutputField:
    """The tool's output field at `path` (a learned one its schema may not declare)."""
    declared = {out.path: out for out in output_fields(tool.output_schema or {})}
    words = tuple(
        w for part in path.split(".") if not part.isdecimal() for w in readable_name(part).split()
    )
    return declared.get(path) or (OutputField(path, words) if path else WHOLE)


def _properties(tool: ToolSpec) -> dict[str, Any]:
    return tool.input_schema.get("properties") or {}


def _required(tool: ToolSpec) -> list[str]:
    return list(tool.input_schema.get("required") or [])


def _only(schema: dict[str, Any], names: list[str]) -> dict[str, Any]:
    properties = schema.get("properties") or {}
    return {"type": "object", "properties": {n: properties.get(n, {}) for n in names}}
