"""The false-hit guard: a semantic cache hit must ask about the same numbers, dates and names.

Sentence embeddings place "weather in Paris today" and "weather in Paris tomorrow" at cosine
0.91, and two questions differing only in a year at 0.98: above any useful threshold. So a
semantic candidate is only reused when the key terms of both queries agree:

    number        digits, ordinals (1st, third), number words (twenty-one, 5 million), years
    date          months, weekdays, seasons, today/tomorrow/tonight, next week, last year, ago
    place/entity  capitalised words (not a common word opening the sentence); a lowercase word
                  counts too when the other query capitalises it ("paris" vs "Paris"); a query
                  without capitals hides its names, so its uncommon words must all be in the other
    negation      not, never, no, didn't (or didnt), ...
    superlative   largest, oldest, last, ...
    wording       an uncommon word of one query replaced by another in the other
    question      what is asked: "how many", "which tabloid", "who", "when". Two questions about
                  the same subject ("How many drivers took part in <paper>?", "What university
                  ran <paper>?") embed close, since the long shared title dominates both vectors

Deterministic and cheap: about 50 us to parse a text on a slow 2-core machine, memoised, so a
lookup pays for the query once and for each candidate's text once.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from toolweave.language.values import MONTH_NAMES, WEEKDAYS, unaccented

# A word, and whether a sentence ends before it (a capital there is no sign of a name).
_TOKEN = re.compile(r"([.?!]\W*)?(\w+(?:[.,']\w+)*)")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_ORDINAL_DIGITS = re.compile(r"(\d+)(?:st|nd|rd|th)")
_DECADE = re.compile(r"\d+0s")
_has_digit = re.compile(r"\d").search

_UNITS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
_CARDINALS = _UNITS | _TENS
_ORDINALS = {
    w: i
    for i, w in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth".split()
    )
} | {w.removesuffix("y") + "ieth": v for w, v in _TENS.items()}
_SCALES: dict[str, int] = {
    "hundred": 100,
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_NUMBER_WORDS = _CARDINALS.keys() | _ORDINALS.keys() | _SCALES.keys()

_MONTHS = [names[-1] for names in MONTH_NAMES]
_MONTH_OF = {name: names[-1] for names in MONTH_NAMES for name in names}
# Also English words ("what may happen", "the march on Rome"): months only with evidence.
_AMBIGUOUS_MONTHS = {w for w in _MONTH_OF if w not in _MONTHS} | {"may", "march"}
_MONTH_CUES = {"in", "of", "early", "late", "mid", "since", "until", "till", "by", "from"} | {
    "during", "before", "after", "last", "next", "this", "every"
}  # fmt: skip
_WEEKDAYS = set(WEEKDAYS)
_SEASONS = {"spring", "summer", "autumn", "winter"}
_DAY_PARTS = {"morning", "afternoon", "evening", "tonight", "weekend"}
_RELATIVE_DAYS = {"today", "tomorrow", "yesterday", "tonight", "ago"}
_SINGLE_DATES = _RELATIVE_DAYS | _WEEKDAYS | _SEASONS | _DAY_PARTS
_DEICTIC = {"this", "next", "last", "coming", "past", "previous"}
_PERIODS = {"week", "weekend", "month", "year", "decade", "century", "season", "night"} | {
    "quarter", "morning", "afternoon", "evening"
} | _WEEKDAYS | _SEASONS | set(_MONTHS)  # fmt: skip

_NEGATIONS = {"not", "no", "never", "without", "none", "nor", "cannot", "nobody", "nothing"} | {
    w + "nt"
    for w in "ai are can could did does do had has have is must should was were wo would".split()
}
_SUPERLATIVES = set(
    "largest biggest smallest tallest shortest highest lowest longest oldest youngest newest "
    "latest earliest last best worst most least fastest slowest richest poorest deepest "
    "hottest coldest closest nearest farthest furthest heaviest lightest cheapest greatest "
    "maximum minimum".split()
)

# Function and question words: never names, even capitalised ("The Hobbit").
_STOPWORDS = set(
    """a about above after again against all also am an and any are as at be been before being
    below between both but by can could did do does doing down during each either else ever
    every few for from further had has have having he her here hers him his how however i id
    ill im ive if in into is it its itself just let may me might more much must my near
    of off on once only or other our out over own per please same shall she should so some such
    than that the their them then there these they this those through to too under until
    up upon us very via was we were what when where which while who whom whose why
    will with would you your youd anyone someone somebody anybody""".split()
)
# Not names when capitalised at a sentence start, and no sign of a different question when two
# lowercase queries differ in them: the verbs and nouns paraphrases swap.
_COMMON = _STOPWORDS | set(
    """tell know show find give list name explain describe say search look lookup check want
    like need get got gets getting receive received receives award awarded given gives win won
    earn earned obtain obtained become became call called make made take took go went
    question questions answer info information details definition meaning kind type sort year
    years date day number amount many time times place""".split()
)
_DATE_WORDS = (
    _MONTH_OF.keys() | _WEEKDAYS | _SEASONS | _DAY_PARTS | _RELATIVE_DAYS | _DEICTIC | _PERIODS
)
_QUESTION_WORDS = {"who", "whom", "whose", "what", "which", "when", "where", "why", "how"}
_HOW_DEGREES = {"many", "much", "long", "old", "far", "big", "large", "tall", "often", "high"}
_VERBS = {"is", "was", "are", "were", "did", "does", "do", "has", "have", "had", "can", "could"}
_WHEN = {"when", "what year", "what date", "what day", "what month", "what decade", "what time"}
# Titles in quotes may hold question words of their own ("What Is Life?").
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”')
_NOT_NAMES = _STOPWORDS | _NEGATIONS | _CARDINALS.keys() | _ORDINALS.keys()
_NOT_CONTENT = _COMMON | _NEGATIONS | _SUPERLATIVES | _NUMBER_WORDS


@dataclass(frozen=True)
class _Terms:
    numbers: frozenset[str]
    dates: frozenset[str]
    # Name-like tokens, stemmed -> as written. Names match by stem ("Women's", "womens").
    names: dict[str, str]
    stems: tuple[str, ...]  # every token, lowercased and stemmed, in order
    negated: bool
    superlatives: frozenset[str]
    # Uncommon words (lightly stemmed -> as written): what names a query without capitals.
    content: dict[str, str]
    focus: str  # what the question asks for ("how many", "what year", "who"); "" if unknown


def key_terms(text: str) -> frozenset[str]:
    """The terms a reusable answer must share, tagged by kind: "number:2010", "date:tomorrow",
    "entity:paris", "negation:not", "superlative:largest"."""
    terms = _extract(text)
    return frozenset(
        [f"number:{n}" for n in terms.numbers]
        + [f"date:{d}" for d in terms.dates]
        + [f"entity:{name.casefold()}" for name in terms.names.values()]
        + (["negation:not"] if terms.negated else [])
        + [f"superlative:{s}" for s in terms.superlatives]
    )


def conflicts(query: str, cached_query: str) -> list[str]:
    """Why an answer cached for `cached_query` does not answer `query`; empty if it may."""
    a, b = _extract(query), _extract(cached_query)
    reasons = [
        _differ("number", a.numbers, b.numbers),
        _differ("date", a.dates, b.dates),
        _name_conflict(a, b),
        _hidden_name_conflict(a, b),
        _wording_conflict(a, b),
        _differ("negation", {"not"} if a.negated else set(), {"not"} if b.negated else set()),
        _differ("superlative", a.superlatives, b.superlatives),
        _focus_conflict(a.focus, b.focus),
    ]
    return [r for r in reasons if r]


def _focus_conflict(a: str, b: str) -> str:
    """Different questions unless either asks nothing specific (a keyword query, a bare "what")
    or both ask for the same kind of thing ("when" = "what year")."""
    if not a or not b or a == b or {a, b} <= _WHEN:
        return ""
    if "what" in (a, b) and a.startswith("what") and b.startswith("what"):
        return ""  # a bare "what" may ask for anything a "what X" does
    return f"question {a} vs {b}"


def _differ(label: str, a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> str:
    if a == b:
        return ""
    return f"{label} {', '.join(sorted(a - b)) or 'none'} vs {', '.join(sorted(b - a)) or 'none'}"


def _name_conflict(a: _Terms, b: _Terms) -> str:
    # A word capitalised in either query is a name in both ("paris" is Paris there).
    names = a.names | b.names
    stems_a, stems_b = set(a.stems), set(b.stems)
    only_a = [w for w in names if w in stems_a and w not in stems_b]
    only_b = [w for w in names if w in stems_b and w not in stems_a]
    if not only_a and not only_b:
        return ""
    return f"place/entity {_phrase(only_a, a, names)} vs {_phrase(only_b, b, names)}"


def _hidden_name_conflict(a: _Terms, b: _Terms) -> str:
    """A query without capitals hides its names: any uncommon word of it may be one."""
    names = a.names | b.names
    only_a = [] if a.names else [w for w in a.content if w not in b.stems and w not in names]
    only_b = [] if b.names else [w for w in b.content if w not in a.stems and w not in names]
    if not only_a and not only_b:
        return ""
    shown_a = ", ".join(a.content[w] for w in only_a) or "none"
    return f"possible name {shown_a} vs {', '.join(b.content[w] for w in only_b) or 'none'}"


def _wording_conflict(a: _Terms, b: _Terms) -> str:
    """An uncommon word swapped for another asks about something else: "female" vs "male
    population of X", "half-sister" vs "half-brother of Y". A word only added is no conflict."""
    only_a = [w for w in a.content if w not in b.stems]
    only_b = [w for w in b.content if w not in a.stems]
    if not only_a or not only_b:
        return ""
    shown_a = ", ".join(a.content[w] for w in only_a)
    return f"wording {shown_a} vs {', '.join(b.content[w] for w in only_b)}"


def _phrase(missing: list[str], terms: _Terms, names: dict[str, str]) -> str:
    """The missing name tokens as written, adjacent ones joined into one name."""
    if not missing:
        return "none"
    wanted, groups, previous = set(missing), list[str](), -2
    for i, word in enumerate(terms.stems):
        if word in wanted:
            shown = terms.names.get(word, names[word])
            if i == previous + 1:
                groups[-1] += " " + shown
            else:
                groups.append(shown)
            wanted.discard(word)
            previous = i
    return ", ".join(groups)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=4096)
def _extract(text: str) -> _Terms:
    text = unaccented(unicodedata.normalize("NFKC", text).replace("’", "'"))
    matches = _TOKEN.findall(text)
    tokens = [token for _, token in matches]
    starts = [i == 0 or bool(end) for i, (end, _) in enumerate(matches)]
    words = tuple(_word(t) for t in tokens)
    present = set(words)
    # Most queries have no dates and few numbers: skip their scans then (half the time).
    dates, date_positions = ([], set()) if _DATE_WORDS.isdisjoint(present) else _dates(words)
    numeric = _has_digit(text) or not _NUMBER_WORDS.isdisjoint(present)
    superlatives = _SUPERLATIVES & present
    if "last" in superlatives and any(words[i] == "last" for i in date_positions):
        superlatives.discard("last")  # "last year" is a date
    return _Terms(
        numbers=frozenset(_numbers(words) if numeric else ()),
        dates=frozenset(dates),
        names=_names(tokens, words, starts, date_positions),
        stems=tuple(_stem(w) for w in words),
        negated=not _NEGATIONS.isdisjoint(present),
        superlatives=frozenset(superlatives),
        content={
            _stem(w): w
            for w in words
            if w not in _NOT_CONTENT and w not in _DATE_WORDS and not _has_digit(w)
        },
        focus=_focus(_QUOTED.sub(" ", text)),
    )


def _focus(text: str) -> str:
    """The first question word and what it asks for: "how many", "what year", "who"."""
    words = [_word(token) for _, token in _TOKEN.findall(text)]
    for i, word in enumerate(words):
        if word not in _QUESTION_WORDS:
            continue
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "how":
            return f"how {following}" if following in _HOW_DEGREES else "how"
        if word in ("what", "which"):
            asks_for = following and following not in _STOPWORDS and following not in _VERBS
            return f"what {_stem(following)}" if asks_for else "what"
        return "who" if word == "whom" else word
    return ""


def _word(token: str) -> str:
    """Lowercased, without possessive or inner apostrophes and dots ("O'Connor", "U.S.")."""
    word = token.casefold().removesuffix("'s").replace("'", "")
    return word if _has_digit(word) else word.replace(".", "")


def _names(
    tokens: list[str], words: tuple[str, ...], starts: list[bool], skip: set[int]
) -> dict[str, str]:
    names: dict[str, str] = {}
    for i, (token, word) in enumerate(zip(tokens, words, strict=True)):
        if token.islower() or word in _NOT_NAMES or i in skip or _has_digit(token):
            continue
        if not (starts[i] and word in _COMMON):
            names.setdefault(_stem(word), token.removesuffix("'s"))
    return names


def _dates(words: tuple[str, ...]) -> tuple[list[str], set[int]]:
    """Date terms and the token positions they cover (those are not names or superlatives)."""
    found, used = list[str](), set[int]()
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else ""
        if word in _DEICTIC and following in _PERIODS:
            found.append(f"{word} {_MONTH_OF.get(following, following)}")
            used.update((i, i + 1))
        elif i in used:
            continue
        elif word in _SINGLE_DATES:
            found.append(word)
            used.add(i)
        elif word in _MONTH_OF and _is_month(i, words):
            found.append(_MONTH_OF[word])
            used.add(i)
    return found, used


def _is_month(i: int, words: tuple[str, ...]) -> bool:
    """Whether words[i] is a month; "may", "march", "jun"... only next to a number or after
    "in", "of"... (not from capitals: "Shirley May Leigh", "Jun Takahashi")."""
    if words[i] not in _AMBIGUOUS_MONTHS:
        return True
    neighbours = words[max(i - 1, 0) : i] + words[i + 1 : i + 2]
    return any(_DIGITS.fullmatch(w) or _ORDINAL_DIGITS.fullmatch(w) for w in neighbours) or (
        i > 0 and words[i - 1] in _MONTH_CUES
    )


def _numbers(words: tuple[str, ...]) -> set[str]:
    """Every number, however written: "2,010" and "2010" -> 2010, "twenty-first" -> 21, "5
    million" -> 5000000; "1990s" and tokens like "F16" stay as written."""
    found, i = set(), 0
    while i < len(words):
        word = words[i]
        has_digit = _has_digit(word)
        value, after = (
            (None, i)
            if not has_digit and word not in _NUMBER_WORDS and "-" not in word
            else _read_number(words, i)
        )
        if value is None:
            if has_digit:  # "F16", "1990s", "007": as written
                found.add(word)
            i += 1
        else:
            found.add(_format(value))
            i = after
    return found


def _format(value: float) -> str:
    return str(int(value)) if value.is_integer() else repr(value)


def _read_number(words: tuple[str, ...], i: int) -> tuple[float | None, int]:
    """The number starting at words[i] and the index after it (None if there is none)."""
    value = _digits(words[i])
    if value is not None:
        i += 1
        while i < len(words) and words[i] in _SCALES:
            value, i = value * _SCALES[words[i]], i + 1
        return value, i
    total = current = 0.0
    start = i
    while i < len(words):
        word, small = words[i], _word_value(words[i])
        if small is not None and (i == start or _extends(current, small)):
            current, i = current + small, i + 1
            if word.split("-")[-1] in _ORDINALS:
                break
        elif word in _SCALES:
            scale, i = _SCALES[word], i + 1
            if scale == 100:
                current = (current or 1) * scale
            else:
                total, current = total + (current or 1) * scale, 0.0
        elif word == "and" and i > start and i + 1 < len(words) and _word_value(words[i + 1]):
            i += 1
        else:
            break
    return (None, i) if i == start else (total + current, i)


def _word_value(word: str) -> int | None:
    parts = word.split("-")
    if len(parts) > 2 or not all(p in _CARDINALS or p in _ORDINALS for p in parts):
        return None
    return sum(_CARDINALS.get(p, _ORDINALS.get(p, 0)) for p in parts)


def _extends(current: float, small: int) -> bool:
    """Whether a number word continues the one read so far ("twenty" "one"; not "one" "two")."""
    return current % 100 == 0 or (small < 10 and current % 10 == 0 and current % 100 >= 20)


def _digits(word: str) -> float | None:
    if m := _ORDINAL_DIGITS.fullmatch(word):
        return float(m.group(1))
    if _DECADE.fullmatch(word) or not _DIGITS.fullmatch(word) or word.startswith("0"):
        return None  # "1990s", "007": as written
    if _THOUSANDS.fullmatch(word):
        return float(word.replace(",", ""))
    try:
        return float(word)
    except ValueError:  # "1,2" or "1.2.3": not one number
        return None
