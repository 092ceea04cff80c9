from __future__ import annotations

import pytest

from toolweave.retrieval.decompose import split_clauses


@pytest.mark.parametrize(
    ("question", "clauses"),
    [
        (
            "What is 15% of 2,340, and what time is it in Tokyo?",
            ["What is 15% of 2,340", "what time is it in Tokyo?"],
        ),
        ("What is toolweave and how much is 2^10?", ["What is toolweave", "how much is 2^10?"]),
        (
            "Convert 10 miles to km. Then tell me the time in Paris",
            ["Convert 10 miles to km.", "tell me the time in Paris"],
        ),
        (
            "Find flights from Paris to Rome; book a hotel",
            ["Find flights from Paris to Rome", "book a hotel"],
        ),
        ("I need salt and pepper prices", ["I need salt and pepper prices"]),
        ("What is 1,000,000 divided by 3?", ["What is 1,000,000 divided by 3?"]),
        (
            "What is the distance between Paris and London?",
            ["What is the distance between Paris and London?"],
        ),
        (
            "Book a hotel in Paris and tell me the weather there tomorrow",
            ["Book a hotel in Paris", "tell me the weather in Paris tomorrow"],
        ),
        (
            "Find flights to New York. What's the time over there?",
            ["Find flights to New York.", "What's the time in New York?"],
        ),
        (
            "Book a hotel in Rome and is there a train from the airport?",
            ["Book a hotel in Rome", "is there a train from the airport?"],
        ),
        ("   ", []),
        ("?!", ["?!"]),
    ],
)
def test_split_clauses(question: str, clauses: list[str]) -> None:
    assert [s.text for s in split_clauses(question)] == clauses


def test_indices_are_positions() -> None:
    assert [s.index for s in split_clauses("What is 2+2, and what is 3+3?")] == [0, 1]


@pytest.mark.parametrize(
    ("question", "clauses"),
    [
        # A quoted list goes on after ", and"; "Then," and "After that," are no requests.
        (
            "Plan a route through 'Rome', 'Pisa', and 'Siena'. Then, find the lyrics of "
            "'Yesterday'. After that, calculate the pace.",
            [
                "Plan a route through 'Rome', 'Pisa', and 'Siena'.",
                "find the lyrics of 'Yesterday'.",
                "calculate the pace.",
            ],
        ),
        ("Search for a car in Oslo and reserve it.", ["Search for a car in Oslo", "reserve it."]),
    ],
)
def test_lists_connectives_and_more_verbs(question: str, clauses: list[str]) -> None:
    assert [s.text for s in split_clauses(question)] == clauses
