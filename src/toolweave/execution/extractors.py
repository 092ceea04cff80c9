"""Deterministic extractors: numbers, percentages, quoted strings, dates, clock times, timezones,
unit conversions and arithmetic expressions, found in a piece of a question.

Each returns what it found in order of appearance; none of them needs a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache


@dataclass(frozen=True)
class Number:
    value: float
    percent: bool
    start: int


_NUMBER = re.compile(
    r"(?<![\w.:/])(?<!\w-)(?P<sign>[-−](?=\d))?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?![\w:/]|-\d|,\d|\.\d)(?P<pct>\s*(?:%|percent\b|per cent\b))?",
    re.IGNORECASE,
)


def numbers(text: str) -> list[Number]:
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match["num"].replace(",", ""))
        if match["sign"]:
            value = -value
        found.append(Number(value=value, percent=bool(match["pct"]), start=match.start()))
    return found


_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'([^']+)'(?!\w)")


def quoted(text: str) -> list[str]:
    return [next(g for g in match.groups() if g) for match in _QUOTED.finditer(text)]


def blank_quoted(text: str) -> str:
    """The text with quoted strings blanked out (same length), so their digits are not numbers."""
    return _QUOTED.sub(lambda match: " " * len(match.group()), text)


_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)(?!\w)|\b(?P<H>\d{1,2}):(?P<M>\d{2})\b"
    r"|\b(?P<word>noon|midnight)\b",
    re.IGNORECASE,
)


def clock_times(text: str) -> list[str]:
    """Clock times as 24-hour 'HH:MM'."""
    found = []
    for match in _CLOCK.finditer(text):
        if match["word"]:
            found.append("12:00" if match["word"].lower() == "noon" else "00:00")
            continue
        if match["H"] is not None:
            hour, minute = int(match["H"]), int(match["M"])
        else:
            hour, minute = int(match["h"]) % 12, int(match["m"] or 0)
            if match["ampm"].lower().startswith("p"):
                hour += 12
        if hour < 24 and minute < 60:
            found.append(f"{hour:02d}:{minute:02d}")
    return found


MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}  # fmt: skip
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DATE = re.compile(
    r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    r"|\b(?P<rel>today|tomorrow|yesterday)\b"
    r"|\b(?P<next>next\s+)?(?P<weekday>" + "|".join(WEEKDAYS) + r")\b"
    r"|\b" + _MONTH + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<y1>\d{4}))?\b"
    r"|\b(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    + _MONTH.replace("month", "month2")
    + r"(?:,?\s+(?P<y2>\d{4}))?\b",
    re.IGNORECASE,
)


def blank_dates(text: str) -> str:
    """The text with dates blanked out (same length), so their digits are not numbers."""
    return _DATE.sub(lambda match: " " * len(match.group()), text)


def dates(text: str, today: date) -> list[str]:
    """Dates as ISO 'YYYY-MM-DD'; relative words and weekdays are resolved against `today`."""
    found = []
    for match in _DATE.finditer(text):
        try:
            found.append(_resolve_date(match, today).isoformat())
        except ValueError:
            continue  # e.g. February 30
    return found


def _resolve_date(match: re.Match[str], today: date) -> date:
    if match["iso"]:
        return date.fromisoformat(match["iso"])
    if match["rel"]:
        shift = {"today": 0, "tomorrow": 1, "yesterday": -1}[match["rel"].lower()]
        return today + timedelta(days=shift)
    if match["weekday"]:
        ahead = (WEEKDAYS.index(match["weekday"].lower()) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)
    month = MONTHS[(match["month"] or match["month2"]).lower()]
    day = int(match["d1"] or match["d2"])
    year = match["y1"] or match["y2"]
    return date(int(year) if year else today.year, month, day)


# Places that are not the last part of an IANA name, mapped to a representative zone.
PLACE_ZONES = {
    "utc": "UTC", "gmt": "UTC", "japan": "Asia/Tokyo", "china": "Asia/Shanghai",
    "beijing": "Asia/Shanghai", "india": "Asia/Kolkata", "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata", "bangalore": "Asia/Kolkata",
    "uk": "Europe/London", "england": "Europe/London", "britain": "Europe/London",
    "france": "Europe/Paris", "germany": "Europe/Berlin", "spain": "Europe/Madrid",
    "italy": "Europe/Rome", "netherlands": "Europe/Amsterdam", "switzerland": "Europe/Zurich",
    "austria": "Europe/Vienna", "sweden": "Europe/Stockholm", "norway": "Europe/Oslo",
    "poland": "Europe/Warsaw", "ireland": "Europe/Dublin", "portugal": "Europe/Lisbon",
    "greece": "Europe/Athens", "turkey": "Europe/Istanbul", "russia": "Europe/Moscow",
    "israel": "Asia/Jerusalem", "egypt": "Africa/Cairo", "nigeria": "Africa/Lagos",
    "kenya": "Africa/Nairobi", "south africa": "Africa/Johannesburg",
    "brazil": "America/Sao_Paulo", "argentina": "America/Argentina/Buenos_Aires",
    "buenos aires": "America/Argentina/Buenos_Aires", "mexico": "America/Mexico_City",
    "california": "America/Los_Angeles", "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles", "washington": "America/New_York",
    "boston": "America/New_York", "miami": "America/New_York", "houston": "America/Chicago",
    "texas": "America/Chicago", "hawaii": "Pacific/Honolulu", "australia": "Australia/Sydney",
    "new zealand": "Pacific/Auckland", "korea": "Asia/Seoul", "south korea": "Asia/Seoul",
    "thailand": "Asia/Bangkok", "vietnam": "Asia/Ho_Chi_Minh", "hanoi": "Asia/Bangkok",
    "indonesia": "Asia/Jakarta", "philippines": "Asia/Manila", "pakistan": "Asia/Karachi",
    "bangladesh": "Asia/Dhaka", "uae": "Asia/Dubai", "saudi arabia": "Asia/Riyadh",
}  # fmt: skip


@cache
def _zone_names() -> dict[str, str]:
    """Lower-case place name -> IANA zone: each zone's city part, then the table above."""
    from zoneinfo import available_timezones

    names: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        if "/" in zone and not zone.startswith(("Etc/", "SystemV/", "US/")):
            names.setdefault(zone.rsplit("/", 1)[1].replace("_", " ").lower(), zone)
        names.setdefault(zone.lower(), zone)
    names.update(PLACE_ZONES)
    return names


def timezones(text: str) -> list[str]:
    """IANA zones for the places (or zone names) the text mentions, in order, without repeats."""
    return [zone for _, zone in timezone_mentions(text)]


def timezone_mentions(text: str) -> list[tuple[int, str]]:
    """(character position, IANA zone) of each place the text mentions, first mention only."""
    names = _zone_names()
    words = list(re.finditer(r"[A-Za-z][\w/+-]*", text))
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(words):
        for size in (3, 2, 1):  # longest match first: "New York" before "York"
            phrase = " ".join(w.group().lower() for w in words[i : i + size])
            # One lower-case word is too often a common noun ("time", "nice"): not a place.
            proper = size > 1 or words[i].group()[0].isupper() or "/" in phrase
            if len(phrase) > 1 and phrase in names and proper:
                if names[phrase] not in (zone for _, zone in found):
                    found.append((words[i].start(), names[phrase]))
                i += size
                break
        else:
            i += 1
    return found


# A capitalised name after a place preposition: "in Paris", "for New York", "near Lake Como".
_PLACE = re.compile(
    r"\b(?P<preposition>in|at|for|near|from|to|around)\s+((?:[A-Z][\w'.-]*)(?:\s+(?:de|del|upon|on)?\s*[A-Z][\w'.-]*)*)"
)
_CONNECTORS = {"de", "del", "upon", "on"}
_NOT_PLACES = (
    {"January", "February", "March", "April", "May", "June", "July", "August"}
    | {"September", "October", "November", "December", "Monday", "Tuesday", "Wednesday"}
    | {"Thursday", "Friday", "Saturday", "Sunday", "I"}
)


def places(text: str) -> list[str]:
    """Place names the text gives: a capitalised name after "in", "at", "for", "near"...,
    then any city the timezone table knows (which also finds them written in lower case)."""
    found = [name for _, name in _named_places(text)]
    for position, _zone in timezone_mentions(text):
        name = re.match(r"[A-Za-z][\w/+-]*(?:\s+[A-Za-z][\w/+-]*)*", text[position:])
        word = name.group().split()[0] if name else ""
        if word and not any(word.lower() in f.lower() for f in found):
            found.append(word.title())
    return found


def _named_places(text: str) -> list[tuple[str, str]]:
    """(preposition, place) for each capitalised name after a preposition of place."""
    found = []
    for match in _PLACE.finditer(text):
        # A sentence's full stop is no part of the name; "D.C." and "St." keep theirs.
        name = re.sub(r"(?<=[a-z]{2})\.$", "", match.group(2))
        words = name.split()
        # "London on August 15": the name ends before a month or a day.
        cut = next((n for n, word in enumerate(words) if word in _NOT_PLACES), len(words))
        while cut and words[cut - 1] in _CONNECTORS:
            cut -= 1
        if cut:
            found.append((match["preposition"], " ".join(words[:cut])))
    return found


def place_for_role(text: str, role: str) -> str | None:
    """The place a role names: "from" X for an origin, "to" Y for a destination."""
    wanted = {"origin": "from", "destination": "to"}[role]
    return next((name for word, name in _named_places(text) if word == wanted), None)


def clock_time_position(text: str) -> int | None:
    match = _CLOCK.search(text)
    return match.start() if match else None


def value_count(text: str, today: date) -> int:
    """How many specific values (numbers, quotes, dates, times, places) the text holds."""
    return (
        len(numbers(blank_quoted(text)))
        + len(quoted(text))
        + len(dates(text, today))
        + len(clock_times(text))
        + len(timezone_mentions(text))
    )


_CONVERSION = re.compile(
    r"(?P<num>[-−]?\d[\d,]*(?:\.\d+)?)\s*(?P<from>[°A-Za-z][\w°/² ]{0,24}?)\s+"
    r"(?:to|in|into|as)\s+(?P<to>[°A-Za-z][\w°/² ]{0,24}?)\s*(?:[?.!,]|$)",
    re.IGNORECASE,
)


def unit_conversions(text: str) -> list[tuple[float, str, str]]:
    """'10 miles to km' -> (10.0, 'miles', 'km')."""
    return [
        (float(m["num"].replace(",", "").replace("−", "-")), m["from"].strip(), m["to"].strip())
        for m in _CONVERSION.finditer(text)
    ]


_MATH_WORDS = [
    (r"\bmultiplied by\b|\btimes\b", "*"),
    (r"\bdivided by\b|\bover\b", "/"),
    (r"\bplus\b", "+"),
    (r"\bminus\b", "-"),
    (r"\bto the power of\b", "^"),
    (r"\bsquared\b", "^2"),
    (r"\bcubed\b", "^3"),
    (r"\bpercent\b|\bper cent\b", "%"),
]
_MATH_RUN = re.compile(
    r"(?:(?:sqrt|abs|round|floor|ceil|exp|ln|log|log10|log2|sin|cos|tan|min|max|pi)\b|"
    r"[\d.,()+\-*/^%×÷−]|\bof\b|\bmod\b|\s)+",
    re.IGNORECASE,
)


_OPERATOR = re.compile(r"[-+*/^%×÷−]|\b[a-z]\w*\s*\(|\bpi\b|\bmod\b", re.IGNORECASE)


def math_expression(text: str) -> str | None:
    """The longest arithmetic run with an operator ('what is 15% of 2,340?' -> '15% of 2,340')."""
    for pattern, symbol in _MATH_WORDS:
        text = re.sub(pattern, symbol, text, flags=re.IGNORECASE)
    best = ""
    for match in _MATH_RUN.finditer(text):
        run = match.group().strip(" ,.")
        run = re.sub(r"^(?:of\b|[+*/^%])\s*|\s*(?:\bof|[-+*/^(])$", "", run).strip(" ,.")
        if re.search(r"\d", run) and _OPERATOR.search(run) and len(run) > len(best):
            best = run
    return best or None
