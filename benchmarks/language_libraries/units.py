"""One unit normaliser for the scorer, applied alike to the rule's raw strings, quantulum3's
unit names and pint's unit names, so that only real differences count.

Imported by systems.py; run the benchmark with
    bash benchmarks/language_libraries/run.sh
"""

from __future__ import annotations

import re

ALIASES = {
    "mile": ["mi", "mile", "miles", "statute mile"],
    "kilometer": ["km", "kms", "kilometre", "kilometer", "kilometres", "kilometers"],
    "meter": ["m", "metre", "meter", "metres", "meters"],
    "centimeter": ["cm", "centimetre", "centimeter", "centimetres", "centimeters"],
    "foot": ["ft", "foot", "feet"],
    "inch": ["in", "inch", "inches"],
    "kilogram": ["kg", "kgs", "kilogram", "kilograms", "kilogramme", "kilogrammes"],
    "gram": ["g", "gram", "grams", "gramme", "grammes"],
    "pound": ["lb", "lbs", "pound", "pounds", "pound-mass", "pound mass"],
    "ounce": ["oz", "ounce", "ounces"],
    "percent": ["%", "percent", "per cent", "percentage"],
    "USD": ["$", "usd", "dollar", "dollars", "united states dollar", "us dollar"],
    "EUR": ["eur", "euro", "euros", "€"],
    "degree_Fahrenheit": [
        "f",
        "°f",
        "fahrenheit",
        "degree fahrenheit",
        "degrees fahrenheit",
        "degf",
        "degree_fahrenheit",
    ],
    "degree_Celsius": [
        "c",
        "°c",
        "celsius",
        "degree celsius",
        "degrees celsius",
        "degc",
        "degree_celsius",
        "centigrade",
    ],
    "milliliter": [
        "ml",
        "millilitre",
        "milliliter",
        "millilitres",
        "milliliters",
        "cubic centimetre",
        "cubic centimeter",
        "cc",
        "cm³",
    ],
    "liter": ["l", "litre", "liter", "litres", "liters"],
    "gallon": ["gal", "gallon", "gallons"],
    "cup": ["cup", "cups"],
    "hour": ["h", "hr", "hrs", "hour", "hours"],
    "square_meter": [
        "square meter",
        "square meters",
        "square metre",
        "square metres",
        "m²",
        "meter ** 2",
        "sq m",
        "m2",
    ],
    "mile_per_hour": ["mph", "mile per hour", "miles per hour", "mile / hour", "mile_per_hour"],
    "kilometer_per_hour": [
        "km/h",
        "kph",
        "kmh",
        "kilometre per hour",
        "kilometer per hour",
        "kilometers per hour",
        "kilometres per hour",
        "kilometer / hour",
    ],
}
_TABLE = {alias: canon for canon, names in ALIASES.items() for alias in names}
NONE = {"", "dimensionless", "none", "number"}


def canon(unit: str | None) -> str | None:
    if unit is None:
        return None
    u = re.sub(r"\s+", " ", unit.strip().lower())
    if u in NONE:
        return None
    if u in _TABLE:
        return _TABLE[u]
    if u.endswith("s") and u[:-1] in _TABLE:
        return _TABLE[u[:-1]]
    return u  # unknown: kept as is, so it counts as a wrong unit
