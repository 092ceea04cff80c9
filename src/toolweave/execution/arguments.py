"""Argument filling for the step agent: the clause's values bound first (language/binding.py),
the LLM for the required parameters they leave, then the schema decides (types coerced,
validated with jsonschema).

Each argument records its origin so a trace shows who chose it: "plan" (the plan gave it),
"extracted", "question" (a search given the clause's own words), "chosen" (the LLM proposed it and
it stands in the clause: the clause's words are used, as written) or "generated" (the LLM wrote
it). A generated value the user should have given is asked for, not used (`_invented`). A change
the request points at what earlier steps read for ("what did Alice order? -> note it on Alice")
is written from those results (`read`): a value the model writes from them is used only when
every fact in it stands in the request or in them (`spans.composed_from`).
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from toolweave.catalog.documents import describe_parameters
from toolweave.errors import LLMError
from toolweave.language import clause_of
from toolweave.language.binding import (
    Filled,
    extract_arguments,
    listed_with,
    values_of,
    whole_name,
)
from toolweave.language.parameters import (
    LOCATOR_KINDS,
    NUMERIC_KINDS,
    PAYLOAD_NAMES,
    STATEMENT_KINDS,
    changes_things,
    is_statement,
    json_type,
    may_be_written,
    names_a_thing,
    options,
    param_kind,
    sql_kinds,
    takes_sql,
)
from toolweave.language.records import (
    found_thing,
    name_read_for,
    named_as_read,
    names_in,
    records,
)
from toolweave.language.spans import HIDDEN, composed_from, ground, phrases, snap, written_from
from toolweave.language.sql import row_change_asked
from toolweave.language.text import readable_name
from toolweave.language.values import blank_spans
from toolweave.models.base import LLM
from toolweave.models.structured import complete_json, schema_problems
from toolweave.prompts import load_prompt
from toolweave.types import Clause, Problem, ProblemKind, ToolSpec

# Values only the user can give: no model may make them up, for any tool.
USER_KINDS = NUMERIC_KINDS | LOCATOR_KINDS | {"date", "time"}
MAX_READ_CHARS = 2_000  # of each result a change is written from: what a small model can read


async def fill_arguments(
    tool: ToolSpec,
    clause: Clause,
    llm: LLM,
    *,
    given: dict[str, Any] | None = None,
    given_origins: dict[str, str] | None = None,
    read: list[str] | None = None,
) -> Filled:
    """Arguments for `tool` to serve `clause`: valid for its input schema, or with a problem.
    `given` arguments (the plan's, earlier results filled in) win over what is extracted;
    `read` are the results the clause points at, which a value the model writes may take
    facts from."""
    schema = _statements_described(tool)
    references = [n for n, origin in (given_origins or {}).items() if origin == "reference"]
    filled = extract_arguments(schema, clause, references)
    for name in [n for n, value in filled.arguments.items() if value == tool.name]:
        filled.drop(name)  # "use the function 'calculate_density'" names the tool, no value
    for name, value in (given or {}).items():
        origin = (given_origins or {}).get(name, "plan")
        if origin == "llm":  # an LLM planner's value: copied from the clause, or generated
            _put_proposal(filled, name, value, _words_for(tool, name, clause, filled))
        else:
            filled.put(name, value, origin)
    for name, value in _named_from_reads(tool, clause, read or []).items():
        if name not in filled.arguments:
            filled.put(name, value, "reference")
    missing = [n for n in schema.get("required") or [] if n not in filled.arguments]
    if missing:
        await _fill_with_llm(tool, clause, llm, missing, filled, read or [])
    _coerce(filled.arguments, schema.get("properties") or {})
    if invented := _invented(tool, filled, clause, read or []):
        filled.problem = _needs(tool, invented)
    elif problems := schema_problems(filled.arguments, schema):
        text = "arguments do not fit the tool's schema: " + "; ".join(problems)
        filled.problem = Problem(kind=ProblemKind.ARGUMENTS, text=text)
    elif empty := _nothing_to_change(tool, filled.arguments):
        # create_entities(entities=[]) and delete_observations(deletions=[]) "succeed" having
        # changed nothing: no call at all.
        text = f"{tool.key} would change nothing: {empty} is empty"
        filled.problem = Problem(kind=ProblemKind.ARGUMENTS, text=text)
    return filled


def _named_from_reads(tool: ToolSpec, clause: Clause, read: list[str]) -> dict[str, Any]:
    """The records of a thing the results `read` name, for a change that points at it by what
    it is ("read alpha.txt and add the project's owner to my knowledge graph as a person": the
    "Owner: Priya Nair" line's): the clause's records as if it gave that name."""
    found = found_thing(clause) if read else None
    name = name_read_for(found.value, read) if found else None
    if found is None or name is None:
        return {}
    text = named_as_read(clause.text, found, name)
    # (relative dates in a record's text are read as of today)
    kept = records(
        tool.input_schema.get("properties") or {}, clause_of(clause.index, text, date.today())
    )
    return {param: value for param, (value, _) in kept.items()}


def _statements_described(tool: ToolSpec) -> dict[str, Any]:
    """The tool's input schema, an SQL parameter that says no kind of statement described by the
    tool's description: mcp-server-sqlite's write_query "Execute an INSERT, UPDATE, or DELETE
    query" takes no SELECT, whatever its `query` parameter says."""
    properties = tool.input_schema.get("properties") or {}
    said = " ".join(re.findall(r"\w+", tool.description.lower()))
    kinds = [k for k in STATEMENT_KINDS if re.search(rf"\b{k}\b", said)]
    sql = [n for n, p in properties.items() if sql_kinds(n, p) == STATEMENT_KINDS]
    if not kinds or not sql:
        return tool.input_schema
    described = {
        n: {**p, "description": f"{p.get('description', '')} ({', '.join(kinds).upper()})"}
        for n, p in properties.items()
        if n in sql
    }
    return {**tool.input_schema, "properties": {**properties, **described}}


def _needs(tool: ToolSpec, names: list[str]) -> Problem:
    text = f"{tool.key} needs the {' and the '.join(names)}, which the request does not give"
    return Problem(kind=ProblemKind.UNGROUNDED, text=text)


def unsaid(tool: ToolSpec, clause: Clause, given: dict[str, Any]) -> Problem | None:
    """For a tool that changes things, the required values neither the clause nor the plan
    (`given`) gives, for the user to say ("insert a new order into the orders table" gives no
    statement): a question, not a failure."""
    have = extract_arguments(tool.input_schema, clause).arguments | given
    required = tool.input_schema.get("required") or []
    missing = [readable_name(n) for n in required if n not in have]
    return _needs(tool, missing) if missing and changes_things(tool) else None


def _nothing_to_change(tool: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """The required list argument a tool that changes things was given empty, if any."""
    if not changes_things(tool):
        return None
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return next(
        (
            name
            for name in required
            if json_type(properties.get(name, {})) == "array" and arguments.get(name) == []
        ),
        None,
    )


async def _fill_with_llm(
    tool: ToolSpec, clause: Clause, llm: LLM, missing: list[str], filled: Filled, read: list[str]
) -> None:
    properties = tool.input_schema.get("properties") or {}
    sub_schema = {
        "type": "object",
        "properties": {n: properties.get(n, {}) for n in missing},
        "required": missing,
        "additionalProperties": False,
    }
    sampled = {
        **sub_schema,
        "properties": {
            n: _copied(tool, n, properties.get(n, {}), _words_for(tool, n, clause, filled))
            for n in missing
        },
    }
    said = {
        "tool": tool.name,
        "description": tool.description or readable_name(tool.name),
        "request": clause.text,
        "known": json.dumps(filled.arguments),
        "parameters": describe_parameters(sub_schema),
    }
    if read:
        results = "\n".join(f"- {text[:MAX_READ_CHARS]}" for text in read)
        messages = load_prompt("compose_arguments").messages(**said, read=results)
    else:
        messages = load_prompt("fill_arguments").messages(**said)
    try:
        values = await complete_json(llm, messages, sub_schema, sampled=sampled)
    except LLMError as exc:
        filled.llm_error = str(exc)
        return
    for name in missing:
        if name in values:
            words = _words_for(tool, name, clause, filled)
            value = values[name]
            if not changes_things(tool) and param_kind(name, properties.get(name, {})) != "place":
                value = _whole(value, words)  # a place's name is no bigger name's part
            _put_proposal(filled, name, value, words)


def _whole(proposed: Any, text: str) -> Any:
    """For a tool that only reads, the model's part of a name in capitals is the whole name
    (it chose "Liga" of "La Liga"), its items of a list the request writes the whole list (it
    chose "cheese" of "pasta and cheese")."""
    if isinstance(proposed, str):
        return whole_name(proposed, text)
    if not (isinstance(proposed, list) and proposed and isinstance(proposed[0], str)):
        return proposed
    whole = listed_with(proposed[0], text)
    return whole if set(proposed) < set(whole) else proposed


# What a value copied from the request may be: a name, a place, a thing; not a path or an
# address (a word of the request is none), a text to pass on, a statement, a pattern or a
# classification the model writes (`may_be_written`), nor a date.
_COPIED_KINDS = {"string", "query", "place"}


def _copied(tool: ToolSpec, name: str, prop: dict[str, Any], text: str) -> dict[str, Any]:
    """The parameter's schema, a string of it narrowed to the request's phrases where the
    value is one the user gives to a tool that only reads: the model chooses a span, it does
    not type one ("Louvre Museum", not "Louvre"; "Buddhism", not "Buddhist religion"). For a
    tool that changes things the model's value stays its own, to be judged (`_invented`): a
    phrase is no branch name the user gave ("make a new branch": "new branch")."""
    array = json_type(prop) == "array"
    target = (prop.get("items") or {}) if array else prop
    if (
        changes_things(tool)
        or json_type(target) != "string"
        or "enum" in target
        or param_kind(name, target) not in _COPIED_KINDS
        or name.lower() in PAYLOAD_NAMES
        or may_be_written(name, prop)
        or not (choices := phrases(text))
    ):
        return prop
    narrowed = {**target, "enum": choices}
    return {**prop, "items": narrowed} if array else narrowed


def _words_for(tool: ToolSpec, name: str, clause: Clause, filled: Filled) -> str:
    """The clause's words a proposal for this parameter may stand for: not the inside of a path
    or URL, unless the parameter takes one ("create a new branch in /tmp/eval-x/repo" gives no
    branch name "eval-x"), nor a value another argument took ("add 17 to a number": b is not
    17 as well)."""
    prop = (tool.input_schema.get("properties") or {}).get(name, {})
    hidden = [span for other, span in filled.spans.items() if other != name]
    if param_kind(name, prop) not in LOCATOR_KINDS:
        hidden += values_of(clause).locators
    return blank_spans(clause.text, hidden, HIDDEN)


def _put_proposal(filled: Filled, name: str, proposed: Any, text: str) -> None:
    """An LLM's value: the clause's own words where it stands for them, else generated."""
    value, lost = ground(proposed, text)
    found = snap(value, text) if isinstance(value, str) and not lost else None
    filled.put(name, value, "generated" if lost else "chosen", found[1] if found else None)
    if lost:
        filled.generated[name] = lost


def _invented(tool: ToolSpec, filled: Filled, clause: Clause, read: list[str]) -> list[str]:
    """The parameters whose generated values a user should have given: for a tool that changes
    things, any but SQL, code and classifications, or, for a change written from what was
    `read`, any but one whose every fact stands in the request or those results (never a path
    or an address); for one that only reads, the numbers, dates, times, paths, addresses and
    names of things (a timezone or SQL written from the request is fine, a URL, a table's name
    or a second number for "add 17 to a number" is not), and a timezone that is not a place or
    zone the request names ("what time is it there?"); and a proposal that may not stand
    (`_modelled_fits`)."""
    properties = tool.input_schema.get("properties") or {}
    changes, request = changes_things(tool), clause.text
    sources = [request, *read]
    invented = []
    for name, paths in filled.generated.items():
        prop = properties.get(name, {})
        value = filled.arguments.get(name)
        if read and _composed(name, prop, value, paths, sources):
            continue
        if param_kind(name, prop) == "timezone" and not _zone_said(clause, name, filled.arguments):
            invented.append(readable_name(name))
            continue
        if may_be_written(name, prop):
            if _parrots(value, prop) or (
                changes and isinstance(value, str) and not _statement_from(value, [request])
            ):  # "CREATE TABLE SQL statement"; a table made up for "add a new user"
                invented.append(readable_name(name))
            continue
        if not changes and param_kind(name, prop) not in USER_KINDS and not names_a_thing(name):
            continue
        if any(not may_be_written(path.rsplit(".", 1)[-1], {}) for path in paths):
            invented.append(readable_name(name))
    for name, origin in filled.origins.items():
        if origin != "reference" and _names_itself(name, filled.arguments.get(name)):
            invented.append(readable_name(name))
        if origin in ("chosen", "generated") and not _modelled_fits(
            tool, name, filled.arguments.get(name), clause, read
        ):
            invented.append(readable_name(name))
    return list(dict.fromkeys(invented))


def _names_itself(name: str, value: Any) -> bool:
    """Whether a value is only a word of its parameter's name: "What columns does that table
    have?" gives no `table_name` "table", nor a request without one a `path` "path"."""
    words = set(readable_name(name).lower().split())
    said = re.sub(r"^(?:the|that|this|a|an)\s+", "", str(value).strip().lower())
    return isinstance(value, str) and said in words


def _modelled_fits(tool: ToolSpec, name: str, value: Any, clause: Clause, read: list[str]) -> bool:
    """Whether a value the model proposed (copied or written) may stand: SQL of a kind the
    parameter takes and the request asks; for a change, names the request (or what it points at)
    gives ("add a new project": no entity "project"), a path, URL or address the clause writes
    whole ("/tmp/x/projects" chosen as "tmp/x/projects"), no part of a longer word, and a text
    to write that the clause
    gives as text, unless written from what was read ("another item to my todo list" is no
    item)."""
    prop = (tool.input_schema.get("properties") or {}).get(name, {})
    if takes_sql(name, prop):
        return _asked_sql(value, sql_kinds(name, prop), clause.text)
    if not changes_things(tool):
        return True
    if not _names_given(name, value, clause, read, prop):
        return False
    if param_kind(name, prop) in LOCATOR_KINDS and not _whole_locators(value, clause):
        return False
    if isinstance(value, str) and _part_of_a_word(value, clause.text):
        return False  # "dark-mode" of "feature/dark-mode" is no branch the user named
    if _garbled(value):
        return False
    return bool(read) or all(_text_given(text, clause) for text in _texts(name, value))


def _garbled(value: Any) -> bool:
    """Whether records the model wrote repeat themselves: the same record twice, or a record
    noting its own name (SmolLM2, for "add that supplier as a company": the entity "Rosa
    Delgado" twice, observed as "Rosa Delgado" and the page's other names)."""
    records = [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []
    if not records:
        return False
    written = [json.dumps(r, sort_keys=True, default=str) for r in records]
    named = (
        (r.get("name") or r.get("entityName"), r.get("observations") or r.get("contents"))
        for r in records
    )
    echoes = any(isinstance(notes, list) and name in notes for name, notes in named if name)
    return len(set(written)) < len(written) or echoes


def _texts(name: str, value: Any) -> list[Any]:
    """The texts a change's value writes: the value of a payload parameter (`content`), or the
    `contents` of the records it makes (server-memory's observations)."""
    if name.lower() in PAYLOAD_NAMES:
        return [value]
    records = value if isinstance(value, list) else []
    held = [r.get("contents") for r in records if isinstance(r, dict)]
    return [t for c in held if isinstance(c, list) for t in c]


def _part_of_a_word(value: str, text: str) -> bool:
    """Whether the text holds the value only inside a longer word ("dark-mode" in
    "feature/dark-mode", "mode" in "dark-mode")."""
    if not value or value not in text:
        return False
    return re.search(rf"(?<![\w/-]){re.escape(value)}(?![\w/-])", text) is None


# The keys of what a change may be given that the model wrote from what was read: a text, an
# observation's contents (not a relation's ends or type, a path or an address).
_CONTENT_KEYS = PAYLOAD_NAMES | {"contents", "observations", "content"}


def _composed(
    name: str, prop: dict[str, Any], value: Any, paths: list[str], sources: list[str]
) -> bool:
    """Whether a value the model wrote for a change from what was read may be used: every fact
    in it stands in the request or the results (`sources`), and it is content, or a name the
    records it makes take from them (`_names_given` checks those), or SQL whose quoted values
    and numbers all stand there ("INSERT INTO orders ... VALUES (3, 'Baguette', 2.20)" after
    reading the price list)."""
    if param_kind(name, prop) in LOCATOR_KINDS or not isinstance(value, (str, list, dict)):
        return False
    if may_be_written(name, prop):
        return isinstance(value, str) and _statement_from(value, sources)
    keys = [next((k for k in reversed(p.split(".")) if k and not k.isdigit()), name) for p in paths]
    fits = all(key in _CONTENT_KEYS or names_a_thing(key) for key in keys)
    return fits and composed_from(value, sources)


def _statement_from(value: str, sources: list[str]) -> bool:
    """Whether a statement the model wrote for a change (SQL) takes its names from `sources`
    (`spans.written_from`) and every value it quotes and every number in it too: "UPDATE users
    SET city = 'New York'" for "update Emma Schultz's city" is a city nobody gave."""
    literals = re.findall(r"'((?:[^']|'')*)'", value)
    numbers = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", re.sub(r"'(?:[^']|'')*'", " ", value))
    return written_from(value, " ".join(sources)) and composed_from(literals + numbers, sources)


def _asked_sql(value: Any, kinds: tuple[str, ...], request: str) -> bool:
    """Whether the model's value is an SQL statement of a kind the parameter takes, and the
    change of rows the request asks for when it asks for one ("change his city" had made an
    INSERT, "add them to the users table ..." a CREATE TABLE users_table)."""
    if not (isinstance(value, str) and is_statement(value, kinds)):
        return False
    asked = row_change_asked(request)
    return not asked or is_statement(value, (asked,))


def _names_given(
    name: str, value: Any, clause: Clause, read: list[str], prop: dict[str, Any]
) -> bool:
    """Whether every name the model wrote into a change's records (`entityName`, `name`, or a
    field its schema says is "the name of" something: a relation's `from` and `to`), or into a
    list of names (`entityNames`), is a name the request gives, or one written in what it
    points at (`read`: "who bought the Monitor? add them to memory")."""
    names = {n.value for n in names_in(clause)} | {h.value for h in clause.held}
    records = value if isinstance(value, list) else []
    fields = ((prop.get("items") or {}).get("properties")) or {}
    written = [
        v
        for item in records
        if isinstance(item, dict)
        for key, v in item.items()
        if (names_a_thing(key) or _names_one(fields.get(key) or {})) and isinstance(v, str)
    ]
    if readable_name(name).split()[-1:] == ["names"]:  # "delete that company": no "company"
        written += [v for v in records if isinstance(v, str)]
    return all(v in names or any(v in text for text in read) for v in written)


def _whole_locators(value: Any, clause: Clause) -> bool:
    """Whether each path, URL or address the model gave a change is one the clause writes,
    whole (a part of "/srv/files/projects" is no path the user gave)."""
    given = {x.value for x in values_of(clause).locators} | {
        x.joined for x in values_of(clause).locators
    }
    values = value if isinstance(value, list) else [value]
    return all(isinstance(v, str) and v in given for v in values)


# Words that open a description of what to write, not the text itself ("another item to my
# todo list", "a new line"), or the asking itself ("Please take it out of the file for me."); a
# quoted text or one said as such may open with them.
_DESCRIBING = {"a", "an", "another", "the", "my", "our", "some", "this", "that", "one", "more"}
_DESCRIBING |= {"please", "kindly", "could", "can", "would", "will"}


def _text_given(value: Any, clause: Clause) -> bool:
    """Whether a text the model gave a change to write may be the user's: one the clause gives
    as text to pass on (quoted, "write the text hello to a.txt"), or words of it that describe
    nothing ("save hello world as a.txt"; not "add another item to my todo list", nor the
    asking, nor a thing of someone's the clause names and does not give: "Bob's birthday")."""
    values = values_of(clause)
    if value in {q.value for q in [*values.quoted, *values.said]}:
        return True
    words = str(value).lower().split()
    owned = rf"(?:\w's|\b(?:his|her|their|its|my|your|our))\s+{re.escape(str(value))}\b"
    named_only = len(words) <= 2 and re.search(owned, clause.text, re.I)
    return bool(words) and words[0] not in _DESCRIBING and not named_only


def _names_one(field: dict[str, Any]) -> bool:
    """A record's field described as a name: "The name of the entity where the relation
    starts" (server-memory's `from`)."""
    return str(field.get("description", "")).lower().startswith("the name of")


def _zone_said(clause: Clause, name: str, arguments: dict[str, Any]) -> bool:
    """Whether the model's time zone may stand for what the clause names: one of the zones its
    places have (for São Paulo it had written America/New_York), or any for a place no zone is
    named after ("Lyon": Europe/Paris), but never one another argument has taken ("convert 16:00
    to Nairobi time" names no zone to convert from)."""
    values, value = values_of(clause), arguments.get(name)
    taken = {v for key, v in arguments.items() if key != name and isinstance(v, str)}
    zoned = {z.zone for z in values.zones}
    unzoned = [p for p in values.places if not any(z.start == p.start for z in values.zones)]
    return value not in taken and (value in zoned or bool(unzoned))


def _parrots(value: Any, prop: dict[str, Any]) -> bool:
    """A small model's answer that repeats the parameter's description instead of filling it
    (one of the options it lists is an answer: "'local', 'remote' or 'all'")."""
    text = str(value or "").strip(" .;").lower()
    if value in options(prop):
        return False
    return bool(text) and text in str(prop.get("description", "")).lower()


def _coerce(arguments: dict[str, Any], properties: dict[str, Any]) -> None:
    """Convert values to the declared JSON type where that is lossless ('15' -> 15)."""
    for name, value in arguments.items():
        kind = json_type(properties.get(name, {}))
        try:
            if kind == "number" and isinstance(value, str):
                arguments[name] = float(value.replace(",", ""))
            elif kind == "integer" and isinstance(value, (str, float)):
                number = float(str(value).replace(",", ""))
                if number.is_integer():
                    arguments[name] = int(number)
            elif (
                kind == "string" and isinstance(value, (int, float)) and not isinstance(value, bool)
            ):
                arguments[name] = str(value)
        except ValueError:
            continue  # left as it is: validation reports it
