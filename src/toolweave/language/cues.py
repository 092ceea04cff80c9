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

from toolweave.language.text import readable_name

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
    """The text without a leading request wrapper; the text itself when nothing else is left."""
    stripped = _WRAPPER.sub("", text.strip(), count=1)
    return stripped if stripped.strip(" ?.!") else text


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


# "get a joke and send it": a pronoun that points at the previous result.
_BACK_REFERENCE = re.compile(r"\b(?:it|them|the result|that result|this)\b", re.IGNORECASE)


def refers_back(clause: str) -> bool:
    """Whether the clause points at an earlier result instead of naming its content."""
    return _BACK_REFERENCE.search(clause) is not None


# What a tool that changes something does, by the verb in its name, and the words a request for
# it uses: "how many entities are there" asks for no delete_entities.
_ACTIONS = {
    "write": {"write", "save", "store", "put", "overwrite"},
    "edit": {"edit", "change", "modify", "replace", "update", "fix"},
    "update": {"update", "change", "modify", "edit", "set"},
    "create": {"create", "make", "add", "new", "remember", "record", "save", "open", "start"},
    "add": {"add", "append", "create", "remember", "record", "insert", "stage", "attach"},
    "insert": {"insert", "add", "append", "put"},
    "delete": {"delete", "remove", "erase", "forget", "drop", "clear", "wipe"},
    "remove": {"remove", "delete", "erase", "forget", "drop", "clear"},
    "move": {"move", "rename", "mv", "relocate"},
    "rename": {"rename", "move"},
    "commit": {"commit"},
    "reset": {"reset", "unstage", "undo"},
    "checkout": {"checkout", "switch"},
    "send": {"send", "post", "email", "mail", "message", "notify"},
    "post": {"post", "send", "publish"},
}


def asks_for_action(tool_name: str, clause: str) -> bool | None:
    """Whether the clause asks for what the tool's name says it does; None when its name has
    no verb this table knows (nothing can be told from it)."""
    verbs = [word for word in readable_name(tool_name).split() if word in _ACTIONS]
    if not verbs:
        return None
    asked = set(re.findall(r"[a-z]+", clause.lower()))
    return any(any(w.startswith(s) for w in asked for s in _ACTIONS[v]) for v in verbs)
