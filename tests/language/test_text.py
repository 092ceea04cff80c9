from __future__ import annotations

import pytest

from toolweave.language.text import readable_name, sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "It was written jointly with David J. Smith in 1990. He left.",
            ["It was written jointly with David J. Smith in 1990.", "He left."],
        ),
        (
            "Hornblower is by C. S. Forester. It sold.",
            ["Hornblower is by C. S. Forester.", "It sold."],
        ),
        # A lone capital after a lower-case word ends the sentence: a grade, not an initial.
        ("Six hours of C. Send an SMS.", ["Six hours of C.", "Send an SMS."]),
        ("He moved to Washington, D.C. Soccer won.", ["He moved to Washington, D.C. Soccer won."]),
        ("Use e.g. a hammer. Then stop.", ["Use e.g. a hammer.", "Then stop."]),
        ("csv files in /a? incl. subfolders", ["csv files in /a?", "incl. subfolders"]),
        (
            "Pull up a.py, i.e. the version at HEAD~3.",
            ["Pull up a.py, i.e. the version at HEAD~3."],
        ),
        ("Dr. Who came. Mr. Li left!", ["Dr. Who came.", "Mr. Li left!"]),
        ("Version 3.5 is out. Try it?", ["Version 3.5 is out.", "Try it?"]),
        # Numbers and versions end sentences; so does a label before a sentence opener.
        ("Set it to 4.2.3. Finally, go.", ["Set it to 4.2.3.", "Finally, go."]),
        ("Check Farm A. Secondly, wait.", ["Check Farm A.", "Secondly, wait."]),
        ("Open 8 a.m. to 6 p.m. Then rest.", ["Open 8 a.m. to 6 p.m.", "Then rest."]),
        ("one line\nanother line", ["one line", "another line"]),
        # A company's name ends a sentence when one opens after it.
        ("I met Acme Corp. Could you add it?", ["I met Acme Corp.", "Could you add it?"]),
        ("Acme Corp. is a maker of anvils.", ["Acme Corp. is a maker of anvils."]),
        # A question mark after "=" or an arrow is the blank asked for, not a sentence's end.
        ("08:00 dubai = ? singapore", ["08:00 dubai = ? singapore"]),
        ("5 km -> ? miles. Thanks", ["5 km -> ? miles.", "Thanks"]),
    ],
)
def test_sentences_keep_names_and_abbreviations_whole(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_prose_breaks_only_at_blank_lines_and_bullets() -> None:
    text = "A paragraph that\nwraps here.\n\n- a bullet\n- another"
    assert sentences(text, lines=False) == [
        "A paragraph that wraps here.",
        "- a bullet",
        "- another",
    ]
    assert sentences("ok. no") == ["ok."]  # shorter than min_chars


def test_readable_names() -> None:
    assert readable_name("getWeatherForecast") == "get weather forecast"
    assert readable_name("PDF&URLTool") == "pdf url tool"


def test_asides_are_left_out_unless_they_hold_what_is_kept() -> None:
    from toolweave.language.text import without_asides

    sentence = "Jeff Porcaro (April 1, 1954 – August 5, 1992) was a drummer (of Toto)."
    assert without_asides(sentence) == "Jeff Porcaro was a drummer."
    assert without_asides(sentence, "Toto") == "Jeff Porcaro was a drummer (of Toto)."
    kept = without_asides(sentence, numbers=True)
    assert kept == "Jeff Porcaro (April 1, 1954 – August 5, 1992) was a drummer."
    assert without_asides("(all of it)") == "(all of it)"  # never nothing
