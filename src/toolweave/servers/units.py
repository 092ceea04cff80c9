"""Unit conversion by table: each unit is a factor to its dimension's base unit.

Temperature is affine (an offset as well as a factor), so it has its own formula.
"""

from __future__ import annotations

import re

# dimension -> {canonical unit: factor to the base unit (the one with factor 1)}
UNITS: dict[str, dict[str, float]] = {
    "length": {
        "mm": 1e-3, "cm": 1e-2, "m": 1.0, "km": 1e3, "in": 0.0254, "ft": 0.3048,
        "yd": 0.9144, "mi": 1609.344, "nmi": 1852.0,
    },
    "mass": {
        "mg": 1e-6, "g": 1e-3, "kg": 1.0, "t": 1e3, "oz": 0.028349523125,
        "lb": 0.45359237, "st": 6.35029318,
    },
    "volume": {
        "ml": 1e-3, "cl": 1e-2, "dl": 0.1, "l": 1.0, "m3": 1e3, "tsp": 0.00492892159375,
        "tbsp": 0.01478676478125, "cup": 0.2365882365, "fl oz": 0.0295735295625,
        "pt": 0.473176473, "qt": 0.946352946, "gal": 3.785411784,
    },
    "time": {
        "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "day": 86400.0, "week": 604800.0,
        "year": 31557600.0,
    },
    "speed": {"m/s": 1.0, "km/h": 1 / 3.6, "mph": 0.44704, "kn": 1852 / 3600, "ft/s": 0.3048},
    "area": {
        "m2": 1.0, "km2": 1e6, "ha": 1e4, "acre": 4046.8564224, "ft2": 0.09290304,
        "mi2": 2589988.110336,
    },
    "data": {
        "bit": 0.125, "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
        "KiB": 1024.0, "MiB": 1024.0**2, "GiB": 1024.0**3, "TiB": 1024.0**4,
    },
    "energy": {"J": 1.0, "kJ": 1e3, "cal": 4.184, "kcal": 4184.0, "Wh": 3600.0, "kWh": 3.6e6},
    "temperature": {"C": 1.0, "F": 1.0, "K": 1.0},
}  # fmt: skip

_ALIASES: dict[str, str] = {
    "millimeter": "mm", "centimeter": "cm", "meter": "m", "metre": "m", "kilometer": "km",
    "kilometre": "km", "inch": "in", "inches": "in", "foot": "ft", "feet": "ft", "yard": "yd",
    "mile": "mi", "nautical mile": "nmi", "milligram": "mg", "gram": "g", "kilogram": "kg",
    "kilo": "kg", "tonne": "t", "ton": "t", "ounce": "oz", "pound": "lb", "lbs": "lb",
    "stone": "st", "milliliter": "ml", "millilitre": "ml", "liter": "l", "litre": "l",
    "cubic meter": "m3", "teaspoon": "tsp", "tablespoon": "tbsp", "fluid ounce": "fl oz",
    "floz": "fl oz", "pint": "pt", "quart": "qt", "gallon": "gal", "millisecond": "ms",
    "second": "s", "sec": "s", "minute": "min", "hour": "h", "hr": "h", "d": "day",
    "wk": "week", "yr": "year", "kph": "km/h", "kmh": "km/h", "km per hour": "km/h",
    "kilometers per hour": "km/h", "miles per hour": "mph", "knot": "kn", "kt": "kn",
    "meters per second": "m/s", "square meter": "m2", "sq m": "m2", "square kilometer": "km2",
    "hectare": "ha", "square foot": "ft2", "square feet": "ft2", "sq ft": "ft2",
    "square mile": "mi2", "byte": "B", "kilobyte": "KB", "megabyte": "MB", "gigabyte": "GB",
    "terabyte": "TB", "kibibyte": "KiB", "mebibyte": "MiB", "gibibyte": "GiB",
    "tebibyte": "TiB", "joule": "J", "kilojoule": "kJ", "calorie": "cal", "kilocalorie": "kcal",
    "watt hour": "Wh", "kilowatt hour": "kWh", "celsius": "C", "centigrade": "C",
    "fahrenheit": "F", "kelvin": "K", "°c": "C", "°f": "F", "degc": "C", "degf": "F",
}  # fmt: skip

_CANONICAL = {unit.lower(): (dim, unit) for dim, table in UNITS.items() for unit in table}


class UnitError(ValueError):
    """An unknown unit or two units of different dimensions."""


def resolve(name: str) -> tuple[str, str]:
    """(dimension, canonical unit) for a unit name, symbol or plural."""
    key = re.sub(r"\s+", " ", name.strip().lower().replace("²", "2").replace("³", "3"))
    key = key.removeprefix("degrees ").removeprefix("degree ")
    for candidate in (key, key.removesuffix("s"), key.removesuffix("es")):
        canonical = _ALIASES.get(candidate, candidate)
        if canonical.lower() in _CANONICAL:
            return _CANONICAL[canonical.lower()]
    raise UnitError(f"unknown unit {name!r}; known units: {', '.join(sorted(_CANONICAL))}")


def convert(value: float, from_unit: str, to_unit: str) -> tuple[float, str, str]:
    """The converted value and the canonical names of both units."""
    (dim_a, a), (dim_b, b) = resolve(from_unit), resolve(to_unit)
    if dim_a != dim_b:
        raise UnitError(f"cannot convert {dim_a} ({a}) to {dim_b} ({b})")
    if dim_a == "temperature":
        return _from_kelvin(_to_kelvin(value, a), b), a, b
    return value * UNITS[dim_a][a] / UNITS[dim_b][b], a, b


def _to_kelvin(value: float, unit: str) -> float:
    return {"C": value + 273.15, "F": (value - 32) * 5 / 9 + 273.15, "K": value}[unit]


def _from_kelvin(value: float, unit: str) -> float:
    return {"C": value - 273.15, "F": (value - 273.15) * 9 / 5 + 32, "K": value}[unit]
