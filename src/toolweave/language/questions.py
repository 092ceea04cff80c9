"""What kind of answer a question wants, read from its words: a yes or no, one of the options
it names, a date, a year, a number, a person, a place, a name of some kind, or an explanation
(no short answer); and the words the evidence must cover (`terms`). The reader
(grounding/reader.py) extracts spans of that kind.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

Kind = Literal[
    "yesno", "choice", "date", "year", "number", "person", "place", "name", "explanation"
]

# "How do I ...", "Why ...": an explanation, which no few words give.
_EXPLAIN = re.compile(
    r"^\s*(?:how\s+(?:do|does|did|can|could|should|would|to|is|are|was)\b|why\b|explain\b|"
    r"describe\b|what\s+(?:is|are)\s+the\s+(?:difference|best\s+way|steps)\b)",
    re.I,
)
# An auxiliary verb first asks for a yes or a no ("Are both X and Y ...?", "Did X ...?").
_YESNO = re.compile(
    r"^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b", re.I
)
# "Which X ... , A or B?", "Who was born first, A or B?": the two options after the comma.
_OPTIONS = re.compile(r",\s*(?:the\s+)?(.+?)\s+or\s+(?:the\s+)?([^,?]+?)\s*\??$", re.I)
_BOTH = re.compile(r"\b(?:between|is|was|are|were)\s+(.+?)\s+or\s+(.+?)\s*\??$", re.I)
# No comma before the options: "Who was born first Iain Pears or Richard Llewellyn?"; the two
# names are then the capitalised words on either side of the "or".
_NAMES_OR = re.compile(r"^\s*(?:who|which|what)\b(.+?)\s+or\s+([^,?]+?)\s*\?\s*$", re.I)
_JOINERS = frozenset("of the de von van der la le du del".split())  # inside a name
_YEAR = re.compile(r"\b(?:what|which|in what|in which)\s+year\b|\byear\s+(?:was|did|were)", re.I)
# At the start only: later, "who", "where" and "when" open relative clauses ("the county where").
# At the end, the question word stands where the answer would ("... based where?").
_WHEN = re.compile(
    r"^\s*(?:(?:until|since|by|from)\s+)?(?:when|on what date|what date)\b|\bwhen\s*\?\s*$", re.I
)
_NUMBER = re.compile(r"\bhow\s+(?:many|much|long|old|tall|high|far|big|large)\b", re.I)
_SORT = re.compile(r"\b(?:kind|type|sort)s?\s+of\b", re.I)
_COUNTED = re.compile(r"\bhow\s+many((?:\s+[\w-]+){1,4})", re.I)
_WHO = re.compile(r"^\s*(?:who|whom|whose)\b|\b(?:who|whom)\s*\?\s*$", re.I)
_WHERE = re.compile(r"^\s*where\b|\bwhere\s*\?\s*$", re.I)
# The noun after "what"/"which" says what is wanted ("which county", "what team").
_WHICH = re.compile(r"\b(?:what|which)((?:\s+[\w-]+){1,6})", re.I)
PLACE_NOUNS = frozenset(
    "city town county country state province region capital village district island "
    "continent river lake mountain place area borough municipality neighborhood".split()
)
PERSON_NOUNS = frozenset(
    "person man woman actor actress singer author writer director player musician composer "
    "artist president leader king queen politician scientist founder father mother son "
    "daughter wife husband brother sister coach producer physicist chemist mathematician "
    "philosopher poet novelist businessman footballer emperor empress prince princess "
    "host spouse driver racer cyclist athlete swimmer boxer wrestler golfer pitcher quarterback "
    "guitarist drummer bassist vocalist rapper comedian dancer journalist editor designer "
    "architect engineer inventor explorer lawyer judge senator governor mayor minister "
    "commander monarch chairman executive presenter broadcaster playwright screenwriter "
    "lyricist conductor pianist violinist painter sculptor photographer sailor".split()
)
NUMBER_NOUNS = frozenset("number amount population percentage age".split())
DATE_NOUNS = frozenset("date birthday day".split())
# Comparatives that pick the earlier date or the smaller number.
EARLIER = frozenset("first earlier earliest older oldest before".split())
SMALLER = frozenset("fewer less least smaller smallest shorter shortest lower".split())
# Comparatives that pick the later date or the larger number.
LATER = frozenset(
    "last later latest younger youngest after more most larger largest bigger biggest longer "
    "longest taller tallest higher highest greater greatest".split()
)
_VERBS = frozenset("won wins play plays played make makes made own owns owned".split())
_AUXILIARIES = frozenset("is are was were be been being has have had".split())
_FUNCTION = frozenset("is are was were the a an of did does do has have had".split())
_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how is are was were do does did the a an of in "
    "on at to for by with from and or that this these those it its as be been being has have "
    "had can could will would should both either also not no you your one other same there "
    "their they he she his her him me my we our us".split()
)


@dataclass(frozen=True)
class Expected:
    kind: Kind
    options: tuple[str, ...] = ()  # the candidates a choice names, as written
    noun: str = ""  # the noun after what/which ("county"), lower case
    terms: tuple[str, ...] = field(default=())  # stemmed content words the evidence must cover
    earlier: bool = False  # a choice of the earlier date / smaller number
    compares: bool = False  # a choice by date or number (a comparative word), not by attribute
    sort: bool = False  # "what type of films": a sort of the noun ("documentary film")


def expected_answer(question: str) -> Expected:
    """The kind of answer `question` asks for."""
    text = question.strip()
    terms = tuple(content_terms(text))
    words = set(re.findall(r"[a-z]+", text.lower()))
    earlier = bool(words & (EARLIER | SMALLER))
    if _EXPLAIN.match(text):
        return Expected("explanation", terms=terms)
    options = _options(text)
    if options:  # "Is A or B further west?" asks which, not whether
        compares = bool(words & (EARLIER | SMALLER | LATER))
        return Expected("choice", options, terms=terms, earlier=earlier, compares=compares)
    if _YESNO.match(text):
        return Expected("yesno", options, terms=terms)
    noun = _noun(text)
    if _YEAR.search(text):
        return Expected("year", noun=noun, terms=terms)
    if _NUMBER.search(text) or noun in NUMBER_NOUNS:
        return Expected("number", noun=noun or _counted(text), terms=terms)
    if _WHEN.search(text) or noun in DATE_NOUNS:
        return Expected("date", noun=noun, terms=terms)
    if _SORT.search(text):
        return Expected("name", noun=noun, terms=terms, sort=True)
    if noun in PLACE_NOUNS or _WHERE.search(text):
        return Expected("place", noun=noun, terms=terms)
    if _WHO.search(text) or noun in PERSON_NOUNS:
        return Expected("person", noun=noun, terms=terms)
    return Expected("name", noun=noun, terms=terms)


def _noun(text: str) -> str:
    """The head noun of the phrase after what/which: "what New York county", "what French
    award in ...", "which Thomas Rickman film did ...", "what is the seat of ..."; the word
    after "kind of" or "type of"."""
    match = _WHICH.search(text)
    if match is None:
        return ""
    said = match.group(1).split()
    words = list(itertools.dropwhile(lambda w: w.lower() in _FUNCTION, said))
    if len(words) > 2 and words[0].lower() in ("kind", "type", "sort") and words[1] == "of":
        words = words[2:]
    if not words:
        return ""
    phrase = words[:1]
    for n, word in enumerate(words[1:], start=1):
        if _ends_before(word, words[n + 1] if n + 1 < len(words) else ""):
            break
        phrase.append(word)
    known = PLACE_NOUNS | PERSON_NOUNS | NUMBER_NOUNS | DATE_NOUNS | {"year"}
    nouns = [_singular(w) for w in phrase]
    return next((w for w in nouns if w in known), nouns[-1])


def _counted(text: str) -> str:
    """What "how many" counts: its first plural ("how many Major League Baseball teams"), else
    the word after it ("how many people")."""
    match = _COUNTED.search(text)
    if match is None:
        return ""
    words = list(itertools.takewhile(lambda w: w.lower() not in _QUESTION_WORDS, match[1].split()))
    plural = next((w for w in words if w.islower() and w.endswith("s")), words[0] if words else "")
    return _singular(plural)


def _singular(word: str) -> str:
    word = word.lower()
    return word if word.endswith("ss") else word.removesuffix("s")


def _ends_before(word: str, after: str) -> bool:
    """Whether the noun phrase after "what" ends before `word`: a function word, or a verb
    ("band released a song", "band released Counterparts", but "armed force" goes on)."""
    low = word.lower()
    if low in _QUESTION_WORDS or low in _FUNCTION or low in _VERBS:
        return True
    ends = not after or after.lower() in _QUESTION_WORDS or after[:1].isupper()
    return low.endswith("ed") and ends


def _options(text: str) -> tuple[str, ...]:
    listed = _OPTIONS.search(text)  # after a comma: the options as written ("Race to Nowhere")
    match = listed or _BOTH.search(text)
    named = match is None and (match := _NAMES_OR.search(text)) is not None
    if match is None:
        return ()
    first, second = (" ".join(g.split()).strip(" \"',") for g in match.groups())
    # "Is Baiyin or Xinghua, Jiangsu a county-level city?": the names without what is asked.
    if not listed:
        first = _name_at(first, last=True) or ("" if named else first)
        second = _name_at(second, last=False) or second
    if named and not (first[:1].isupper() and second[:1].isupper()):
        return ()
    # "A or B" must name two short things; a clause with a verb is not an option.
    if not first or not second or max(len(first.split()), len(second.split())) > 6:
        return ()
    return (first, second)


def _name_at(text: str, *, last: bool) -> str:
    """The run of capitalised words that ends (`last`) or opens `text`, when words that are no
    part of a name are beside it: "born first Iain Pears" gives "Iain Pears", "John Wayne
    Airport further west" gives "John Wayne Airport"; "" when there is none or nothing else."""
    words = text.split()
    ordered = words[::-1] if last else words
    run: list[str] = []
    for n, word in enumerate(ordered):
        joined = word.lower() in _JOINERS and n + 1 < len(ordered) and ordered[n + 1][:1].isupper()
        if not (word[:1].isupper() or word[:1].isdigit() or (run and joined)):
            break
        run.append(word)  # "Xinghua, Jiangsu" too: a place and its region
    if not run or len(run) == len(words):
        return ""
    return " ".join(run[::-1] if last else run).strip(",")


def content_words(text: str) -> list[str]:
    """The words of `text` that carry meaning (no question or function words), as written."""
    return [
        w
        for w in re.findall(r"[A-Za-z0-9][\w'-]*", text)
        if w.lower() not in _QUESTION_WORDS and len(w) > 1
    ]


def content_terms(text: str) -> list[str]:
    """The stems of `text`'s content words."""
    return [stem(w) for w in content_words(text)]


def stem(word: str) -> str:
    return str(_stemmer().stemWord(word.lower().removesuffix("'s")))


def singular(word: str) -> str:
    """A regular plural's singular ("companies" company, "boxes" box, "people" as it is): what
    a search that matches parts of words finds in records of one thing and of several."""
    if word.lower() in _SAME_IN_BOTH:
        return word
    if word.lower() in _IE_PLURALS:
        return word[:-1]
    if re.search(r"[^aeiou]ies$", word):
        return word[:-3] + "y"
    if re.search(r"(?:ch|sh|x|ss|z)es$", word):
        return word[:-2]
    if re.search(r"[^su]s$", word) and not word.endswith("is"):
        return word[:-1]
    return word


_SAME_IN_BOTH = {"news", "series", "species", "physics", "economics", "mathematics"}
_IE_PLURALS = {"movies", "cookies", "ties", "pies", "lies", "zombies", "calories", "brownies"}


# Words that say the same relation: a sentence with one answers a question with another
# ("married" for "spouse", "wrote" for "author").
_ALIKE = (
    "spouse married marriage wife husband wed",
    "father mother parent son daughter child",
    "employer employed employee worked professor",
    "educated attended studied graduated alumnus",
    "author wrote written writer",
    "creator created",
    "performer performed sang singer",
    "producer produced",
    "director directed",
    "founder founded established",
    "owner owned owns",
    "play played portrayed starred role",
    "born birth birthplace",
    "died death",
)


def with_alike(terms: set[str]) -> set[str]:
    """The stems `terms` cover, with those of words that say the same relation."""
    return terms.union(*(group for group in _alike_stems() if group & terms))


@cache
def _alike_stems() -> list[frozenset[str]]:
    return [frozenset(stem(w) for w in group.split()) for group in _ALIKE]


@cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


# A thing named by description: "the actress who plays Scarlett in Gone with the Wind", "the
# bank that bought FleetBoston", "the author of The Canon of Medicine", "Empress Wang's husband".
_NAMED = (
    r"(?:the\s+)?[A-Z\"“][^\s?,]*"
    r"(?:\s+(?:(?:of|the|and|in|a|an|de|for|to|at)\s+){0,2}[A-Z0-9\"”][^\s?,]*)*"
)
_DESCRIBED = (
    re.compile(
        r"\b[Tt]he\s+(?:(?!of\b|the\b|who\b|that\b|which\b|where\b)[\w'-]+\s+){1,3}?"
        r"(?:who|that|which|where|whose)\s+[^?,;]+"
    ),
    # "the publisher of abolitionist newspaper The North Star": a few words before the name.
    re.compile(
        rf"\b[Tt]he\s+(?:(?!of\b|the\b)[a-z][\w-]*\s+){{0,2}}?[a-z][\w-]*\s+of\s+(?:[a-z]+\s+){{0,2}}"
        rf"{_NAMED}"
    ),
    # "the 20th President of the United States": a rank, its title in capitals.
    re.compile(rf"\b[Tt]he\s+\d+(?:st|nd|rd|th)\s+(?:[A-Z][\w-]*\s+){{1,2}}of\s+{_NAMED}"),
    # A possessive followed by its object is a verb's subject: "at Tiffany's win a Tony".
    re.compile(r"\b[A-Z][\w.]*(?:\s+[A-Z][\w.]*)*(?:'s|’s)\s+[a-z]+\b(?!\s+(?:a|an|the)\b)"),
)

_SUBJECT_END = re.compile(r"\s+(?:is|was|are|were)\s+")
# A common noun before a title: the description before it stopped short of the whole name.
_CUT = re.compile(
    r"\s+(?:film|movie|album|song|single|novel|book|band|series|show|game|play|opera|magazine|"
    r"newspaper)\s+[A-Z0-9]"
)
# What the question asks, inside a phrase that looks like a description: "the Las Vegas Strip
# that has how many rooms", "the academy award for which film" are the question itself.
_ASKING = re.compile(r"\b(?:how\s+(?:many|much)|what)\b|\bwhich\s+[\w-]+\s*$", re.I)


@dataclass(frozen=True)
class Chain:
    """A question asked of something it names by description: find that thing first (the
    `inner` question), then ask `outer` with its name in place of the description."""

    outer: str  # the question with "{}" where the description was
    inner: str  # a question whose answer is the described thing


def split_chain(question: str) -> Chain | None:
    """The innermost description in the question and the question around it, or None when
    the question names everything it asks about."""
    whole = question.strip().rstrip("?")
    matches = [(m.start(), m.group(0).strip()) for p in _DESCRIBED for m in p.finditer(question)]
    # One that opens the question ends at the question's own verb: "The actor who plays
    # Copper in Fox and the Hound | is a character in which film?"
    matches = [(a, _SUBJECT_END.split(d, maxsplit=1)[0] if a == 0 else d) for a, d in matches]
    found = [(a, d) for a, d in matches if d != whole and not _ASKING.search(d)]
    # The one that starts last is innermost: "the spouse of the actress who ..." holds it. A
    # name cut short ("the director of Hollywood film 7th Heaven") is no description.
    whole_names = [(a, d) for a, d in found if not _CUT.match(question, a + len(d))]
    if not whole_names:
        return None
    start, described = max(whole_names)
    # "the band that recorded Ventara formed": the last verb is the question's ("was ...
    # formed"), not the description's, unless an auxiliary goes with it ("is located").
    *_, before, last = described.split() if len(described.split()) > 3 else ["", "", ""]
    asks_did = re.search(r"\b(?:did|does|do)\s+$", question[:start]) is not None
    ends_with_verb = last.endswith("ed") or last == "born" or asks_did  # "When did ... die?"
    if ends_with_verb and last.islower() and before.lower() not in _AUXILIARIES:
        described = described[: -len(last)].rstrip()
    outer = question[:start] + "{}" + question[start + len(described) :]
    if not content_words(outer.replace("{}", "")):
        return None  # nothing is asked of the described thing: it is the answer itself
    words = described.lower().split()
    # The words before "of" or "who" name it ("the 39th vice president of ..."), else the last.
    stops = {"of", "who", "that", "which", "where", "whose"}
    heads = list(itertools.takewhile(lambda w: w not in stops, words[1:]))
    heads = heads if words[0] == "the" and heads else words[-1:]
    person = any(w in PERSON_NOUNS or w.removesuffix("s") in PERSON_NOUNS for w in heads)
    return Chain(outer=outer, inner=f"{'Who' if person else 'What'} is {described}?")
