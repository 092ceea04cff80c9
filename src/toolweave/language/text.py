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
    "sen", "rep", "approx", "fig", "vol", "ed", "al", "cf", "op", "incl", "excl",
}  # fmt: skip
# Words that open a new request: question words, auxiliaries and imperative verbs.
OPENERS = (
    "what|whats|what's|how|who|whom|whose|when|where|which|why|is|are|was|were|do|does|did|can|"
    "could|will|would|should|tell|show|give|find|get|list|convert|calculate|compute|search|"
    "look|check|read|summari[sz]e|compare|explain|also|then|please|book|reserve|buy|order|"
    "send|create|add|schedule|cancel|update|delete|translate|analy[sz]e|fetch|retrieve|"
    "generate|recommend|suggest|estimate|predict|track|play|post|download|save|write|store|"
    "copy|move|rename|remember|append|commit|stage|insert|remove|echo|open|put|switch|checkout|"
    "unstage|count|remind|encrypt|decrypt|encode|decode|validate|verify|execute"
)
# An arrow a terse request writes for "becomes" or "goes to": "hosting 240 -> 300".
ARROW = r"(?:->|→|=>)"
# "orders += Dmitri Volkov / USB hub / 19.90", "memory ← new person Hana, ...": what to add to
# the place before the sign, said as "add to orders: ..."
ADDED_TO = re.compile(r"^(\W*)([\w./~-]+)\s*(?:\+=|←|<-)\s*")
ADD_TO = r"\1add to \2: "
# A word that opens a sentence, so a lone capital before it ends one ("in Farm A. Secondly").
_OPENS_SENTENCE = re.compile(
    rf"(?:{OPENERS}|first(?:ly)?|second(?:ly)?|third(?:ly)?|next|finally|lastly|after|"
    r"afterwards|additionally|however|moreover|i|it|we|you|they|he|she|this|that|the|there)\b",
    re.IGNORECASE,
)
# A candidate break: sentence punctuation and the space after it.
_BREAK = re.compile(r"(?<=[.!?。])\s+")
# The last word before a full stop: "J." "D.C." "e.g." "Dr."
_LAST_WORD = re.compile(r"(?:^|\s|\()([\w.]+)\.$")
_INITIAL = re.compile(r"[A-Z]\.(?:\s|$)")


def sentences(text: str, *, lines: bool = True, min_chars: int = 3) -> list[str]:
    """The sentences of `text`, whitespace collapsed. With `lines` every line break also ends a
    sentence (tool descriptions, lists); without, only a blank line or a bullet does (prose).
    Tool documents are built from these: a change here needs catalog.documents.DOC_VERSION
    raised, so indexes rebuild them."""
    blocks = re.split(r"\n+" if lines else r"\n\s*\n|\n(?=\s*[-*]\s)", text.strip())
    found = []
    for block in blocks:
        for sentence in _split(" ".join(block.split())):
            if len(sentence) >= min_chars:
                found.append(sentence)
    return found


def split_sentences(text: str) -> list[str]:
    """A document's sentences of three words or more, markdown headings and bullets unmarked,
    without a wiki's note marks ("quality.[citation needed] The", "2015[update]", "[3]": they
    would read as the answer's own citations)."""
    text = re.sub(r"^#+\s*", "", text, flags=re.MULTILINE)
    text = _NOTE_MARK.sub("", text)
    parts = (p.lstrip("-* ") for p in sentences(text, lines=False))
    return [p for p in parts if len(p.split()) >= 3]


_NOTE_MARK = re.compile(r"\[(?:citation needed|update|\d{1,3})\]")
_ASIDE = re.compile(r"\s*\([^()]*\)")


def without_asides(sentence: str, keep: str = "", *, numbers: bool = False) -> str:
    """The sentence without its parentheses ("Jeff Porcaro (April 1, 1954 – August 5, 1992)
    was a drummer"), except one that holds `keep`, or any number when `numbers`."""

    def kept_or_not(match: re.Match[str]) -> str:
        aside = match.group(0)
        held = (keep and keep in aside) or (numbers and re.search(r"\d", aside))
        return aside if held else ""

    kept = _ASIDE.sub(kept_or_not, sentence)
    return " ".join(kept.split()) or sentence


def _split(block: str) -> list[str]:
    pieces, start = [], 0
    for match in _BREAK.finditer(block):
        before = block[start : match.start()]
        if before.endswith(".") and _keeps_going(before, block[match.end() :]):
            continue
        if re.search(rf"(?:=|{ARROW})\s*\?$", before):  # "08:00 dubai = ? singapore": a blank
            continue
        pieces.append(before)
        start = match.end()
    return [*pieces, block[start:]]


def _keeps_going(before: str, after: str) -> bool:
    """Whether the full stop ending `before` is an initial's or an abbreviation's: a longer
    sentence is better than a name cut in two. A lone capital is an initial inside a name
    ("David J. Smith", "C. S. Forester"), not a grade or a label ending a sentence ("of C.",
    "in Farm A. Secondly")."""
    word = _LAST_WORD.search(before)
    if word is None:
        return False
    token = word.group(1)
    if len(token) == 1 and token.isupper():
        previous = before[: word.start(1)].split()[-1:] or [""]
        named = previous[0][:1].isupper() or _INITIAL.match(after) is not None
        return named and _OPENS_SENTENCE.match(after) is None
    # "D.C", "e.g", "p.m" (letters only: "15.9." and "4.2.3." end sentences); "6 p.m. Then"
    # ends one, "D.C. Soccer" does not.
    dotted = "." in token and all(p.isalpha() and len(p) <= 2 for p in token.split("."))
    if dotted and token.lower() in ("i.e", "e.g"):
        return True  # "..., i.e. the version at HEAD~3": what follows says it again
    if dotted:
        return _OPENS_SENTENCE.match(after) is None
    if token.lower() in _ENDS_NAMES:  # "who runs Acme Corp. Could you ..." ends one
        return not (after[:1].isupper() and _OPENS_SENTENCE.match(after))
    return token.lower() in ABBREVIATIONS


# Abbreviations that end a company's name or a list, and so often a sentence.
_ENDS_NAMES = {"inc", "ltd", "co", "corp", "etc"}


# Control characters other than tab and line breaks: no question needs them, terminals act on them.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def valid_text(text: str) -> str:
    """Text every later stage can encode, store and print: bytes that were not UTF-8 (Python
    reads them from the command line as lone surrogates) become U+FFFD, control characters go."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte
        raw = text.encode("utf-8", "replace")
    return _CONTROL.sub("", raw.decode("utf-8", "replace"))


def readable_name(name: str) -> str:
    """'getWeatherForecast' / 'get_weather-forecast' -> 'get weather forecast';
    'PDF&URLTool' -> 'pdf url tool'."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|[_\-./&:]+", " ", name)
    return re.sub(r"\s+", " ", spaced).strip().lower()
