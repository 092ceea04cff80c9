"""What a question's wording says besides its values: request wrappers, small talk, and the
cues of a multi-hop question.

Request wrappers: "Can you help me find a hotel?" searches as "find a hotel?": the wrapper says
nothing about the tool, yet it takes a share of a mean-pooled embedding and matches tools that
mention "help". Only the searched text changes; the clause itself (its values, its line in the
answer) stays. On the dev splits R@5 rose 0.3 (seal-dev), 0.7 (toole-dev) and 0.2
(toollens-dev) points.
"""

from __future__ import annotations

import re
from typing import Any

from toolweave.language.numbers import NUMBER_WORDS
from toolweave.language.questions import stem
from toolweave.language.text import ADD_TO, ADDED_TO, ARROW, OPENERS, readable_name, sentences
from toolweave.language.values import blank_quoted, blank_spans, replacements
from toolweave.types import Clause, ToolSpec

_WRAPPER = re.compile(
    r"^(?:please\s+)?(?:"
    r"(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:help\s+me\s+(?:to\s+)?)?"
    r"|(?:help|assist)\s+me\s+(?:to\s+|with\s+|in\s+)?"
    r"|i(?:'m|\s+am)\s+(?:looking\s+(?:for|to)|interested\s+in|planning\s+(?:to|on)?)\s+"
    r"|i\s+need\s+your\s+(?:help|assistance)\s+(?:to|with|in)\s+"
    r"|i(?:\s+would|'d)\s+like\s+(?:you\s+)?(?:to\s+)?"
    r"|i\s+(?:want|need|wish)\s+(?:you\s+)?(?:to\s+)?"
    r")",
    re.IGNORECASE,
)


def searchable(text: str) -> str:
    """The text without a leading greeting and request wrapper; the text itself when nothing
    else is left."""
    stripped = _WRAPPER.sub("", _GREETING.sub("", text.strip(), count=1), count=1)
    return stripped if stripped.strip(" ?.!") else text


_GREETING = re.compile(r"^(?:hi|hello|hey)(?:\s+there)?\s*[,!]\s*", re.IGNORECASE)


SMALL_TALK = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|thx|good (morning|afternoon|evening)|bye|goodbye)"
    r"( there| a lot| so much)?\s*[!.?]*\s*$",
    re.IGNORECASE,
)


def is_small_talk(question: str) -> bool:
    return SMALL_TALK.match(question) is not None


# Multi-hop cues (SRSA's planning search): a comparison of two named things, or a thing named
# through another fact ("the director of the film that ...", "the city where X was born").
_COMPARISON = re.compile(
    r"\b(?:which|who|what)\b.*\b(?:older|younger|first|earlier|later|larger|bigger|smaller|"
    r"longer|shorter|higher|taller|more|less|fewer|closer|farther|further)\b.*\bor\b|"
    r"^(?:are|were|is|was|do|did|does)\b.*\band\b.*\b(?:both|same|either)\b|"
    r"\bboth\b.*\band\b",
    re.IGNORECASE,
)
_BRIDGE = re.compile(
    r"\b(?:the|a|an)\s+(?:\w+\s+){0,3}?(?:that|which|who|whose|where|when)\s+(?!is\b|are\b)"
    r"|\b(?:of|by|for|in)\s+the\s+(?:\w+\s+){0,3}?(?:of|by)\s+(?:the\s+)?[A-Z]",
    re.IGNORECASE,
)
# A person or work reached through another: "the singer of Miss Emily's Picture", "Lewis
# Young's older brother". Case-sensitive: the second name is capitalised or quoted.
_RELATION = (
    r"(?:brother|sister|father|mother|son|daughter|wife|husband|partner|spouse|founder|director|"
    r"author|singer|creator|writer|producer|owner|composer|successor|predecessor|band|team|album)"
)
_THROUGH = re.compile(
    rf"\b[Tt]he\s+(?:\w+\s+)?{_RELATION}s?\s+(?:of|for|in)\s+(?:the\s+)?[A-Z\"“]"
    rf"|\b[A-Z][\w.]*(?:'s|’s)\s+(?:\w+\s+)?{_RELATION}s?\b"
)


def is_multi_hop(question: str) -> bool:
    """Whether answering needs a fact found through another one (or two facts compared)."""
    return any(cue.search(question) for cue in (_COMPARISON, _BRIDGE, _THROUGH))


# "get a joke and send it", "write the answer to a.txt", "add 445 to that": words that point at
# the previous result ("that" only at the clause's end: "add that Bob ..." introduces a fact).
_BACK_REFERENCE = re.compile(
    r"\b(?:it|them|this|(?:the|that) (?:result|answer|output|sum|total)|that(?=\W*$)|a copy)\b"
    r"|\bwhat (?:comes (?:out|back)|you get)\b",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"\b(?:its|their|they)\b", re.I)  # "its title", "what they wrote"
_PERSONAL = re.compile(r"\b(?:her|his|he|she)\b", re.I)  # "and give me her email"
_PASSES_ITS = re.compile(r"\b(?:write|save|put|store|send|append|copy|add)\s+its\b", re.I)


def passes_its(clause: str) -> bool:
    """Whether the clause passes on part of the earlier result ("write its commit messages into
    a.txt"), not something made of it ("write a summary of its contents")."""
    return _PASSES_ITS.search(clause) is not None


_THESE = re.compile(r"\b(?:these|those)\b", re.IGNORECASE)
# "the ERROR line", "the error entries", "lines mentioning timeout": the lines of a text that
# hold a word, not the whole text.
_LINES = re.compile(
    r"\b(?:the|every|all|any)\s+(?P<a>\"[^\"]+\"|'[^']+'|[\w-]+)\s+(?:lines?|entr(?:y|ies))\b"
    r"|\blines?\s+(?:that\s+|which\s+)?(?:contain(?:s|ing)?|mention(?:s|ing)?|with|hold(?:s|ing)?)"
    r"\s+(?:the\s+word\s+)?(?P<b>\"[^\"]+\"|'[^']+'|[\w-]+)",
    re.IGNORECASE,
)
# Words that say which lines by their place or role, not by a word they hold: "the second line",
# "the header line", "the latest entries" (a count such as "the first 3 lines" is binding's).
_WHICH_LINES = {"next", "top", "bottom", "whole", "new", "same", "other", "following", "previous"}
_WHICH_LINES |= {"final", "empty", "blank", "log", "header", "footer", "matching", "relevant"}
_WHICH_LINES |= {"second", "third", "fourth", "fifth", "newest", "oldest", "above", "below"}


def fact_asked(clause: str) -> str:
    """The word of the one fact the clause asks for out of what it reads ("get the phone
    number from <url>": phone; "the carrot cake price on <url>": carrot; "the deadline in
    alpha.txt"), "" when it asks for all of it or a part that is text of its own ("fetch
    <url>", "the message of the latest commit"): "it" after it is the lines that hold it."""
    match = _PART.search(clause)
    words = match["what"].lower().split() if match else []
    return words[0] if words and words[-1] in _FACTS else ""


_PART = re.compile(
    r"\b(?:the|its|their|his|her|my|our)\s+(?P<what>(?:[\w-]+\s+){0,2}?[\w-]+)\s+"
    r"(?:from|on|in|at|of)\s+(?:the\s+)?(?:(?:web\s*)?page\s+|file\s+|site\s+)?"
    r"(?=https?://|[/~]|[\w-]+\.[a-z]{2,5}\b)",
    re.IGNORECASE,
)
# What one fact of a page or a file is called: a number, a date, a name or a place.
_FACTS = {"number", "phone", "price", "cost", "email", "address", "date", "deadline", "owner"}
_FACTS |= {"name", "hours", "total", "amount", "port", "version", "city", "time", "id"}


def facts_named(clause: str) -> list[str]:
    """The facts of a record or a text the clause names, in order ("with his email", "owner +
    deadline", "Bob Chen's city", "the phone number"): what a record keeps of what was read."""
    text = _ONE_FACT.sub(r"\1", clause)
    words = (w.lower() for w in re.findall(r"[A-Za-z]+", text))
    return list(dict.fromkeys(w for w in words if w in _FACTS - _NOT_KEPT))


def described_by_quote(clause: str) -> tuple[str, str] | None:
    """The kind of thing the clause names by a quoted description, and the description ("what
    did the "Update README with usage" commit change?": commit, Update README with usage), or
    None; not a text the request passes on ("with the message 'Fix'")."""
    said = _DESCRIBED.search(clause)
    if said is None:
        return None
    noun = (said["before"] or said["after"]).lower()
    return None if noun in _PASSED_NOUNS else (noun, said["quote"])


_DESCRIBED = re.compile(
    r"\bthe\s+(?:(?P<before>[a-z]+)\s+)?[\"“'‘](?P<quote>[^\"”'’]{3,80})[\"”'’]"
    r"(?(before)|\s+(?P<after>[a-z]+)\b)",
    re.IGNORECASE,
)
_PASSED_NOUNS = {"message", "text", "title", "subject", "name", "line", "content", "contents"}
_PASSED_NOUNS |= {"word", "words", "phrase", "comment", "note", "file", "folder", "page", "value"}


def says_what_they_did(clause: str) -> bool:
    """Whether the clause asks to keep what a text says someone does ("with an observation
    saying what he agreed to do"): the lines of the text that name them."""
    return _WHAT_THEY_DID.search(clause) is not None


_WHAT_THEY_DID = re.compile(
    r"\b(?:observation|note|fact)s?\b[^.?!]{0,30}?\b(?:saying|that\s+says|about)\s+what\s+"
    r"(?:he|she|they)\b",
    re.IGNORECASE,
)


# "email address", "phone number": one fact each; "the name", "the time", "the total" are said
# of too many things to be a fact read.
_ONE_FACT = re.compile(r"\b(e-?mail|phone)\s+(?:address|number)\b", re.IGNORECASE)
_NOT_KEPT = {"name", "number", "time", "id", "total", "amount"}


def lines_asked(clause: str) -> str:
    """The word whose lines of a text the clause asks for ("find the ERROR line in server.log":
    ERROR; "lines containing 404"), or "" for lines said by their place or role."""
    match = _LINES.search(clause)
    if match is None:
        return ""
    word = (match["a"] or match["b"]).strip("\"'")
    which = word.lower() in _WHICH_LINES | _DETERMINERS | NUMBER_WORDS
    if re.search(r"[{}|]", word) or which or (match["a"] and word.isdigit()):
        return ""
    return word


_THAT_THING = re.compile(
    r"(?:please\s+)?(?:show|open|display|give)\s+(?:me\s+)?(?:that|this|the\s+same)\s+"
    r"(?P<noun>[a-z]+)(?:\s+again)?\W*",
    re.IGNORECASE,
)


def names_again(clause: str, earlier: str) -> bool:
    """Whether the clause only asks to see a thing the clause before named ("What did commit
    HEAD~2 introduce? Show me that commit."): the same thing asked for again; "How tall is that
    tower?" asks something new."""
    match = _THAT_THING.fullmatch(clause.strip())
    return match is not None and re.search(rf"\b{match['noun']}\b", earlier, re.I) is not None


def points_at_values(clause: str) -> bool:
    """Whether the clause points at values it does not give ("add these two numbers")."""
    return _THESE.search(clause) is not None


# "... and tell me what the customers complained about": asking what a result says.
_TELL_ME = re.compile(
    r"^(?:and\s+)?(?:then\s+)?(?:please\s+)?(?:tell|show|give)\s+me\s+"
    r"(?:what|which|who|whom|whose|how|whether|if|when|where|why)\b",
    re.IGNORECASE,
)


def tells_me(clause: str) -> bool:
    """Whether the clause asks to be told something ("tell me what they complained about")."""
    return _TELL_ME.match(clause.strip()) is not None


# What only says where to look: "see <path>", "check <url>", "it's written in <path>", "the
# details are in <path>." (its place blanked).
_SOURCE_ONLY = re.compile(
    r"\W*(?:please\s+)?(?:see|check|look\s+(?:at|in)|read|open|according\s+to|going\s+by"
    r"|(?:it'?s|it\s+is|that'?s|all)\s+(?:all\s+)?(?:written|noted|listed|mentioned|said)?\s*"
    r"(?:in|at|on)|(?:the\s+)?(?:details|answer|info(?:rmation)?)\s+(?:are|is)\s+(?:all\s+)?in)"
    r"[\s.?!)]*",
    re.IGNORECASE,
)


def only_where(clause: Clause) -> bool:
    """Whether the clause only names a place to look at ("see /srv/a.txt"): the question
    before it is asked of that place ("which port is the server on? check server.log")."""
    values = clause.values
    places = [x for x in values.locators if not x.quoted] if values else []
    return len(places) == 1 and _SOURCE_ONLY.fullmatch(without_values(clause)) is not None


def refers_back(clause: str, *, possessive: bool = False, personal: bool = False) -> bool:
    """Whether the clause points at an earlier result instead of naming its content; with
    `possessive`, also by "its", "their" or "they"; with `personal`, by "her", "his", "he" or
    "she" too."""
    return (
        _BACK_REFERENCE.search(clause) is not None
        or (possessive and _POSSESSIVE.search(clause) is not None)
        or (personal and _PERSONAL.search(clause) is not None)
    )


# "→ note it on Alice", "save that price in cake.txt": a request that goes on from the one
# before, or a fact named by "that" ("that Bob likes tea" states one).
_GOES_ON = re.compile(
    r"^\W*(?:→|->|=>)|\bthat\s+(?!(?:he|she|it|they|we|i|you|the|a|an|his|her|their)\b)[a-z]+\b"
)


def points_back(clause: str) -> bool:
    """Whether a request points at what the requests before it found ("note it on Alice",
    "add them to memory", "his email", "→ save on Project Falcon", "at that price"), rather
    than saying all it needs itself."""
    return (
        refers_back(clause, possessive=True, personal=True)
        or _THESE.search(clause) is not None
        or _GOES_ON.search(clause) is not None
    )


# What a tool that changes something does, by the verb in its name, and the words a request for
# it uses: "how many entities are there" asks for no delete_entities.
_ACTIONS = {
    "write": {"write", "save", "store", "put", "overwrite", "create", "make", "replace", "copy"}
    | {"jot"},
    "edit": {"edit", "change", "modify", "replace", "update", "fix", "swap", "append", "correct"},
    "update": {"update", "change", "modify", "edit", "set", "correct"}
    | {"reduce", "lower", "raise", "increase", "decrease"},
    "create": {"create", "make", "add", "remember", "record", "save", "note", "link", "connect"}
    | {"mkdir", "store", "put"},
    "add": {"add", "append", "create", "remember", "record", "note", "insert", "stage", "attach"}
    | {"save", "store", "enter"},
    "insert": {"insert", "add", "append", "put", "record", "enter"},
    "delete": {"delete", "remove", "erase", "forget", "drop", "clear", "wipe", "rm"},
    "remove": {"remove", "delete", "erase", "forget", "drop", "clear", "rm"},
    "move": {"move", "rename", "mv", "relocate", "put"},
    "rename": {"rename", "move"},
    "commit": {"commit"},
    "reset": {"reset", "unstage", "undo"},
    "checkout": {"checkout", "switch"},
    "send": {"send", "post", "email", "mail", "message", "notify"},
    "post": {"post", "send", "publish"},
}


# "add 445 to that", "subtract 3 from it": a number added to an earlier result, which no tool
# that changes things holds: arithmetic, not a write ("append 'done' to it" is one).
_TO_A_RESULT = re.compile(
    r"\b(?:add|subtract|take)\s+-?[\d.,]+\s+(?:to|from)\s+"
    r"(?:that|it|this|the (?:result|answer|sum|total))\W*$",
    re.IGNORECASE,
)


def asks_for_action(tool: ToolSpec, clause: str) -> bool | None:
    """Whether the clause asks for what the tool says it does, by the verbs of its name and of
    its description's first sentence ("write_query: Execute an INSERT, UPDATE, or DELETE
    query" serves "add a user"); None when they hold no verb this table knows."""
    described = sentences(tool.description)[:1]
    words = readable_name(tool.name).split() + re.findall(r"[a-z]+", " ".join(described).lower())
    verbs = {v for w in words for v in (w, w.removesuffix("s")) if v in _ACTIONS}
    if not verbs:
        return None
    if _TO_A_RESULT.search(clause):
        return False
    asked = _verbs_said(clause)
    return any(any(w.startswith(s) for w in asked for s in _ACTIONS[v]) for v in verbs)


# Words after which a verb's form is a noun or describes a state: "the latest commit", "my
# saved notes"; and a past form says what happened ("what have I changed"), it asks for nothing.
_DETERMINERS = {"the", "a", "an", "this", "that", "these", "those", "my", "your", "its", "their"}
_DETERMINERS |= {"our", "his", "her", "each", "every", "last", "latest", "recent", "first", "no"}
_DETERMINERS |= {"many", "few", "several", "some", "any", "all"}  # "how many records"


# A verb of two words, as the one word the table above knows: "take that out of memory"; and a
# request without its verb: "new row in users: ...".
_ONE_WORD = (
    (re.compile(r"\btake\s+((?:\w+\s+){0,3}?)out\b(?:\s+of\b)?", re.I), r"remove \1from"),
    (re.compile(r"\bget\s+rid\s+of\b", re.I), "remove"),
    # "add up the amounts of his orders", "add the grocery amounts together": a sum, no row
    # added
    (re.compile(r"\badd\s+up\b", re.I), "total"),
    (re.compile(r"\badd\s+((?:[\w-]+\s+){1,4}?)together\b", re.I), r"total \1"),
    # "rename the item "USB-C cable" to ...": a value changed, not a file moved
    (
        re.compile(
            r"\brename\s+(?=(?:the\s+)?(?!(?:file|folder|directory|branch)\b)\w+\s+[\"'“])", re.I
        ),
        "update ",
    ),
    # "change to a different branch": a switch of branches
    (
        re.compile(
            r"\bchange\s+(?=(?:over\s+)?to\s+(?:a|an|the|another)\s+(?:\w+\s+)?branch\b)", re.I
        ),
        "switch ",
    ),
    # "start a new branch", "open a new branch", "set up the nested folders", "set up a table"
    (
        re.compile(
            r"\b(?:start|open|spin\s+up)\s+(?=(?:a|an|some)\s+(?:new|nested|empty|fresh)\b)"
            r"|\bset\s+up\s+(?=(?:a|an|the|some)\s+(?:new|nested|empty|fresh)\b)"
            r"|\bset\s+up\s+(?=(?:a|an)\s)",
            re.I,
        ),
        "create ",
    ),
    # "start tracking TODO.md", "track notes.txt in git": a file staged
    (re.compile(r"\b(?:start\s+tracking|track)\s+(?=[\w./-]+\.\w{1,5}\b)", re.I), "stage "),
    # "log an order → Alice, 'Monitor arm', 39.95", "log today's lunch in expenses.csv": a
    # record made, no log read
    (
        re.compile(r"(?:^\W*|(?<=please\s))log\s+(?=(?:a|an|one|this|my|today['’]s)\s)", re.I),
        "record ",
    ),
    # "make it the current one", "hop onto it": the branch switched to
    (
        re.compile(
            r"\bmake\s+(it|that|(?:branch\s+)?[\w./-]+)\s+(?:the\s+|my\s+)?(?:current|active|working)\b"
            r"(?:\s+(?:one|branch))?"
            r"|\b(?:hop|jump|move)\s+on(?:to)?\s+(it|that|branch\s+[\w./-]+)",
            re.I,
        ),
        lambda m: f"checkout {m[1] or m[2]}",
    ),
    # "TODO.md → stage": what to do with the file
    (
        re.compile(
            rf"([\w./~-]+\.\w{{1,5}})\s*{ARROW}\s*(stage|commit|unstage|delete|remove)\b", re.I
        ),
        r"\2 \1",
    ),
    # "branch off as chore/readme": a branch to make
    (re.compile(r"(^\W*|:\s+)branch\s+off\s+(?:as|into)\s+", re.I), r"\1create branch "),
    (ADDED_TO, ADD_TO),
    # "graph: Carol knows Bob": a fact to keep ("graph: who knows Bob?" asks)
    (re.compile(r"^(\W*)(?=(?:knowledge\s+)?graph\s*:[^?]*$)", re.I), r"\1add to "),
    # "branch fix-1 off main", "branch docs/readme-tweaks in /srv/repo", "<repo>: branch x off
    # main": a branch to make
    (
        re.compile(
            r"(^\W*|:\s+)branch\s+(?=\S+\s+(?:from|off)\b|[\w.-]*[-/_\d][\w./-]*(?:\s+in\b|\s*[,;.]|\s*$))",
            re.I,
        ),
        r"\1create branch ",
    ),
    # "check it out", "check out docs-fix": a branch; "check out http://..." reads a page.
    (
        re.compile(
            r"\bcheck\s+((?:the\s+)?(?:branch\s+)?[\w.-]*[-_./\d][\w./-]*|it|that)\s+out\b", re.I
        ),
        r"checkout \1",
    ),
    (
        re.compile(
            r"\bcheck\s+out\s+(?=(?:the\s+|a\s+|another\s+|(?:her|his|their|my|our|your)\s+|\w+['’]s\s+)?"
            r"(?:new\s+|different\s+|other\s+)?branch\b|[\w.-]*[-_\d][\w-]*\W*$)",
            re.I,
        ),
        "checkout ",
    ),
    (re.compile(r"^(\W*(?:[^:\s]{1,80}:\s*)?)new\b(?=[^?]*$)", re.I), r"\1add new"),
    # "relation: Carol mentors Bob", "memory: Carol 'reports to' Alice": what to add, and where
    (
        re.compile(
            r"^(\W*)(?=(?:relation|relationship|observation|note|memory|entity|link)s?\s*:)", re.I
        ),
        r"\1add ",
    ),
    (re.compile(r"(^|[:,;]\s*)\+\s*(?=[\"'“‘])"), r"\1add "),  # "Bob: + 'speaks Japanese'"
    # "I'd like a new branch named ...", or "a new branch named ..." once "I'd like" is left
    # out (`searchable`): a thing wanted new is one to create.
    (
        re.compile(
            r"\b(?:i['’]?d\s+like|i\s+would\s+like|i\s+want|i\s+need)\s+(?=an?\s+new\b)", re.I
        ),
        "create ",
    ),
    (re.compile(r"^(\W*)(?=an?\s+new\b[^?]*$)", re.I), r"\1create "),
)


def _one_word_verbs(text: str) -> str:
    for phrase, verb in _ONE_WORD:
        text = phrase.sub(verb, text)
    return text


def _verbs_said(text: str) -> set[str]:
    """The words of `text` that may ask for an action: not after a determiner, not past nor
    going on ("I'm putting together a guide" asks for nothing put)."""
    # (a quoted name is no word of the sentence: "drop the 'works at' link" links nothing)
    lowered = blank_quoted(_one_word_verbs(text)).lower()
    words = re.findall(r"[a-z]+", lowered)
    # nor right after a participle: "show me the uncommitted changes" edits nothing ("order 7
    # was cancelled, delete it" deletes)
    described = set(re.findall(r"\b[a-z]{3,}ed[ \t]+([a-z]+)", lowered))
    said = {
        w
        for before, w in zip(["", *words], words, strict=False)
        if before not in _DETERMINERS and not w.endswith(("ed", "ing")) and w not in described
    }
    # "make it "B" instead of "A"", "add "x" as a new last line of a.txt": an edit, whatever
    # the verb
    said |= {"insert"} if gives_a_row(text) else set()
    said |= {"add"} if notes_given(text) else set()
    said |= {"edit"} if field_set(text) else set()
    said |= {"update"} if _SET_BY_ARROW.search(text) else set()  # "bob's city → Leeds"
    return said | ({"edit"} if _edit_given(text) or edits_a_line(text) else set())


def field_set(clause: str) -> tuple[str, str] | None:
    """The labelled line of a file a terse request sets, and its new value: "/a/alpha.txt
    deadline -> 2024-12-06" (the file's "Deadline: ..." line); not a blank or what is asked of
    the file ("-> ?", "revenue -> total")."""
    found = _FIELD_SET.match(clause)
    if found is None or found["value"].lower() in _NO_VALUES:
        return None
    return found["field"], found["value"]


_FIELD_SET = re.compile(
    rf"^\W*[~/]\S*\.\w{{1,5}}\s+(?P<field>[A-Za-z][\w -]{{0,30}}?)\s*{ARROW}\s*"
    r"(?P<value>[^\s/{}|=?][^/{}|=?]*?)\s*[.!]?$"
)
_NO_VALUES = {"total", "sum", "count", "average", "mean", "max", "min", "list", "me", "it"}
# What a request that only asks opens with after its colon: "Release notes: what changed".
_ASKING_NEXT = re.compile(rf"\s*(?:{OPENERS}|summari[sz]e|focus|all|any)\b", re.I)


def notes_given(clause: str) -> bool:
    """Whether the clause gives notes to keep by the noun alone: "Acme Corp obs: CEO is Wile E.
    Coyote", "memory notes → Bob: 'has a dog'"; not a question ("Bob's notes: any?"), nor notes
    a verb is about ("Summarize the meeting notes: ..."), nor a request after them ("Release
    notes: what changed in v2")."""
    found = _NOTES.match(clause)
    if found is None or clause.rstrip().endswith("?"):
        return False
    return not (_OPENS.match(found["before"]) or _ASKING_NEXT.match(found["after"]))


_NOTES = re.compile(
    rf"^\W*(?P<before>[\w'’ ]{{0,40}}?)\b(?:obs|observations?|notes?)\s*(?::|{ARROW})\s*"
    r"(?P<after>\S.*)$",
    re.I,
)


def gives_a_row(clause: str) -> bool:
    """Whether the clause gives a record for someone, to be added, without a verb: "feedback
    from Emma Schultz: 3 stars, 'Fine.'" (what it is, whose, then its values, one of them a
    text in quotes); not a request after the colon ("Tasks for today: list the ones marked
    'urgent'") nor a question."""
    found = _ROW_GIVEN.match(clause)
    return found is not None and not _ASKING_NEXT.match(found["after"])


_ROW_GIVEN = re.compile(
    r"^\W*(?:a\s+)?(?:new\s+)?[a-z]+\s+(?:for|from|by)\s+[^:?]{1,60}:(?P<after>[^?]*"
    r"(?:^|(?<=[\s(:,]))(?:'[^']+'|\"[^\"]+\"|“[^”]+”|‘[^’]+’)[^?]*)$",
    re.I,
)


def edits_a_line(clause: str) -> bool:
    """Whether the clause changes a line of a file it keeps: adds one after its last (`appends`)
    or ticks one off ("tick off 'call the bank'", "mark 'call the bank' as done")."""
    return appends(clause) or ticks(clause)


def ticks(clause: str) -> bool:
    """Whether the clause ticks an item of a list off (its box "[ ]" becomes "[x]") or opens
    it again (`unticks`)."""
    # "tick it off" asks, "did I check it off?" does not
    pointed = _TICKS_IT.search(clause) is not None and not clause.rstrip().endswith("?")
    return _TICKS.search(clause) is not None or pointed or unticks(clause)


def unticks(clause: str) -> bool:
    """Whether the clause opens a ticked item again: "untick it", "mark ... as not done"."""
    return _UNTICKS.search(clause) is not None


_DONE = r"(?:done|complete|completed|finished)\b"
_TICKS = re.compile(
    r"\b(?:tick|check|cross)\s+(?:[\"'“‘][^\"'”’]+[\"'”’]\s+)?off\b"
    rf"|\bmark\b[^?!]{{0,120}}?\b(?:as\s+)?(?<!not\s){_DONE}",
    re.IGNORECASE,
)
_TICKS_IT = re.compile(r"\b(?:tick|check|cross)\s+(?:it|that|this|them)\s+off\b", re.I)
_UNTICKS = re.compile(
    rf"\b(?:untick|uncheck)\b|\bmark\b[^?!]{{0,120}}?\b(?:as\s+)?(?:not\s+(?:yet\s+)?{_DONE}"
    r"|undone\b|open\b|incomplete\b|unfinished\b)",
    re.IGNORECASE,
)


def appends(clause: str) -> bool:
    """Whether the clause adds a line to a file it keeps: "append ...", "... as a new last
    line", "at the bottom of my notes"."""
    return _APPENDS.search(clause) is not None


_APPENDS = re.compile(
    r"\bappend\b|\bas\s+a\s+new\s+(?:last\s+)?(?:line|item|entry)\b"
    r"|\b(?:at|to)\s+(?:the\s+)?(?:very\s+)?(?:end|bottom)\s+of\b"
    # "add an item to my /a/todo.md": to a file that is there ("a new file" is made whole)
    r"|\badd\b(?![^.?!]*\bnew\s+file\b)[^.?!]{0,80}?\bto\s+(?:(?:my|the|our)\s+)?(?:file\s+)?[/~]",
    re.IGNORECASE,
)


_ASKED_VERBS = {verb for verbs in _ACTIONS.values() for verb in verbs}
# "In todo.md, change ...", "in my list /srv/todo.md swap ...": where, then what to do.
_PLACE_FIRST = re.compile(
    r"^\s*(?:in|on|inside|within|for|from)\s(?:[^,]{1,200},|[^,/~]{0,100}[/~]\S*\s)\s*",
    re.IGNORECASE,
)


def request_start(text: str) -> int:
    """Where the request starts after a sentence telling why, joined to it by a colon
    (clauses.py: "I keep notes in my knowledge graph: check config.py ...", "I mixed people up:
    Bob never met Alice: could you delete ..."), else 0."""
    for told in _COLON.finditer(text):
        if _OPENS.match(text, told.end()) and len(re.findall(r"\w+", text[: told.start()])) >= 3:
            return told.end()
    return 0


# A colon a sentence telling why may end at, and a request that opens with its verb.
_COLON = re.compile(r":\s+")
_OPENS = re.compile(rf"\W*(?:please\s+)?(?:{OPENERS})\b", re.IGNORECASE)
_ABOUT_FIRST = re.compile(r"^[^:]{1,40}:\s*")
# "Carol works at Initech now, add that to the graph", "Bob Chen moved to Vancouver, update
# the users table" or "update his city": a fact, then what to do with it.
_FACT_FIRST = re.compile(
    r"^[^,;?]{3,200}(?:,|\s[-–—])\s*(?:so\s+|and\s+)?(?:(?:could|can|would|will)\s+you\s+)?"
    r"(?=(?:please\s+)?[a-z]+\s+"
    r"(?:that|it|this|him|her|them|(?:his|her|their|its)\s+\w+|the\s+\w+\s+table)\b)",
    re.I,
)

# The words a request uses for what a tool that only reads does, by the verb in its name.
_READS = {
    "read": {"read", "show", "print", "cat", "open", "view", "display"},
    "list": {"list", "ls"},
    "show": {"show", "print", "display", "view"},
    "search": {"search", "find", "look", "grep", "locate"},
    "fetch": {"fetch", "download"},
    "describe": {"describe", "schema", "structure", "columns"},
}


def names_what_it_does(tool: ToolSpec, clause: Clause) -> tuple[float, float]:
    """The shares of the words of the tool's name (its server's name left out) that the clause
    says, its verbs and its other words apart, a verb itself or by a word a request uses for it:
    "show the unstaged diff" says all of `git_diff_unstaged`, half of `git_diff_staged`; "ls
    <folder>" half of `list_directory` (its verb). The clause's own values (paths, URLs, quoted
    text) are not its words: "files/todo.md" does not ask for `search_files`."""
    words = [w for w in readable_name(tool.name).split() if w not in tool.server.lower().split()]
    if not words:
        return 0.0, 0.0
    text = _NEGATED.sub(r"un\1", without_values(clause))
    asked, stems = _verbs_said(text), {stem(w) for w in re.findall(r"[a-z]+", text.lower())}
    said = [w for w in words if _says(w, asked, stems)]
    verbs = sum(w in _ACTIONS or w in _READS for w in said)
    if not verbs and any(w in _ACTIONS or w in _READS for w in words):
        # its verb unsaid, its nouns are where: "the orders table" describes none; a word a
        # request uses for one of them still asks for it ("which file is the biggest?")
        named = [w for w in said if stems & {stem(x) for x in _NOUNS.get(w, ())}]
        return 0.0, len(named) / len(words)
    if words in (["read"], ["show"]):  # "show the diff": a name of a reading verb alone says
        return verbs / 2, 0.0  # less of what it reads than git_diff's "diff"
    return verbs / len(words), (len(said) - verbs) / len(words)


def says_what_it_gives(tool: ToolSpec, clause: Clause) -> bool:
    """Whether the clause asks for what the tool's output schema says it returns beyond what it
    is given: "weather in Chicago?" and server-everything's get-structured-content
    ("conditions": "Weather conditions description", given a city); a word any result may have
    ("value", "name"), one of its name (counted there) or of its inputs (a booking that echoes
    its date) says nothing."""
    given = {stem(word) for word in readable_name(tool.name).split()} | _schema_words(
        tool.input_schema
    )
    said = {stem(word) for word in re.findall(r"[a-z]+", _in_words(clause).lower())}
    return not (_schema_words(tool.output_schema or {}) - given).isdisjoint(said)


def _schema_words(schema: dict[str, Any]) -> set[str]:
    """The stems of the names and descriptions of a schema's properties."""
    return {
        stem(word)
        for name, prop in (schema.get("properties") or {}).items()
        if isinstance(prop, dict)
        for word in [
            *readable_name(name).split(),
            *re.findall(r"[a-z]+", str(prop.get("description", "")).lower()),
        ]
        if len(word) > 3 and word not in _ANY_RESULT
    }


_ANY_RESULT = {"description", "value", "values", "number", "string", "list", "data", "result"}
_ANY_RESULT |= {"results", "text", "name", "type", "percentage", "count", "status", "item", "items"}


def makes_the_named_thing(tool: ToolSpec, clause: Clause) -> bool:
    """Whether a verb of the clause has a noun of the tool's name for its object: "add a
    relation for that" (`create_relations`); not "add her as a person, with an observation"."""
    nouns = {stem(w) for w in readable_name(tool.name).split()} - {stem(w) for w in _ACTIONS}
    text = without_values(clause).lower()
    found = _OBJECT.finditer(text)
    return any(stem(said["noun"]) in nouns and said["verb"] in _MAKING for said in found)


_MAKING = set().union(*_ACTIONS.values())
_OBJECT = re.compile(
    r"\b(?P<verb>[a-z]+)\s+(?:(?:a|an|the|one|new|another|some|this|that)\s+){0,2}(?P<noun>[a-z]+)"
)


def names_the_other_thing(tool: ToolSpec, other: ToolSpec, clause: Clause) -> bool:
    """Whether the clause names the thing of the other tool's name and not this one's: "remove
    the observation that she likes hiking" is `delete_observations`'s, not `delete_entities`'s
    (Alice herself)."""
    return names_what_it_does(other, clause)[1] > 0 and not names_what_it_does(tool, clause)[1]


# "what isn't staged yet", "what I haven't staged" say "unstaged" (git_diff_unstaged).
_NEGATED = re.compile(
    r"\b(?:not|never|\w+n['’]t|(?:is|are|was|were|have|has|had|do|did)nt)\s+(?:yet\s+|been\s+)?"
    r"(\w+ed)\b",
    re.IGNORECASE,
)


# Other words of a tool's name by the word a request uses for them: "the git history" (git_log),
# "anything uncommitted", "which files git isn't tracking" (git_status), "the biggest file"
# (list_directory_with_sizes).
_NOUNS = {
    "log": {"history"},
    "logs": {"history"},
    "status": {"uncommitted", "modified", "untracked", "tracked", "tracking"},
    "unstaged": {"uncommitted"},  # "show me the uncommitted changes to app.py"
    "staged": {"cached"},
    "sizes": {"biggest", "largest", "smallest", "size", "space"},  # "takes up the most space"
}


def _says(word: str, asked: set[str], stems: set[str]) -> bool:
    """A verb is said as written ("commit", not "the committed version"), by itself or by a
    word a request uses for it ("save" for "write"); another word by its stem ("files") or the
    stem of a word for it."""
    verbs = _ACTIONS.get(word, set()) | _READS.get(word, set())
    if verbs:
        return bool(asked & (verbs | {word}))
    return not stems.isdisjoint({stem(w) for w in {word, *_NOUNS.get(word, ())}})


def without_values(clause: Clause) -> str:
    """The clause's text with its paths, URLs and quoted text blanked: they are not its words."""
    values = clause.values
    return blank_spans(clause.text, [*values.locators, *values.quoted] if values else [])


# A tool that tells about a thing, not what it holds ("Retrieve detailed metadata about a file or
# directory", "Get the schema information for a specific table"): "what was the revenue in
# report.txt?" and "Alice's email in the users table" ask for none of it.
# (not "Returns structured content along with an output schema": a schema of its own result)
_METADATA = re.compile(r"\b(?:metadata|(?<!output\s)schema)\b", re.IGNORECASE)
_ASKS_METADATA = re.compile(
    r"\b(?:metadata|size|sizes|bytes|how (?:big|large|old)|modified|created|creation|permissions?|"
    r"owner|info|information|stat|last (?:changed|edited|updated)|modification|"
    # "when was a.txt last touched", not "when was the final proposal sent"
    r"when\s+was\s+(?:\S+\s+){0,4}?(?:made|written|saved|touched|changed|edited|updated)|"
    r"schema|columns|structure|fields|describe)\b",
    re.IGNORECASE,
)


def metadata_asked(tool: ToolSpec, clause: Clause) -> int:
    """For a tool that gives a thing's metadata, 1 when the clause asks for some ("how big is
    a.csv?") and -1 when it does not; 0 for any other tool."""
    if not _METADATA.search(" ".join(sentences(tool.description)[:1])):
        return 0
    asked = _ASKS_METADATA.search(_asked(_in_words(clause)))
    # an owner of a file it gives or points at: "tell me who the owner is" is of a project
    of_a_file = bool(clause.values and clause.values.locators) or _POINTS_AT_A_FILE.search(
        clause.text
    )
    return 1 if asked and (of_a_file or asked.group().lower() != "owner") else -1


_POINTS_AT_A_FILE = re.compile(
    r"\b(?:it|its|that|this|the)\s+(?:file|folder|directory|document|log)\b|\b(?:is|was)\s+it\b"
    r"|\bit(?:'s|’s|\s+is)\b",
    re.IGNORECASE,
)


def _in_words(clause: Clause) -> str:
    """The clause's own words: no values, nor a word in capitals, which a log or a file says
    ("how many INFO lines": a level, no info asked for)."""
    return re.sub(r"\b[A-Z]{2,}\b", lambda m: " " * len(m.group()), without_values(clause))


def _asked(text: str) -> str:
    """The sentences of a text that ask (a question, or a request by its opener), when others
    only tell: "A friend asked me how big the oven is. Could you check <url> and tell me ..."
    (or "...: could you check") asks nothing of how big a thing is."""
    said = sentences(text[request_start(text) :])
    asking = [s for s in said if s.rstrip().endswith("?") or _OPENS.match(s)]
    return " ".join(asking) if asking else text


def states_first(clause: str) -> bool:
    """Whether the clause states a fact and then asks to do something with "that"."""
    return _FACT_FIRST.match(searchable(clause)) is not None


def asks_to_change(clause: str, *, by_verb: bool = False) -> bool:
    """Whether the clause opens with a verb that asks for a change ("write", "add", "delete"),
    after a leading place ("In todo.md, change ...") or fact ("Bob got over his peanut allergy,
    take that out of memory"), or (unless `by_verb`) gives a text and what it becomes ("...
    make it "B" instead of "A"")."""
    # "in /srv/repo, could you add app.py": the place, then the request as it is asked
    placed = searchable(_PLACE_FIRST.sub("", searchable(clause[request_start(clause) :])))
    # "add her to memory as a person, with her email": no fact first, a request; "Bob: +
    # 'speaks Japanese'": what it is about, then the request
    about = "" if placed.rstrip().endswith("?") else _ABOUT_FIRST.sub("", placed)
    said = (placed, _FACT_FIRST.sub("", placed), about)
    opens = any(_opens_a_change(text) for text in said)
    set_by_arrow = _SET_BY_ARROW.search(clause) is not None
    given = not by_verb and (_edit_given(clause) or ticks(clause) or set_by_arrow)
    given = given or (
        not by_verb and (gives_a_row(clause) or notes_given(clause) or bool(field_set(clause)))
    )
    return (opens or given) and not _TO_A_RESULT.search(clause) and not computes_numbers(clause)


def computes_numbers(clause: str) -> bool:
    """Whether the clause asks for arithmetic on numbers it writes ("add 318 and 47.6", "318 +
    47.6 via the adder", "multiply 6 by 7"): a computation, no change, unless it says where the
    result goes ("add 2 and 3 to the list in a.txt")."""
    return _ARITHMETIC.search(clause) is not None


_NUM = r"-?\d[\d,]*(?:\.\d+)?"
_ARITHMETIC = re.compile(
    r"(?:^\W*|\byou\s+|\bplease\s+|[:;,]\s+)(?:add|sum|subtract|multiply|divide|total)(?:\s+up)?\s+"
    rf"(?:the\s+numbers\s+)?{_NUM}\s+(?:and|plus|to|from|by|with|times)\s+{_NUM}\b"
    r"(?!\s+(?:to|into|in|onto)\s)"
    rf"|{_NUM}\s*[+*×/]\s*{_NUM}|{_NUM}\s+(?:-|plus|minus|times)\s+{_NUM}",
    re.IGNORECASE,
)


# "dmitri volkov's email → dmitri.volkov@example.net": someone's field, then what it becomes
# ("emma's email is now e@x.org → users": what it is now, and where it is kept)
_SET_BY_ARROW = re.compile(
    rf"^[^>→]*\w['’]s\s+[a-z]+(?:\s*|(?:\s+address)?\s+is\s+now\s+\S+\s*){ARROW}\s*[^\s/]+\W*$",
    re.I,
)


def _opens_a_change(text: str) -> bool:
    # (a quoted name is no word of the sentence: "drop the 'works at' link" links nothing)
    words = re.findall(r"[a-z]+", blank_quoted(_one_word_verbs(text)).lower())
    words = words[1:] if words[:1] == ["please"] else words
    # "commit msg that added the loader?": a question of a noun, the verb's word its first
    named = text.rstrip().endswith("?") and words[1:2] != [] and words[1] in _NAMED_BY_VERB
    return bool(words) and words[0] in _ASKED_VERBS and not named


# Nouns a verb's word makes one with ("commit message", "change log", "update history").
_NAMED_BY_VERB = {"msg", "message", "messages", "hash", "history", "log", "logs", "author"}
_NAMED_BY_VERB |= {"date", "time", "count", "id", "ids", "info", "details"}


def _edit_given(text: str) -> bool:
    """A text and what it becomes ("make it "B" instead of "A"") asks for an edit, whatever the
    verb."""
    return bool(replacements(text))


# "read report.txt and do what it says": instructions found in a file, page or result. Tool
# output is data; following it would let whoever wrote the file act with the user's rights.
_DEFERS = re.compile(
    r"(?:^|,?\s+(?:and|then)\s+|,\s*)(?:then\s+)?(?:please\s+)?"
    r"(?:do|follow|carry out|execute|obey|run|perform)\s+"
    r"(?:what(?:ever)?\s+(?:it|they|the \w+)\s+(?:says?|tells? (?:you|me)|asks?)"
    r"|(?:its|their|the|any|those|these)\s+(?:instructions?|commands?|steps?|directions?)"
    r"(?:\s+(?:in|on|from)\s+(?:it|there|the \w+))?"
    r"|as\s+(?:it|they)\s+says?)\s*[.!]?\s*$",
    re.IGNORECASE,
)


def split_deferral(clause: str) -> tuple[str, str]:
    """The clause without a closing "and do what it says", and that part ("" if none)."""
    match = _DEFERS.search(clause)
    if match is None:
        return clause, ""
    deferral = re.sub(r"^(?:and|then)\s+", "", match.group().strip(" ,"))
    return clause[: match.start()].strip(), deferral


# "The price list is at http://...", "See /srv/report.txt": a clause that only says where the
# answer to another one is.
_POINTER = re.compile(
    r"^(?:please\s+)?(?:see|check|look (?:at|in)|use|it'?s|(?:it|they|this|that) (?:is|are)"
    r"|(?:the|my|our) [\w ]{1,30}? (?:is|are))\b(?: (?:in|at|on|under))?\W*$",
    re.IGNORECASE,
)


def points_at(clause: Clause) -> bool:
    """Whether the clause only points at a file or page (its locator) for another clause."""
    values = clause.values
    if values is None or not values.locators:
        return False
    rest = clause.text
    for locator in sorted(values.locators, key=lambda x: x.start, reverse=True):
        rest = rest[: locator.start] + rest[locator.end :]
    return _POINTER.match(rest.strip(" .!\"'")) is not None


def negation_agrees(tool: ToolSpec, clause: str) -> int:
    """Whether the tool's description denies what the clause denies: +1 for "changes that are
    not yet staged" and "what haven't I staged", -1 for "changes that are staged" and the same
    clause, 0 when the clause denies nothing the description says."""
    denied = _undone(clause)
    if not denied:
        return 0
    described = _NEGATED.sub(r"un\1", tool.description.lower())
    if denied & _undone(described):
        return 1
    said = {stem(w) for w in re.findall(r"[a-z]{4,}", _UNDONE.sub(" ", described))}
    return -1 if denied & said else 0


def _undone(text: str) -> set[str]:
    """The stems of the states the text denies or undoes ("not staged", "unstage": stage)."""
    return {stem(m[1]) for m in _UNDONE.finditer(_NEGATED.sub(r"un\1", text.lower()))}


_UNDONE = re.compile(r"\bun([a-z]{4,})")
