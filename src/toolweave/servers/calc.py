"""`calc`: a stdio MCP server for safe arithmetic, percentages and unit conversion.

Run: python -m toolweave.servers.calc [--transport streamable-http --port 8000]
"""

from __future__ import annotations

import argparse
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from toolweave.servers import arithmetic, units
from toolweave.servers.arithmetic import format_number as fmt
from toolweave.servers.transport import add_transport_options, serve

PURE = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


class CalcResult(BaseModel):
    result: float
    summary: str = Field(description="The calculation and its result as one line of text")


def calculate(
    expression: Annotated[
        str,
        Field(
            description="Arithmetic expression, e.g. '(1,200 - 40) * 1.2', '8% of 50', 'sqrt(2)'"
        ),
    ],
) -> CalcResult:
    try:
        value = arithmetic.evaluate(expression)
    except arithmetic.ExpressionError as exc:
        raise ToolError(f"cannot evaluate {expression!r}: {exc}") from None
    return CalcResult(result=value, summary=f"{expression.strip()} = {fmt(value)}")


def percentage(
    percent: Annotated[float, Field(description="The percentage as a number, e.g. 20 for 20%")],
    value: Annotated[float, Field(description="The number to take the percentage of")],
) -> CalcResult:
    result = percent / 100 * value
    return CalcResult(result=result, summary=f"{fmt(percent)}% of {fmt(value)} = {fmt(result)}")


def percent_change(
    old: Annotated[float, Field(description="The original value")],
    new: Annotated[float, Field(description="The new value")],
) -> CalcResult:
    if old == 0:
        raise ToolError("the percent change from 0 is undefined")
    change = (new - old) / abs(old) * 100
    return CalcResult(
        result=change, summary=f"from {fmt(old)} to {fmt(new)} is a change of {fmt(change)}%"
    )


def convert_units(
    value: Annotated[float, Field(description="The quantity to convert")],
    from_unit: Annotated[str, Field(description="Unit of the quantity, e.g. 'km', 'lb', '°F'")],
    to_unit: Annotated[str, Field(description="Unit to convert to, e.g. 'mi', 'kg', 'C'")],
) -> CalcResult:
    try:
        result, a, b = units.convert(value, from_unit, to_unit)
    except units.UnitError as exc:
        raise ToolError(str(exc)) from None
    return CalcResult(result=result, summary=f"{fmt(value)} {a} = {fmt(result)} {b}")


def create_server() -> MCPServer:
    server = MCPServer("toolweave-calc", instructions="Exact arithmetic, percentages and units.")
    server.tool(
        description="Evaluate an arithmetic expression exactly: + - * / ^ mod, parentheses, "
        "percentages, square roots, logarithms, rounding, min, max and pi.",
        annotations=PURE,
    )(calculate)
    server.tool(
        description="Take a percentage of a number: the given percent of a value.",
        annotations=PURE,
    )(percentage)
    server.tool(
        description="The percent change from an old value to a new value (a rise or a fall).",
        annotations=PURE,
    )(percent_change)
    server.tool(
        description="Convert a quantity between units of length, mass, volume, time, speed, "
        "area, data size, energy or temperature.",
        annotations=PURE,
    )(convert_units)
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_transport_options(parser)
    serve(create_server(), parser.parse_args())


if __name__ == "__main__":
    main()
