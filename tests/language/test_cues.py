from __future__ import annotations

import pytest

from toolweave.language.cues import searchable


@pytest.mark.parametrize(
    ("text", "searched"),
    [
        ("Can you help me find a hotel in Rome?", "find a hotel in Rome?"),
        ("I need your help to track a package.", "track a package."),
        ("Please help me to translate this", "translate this"),
        ("I'm looking for a vegan restaurant", "a vegan restaurant"),
        ("I would like to book a flight", "book a flight"),
        # Questions keep their words; a wrapper with nothing after it stays as it is.
        ("What time is it in Tokyo?", "What time is it in Tokyo?"),
        ("Please help me.", "Please help me."),
    ],
)
def test_the_request_wrapper_is_not_searched(text: str, searched: str) -> None:
    assert searchable(text) == searched
