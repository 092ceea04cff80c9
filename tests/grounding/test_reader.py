"""The short answer read from passages, with the bundled embedder."""

from __future__ import annotations

import pytest

from toolweave.grounding.reader import Passage, Short, read
from toolweave.models.onnx_embedder import OnnxEmbedder

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


async def short_answer(question: str, found: list[Passage], embedder: OnnxEmbedder) -> Short | None:
    return (await read(question, found, embedder)).short


def passages(*items: tuple[str, str]) -> list[Passage]:
    return [Passage(title, text, n) for n, (title, text) in enumerate(items, 1)]


TWO_HOPS = passages(
    ("Van Hook Township", "Van Hook Township is a township in Mountrail County, North Dakota."),
    ("Mountrail County", "Mountrail County is a county in North Dakota. Its seat is Stanley."),
    ("Lake Sakakawea", "Lake Sakakawea is a reservoir on the Missouri River in North Dakota."),
)


async def test_the_answer_is_found_through_the_bridge_entity(embedder: OnnxEmbedder) -> None:
    question = "What is the seat of the county where Van Hook Township is located?"
    short = await short_answer(question, TWO_HOPS, embedder)
    assert short is not None and short.text == "Stanley" and short.source == 2
    # The chain leads from the question's entity to the answer, each sentence with its source.
    assert [n for _, n in short.chain] == [1, 2]
    assert short.missing == ["located"]


async def test_a_comparison_names_the_winner(embedder: OnnxEmbedder) -> None:
    found = passages(
        ("Simone Bolelli", "Simone Bolelli (born 8 October 1985) is an Italian tennis player."),
        ("Caroline Wozniacki", "Caroline Wozniacki (born 11 July 1990) is a Danish player."),
    )
    earlier = "Who was born earlier, Simone Bolelli or Caroline Wozniacki?"
    later = "Who was born later, Simone Bolelli or Caroline Wozniacki?"
    assert (await short_answer(earlier, found, embedder)).text == "Simone Bolelli"  # type: ignore[union-attr]
    assert (await short_answer(later, found, embedder)).text == "Caroline Wozniacki"  # type: ignore[union-attr]


async def test_a_choice_without_a_comparative_goes_by_the_asked_attribute(
    embedder: OnnxEmbedder,
) -> None:
    found = passages(
        ("Jerry Belson", "Jerry Belson (July 8, 1938 – 2006) was a writer of comedy films."),
        ("Frank Borzage", 'Frank Borzage (April 23, 1894 – 1962) directed "7th Heaven".'),
    )
    question = 'Who directed the film "7th Heaven", Jerry Belson or Frank Borzage?'
    short = await short_answer(question, found, embedder)
    assert short is not None and short.text == "Frank Borzage"


async def test_yes_or_no_from_each_named_things_passage(embedder: OnnxEmbedder) -> None:
    found = passages(
        ("Eve Beglarian", "Eve Beglarian is an American composer of Armenian descent."),
        ("Zach Bogosian", "Zach Bogosian is an ice hockey player of Armenian descent."),
        ("Lou Reed", "Lou Reed was an American musician of Jewish descent."),
    )
    both = "Are Eve Beglarian and Zach Bogosian both of Armenian descent?"
    assert (await short_answer(both, found, embedder)).text == "yes"  # type: ignore[union-attr]
    mixed = "Are Eve Beglarian and Lou Reed both of Armenian descent?"
    assert (await short_answer(mixed, found, embedder)).text == "no"  # type: ignore[union-attr]


async def test_how_many_takes_a_count_not_a_year(embedder: OnnxEmbedder) -> None:
    found = passages(
        (
            "Winter Meetings",
            "The Winter Meetings, first held in 1901, gather all 30 Major League Baseball teams.",
        ),
    )
    question = "How many Major League Baseball teams attend the Winter Meetings?"
    short = await short_answer(question, found, embedder)
    assert short is not None and short.text == "30"


async def test_no_answer_when_nothing_covers_the_question(embedder: OnnxEmbedder) -> None:
    found = passages(("Maple syrup", "Maple syrup is made from the sap of sugar maple trees."))
    assert await short_answer("Who directed the film Vertigo?", found, embedder) is None


async def test_how_many_takes_the_number_that_counts_the_asked_thing(
    embedder: OnnxEmbedder,
) -> None:
    found = passages(
        (
            "The Comets",
            "The Comets had 14 hit singles in Ireland and sold 40 million albums by 2010.",
        ),
    )
    short = await short_answer("How many albums did the Comets sell?", found, embedder)
    assert short is not None and short.text == "40 million"


async def test_a_longer_name_of_the_asked_thing_and_a_sentence_opener_are_not_answers(
    embedder: OnnxEmbedder,
) -> None:
    found = passages(
        (
            "Kaka",
            "Ricardo Leite, known as Kaka or Kaka Leite, is a Brazilian footballer. Rarely "
            "injured, he won the Ballon d'Or in 2007, and he rarely missed a game.",
        ),
    )
    question = "Kaka won which French award in 2007?"
    assert (await short_answer(question, found, embedder)).text == "Ballon d'Or"  # type: ignore[union-attr]


async def test_a_birth_date_is_not_a_death_date(embedder: OnnxEmbedder) -> None:
    found = passages(
        ("Ann Rook", "Ann Rook (died 1990) was a chess player who wrote books on openings."),
        ("Ben Rook", "Ben Rook (born March 3, 1941) is a chess player and author of books."),
    )
    question = "What is the birth date of the chess player who wrote books?"
    assert (await short_answer(question, found, embedder)).text == "March 3, 1941"  # type: ignore[union-attr]


async def test_a_comparison_reads_each_options_own_passage(embedder: OnnxEmbedder) -> None:
    found = passages(
        ("Alta Peak", "Alta Peak is a higher mountain than Pico Bajo, at 3,416 metres."),
        ("Pico Bajo", "Pico Bajo is a summit in Spain. It is 2,100 metres high."),
    )
    question = "Which mountain is higher, Alta Peak or Pico Bajo?"
    assert (await short_answer(question, found, embedder)).text == "Alta Peak"  # type: ignore[union-attr]


async def test_a_sort_of_thing_is_named_in_plain_words(embedder: OnnxEmbedder) -> None:
    found = passages(
        (
            "Quiet Rivers",
            "Quiet Rivers is a 2009 nature film shown at the Berlin International Film Festival.",
        ),
    )
    question = "Quiet Rivers is what type of film?"
    assert (await short_answer(question, found, embedder)).text == "nature film"  # type: ignore[union-attr]


async def test_the_actor_of_a_part_not_another_part(embedder: OnnxEmbedder) -> None:
    found = passages(
        (
            "Kim Ode",
            "Kim Ode is an American actress. She is widely known for playing Dell Marsh on "
            "the sitcom Harbor Lights, for which she was praised.",
        ),
        ("Jo Finn", "Jo Finn appeared as the mother of main character Mara Voss (Jenna Holt)."),
    )
    question = "Who is the actress who plays Mara Voss on Harbor Lights?"
    assert (await short_answer(question, found, embedder)).text == "Jenna Holt"  # type: ignore[union-attr]


async def test_the_other_hop_is_cited_when_no_sentence_names_the_answers_passage(
    embedder: OnnxEmbedder,
) -> None:
    found = passages(
        ("Mira Sol", "Mira Sol is a singer from Oslo. Her debut album was Night Tide."),
        ("Studio records", "Ivo Lund produced the album Night Tide in 2004."),
    )
    question = "In what year was the album of the singer from Oslo produced?"
    short = await short_answer(question, found, embedder)
    assert short is not None and short.text == "2004"
    assert [n for _, n in short.chain] == [1, 2]


async def test_a_name_given_with_a_common_noun_is_of_that_kind(embedder: OnnxEmbedder) -> None:
    found = passages(
        ("Coast Songs", "Coast Songs was made by the band Night Tide with the producer Ivo Lund."),
    )
    short = await short_answer("Which person made Coast Songs?", found, embedder)
    assert short is not None and short.text == "Ivo Lund"
