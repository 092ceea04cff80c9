"""Records a clause describes, for a parameter that takes a list of them (a knowledge graph's
entities, relations and observations): the names the clause gives, what it quotes about them and
the words that relate two of them, each copied as written.

"record in memory that Carol works at Initech" gives relations=[{from: "Carol", to: "Initech",
relationType: "works at"}]; 'add "prefers window seats" to Alice' gives observations=
[{entityName: "Alice", contents: ["prefers window seats"]}]. A record some required field of
which the clause does not give is not made: the step agent, then the user, says what it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any

from toolweave.language.cues import asks_to_change, request_start, without_values
from toolweave.language.parameters import STATED_WORDS, json_type
from toolweave.language.questions import stem
from toolweave.language.text import ARROW, OPENERS, readable_name
from toolweave.language.values import NOT_PLACES
from toolweave.types import Clause, Quoted, Span, Values

# A name: capitalised words ("Alice", "Project Falcon", "O'Neil"), a possessive's "'s" left out;
# not words in capitals ("INTEGER PRIMARY KEY").
_WORD = r"[A-Z](?:['’][A-Z])?[a-z][\w’']*?(?:-[A-Za-z][\w’']*?)*"
# "Rosa's Bakery", "Alice Martin-Dubois"
_NAME = re.compile(rf"\b{_WORD}(?:(?:['’]s)?\s+{_WORD})*(?=(?:['’]s)?\b)(?!-\w)")
# Capitalised words that are no names: a request's opening verb, a pronoun.
_NOT_NAMES = set(OPENERS.split("|")) | {"i", "the", "a", "an", "my", "note", "record", "link"}
# A word that opens a sentence is no name either: "No duplicates", "Our product names ...".
_NOT_NAMES |= {"no", "yes", "ok", "okay", "hi", "hello", "hey", "thanks", "sorry", "oops", "there"}
_NOT_NAMES |= {"according", "regarding", "concerning"}  # "According to my graph, ..."
# "For the monthly summary I need ...": a linking word opening a sentence
_NOT_NAMES |= {"for", "from", "with", "after", "before", "when", "if", "since", "as", "at", "by"}
_NOT_NAMES |= {"so", "but", "and", "or", "also", "then", "just", "once", "while", "because"}
_NOT_NAMES |= {"we", "our", "us", "you", "your", "they", "their", "it", "its", "in", "on"}
_NOT_NAMES |= {"he", "him", "his", "she", "her", "hers", "them", "me"}  # "Her name is Farah"
# "Someone from finance asked me who ...": nobody named
_NOT_NAMES |= {"someone", "somebody", "anyone", "anybody", "everyone", "everybody", "nobody"}
_NOT_NAMES |= {w.lower() for w in NOT_PLACES}  # days and months: "on Saturday" names nothing
# "a company called Globex", "a new project, Heron", "Globex: a company", "Globex, a company",
# "new company in memory: Globex": what kind of thing it is.
_KIND = r"(?P<kind>[a-z]+)"
_KIND_BEFORE = re.compile(
    rf"\b(?:a|an)\s+(?:new\s+)?{_KIND}(?:\s+(?:entity|entry|node|record))?"
    r"(?:\s+(?:called|named)\s+|\s*,\s*)$"
)
_KIND_NEW = re.compile(rf"\bnew\s+{_KIND}\b[^:;.]{{0,30}}:\s*$")
# 'add company "Rosa's Bakery"', "new person Kofi Mensah": a kind just before the name.
_KIND_SAID_FIRST = re.compile(
    # after where it goes: "memory: new person ...", "memory ← new person ...", "add to memory:"
    r"^\W*(?:[a-z]+(?:\s+[a-z]+){0,2}?\s*(?::|←|<-|\+=)\s*)?(?:please\s+)?"
    r"(?:add|create|remember|save|store|new)\s+(?:new\s+)?"
    rf"(?!(?:that|the|a|an|this|my|our|your|his|her|their|it|me|to|in|also)\s){_KIND}\s+$",
    re.I,
)
# "Dave, a person", "Dave (a person)", "add Dave to your memory as a person"; "Dave - person,
# plays the cello"; "save Project Alpha's deadline to memory as a new project entity"
_KIND_AFTER = re.compile(
    r"^(?:['’]s\s+[a-z]+)?\W*(?:\s+(?:to|in|into)\s+(?:(?:my|your|the|our)\s+)?[\w-]+(?:\s+graph)?)?"
    rf"\s*(?:[:,(]|\s+is|\s+as)\s*(?:a|an)\s+(?:new\s+)?{_KIND}\b"
)
_KIND_DASHED = re.compile(rf"^\s*[-–—]\s*{_KIND}\s*(?:[,;]|$)")
# "an entity Leeds of type city", "Leeds (type: city)"
_KIND_TYPED = re.compile(
    rf"^\s*[,(]?\s*(?:of|with)?\s*(?:the\s+)?(?:type|kind)\s*[:=]?\s*{_KIND}\b"
)
_PREPOSITIONS = {"to", "with", "and", "from", "of", "for", "in", "on", "at", "by"}


def names_in(clause: Clause) -> list[Quoted]:
    """The names the clause gives, in order: capitalised words, or a quoted capitalised word."""
    found = []
    for match in _NAME.finditer(without_values(clause)):  # no names inside paths or quotes
        start, value = match.start(), match.group()
        while (first := value.split(maxsplit=1))[0].lower() in _NOT_NAMES:
            if len(first) == 1:
                break  # "Open", "Add": a request's verb, no name
            start += len(value) - len(first[1])
            value = first[1]  # "Open Mallory": Mallory
        if value.lower() not in _NOT_NAMES | {"new"}:  # "New customer: ...", not "New York"
            found.append(Quoted(start=start, end=start + len(value), value=value))
    quoted = [
        q for q in _quoted(clause) if re.fullmatch(r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*", q.value)
    ]
    return sorted(found + quoted, key=lambda name: name.start)


# Words that point at a person, or at a thing, named before ("what's that in London time?").
PERSON_WORDS = {"he", "him", "his", "she", "her", "hers"}
_PERSON = re.compile(rf"\b(?:{'|'.join(PERSON_WORDS)})\b", re.IGNORECASE)
_WHO = re.compile(r"\bwho(?:se|m)?\b", re.IGNORECASE)
# "please note that they prefer tea": a fact of people kept, and who they are never said
_NOTED = re.compile(r"\b(?:note|remember|record|save|store)\s+(?:down\s+)?that\s+they\b", re.I)
_THEY = re.compile(r"(?<=that )they\b", re.I)
# "change that customer's email", "update the user's city": someone by a role alone.
_ROLE = r"(?:customer|user|client|person|contact|employee|guy|man|woman|member)"
# "my sister", "our neighbour": someone the user names by who they are to them
_KIN = re.compile(
    r"\b(?:my|our)\s+(?:\w+\s+)?(?:sister|brother|mother|father|mom|mum|dad|wife|husband|"
    r"partner|friend|boss|colleague|coworker|son|daughter|neighbou?r|manager|aunt|uncle|cousin|"
    r"grand(?:ma|pa|mother|father)|girlfriend|boyfriend|roommate|teacher|doctor)s?\b",
    re.IGNORECASE,
)
_SOMEONE = re.compile(
    rf"\b(?:that|this)\s+{_ROLE}\b(?!\s+(?:called|named)\b)|\bthe\s+{_ROLE}(?=['’]s\b)", re.I
)
_THING = re.compile(
    r"^\W*what(?:'s|’s|\s+is)\s+(that|this|it)\s+(?:in|into|as|to)\b"
    r"|^\W*what\s+(?:time|date|day)\s+is\s+(that|this)\s+(?:in|into|as|to)\b",
    re.IGNORECASE,
)


def unnamed_reference(clauses: list[Clause]) -> str:
    """The word a request points with at someone or something it never names ("remember that
    he likes coffee", "what's that in London time?"), or "": only a user can say who or what."""
    before = ""
    for i, clause in enumerate(clauses):
        text = without_values(clause)  # a pronoun inside a quote or a path points at nothing
        # "the customer's email for order 5": the order says who; "read the form in a.txt and
        # add that customer to users": the file does.
        identified = bool(clause.values and clause.values.numbers) or bool(clause.held)
        identified = identified or any(
            x.kind in ("path", "url") for c in clauses[:i] for x in (c.values or Values()).locators
        )
        person = _PERSON.search(text) or (_THEY.search(text) if _NOTED.search(text) else None)
        person = person or (None if identified else _SOMEONE.search(text))
        # "the man who founded the company his father named", "which user has ... and what is
        # the user's city": the person is said before.
        earlier = f"{before} {text[: person.start()]}" if person else ""
        said = (
            _WHO.search(earlier)
            or re.search(rf"\b{_ROLE}s?\b", earlier, re.I)
            or _KIN.search(earlier)
        )
        if person and not said and not any(_people_in(c) for c in clauses[: i + 1]):
            return person.group()
        before = f"{before} {text}"
    if pointed := _unnamed_thing(clauses):
        return pointed
    thing = _THING.search(clauses[0].text) if clauses else None
    return (thing.group(1) or thing.group(2)) if thing else ""


def _people_in(clause: Clause) -> list[Quoted]:
    """The names the clause gives where it says no place ("she's moving to Oslo" names nobody,
    "Carol will coach Bob: add a relation from Carol to Bob" names both)."""
    # "an introduction for Alice": after "for", a person as often as a place
    places = (
        {p.start for p in clause.values.places if p.preposition != "for"}
        if clause.values
        else set()
    )
    return [n for n in names_in(clause) if n.start not in places]


# "show me what that file looked like", "read that article for me": a file or page pointed at
# when the request gives none (a folder or a repository is where, not which file).
_POINTED_THING = re.compile(
    r"\b(?:that|this)\s+(?:(?P<file>file|document)|(?P<page>page|article|website))\b", re.I
)


def _unnamed_thing(clauses: list[Clause]) -> str:
    """In the first request only: a later one may point at what an earlier one finds or makes
    ("find an article about X and summarize that article")."""
    for clause in clauses[:1]:
        match = _POINTED_THING.search(without_values(clause))
        if match is None:
            continue
        given = [x for c in clauses if c.values for x in c.values.locators]
        files = [x for x in given if x.kind == "path" and re.search(r"\.\w{1,5}$", x.value)]
        pages = [x for x in given if x.kind == "url"]
        if not (files if match["file"] else pages):
            return match.group()
    return ""


def servers_named(clause: Clause, held: Mapping[str, Iterable[str]]) -> set[str]:
    """The servers holding something the clause names (catalog/contents.py): a held name written
    as a whole, in any case, and not as part of a longer name ("Bob" in "Bob's phone", not in
    "Bob Chen"; "users" in "the users table", "orders" in "order 4": `held_in`), or a thing the
    analysis found it names otherwise (`clause.held`: a table by its column, `tables_by_field`)."""
    found = {h.value for h in clause.held}
    return {
        server
        for server, names in held.items()
        if _spans(clause.text, names, singular=True) or not found.isdisjoint(names)
    }


# The words that may say what a record is about, in a clause and in the records themselves
# (catalog/contents.py): six letters or more, as shorter words ("like", "work", "over") are
# said of everything; of a clause's, not these.
CONTENT_WORD = re.compile(r"[A-Za-z]{6,}")
# In a record, also a name within it, however short ("lives in Leeds"): a place, a person.
RECORD_WORD = re.compile(rf"{CONTENT_WORD.pattern}|(?<=\s)[A-Z][a-z]{{2,}}\b")
_PLAIN = {stem(w) for w in "anyone anything someone something everyone everything".split()}


def servers_about(clause: Clause, words: Mapping[str, Collection[str]]) -> set[str]:
    """The servers whose records say a word the clause says (`said_in`): "Who is allergic to
    peanuts?" and the graph where Bob is "allergic to peanuts"."""
    said = {stem(w.value) for w in said_in(clause, words)}
    return {server for server, held in words.items() if not said.isdisjoint(held)}


def said_in(clause: Clause, words: Mapping[str, Collection[str]]) -> list[Quoted]:
    """Where a clause that names nothing the servers hold (`clause.held`) says a word some
    server's records say (catalog/contents.py), by its stem, as the clause writes it: a name
    it gives ("do I know anybody in Leeds?" and the graph where Carol "lives in Leeds"), else
    any word ("who is allergic to peanuts?"; "who was the engineer of the Eiffel Tower?" asks
    about the tower, not the records that say "engineer")."""
    if clause.held:
        return []
    found = names_in(clause) or _content_words(clause)
    return [w for w in found if any(stem(w.value) in held for held in words.values())]


def _content_words(clause: Clause) -> list[Quoted]:
    text = without_values(clause)
    found = [(m.start(), m.group()) for m in CONTENT_WORD.finditer(text)]
    # a place's name written in lower case, however short: "who do i know in leeds"
    found += [(m.start("w"), m["w"]) for m in _PLACED_WORD.finditer(text) if len(m["w"]) < 6]
    return [
        Quoted(start=at, end=at + len(word), value=word)
        for at, word in found
        if stem(word) not in _PLAIN | _ENTRY_STEMS  # "every entity of type company": company
    ]


_PLACED_WORD = re.compile(
    r"\b(?:in|near)\s(?!(?:bulk|total|general|time|stock|here|there)\b)(?P<w>[a-z]{4,})\b"
)


# Fields whose names say nothing of what a table holds: every table has them.
_PLAIN_FIELDS = {"name", "title", "value", "type", "status", "created", "updated"}


def tables_by_field(clause: Clause, fields: Mapping[str, Sequence[str]]) -> list[Quoted]:
    """The tables a clause that names someone or something asks a field of, by the field's name
    ("what's Carla Reyes's email?" and the `users` table, whose columns hold an email; "Emma
    moved to Hamburg, update her city"), or bounds a field of ("a rating of 2 or lower"): where
    the field is said, with the table as held."""
    named = bool(names_in(clause))
    said_fields = [
        Quoted(start=said.start("field"), end=said.end("field"), value=table)
        for table, names in fields.items()
        for field in names
        if len(field) >= 4 and field.lower() not in _PLAIN_FIELDS
        if (said := _field_said(field, clause.text))
        and (named or _BOUNDED.match(clause.text, said.end()))
    ]
    # "bob chen's new address is bob@new.example - fix it in the db": the one table with an
    # email column, where the address given goes
    emails = [x for x in (clause.values.locators if clause.values else []) if x.kind == "email"]
    mailed = [t for t, names in fields.items() if "email" in (n.lower() for n in names)]
    if emails and len(mailed) == 1 and not said_fields:
        return [Quoted(start=emails[0].start, end=emails[0].end, value=mailed[0])]
    return said_fields


# A field given a bound, by a number: "which customers gave a rating of 2 or lower", "orders with
# an amount over 50" (the rows of the table whose field it is).
_BOUNDED = re.compile(
    r"\s+(?:(?:of|is|was|at|above|below|over|under|less\s+than|more\s+than|greater\s+than|"
    r"lower\s+than|higher\s+than|at\s+(?:least|most))\s+)+\$?\d",
    re.I,
)


def _field_said(field: str, text: str) -> re.Match[str] | None:
    """Where the text says the field: as a word of five letters or more, or of four after a
    possessive or before a value ("update her city", "Dmitri's city = Grenoble", "customers
    whose city is Lyon", "moved -> city Seville"; "the city of London" is no field)."""
    word = rf"(?<![\w-])(?P<field>{re.escape(field)})(?![\w-])"
    if len(field) >= 5:
        return re.search(word, text, re.IGNORECASE)
    owner = r"(?:\b(?:his|her|their|its|whose|where\s+(?:the|their|its))\s+|['’]s\s+)"
    owned = re.search(rf"{owner}{word}", text, re.IGNORECASE)
    before = re.search(rf"{word}(?=\s*(?:[=:]|{ARROW}))", text, re.IGNORECASE)
    return owned or before or re.search(rf"{ARROW}\s*{word}\s+\w", text, re.IGNORECASE)


def cased_as_held(text: str, names: Iterable[str]) -> str:
    """The text with each name of two or more capitalised words that the servers hold (their
    records, their tables' rows) written as held where the text writes it in another case
    ("emma schultz closed her acct": Emma Schultz), so that the rules that know a name by its
    capitals know this one. Only the case changes: every offset stays. A name of one word is
    left as written: "bob" or "rose" may be a word, unless the request opens with it as what it
    is about ("mallory: how do i know her?")."""
    lowered = text.lower()
    for name in names:
        words = name.split()
        if name.lower() not in lowered or not all(w[:1].isupper() for w in words):
            continue
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
        if len(words) < 2:
            pattern = re.compile(rf"^(?<![\w-]){re.escape(name)}(?=\s*:)", re.IGNORECASE)
        text = pattern.sub(name.replace("\\", "\\\\"), text)  # a case is of one length
    return text


def held_in(clause: Clause, held: Mapping[str, Iterable[str]]) -> list[Quoted]:
    """Where the clause names what the servers hold, with the name as held; a plural name in
    lowercase also by its singular ("order 4" names `orders`)."""
    # "place an order" is any order; "add an order for user 3" one of the orders table.
    any_one = not asks_to_change(clause.text)
    return sorted(
        (
            found
            for names in held.values()
            for found in _spans(clause.text, names, singular=True, any_one=any_one)
        ),
        key=lambda found: found.start,
    )


def _spans(
    text: str, names: Iterable[str], *, singular: bool = False, any_one: bool = False
) -> list[Quoted]:
    lowered, found = text.lower(), []
    for name in names:
        written = [name]
        if singular and name.islower() and name.endswith("s") and len(name) > 4:
            # "order 4", and "what has anyone ordered": what was done is what the table keeps
            written += [name[:-1], f"{name[:-1]}ed"]
        for word in written:
            one = word == name[:-1]
            if (
                len(word) >= 3
                and word.lower() in lowered
                and (at := _named(text, word)) is not None
                and not (any_one and one and _ANY_ONE.search(text[:at]))
                and not (one and _as_a_verb(text, at, len(word)))
            ):
                found.append(Quoted(start=at, end=at + len(word), value=name))
                break
    return found


# "place an order", "a minimum order": any one thing of the kind, not the table of them (unless
# it is added).
_ANY_ONE = re.compile(r"\b(?:a|an)\s+(?:\w+\s+)?$", re.IGNORECASE)


# "hoping to order bread": the singular as a verb, after "to" or a person (not "to order 4",
# whose number the caller's pattern requires anyway)
_A_VERB = re.compile(r"\b(?:to|i|we|you|they|please)\s+$", re.IGNORECASE)


def _as_a_verb(text: str, at: int, length: int) -> bool:
    numbered = re.match(r"\s*(?:#|no\.?\s*|number\s+)?\d", text[at + length :])
    return _A_VERB.search(text[:at]) is not None and not numbered


_OWNERS = "my|the|our|your"  # "in your memory": the assistant's is the user's
# How a noun is said for short: "from the db", "in my repo".
_SHORT = {"database": ("db",), "repository": ("repo",), "directory": ("dir", "folder")}


def servers_placed(
    clause: Clause,
    servers: Iterable[str],
    held: Mapping[str, Iterable[str]] | None = None,
    nouns: Mapping[str, Iterable[str]] | None = None,
) -> set[str]:
    """The servers the clause names as where it puts something or takes it from, by name ("add
    Globex to memory", "in my memory", "... -> memory"), by a thing one holds ("insert Frank
    into users") or by a noun its tools say (`nouns`: "look up in the database"); of both, where
    it puts it ("add Dmitri to my memory graph, with his email from the users table" is a change
    in memory), or for a deletion where it takes it out of."""
    held, nouns = held or {}, nouns or {}
    request = clause.text[request_start(clause.text) :]  # not where the why is

    def said(prepositions: str) -> set[str]:
        return {
            server
            for server in servers
            if any(
                re.search(rf"(?:\b(?:{prepositions})|{ARROW})\s+{pattern}(?![\w-])", request, re.I)
                for pattern in (
                    *(  # a whole name: "→ Alice Martin-Dubois" puts nothing on Alice
                        rf"(?:(?:{_OWNERS})\s+)?{re.escape(n)}(?-i:(?!\s+[A-Z]))"
                        for n in (server, *held.get(server, ()))
                    ),
                    *(
                        rf"(?:{_OWNERS})\s+(?:[\w-]+\s+)?{re.escape(n)}"
                        for noun in nouns.get(server, ())
                        for n in (noun, *_SHORT.get(noun, ()))
                    ),
                )
            )
        }

    if _REMOVING.search(clause.text):  # "delete Frank from memory": where it is taken out of
        return said("from") or said("in|into|to")
    return said("in|into|to") or said("from") or _remembered_in(request, servers, nouns)


# "Remember it under Rosa's Bakery", "memorise that ...": kept in a memory, as "add it to
# memory" says; "do you remember" asks, it keeps nothing.
_REMEMBER = re.compile(r"^\W*(?:please\s+)?(?:remember|memori[sz]e)\b", re.IGNORECASE)


def _remembered_in(
    request: str, servers: Iterable[str], nouns: Mapping[str, Iterable[str]]
) -> set[str]:
    """The servers a clause that opens with "remember" keeps its fact in: those whose name or
    nouns (`servers_placed`) say memory."""
    if _REMEMBER.search(request) is None:
        return set()
    return {s for s in servers if any("memor" in n for n in (s, *nouns.get(s, ())))}


def _named(text: str, name: str) -> int | None:
    """Where the text names `name` as a whole, None if nowhere."""
    for match in re.finditer(rf"(?<![\w'’-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE):
        before, after = text[max(0, match.start() - 80) : match.start()], text[match.end() :]
        # "Big Bob"; "Open Bob" is Bob; "what did Bob Chen order" names the orders
        longer = match.group()[:1].isupper() and re.search(rf"\b({_WORD})\s$", before)
        # "Bob Chen" is no Bob; "the user Emma Schultz" is of the users table.
        more = match.group()[:1].isupper() and re.match(r"\s[A-Z][a-z]", after)
        if (not longer or longer[1].lower() in _NOT_NAMES) and not more:
            return match.start()
    return None


def records(properties: dict[str, Any], clause: Clause) -> dict[str, tuple[list[Any], Span]]:
    """Each list-of-records parameter whose record the clause gives whole, with its one record;
    a list of names ("entityNames") with the names the clause gives."""
    names = named_things(clause)
    if not names:
        return {}
    span = Span(start=names[0].start, end=names[-1].end)
    # "Bob moved to Glasgow: add that as an observation on Bob" relates no two things.
    observed = _OBSERVATION.search(clause.text) is not None
    related = None if observed else _related(clause.text, names, _removing(clause))
    found: dict[str, tuple[list[Any], Span]] = {}
    for name, prop in properties.items():
        item = prop.get("items") or {}
        if json_type(prop) != "array":
            continue
        if json_type(item) == "string" and _words(name)[-1:] == ["names"]:
            # "Bob works at Initech" names a relation, not two things; "Carla's order" an order
            things = [n.value for n in names if not _OWNER.match(clause.text[n.end :])]
            if not related and things:
                found[name] = (list(dict.fromkeys(things)), span)
        elif json_type(item) == "object" and (several := _paired(item, clause, names)):
            found[name] = (several, span)
        elif json_type(item) == "object" and (
            record := _record(item, clause, names, name, related)
        ):
            found[name] = ([record], span)
    return found


def _paired(item: dict[str, Any], clause: Clause, names: list[Quoted]) -> list[dict[str, Any]]:
    """A record per name for a clause that pairs two names or more each with what it quotes of
    them ("add 'has a dog' to Bob and 'plays the cello' to Carol", "Bob: 'has a dog', Carol:
    'plays the cello'"), for records of a name and a list of texts (observations); else []."""
    fields = item.get("properties") or {}
    named = [f for f, p in fields.items() if "name" in _words(f) and json_type(p) == "string"]
    texts = [f for f, p in fields.items() if json_type(p) == "array"]
    quotes = [q for q in _quoted(clause) if q.value not in {n.value for n in names}]
    # the names themselves, not those inside what is quoted ('based in Austin')
    names = [n for n in names if not any(q.start <= n.start < q.end for q in quotes)]
    if len(named) != 1 or len(texts) != 1 or len(fields) != 2 or len(names) < 2 or len(quotes) < 2:
        return []
    said = sorted([*names, *quotes], key=lambda x: x.start)
    kinds = ["name" if x in names else "quote" for x in said]
    # name first, each followed by its quotes; or quote first, each quote before its name
    first = kinds[0]
    groups: list[tuple[Quoted, list[str]]] = []
    pending: list[str] = []
    for thing, kind in zip(said, kinds, strict=True):
        if kind == "name" and first == "name":
            groups.append((thing, []))
        elif kind == "quote" and first == "name":
            groups[-1][1].append(thing.value)
        elif kind == "quote":
            pending.append(thing.value)
        else:
            groups.append((thing, pending))
            pending = []
    if pending or len(groups) != len(names) or not all(texts_of for _, texts_of in groups):
        return []
    return [{named[0]: n.value, texts[0]: t} for n, t in groups]


_OBSERVATION = re.compile(r"\bobservations?\b", re.IGNORECASE)
_ENDS = ("from", "to", "source", "target")  # a relation's fields for its two things


def record_kind(schema: dict[str, Any]) -> str:
    """What a tool's list of records holds: "relations" (a from and a to field), "things" (a
    name and a type field: a graph's entities) or ""."""
    for prop in (schema.get("properties") or {}).values():
        fields = list((prop.get("items") or {}).get("properties") or {})
        if json_type(prop) != "array":
            continue
        if sum(f.lower() in _ENDS for f in fields) == 2:
            return "relations"
        words = [_words(f) for f in fields]
        if any(w[-1:] == ["type"] for w in words) and any("name" in w for w in words):
            return "things"
    return ""


def record_keeping(prop: dict[str, Any], clause: Clause, said: list[str]) -> dict[str, Any] | None:
    """The one record a list-of-records parameter takes for the first thing the clause names,
    keeping `said` as what is observed of it (facts read by an earlier step), or None."""
    item = prop.get("items") or {}
    names = named_things(clause)
    if json_type(prop) != "array" or json_type(item) != "object" or not names:
        return None
    return _record(item, clause, names, "", None, said)


def _record(
    item: dict[str, Any],
    clause: Clause,
    names: list[Quoted],
    listed: str,
    related: tuple[tuple[Quoted, Quoted], str] | None,
    said: list[str] | None = None,
) -> dict[str, Any] | None:
    fields = item.get("properties") or {}
    record: dict[str, Any] = {}
    ends = [f for f in fields if f.lower() in _ENDS]
    if len(ends) == 2:
        related = related or _described_relation(clause, names)
        if related is None:
            return None
        (first, second), between = related
        record |= {ends[0]: first.value, ends[1]: second.value}
        for field in fields:
            if _words(field)[:1] and _words(field)[0] in STATED_WORDS:
                record[field] = between
    # What the clause goes on to say about a name is what a record to add keeps when it has the
    # clause's shape: a kind given for a new thing ("a company called Globex") and a type field,
    # and no two names related (then it is a relation's, "Carol works at Initech"). What to
    # delete is quoted: it must match what is kept word for word.
    typed = any(_words(field)[-1:] == ["type"] for field in fields)
    told = (
        typed == (_kind_of(clause.text, names[0]) is not None)
        and not related
        and not _REMOVING.search(listed)
        and not _ASKED_FOR.search(clause.text)
    )
    for field, prop in fields.items():
        if field in record:
            continue
        words = _words(field)
        if "name" in words and json_type(prop) == "string":
            record[field] = names[0].value
        elif json_type(prop) == "array" and (kept := said or _statements(clause, names, told)):
            record[field] = kept
        elif json_type(prop) == "array" and told and typed and not _OBSERVATION.search(clause.text):
            record[field] = []  # "an entity Leeds of type city": nothing more is known of it
        elif words[-1:] == ["type"] and (kind := _kind_of(clause.text, names[0])):
            record[field] = kind
    required = item.get("required") or list(fields)
    return record if all(field in record for field in required) else None


def _related(
    text: str, names: list[Quoted], removal: bool = False
) -> tuple[tuple[Quoted, Quoted], str] | None:
    """Two names and the few words that relate them, as written ("Carol works at Initech":
    "works at"): not a preposition alone, nor a description ("Dana Kim is a nurse who lives in
    Oslo" says what Dana is, and "Rosa's Bakery" is one name). A relation to remove may be
    said to hold no longer ("Bob no longer works at Initech")."""
    for first, second in pairwise(names):
        # "the 'leads' relation from Alice to Project Falcon": the kind said before them, or
        # after ("link Hiro to Initech with a 'works at' relation")
        said = _RELATION_SAID.search(text[: first.start]) or _RELATION_AFTER.match(
            text[second.end :]
        )
        if said and re.fullmatch(r"\s+(?:to|and|with)\s+", text[first.end : second.start]):
            return (first, second), said["kind"]
    for first, second in pairwise(names):
        between = text[first.end : second.start]
        if arrow := _ARROWED.fullmatch(between):  # "Carol -[lives in]-> Leeds"
            return (first, second), arrow["kind"]
        if removal:
            between = _NO_LONGER.sub(" ", between)
        between = _QUOTED_RELATION.sub(r" \1 ", between)  # "Carol 'reports to' Alice"
        words = between.split()
        if (
            _RELATING.fullmatch(between)
            and not set(words) <= _PREPOSITIONS
            and not set(words) & _DESCRIBING
        ):
            return (first, second), " ".join(words)
    return None


def _described_relation(
    clause: Clause, names: list[Quoted]
) -> tuple[tuple[Quoted, Quoted], str] | None:
    """The first name and a thing the servers already hold, related by the few words said of
    the first ("add Nadia to memory as a person who works at Acme Corp", "new person Kofi
    ('QA tester'), works at Initech", "Hiro Sato (a person) works at Initech"): the words open
    with a verb ("works", "reports"), and an aside in brackets between is left out."""
    held = {h.start for h in clause.held}
    first = names[0]
    for other in names[1:]:
        between = _ASIDE.sub("", clause.text[first.end : other.start])
        said = re.search(
            rf"(?:^|,|\bwho\b)\s*(?:{re.escape(first.value)}\s+)?(?P<kind>{_SAID_OF})\s+$", between
        )
        if other.start in held and other.value != first.value and said:
            return (first, other), said["kind"]
        # "new project Osprey ..., Carol leads it": the other name is who does it
        back = re.match(
            rf"\s+(?P<kind>{_SAID_OF})\s+(?:it|him|her|them)\b", clause.text[other.end :]
        )
        if other.start in held and back and re.fullmatch(r"[\s\"'“”‘’]*,\s*(?:and\s+)?", between):
            return (other, first), back["kind"]
    return None


# An aside in brackets, quoted or not: "(a person)", "('QA tester, joined in September')".
_ASIDE = re.compile(r"\s*\([^()]*\)")
# A verb said of someone, and up to two words after it: "works at", "reports to", "belongs to".
_SAID_OF = r"(?!(?:is|was|has|does)\b)[a-z]{3,}s(?:\s+[a-z]+){0,2}"


def named_things(clause: Clause) -> list[Quoted]:
    """The names a record of the clause's takes: those it gives, else those inside its quotes;
    those of the request when a sentence telling why comes first ("Bob has a new colleague:
    please add Hiro Sato ...")."""
    names = names_in(clause) or _quoted_names(clause)
    start = request_start(clause.text)
    return [name for name in names if name.start >= start] or names


def _quoted_names(clause: Clause) -> list[Quoted]:
    """The names inside what the clause quotes: "delete the relation 'Bob works at Initech'"."""
    return [
        Quoted(start=quote.start + m.start(), end=quote.start + m.end(), value=m.group())
        for quote in _quoted(clause)
        for m in _NAME.finditer(quote.value)
    ]


def _removing(clause: Clause) -> bool:
    return _REMOVING.search(clause.text) is not None


_QUOTED_RELATION = re.compile(r"^\s+[\"'“‘]([a-z]+(?:\s+[a-z]+){0,2})[\"'”’]\s+$")
_RELATION_SAID = re.compile(
    r"[\"'“‘](?P<kind>[a-z]+(?:\s+[a-z]+){0,2})[\"'”’]\s+relation(?:ship)?\s+(?:from|between)\s+$"
)
_RELATION_AFTER = re.compile(
    r"\s+(?:with|as|using)\s+(?:(?:a|an|the)\s+)?(?:(?:type|kind|relation(?:ship)?)\s+)?"
    r"[\"'“‘](?P<kind>[a-z]+(?:\s+[a-z]+){0,2})[\"'”’]"
    r"(?:\s+relation(?:ship)?)?\W*$"
)
_ARROWED = re.compile(r"\s*-+\s*\[?\s*(?P<kind>[a-z]+(?:\s+[a-z]+){0,2})\s*\]?\s*-*>\s*")
_NO_LONGER = re.compile(r"^\s+(?:no\s+longer|not\s+any\s*more)\s+", re.IGNORECASE)
_RELATING = re.compile(r"\s+[a-z]+(?:\s+[a-z]+){0,2}\s+")  # one to three plain words
_DESCRIBING = {"is", "are", "was", "were", "be", "and", "or", "who", "which", "that", "a", "an"}


def _statements(clause: Clause, names: list[Quoted], told: bool) -> list[str]:
    """What the clause quotes, other than a name, or else (`told`) what it goes on to say about
    the first name: the observations to keep."""
    named = {name.value for name in names}
    quoted = [q.value for q in _quoted(clause) if q.value not in named]
    if quoted or not told:
        return quoted
    # A piece with a URL or path in it says where a value is, not the value ("with its street
    # address from http://host:8000/ as an observation" is no "8000/ as an observation").
    after = names[0].end
    locators = [s for s in (clause.values.locators if clause.values else []) if s.start >= after]
    text = clause.text
    for locator in sorted(locators, key=lambda span: -span.start):
        text = f"{text[: locator.start]}{_ELSEWHERE}{text[locator.end :]}"
    return [piece for piece in _described(text[after:]) if _ELSEWHERE not in piece]


_ELSEWHERE = "\ufffc"  # where a locator was


# What a clause goes on to say about a thing it names: "Globex: a company based in Springfield",
# "... Globex to memory; it is based in Springfield" say "based in Springfield". Its kind ("a
# company") is no observation, nor where the change goes ("to memory").
# A sentence's end is a piece's too ("Bob's birthday. Could you add it ..."), not an initial's
# or a title's ("St. Louis").
_PIECES = re.compile(
    r"\s*(?:[;,:]|\band\b|\bwho\b|\bwhich\b|\bthat\b"
    r"|(?<!\b[A-Z][a-z])(?<!\b[A-Z])(?<!\bMrs)(?<!\bInc)(?<!\bLtd)[.!?]\s+(?=[A-Z]))\s*"
)
_SUBJECT = re.compile(
    r"^(?:(?:it|he|she|they)(?:'s|’s|\s+(?:is|are|was))|is|are|was|'s|’s)\s+|^(?:a|an)\s+[a-z]+\s*"
    # "note that he plays the cello", "...; it starts in April": "plays the cello"
    r"|^(?:he|she|they)\s+(?=[a-z])|^it\s+(?=[a-z]+s\b)",
    re.IGNORECASE,
)

_KIND_ONLY = re.compile(
    r"^(?:(?:it|he|she|they)\s+)?(is|are|was|works\s+as)\s+((?:a|an)\s+[a-z]+)$", re.IGNORECASE
)
# "record where she works now": the value to keep is named, not given (a colon would give it).
_ASKED_FOR = re.compile(
    r"\b(?:record|note|save|store|remember|keep|log|put|add)\s+(?:(?:in|to|into)\s+(?:my|your|the|our)"
    r"\s+(?:knowledge\s+graph|memory|graph|notes)\s+)?(?:where|what|who|whom|which|when|how|whether)"
    r"\b[^:]*$",
    re.IGNORECASE,
)
# A request, or a list parameter ("deletions"), for what to delete.
_REMOVING = re.compile(r"delet|remov|forget|drop|eras(?:e|ing)", re.IGNORECASE)


# "Bob's entry in my knowledge graph" is where a change goes, not what it says of Bob.
_ENTRIES = {"entry", "record", "node", "entity", "profile", "card", "page", "memory", "knowledge"}
# A name that owns the thing said after it: "Carla Reyes's order" (not "Bob's entry").
_OWNER = re.compile(rf"['’]s\s+(?!(?:{'|'.join(_ENTRIES)})\b)[a-z]")
_ENTRY_STEMS = {stem(w) for w in _ENTRIES}
_NOT_SAID = _PREPOSITIONS | _NOT_NAMES | _ENTRIES | {"as"}  # "as an observation": how it is kept


def _described(after: str) -> list[str]:
    """The pieces of description: not a request ("save that") nor a place ("to memory")."""
    said = []
    after = re.sub(r"^['’]s\b", "", after)  # "Bob's birthday is 2 May": of Bob, "birthday ..."
    after = _ASIDE.sub("", after)  # "Nadia (a person) works at ...": "(a person)" is her kind
    for piece in _PIECES.split(after.strip(" \"'“”‘’.!?")):
        if kind_only := _KIND_ONLY.match(piece.strip()):  # "she is a translator": what she is
            said.append(f"{kind_only[1]} {kind_only[2]}")
            continue
        told = _SUBJECT.sub("", _SUBJECT.sub("", piece.strip()))  # "it is", then "a company"
        # what its subject is: "they are the pastry chef at Rosa's Bakery"
        predicate = told != piece.strip() and told.lower().startswith("the ")
        piece, words = told, told.split()
        # "Carol leads it" says nothing of Carol until "it" is known.
        pointing = words[-1:] and words[-1].lower() in {"it", "him", "her", "them", "this", "that"}
        # a plain word first, or an abbreviation in capitals ("CEO is Wile E. Coyote")
        plain = words[:1] and (words[0].islower() or (words[0].isupper() and len(words[0]) > 1))
        first = words[0].lower() not in _NOT_SAID if words else False
        if len(words) >= 2 and ((plain and first) or predicate) and not pointing:
            said.append(piece)
    return said


def _kind_of(text: str, name: Quoted) -> str | None:
    said = text[: name.start].rstrip("\"'“‘ ") + " "
    before = _KIND_BEFORE.search(said) or _KIND_NEW.search(said)
    before = before or _KIND_SAID_FIRST.match(said)
    rest = text[name.end :]
    after = _KIND_AFTER.search(rest) or _KIND_DASHED.search(rest) or _KIND_TYPED.search(rest)
    match = before or after
    return match["kind"] if match else None


def _quoted(clause: Clause) -> list[Quoted]:
    return list(clause.values.quoted) if clause.values else []


def _words(field: str) -> list[str]:
    return readable_name(field).split()


def found_thing(clause: Clause) -> Quoted | None:
    """Where a change points at someone an earlier read of the request finds, by what they are
    ("add the project's owner to my knowledge graph", "add them to memory as a person",
    "add that person ..."), with the words of what they are ("owner"; none for "them")."""
    found = _POINTED_AT.search(clause.text)
    if found is None:
        return None
    return Quoted(start=found.start("who"), end=found.end("who"), value=found["role"] or "")


def named_as_read(text: str, found: Quoted, name: str) -> str:
    """The clause's text with the name read where it points at that one (`found_thing`), and
    the kind "that person" says: "add Carla Reyes (a person) to the knowledge graph"."""
    kind = re.fullmatch(r"that\s+(person|company)", text[found.start : found.end], re.I)
    said = f"{name} (a {kind[1].lower()})" if kind else name
    return f"{text[: found.start]}{said}{text[found.end :]}"


def name_read_for(role: str, read: Sequence[str]) -> str | None:
    """The one name the results `read` give for what the request points at (`found_thing`): a
    labelled line ("Owner: Priya Nair" for "owner"), a sentence that names it ("Our pastry chef
    is Aiko Tanaka" for the pastry chef the read asked for), or the one name of the rows read
    ("user_name: Carla Reyes" for "who ordered the Monitor? add that person ...")."""
    names: set[str] = set()
    for text in read:
        asked, arrow, result = text.partition(" → ")
        asked, result = (asked, result) if arrow else ("", text)
        words = [w for w in (role.split() or _role_words(asked)) if w not in _NOT_ROLES]
        for word in words:
            said = rf"{re.escape(word)}s?"
            labelled = re.finditer(rf"(?im)^\W*{said}\s*:\s*{_FULL}\s*$", result)
            told = re.finditer(rf"(?i:\b{said}\s+(?:is|was|,))\s+{_FULL}", result)
            names |= {m["name"] for m in [*labelled, *told]}
        if not names and not role:
            names |= set(_ROW_NAME.findall(result))
    return next(iter(names)) if len(names) == 1 else None


def _role_words(asked: str) -> list[str]:
    """What the earlier request asked to find: "Look up the pastry chef's full name": chef."""
    found = _ROLE_ASKED.search(asked)
    return [(found["role"] or found["told"] or found["asked"]).lower()] if found else []


_WORD = r"[A-Z](?:[\w'’-]*\w)?"  # "O'Neil", not a closing quote
_FULL = rf"(?P<name>(?-i:{_WORD}(?:\s+{_WORD})+))"
_ROW_NAME = re.compile(rf"['\"]?(?:user_)?name['\"]?:\s*['\"]?({_WORD}(?:\s+{_WORD})+)")
_NOT_ROLES = {"person", "one", "people", "them", "him", "her", "name", "full"}
_POINTED_AT = re.compile(
    r"\b(?:add|create|save|remember|store|put|record|enter)\s+(?P<who>"
    r"(?:the|that)\s+(?:[\w'’]+\s+){0,2}?(?P<role>(?!person\b|one\b)[a-z]+)"
    r"|that\s+(?:person|one)|them|him|her)(?=\s+(?:to|in|into|on|as)\b)",
    re.IGNORECASE,
)
# "the pastry chef's full name", "who the bakery's pastry chef is", "who is the head baker"
_ROLE_ASKED = re.compile(
    r"\bthe\s+(?:[\w'’]+\s+)?(?P<role>[a-z]+)(?:['’]s)?\s+(?:full\s+)?name\b"
    r"|\bwho\s+the\s+(?:[\w'’]+\s+){0,2}?(?P<told>[a-z]+)\s+(?:is|was)\b"
    r"|\bwho\s+(?:is|was)\s+the\s+(?:[\w'’]+\s+){0,2}?(?P<asked>[a-z]+)"
    r"(?=\s*(?:$|[,.?;]|\s+(?:on|at|in|of|from|according)\b))",
    re.IGNORECASE,
)
