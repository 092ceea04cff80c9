from __future__ import annotations

import math

import pytest

from toolweave.servers.arithmetic import ExpressionError, evaluate, format_number
from toolweave.servers.units import UnitError, convert


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("15% of 2,340", 351.0),
        ("2,340 * 15 / 100", 351.0),
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("2 ^ 3 ^ 2", 512.0),
        ("2 ** 10", 1024.0),
        ("-2 ^ 2", -4.0),
        ("10 mod 4", 2.0),
        ("sqrt(16) + abs(-3)", 7.0),
        ("round(2 / 3, 2)", 0.67),
        ("max(1, 5, 3)", 5.0),
        ("1.5e3 + .5", 1500.5),
        ("3 × 4 ÷ 2 − 1", 5.0),
        ("50%", 0.5),
    ],
)
def test_expressions(expression: str, value: float) -> None:
    assert evaluate(expression) == pytest.approx(value)


def test_pi_and_log() -> None:
    assert evaluate("2 * pi") == pytest.approx(math.tau)
    assert evaluate("log(1000)") == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "empty"),
        ("1 / 0", "division by zero"),
        ("__import__('os')", "unexpected"),
        ("2 +", "ends too early"),
        ("(1 + 2", "ends too early"),
        ("1 2", "after a complete expression"),
        ("9 ^ 9 ^ 9", "math error"),
        ("sqrt(-1)", "math error"),
        ("(-8) ^ 0.5", "math error"),
        ("foo(1)", "unexpected"),
        ("1;2", "unexpected character"),
        ("1" * 2000, "longer than"),
    ],
)
def test_bad_expressions_say_why(expression: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message):
        evaluate(expression)


def test_format_number() -> None:
    assert format_number(351.0) == "351"
    assert format_number(1234567.0) == "1,234,567"
    assert format_number(2 / 3) == "0.6666666667"


@pytest.mark.parametrize(
    ("value", "a", "b", "expected"),
    [
        (10, "miles", "km", 16.09344),
        (1, "kg", "lbs", 2.20462262),
        (212, "°F", "celsius", 100.0),
        (0, "C", "K", 273.15),
        (1, "GiB", "MB", 1073.741824),
        (90, "km/h", "m/s", 25.0),
        (2, "hours", "minutes", 120.0),
        (1, "acre", "m²", 4046.8564224),
    ],
)
def test_unit_conversion(value: float, a: str, b: str, expected: float) -> None:
    assert convert(value, a, b)[0] == pytest.approx(expected)


def test_unit_errors() -> None:
    with pytest.raises(UnitError, match="unknown unit 'furlongs per fortnight'"):
        convert(1, "furlongs per fortnight", "m/s")
    with pytest.raises(UnitError, match="cannot convert length"):
        convert(1, "km", "kg")
