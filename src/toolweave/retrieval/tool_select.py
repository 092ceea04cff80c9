"""Tool selection for the planner and the step agent: each clause's candidates from the fused
retriever, and how well each fits the clause (`fit`).

The fused ranking (dense MaxSim + BM25, retrieval/retriever.py) orders the candidates; each keeps
its dense cosine as its score, because fused scores are relative to the clause's other hits and
cannot say whether any tool fits at all (the planner's `ask.min_tool_score` gate). Only tools of
connected servers are candidates: the index also remembers tools of servers that are down.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

import numpy as np

from toolweave.language.binding import (
    INTO_A_PLACE,
    extract_arguments,
    feasibility,
    folder_for_folders,
    gives_values,
    leaves_a_value,
    locators_fill,
    misses_the_table,
    other_kind_of_path,
    points_at_missing,
    recursion_asked,
    rewrites_whole,
    values_of,
)
from toolweave.language.cues import (
    asks_for_action,
    asks_to_change,
    computes_numbers,
    metadata_asked,
    names_what_it_does,
    negation_agrees,
    points_at_values,
    refers_back,
    request_start,
    says_what_it_gives,
)
from toolweave.language.parameters import (
    NUMERIC_KINDS,
    changes_things,
    deletes,
    json_type,
    param_kind,
)
from toolweave.language.records import (
    named_things,
    record_kind,
    servers_about,
    servers_named,
    servers_placed,
)
from toolweave.language.text import readable_name
from toolweave.language.values import blank_spans, labelled
from toolweave.models.base import Embedder
from toolweave.retrieval.retriever import ToolRetriever
from toolweave.types import Candidate, Clause, ToolSpec

# Weights of the evidence beside the cosine (`fit`), set on the dev half of `eval servers`.
VALUE_WEIGHT = 0.2
ACTION_WEIGHT = 0.05
NAME_WEIGHT = 0.2
HELD_WEIGHT = 0.2
RANK_PENALTY = 0.01
# Candidates per clause: enough that a tool whose values fit the clause is seen even when its
# terse description ranks it low ("add 17 and 25": get_sum was fourth on the official servers).
CANDIDATES = 6
ACTION_CANDIDATES = 3  # more, when the clause asks for a change (`_asked_for`)
# How alike two tools' own words (name and description, cosine) must be for one to stand in for
# the other when it fails (`alike`): read_file for read_text_file (0.60) passes, get_file_info
# (0.44) and git_status for git_diff_unstaged (0.59) do not. Set on the dev half of eval recovery.
STAND_IN_LIKENESS = 0.6


def _asked_text(clause: Clause) -> str:
    """What a clause asks, searched: after a sentence telling why, and with a text it gives to
    pass on after a colon left out ("commit it with this message: app.py: add units" asks for
    a commit; "add 17 to a number" keeps its words)."""
    values = clause.values
    text = blank_spans(clause.text, labelled(values.said, clause.text)) if values else clause.text
    return " ".join(text[request_start(text) :].split())


async def rank_tools(
    retriever: ToolRetriever,
    tools: list[ToolSpec],
    clauses: Sequence[str | Clause],
    vectors: np.ndarray | None = None,
    *,
    k: int = CANDIDATES,
    held: Mapping[str, list[str]] | None = None,
    about: Mapping[str, Collection[str]] | None = None,
    roots: Mapping[str, list[str]] | None = None,
) -> list[list[Candidate]]:
    """The k best connected tools for each clause, best first, with the segment that matched;
    an analysed clause also brings the tools its values fit and those of the servers that hold
    what it names (`held`, catalog/contents.py), or, for a question that names nothing held,
    whose records say its words (`about`), beside `_asked_for`. A candidate whose server says
    which folders it may reach (`roots`) and reaches none of the clause's paths is marked."""
    by_key = {t.key: t for t in tools}
    servers = {t.server for t in tools}
    nouns = server_nouns(tools)
    # what a clause asks, not the sentence telling why before it ("I'm checking how the page
    # shows up in search results: fetch <url> ..." asks for no search)
    texts = [c if isinstance(c, str) else _asked_text(c) for c in clauses]
    ranked = []
    for clause, ranking in zip(clauses, await retriever.rank_clauses(texts, vectors), strict=True):
        # A tool only BM25 found scores no more than the weakest tool dense search found.
        floor = min(ranking.cosine.values(), default=0.0)
        keys = [key for key in ranking.keys if key in by_key]
        named: set[str] = set()
        placed: set[str] = set()
        if isinstance(clause, Clause):
            placed = servers_placed(clause, servers, held, nouns)
            named = servers_named(clause, held or {}) | placed
            if not named and not asks_to_change(clause.text):
                named = servers_about(clause, about or {})
        # Past the k best, any connected tool: one the fused ranking left out entirely may be
        # the one whose values the clause gives ("the comment column of feedback", read_query).
        top = retriever.explore(keys, keys, k)  # one slot for an untaught tool, after runs
        rest = [key for key in keys if key not in top]
        rest += [key for key in by_key if key not in ranking.keys]
        chosen = top + _asked_for(clause, [by_key[key] for key in rest], named)
        # "add Globex to memory": a change the user directs at a server is made there; "look up
        # Lyon in the database": so is a read, when the clause asks for no change.
        reads = isinstance(clause, Clause) and not asks_to_change(clause.text)
        if placed:
            chosen = [
                c
                for c in chosen
                if by_key[c].server in placed or not (reads or changes_things(by_key[c]))
            ]
        ranked.append(
            [
                Candidate(
                    tool=by_key[key],
                    score=ranking.cosine.get(key, floor),
                    matched=hit.segment if (hit := ranking.evidence.get(key)) else "",
                    holds=by_key[key].server in named,
                    outside=_outside(clause, (roots or {}).get(by_key[key].server)),
                    inside=_inside(clause, (roots or {}).get(by_key[key].server)),
                    lacks=lacks_name(clause, (held or {}).get(by_key[key].server)),
                )
                for key in chosen
            ]
        )
    return ranked


# A word most of a server's tools say and hardly another server's does: what users call it
# ("the database" for mcp-server-sqlite, "my knowledge graph" for server-memory).
NOUN_SHARE, NOUN_ELSEWHERE, NOUN_TOOLS = 0.6, 0.05, 3


def server_nouns(tools: Sequence[ToolSpec]) -> dict[str, set[str]]:
    """The words of each server of three tools or more that at least 60% of its tools'
    descriptions say and at most 5% of the other servers' tools do."""
    words: dict[str, Counter[str]] = {}  # per server: how many of its tools say each word
    sizes: Counter[str] = Counter(tool.server for tool in tools)
    for tool in tools:
        said = set(re.findall(r"[a-z]{4,}", tool.description.lower()))
        words.setdefault(tool.server, Counter()).update(said)
    everywhere = sum(words.values(), Counter())
    nouns = {}
    for server, counts in words.items():
        own, others = sizes[server], len(tools) - sizes[server]
        if own < NOUN_TOOLS:
            continue
        nouns[server] = {
            word
            for word, n in counts.items()
            if n >= NOUN_SHARE * own and everywhere[word] - n <= NOUN_ELSEWHERE * max(others, 1)
        }
    return nouns


async def alike(
    embedder: Embedder, failed: ToolSpec, candidates: list[Candidate]
) -> list[Candidate]:
    """The candidates whose name and description say what the failed tool's say: a tool that
    fits the clause but does something else (file info for a file's text) is no stand-in."""
    others = [c for c in candidates if c.tool.key != failed.key]
    if not others:
        return []
    tools = [failed, *(c.tool for c in others)]
    texts = [f"{readable_name(t.name)}: {t.description}" for t in tools]
    vectors = await embedder.embed(texts)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    likeness = vectors[1:] @ vectors[0]
    return [c for c, near in zip(others, likeness, strict=True) if near >= STAND_IN_LIKENESS]


def _asked_for(clause: str | Clause, rest: list[ToolSpec], named: set[str]) -> list[str]:
    """Beyond the k best, the tools that do the change the clause asks for ("save the result in
    a.txt" and `write_file`, whose terse description ranks low), and those whose every value the
    clause gives ("... in the users table whose city is Lyon" and `read_query`, whose query it
    spells out) or whose server holds what it names (`named`: "what do you know about Bob?" and
    the memory server's reading tools): `fit` weighs them too."""
    text = clause if isinstance(clause, str) else clause.text
    if change := asks_to_change(text):
        found = []
        for tool in rest:  # the change its words name, or one they allow on a server that holds
            action = asks_for_action(tool, text) if changes_things(tool) else False
            if action or (action is None and tool.server in named):
                found.append(tool)
    else:
        found = [] if isinstance(clause, str) else [t for t in rest if not changes_things(t)]
    if isinstance(clause, Clause):  # the tools the clause's values fill first
        scores = {
            t.key: feasibility(t, clause) + (t.server in named) + points_at_missing(t, clause)
            for t in found
        }
        if not change:
            found = [t for t in found if scores[t.key] >= 1.0 or locators_fill(t, clause)]
        # Of those alike, the ones whose names the clause says first ("which files are
        # modified in /srv/repo?": git_status of the git tools its path fills)
        found.sort(key=lambda t: (-scores[t.key], -sum(names_what_it_does(t, clause))))
    return [t.key for t in found[:ACTION_CANDIDATES]]


def lacks_name(clause: str | Clause, held: list[str] | None) -> bool:
    """Whether the server's names are known and the first name the clause gives is not one of
    them ("remember Dave - person, plays the cello" and a graph without Dave)."""
    names = named_things(clause) if isinstance(clause, Clause) and held is not None else []
    return bool(names) and names[0].value not in (held or [])


def _outside(clause: str | Clause, roots: list[str] | None) -> bool:
    """Whether the clause gives absolute paths and none is in one of these folders (a relative
    one may be anywhere)."""
    reached = _reached(clause, roots)
    return reached is not None and not any(reached)


def _inside(clause: str | Clause, roots: list[str] | None) -> bool:
    """Whether the clause gives absolute paths and all are in one of these folders."""
    reached = _reached(clause, roots)
    return reached is not None and all(reached)


def _reached(clause: str | Clause, roots: list[str] | None) -> list[bool] | None:
    """For each of the clause's paths, whether it is in one of these folders; None unless the
    folders are known and every path is absolute."""
    if not roots or not isinstance(clause, Clause):
        return None
    # "config.py ... in /srv/repo" is /srv/repo/config.py
    paths = [x.joined for x in values_of(clause).locators if x.kind == "path"]
    if not paths or not all(p.startswith("/") for p in paths):
        return None
    return [any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots) for p in paths]


_EXISTING = re.compile(r"\bexisting\b", re.IGNORECASE)


def _held_elsewhere(candidate: Candidate, clause: Clause) -> bool:
    """Whether the tool's values are only what another server holds ("look up order number 6"
    and server-memory's search_nodes(query="orders"): the orders table is the database's)."""
    held = {h.value for h in clause.held}
    if candidate.holds or not held:
        return False
    filled = extract_arguments(candidate.tool.input_schema, clause).arguments
    return bool(filled) and all(v in held for v in filled.values() if isinstance(v, str))


def _opens_by_name(tool: ToolSpec) -> bool:
    """Whether the tool only reads, and what it reads is given by a list of names (server-memory's
    `open_nodes(names)`)."""
    properties = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    return not changes_things(tool) and any(
        readable_name(name).split()[-1:] == ["names"]
        and json_type(properties.get(name) or {}) == "array"
        for name in required
    )


def _chooses(tool: ToolSpec) -> bool:
    """Whether every required parameter of the tool is a choice of options (an enum)."""
    required = tool.input_schema.get("required") or []
    properties = tool.input_schema.get("properties") or {}
    return bool(required) and all((properties.get(name) or {}).get("enum") for name in required)


def _computes(tool: ToolSpec) -> bool:
    """Whether the tool needs numbers, and only numbers ("get-sum(a, b)")."""
    required = tool.input_schema.get("required") or []
    properties = tool.input_schema.get("properties") or {}
    kinds = [param_kind(name, properties.get(name) or {}) for name in required]
    return bool(kinds) and all(kind in NUMERIC_KINDS for kind in kinds)


def finds_nothing(candidate: Candidate) -> bool:
    """Whether the candidate works on a thing its server does not hold: a change of "existing
    entities" (server-memory's add_observations), or a deletion, would fail with "not found" or
    do nothing; so would a read of things by their names ("do I know anybody in Leeds?" opens
    no "Leeds" node of a graph that holds none)."""
    tool = candidate.tool
    existing = _EXISTING.search(tool.description) is not None or deletes(tool)
    return candidate.lacks and ((changes_things(tool) and existing) or _opens_by_name(tool))


def _one_end(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the tool relates two things and the clause names one at most, pointing at no
    one found before ("remember that Dana plays the cello" is no relation: the cello is no thing
    named; "remember it under Rosa's Bakery" keeps a value read, "link them to Acme" may). A
    thing added as a kind of thing is one thing: "add that person to memory as a person"."""
    if record_kind(tool.input_schema) != "relations":
        return False
    if _AS_A_KIND.search(clause.text) or _ONE_FOUND.search(clause.text):
        return True
    if _WHO_FOUND.search(clause.text):
        return False
    return len({n.value for n in named_things(clause)} | {h.value for h in clause.held}) < 2


_WHO_FOUND = re.compile(r"\b(?:them|they|him|her|those|these)\b", re.IGNORECASE)
_ONE_FOUND = re.compile(r"\bthat\s+(?:person|one|customer|company|user|buyer)\b", re.IGNORECASE)
# "as a person", "as a company": the kind of a thing kept, not the kind of record it is kept in
_AS_A_KIND = re.compile(
    r"\bas\s+(?:a|an)\s+(?:new\s+)?(?!(?:observation|relation|relationship|note|link|row|line"
    r"|item|entry|record|comment|insight|file|list|reminder|memo)s?\b)[a-z]+\b",
    re.IGNORECASE,
)


def fit(candidate: Candidate, clause: Clause, rank: int) -> float:
    """How well a candidate serves the clause (`fit_and_gate`)."""
    return fit_and_gate(candidate, clause, rank)[0]


def fit_and_gate(candidate: Candidate, clause: Clause, rank: int) -> tuple[float, float]:
    """How well a candidate serves the clause: its cosine, plus what the clause's values say
    (a tool whose required parameters they fill: "add 17 and 25" and `get_sum(a, b)`) and its
    wording (the clause asks for what the tool's name says it does, or asks for a change a tool
    that only reads cannot make), less a little per place down the fused ranking. A tool that
    changes things the clause does not ask for never fits ("how many entities are there" and
    `delete_entities`). Second, what the planner's `ask.min_tool_score` gate compares: the same
    without the nouns of the tool's name, which choose between tools that fit and make none fit
    ("when did the body style change" asks for no `percent_change`)."""
    tool = candidate.tool
    action = asks_for_action(tool, clause.text)
    changes = changes_things(tool)
    change_asked = asks_to_change(clause.text)
    # "add an order to the orders table ... with item 'Cinnamon roll'" is no memo of it; a
    # question that asks for no change makes none ("commit msg that added the loader?")
    asked = not (clause.text.rstrip().endswith("?") and not change_asked)
    # Nor does one whose verbs say nothing here, for a clause that asks for no change ("I'm
    # about to start a fresh log" and toggle-simulated-logging).
    unasked = action is None and not change_asked
    # "add 318 and 47.6" is a sum: nothing is added to a repository or a memo
    arithmetic = computes_numbers(clause.text)
    if changes and (
        action is False
        or unasked
        or not asked
        or arithmetic
        or misses_the_table(tool, clause) == INTO_A_PLACE
    ):
        return -1.0, -1.0
    # A file for a tool that works on folders counts against it as much as fitting values for.
    wrong_path = candidate.outside or other_kind_of_path(tool, clause)
    absent = finds_nothing(candidate) or (changes and _one_end(tool, clause))
    feasible = 0.0 if wrong_path else feasibility(tool, clause)
    if feasible and (absent or _held_elsewhere(candidate, clause)):
        feasible = 0.0  # values that fit a thing not there fit nothing ("Weather CLI" not held)
    # A folder for a tool named for folders counts as much; a page pointed at and not given
    # as a value to ask for ("get the webpage for me": fetch, and the user is asked which).
    said = folder_for_folders(tool, clause) + points_at_missing(tool, clause)
    said += recursion_asked(tool, clause)  # "incl. subfolders": a tool that goes down into them
    evidence, nouns = VALUE_WEIGHT * (feasible - wrong_path + said), 0.0
    # A change none of whose values the clause gives, or a sum with no numbers to add ("sum the
    # amount column of orders"; "add these two numbers" points at numbers: the user is asked).
    computes = (
        _computes(tool) and not refers_back(clause.text) and not points_at_values(clause.text)
    )
    # "make it "B" instead of "A"" is no write of "B" as the whole file, "add Carol to the users
    # table" no memo.
    # Nor is a tool none of whose inputs a clause that points at a page or file gives ("the
    # bakery's opening hours according to <url>" and convert_time).
    required = tool.input_schema.get("required")
    located = bool(values_of(clause).locators) and required
    # Nor one that takes only a choice of options, none of which the clause names ("what
    # cities are our users in?" and get-structured-content's "Choose city": New York, ...)
    unfit = not feasible and (computes or (changes and required) or located or _chooses(tool))
    if absent:  # it counts as much again as the verb of its name ("add Dmitri ... as a person")
        evidence -= NAME_WEIGHT
    if (
        unfit
        or absent
        or (changes and (rewrites_whole(tool, clause) or misses_the_table(tool, clause)))
    ):
        evidence -= VALUE_WEIGHT
    elif not tool.input_schema.get("properties") and gives_values(clause):
        # "list the users in the users table whose city is Lyon" is no `list_tables()`
        evidence -= VALUE_WEIGHT
    if not changes or change_asked:  # "the latest commit" asks for no commit
        verbs, others = names_what_it_does(tool, clause)
        evidence += NAME_WEIGHT * (verbs + negation_agrees(tool, clause.text))
        # The nouns count as far as the clause gives the tool's values: "percentage" alone asks
        # for no calculator.
        nouns = NAME_WEIGHT * others * feasible
    # "the revenue in report.txt" is in the file, not its metadata; "how big is it" is in those
    evidence += VALUE_WEIGHT * metadata_asked(tool, clause)
    if leaves_a_value(tool, clause):
        evidence -= VALUE_WEIGHT / 2
    if candidate.holds:
        evidence += HELD_WEIGHT  # "what do you know about Bob?" and the graph that holds Bob
    if action or (arithmetic and _computes(tool)):  # a tool of numbers for a computation
        evidence += ACTION_WEIGHT
    # its output schema gives what a question asks ("weather in Chicago?"), no change
    if feasible and not change_asked and says_what_it_gives(tool, clause):
        evidence += VALUE_WEIGHT / 2
    elif not changes and change_asked:
        # "write hello to a.txt" is no reading of a.txt; a thing the server holds that a change
        # names ("insert a row into the users table") is not described instead ("add 17 and 25"
        # may be a sum; Seal-Tools' unannotated tools lost an item to a larger penalty for all).
        # So is one that declares it only reads ("create a README.txt in /srv/inv saying ..."
        # is no reading of it): unannotated tools may change things unsaid.
        declared = tool.hints.read_only is True
        held = (candidate.holds or declared) and not _computes(tool)
        evidence -= VALUE_WEIGHT if held else ACTION_WEIGHT
    gate = candidate.score + evidence - RANK_PENALTY * rank
    return gate + nouns, gate
