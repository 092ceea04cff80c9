"""Reading passages: the short answer to a question from whole passages, without an LLM: spans
of the kind the question wants (language/questions.py) scored by how much of the question their
evidence covers.

A span's evidence is the sentence it is in, that sentence's passage title, and, when the passage
was reached through another one, the sentence of that other passage naming it (the first hop of
a two-hop question: "Van Hook Township is in Mountrail County" then "Mountrail County's seat is
Stanley"). Question words weigh by how rare they are among the passages' sentences, so the
span whose chain covers "seat" beats the bridge entity that covers only "county". A choice
between two options compares their dates or numbers; a yes or no checks each named thing's
passage for the asked attribute.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from toolweave.language.answers import (
    about_a_person,
    after_place_word,
    both_named,
    is_year,
    life_event,
    named_as,
    played,
    plays,
    role_asked,
    spans,
    unlike_a_person,
    used_as_adjective,
    value_after,
)
from toolweave.language.questions import (
    PERSON_NOUNS,
    PLACE_NOUNS,
    Expected,
    content_terms,
    content_words,
    expected_answer,
    stem,
    with_alike,
)
from toolweave.language.text import split_sentences
from toolweave.models.base import Embedder

MIN_COVERAGE = 0.34
NEAR = 0.1
RELEVANCE = 0.3  # the weight of the chain's cosine to the question
SUBJECT = 0.2
TYPED = 0.2
EVIDENCE = 6  # sentences kept as the evidence an LLM reads
CANDIDATES = 5  # answers an LLM chooses from
_LIFE = {"born": "birth", "birth": "birth", "die": "death", "death": "death"}  # asked stems
_KIND_NOUNS = {"person": PERSON_NOUNS, "place": PLACE_NOUNS}
MIN_SUPPORT = 2  # words of the question a sentence of another hop must say to be cited
HOLDS = 0.5  # the share of the asked attribute a thing's sentences must say for a yes


@dataclass
class Passage:
    title: str
    text: str
    source: int  # the source number it is cited as


@dataclass
class _Sentence:
    text: str
    passage: Passage
    terms: set[str]
    score: float = 0.0  # cosine to the question


@dataclass
class Short:
    text: str
    source: int
    chain: list[tuple[str, int]] = field(default_factory=list)  # sentences leading to it
    # The question's words its evidence does not cover: what a next search should ask for.
    missing: list[str] = field(default_factory=list)
    score: float = 0.0  # how well its evidence answers (of an extracted span; else 0)


@dataclass
class Reading:
    short: Short | None  # the answer in a few words, when a span of the asked kind fits
    evidence: list[tuple[str, int]]  # the sentences that cover the question best, best first
    # The answers to choose from (best first): the best spans; yes and no; the two options.
    candidates: list[Short] = field(default_factory=list)


async def read(
    question: str, passages: list[Passage], embedder: Embedder, given: str = ""
) -> Reading:
    """The short answer and the best evidence sentences of `passages` for `question`. The
    names of `given` are no answer either: the question as first asked, before the thing it
    described was named ("the actress who plays Scarlett" in "Who is the spouse of Vivien
    Leigh?")."""
    expected = expected_answer(question)
    found = [
        _Sentence(s, p, with_alike(set(content_terms(f"{p.title} {s}"))))
        for p in passages
        for s in split_sentences(p.text)
    ]
    if not found or not expected.terms:
        return Reading(None, [])
    vectors = await embedder.embed(
        [question] + [reading_text(s.passage.title, s.text) for s in found]
    )
    for sentence, score in zip(found, vectors[1:] @ vectors[0], strict=True):
        sentence.score = float(score)
    weights = _weights(expected, found)
    ranked = sorted(found, key=lambda s: -(_coverage(s.terms, weights) + RELEVANCE * s.score))
    evidence = [(s.text, s.passage.source) for s in ranked[:EVIDENCE]]
    if expected.kind == "explanation":
        return Reading(None, evidence)
    if expected.kind in ("choice", "yesno"):
        short = (_choose if expected.kind == "choice" else _yes_or_no)(
            question, expected, found, weights
        )
        return Reading(short, evidence, [short] if short else [])
    candidates = _extract(question, given, expected, found, weights)
    return Reading(candidates[0] if candidates else None, evidence, candidates)


def reading_text(title: str, sentence: str) -> str:
    """A sentence as it is embedded: with its passage's title, which a pronoun refers to."""
    return f"{title}: {sentence}"


def _weights(expected: Expected, found: list[_Sentence]) -> dict[str, float]:
    """Each question word by how rare it is among the sentences."""
    df = Counter(t for s in found for t in s.terms)
    return {t: math.log(1 + len(found) / (1 + df[t])) for t in expected.terms}


def _coverage(terms: set[str], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return sum(w for t, w in weights.items() if t in terms) / total if total else 0.0


@dataclass
class _Scored:
    score: float
    span: str
    sentence: _Sentence
    link: _Sentence | None


def _extract(
    question: str,
    given: str,
    expected: Expected,
    found: list[_Sentence],
    weights: dict[str, float],
) -> list[Short]:
    """The best spans of the asked kind, best first, each with its chain; none when even the
    best one's evidence covers too little of the question."""
    ranked = _ranked(question, given, expected, found, weights)
    if not ranked or ranked[0].score - RELEVANCE * ranked[0].sentence.score < MIN_COVERAGE:
        return []
    return [_short(question, given, c, found, weights) for c in ranked[:CANDIDATES]]


def _ranked(
    question: str,
    given: str,
    expected: Expected,
    found: list[_Sentence],
    weights: dict[str, float],
) -> list[_Scored]:
    """Each span's best place, best first."""
    asked = set(expected.terms)
    said = f"{question} {given}".lower()
    role = role_asked(question)
    # What each passage's subject is, by its first sentence ("X is a county in ...").
    kinds = {_subject(s.passage): s.text.lower() for s in reversed(found)}
    # Words the passages write in lower case: "Often" opening a sentence is no name.
    common = {w for s in found for w in re.findall(r"\b[a-z][a-z'-]+\b", s.text)}
    named = _name_words(said)
    seen: Counter[str] = Counter()
    best: dict[str, _Scored] = {}
    for sentence in found:
        link = _link(sentence, found, weights)
        evidence = sentence.terms | (link.terms if link is not None else set())
        cover = _coverage(evidence, weights)
        relevance = max(sentence.score, link.score if link is not None else 0.0)
        for span in spans(sentence.text, expected):
            terms = set(content_terms(span))
            if not terms or terms <= asked or span.lower() in said:
                continue
            if " " not in span and span.lower() in common:
                continue
            seen[span.lower()] += 1
            fit = _fit(span, sentence.text, expected, kinds, role)
            fit += _near(span, sentence.text, asked)
            # A passage's own subject is what its sentences are about, not the fact they give.
            fit -= SUBJECT if span.lower() == _subject(sentence.passage) else 0
            # A longer name of what the question names ("Ronaldinho Gaúcho") is not the answer.
            fit -= SUBJECT if any(n <= set(span.lower().split()) for n in named) else 0
            scored = _Scored(cover + RELEVANCE * relevance + fit, span, sentence, link)
            if span.lower() not in best or scored.score > best[span.lower()].score:
                best[span.lower()] = scored
    for key, scored in best.items():
        scored.score += 0.05 * min(seen[key] - 1, 3)  # found in several places
    return sorted(best.values(), key=lambda c: -c.score)


def _name_words(question: str) -> list[set[str]]:
    """The words of each name the question gives."""
    names = [{w.lower() for w in content_words(n)} for n in spans(question, Expected("name"))]
    return [n for n in names if n]


def _short(
    question: str,
    given: str,
    scored: _Scored,
    found: list[_Sentence],
    weights: dict[str, float],
) -> Short:
    sentence, link = scored.sentence, scored.link
    covered = sentence.terms | (link.terms if link is not None else set())
    missing = [w for w in content_words(question) if stem(w) not in covered]
    missing.sort(key=lambda w: -weights.get(stem(w), 0.0))  # the rarest first
    link = link or _support(sentence, covered, f"{question} {given}", found)
    chain = [(link.text, link.passage.source)] if link is not None else []
    source = sentence.passage.source
    return Short(scored.span, source, [*chain, (sentence.text, source)], missing, scored.score)


def _support(
    sentence: _Sentence, covered: set[str], said: str, found: list[_Sentence]
) -> _Sentence | None:
    """The sentence of another passage that says the most of what the answer's sentence
    leaves out, of the question as asked and as first asked: the other hop, cited too."""
    left = set(content_terms(said)) - covered
    others = [s for s in found if s.passage.source != sentence.passage.source]
    best = max(others, key=lambda s: (len(left & s.terms), s.score), default=None)
    return best if best is not None and len(left & best.terms) >= MIN_SUPPORT else None


def _subject(passage: Passage) -> str:
    """What a passage is about: its title without a qualifier ("Counterparts (album)")."""
    return passage.title.split(" (")[0].lower()


def _near(span: str, sentence: str, asked: set[str]) -> float:
    """A little for a span next to the question's words: of two names in one sentence, the one
    the asked fact is said of."""
    words = sentence.split()
    first = span.split()[0]
    starts = [i for i, w in enumerate(words) if w.startswith(first)]
    hits = [i for i, w in enumerate(words) if stem(w.strip(".,;:()\"'")) in asked]
    if not starts or not hits:
        return 0.0
    distance = min(abs(i - j) for i in starts for j in hits)
    return NEAR / (1 + distance / 3)


def _link(
    sentence: _Sentence, found: list[_Sentence], weights: dict[str, float]
) -> _Sentence | None:
    """The sentence of another passage that names this sentence's passage and covers the most
    of the question: the hop that leads here."""
    title = _subject(sentence.passage)
    if len(title) < 3:
        return None
    links = [
        s for s in found if s.passage.source != sentence.passage.source and title in s.text.lower()
    ]
    return max(links, key=lambda s: _coverage(s.terms, weights), default=None)


def _fit(span: str, sentence: str, expected: Expected, kinds: dict[str, str], role: str) -> float:
    """How well the span looks like what is asked: named with the asked noun, or its own
    passage says it is one ("Ballon d'Or is an annual football award"); a person's two or
    three names, the actor of the asked `role`; a place after "in"; not an adjective of
    nationality ("American actor")."""
    words = span.split()
    fit = 0.0
    if expected.noun and expected.noun in {w.lower().rstrip("s") for w in words}:
        fit += 0.3
    elif expected.noun and expected.noun in kinds.get(span.lower(), ""):
        fit += TYPED
    wanted = ({expected.noun} | _KIND_NOUNS.get(expected.kind, set())) - {""}
    if wanted and (noun := named_as(span, sentence)):
        fit += TYPED if noun in wanted else -TYPED  # "the album Night Tide" is an album
    if expected.sort and span.islower():
        fit += TYPED  # a sort named in plain words, not a proper name that holds the noun
    if used_as_adjective(span, sentence):
        fit -= 0.3
    if expected.kind == "number" and is_year(span):
        fit -= 0.2  # "how many" rarely wants a year
    if expected.kind == "number" and not is_year(span) and _counts(span, sentence, expected):
        fit += 0.3
    if expected.kind == "person":
        fit += _person_fit(span, sentence, kinds, role)
    if expected.kind == "place" and after_place_word(span, sentence):
        fit += 0.15
    asked_event = {_LIFE[t] for t in expected.terms if t in _LIFE}
    if expected.kind in ("date", "year") and asked_event and (said := life_event(span, sentence)):
        fit += TYPED if said in asked_event else -TYPED  # "died 1980" is no birth date
    return fit


def _person_fit(span: str, sentence: str, kinds: dict[str, str], role: str) -> float:
    """How much the span looks like somebody: two to four names, no title or organisation,
    the actor of the asked part, a passage of its own about a person."""
    fit = 0.1 if 2 <= len(span.split()) <= 4 else 0.0
    fit -= 0.3 if unlike_a_person(span) else 0.0
    if role:  # the actor, not another part: "Amy Poehler as Leslie Knope"
        fit += 0.3 if plays(span, sentence, role) else -0.3 if played(span, sentence) else 0
    if (about := kinds.get(span.lower())) is not None:
        # Its own passage says whether it is somebody: "(born 1947)", "was an actress".
        fit += TYPED if about_a_person(about) else -TYPED
    return fit


def _counts(span: str, sentence: str, expected: Expected) -> bool:
    """Whether the number counts what is asked: "25 million records sold" for "how many
    records"."""
    at = sentence.find(span)
    after = sentence[at + len(span) :].split()[:4] if at >= 0 and expected.noun else []
    return any(stem(w.strip(".,;:()")).startswith(stem(expected.noun)) for w in after)


def _choose(
    _question: str, expected: Expected, found: list[_Sentence], weights: dict[str, float]
) -> Short | None:
    """The option whose date or number wins the comparison, else the one whose passage covers
    the asked attribute best."""
    asked = {t for o in expected.options for t in content_terms(o)}
    attribute = {t: w for t, w in weights.items() if t not in asked} or weights
    picks = []
    for option in expected.options:
        about = [s for s in found if _about(s, option)]
        # Its own passage first; for a comparison, the sentences that give a value.
        about = [s for s in about if option.lower() in s.passage.title.lower()] or about
        if expected.compares:
            about = [s for s in about if value_after(s.text, option) is not None] or about
        if not about:
            continue
        best = max(about, key=lambda s: (_coverage(s.terms, attribute), s.score))
        picks.append((option, best, value_after(best.text, option)))
    if not picks:
        return None
    values = [v for _, _, v in picks if v is not None]
    if expected.compares and len(values) == len(expected.options):
        ordered = sorted(picks, key=lambda p: p[2])  # type: ignore[arg-type,return-value]
        option, sentence, _ = ordered[0] if expected.earlier else ordered[-1]
    else:
        option, sentence, _ = max(picks, key=lambda p: _coverage(p[1].terms, attribute))
    chain = [(s.text, s.passage.source) for _, s, _ in picks]
    return Short(option, sentence.passage.source, chain)


def _about(sentence: _Sentence, option: str) -> bool:
    name = option.lower()
    return name in sentence.passage.title.lower() or name in sentence.text.lower()


def _yes_or_no(
    question: str, expected: Expected, found: list[_Sentence], weights: dict[str, float]
) -> Short | None:
    """Yes when every thing the question names has a sentence holding the asked attribute."""
    things = expected.options or both_named(question)
    asked = {t for thing in things for t in content_terms(thing)}
    attribute = {t: w for t, w in weights.items() if t not in asked} or weights
    chain, holds = [], []
    for thing in things or ("",):
        about = [s for s in found if not thing or _about(s, thing)]
        if not about:
            holds.append(False)
            continue
        ranked = sorted(about, key=lambda s: (-_coverage(s.terms, attribute), -s.score))
        chain.append((ranked[0].text, ranked[0].passage.source))
        # What its two best sentences say together: "Armenian: ..." and "... descent".
        said = ranked[0].terms | (ranked[1].terms if len(ranked) > 1 else set())
        holds.append(_coverage(said, attribute) >= HOLDS)
    if not chain:
        return None
    return Short("yes" if all(holds) else "no", chain[0][1], chain)
