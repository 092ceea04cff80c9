"""Where a value an LLM proposed stands in the text it was asked about.

A small model asked for "the text to write" in `write hello world to a.txt` answers
"Hello, World!". The value the user wrote is "hello world": `snap` finds the words of the
proposal in the text (case and punctuation aside, or nearly the same words) and returns them as
written, with their span. A proposal with no such span was generated, not copied.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

from toolweave.language.text import OPENERS
from toolweave.types import Span

_WORD = re.compile(r"\w+")
SIMILAR = 0.85  # how alike the words of a proposal and a span must be (difflib ratio)
HIDDEN = "\x00"  # marks text a proposal may not stand for (values.blank_spans(..., HIDDEN))


def snap(value: str, text: str) -> tuple[str, Span] | None:
    """The span of `text` that `value` stands for, as written there, or None."""
    if not value.strip():
        return None
    if (at := text.find(value)) >= 0:
        return value, Span(start=at, end=at + len(value))
    words = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text)]
    if HIDDEN in text:  # no span reaches across a part of the text that is not the user's words
        return _snap_in_parts(value, text)
    wanted = [w.lower() for w in _WORD.findall(value)]
    if not wanted or not words:
        return None
    target = " ".join(wanted)
    best: tuple[float, int, int] = (0.0, 0, 0)
    for size in {max(1, len(wanted) - 1), len(wanted), len(wanted) + 1}:
        for first in range(len(words) - size + 1):
            window = words[first : first + size]
            ratio = SequenceMatcher(None, " ".join(w for w, _, _ in window), target).ratio()
            if ratio > best[0]:
                best = (ratio, window[0][1], window[-1][2])
    ratio, start, end = best
    if ratio < SIMILAR:
        return None
    return text[start:end], Span(start=start, end=end)


def _snap_in_parts(value: str, text: str) -> tuple[str, Span] | None:
    """`snap` within each part of the text between hidden stretches."""
    start = 0
    for part in text.split(HIDDEN):
        if found := snap(value, part):
            span = found[1]
            return found[0], Span(start=start + span.start, end=start + span.end)
        start += len(part) + 1
    return None


# Words a phrase a value is copied from neither starts nor ends with ("the", "of", "in").
_EDGE_WORDS = set(
    """a an the of in on at to for from with by and or but as is are was were be that this these
    those it its me my i you your we our please can could would will what which who how when
    where there their than then into about between some any all""".split()
)
# Where a run of words ends: punctuation, a hidden part, a full stop that ends no abbreviation,
# the "and" or "or" of a list.
_TITLES = ("Mr", "Mrs", "Ms", "Dr", "St", "Jr", "Sr", "Inc", "Ltd", "Co")
_RUN_END = re.compile(
    rf"\s(?:and|or|&)\s|[{HIDDEN},;:!?()\[\]{{}}\"“”]|\.(?=\s|$)(?<!\.\w\.)"
    + "".join(rf"(?<!\b{title}\.)" for title in _TITLES)
)
_ABBREVIATION = re.compile(rf"\.\w\.$|^(?:{'|'.join(_TITLES)})\.$")
_OPENER = re.compile(rf"(?:{OPENERS})", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['’]s$")
MAX_PHRASE_WORDS = 6
MAX_PHRASES = 400  # a grammar over more alternatives costs more than a value is worth


def phrases(text: str) -> list[str]:
    """The phrases of `text` a value may be copied from, as written, each once: runs of up to
    six words within a stretch the user wrote (`HIDDEN` parts, punctuation and the "and" or
    "or" of a list end a run: of "Persian Empire and Mauryan Empire" each is a value) that
    neither start nor end with a small word ("Treaty of Lisbon", "Mr. X", "gluten-free",
    "Washington D.C."), a possessive's owner without its "'s"."""
    found: dict[str, None] = {}
    for run in _RUN_END.split(text):
        words = [_trimmed(w) for w in run.split()]
        for first, word in enumerate(words):
            # "The" before a capital starts a name ("The Weeknd", "The Hague"); "the" starts
            # none, nor does the verb a request opens with ("Find ...", "Calculate ...")
            named = (
                word.istitle() and words[first + 1 : first + 2] != [] and words[first + 1].istitle()
            )
            if not word or (word.lower() in _EDGE_WORDS and not named):
                continue
            if first == 0 and _OPENER.fullmatch(word):
                continue
            for last in range(first, min(first + MAX_PHRASE_WORDS, len(words))):
                end = words[last]
                if end and end.lower() not in _EDGE_WORDS and not _name_goes_on(words, last):
                    owner = _POSSESSIVE.sub("", end)  # "Albert Einstein's": Albert Einstein
                    found.setdefault(" ".join([*words[first:last], owner]), None)
    return list(found)[:MAX_PHRASES]


# Small words inside a name in capitals: "Treaty of Lisbon", "Bank of the West".
NAME_JOINERS = {"of", "the", "de", "la", "du", "von", "van", "del"}


def _name_goes_on(words: list[str], last: int) -> bool:
    """Whether the word at `last` is inside a name in capitals that goes on after it: "New"
    of "New York", "Treaty" of "Treaty of Lisbon" is no value of its own."""
    following = words[last + 1 : last + 3]
    if not words[last][:1].isupper() or not following:
        return False
    if following[0][:1].isupper():
        return True
    return len(following) == 2 and following[0] in NAME_JOINERS and following[1][:1].isupper()


def _trimmed(word: str) -> str:
    word = word.strip("'‘’`*")
    return word if _ABBREVIATION.search(word) or not word.endswith(".") else word.rstrip(".")


def ground(value: Any, text: str, path: str = "") -> tuple[Any, list[str]]:
    """`value` with each string snapped to the text's words, and the paths ("entities.0.name")
    of the strings and numbers in it that do not stand in the text."""
    if isinstance(value, str):
        found = snap(value, text)
        return (found[0], []) if found else (value, [path])
    if isinstance(value, bool) or value is None:
        return value, []
    if isinstance(value, (int, float)):
        written = {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}
        return value, [] if float(value) in written else [path]
    items = value.items() if isinstance(value, dict) else enumerate(value)
    grounded = {key: ground(item, text, f"{path}.{key}".lstrip(".")) for key, item in items}
    missing = [p for _, lost in grounded.values() for p in lost]
    if isinstance(value, dict):
        return {key: v for key, (v, _) in grounded.items()}, missing
    return [v for v, _ in grounded.values()], missing


# Words of a query language that say nothing about the user's data.
_SQL_WORDS = set(
    """select insert into values update set where delete from create table integer text real
    primary key not null and or autoincrement auto_increment varchar char int default drop alter
    add column order by limit group count sum avg min max as on join in is like unique references
    foreign if exists distinct having desc asc blob numeric boolean date""".split()
)
FORMULATED_SHARE = 0.5  # of its names and values a written statement must take from the request


def written_from(value: str, text: str) -> bool:
    """Whether a statement the model wrote (SQL) takes at least half of its names and values
    from the request: "UPDATE orders SET amount = 5.75 WHERE id = 4" from "set the amount of
    order 4 to 5.75" does; "CREATE TABLE users (id ..., name ..., email ...)" from "add a new
    user" does not."""
    said = {_stem(w) for w in _WORD.findall(text.lower())} | set(re.findall(r"\d+(?:\.\d+)?", text))
    quoted = re.findall(r"'((?:[^']|'')*)'", value)
    bare = re.sub(r"'(?:[^']|'')*'", " ", value)
    tokens = [_stem(w) for w in _WORD.findall(bare.lower()) if w.lower() not in _SQL_WORDS]
    found = [t in said for t in tokens] + [q.replace("''", "'") in text for q in quoted]
    return bool(found) and sum(found) / len(found) >= FORMULATED_SHARE


def _stem(word: str) -> str:
    return re.sub(r"(?<=\w{3})s$", "", word)


# Words a value written from what was read may add of its own: they say no fact ("ordered a
# Laptop stand and a USB-C cable": "a", "and").
_LINKING = _EDGE_WORDS | {"has", "have", "had", "not", "no", "per", "each", "also", "both"}


def composed_from(value: Any, texts: list[str]) -> bool:
    """Whether every fact a value the model wrote states stands in `texts` (the request and the
    results it points at): each number as written there, each other word by its stem (its
    linking words aside). "ordered Laptop stand, USB-C cable" from "what did Alice order?" and
    rows that hold both items is; "ordered a Laptop on 2 May" from rows without a date is not."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, (int, float)):
        return composed_from(str(value), texts)
    if isinstance(value, dict):
        return all(composed_from(v, texts) for v in value.values())
    if isinstance(value, list):
        return all(composed_from(v, texts) for v in value)
    said = " ".join(texts).lower()
    numbers = set(re.findall(r"\d+(?:\.\d+)?", said))
    stems = {_stem(w) for w in _WORD.findall(said)} | {_verb_stem(w) for w in _WORD.findall(said)}
    text = str(value).lower()
    facts = [w for w in _WORD.findall(re.sub(r"\d+(?:\.\d+)?", " ", text)) if w not in _LINKING]
    return all(n in numbers for n in re.findall(r"\d+(?:\.\d+)?", text)) and all(
        _stem(w) in stems or _verb_stem(w) in stems for w in facts
    )


def _verb_stem(word: str) -> str:
    """ "ordered", "orders" and "ordering" are "order"."""
    return re.sub(r"(?<=\w{3})(?:ed|ing|es|s)$", "", word)
