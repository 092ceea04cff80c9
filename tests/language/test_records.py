"""Records a clause describes, on the official server-memory's schemas (as it lists them)."""

from __future__ import annotations

from datetime import date
from typing import Any

from toolweave.language import clause_of
from toolweave.language.records import (
    cased_as_held,
    found_thing,
    held_in,
    name_read_for,
    names_in,
    record_keeping,
    records,
    said_in,
    servers_about,
    servers_named,
    servers_placed,
    tables_by_field,
    unnamed_reference,
)

TODAY = date(2026, 11, 22)
STRING = {"type": "string"}
STRINGS = {"type": "array", "items": STRING}


def items(**fields: dict[str, Any]) -> dict[str, Any]:
    item = {"type": "object", "properties": fields, "required": list(fields)}
    return {"type": "array", "items": item}


OBSERVATIONS = {"observations": items(entityName=STRING, contents=STRINGS)}
RELATIONS = {"relations": items(**{"from": STRING, "to": STRING, "relationType": STRING})}
ENTITIES = {"entities": items(name=STRING, entityType=STRING, observations=STRINGS)}


def made(properties: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        name: value for name, (value, _) in records(properties, clause_of(0, text, TODAY)).items()
    }


def test_names_are_capitalised_words_a_request_does_not_open_with() -> None:
    text = "Add a note to Project Falcon about Mallory's task in /srv/Notes.md"
    assert [n.value for n in names_in(clause_of(0, text, TODAY))] == ["Project Falcon", "Mallory"]
    for text, name in (
        ("Open Mallory's entry", "Mallory"),
        ("at Rosa's Bakery", "Rosa's Bakery"),
        ("New customer for users: Farid Haddad", "Farid Haddad"),
        ("add New York to memory", "New York"),
        ("add her to users; Her name is Farah Haddad", "Farah Haddad"),
        ("There's someone I met in Berlin", "Berlin"),
        ("According to my graph, who knows Alice?", "Alice"),
        ("Someone from finance asked me who leads Project Falcon.", "Project Falcon"),
    ):
        assert [n.value for n in names_in(clause_of(0, text, TODAY))] == [name]


def test_an_observation_is_what_the_clause_quotes_about_the_name_it_gives() -> None:
    wanted = {"observations": [{"entityName": "Alice", "contents": ["prefers window seats"]}]}
    assert made(OBSERVATIONS, 'Add "prefers window seats" to what you know about Alice') == wanted
    assert made(OBSERVATIONS, 'note in memory that Alice "prefers window seats"') == wanted
    # No name: no record (the user is asked).
    assert made(OBSERVATIONS, 'remember that he "likes coffee"') == {}


def test_a_new_thing_after_where_it_goes() -> None:
    hana = {"name": "Hana", "entityType": "person", "observations": ["teaches yoga"]}
    for text in (
        "memory ← new person Hana, teaches yoga",
        "add to memory: new person Hana, teaches yoga",
    ):
        assert made(ENTITIES, text) == {"entities": [hana]}


def test_a_piece_with_a_url_says_where_a_value_is_not_the_value() -> None:
    # SmolLM2 was not asked: the port's colon had cut "33391/index.html as an observation" off.
    text = (
        "Please add Rosa's Bakery to my knowledge graph as a company, with its street address "
        "from http://127.0.0.1:33391/index.html as an observation."
    )
    assert made(ENTITIES, text) == {}
    text = "add Globex to memory as a company, based in Springfield, see http://globex.example/a"
    globex = {"name": "Globex", "entityType": "company", "observations": ["based in Springfield"]}
    assert made(ENTITIES, text) == {"entities": [globex]}


def test_names_each_paired_with_what_is_quoted_of_them_are_a_record_each() -> None:
    both = {
        "observations": [
            {"entityName": "Bob", "contents": ["has a dog"]},
            {"entityName": "Carol", "contents": ["plays the cello"]},
        ]
    }
    assert made(OBSERVATIONS, "add 'has a dog' to Bob and 'plays the cello' to Carol") == both
    assert made(OBSERVATIONS, "note on Bob: 'has a dog', Carol: 'plays the cello'") == both
    # Names inside the quotes are what is quoted, no names to pair
    said = made(OBSERVATIONS, "replace 'based in Austin' with 'based in Dallas'")
    assert len(said["observations"]) == 1
    # Two quotes, then two names: not paired one to one
    assert len(made(OBSERVATIONS, "add 'a' and 'b' to Bob and Carol")["observations"]) == 1


def test_unquoted_what_a_clause_goes_on_to_say_about_a_name_is_an_observation() -> None:
    assert made(OBSERVATIONS, "Alice likes coffee, note that") == {
        "observations": [{"entityName": "Alice", "contents": ["likes coffee"]}]
    }
    globex = {"name": "Globex", "entityType": "company", "observations": ["based in Springfield"]}
    for text in (
        'Add a company called "Globex" to memory; it is based in Springfield',
        "remember Globex: a company based in Springfield",
        'please remember a company called "Globex", which is based in Springfield',
    ):
        assert made(ENTITIES, text) == {"entities": [globex]}
        # A kind given is a new thing: no observations for one that exists.
        assert made(OBSERVATIONS, text) == {}
    heron = {"name": "Project Heron", "entityType": "project", "observations": ["starts in April"]}
    said = 'add a project called "Project Heron" to memory; it starts in April'
    assert made(ENTITIES, said) == {"entities": [heron]}
    # An abbreviation in capitals opens what is said as a word does.
    assert made(OBSERVATIONS, "Acme Corp obs: CEO is Wile E. Coyote") == {
        "observations": [{"entityName": "Acme Corp", "contents": ["CEO is Wile E. Coyote"]}]
    }
    # Without a kind, the thing is no new entity; two names related make a relation.
    assert made(ENTITIES, "Alice likes coffee, note that") == {}
    assert made(OBSERVATIONS, "Carol works at Initech now, add that to the graph") == {}
    # Nor is what points at something unnamed: "it" is to be known first.
    assert made(OBSERVATIONS, "record that Carol leads it") == {}
    # Nor what surrounds a value the request names without giving it: that is asked for.
    asked = "Carol has started at a new company. Could you record where she works now?"
    assert made(OBSERVATIONS, asked) == {}
    assert made(OBSERVATIONS, "record what Bob likes: he likes tea") == {
        "observations": [{"entityName": "Bob", "contents": ["likes tea"]}]
    }


def test_what_belongs_to_a_name_is_said_of_it_and_its_entry_is_no_observation() -> None:
    assert made(OBSERVATIONS, "remember that Bob's birthday is 2 May") == {
        "observations": [{"entityName": "Bob", "contents": ["birthday is 2 May"]}]
    }
    # Where the note goes, with no note given: the user is asked what it says.
    assert made(OBSERVATIONS, "Please add a note to Bob's entry in my knowledge graph.") == {}
    assert made(OBSERVATIONS, "add to Bob's memory entry that he is away") == {}


def test_a_relation_drawn_as_an_arrow() -> None:
    assert made(RELATIONS, "Bob -[works at]-> Initech, add to graph") == {
        "relations": [{"from": "Bob", "to": "Initech", "relationType": "works at"}]
    }


def test_a_relation_is_two_names_and_the_words_between_them() -> None:
    wanted = {"relations": [{"from": "Carol", "to": "Initech", "relationType": "works at"}]}
    assert made(RELATIONS, "record in memory that Carol works at Initech") == wanted
    assert made(RELATIONS, "link Carol to Initech: Carol works at Initech") == wanted
    # The kind may be quoted, between the names or before "relation from A to B".
    quoted = {"relations": [{"from": "Carol", "to": "Alice", "relationType": "reports to"}]}
    assert made(RELATIONS, "remember in memory that Carol 'reports to' Alice") == quoted
    leads = {"relations": [{"from": "Alice", "to": "Project Falcon", "relationType": "leads"}]}
    assert made(RELATIONS, "delete the 'leads' relation from Alice to Project Falcon") == leads
    assert made(RELATIONS, "link Carol to Initech") == {}  # a preposition is no relation


def test_what_is_asked_to_be_kept_as_an_observation_relates_nothing() -> None:
    text = "Bob moved to Glasgow last month, please add that as an observation on Bob in memory."
    assert made(RELATIONS, text) == {}
    wanted = [{"entityName": "Bob", "contents": ["moved to Glasgow last month"]}]
    assert made(OBSERVATIONS, text) == {"observations": wanted}


def test_an_entity_needs_its_kind_and_what_is_known_of_it() -> None:
    assert made(ENTITIES, 'remember Globex, a company: "based in Springfield"') == {
        "entities": [
            {"name": "Globex", "entityType": "company", "observations": ["based in Springfield"]}
        ]
    }
    # Its name and kind alone: nothing more is known of it
    assert made(ENTITIES, 'Add a company called "Globex" to memory') == {
        "entities": [{"name": "Globex", "entityType": "company", "observations": []}]
    }
    assert made(ENTITIES, "create an entity Leeds of type city") == {
        "entities": [{"name": "Leeds", "entityType": "city", "observations": []}]
    }
    # unless an observation is said, not given
    assert made(ENTITIES, "add Tom as a person, with an observation saying what he did") == {}
    assert made(ENTITIES, 'remember company "Globex": based in Springfield') == {
        "entities": [
            {"name": "Globex", "entityType": "company", "observations": ["based in Springfield"]}
        ]
    }
    assert made(ENTITIES, "remember a new project, Project Heron: starts in April") == {
        "entities": [
            {"name": "Project Heron", "entityType": "project", "observations": ["starts in April"]}
        ]
    }
    # Its kind after where it goes, or after a dash; what "he" does is what is known of him.
    dave = {"name": "Dave", "entityType": "person", "observations": ["plays the cello"]}
    for text in (
        "add Dave to your memory as a person and note that he plays the cello?",
        "remember Dave - person, plays the cello",
    ):
        assert made(ENTITIES, text) == {"entities": [dave]}
    assert made({"entityNames": STRINGS}, "forget Bob and Alice") == {
        "entityNames": ["Bob", "Alice"]
    }


def test_a_hyphen_joins_the_parts_of_one_name() -> None:
    text = "Jean-Luc Picard is now Alice Martin-Dubois"
    assert [n.value for n in names_in(clause_of(0, text, TODAY))] == [
        "Jean-Luc Picard",
        "Alice Martin-Dubois",
    ]


def test_words_in_capitals_are_no_names() -> None:
    text = "make a new table suppliers: id INTEGER PRIMARY KEY, name TEXT, country TEXT"
    assert names_in(clause_of(0, text, TODAY)) == []
    assert made(RELATIONS, text) == {}


def test_a_description_is_no_relation() -> None:
    """Seen on the test half of eval servers (a relation made that nobody asked for)."""
    for text in (
        "Remember that Dana Kim is a nurse who lives in Oslo",
        "new person to remember: Dana Kim, nurse, lives in Oslo",
        "save the bakery's address under the name Rosa's Bakery",
    ):
        assert made(RELATIONS, text) == {}


def test_a_server_is_named_by_a_whole_name_it_holds() -> None:
    held = {"memory": ["Bob", "Project Falcon"], "db": ["users", "id"]}

    def named(text: str) -> set[str]:
        return servers_named(clause_of(0, text, TODAY), held)

    assert named("What do you know about Bob?") == {"memory"}
    assert named("save Bob's phone number") == {"memory"}
    assert named("when is the project falcon deadline") == {"memory"}
    assert named("which users in the users table live in Lyon?") == {"db"}
    # Part of a longer name or word, or too short to tell: not held.
    assert named("Change Bob Chen's email") == set()
    assert named("ask Big Bob about Bobby") == set()
    assert named("what is the id of this?") == set()
    # A table's name after a person's is no part of the person's name.
    ordered = clause_of(0, "what did Bob Chen order?", TODAY)
    assert servers_named(ordered, held | {"db": ["orders"]}) == {"db"}


def test_a_field_asked_of_someone_named_is_in_the_table_with_that_column() -> None:
    fields = {"staff": ["id", "name", "phone", "town"], "rooms": ["id", "floor"]}
    clause = clause_of(0, "what's Ines Moreau's phone number?", TODAY)
    assert [(t.value, clause.text[t.start : t.end]) for t in tables_by_field(clause, fields)] == [
        ("staff", "phone")
    ]
    clause.held = tables_by_field(clause, fields)
    assert servers_named(clause, {"db": ["staff", "rooms"], "memory": ["Ines"]}) == {"db"}
    # Nobody named, or a field every table has: no table.
    assert tables_by_field(clause_of(0, "what is a phone number?", TODAY), fields) == []
    assert tables_by_field(clause_of(0, "what's Ines Moreau's name?", TODAY), fields) == []
    # A field of four letters only after a possessive: "her town", not "the town of Graz".
    clause = clause_of(0, "Ines Moreau moved to Graz, update her town", TODAY)
    assert [(t.value, clause.text[t.start : t.end]) for t in tables_by_field(clause, fields)] == [
        ("staff", "town")
    ]
    assert tables_by_field(clause_of(0, "weather in the town of Graz", TODAY), fields) == []
    # Or before the value it is set to.
    clause = clause_of(0, "set Ines Moreau town = Graz", TODAY)
    assert [t.value for t in tables_by_field(clause, fields)] == ["staff"]
    for terse in ("Ines Moreau: town -> Graz", "Ines Moreau moved -> town Graz"):
        assert [t.value for t in tables_by_field(clause_of(0, terse, TODAY), fields)] == ["staff"]
    # Or by the e-mail address given, in the one table with an email column.
    mailed = {**fields, "staff": [*fields["staff"], "email"]}
    clause = clause_of(0, "Ines Moreau's new address is ines@new.example - fix it", TODAY)
    assert [(t.value, clause.text[t.start : t.end]) for t in tables_by_field(clause, mailed)] == [
        ("staff", "ines@new.example")
    ]
    assert tables_by_field(clause, {**mailed, "rooms": ["id", "email"]}) == []
    # Or in a condition on the rows: "the customers whose town is Graz" (no table named so).
    clause = clause_of(0, "look up all the customers whose town is Graz", TODAY)
    assert [t.value for t in tables_by_field(clause, fields)] == ["staff"]


def test_a_pointing_word_with_nothing_named_before_it_is_unresolved() -> None:
    def pointing(*texts: str) -> str:
        return unnamed_reference([clause_of(i, text, TODAY) for i, text in enumerate(texts)])

    assert pointing("add a note to her entry in memory") == "her"
    assert pointing("what is this in euros?") == "this"
    assert pointing("what time is that in New York?") == "that"
    assert pointing("what time is it in Tokyo right now?") == ""  # "it" is the time
    assert pointing("Add Eve to memory", "she is a designer") == ""  # named before
    assert pointing("remember that she's moving to Oslo next month") == "she"  # a place is nobody
    assert pointing("please note that they prefer tea") == "they"  # people kept, never named
    assert pointing("note that Ana and Ben prefer tea: they both do") == ""
    assert pointing("I'll ring my sister in Australia, don't wake her: the time in Sydney?") == ""
    assert pointing("Who founded the firm his father named?") == ""  # "who" is the person
    assert pointing("what is that building in Oslo called?") == ""  # "that" is no pronoun
    assert pointing("fetch http://x.org/a.html", "tell me what it says") == ""  # a result
    assert pointing("read /a/form.txt", "add that customer to the users table") == ""  # in it
    assert pointing('echo "he said so"') == ""  # quoted: the user's text, no pointing
    # Someone by a role alone, unless the request said the role before.
    assert pointing("change that customer's email address in the database") == "that customer"
    assert pointing("Please update the user's city for me.") == "the user"
    assert pointing("which user has the email a@b.org", "what is the user's city") == ""
    assert pointing("find the user called Bob") == ""
    # A file or page pointed at when the request gives none.
    assert pointing("show me what that file looked like two commits ago in /r") == "that file"
    assert pointing("read that article for me") == "that article"
    assert pointing("read /a/b.txt and summarize that file") == ""
    assert pointing("Carol knows Alice, add that link to my knowledge graph") == ""  # a relation


def test_a_server_is_the_place_a_clause_names_for_its_change() -> None:
    def placed(text: str) -> set[str]:
        servers = ["memory", "sqlite", "everything"]
        return servers_placed(clause_of(0, text, TODAY), servers, {"sqlite": ["users"]})

    assert placed('Add a company called "Globex" to memory') == {"memory"}
    # Where it goes, not where a value is taken from; where it is taken out of when no other.
    assert placed("add Dmitri to my memory, with his email from the users table") == {"memory"}
    assert placed("delete Frank from the users table") == {"sqlite"}
    assert placed("what do I have in my memory about Bob?") == {"memory"}
    assert placed("store it in your memory under Rosa's Bakery") == {"memory"}
    # An arrow says where, as "to" does: no memo of the note on mcp-server-sqlite.
    assert placed('pastry chef from a.html -> memory person, note "at Rosa\'s"') == {"memory"}
    assert placed("show me everything in my knowledge graph") == set()
    assert placed("my memory of the trip") == set()
    # A fact remembered is kept in the memory; "do you remember" keeps nothing.
    assert placed("remember it under Rosa's Bakery") == {"memory"}
    assert placed("please memorise that Dana plays the cello") == {"memory"}
    assert placed("do you remember Dana?") == set()
    # Or by what a server holds.
    assert placed("insert Frank O'Neil from Dublin into users") == {"sqlite"}
    assert placed("insert Frank O'Neil into users2") == set()
    # A held name is a whole name: "→ Alice Martin-Dubois" puts nothing on the graph's Alice.
    clause = clause_of(0, "rename user Alice Martin → Alice Martin-Dubois", TODAY)
    assert servers_placed(clause, ["memory"], {"memory": ["Alice"]}) == set()
    clause = clause_of(0, "→ save on Alice in memory", TODAY)
    assert servers_placed(clause, ["memory"], {"memory": ["Alice"]}) == {"memory"}
    # Or by a noun its tools say, after "my", "the" or "our" (and perhaps one word).
    nouns = {"sqlite": ["database"], "memory": ["graph"]}
    clause = clause_of(0, "look up in the database the customers in Lyon", TODAY)
    assert servers_placed(clause, ["memory", "sqlite"], {}, nouns) == {"sqlite"}
    clause = clause_of(0, "add Bob to my knowledge graph", TODAY)
    assert servers_placed(clause, ["memory", "sqlite"], {}, nouns) == {"memory"}
    clause = clause_of(0, "what is a graph database?", TODAY)
    assert servers_placed(clause, ["memory", "sqlite"], {}, nouns) == set()


def test_what_a_server_holds_is_found_where_the_clause_names_it() -> None:
    held = {"db": ["orders", "users"], "memory": ["Bob", "Bob Chen"]}
    found = held_in(clause_of(0, "set the amount of order 4 for Bob to 5", TODAY), held)
    assert [(f.value, f.start) for f in found] == [("orders", 18), ("Bob", 30)]
    assert held_in(clause_of(0, "what is Bob Chen's email?", TODAY), held)[0].value == "Bob Chen"
    text = "change the city of the user Emma Schultz to Hamburg"
    assert [f.value for f in held_in(clause_of(0, text, TODAY), held)] == ["users"]
    assert held_in(clause_of(0, "the ordering of users", TODAY), held)[0].value == "users"
    # "place an order" is any order; one added is a row of the orders table.
    assert held_in(clause_of(0, "is there a minimum order?", TODAY), held) == []
    added = held_in(clause_of(0, "add an order for Bob", TODAY), held)
    assert [f.value for f in added] == ["orders", "Bob"]
    # "hoping to order bread" orders nothing of the table; "a note to order 4" is one of it.
    assert held_in(clause_of(0, "I was hoping to order bread", TODAY), held) == []
    assert held_in(clause_of(0, "add a note to order 4", TODAY), held)[0].value == "orders"
    # A word opening a sentence is no name: "No duplicates, please."
    assert names_in(clause_of(0, "No duplicates, please", TODAY)) == []
    assert names_in(clause_of(0, "Our product names got longer", TODAY)) == []
    said = "For the report I need every order"  # a linking word opening it
    assert names_in(clause_of(0, said, TODAY)) == []
    assert [n.value for n in names_in(clause_of(0, "With Dana gone, who runs it?", TODAY))] == [
        "Dana"
    ]


def test_a_server_is_about_a_word_its_records_say_by_its_stem() -> None:
    about = {"memory": frozenset({"allerg", "peanut", "hike"}), "db": frozenset({"lyon"})}

    def servers(text: str) -> set[str]:
        return servers_about(clause_of(0, text, TODAY), about)

    assert servers("Who is allergic to peanuts?") == {"memory"}
    assert servers("does anyone here like hiking") == {"memory"}
    assert servers("what is the capital of France?") == set()
    assert servers("read /srv/peanuts.txt") == set()  # a path's words are no words of the clause
    assert servers("Who is allergic to the pollen of Peanut Valley?") == set()  # names a place
    found = said_in(clause_of(0, "search for a peanut allergy", TODAY), about)
    assert [(w.value, w.start) for w in found] == [("peanut", 13)]
    # A name no server holds, said in a record: "do I know anybody in Leeds?" (of 5 letters)
    leeds = {"memory": frozenset({"leed", "person"})}
    found = said_in(clause_of(0, "do I know anybody in Leeds?", TODAY), leeds)
    assert [w.value for w in found] == ["Leeds"]
    # a graph's own word for its records is none of theirs: "every entity of type company"
    kinds = {"memory": frozenset({"entiti", "compani"})}
    found = said_in(clause_of(0, "list every entity of type company", TODAY), kinds)
    assert [w.value for w in found] == ["company"]
    # written in lower case, after "in": a place's name however short
    found = said_in(clause_of(0, "who do i know in leeds", TODAY), leeds)
    assert [w.value for w in found] == ["leeds"]
    # A clause naming what a server holds is placed by that name, not by its other words.
    clause = clause_of(0, "look up alice martin's email in the users table", TODAY)
    clause.held = held_in(clause, {"db": ["users"]})
    assert said_in(clause, {"memory": frozenset({"alic"})}) == []


def test_a_relation_to_remove_is_the_relation_said_not_its_two_ends() -> None:
    removal = {"relations": RELATIONS["relations"], "entityNames": STRINGS}
    relation = [{"from": "Dana", "to": "Orbit Labs", "relationType": "manages"}]
    for text in (
        "Dana no longer manages Orbit Labs, delete that",
        "forget that Dana manages Orbit Labs",
        "remove the relation 'Dana manages Orbit Labs' from the graph",
    ):
        assert made(removal, text) == {"relations": relation}
    # Two names with nothing relating them are two things.
    assert made(removal, "delete Dana and Orbit Labs") == {"entityNames": ["Dana", "Orbit Labs"]}


def test_a_name_quoted_whole_and_what_someone_is() -> None:
    ines = [{"name": "Ines Moreau", "entityType": "person", "observations": ["is a pilot"]}]
    for text in (
        'add a person called "Ines Moreau" to memory; she is a pilot',
        "remember Ines Moreau: a person who is a pilot",
        "new person in memory: Ines Moreau, is a pilot",
    ):
        assert made(ENTITIES, text) == {"entities": ines}


def test_a_record_keeping_facts_read_elsewhere_and_kinds_said_around_a_name() -> None:
    kept = ["deadline: {{s1.result | value:deadline}}"]

    def keeping(properties: dict[str, Any], text: str) -> Any:
        (prop,) = properties.values()
        return record_keeping(prop, clause_of(1, text, TODAY), kept)

    alpha = {"name": "Project Alpha", "entityType": "project", "observations": kept}
    assert keeping(ENTITIES, "save Project Alpha's deadline to memory as a new project entity") == (
        alpha
    )
    assert keeping(ENTITIES, "create a project entity called Project Alpha with it") == alpha
    assert keeping(OBSERVATIONS, "add it to Bob") == {"entityName": "Bob", "contents": kept}
    assert keeping(ENTITIES, "add it to Bob") is None  # what kind of thing Bob is: not said
    assert keeping(RELATIONS, "add it to Bob") is None


def test_the_names_of_the_request_its_owners_and_a_kind_said_after_a_relation() -> None:
    names = {"entityNames": STRINGS}
    # "Carla Reyes's order" is an order: no entity of hers to delete; "Bob's entry" is Bob.
    assert made(names, "delete Carla Reyes's order") == {}
    assert made(names, "delete Bob's entry from memory") == {"entityNames": ["Bob"]}
    # A sentence telling why before the request names no one the request acts on.
    told = "Bob has a new colleague I'll be working with: please add Hiro Sato to memory as a"
    hiro = {"name": "Hiro Sato", "entityType": "person", "observations": ["joined Initech"]}
    assert made(ENTITIES, f"{told} person with the note 'joined Initech'") == {"entities": [hiro]}
    works = {"from": "Hiro Sato", "to": "Initech", "relationType": "works at"}
    for text in (
        "link Hiro Sato to Initech with a 'works at' relation",
        "link Hiro Sato to Initech with 'works at'",
        "add a relation from Hiro Sato to Initech with the type 'works at'",
    ):
        assert made(RELATIONS, text) == {"relations": [works]}


def test_a_name_said_as_a_place_too_is_still_someone_named() -> None:
    told = "Carol will coach Bob through his first year: add a relation from Carol to Bob"
    assert unnamed_reference([clause_of(0, told, TODAY)]) == ""
    assert unnamed_reference([clause_of(0, "she's moving to Oslo, note that", TODAY)]) == "she"
    # after "for", as often a person as a place
    asked = ["I'm writing an introduction for Alice.", "which project is she connected to?"]
    assert unnamed_reference([clause_of(i, t, TODAY) for i, t in enumerate(asked)]) == ""


def test_a_table_said_by_what_its_rows_record() -> None:
    clause = clause_of(0, "what's the cheapest thing anyone has ordered?", TODAY)
    assert [h.value for h in held_in(clause, {"db": ["orders"]})] == ["orders"]
    clause = clause_of(0, "I'd like to order bread", TODAY)
    assert held_in(clause, {"db": ["orders"]}) == []


def test_a_held_name_written_in_lower_case_is_read_as_held() -> None:
    held = ["Emma Schultz", "Bob Chen", "users", "Rose", "Project Falcon"]
    text = "emma schultz closed her acct; ask bob chen and rose about project falcon"
    cased = cased_as_held(text, held)
    assert cased == "Emma Schultz closed her acct; ask Bob Chen and rose about Project Falcon"
    assert len(cased) == len(text)  # offsets stay
    assert cased_as_held("EMMA SCHULTZ, Bob chen", held) == "Emma Schultz, Bob Chen"
    # Inside a longer name it stays as the user wrote it.
    assert cased_as_held("bob cheney and x-emma schultz", held) == "bob cheney and x-emma schultz"
    # A name of one word only as what the request opens with, before a colon
    assert cased_as_held("rose: how do i know her?", held) == "Rose: how do i know her?"


def test_a_field_given_a_bound_is_in_the_table_with_that_column() -> None:
    # Nobody named: "a rating of 2 or lower" asks for rows of the table that rates.
    fields = {"reviews": ["id", "rating", "comment"], "staff": ["id", "name", "phone"]}
    clause = clause_of(0, "tell me which customers gave a rating of 2 or lower", TODAY)
    assert [(t.value, clause.text[t.start : t.end]) for t in tables_by_field(clause, fields)] == [
        ("reviews", "rating")
    ]
    unbounded = clause_of(0, "what does a rating mean?", TODAY)
    assert tables_by_field(unbounded, fields) == []


def test_someone_a_read_finds_by_what_they_are() -> None:
    """ "read alpha.txt and add the project's owner to my knowledge graph as a person" (eval
    servers, dev fresh12): the one name the result gives for the owner; none for two."""
    alpha = "read /f/alpha.txt → Project Alpha\nOwner: Priya Nair\nDeadline: 2024-11-15"
    page = "Look up the pastry chef's full name → Our head baker is Marco Delgado. "
    page += "Our pastry chef is Aiko Tanaka."
    rows = "who ordered the Monitor → [{'item': 'Monitor', 'user_name': 'Carla Reyes'}]"
    for text, read, name in (
        ("add the project's owner to my graph as a person", alpha, "Priya Nair"),
        ("then add them to the knowledge graph as a person", page, "Aiko Tanaka"),
        ("add the head baker to memory", page, "Marco Delgado"),
        ("add that person to the knowledge graph", rows, "Carla Reyes"),
    ):
        found = found_thing(clause_of(1, text, TODAY))
        assert found is not None and name_read_for(found.value, [read]) == name, text
    two = "read → Owner: Priya Nair\nOwner: Tom Berg"
    assert name_read_for("owner", [two]) is None
    assert found_thing(clause_of(1, "add Priya Nair to my graph", TODAY)) is None
