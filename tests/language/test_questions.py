from __future__ import annotations

import pytest

from toolweave.language.questions import content_words, expected_answer, singular


@pytest.mark.parametrize(
    ("question", "kind", "noun"),
    [
        ("Who is the spouse of the actress who plays Scarlett?", "person", ""),
        ("Politician Lyman Sherwood was born in what New York county?", "place", "county"),
        ("In what year did the Danish plant ecologist die?", "year", "year"),
        ("When did the mother of Joseph Ferdinand die?", "date", ""),
        ("How many teams attend the Winter Meetings?", "number", "team"),
        ("How many people work there?", "number", "people"),
        ("What percentage of Eritrea is Muslim?", "number", "percentage"),
        ("Which Canadian rock band released Counterparts?", "name", "band"),
        ("What is the seat of the county where Van Hook Township is?", "name", "seat"),
        ("Nanchang was fought with what ground-based armed force of Japan?", "name", "force"),
        ("The Havanese and the Black Mouth Cur are which kind of animal?", "name", "animal"),
        ("What was the birth date of the poker player?", "date", "date"),
        ("Are Eve Beglarian and Zach Bogosian both of Armenian descent?", "yesno", ""),
        # The question word where the answer would stand.
        ("Acme Air was bought by an airline based where?", "place", ""),
        ("The song was written by who?", "person", ""),
        ("The bridge over the Tay opened when?", "date", ""),
    ],
)
def test_the_kind_of_answer_a_question_wants(question: str, kind: str, noun: str) -> None:
    expected = expected_answer(question)
    assert (expected.kind, expected.noun) == (kind, noun)


def test_a_choice_names_its_options_and_its_direction() -> None:
    earlier = expected_answer("Who was born earlier, Simone Bolelli or Caroline Wozniacki?")
    assert earlier.kind == "choice" and earlier.options == ("Simone Bolelli", "Caroline Wozniacki")
    assert earlier.earlier and earlier.compares
    higher = expected_answer("Which peak stands higher, Muztagh Ata or Manaslu?")
    assert higher.options == ("Muztagh Ata", "Manaslu") and not higher.earlier and higher.compares
    # No comparative word: the options are told apart by the asked attribute, not a number.
    directed = expected_answer('Who directed "7th Heaven", Jerry Belson or Frank Borzage?')
    assert directed.kind == "choice" and not directed.compares


@pytest.mark.parametrize(
    ("question", "options"),
    [
        # An auxiliary first, but "or" asks which, not whether; the asked attribute left out.
        ("Is Baiyin or Xinghua, Jiangsu a county-level city?", ("Baiyin", "Xinghua, Jiangsu")),
        (
            "Is Muskegon Airport or John Wayne Airport further west?",
            ("Muskegon Airport", "John Wayne Airport"),
        ),
        ("Was John Lennon born in 1940 or 1941?", ("1940", "1941")),
        # No comma before the options: the capitalised names either side of the "or".
        (
            "Who was born first Iain Pears or Richard Llewellyn ?",
            ("Iain Pears", "Richard Llewellyn"),
        ),
        (
            "Which will be higher Time Warner Center or One Manhattan Square ?",
            ("Time Warner Center", "One Manhattan Square"),
        ),
        (
            "Which documentary is the oldest, The Private Life of Plants or Marx Reloaded?",
            ("Private Life of Plants", "Marx Reloaded"),
        ),
        # After a comma, the options as written.
        ("Which group has more members, DC Talk, or Fun?", ("DC Talk", "Fun")),
        (
            "Which film follows poetry, Race to Nowhere or SlamNation?",
            ("Race to Nowhere", "SlamNation"),
        ),
    ],
)
def test_the_options_of_a_choice_are_the_names_either_side_of_or(
    question: str, options: tuple[str, str]
) -> None:
    expected = expected_answer(question)
    assert (expected.kind, expected.options) == ("choice", options)


def test_an_or_between_plain_words_with_no_comma_is_no_choice() -> None:
    assert expected_answer("What did you eat today or yesterday?").kind == "name"


def test_content_words_leave_out_question_and_function_words() -> None:
    assert content_words("What is the seat of the county where Van Hook is?") == [
        "seat",
        "county",
        "Van",
        "Hook",
    ]


@pytest.mark.parametrize(
    "question", ["How do I declare an MCP server?", "Why is the sky blue?", "how to cook rice"]
)
def test_how_and_why_want_an_explanation(question: str) -> None:
    assert expected_answer(question).kind == "explanation"


@pytest.mark.parametrize(
    "text", ["", "what", "What is the", "which of the?", "'s", "[" * 300, "Who is the of", "é?"]
)
def test_odd_questions_get_a_kind_and_no_error(text: str) -> None:
    from toolweave.language.questions import split_chain

    assert expected_answer(text).kind
    chain = split_chain(text)
    assert chain is None or "{}" in chain.outer


@pytest.mark.parametrize(
    ("question", "inner"),
    [
        (
            "What language did the author of House of the Spirits write in?",
            "Who is the author of House of the Spirits?",
        ),
        ("The ferry docks at an island near the Aegean coast that has how many people?", None),
        # The question's own verb is not the description's ("When did ... die?").
        (
            "When did the sailor who first crossed the Tasman Sea by kayak die?",
            "Who is the sailor who first crossed the Tasman Sea by kayak?",
        ),
        # A description may open the question; a capitalised "The X of Y" is a name.
        (
            "The painter who drew Blue Harbour is a member of which academy?",
            "Who is The painter who drew Blue Harbour?",
        ),
        ("The Siege of Acre was fought by which army?", None),
        (
            "Who married the founder of weekly newspaper The Evening Lamp?",
            "Who is the founder of weekly newspaper The Evening Lamp?",
        ),
        (
            "In 1984 the singer of Thriller won a Grammy award for which album?",
            "Who is the singer of Thriller?",
        ),
        # A rank and a title in capitals; the people they name are asked with "who".
        ("Who shot the 16th President of Freedonia?", "Who is the 16th President of Freedonia?"),
        (
            "Whom did the 12th Vice President of Ruritania serve under?",
            "Who is the 12th Vice President of Ruritania?",
        ),
        # A name goes on through "at" and numbers; a possessive before its object is a verb's.
        (
            "For what did the singer of Rain in Lunch at Maxim's win a Tony?",
            "Who is the singer of Rain in Lunch at Maxim's?",
        ),
        (
            "Which teams did the coach of The 2007 Gotham Owls play for?",
            "Who is the coach of The 2007 Gotham Owls?",
        ),
    ],
)
def test_a_described_thing_is_found_first_but_never_the_asked_one(
    question: str, inner: str | None
) -> None:
    from toolweave.language.questions import split_chain

    chain = split_chain(question)
    assert (chain.inner if chain else None) == inner


def test_words_of_one_relation_cover_each_other() -> None:
    from toolweave.language.questions import content_terms, with_alike

    covered = with_alike(set(content_terms("She married a painter in 1950")))
    assert set(content_terms("spouse wife")) <= covered
    assert not set(content_terms("employer")) & covered


def test_a_regular_plural_becomes_its_singular() -> None:
    pairs = [("companies", "company"), ("boxes", "box"), ("peanuts", "peanut"), ("days", "day")]
    pairs += [("people", "people"), ("status", "status"), ("analysis", "analysis")]
    pairs += [("movies", "movie"), ("series", "series"), ("news", "news")]
    assert [singular(plural) for plural, _ in pairs] == [one for _, one in pairs]
