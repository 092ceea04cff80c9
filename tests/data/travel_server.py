"""A small stdio MCP travel server for the tests: flights are searched by airport ids that only
the airport search gives, so a question about flights needs a chain of two tools."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

server = MCPServer("travel")
AIRPORTS = {"oslo": "OSL", "rome": "FCO", "paris": "CDG"}


class Airport(BaseModel):
    skyId: str  # the field name a real flight API uses
    name: str


class Flights(BaseModel):
    summary: str
    prices: list[int]


@server.tool(description="Find the airport of a city by the city's name")
def search_airport(query: Annotated[str, Field(description="City name")]) -> Airport:
    code = AIRPORTS.get(query.strip().lower(), query[:3].upper())
    return Airport(skyId=code, name=f"{query} airport")


@server.tool(description="Search flights from one airport to another on a day")
def search_flights(
    originSkyId: Annotated[str, Field(description="Origin airport id")],
    destinationSkyId: Annotated[str, Field(description="Destination airport id")],
    date: Annotated[str, Field(description="Day as YYYY-MM-DD")],
) -> Flights:
    return Flights(
        summary=f"3 flights {originSkyId} to {destinationSkyId} on {date}", prices=[89, 120, 240]
    )


if __name__ == "__main__":
    server.run()
