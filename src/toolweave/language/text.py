"""Text into words and sentences: the one sentence splitter, and identifiers made readable.

A full stop ends a sentence unless it ends an initial ("David J. Smith", "C. S. Forester"),
a known abbreviation ("Dr.", "e.g.", "D.C.") or a number ("3.5"), so cited sentences are never
cut at a name.
"""

from __future__ import annotations

import re

# Abbreviations after which a full stop does not end the sentence (lower case, without dots).
ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "mt", "ft", "vs", "etc", "eg", "ie",
    "no", "inc", "ltd", "co", "corp", "dept", "univ", "gen", "col", "lt", "sgt", "rev", "gov",
    "sen", "rep", "approx", "fig", "vol", "ed", "al", "cf", "op",
}  # fmt: skip
# A candidate break: sentence punctuation and the space after it.
_BREAK = re.compile(r"(?<=[.!?。])\s+")
# The last word before a full stop: "J." "D.C." "e.g." "Dr."
_LAST_WORD = re.compile(r"(?:^|\s|\()([\w.]+)\.$")


def sentences(text: str, *, lines: bool = True, min_chars: int = 3) -> list[str]:
    """The sentences of `text`, whitespace collapsed. With `lines` every line break also ends a
    sentence (tool descriptions, lists); without, only a blank line or a bullet does (prose)."""
    blocks = re.split(r"\n+" if lines else r"\n\s*\n|\n(?=\s*[-*]\s)", text.strip())
    found = []
    for block in blocks:
        for sentence in _split(" ".join(block.split())):
            if len(sentence) >= min_chars:
                found.append(sentence)
    return found


def _split(block: str) -> list[str]:
    pieces, start = [], 0
    for match in _BREAK.finditer(block):
        before = block[start : match.start()]
        if before.endswith(".") and _keeps_going(before):
            continue
        pieces.append(before)
        start = match.end()
    return [*pieces, block[start:]]


def _keeps_going(before: str) -> bool:
    """Whether the full stop ending `before` is an initial's or an abbreviation's: a longer
    sentence is better than a name cut in two."""
    word = _LAST_WORD.search(before)
    if word is None:
        return False
    token = word.group(1)
    initial = len(token) == 1 and token.isupper()  # "J."
    dotted = "." in token and all(len(part) <= 2 for part in token.split("."))  # "D.C", "e.g"
    return initial or dotted or token.lower() in ABBREVIATIONS


def readable_name(name: str) -> str:
    """'getWeatherForecast' / 'get_weather-forecast' -> 'get weather forecast';
    'PDF&URLTool' -> 'pdf url tool'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-./&:]+", " ", name)
    return re.sub(r"\s+", " ", spaced).strip().lower()
