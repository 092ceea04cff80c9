"""Numbers a text writes: in digits, with separators, signs and percentages ("2,340", "-3.5",
"15%"), or spelled out in several words ("ninety-eight thousand seven hundred sixty-five"); and
single number words ("the first three lines"), which are counts only where the words around them
say what they count (binding.py). None of them needs a model.
"""

from __future__ import annotations

import re

from toolweave.types import Number

# A unit of measure written against its number ("300K", "5m", "440Hz", "4.18J/K", "0.01m²"): the
# number stands; one with any other letters after it ("mp3", "3x", "v2", "5th") is no number.
_GLUED_UNIT = (
    r"(?:[kKMG]?Hz|[km]?m[²³23]?|cm[²³23]?|kg|mg|g|lbs?|ft|mph|kph|km/h|m/s²?|J/K|k?J|k?W|V|A|N|"
    r"k?Pa|K|°[CF]|ms|GB|MB|KB|TB)(?![\w/])"
)
# An exponent ("m/s^2", "x**3") is no number of its own.
_NUMBER = re.compile(
    r"(?<![\w.:/^])(?<!\w-)(?<!\*\*)(?P<sign>[-−](?=\d))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    rf"(?:(?=(?-i:{_GLUED_UNIT}))|(?![\w/]|:\S|-\d|,\d|\.\d))"
    r"(?P<scale>\s+(?:thousand|million|billion|trillion)\b)?"
    r"(?P<pct>\s*(?:%|percent\b|per cent\b))?",
    re.IGNORECASE,
)
_TIMES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


def numbers(text: str) -> list[Number]:
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match["num"].replace(",", "")) * _TIMES.get(
            (match["scale"] or "").strip().lower(), 1
        )
        if match["sign"]:
            value = -value
        percent = bool(match["pct"])
        found.append(Number(value=value, percent=percent, start=match.start(), end=match.end()))
    return sorted(found + _spelled_out(text), key=lambda number: number.start)


# Numbers spelled out in several words: "ninety-eight thousand seven hundred sixty-five". One
# word alone ("three") is a count, read where the words around it say so (`number_words`).
_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
_UNITS += " fifteen sixteen seventeen eighteen nineteen"
_SPELLED = {w: n for n, w in enumerate(_UNITS.split())} | {
    w: 10 * n
    for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_WORD = rf"(?:{'|'.join([*_SPELLED, *_SCALES])})"
_AFTER_SCALE = "|".join(f"(?<={scale})" for scale in _SCALES)  # "one hundred and five"
_SPELLED_OUT = re.compile(
    rf"\b{_WORD}(?:(?:[\s-]+|(?:{_AFTER_SCALE})\s+and\s+){_WORD})+\b", re.IGNORECASE
)


def _spelled_out(text: str) -> list[Number]:
    """Each phrase read as English writes a number; one that is not ("two three") is none."""
    found = []
    for match in _SPELLED_OUT.finditer(text):
        value = _spelled_value(re.findall(r"[a-z]+", match.group().lower()))
        if value is not None:
            found.append(Number(value=float(value), start=match.start(), end=match.end()))
    return found


def _spelled_value(words: list[str]) -> int | None:
    """None for words that are no one number: "two three", "five twenty", "one hundred
    hundred", "thousand thousand" (each larger scale comes first, "hundred" once below it)."""
    total = current = 0
    last, below = "", float("inf")  # the kind of the word before; the scale to stay under
    for word in [w for w in words if w != "and"]:
        kind = "scale" if word in _SCALES else "tens" if _SPELLED[word] >= 20 else "unit"
        if (kind == "unit" and last == "unit") or (kind == "tens" and last in ("unit", "tens")):
            return None
        if word == "hundred":
            if current >= 100:
                return None
            current = (current or 1) * 100
        elif kind == "scale":
            if _SCALES[word] >= below:
                return None
            total, current, below = total + (current or 1) * _SCALES[word], 0, _SCALES[word]
        else:
            current += _SPELLED[word]
        last = kind
    return total + current


_WORD_NUMBERS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
} | {"fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50, "hundred": 100}
_NUMBER_WORD = re.compile(rf"\b(?:{'|'.join(_WORD_NUMBERS)})\b", re.IGNORECASE)
NUMBER_WORDS = frozenset(_WORD_NUMBERS)


def number_words(text: str) -> list[Number]:
    """Numbers written as words ("the first three lines"): counts, read only where the words
    around them name what they count (binding._counts_in_context)."""
    return [
        Number(value=_WORD_NUMBERS[m.group().lower()], start=m.start(), end=m.end())
        for m in _NUMBER_WORD.finditer(text)
    ]
