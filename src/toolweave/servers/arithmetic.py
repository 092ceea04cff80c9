"""A safe arithmetic evaluator: a tokenizer and a recursive-descent parser, never `eval`.

Grammar (lowest to highest precedence):
    expr    := term (("+" | "-") term)*
    term    := unary (("*" | "/" | "mod") unary)*
    unary   := ("+" | "-") unary | power
    power   := percent ("^" unary)?            right-associative; "**" is accepted for "^"
    percent := primary ("%" ("of" unary)?)?    "15%" is 0.15; "15% of 2,340" is 351
    primary := NUMBER | CONSTANT | FUNCTION "(" expr ("," expr)* ")" | "(" expr ")"
Numbers may carry thousands separators ("2,340") and exponents ("1.5e3").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

MAX_EXPRESSION_CHARS = 1000
MAX_MAGNITUDE = 1e300


class ExpressionError(ValueError):
    """The expression cannot be evaluated; the message says why."""


_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
      | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<op>\*\*|[-+*/^%(),×÷−])
    )""",
    re.VERBOSE,
)
_OP_ALIASES = {"×": "*", "÷": "/", "−": "-", "**": "^"}

CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": lambda x, n=0: round(x, int(n)),
    "floor": math.floor,
    "ceil": math.ceil,
    "exp": math.exp,
    "ln": math.log,
    "log": lambda x, base=10: math.log(x, base),
    "log10": math.log10,
    "log2": math.log2,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "min": min,
    "max": max,
}


def tokenize(text: str) -> list[str]:
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ExpressionError(f"unexpected character {text[pos]!r} at position {pos + 1}")
        kind = match.lastgroup
        value = match.group(kind) if kind else ""
        if kind == "number":
            value = value.replace(",", "")
        elif kind == "name":
            value = value.lower()
        tokens.append(_OP_ALIASES.get(value, value))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None:
            raise ExpressionError("the expression ends too early")
        if expected is not None and token != expected:
            raise ExpressionError(f"expected {expected!r} but found {token!r}")
        self.pos += 1
        return token

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.unary()
        while self.peek() in ("*", "/", "mod"):
            op, right = self.take(), self.unary()
            if op == "*":
                value *= right
            elif right == 0:
                raise ExpressionError("division by zero")
            else:
                value = value / right if op == "/" else math.fmod(value, right)
        return value

    def unary(self) -> float:
        if self.peek() in ("+", "-"):
            sign = -1.0 if self.take() == "-" else 1.0
            return sign * self.unary()
        return self.power()

    def power(self) -> float:
        base = self.percent()
        if self.peek() == "^":
            self.take()
            return math.pow(base, self.unary())
        return base

    def percent(self) -> float:
        value = self.primary()
        if self.peek() == "%":
            self.take()
            value /= 100
            if self.peek() == "of":
                self.take()
                value *= self.unary()
        return value

    def primary(self) -> float:
        token = self.take()
        if token == "(":
            value = self.expr()
            self.take(")")
            return value
        if token in CONSTANTS:
            return CONSTANTS[token]
        if token in FUNCTIONS:
            return self.call(token)
        if token[0].isdigit() or token[0] == ".":
            return float(token)
        raise ExpressionError(f"unexpected {token!r}")

    def call(self, name: str) -> float:
        self.take("(")
        args = [self.expr()]
        while self.peek() == ",":
            self.take()
            args.append(self.expr())
        self.take(")")
        try:
            return float(FUNCTIONS[name](*args))
        except TypeError:
            raise ExpressionError(f"{name}() does not take {len(args)} argument(s)") from None


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression, or ExpressionError saying what is wrong."""
    if not expression.strip():
        raise ExpressionError("the expression is empty")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    parser = _Parser(tokenize(expression))
    try:
        value = parser.expr()
    except (OverflowError, ValueError) as exc:
        if isinstance(exc, ExpressionError):
            raise
        raise ExpressionError(f"math error: {exc}") from None
    if parser.peek() is not None:
        raise ExpressionError(f"unexpected {parser.peek()!r} after a complete expression")
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise ExpressionError("the result is not a finite real number")
    return value


def format_number(value: float) -> str:
    """Integers without decimals, others to 10 significant digits, with thousands separators."""
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)) and abs(value) < 1e15:
        return f"{round(value):,}"
    text = f"{value:,.10g}" if abs(value) < 1e15 else f"{value:.10g}"
    return text
