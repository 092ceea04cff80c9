"""The English of answers: the spans of a sentence that may answer a question of a kind (dates,
years, numbers, names, quoted titles), the value a comparison goes by, and the few words that
say what a name is (a person's birth, an adjective of nationality). The reader
(grounding/reader.py) scores them.
"""

from __future__ import annotations

import itertools
import re

from toolweave.language.questions import PERSON_NOUNS, Expected

MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
_DATE = re.compile(
    rf"\b(?:{_MONTH}\s+\d{{1,2}},?\s+\d{{3,4}}|\d{{1,2}}\s+{_MONTH}\s+\d{{3,4}}|{_MONTH}\s+\d{{3,4}}"
    r"|(?<![\d,.])1\d{3}(?![\d,])|(?<![\d,.])20\d{2}(?![\d,]))"
)
_YEAR = re.compile(r"(?<![\d,.])(1\d{3}|20\d{2})(?![\d,])")
_NUMBER = re.compile(
    r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?(?:\s+(?:million|billion|thousand|hundred))?(?![\w])|\b(?:two|"
    r"three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred)\b",
    re.I,
)
# Capitalised words, joined by a few lower-case linking words ("Bank of Italy") or elided
# articles ("Ballon d'Or").
_NAME = re.compile(
    r"(?<![\w-])(?:[A-Z][\w'’.-]*|\d+(?:st|nd|rd|th))(?:\s+(?:of|the|de|da|del|von|van|for|"
    r"la|le|du|y)?\s*(?:[dl]['’])?[A-Z][\w'’.-]*)*"
)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
# Capitalised words that are not names on their own: sentence openers, pronouns, months.
_NOT_NAMES = frozenset(
    "the a an in on at he she it they his her its their this that these those there after "
    "before during when while as by for from with of and but or however although since".split()
)
# Words before a noun that say no sort of it: "is a film", "the other film".
_NOT_A_SORT = _NOT_NAMES | frozenset("a an is was are were other same first new own".split())
PLACE_HEADS = frozenset(
    "county city town state country province river lake island islands mountains mountain "
    "university college district borough village valley".split()
)
# The last words of what is not somebody: an organisation, an award, a title held.
_NOT_PERSON_HEADS = PLACE_HEADS | frozenset(
    "corporation company championship championships league cup kingdom states association "
    "party award awards prize church army navy band group team club festival series "
    "president chairman professor".split()
)
# What the first sentence about a person says: a birth, a life's dates, a person's noun.
_PERSON = re.compile(
    rf"\(born\b|\bborn\b|\(\d{{3,4}}\s*[–-]|\b(?:{'|'.join(sorted(PERSON_NOUNS))})\b|\b(?:he|she)\b"
)
# Nationality and other adjectives made of names: "American", "Slavic", "Japanese".
_ADJECTIVE = re.compile(r"(?:an|ish|ese|ic|i)$")


def spans(text: str, expected: Expected) -> list[str]:
    """The spans of `text` of the kind `expected` asks for, in order."""
    kind = expected.kind
    if kind == "year":
        return _YEAR.findall(text)
    if kind == "date":
        return _DATE.findall(text)
    if kind == "number":
        return [m.group(0) for m in _NUMBER.finditer(text)]
    names = [trim_name(m.group(0)) for m in _NAME.finditer(text)]
    names += [q.strip() for q in _QUOTED.findall(text)] if kind == "name" else []
    names += _sorts(text, expected.noun) if expected.sort else []
    return [
        n for n in names if n and n.lower() not in _NOT_NAMES and n.split()[0].lower() not in MONTHS
    ]


def _sorts(text: str, noun: str) -> list[str]:
    """Lower-case phrases naming a sort of `noun`: "a 2011 documentary film", "a water
    sprite"."""
    found = re.findall(rf"\b((?:[a-z][\w-]*\s+){{1,2}}){re.escape(noun)}s?\b", text)
    phrases = []
    for before in found:
        words = list(itertools.dropwhile(lambda w: w in _NOT_A_SORT, before.split()))
        if words:
            phrases.append(f"{' '.join(words)} {noun}")
    return phrases


def trim_name(name: str) -> str:
    """A name without a leading opener ("The", "In") or trailing link word and full stop."""
    words = name.rstrip(".,;:’'").split()
    while words and words[0].lower() in _NOT_NAMES and len(words) > 1:
        words = words[1:]
    while words and words[-1].lower() in ("of", "the", "and", "de", "for", "on"):
        words = words[:-1]
    return " ".join(words)


def is_year(span: str) -> bool:
    return _YEAR.fullmatch(span) is not None


def about_a_person(first_sentence: str) -> bool:
    """Whether a passage's first sentence is about somebody: "(born 1947)", "was an actress"."""
    return _PERSON.search(first_sentence) is not None


def unlike_a_person(span: str) -> bool:
    """A name that is not somebody's: "Chairman of Westfield Corporation", "20th President",
    "United Kingdom", "Langworthy Professor"."""
    words = span.split()
    head = words[-1].lower().rstrip("’'")
    ordinal = re.match(r"\d+(?:st|nd|rd|th)$", words[0]) is not None
    return ordinal or " of " in span or head in _NOT_PERSON_HEADS or head in PERSON_NOUNS


def used_as_adjective(span: str, sentence: str) -> bool:
    """A one-word name made an adjective: "American actor", "Slavic mythology"."""
    if len(span.split()) != 1 or not _ADJECTIVE.search(span):
        return False
    return re.search(rf"\b{re.escape(span)}\s+[a-z]", sentence) is not None


_ROLE = re.compile(
    r"\b(?:plays?|played|playing|voices?|voiced|portrays?|portrayed)\s+(?:the\s+)?(.+?)"
    r"(?:\s+(?:in|on|of|from|for)\s+|[?,]|$)",
    re.I,
)


def role_asked(question: str) -> str:
    """The character a question asks the actor of: "Scarlett" in "the actress who plays
    Scarlett in Gone With the Wind"; "" when it asks none."""
    match = _ROLE.search(question)
    return match.group(1).lower() if match else ""


def plays(span: str, sentence: str, role: str) -> bool:
    """Whether the sentence says the span (an actor) plays the role: "Amy Poehler as Leslie
    Knope", "Scarlett O'Hara, played by Vivien Leigh", "Kurt Russell voiced Copper"."""
    actor, part = re.escape(span.lower()), re.escape(role.split()[0])
    acts = r"(?:plays?|played|voices?|voiced|portrays?|portrayed|stars? as|starred as)"
    said = (
        rf"{actor}\W{{0,3}}(?:as|{acts})\s+(?:[\w'-]+\s+){{0,2}}{part}",
        rf"\b{part}[^.]{{0,60}}\b(?:played|voiced|portrayed) by\s+{actor}",
        rf"\b{part}[\w\s.'-]{{0,20}}\(\s*{actor}\s*\)",  # "Leslie Knope (Amy Poehler)"
    )
    text = sentence.lower()
    return any(re.search(pattern, text) for pattern in said)


def played(span: str, sentence: str) -> bool:
    """Whether the sentence gives the span as a part played: "playing Ann Perkins"."""
    acting = r"\b(?:as|playing|plays|played|voicing|voices|voiced|portraying|portrays)\s+"
    return re.search(acting + re.escape(span), sentence) is not None


def named_as(span: str, sentence: str) -> str:
    """The common noun a sentence names the span by, "album" in "the album Night Tide";
    "" when it names it by none."""
    at = sentence.find(span)
    match = re.search(r"\b(?:the|a|an|his|her|their|its)\s+([a-z]+)\s+$", sentence[:at])
    return match.group(1).removesuffix("s") if at > 0 and match else ""


def after_place_word(span: str, sentence: str) -> bool:
    """Whether the span follows "in", "at", "near" or "from", perhaps with a word between ("in
    midtown Manhattan"): a place, likely."""
    before = [w.lower() for w in sentence[: sentence.find(span)].split()[-2:]]
    places = ("in", "at", "near", "from")
    return bool(before) and (
        before[-1] in places or (len(before) == 2 and before[0] in places and before[1].islower())
    )


def life_event(span: str, sentence: str) -> str:
    """ "birth" or "death" when the sentence says the date is one: "born 3 July 1976",
    "(1913 – 1998)", "died 1980"; else ""."""
    at = sentence.find(span)
    before = sentence[max(0, at - 30) : at].lower()
    if re.search(r"\b(?:died|d\.)\s*(?:on|in)?\s*$|[–-]\s*$", before):
        return "death"
    if re.search(r"\b(?:born|b\.)\s*(?:on|in)?\s*$|\([a-z0-9,\s]{0,20}$", before):
        return "birth"
    return ""


def value_after(text: str, option: str) -> tuple[float, ...] | None:
    """The first date after the option's name as (year, month, day), else its first number."""
    at = text.lower().find(option.lower())
    text = text[at:] if at >= 0 else text
    for match in _DATE.finditer(text):
        date = match.group(0).replace(",", "")
        year = _YEAR.search(date)
        if year is None:
            continue
        words = date.lower().split()
        month = next((MONTHS.index(w) + 1 for w in words if w in MONTHS), 0)
        day = next((int(w) for w in words if w.isdigit() and len(w) <= 2), 0)
        return (float(year.group(1)), float(month), float(day))
    number = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    return (float(number.group(0).replace(",", "")),) if number else None


def both_named(question: str) -> tuple[str, ...]:
    """The two things of "Are both X and Y ...", "Were X and Y both ..."."""
    rest = question.split(maxsplit=1)[-1]  # after the auxiliary verb
    match = re.search(
        r"^(?:both\s+)?([A-Z][^,?]*?)\s+and\s+([A-Z][^,?]*?)\s+(?:both\s+)?[a-z]", rest
    )
    if match is None:
        return ()
    return tuple(trim_name(g) for g in match.groups())
