from __future__ import annotations

from datetime import date

import pytest

from toolweave.language import values as ex
from toolweave.language.binding import place_for_role
from toolweave.language.values import read_values

TODAY = date(2026, 11, 22)  # a Sunday


def test_numbers_with_separators_signs_and_percentages() -> None:
    found = ex.numbers("What is 15% of 2,340 and -3.5 plus 12 percent?")
    assert [(n.value, n.percent) for n in found] == [
        (15, True),
        (2340, False),
        (-3.5, False),
        (12, True),
    ]


def test_a_quote_the_request_goes_on_composing_is_no_whole_value() -> None:
    """Seen on the fresh dev asks: "add "lives in" plus that city" wrote "lives in" alone."""
    text = 'add "lives in" plus that city as an observation on Bob'
    assert ex.read_values(text, date(2026, 11, 22)).quoted == []
    assert [
        q.value for q in ex.read_values('add "lives in Leeds" to Bob', date(2026, 11, 22)).quoted
    ] == ["lives in Leeds"]


def test_numbers_spelled_out_in_several_words() -> None:
    text = "add ninety-eight thousand seven hundred sixty-five and 12345"
    found = [(n.value, text[n.start : n.end]) for n in ex.numbers(text)]
    assert found == [(98765, "ninety-eight thousand seven hundred sixty-five"), (12345, "12345")]
    assert [n.value for n in ex.numbers("one hundred and five")] == [105]
    # One word is a count, read where it counts; two words that are no one number are none.
    assert ex.numbers("the first three lines") == [] and ex.numbers("two and three") == []
    for text in ("one hundred hundred", "thousand thousand", "five thousand million"):
        assert ex.numbers(text) == []  # each larger scale first: no one number
    assert ex.numbers(" ".join(["hundred"] * 200)) == []  # and no overflow


def test_numbers_skip_times_dates_and_names() -> None:
    assert ex.numbers("at 10:30 on 2026-11-22 see COVID-19 and mp3") == []


def test_quoted() -> None:
    assert ex.quoted("search for \"red shoes\" and “blue hats” but it's 'fine'") == [
        "red shoes",
        "blue hats",
        "fine",
    ]
    # An apostrophe between letters is part of a single-quoted text.
    assert ex.quoted("replace 'the client's logo' with 'received' in Bob's a.txt") == [
        "the client's logo",
        "received",
    ]


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("meet at 3pm", ["15:00"]),
        ("at 9:05 a.m.", ["09:05"]),
        ("14:30 in Paris", ["14:30"]),
        ("noon", ["12:00"]),
        ("12am", ["00:00"]),
    ],
)
def test_clock_times(text: str, times: list[str]) -> None:
    assert ex.clock_times(text) == times


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("on 2026-12-01", ["2026-12-01"]),
        ("tomorrow and yesterday", ["2026-11-23", "2026-11-21"]),
        ("next Friday", ["2026-11-27"]),
        ("on Sunday", ["2026-11-29"]),
        ("March 3rd, 2027", ["2027-03-03"]),
        ("3 March", ["2026-03-03"]),
        ("February 30", []),
        # Which number is the month only the writer knows: copied as written, no sum either.
        ("a bus on 01/15/2024", ["01/15/2024"]),
        ("on 11/02/2024 at 10:00", ["11/02/2024"]),
        ("in /srv/11/02/2024.log", []),
    ],
)
def test_dates(text: str, dates: list[str]) -> None:
    assert ex.dates(text, TODAY) == dates
    if "/" in "".join(dates):
        assert ex.read_values(text, TODAY).expression is None


@pytest.mark.parametrize(
    ("text", "zones"),
    [
        ("what time is it in Tokyo?", ["Asia/Tokyo"]),
        ("from New York to Los Angeles", ["America/New_York", "America/Los_Angeles"]),
        ("time in Japan and in India", ["Asia/Tokyo", "Asia/Kolkata"]),
        ("Europe/Paris please", ["Europe/Paris"]),
        ("is it time to eat?", []),
        ("convert 9:00 UTC to Paris time", ["UTC", "Europe/Paris"]),
        ("NYC time now?", ["America/New_York"]),
        ("what time is it in São Paulo?", ["America/Sao_Paulo"]),  # written without accents
        ("18:00 utc -> dubai", ["UTC", "Asia/Dubai"]),
        ("9:00 CET in MET", ["CET", "MET"]),
        ("who narrates How I Met Your Mother?", []),  # an abbreviation is written in capitals
        ("Is Time Warner Center taller, or One Manhattan Square?", []),  # no city: a direction
        ("Who played for West Ham?", []),
        ("time in Canada/Central", ["Canada/Central"]),
        # A city in lower case beside a clock time or after a place word; a common word is none.
        ("08:15 dhaka → tokyo?", ["Asia/Dhaka", "Asia/Tokyo"]),
        ("what time is it in tokyo", ["Asia/Tokyo"]),
        ("wake me at 7:00 at christmas", []),
        ("lima beans for dinner", []),
        # before the word for its time; a UTC offset asked for is no zone
        ("tokyo clock rn + utc offset", ["Asia/Tokyo"]),
        ("What is the current time there, with its UTC offset?", []),
    ],
)
def test_timezones(text: str, zones: list[str]) -> None:
    assert ex.timezones(text) == zones


def test_unit_conversions() -> None:
    assert ex.unit_conversions("convert 10 miles to km") == [(10.0, "miles", "km")]
    assert ex.unit_conversions("what is 1,500 ml in cups?") == [(1500.0, "ml", "cups")]


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("What is 15% of 2,340", "15% of 2,340"),
        ("how much is (3 + 4) * 12?", "(3 + 4) * 12"),
        ("what is 7 times 6 plus 1", "7 * 6 + 1"),
        ("compute sqrt(2) please", "sqrt(2)"),
        ("no numbers here", None),
    ],
)
def test_math_expression(text: str, expression: str | None) -> None:
    assert ex.math_expression(text) == expression


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("find hotels in London.", ["London"]),
        ("Find hotels in London. What time is it?", ["London"]),
        ("flights to Washington D.C.", ["Washington D.C."]),
        ("I'm flying to LA. What time is it?", ["LA"]),
        ("a walk in St. James's Park", ["St. James's Park"]),
        ("from New York to London on August 15", ["New York", "London"]),
        ("a weekend in Stratford upon Avon", ["Stratford upon Avon"]),
    ],
)
def test_place_names_end_where_the_name_does(text: str, places: list[str]) -> None:
    assert ex.places(text) == places


def test_the_place_of_a_role() -> None:
    text = "a flight to Rome from Oslo"
    assert place_for_role(read_values(text, TODAY), "origin") == "Oslo"
    assert place_for_role(read_values(text, TODAY), "destination") == "Rome"
    assert place_for_role(read_values("a flight in June", TODAY), "origin") is None


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        (
            'edit /a/todo.md: replace "leaking tap" with "kitchen tap"',
            [("leaking tap", "kitchen tap")],
        ),
        (
            "in my list /a/todo.md swap leaking tap for kitchen tap",
            [("leaking tap", "kitchen tap")],
        ),
        ('replace the word "foo" with "bar" in /a/b.txt', [("foo", "bar")]),
        ("In a.txt, change hello to goodbye.", [("hello", "goodbye")]),
        (
            'edit /a/todo.md and change "leaking tap" into "kitchen tap"',
            [("leaking tap", "kitchen tap")],
        ),
        ("what changed in the repo?", []),
        # A word inside a quote is the quote's: "for" there ends nothing.
        (
            'in /a/plan.txt, replace "waiting for the logo" with "logo received"',
            [("waiting for the logo", "logo received")],
        ),
        ('set the status in /a/plan.txt from "draft" to "final"', [("draft", "final")]),
        ('in /a/n.txt make it "June 10" instead of "June 3"', [("June 3", "June 10")]),
        (
            "update /a/n.txt so that instead of 'waiting for the client's logos' it says 'done'",
            [("waiting for the client's logos", "done")],
        ),
        ("How do I change the default shell to zsh?", []),  # a question, no edit
        ("replace the contents of /a/a.txt with hello", []),  # the whole file: a write
        (
            "edit /a/n.txt so that 'call the bank' reads 'call the bank today' instead",
            [("call the bank", "call the bank today")],
        ),
        (
            'edit /a/todo.md so that "- [ ] call" becomes "- [x] call"',
            [("- [ ] call", "- [x] call")],
        ),
        ("fix /a/n.txt, the passport line should say June 10 not June 3", [("June 3", "June 10")]),
        ("what should it say instead of this?", []),
        # an amount mistyped, the right one first, when a correction is asked
        ("the groceries came to 38.10, not 31.80: correct a.csv", [("31.80", "38.10")]),
        ("I have 3, not 4, cats", []),
        # what a line says now, after "from", and what it becomes
        (
            "change the deadline line in /a/n.txt from 2024-11-15 to 2024-12-06",
            [("2024-11-15", "2024-12-06")],
        ),
        # names in capitals unquoted; a code to another with an arrow, within a sentence
        ("update /a/n.txt so it names Dan Oka instead of Pri Nai", [("Pri Nai", "Dan Oka")]),
        ("next mtg moved B2 → C4, fix it in /a/n.txt", [("B2", "C4")]),
        ("the meeting moved -> fix it in /a/n.txt", []),
    ],
)
def test_replacements(text: str, pairs: list[tuple[str, str]]) -> None:
    found = ex.replacements(text)
    assert [(old.value, new.value) for old, new in found] == pairs
    for old, new in found:  # each as written where the text gives it
        assert text[old.start : old.end] == old.value and text[new.start : new.end] == new.value


def test_text_after_a_labelled_colon_is_said() -> None:
    said = ex.said_in("stage app.py and commit it, message: Add --imperial flag")
    assert [q.value for q in said] == ["Add --imperial flag"]
    noted = "could you add Globex to the graph as a company, with the note 'supplies chairs'?"
    assert ex.said_in(noted) == []
    for text in (
        "create /a/r.txt with this line: Call Priya on Monday",
        "put the following text: Call Priya on Monday in /a/r.txt",
    ):
        assert [q.value for q in ex.said_in(text)] == ["Call Priya on Monday"]
    assert [q.value for q in ex.said_in("echo this back: the quick brown fox")] == [
        "the quick brown fox"
    ]
    # What a line is for describes it: no text to write as it is.
    assert ex.said_in("add a line for printing, at a cost of 150, to /a/budget.csv") == []


def test_a_text_said_after_a_colon_is_labelled() -> None:
    """Only a text after a colon is left out of a tool search (retrieval/tool_select.py): "add
    17 to a number" said "17 to a number" and, left out, had put a memo write first."""
    for text, labelled in (
        ("commit it, message: fix the loader", ["fix the loader"]),
        ("add 17 to a number", []),
    ):
        said = ex.read_values(text, TODAY).said
        assert [q.value for q in ex.labelled(said, text)] == labelled


def test_a_file_named_in_a_text_is_text() -> None:
    values = ex.read_values("commit it with this message: app.py: add units", TODAY)
    assert [q.value for q in values.said] == ["app.py: add units"] and values.locators == []
    quoted = ex.read_values('commit it: "a.py: add units (metric/imperial)"', TODAY)
    assert quoted.locators == []  # a quote with a slash in it is a path only when shaped as one
    # a telling sentence joined to its request by a colon: the request names the page
    told = "I want to send a thank-you note: Could you check http://example.com/about.html"
    assert [x.value for x in ex.read_values(told, TODAY).locators] == [
        "http://example.com/about.html"
    ]
    assert [x.value for x in ex.read_values('move "projects/old"', TODAY).locators] == [
        "projects/old"
    ]


def test_a_thing_pointed_at_is_no_text_to_pass_on() -> None:
    """As the official servers were asked: "that person" is whoever a file names, not text."""
    assert ex.said_in("add that person to the users table (name, email, city)") == []
    assert ex.said_in("add an unchecked item to my /srv/todo.md") == []  # what, not its text
    assert [q.value for q in ex.said_in("add buy eggs to todo.md")] == ["buy eggs"]
    # What a result holds, said by pointing at it or by asking, is no text either.
    assert ex.said_in("take the log of /r and write its commit messages into /a/c.txt") == []
    assert ex.said_in("write down what memory knows about Falcon in /a/f.txt") == []
    # A store a text goes to ends it, as a file does.
    assert [q.value for q in ex.said_in("add Dmitri Volkov to my memory graph")] == [
        "Dmitri Volkov"
    ]
    assert [q.value for q in ex.said_in("commit it in /r, msg: Add units")] == ["Add units"]


def test_a_space_in_a_file_name_after_its_folder_is_part_of_it() -> None:
    """ "/srv/meeting notes.txt" is one file; "/srv/projects and todo.md" are two paths."""
    found = ex.locators_in("open /srv/p/meeting notes.txt and tell me the date")
    assert [x.value for x in found] == ["/srv/p/meeting notes.txt"]
    found = ex.locators_in("list /srv/projects and read todo.md, then /srv/a.txt bb.txt")
    assert [x.value for x in found] == ["/srv/projects", "todo.md", "/srv/a.txt", "bb.txt"]


def test_a_json_object_is_one_value_written_as_it_is() -> None:
    text = 'write {"theme": "dark", "size": 12} to /srv/config.json, then "done"'
    assert ex.quoted(text) == ['{"theme": "dark", "size": 12}', "done"]
    assert "12" not in ex.blank_quoted(text)
    assert ex.quoted("set {not json} and 'x'") == ["x"]


def test_braces_nested_past_any_json_a_request_writes_are_no_object() -> None:
    """'{"a": ' repeated had raised RecursionError out of the JSON decoder."""
    assert set(ex.quoted('{"a": ' * 5000)) == {"a"}  # its strings, no object
    assert ex.quoted('{"a": ' * 5000 + '{"b": 1}')[-1] == '{"b": 1}'


def test_a_file_named_as_what_to_put_is_no_text() -> None:
    assert ex.said_in("put draft.md from /srv in the folder /srv/old") == []
    assert ex.said_in("put draft.md in the folder /srv/old") == []
    assert [q.value for q in ex.said_in("note in the insights memo that sales doubled")] == [
        "sales doubled"
    ]
    assert [q.value for q in ex.said_in("record this insight: churn is falling")] == [
        "churn is falling"
    ]


def test_a_folder_called_by_name_in_another_is_its_path_there() -> None:
    found = ex.locators_in("make a folder named backups inside /data")
    assert [x.joined for x in found] == ["/data/backups", "/data"]
    # A new file added to a folder is in it; a file moved to one is not yet.
    found = ex.locators_in("add a file README.txt to /data/old containing 'x'")
    assert [x.joined for x in found] == ["/data/old/README.txt", "/data/old"]
    found = ex.locators_in("move /data/a.txt to /data/old")
    assert [x.joined for x in found] == ["/data/a.txt", "/data/old"]


def test_a_thing_placed_somewhere_is_no_text() -> None:
    assert ex.said_in("add a row to the rooms table with floor 3") == []
    assert ex.said_in("add an order for user 3 of a Baguette at that price") == []
    assert [q.value for q in ex.said_in("add buy eggs to /a/todo.md")] == ["buy eggs"]


def test_after_a_colon_the_text_is_taken_to_its_last_character() -> None:
    assert [q.value for q in ex.said_in("overwrite /a/todo.md with: Nothing left.")] == [
        "Nothing left."
    ]
    assert [q.value for q in ex.said_in("echo back: Hi there!")] == ["Hi there!"]
    assert [q.value for q in ex.said_in("write see you soon to /a/b.txt.")] == ["see you soon"]


def test_a_value_and_what_it_becomes_after_an_arrow() -> None:
    pairs = ex.replacements("/a/todo.md: leaking tap -> kitchen tap")
    assert [(a.value, b.value) for a, b in pairs] == [("leaking tap", "kitchen tap")]
    pairs = ex.replacements("budget.csv in /a/projects: hosting 240 -> 300")
    assert [(a.value, b.value) for a, b in pairs] == [("240", "300")]  # the number it was
    assert ex.replacements("emails of users in Lyon -> /srv/lyon.txt") == []  # where they go
    # Where someone went, in no file; what is asked of someone.
    assert ex.replacements("bob chen moved toronto → vancouver, update his city") == []
    assert ex.replacements("carla reyes → email + city?") == []
    assert ex.replacements("/a/server.log: disk warning → what time") == []
    pairs = ex.replacements("next mtg moved B2 → C4, fix it in notes.txt")
    assert [(a.value, b.value) for a, b in pairs] == [("B2", "C4")]


def test_the_text_after_a_file_and_a_colon_is_written() -> None:
    said = ex.said_in("write to /a/g.txt: Grandma's scarf, Tom's sailing book")
    assert [q.value for q in said] == ["Grandma's scarf, Tom's sailing book"]
    assert [q.value for q in ex.said_in("new file /a/p.txt: passport, charger")] == [
        "passport, charger"
    ]


def test_a_number_with_its_unit_written_against_it_or_a_scale_word_after_it() -> None:
    text = "from 300K to 400K, 5J/K, a 5m wall at 440Hz; 50 million USD and 2.5 billion people"
    assert [n.value for n in ex.numbers(text)] == [300, 400, 5, 5, 440, 50e6, 2.5e9]
    # Other letters against a number make a name or an ordinal, no number; nor is an exponent.
    assert ex.numbers("mp3 3x v2 5th the 1990s") == []
    assert [n.value for n in ex.numbers("at 9.8 m/s^2 for x**3")] == [9.8]


@pytest.mark.parametrize(
    ("text", "dates"),
    [
        ("from 2023 April 4th to April 8th", ["2023-04-04", "2023-04-08"]),
        ("from April 4th to April 8th, 2024", ["2024-04-04", "2024-04-08"]),
        ("on March 3", ["2026-03-03"]),
    ],
)
def test_a_day_without_a_year_takes_the_year_written_nearest_it(
    text: str, dates: list[str]
) -> None:
    assert ex.dates(text, TODAY) == dates


def test_a_city_the_timezone_table_knows_is_its_whole_name() -> None:
    """Seen on BFCL: "two cities, New York and Los Angeles" gave the places "New" and "Los"."""
    assert ex.places("between two cities, New York and Los Angeles, by train") == [
        "New York",
        "Los Angeles",
    ]
    assert ex.places("the distance between New York City and Boston") == ["New York City"]


def test_a_request_pasted_in_quotes_whole_quotes_no_value() -> None:
    text = '"Can you calculate the area of two circles, one with a radius of 5 meters?"'
    assert ex.quoted(text) == []
    assert ex.quoted('"leaking tap"') == ["leaking tap"]  # a short quote is a value
