"""Clauses: a question split into its intents, one each.

Splits at sentence ends, semicolons, "then", and at "and"/commas only where a new request starts
("..., and what time is it", "... and convert ..."), so "salt and pepper" or "2,340" stay whole.
A place named in one clause is carried into a later clause that points back at it with "there"
("book a hotel in Paris and tell me the weather there" -> "tell me the weather in Paris"), so
every clause can be searched and answered on its own; in a follow-up question, "there" may point
at a place the conversation named before.
"""

from __future__ import annotations

import re

from toolweave.language.cues import asks_to_change, facts_named, refers_back, states_first
from toolweave.language.text import ARROW, OPENERS, sentences
from toolweave.language.values import (
    blank_quoted,
    clock_times,
    locators_in,
    named_places,
    numbers,
    quoted_in,
    said_in,
)

_SEMICOLON = re.compile(r"(?<=;)\s+")
# ", and" starts a new request unless a list goes on: quoted ("'Rome', 'Paris', and 'Oslo'") or
# of short items ("the date, time, and ticket availability"). A relative pronoun after a comma
# (", which is about 3000 km") goes on describing, so it opens no request either.
_RELATIVE = "which|who|whom|whose|where|when"
_OWNING = "her|his|their|its|the|my|our"
LIST_ITEM_WORDS = 3
# "..., and make it the current one", "... + hop onto it": a branch switched to (cues' verbs)
_CURRENT = (
    r"(?:make\s+(?:it|that)\s+(?:the\s+|my\s+)?(?:current|active|working)\b"
    r"|(?:hop|jump|move)\s+on(?:to)?\s+(?:it|that)\b)"
)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:(?P<list>,\s*(?:and|then|and then|and also)\s+(?![\"'‘“]))|"
    # "..., link Carol -[lives in]-> Leeds" (a "link" that is a verb: before a name)
    rf",\s+(?=(?!(?:{_RELATIVE})\b)(?:{OPENERS})\b|link\s+(?-i:[A-Z]))|"
    # "... and record it on Bob": a verb also a noun ("and record label executive") when it
    # points at something
    # ("I'm planning a party and would like a cake": the same wish, asked of nobody)
    r"\s+(?:and|and also)\s+(?!(?:would|could|should|can|will)\s+(?!you\b)\w)"
    rf"(?=(?:{OPENERS})\b|record\s+(?:it|that|this|them)\b|{_CURRENT})"
    # "mkdir /srv/a + move b.txt in there", "TODO.md → stage & commit"
    rf"|\s+[+&]\s+(?=(?:{OPENERS})\b|(?:{_OWNING})\s|{_CURRENT})"
    r"|\s+(?:and\s+)?then\s+(?=[a-z]))",
    re.IGNORECASE,
)
# "and", "please"; "First," "Second," "Lastly," that only number the requests
_LEADING_FILLER = re.compile(
    r"^(?:(?:and|then|also|please)\s+|(?:first|second|third|fourth|fifth|last|final|next)(?:ly)?"
    r"\s*,\s*|(?:after\s+that|additionally|moreover|furthermore|afterwards)\s*,\s*"
    # "Just out of curiosity, how many ...", "For the record, ..."
    r"|(?:just\s+)?(?:out\s+of\s+curiosity|for\s+the\s+record|by\s+the\s+way|btw)\s*(?:,\s*|$))",
    re.IGNORECASE,
)
# "... and check it out so I'm working on it?", "... so that it goes into my next commit": why,
# not what to do
_PURPOSE = re.compile(
    r",?\s+so\s+(?:that\s+)?(?:i|we)(?:'m|'re|\s)[^?.!]*(?=[?.!]?$)"
    r"|,?\s+so\s+that\s+(?:it|they)\s(?:[^?.!]|\.(?=\w))*(?=[?.!]?$)",
    re.I,
)
# The rest of a sentence, a dot inside a word ("app.py") and all; up to the colon that joins it
# to the request after it ("... without touching main: please create a branch ...").
_TAIL = r"(?:[^?.!:]|\.(?=\w)|:(?!\s))*(?=[?.!]?$|:\s)"
# "..., but don't commit anything yet", "... without touching either person", "... — just that
# file, not app.py": what the request must leave alone, no request of its own (`_BOUNDS`).
_BOUNDED = re.compile(
    r",?\s+(?:but\s+|and\s+)?(?:please\s+)?(?:don'?t|do\s+not|never)\s+(?:touch|change|commit|"
    rf"delete|remove|modify|edit|overwrite|push|stage|switch|check\s+out)\b{_TAIL}"
    rf"|,?\s+without\s+(?:touching|changing|deleting|removing|committing)\b{_TAIL}"
    rf"|\s+[—–]\s+(?:just|only)\b{_TAIL}"
    rf"|,?\s+(?:and|but)\s+(?:please\s+)?(?:leave|keep)\s+(?:all\s+)?(?:the\s+)?(?:other|rest|"
    rf"everything\s+else)\b{_TAIL}"
    # "..., but leave my app.py changes uncommitted", "and keep y.txt as it is"
    r"|,?\s+(?:and|but)\s+(?:please\s+)?(?:leave|keep)\s+(?:[^,.;!?]|\.(?=\w)){1,60}?\s+(?:alone|"
    r"as\s+is|as\s+(?:it|they)\s+(?:is|are)|untouched|unchanged|intact|un[a-z]+ed)\s*(?=[?.!]?$)",
    re.I,
)
# "Just to double-check my mental arithmetic, could you ...": why, before the request.
_WHY_FIRST = re.compile(
    r"^(?:just|only|mainly)?\s*(?:to|in\s+order\s+to|so\s+as\s+to)\s+[a-z]"
    r"|^for\s+(?:my|our)\s+[a-z][\w\s-]{0,40}$",  # "For my trip budget, could you ...?"
    re.I,
)
# A piece that is only a connective ("Then, find ...", "After that, ...") or thanks, "please",
# "go ahead", "would you?" or a greeting ("Hi, could you ...") is no request.
_CONNECTIVE = re.compile(
    r"^(?:and|then|also|next|finally|first(?:ly)?|after that|afterwards|after this|lastly|"
    r"additionally|in addition|moreover|furthermore|besides|please|(?:please\s+)?go ahead|"
    r"(?:would|could|can|will) you|"
    r"thanks?(?: you)?(?: (?:so|very) much| in advance| a lot)?|hi|hello|hey(?: there)?|"
    r"good (?:morning|afternoon|evening)|oh|ok|okay|well|so)$",
    re.IGNORECASE,
)
# "Once the message is created, send ...": the condition belongs to the request after it, as
# does a place alone ("in /srv/repo, stage app.py and commit ...", "in the orders table, ...")
# or a way of counting ("On average, how much does an order come to?").
_CONDITION = re.compile(
    r"^(?:once|after|before|when|whenever|if|as soon as|while)\b"
    r"|^(?:in|inside|within|under)\s+[^\s,]*[/~][^\s,]*$"
    # "In the committed config.py, what ...", after its folder maybe ("in /srv/repo, in ...")
    r"|^(?:in\s+[/~]\S*,\s+)?(?:in|inside|within)\s+(?:(?:the|my|your|our)\s+)?(?:\w+\s+)?"
    r"[\w-]+\.[a-z0-9]{1,5}$"
    r"|^(?:in|from)\s+(?:the\s+)?[\w-]+\s+table$"
    r"|^(?:in|inside)\s+(?:(?:my|your|the|our)\s+)?(?:memory|knowledge\s+graph|database|db)$"
    r"|^(?:on average|in total|overall|altogether|all in all)$",  # "On average, how much ..."
    re.I,
)
# "there" pointing back at a place: at the end of the clause or before a time word, so that
# "is there a train" (which points at nothing) is left alone.
_TIME_WORDS = r"tomorrow|today|tonight|now|right now|this|next"
_THERE = re.compile(
    rf"\b(?:over\s+)?there\b(?=\s*(?:$|[?.!,;]|(?:{_TIME_WORDS})\b))", re.IGNORECASE
)


def split_clauses(question: str, earlier: str = "") -> list[str]:
    """The question's clauses in order; a question with one intent gives one clause. `earlier`
    is the conversation so far: a "there" may point at the last place it named."""
    clauses: list[str] = []
    pieces = _with_context(
        [p for s in sentences(question, min_chars=1) for p in _SEMICOLON.split(s)]
    )
    for sentence in pieces:
        condition = source = ""
        # a sentence that only states something is one piece of context, however it goes on
        cuts = [p for cut in _pieces(sentence) for p in _shared_verb(cut)]
        if _only_states(sentence, cuts):
            cuts = [sentence]
        for piece in [part for cut in cuts for part in _copied(cut) for part in _made_with(part)]:
            text = _PURPOSE.sub("", _LEADING_FILLER.sub("", piece.strip())).strip(" ,;")
            text = _BOUNDED.sub("", text).strip(" ,;")
            if not re.search(r"\w", text) or _CONNECTIVE.match(text.rstrip(".!?")):
                continue
            if _WHY_FIRST.match(text) and piece is not cuts[-1] and not _valued(text):
                continue
            if _CONDITION.match(text) and not re.search(r"[.?!]$", text):
                condition = f"{condition}{text}, "
                continue
            if _SOURCE_ONLY.match(text) and locators_in(text):
                source = f"{text}, "  # "According to <url>, how many ... and when ...?"
                continue
            clauses.append(condition + source + text)
            condition = ""
        if condition:
            clauses.append(condition.rstrip(", "))
    if not clauses and question.strip():
        clauses = [question.strip()]
    named = _places(earlier)
    carried = _carry_folders(_carry_places(clauses, named[-1] if named else None))
    return _carry_target(_carry_told(_carry_names(carried)))


# Where the answers of a sentence's questions are to be found, said first.
_SOURCE_ONLY = re.compile(r"^(?:according\s+to|going\s+by|based\s+on|per)\s+\S+$", re.I)


# A sentence that states a fact the next one asks about: "It's 20:00 in Dubai. What time is it
# in Tokyo?" is one request. It opens with a subject, asks nothing, and gives a value.
_STATEMENT = re.compile(
    r"^(?:it'?s|it is|i'?m|i am|i have|i've|my|our|we|we're|we have|there (?:is|are))\b"
    r"(?!.*\b(?:want|need|like|please|would)\b)[^?]*\d[^?]*$",
    re.IGNORECASE,
)


# A sentence that goes on describing what the change before it makes: "Add a company called
# Globex to memory; it is based in Springfield", "...; it starts in April" is one request.
_GOES_ON = re.compile(
    r"^(?:it|he|she|they)(?:'s|'re|\s+(?:is|are|was|were|has|have|will|[a-z]+s))\b"
    r"|^(?:its|his|her|their)\s+\w+\s+(?:is|are)\b",  # "Her name is Farah Haddad, ..."
    re.I,
)


# A sentence that gives the text of the change before it: "I just need three lines in it: eggs,
# flour and butter.", "It should say: hello."
_ITS_TEXT = re.compile(r"^[^:?]{0,60}\b(?:it|the\s+file)\b[^:?]{0,30}:\s*\S", re.I)


_TOO = re.compile(
    r"^[^?]{3,60}\s(?:too|as\s+well)\W*$|^(?:incl\.?|including)\s[^?]{3,60}$"
    # "... the users table? No duplicates, please.": a wish about it, asking for nothing new
    rf"|^(?:no|without)\s(?!.*\b(?!please\b)(?:{OPENERS})\b)[^?]{{3,40}}$",
    re.I,
)


# A sentence that only bounds the request before it ("Keep everything else about him.",
# "Please don't touch the other lines.", "Don't commit anything yet") or says why it is checked
# ("I want to double-check my invoice total."): no request of its own, and no part of one.
_BOUNDS = re.compile(
    # "My edits to app.py aren't ready, so leave those uncommitted."
    r"^(?:[^?]{0,80}?,?\s+so\s+)?(?:but\s+)?(?:please\s+)?(?:(?:keep|leave)\b.*\b(?:else|rest|"
    r"as\s+(?:it\s+)?is|alone|"
    r"untouched|unchanged|uncommitted|unstaged|out\s+of)\b|(?:don'?t|do\s+not|never)\s+(?:touch|change|commit|delete|"
    r"remove|modify|edit|overwrite)\b)"
    r"|^i\s+(?:want|need|would\s+like|'d\s+like)\s+to\s+(?:double-check|check|make\s+sure|"
    r"review|verify|confirm|be\s+sure)\b"
    # "Keep his allergy note.", "Nothing else about her changes.", "TODO.md should stay out of
    # the commit.", "All other orders should stay."
    r"|^(?:please\s+)?keep\s+(?:both|his|her|their|its|the\s+other|all\s+the\s+other)\b"
    r"|^nothing\s+else\b|^[^?]{0,60}\b(?:should|must|can)\s+(?:stay|remain)\b[^?]*[.!]?$",
    re.IGNORECASE,
)


# A sentence that only asks for what the one before said: "Could you check for me?", "Can you
# do that, please?": nothing of its own to do.
_ASKS_AGAIN = re.compile(
    r"^(?:(?:could|can|would|will)\s+you\s+|please\s+)?(?:please\s+)?(?:check|do|handle|"
    r"look\s+into|find\s+out|see|help)(?:,?\s+(?:it|that|this|for\s+me|please|me|out))*\s*[.!?]?$",
    re.IGNORECASE,
)


def _shows_the_answer(sentence: str, question: str) -> bool:
    """Whether the sentence after a question says what of its answer to show, naming nothing
    else ("List the items and their amounts.")."""
    shows = _SHOWS_THEIR.match(sentence.strip()) is not None
    return shows and question.rstrip().endswith("?") and not _told_values(sentence)


_SHOWS_THEIR = re.compile(
    r"^(?:please\s+)?(?:list|show|give|include|tell)\b(?:\s+me)?\s+(?:[^?]{0,60}\b(?:their|its)\b"
    r"|the\s+\w+\s+and\s+(?:the|their|its)\s+\w+)[^?]*$",
    re.I,
)


def _only_states(sentence: str, pieces: list[str]) -> bool:
    """Whether the sentence states something and none of its pieces asks for anything ("Entry 3
    is spam, and it's skewing our ratings."; not "Before I call her, tell me the time.")."""
    asks = any(_VERB.match(p.strip()) or asks_to_change(p) for p in pieces)
    listed = _REQUESTS_LISTED.match(sentence) is not None
    return _told(sentence) and not _WISH.search(sentence) and not asks and not listed


# "Two things - the phone number on <url>, and the latest commit in <repo>.": requests listed.
_REQUESTS_LISTED = re.compile(
    r"^\W*(?:two|three|four|a\s+few|a\s+couple\s+of|some)\s+(?:things|questions|requests)\s*[-:–—]",
    re.IGNORECASE,
)


def _restates(sentence: str, request: str) -> bool:
    """Whether the sentence after a request only says again how to do it, each of its values
    one the request gives ("... that Carol reports to Alice? Please use 'reports to' as the
    relation.")."""
    values = _told_values(sentence)
    said = request.lower()
    return (
        _USE_AS.match(sentence.strip()) is not None
        and bool(values)
        and all(v.lower() in said for found in values.values() for v in found)
    )


# "Please use 'reports to' as the relation.": how to do what was asked.
_USE_AS = re.compile(r"^(?:please\s+)?use\s+[^?]+\s+as\s+(?:the|a|an|its)\s+[\w\s]+[.!]?$", re.I)


# A sentence that only tells why ("The Alpha deadline has moved again. Can you update
# alpha.txt?", "Our product names got more specific. In orders, ..."): no verb that asks, no
# question, no value of its own; the request after it is what to do.
_TELLS = re.compile(rf"^(?!\W*(?:{OPENERS})\b)[^?]{{3,120}}[.!;]$", re.IGNORECASE)


# "I mistyped one of my receipts. The groceries came to ...": what happened to the user, said
# first, is context for whatever sentence comes next.
_NARRATES = re.compile(r"^(?:i|we)\s+(?!(?:need|want|would|wonder|'d)\b)[a-z]+ed\b", re.I)


def _asks_of_the_time_told(sentence: str, after: str) -> bool:
    """ "A supplier in Nairobi suggested a call at 16:00 their time. What time would that be in
    Bogotá?": a question of the clock time the sentence before told."""
    told = "?" not in sentence and bool(clock_times(sentence))
    return told and after.rstrip().endswith("?") and _THAT_TIME.search(after) is not None


_THAT_TIME = re.compile(r"\bwhat\s+time\s+(?:is|would|will|does)\s+(?:that|it)\b", re.I)


def _context(sentence: str, after: str) -> bool:
    told = sentence.strip()
    # the next sentence opens with what to do
    asks = _VERB.match(after) is not None or _NARRATES.match(told) is not None
    return asks and bool(_TELLS.match(told)) and not _valued(told) and not asks_to_change(told)


# "I'm going to rewrite the README of /srv/repo. Please create a branch ...", "I want TODO.md
# in /srv/repo to be part of my next commit. Please stage ...": what the user means to do
# next, no request of its own (its places are the question's, carried where needed).
_INTENT = re.compile(
    r"^(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:going|about|planning|trying|hoping)\s+to\s+"
    r"(?!(?:ask|find\s+out|know|learn|see)\b)"
    r"|^(?:i|we)\s+(?:want|need|plan|intend)\s+(?:to\s+"
    r"(?!(?:ask|know|see|find|learn|check|understand|read|get)\b)\w|\S+(?:\s+\S+){0,6}?\s+to\s+be\b)",
    re.IGNORECASE,
)


def _intends(told: str, after: str) -> bool:
    """Whether `told` says what the user means to do in the one folder it names (what the
    request after it then acts in) and `after` asks for something; a sentence that names
    someone or something else is context the request may point at ("I need to send Carla
    Reyes a notice. Which email ... for her?")."""
    means = _INTENT.match(told.strip()) is not None and "?" not in told
    means = means and len(_folders_told(told)) == 1
    return means and (_VERB.match(after) is not None or after.rstrip().endswith("?"))


def _with_context(pieces: list[str]) -> list[str]:
    """Each stating sentence joined to the sentence after it; a sentence that goes on
    describing a change, or only a note in brackets, to the sentence before; one that only
    bounds the request before it left out."""
    joined: list[str] = []
    for piece in pieces:
        if joined and _intends(joined[-1], piece):
            joined[-1] = _in_the_folder(piece, joined[-1])  # what they mean, then ask for
            continue
        if joined and joined[-1].rstrip().endswith(";") and _told(joined[-1]) and _told(piece):
            joined[-1] = f"{joined[-1].rstrip()} {piece.strip()}"  # "... by mistake; the ..."
        elif joined and (_STATEMENT.match(joined[-1].strip()) or _context(joined[-1], piece)):
            # "I met Dave at a gig. Please add him ...": the one person the user met
            met = _MET.match(joined[-1].strip()) and asks_to_change(piece)
            said = _person_again(piece, joined[-1]) if met else piece
            joined[-1] = f"{joined[-1].rstrip().rstrip('.')}: {said.strip()}"
        elif joined and (_BOUNDS.match(piece.strip()) or _restates(piece, joined[-1])):
            continue  # its values ("leave app.py out of it") are none of the request's
        elif joined and _ASKS_AGAIN.match(piece.strip()):
            continue  # "... which files git isn't tracking yet. Could you check for me?"
        elif joined and _shows_the_answer(piece, joined[-1]):
            # "Which orders are between 20 and 50? List the items and their amounts."
            joined[-1] = f"{joined[-1].rstrip()} {piece.strip()}"
        elif joined and _TOO.search(piece.strip()) and not locators_in(piece):
            # "Which .csv files are in /srv? Look in subfolders too": how to do the same.
            joined[-1] = f"{joined[-1].rstrip().rstrip(';.?!')}; {piece.strip()}"
        elif joined and _GOES_ON.match(piece.strip()) and asks_to_change(joined[-1]):
            joined[-1] = f"{joined[-1].rstrip().rstrip(';.')}; {piece.strip()}"
        elif joined and _ITS_TEXT.match(piece.strip()) and asks_to_change(joined[-1]):
            # "Could you create a list at /f/s.txt? I need three lines in it: eggs, ..."
            joined[-1] = f"{joined[-1].rstrip().rstrip(';.?!')}; {piece.strip()}"
        elif joined and _asks_of_the_time_told(joined[-1], piece):
            joined[-1] = f"{joined[-1].rstrip().rstrip('.')}: {piece.strip()}"
        elif joined and re.fullmatch(r"\([^()]*\)[.!?]?", piece.strip()):
            # "How much do the orders add up to? (orders.amount)"
            joined[-1] = f"{joined[-1].rstrip()} {piece.strip()}"
        else:
            joined.append(piece)
    return joined


# "Carol works at Initech now, add that to the graph": a fact, then a request for what to do
# with it (cues.states_first), is one request. A fact names no request first, or says what is.
_IS = re.compile(
    r"(?<!\bthat)(?<!\bwhich)(?<!\bwho)\s(?:is|are|was|were|got|has)(?:n['’]t)?\s", re.I
)  # "Feedback entry number 3 isn't a real review" states one too


def _states(piece: str) -> bool:
    opens = re.match(rf"\s*(?:{OPENERS})\b", piece, re.IGNORECASE)
    return "?" not in piece and (not opens or _IS.search(piece) is not None)


_LOOKS_IN = re.compile(
    r"\b(?:check|look\s+(?:in|at|into|through)|search|go\s+through|consult)\s+"
    r"(?:(?:in|through)\s+)?(?:(?:my|your|the|our)\s+[\w-]+(?:\s+graph)?|[~/]\S*)"
    # "search /srv, including the subfolders, and tell me which csv files are in there"
    r"(?:,?\s+(?:including|incl\.?|with)\s+(?:all\s+)?(?:the\s+|its\s+)?sub-?\w+)?\s*$",
    re.IGNORECASE,
)


# "... and was saved as", "... and is based in": a verb that goes on the statement before, not
# a question ("and is it raining?" asks one: its subject comes after the verb).
_GOES_ON_AUX = re.compile(
    r"(?:was|were|is|are|has|have|had)\s+(?!(?:it|he|she|they|there|the|a|an|this|that|my|your|"
    r"our|their|its|you|we|i)\b)(?:been\s+)?\w+(?:ed|en)\b"
    # "... and can't remember what they were"
    r"|(?:can'?t|cannot|couldn'?t)\s+(?:remember|recall|find|see|tell|figure)\b",
    re.IGNORECASE,
)


# "..., and if so who?", "..., and in what way?": more of the same question. "which company
# and which project is she connected to": two things asked of one predicate.
_GOES_ON_ASKING = re.compile(r"(?:if\s+so\b|(?:in\s+what\s+way|how|why|since\s+when)\W*$)", re.I)
_WH_ONLY = re.compile(r"(?:^|[,:]\s*)(?:which|what)\s+[a-z]+$", re.IGNORECASE)
_WH_FIRST = re.compile(r"(?:which|what)\s+[a-z]+\s", re.IGNORECASE)


def _pieces(sentence: str) -> list[str]:
    """The sentence cut at its clause breaks, except a ", and" that ends a list of short items."""
    pieces, start, verb = [], 0, ""
    quotes = quoted_in(sentence)
    for match in _CLAUSE_BREAK.finditer(sentence):
        before, after = sentence[start : match.start()], sentence[match.end() :]
        if any(q.start <= match.start() < q.end for q in quotes):
            continue  # "translate 'Hello, how are you?' to Spanish": a text is one value
        if match.group("list") and _ends_list(before, after):
            continue
        if _GOES_ON_ASKING.match(after) or (_WH_ONLY.search(before) and _WH_FIRST.match(after)):
            continue  # "is there a .org customer, and if so who?": one question
        if _SHARED_OBJECT.search(before) and _asks(sentence):
            continue  # "where may I read and write files?": two verbs of one question
        if _LOOKS_IN.search(before):
            continue  # "check your memory and tell me about Falcon": where to look, then what
        if _GOES_ON_AUX.match(after) and not match.group("list"):
            continue  # "a form came in and was saved as /a/f.txt": one statement
        told = states_first(f"{before}, {after}") or (_gives(before) and _bare_change(after))
        if match.group().strip() == "," and told and _states(before) and not asks_to_change(before):
            continue  # "Carol works at Initech now, add that": not "new branch X, check it out"
        pieces.append(_opened_with(verb, sentence[start : match.start()]))
        verb = _verb_carried(pieces[-1], match.group(), sentence[match.end() :])
        start = match.end()
    return [*pieces, _opened_with(verb, sentence[start:])]


# "delete her orders and then her entry in users", "... + her user row": a thing alone after
# "then" or a plus is done what the request before it does.
_THING_ALONE = re.compile(rf"^(?:{_OWNING})\s+(?!.*\b(?:is|are|was|were|has|have)\b)[^?]+$", re.I)
_DONE_TO = re.compile(rf"\b(?P<verb>(?:{OPENERS}))\s+(?:{_OWNING}|all|every)\b", re.I)


def _opened_with(verb: str, piece: str) -> str:
    return verb + re.sub(r"^\s*then\s+", "", piece) if verb else piece


def _verb_carried(before: str, cut: str, after: str) -> str:
    """The verb the piece after the cut is to open with, "" if it has one of its own."""
    after = re.split(r"[.?!;:](?:\s|$)", after)[0].strip()
    cut, after = cut + after[:5], re.sub(r"^then\s+", "", after)  # "and then her entry"
    if not re.search(r"\bthen\b|\+", cut) or not _THING_ALONE.match(after):
        return ""
    no_verbs = _ASKING | {"please", "also", "then"}
    verbs = [m["verb"] for m in _DONE_TO.finditer(before) if m["verb"].lower() not in no_verbs]
    return f"{verbs[-1]} " if verbs else ""


# "git status for /srv/repo and the contents of /srv/a.txt", "the sum of 7 and 8 and the time
# in Dubai": a second request that shares the first one's verb, each with a value of its own.
_AND_THE = re.compile(
    r"\s+and\s+(?=(?:the|my)\s+(?:[\w-]+\s+){0,3}?(?:in|of|for|at|from|on)\s)", re.IGNORECASE
)
_VERB = re.compile(rf"^\s*(?:please\s+)?((?:{OPENERS})\b(?:\s+me)?)\s", re.IGNORECASE)
# The words a question opens with: no request's verb.
_ASKING = {"what", "whats", "what's", "how", "who", "whom", "whose", "when", "where", "which"}
_ASKING |= {"why", "is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "may"}
_ASKING |= {"will", "would"}
_TABLE = re.compile(r"\b[\w-]+\s+table\b", re.IGNORECASE)


def _shared_verb(piece: str) -> list[str]:
    """The piece as its requests: one, or two that share the verb of the first."""
    for match in _AND_THE.finditer(piece):
        before, after = piece[: match.start()], piece[match.end() :]
        verb = _VERB.match(before)
        # "list the tables in the database and the files in /srv": a request that says where
        bids = verb is not None and not _asks(verb[1])
        where = bids and re.search(r"\b(?:in|of|for|at|from|on)\s+\S", before) is not None
        if (where or _valued(before)) and (locators_in(after) or named_places(after)):
            return [before, f"{verb[1]} {after}" if verb else after]
    return [piece]


# The file or page a copy or a written answer goes to: the last "to" or "into" before a place.
# (", as a patch file, /f/units.patch": the file named after its kind)
_GOES_TO = (
    r",?\s+(?:in|into|to|as)\s+(?P<where>(?:(?:a|the)\s+(?:new\s+)?(?:\w+\s+)?file,?\s+)?"
    r"\S*[/.]\S*?)\W*$"
)
# "copy what notes.txt says into todo.md", "copy the error entry from a.log into errors.txt".
_COPY = re.compile(rf"^(?:please\s+)?copy\s+(?P<what>.+){_GOES_TO}", re.IGNORECASE)
# "write down what memory knows about Falcon in falcon.txt", "save the commit messages of /r to
# log.txt": what a tool tells, then the file it goes to.
_RELAY = re.compile(
    r"^(?:please\s+)?(?:write(?:\s+down)?|save|store|dump)\s+"
    rf"(?P<what>(?:what|which|who)\b.+|the\s+.+?\s+(?:of|from|in)\s+.+){_GOES_TO}",
    re.IGNORECASE,
)


# "emails of users in Lyon -> /srv/lyon.txt, one per line": what, then the file it goes to.
# ("... → dump to /f/carol.txt": the verb of a file written)
_ARROW = re.compile(
    rf"^(?P<what>.+?)\s*{ARROW}\s*(?:(?:dump|export|write|save|put|copy)\s+(?:it\s+)?(?:to|into|in)\s+)?"
    r"(?P<where>\S*[/.]\S*?)(?P<rest>,.*)?$",
    re.I,
)
# "bob chen's email from the db -> add to Bob in memory": what is read, then what to do with it.
_ARROW_THEN = re.compile(
    rf"^(?P<what>(?:[^:]|(?<=\d):(?=\d))+?)\s*{ARROW}\s*(?P<verb>(?:{OPENERS})\b)\s*"
    r"(?P<rest>.*)$",
    re.I,
)
# "db → list its tables": where the request acts, no request of its own
_STORE_ONLY = re.compile(r"(?:db|database|memory|graph|knowledge\s+graph|repo|repository)", re.I)
# A file alone, perhaps "only", and the verbs that act on files as they are (git's, a move).
_FILE_ALONE = re.compile(r"(?P<file>[\w./~-]+\.\w{1,5})(?:\s+(?:only|alone|on\s+its\s+own))?")
_ON_FILES = re.compile(r"commit|stage|unstage|restore", re.I)
# What a verb goes on with when the file is its object: where, or how ("in /r, msg '...'"); not
# an object of its own ("report.md → remove the typo on line 3" reads the file).
_NO_OBJECT = re.compile(r"\s*(?:$|,|(?:in|on|to|into|with|msg|message|as)\b)", re.I)
# "gift list -> /a/gifts.txt: scarf, book": what is written given after the file.
_ARROW_GIVEN = re.compile(
    rf"^(?P<what>[^:]+?)\s*{ARROW}\s*(?P<where>\S*[/.]\S*?):\s+(?P<text>\S.*)$"
)


# "add the person in /a/form.txt to the users table": what the file says goes in as a row.
_ROW_IN = re.compile(
    r"^(?P<verb>(?:please\s+)?(?:add|insert|put)\s+(?:the|that)\s+[a-z]+)\s+(?:in|from)\s+"
    r"(?P<file>\S+\.\w+)\s+(?P<rest>(?:to|into)\s+(?:the\s+)?\w+\s+table\b.*)$",
    re.IGNORECASE,
)


# "/a/notes.txt += 'water the plants'": a line added at the end, as a programmer writes it.
_APPENDED = re.compile(
    # "a.txt += milk", "a.txt: add a line → milk"
    rf"^(?P<file>\S+)\s*(?:\+=|:\s*(?:add|append)\s+(?:a\s+|one\s+|new\s+)*(?:line|item)\s*(?:{ARROW}|:))"
    r"\s*(?:(?:a\s+|new\s+)*(?:row|line)\s+)?"
    r"(?P<text>(?P<quoted>(?P<q>['\"“]).+(?P=q)|[\"“][^”]+”)|[^'\"“\s][^'\"“]*?)\W*$",
    re.IGNORECASE,
)


# "duplicate a.csv to b.csv", "could you make a backup copy of /a/b.csv called c.csv?": a copy
# of a file; one named without a folder goes in the folder of the file copied.
_DUPLICATE = re.compile(
    r"^(?:[^,?]*\b(?:you|please)\s+)?(?:(?:make|create)\s+(?:a\s+)?(?:backup\s+)?copy\s+of|"
    r"duplicate|back\s+up)\s+(?P<what>\S+)\s+(?:to|into|as|called|named)\s+(?P<where>\S+?)"
    r"(?:\s+in\s+the\s+same\s+(?:folder|directory))?\W*$",
    re.IGNORECASE,
)


def _copied(piece: str) -> list[str]:
    """A copy as the reading and the writing it is: "read the error entry from a.log", "save it
    to errors.txt"; so is a request to write what a tool tells ("what memory knows about
    Falcon", "save it to falcon.txt"), unless it gives the text ("write the text Hello from
    Paris to b.txt"). The text written is then what was read, never made up."""
    text = _PURPOSE.sub("", piece.strip())  # ", so that I can send it to a colleague"
    if (appended := _APPENDED.match(text)) and locators_in(appended["file"]):
        line, file = appended["text"], appended["file"]
        if appended["quoted"]:
            return [f"add {line} as a new line at the end of {file}"]
        return [f"append the line {line} at the end of {file}"]
    row = _ROW_IN.match(text)
    if row and locators_in(row["file"]):
        return [f"read {row['file']}", f"{row['verb']} {row['rest']}"]
    then = _ARROW_THEN.match(text)
    on_file = _ON_FILES.fullmatch(then["verb"]) and _NO_OBJECT.match(then["rest"]) if then else None
    if then and _FILE_ALONE.fullmatch(then["what"]) and on_file:
        # "TODO.md only → commit in /r, msg '...'": what the request acts on, not a reading
        return [f"{then['verb']} {then['what']} {then['rest']}".strip()]
    if then and _IS.search(then["what"]) and refers_back(then["rest"]):
        # "feedback row id 3 is spam → delete it": a fact, then what to do with it
        return [f"{then['what']}, {then['verb']} {then['rest']}".strip()]
    if then and _STORE_ONLY.fullmatch(then["what"].strip()):
        return [
            f"in the {then['what'].strip()}, {then['verb']} {then['rest']}".strip()
        ]  # "db → ..."
    if then and not asks_to_change(then["what"]):
        it = " it " if re.match(r"(?:to|into|in|on)\b", then["rest"]) else " "
        return [then["what"], f"{then['verb']}{it}{then['rest']}".strip()]
    written = _ARROW_GIVEN.match(text)
    if written and _place(written["where"]) and not asks_to_change(written["what"]):
        return [f"write to {written['where']}: {written['text']}"]
    arrow = _ARROW.match(text)
    if arrow and _place(arrow["where"]) and not asks_to_change(arrow["what"]):
        return [arrow["what"], f"save it to {arrow['where']}{arrow['rest'] or ''}"]
    match = _COPY.match(text)
    if match and locators_in(match["what"]) and locators_in(match["where"]):
        return [f"read {match['what']}", f"save it to {match['where']}"]
    match = _DUPLICATE.match(text)
    if match and locators_in(match["what"]):
        folder, where = match["what"].rpartition("/")[0], match["where"]
        where = where if "/" in where or not folder else f"{folder}/{where}"
        if locators_in(where):
            return [f"read {match['what']}", f"save it to {where}"]
    match = _RELAY.match(text)
    given = quoted_in(text) or said_in(text)
    if match and locators_in(match["where"]) and not given:
        return [match["what"], f"save it to {match['where']}"]
    return _kept_from(piece)


def _place(text: str) -> bool:
    """Whether the text is a file or a page something may be saved to: "dmitri volkov's email →
    dmitri.volkov@example.net" gives the address the email becomes, no place."""
    return any(x.kind in ("path", "url") for x in locators_in(text))


# "add Dmitri Volkov to memory as a person, with his email from the users table", "save Rosa's
# Bakery in memory, together with the phone number from <url>": a change that keeps facts read
# from a file, a page or a table.
_KEPT_FROM = re.compile(
    r"^(?P<change>.+?),?\s+(?:together\s+)?with\s+(?P<what>[\w +'’-]+?)\s+(?:from|in|on)\s+"
    r"(?P<source>the\s+\w+\s+table|\S+)\W*$",
    re.IGNORECASE,
)
_OWNED = re.compile(r"\b(?:his|her|its|their)\b", re.IGNORECASE)
_FULL_NAME = re.compile(r"\b[A-Z][a-z]+(?:['’]s)?(?:\s+[A-Z][a-z]+)+\b")


def _kept_from(piece: str) -> list[str]:
    """Such a change as the reading of the file or page, or of those facts of the thing it
    names ("get Dmitri Volkov's email from the users table"), then the change that keeps them."""
    match = _KEPT_FROM.match(piece.strip())
    source = match["source"] if match else ""
    if not match or not (locators_in(source) or _TABLE.search(source)):
        return [piece]
    if not asks_to_change(match["change"]) or not facts_named(match["what"]):
        return [piece]
    name = _FULL_NAME.search(match["change"])
    what = _OWNED.sub(f"{name.group()}'s", match["what"], count=1) if name else match["what"]
    read = f"read {source}" if locators_in(source) else f"get {what} from {source}"
    return [read, f"{match['change']} with {match['what']}"]


# "new folder /srv/inv with a README.txt in it: 'Scanned'": the folder, then the file in it.
_WITH_A_FILE = re.compile(
    r"^(?P<made>.*\bfolder\s+\S+?),?\s+(?:with|\+|and)(?:\s*,?\s*(?P<first>in|inside)\s+it\s*,)?\s+"
    r"(?P<file>(?:(?:a|an)\s+)?(?:file\s+)?[\w.-]+\.\w+)"
    r"(?:\s+(?P<then>in|inside)\s+it\b)?(?P<rest>.*)$",
    re.IGNORECASE,
)


def _made_with(piece: str) -> list[str]:
    """A new folder made with a file in it as the two changes it is ("new folder /a/x with a
    README.txt in it", "create a folder /a/x and, inside it, a file b.txt ...")."""
    match = _WITH_A_FILE.match(piece.strip())
    if not match or not (match["first"] or match["then"]) or not asks_to_change(piece):
        return [piece]  # "a folder /a/x and a.txt" puts nothing in it
    return [match["made"], f"create {match['file']} in it{match['rest']}"]


def _bare_change(text: str) -> bool:
    """A change that gives no value of its own ("Bob Chen moved to Vancouver, update the users
    table"): the fact before it says what to change."""
    return asks_to_change(text) and not _gives(text)


def _gives(text: str) -> bool:
    """The text gives a value: a path or URL, a number, a quote or a name."""
    return bool(locators_in(text) or numbers(text) or re.search(r"[\"“'‘]|\s[A-Z]", text))


def _valued(text: str) -> bool:
    return bool(locators_in(text) or named_places(text) or numbers(text) or _TABLE.search(text))


def _asks(text: str) -> bool:
    words = re.findall(r"[\w'’]+", text.lower())
    return bool(words) and words[0] in _ASKING


_SHARED_OBJECT = re.compile(rf"\b(?:{OPENERS})$", re.IGNORECASE)


_ITEM = re.compile(r"(?:a|an|the|one|some|its|their|his|her)\s[^?]*$", re.I)  # no "Tom knows Lena"


def _ends_list(before: str, after: str) -> bool:
    """ ", and" between a list's short items ("name, weight, and size"), or before the short
    last item that ends a list ("an integer id as the primary key, a name that can't be null,
    and a country column."), not before a request."""
    items = blank_quoted(before).rsplit(", ", 1)  # "with the note 'QA, joined in May'"
    opens_request = re.match(rf"(?:{OPENERS})\b|record\s+(?:it|that|this)\b", after, re.I)
    short_item = len(items[-1].split()) <= LIST_ITEM_WORDS
    ends = _ITEM.match(after) is not None and len(after.rstrip(".!").split()) <= LIST_ITEM_WORDS
    return len(items) == 2 and (short_item or ends) and not opens_request


def _carry_places(clauses: list[str], place: str | None) -> list[str]:
    """Replace a back-pointing "there" with the latest place named before it (in an earlier
    clause, or `place` from earlier in the conversation)."""
    carried = []
    for clause in clauses:
        if there := _THERE.search(clause):
            # A place the clause names before its "there" is the nearest one.
            before = _places(clause[: there.start()])
            nearest = before[-1] if before else place
            if nearest:
                clause = f"{clause[: there.start()]}in {nearest}{clause[there.end() :]}"
        if named := _places(clause):
            place = named[-1]
        carried.append(clause)
    return carried


def _places(text: str) -> list[str]:
    """The places "there" can point at: "for" names a purpose or a person as often as a place."""
    return [p.name for p in named_places(text) if p.preposition != "for"]


# "in it" pointing back at a folder the clause before names: "make a drafts folder in /srv and
# put a file intro.md in it" puts it in /srv/drafts.
_IN_IT = re.compile(r"\b(in|into|inside)\s+(?:it|there)\b", re.IGNORECASE)


def _carry_folders(clauses: list[str]) -> list[str]:
    """ "in it" after a folder is in that folder; after a change that names a file ("create
    a.txt and write hello into it") it is that file, and the two are one request."""
    carried: list[str] = []
    for clause in clauses:
        it = _IN_IT.search(clause)
        folders = _folders(carried[-1]) if it and carried else []
        if it and folders:
            clause = f"{clause[: it.start()]}{it[1]} {folders[-1]}{clause[it.end() :]}"
        elif it and carried and _changes_a_file(carried[-1]) and asks_to_change(clause):
            carried[-1] = f"{carried[-1]} and {clause}"
            continue
        carried.append(clause)
    return carried


# What a change names ("a branch docs-fix", "a table called suppliers", "add Project Osprey"),
# which a later change may point back at ("... and switch to it", "then check out docs-fix",
# "and record that Carol leads it").
_NAMED = re.compile(
    r"\b(?P<noun>branch|tag)\s+(?:called\s+|named\s+|(?:off\s+)?as\s+)?"
    r"(?P<name>[\w.-]*[-_/.\d][\w./-]*\w)"
    r"|\b(?:called|named)\s+(?P<called>[\w.-]+\w)"
    r"|\b(?i:add|create)\s+(?P<added>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)(?![\w.'’/-])"
)


def _carry_names(clauses: list[str]) -> list[str]:
    """ "Create a branch docs-fix and switch to it": the second change switches to the branch
    docs-fix."""
    carried: list[str] = []
    for clause in clauses:
        named = _NAMED.search(carried[-1]) if carried and asks_to_change(carried[-1]) else None
        if named and asks_to_change(clause):
            clause = _name_again(clause, named)
        carried.append(clause)
    return carried


# A name the clause says (capitalised, not a request's opening word), outside quotes.
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_OPENING = set(OPENERS.split("|")) | {"i", "i'm", "the", "a", "an", "my", "our", "in"}


def _carry_target(clauses: list[str]) -> list[str]:
    """ "Bob: remove 'likes tea', add 'likes coffee'": a change that gives only a text, after
    a change that names one thing, adds it to that thing ("add 'likes coffee' to Bob"), not
    to whatever else may keep a text."""
    carried: list[str] = []
    for clause in clauses:
        before = carried[-1] if carried else ""
        quotes = quoted_in(clause)
        # "Bob: remove 'likes tea'": what it is about, then the change
        changes = asks_to_change(re.sub(r"^[^:]{1,40}:\s*", "", before))
        things = _things(before) if changes else set()
        bare = not (_things(clause) or locators_in(clause) or _TABLE.search(clause))
        # "stage app.py and commit it with the message 'x'": a message is passed on, not added
        passed = bool(quotes) and _PASSED_ON.search(clause[: quotes[0].start]) is not None
        if len(quotes) == 1 and len(things) == 1 and bare and not passed and asks_to_change(clause):
            end = quotes[0].end + 1  # after the closing quote
            clause = f"{clause[:end]} to {next(iter(things))}{clause[end:]}"
        carried.append(clause)
    return carried


_PASSED_ON = re.compile(r"\b(?:message|msg|subject|title)\s*:?\s*[\"'“‘]?$", re.IGNORECASE)


def _things(text: str) -> set[str]:
    """The names and files the text says outside its quotes."""
    bare = text
    for quote in quoted_in(text):
        bare = bare[: quote.start] + " " * (quote.end - quote.start) + bare[quote.end :]
    said = (re.sub(r"['’]s$", "", m[0]) for m in _CAPITALISED.finditer(bare))  # "Alice's"
    names = {name for name in said if name.lower() not in _OPENING}
    return names | {x.value for x in locators_in(bare)}


# A person's full name ("Bob Chen"), and the words a later change points back at one with.
_PERSON = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b")
# Capitalised words that open a sentence, not a name: "The Alpha deadline".
_NOT_NAMED = re.compile(r"(?:The|A|An|My|Our|Your|This|That|These|Those|Good|Quick)\s", re.I)
# A sentence that opens with one name, its subject: "Alice has ...", "Carol's new job ...".
_ONE_NAME_FIRST = re.compile(r"(?-i:([A-Z][a-z]+))(?:['’]s)?\s+(?-i:[a-z]+)\b")
_OPENING_WORDS = {"The", "A", "An", "My", "Our", "Your", "This", "That", "These", "Those", "It"}
_OPENING_WORDS |= {"I", "We", "They", "He", "She", "There", "Good", "Quick", "Please", "Just"}
# "I met Dave at a gig", "we hired Ana last week": the one person the user tells of meeting.
_MET = re.compile(
    r"(?:i|we)\s+(?:just\s+|finally\s+)?(?:met|hired|called|visited|saw|ran\s+into)\s+"
    r"(?-i:(?P<name>[A-Z][a-z]+)\b(?!\s+[A-Z]))",
    re.I,
)
_PRONOUN = re.compile(r"\b(?:(?P<own>his|her)|he|she|him)\b", re.IGNORECASE)
# What follows "her" when she is the object, not the owner: "save her in memory", "add her".
_OBJECT_AFTER = re.compile(
    r"\s*(?:$|[,.;:!?]|(?:in|into|to|on|at|as|with|from|for|and|or|a|an|the|up|out|now|too)\b)",
    re.IGNORECASE,
)


def _carry_told(clauses: list[str]) -> list[str]:
    """ "Just got an email from Bob Chen saying he has relocated. Could you change his city in
    the users table to Vancouver?": the change is of Bob Chen's city, the one person the
    clause before names. "I'm happy with app.py. Could you stage it in /srv/repo?" stages
    app.py, the one file a stating sentence names; "I made some edits in /srv/repo. Show me
    what I haven't staged" shows them in /srv/repo, the one folder it names. A request naming
    someone (or a file, a folder) itself, or after two, keeps its words. A stating sentence
    before a request is no request of its own: left out when the request gives a value of
    every kind it gives ("We're inviting the users in Lyon. Could you get the emails of the
    users in Lyon?", "I'm about to write a report. Could you ..."), else part of a change or a
    question ("Emma Schultz moved to Hamburg. Update her city in users.") and a step of its own
    before any other request ("The id of Kyle is kyle1. Retrieve whom she follows."); part of
    the request too when it keeps what the sentence says ("Carol works at Initech now. Add that
    to the graph."). A wish is a request of its own ("I need the weather in Paris."). A stating
    sentence that ends the question, after a request that gives its values, only tells more."""
    carried: list[str] = []
    for clause in clauses:
        before = carried[-1] if carried else ""
        said = _person_again(clause, before) if asks_to_change(clause) else clause
        # After a request, "it" is what the request gives ("read a.txt and save it to b.txt").
        if not (_told(before) and _asking(clause)):  # no stating sentence, then a request
            carried.append(said)
            continue
        said = _told_place(said, before)
        lacks = _lacks(said, before)
        asked = asks_to_change(clause) or clause.rstrip().endswith("?")
        if _WISH.search(before) and _asks_again(clause, before):
            carried[-1] = said  # the wish said why: "... whether we know anyone in Phoenix."
        elif _WISH.search(before):  # "I need the weather in Paris." asks for it
            carried.append(said)
        elif _KEEPS_IT.search(clause) or (lacks and (asked or _THEIR.search(clause))):
            carried[-1] = _with_fact(before, clause)
        elif lacks:  # "The id of Kyle is kyle1. Retrieve whom she follows": a step each
            carried.append(said)
        else:
            carried[-1] = said
    last = carried[-2:]
    ends = len(last) == 2 and _told(last[1]) and not _asking(last[1])
    if ends and _asking(last[0]) and not _gives_anything(last[1]):
        carried.pop()  # "... a folder /a/receipts? The receipts folder doesn't exist yet."
    return carried


def _gives_anything(told: str) -> bool:
    """Whether a stating sentence gives a value, a digit or a time ("I'm flying there
    tomorrow")."""
    given = any(_told_values(told).values()) or re.search(r"\d", told) is not None
    return given or _WHEN.search(told) is not None


_WHEN = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|week|weekend|month|year|morning|evening|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.I,
)


def _asks_again(request: str, wish: str) -> bool:
    """Whether the request gives every value the wish before it gives ("... want to see whether
    we know anyone in Phoenix. Please search the graph for 'Phoenix'"): the wish was why."""
    wished = {v.lower() for found in _told_values(wish).values() for v in found}
    given = {v.lower() for found in _told_values(request).values() for v in found}
    return bool(wished) and wished <= given


def _with_fact(told: str, clause: str) -> str:
    """The request with the fact told before it, as one asks it: "Emma Schultz moved to
    Hamburg, update her city ...", "Emma moved: could you update her city ..."."""
    fact = told.rstrip(" .!")
    if re.match(r"(?:please\s+)?(?:could|can|would|will)\s+you\b", clause, re.IGNORECASE):
        return f"{fact}: {clause}"
    return f"{fact}, {clause[:1].lower()}{clause[1:]}"


# "... our customers in Lyon. Please look up their email addresses": they are those told of.
_THEIR = re.compile(r"\btheir\b", re.IGNORECASE)
# A request that keeps what the sentence before it says: "Add that to the graph", "note it".
_KEEPS_IT = re.compile(
    r"\b(?:add|save|store|note|remember|record|put|write|keep|log|jot|enter)\s+(?:that|this)\b"
    r"(?!\s+(?:file|folder|table|row|line|branch|commit|entity|one)\b)"
    # "A customer is asking about order 6. Could you look it up?": the thing told of
    r"|\blook\s+(?:it|that)\s+up\b",
    re.IGNORECASE,
)
# "I need the weather in Paris.": a request said as a wish ("I don't want to wake him" is none).
# How a thing should be is no wish for a request ("I'd like it to sit next to alpha.txt").
_WISH = re.compile(
    r"(?<!n't\s)(?<!n’t\s)(?<!not\s)\b(?:need|want|would\s+like|'d\s+like|wonder)\b"
    r"(?!\s+(?:it|them|this|that|him|her)\s+to\b)"
    # "want to catch my cousin at 6 pm" says what the user will do, it asks for nothing
    r"(?!\s+to\s+(?!(?:know|see|get|have|find|learn|hear|check|read|ask)\b))",
    re.IGNORECASE,
)


# A sentence that opens with who or what it is about ("I made ...", "The units change ...",
# "Carla Reyes wrote ...", "Bob told me ..."), after a leading "Good news," if any; an
# imperative opens with its verb ("Plan a route ...").
_SUBJECT_FIRST = re.compile(
    r"^(?:[^,:]{0,30}[,:]\s*)?(?:(?:i|i'm|i've|i'd|we|we're|we've|it|it's|he|she|they|they're|my|"
    r"our|the|a|an|this|that|these|those|there|someone|everyone|nobody)\b"
    r"|(?-i:[A-Z][\w']*(?:\s+[A-Z][\w']*)*)\s+(?:is|was|are|were|has|had|\w+ed|told|wrote|sent|got|"
    r"said|left|gave|came|went|made|took|sold|bought|(?-i:[a-z]+[^s\W]s))\b"
    r"|(?-i:[A-Z][\w']*\s+[A-Z][\w']*)\s+(?-i:[a-z]+)\b"  # "Alice Martin rang ..."
    # "Feedback entry 3 is", "... isn't"
    r"|(?-i:[A-Z][a-z]+)(?:\s+[\w']+){0,3}\s+(?:is|are|was|were)(?:n['’]t)?\s)",
    re.IGNORECASE,
)


def _told(sentence: str) -> bool:
    """Whether the sentence states something and opens with no request."""
    text = sentence.rstrip()
    return (
        text.endswith((".", "!", ";"))  # "The order was entered by mistake; ..."
        and _states(text)
        and _SUBJECT_FIRST.match(text) is not None
        # "order 8 should now show 59.90 instead of 64.50." tells what to change: it opens
        # with no request
        and not (_VERB.match(text) or asks_to_change(text, by_verb=True))
    )


def _asking(clause: str) -> bool:
    """Whether the clause asks: for a change, a question, or a request by its verb, also after
    a leading phrase ("Before I start, could you tell me ...")."""
    opened = re.sub(r"^[^,]{0,40},\s*", "", clause)
    asked = clause.rstrip().endswith("?") or asks_to_change(clause)
    return asked or bool(_VERB.match(clause) or _VERB.match(opened))


def _told_values(text: str) -> dict[str, set[str]]:
    """The values a text gives, by kind: paths, URLs, e-mail addresses, places, people,
    numbers, quotes and tables."""
    kinds: dict[str, set[str]] = {}
    for locator in locators_in(text):
        kinds.setdefault(locator.kind, set()).add(locator.value)
    # "addressed to AI assistants": an acronym before a noun is no place told
    places = {p.name for p in named_places(text) if not re.fullmatch(r"[A-Z]{2,3}", p.name)}
    kinds["place"] = places | set(_BECOMES.findall(text))
    kinds["person"] = {p for p in _PERSON.findall(text) if not _NOT_NAMED.match(p)}
    kinds["number"] = {text[n.start : n.end] for n in numbers(text)}
    kinds["quote"] = {q.value for q in quoted_in(text)}
    kinds["table"] = set(_TABLE.findall(text))
    return {kind: found for kind, found in kinds.items() if found}


# A name a thing is said to become: "so her city is Seville", "set it to Oslo".
_BECOMES = re.compile(r"\b(?:is|be|becomes|to|=)\s+((?-i:[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*))")


def _lacks(request: str, told: str) -> bool:
    """Whether the told sentence gives a value of a kind the request gives none of."""
    given = _told_values(request)
    return any(kind not in given for kind in _told_values(told))


def _person_again(clause: str, before: str) -> str:
    """The clause with its "his" (or "he", "her", ...) as the one person `before` names, every
    time it says it ("update her record so her city is Seville")."""
    people = {p for p in _PERSON.findall(before) if not _NOT_NAMED.match(p)}
    if not people and (subject := _ONE_NAME_FIRST.match(before.strip())):
        people = {subject[1]} - _OPENING_WORDS  # "Alice has swapped hiking for climbing."
    if not people and (met := _MET.match(before.strip())):
        people = {met["name"]}  # "I met Dave at a gig last night."
    pointing = list(_PRONOUN.finditer(clause))
    female = {m[0].lower() in ("she", "her") for m in pointing}
    if len(people) != 1 or len(female) != 1 or _PERSON.search(clause[1:]):
        return clause
    name = next(iter(people))
    for said in reversed(pointing):
        own = said["own"] and not _OBJECT_AFTER.match(clause[said.end() :])
        named = name + ("'s" if own else "")
        clause = f"{clause[: said.start()]}{named}{clause[said.end() :]}"
    return clause


def _told_place(clause: str, told: str) -> str:
    """The clause with its one "it" as the one file `told` names, its "that table" as the one
    table `told` names ("... against the feedback table. What columns does that table have?"),
    and in the one folder it names when the clause names none."""
    files, it = _files(told), list(_IT.finditer(clause))
    if len(files) == 1 == len(it) and not _files(clause):
        clause = f"{clause[: it[0].start()]}{next(iter(files))}{clause[it[0].end() :]}"
    if (that := _THAT_THING.search(clause)) is not None:
        noun = that["noun"].lower()
        named = {m[1] for m in re.finditer(rf"\bthe\s+([\w.-]+)\s+{noun}\b", told, re.I)}
        if len(named) == 1:
            clause = f"{clause[: that.start()]}the {named.pop()} {noun}{clause[that.end() :]}"
    return _in_the_folder(clause, told)


# "that table", "this branch": a thing the sentence before named
_THAT_THING = re.compile(
    r"\b(?:that|this|the\s+same)\s+(?P<noun>table|file|folder|branch|repo|repository|page)\b",
    re.IGNORECASE,
)


# "it", but not the one of "what time is it?"
_IT = re.compile(r"(?<!\btime is )(?<!\bday is )(?<!\bdate is )\bit\b", re.IGNORECASE)


def _in_the_folder(clause: str, told: str) -> str:
    """The clause in the one folder `told` names, when the clause names none."""
    folders = _folders_told(told)
    placed = any(x.kind == "path" and x.value[:1] in "/~" for x in locators_in(clause))
    if len(folders) == 1 and not placed:
        clause = f"in {next(iter(folders))}, {clause}"
    return clause


def _folders_told(told: str) -> set[str]:
    """The paths a stating sentence names that are no files."""
    return {x.value for x in locators_in(told) if x.kind == "path"} - _files(told)


def _files(text: str) -> set[str]:
    """The files the text names: paths whose name ends with an extension."""
    return {x.value for x in locators_in(text) if re.search(r"[^/]\.\w{1,5}$", x.value)}


def _name_again(clause: str, named: re.Match[str]) -> str:
    """The clause with its one "it", or the name said without its kind, as what `named` names."""
    name, noun = named["name"] or named["called"] or named["added"], named["noun"]
    bare = rf"|(?<!{noun} ){re.escape(name)}\b" if noun else ""
    found = list(re.finditer(rf"(?<!\bin )(?<!\binto )\bit\b{bare}", clause, re.IGNORECASE))
    if len(found) != 1:
        return clause
    said = f"{noun} {name}" if noun else name
    return f"{clause[: found[0].start()]}{said}{clause[found[0].end() :]}"


def _changes_a_file(clause: str) -> bool:
    paths = [x for x in locators_in(clause) if x.kind == "path"]
    return asks_to_change(clause) and any("." in x.value.rsplit("/", 1)[-1] for x in paths)


def _folders(text: str) -> list[str]:
    """The folders the text names, a folder named in another as its path there."""
    paths = [x for x in locators_in(text) if x.kind == "path"]
    return [
        x.joined
        for x in paths
        if "." not in x.value.rsplit("/", 1)[-1] and not any(y.folder == x.value for y in paths)
    ]
