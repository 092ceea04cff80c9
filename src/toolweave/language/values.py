"""The values a piece of text gives: numbers, percentages, quoted strings, dates, clock times,
time zones, places, unit conversions and arithmetic expressions.

`read_values` finds them all once, with their spans (types.Values); the functions it uses
return what they found in order of appearance. None of them needs a model.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from datetime import date, timedelta
from functools import cache, lru_cache
from itertools import pairwise

from toolweave.language.numbers import numbers
from toolweave.language.text import ARROW
from toolweave.types import (
    ClockTime,
    Conversion,
    DateValue,
    Locator,
    Place,
    Quoted,
    Span,
    Values,
    ZoneMention,
)


def read_values(text: str, today: date) -> Values:
    """Every value `text` gives; relative dates are resolved against `today`. Numbers, dates
    and places are not looked for inside a URL, path or email address."""
    said = said_in(text)
    # "commit it with this message: app.py: add units": a file named in a text is text.
    found_locators = [x for x in locators_in(text) if not _inside_text(x, said, text)]
    whole = text
    text = blank_spans(text, found_locators)
    found_dates = dates_in(text, today)
    found = numbers(blank_quoted(text))
    for number in found:
        number.in_date = any(d.start <= number.start < d.end for d in found_dates)
    return Values(
        numbers=found,
        quoted=_as_lines(
            whole, [q for q in quoted_in(whole) if not _COMPOSED.match(whole, q.end + 1)]
        ),
        said=said,
        locators=found_locators,
        dates=found_dates,
        times=clock_times_in(text),
        zones=[ZoneMention(start=s, end=e, zone=z) for s, e, z in _zone_spans(text)],
        places=places_in(text),
        listed_places=listed_places(text),
        conversions=[Conversion(value=v, source=a, target=b) for v, a, b in unit_conversions(text)],
        expression=math_expression(blank_spans(text, found_dates)),  # "01/15/2024" is no sum
    )


def _inside_text(locator: Locator, said: list[Quoted], text: str) -> bool:
    """Whether the locator is a part of a longer text to pass on as it is, said after a colon."""
    return any(
        s.start <= locator.start and locator.end <= s.end and s.end - s.start > len(locator.value)
        for s in labelled(said, text)
    )


def labelled(said: list[Quoted], text: str) -> list[Quoted]:
    """The texts to pass on said after a colon ("message: ..."): all of them the text to pass
    on, whatever words they hold."""
    return [s for s in said if text[: s.start].rstrip().endswith(":")]


def _as_lines(text: str, quotes: list[Quoted]) -> list[Quoted]:
    """Quotes listed as the lines of a text ("three lines: 'a', 'b' and 'c'", '"a" / "b"') as
    that one text, a line each."""
    runs: list[list[Quoted]] = []
    for quote in quotes:
        if runs and _LINE_GAP.fullmatch(text[runs[-1][-1].end + 1 : quote.start - 1]):
            runs[-1].append(quote)
        else:
            runs.append([quote])
    found = []
    for run in runs:
        gaps = [text[a.end + 1 : b.start - 1] for a, b in pairwise(run)]
        if gaps and (_PER_LINE.search(text) or all("/" in gap for gap in gaps)):
            lines = "\n".join(q.value for q in run)
            found.append(Quoted(start=run[0].start, end=run[-1].end, value=lines))
        else:
            found.extend(run)
    return found


_LINE_GAP = re.compile(r"\s*[,/;]?\s*(?:and\s+)?")


# A quoted text that the request goes on composing ("add "lives in" plus that city") is only a
# part of a value, never a whole one.
_COMPOSED = re.compile(
    r"\s+(?:plus|followed\s+by|(?:and\s+)?then)\s+(?:the|that|its|his|her|their)\s+(?P<fact>[a-z]+)",
    re.I,
)


def composed(text: str) -> tuple[str, str] | None:
    """A quoted lead and the fact that follows it in what is kept ('"lives in" followed by the
    city', "'default city is' plus that city"), or None."""
    for quote in quoted_in(text):
        if match := _COMPOSED.match(text, quote.end + 1):
            return quote.value, match["fact"].lower()
    return None


# In single quotes, an apostrophe between letters is the text's: 'waiting for the client's logo'.
_IN_SINGLE = r"(?:[^']|(?<=\w)'(?=\w))+"
_QUOTED = re.compile(rf"\"([^\"]+)\"|“([^”]+)”|‘([^’]+)’|(?<!\w)'({_IN_SINGLE})'(?!\w)")


def quoted(text: str) -> list[str]:
    return [q.value for q in quoted_in(text)]


_PASTED_WORDS = 8  # a quote this long that is the whole text is a request pasted in quotes


def quoted_in(text: str) -> list[Quoted]:
    """Quoted strings, and JSON objects whole ('write {"theme": "dark"} to a.json' gives the
    object, not "theme")."""
    found = list(_objects_in(text))
    for match in _QUOTED.finditer(blank_spans(text, found)):  # none inside an object
        group = next(n for n in range(1, 5) if match.group(n))
        whole = not text[: match.start()].strip() and not text[match.end() :].strip()
        if whole and len(match[group].split()) >= _PASTED_WORDS:
            continue  # a request pasted in quotes whole: "Can you ...?" quotes no value
        found.append(Quoted(start=match.start(group), end=match.end(group), value=match[group]))
    return sorted(found, key=lambda q: q.start)


# A JSON object a request writes out is short: each "{" is decoded within this many characters,
# so a long question full of braces costs linear time, and deep nesting is no object.
MAX_OBJECT_CHARS = 2_000


@lru_cache(maxsize=16)  # one question's text is read for them several times
def _objects_in(text: str) -> tuple[Quoted, ...]:
    found: list[Quoted] = []
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        start = match.start()
        if found and start < found[-1].end:
            continue
        try:
            value, length = decoder.raw_decode(text[start : start + MAX_OBJECT_CHARS])
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict) and value:
            found.append(
                Quoted(start=start, end=start + length, value=text[start : start + length])
            )
    return tuple(found)


def blank_spans(text: str, spans: Sequence[Span], blank: str = " ") -> str:
    """The text with these spans blanked out (same length)."""
    chars = list(text)
    for span in spans:
        chars[span.start : span.end] = blank * (span.end - span.start)
    return "".join(chars)


# URLs, email addresses and paths: absolute, home- or dot-relative, or a file name with an
# extension. A sentence's closing punctuation is not part of them.
_URL = r"\b(?:https?|ftp|file)://[^\s\"'<>]+"
_EMAIL = r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
_PATH = (
    r"(?<![\w/:.~-])(?:~|\.{1,2})?/[^\s\"'<>,;]*"
    r"|(?<![\w/.@-])[\w-]{2,}(?:\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,4}(?![\w@/])"
)
_LOCATOR = re.compile(f"(?P<url>{_URL})|(?P<email>{_EMAIL})|(?P<path>{_PATH})")
_TRAILING = ".,;:!?)]}"
# The rest of a file's name with a space in it, after a path whose last part has no extension:
# "/srv/meeting notes.txt".
_SPACED_NAME = re.compile(r"\s[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}(?![\w@/])")
# "notes.txt in /srv/files": a file name, then the folder it is in.
_IN_FOLDER = re.compile(
    r"\s(?:in|inside|under|from)\s+(?:the\s+)?(?:folder\s+|directory\s+)?$"
    # "add a file README.txt to /srv/old": a new file put in it (not "move a.txt to /srv/b")
    r"|\b(?:add|put|place|drop)\s+(?:(?:a|an|the)\s+)?(?:new\s+)?(?:file\s+)?[\w.-]+\s+to\s+"
    r"(?:the\s+)?(?:folder\s+|directory\s+)?$",
    re.IGNORECASE,
)


# A quoted path, spaces and all: "/srv/meeting notes.txt", "projects/old" (not a message such
# as "app.py: add units (metric/imperial)").
_QUOTED_PATH = re.compile(r"[~.]{0,2}/[^\n]*|[\w.-]+(?:/[\w. -]+)+")


def locators_in(text: str) -> list[Locator]:
    """URLs, paths and email addresses, in order; a quoted one whole, spaces and all."""
    found = []
    for quote in quoted_in(text):
        match = _LOCATOR.fullmatch(quote.value)
        if match or _QUOTED_PATH.fullmatch(quote.value):
            kind = match.lastgroup if match else "path"
            found.append(
                Locator(
                    start=quote.start,
                    end=quote.end,
                    kind=kind or "path",
                    value=quote.value,
                    quoted=True,
                )
            )
    bare = blank_quoted(text)
    taken = 0  # the end of the last path, which may have taken the name after a space
    for match in _LOCATOR.finditer(bare):
        value = match.group().rstrip(_TRAILING)
        if value and value not in ("/", "~", ".", "..") and match.start() >= taken:
            kind = match.lastgroup or "path"
            last = value.rsplit("/", 1)[-1]
            spaced = _SPACED_NAME.match(bare, match.start() + len(value))
            if kind == "path" and "/" in value and last and "." not in last and spaced:
                value += spaced.group()  # "/srv/meeting notes.txt": a space in a file's name
            taken = match.start() + len(value)
            found.append(Locator(start=match.start(), end=taken, kind=kind, value=value))
    for match in _NAMED_FOLDER.finditer(bare):  # "a drafts folder in /srv": /srv/drafts
        part = "name" if match["name"] else "called"
        if match[part].lower() not in _NOT_FOLDER_NAMES:
            span = {"start": match.start(part), "end": match.end(part)}
            found.append(Locator(**span, kind="path", value=match[part]))
    renamed = _RENAMED_TO.search(bare) if found else None
    if renamed and not any(x.start == renamed.start("name") for x in found):
        span = {"start": renamed.start("name"), "end": renamed.end("name")}
        found.append(Locator(**span, kind="path", value=renamed["name"]))
    found.sort(key=lambda locator: locator.start)
    _note_folders(text, found)
    return found


# A folder named by a word before "folder" or after "called", in a folder the text gives: "make
# a drafts folder in /srv", "a new directory called drafts in /srv" name /srv/drafts.
_NAMED_FOLDER = re.compile(
    r"(?:\b(?:a|an|the)\s+(?:new\s+)?(?P<name>[\w-]+)\s+(?:folder|directory)"
    r"|\b(?:folder|directory)\s+(?:called|named)\s+(?P<called>[\w-]+))\s+"
    r"(?=(?:in|inside|under)\s+(?:the\s+)?(?:folder\s+|directory\s+)?[/~])",
    re.IGNORECASE,
)
# "rename /srv/old to archive": the new name alone, a path beside the old one (binding.py).
_RENAMED_TO = re.compile(
    r"\brename\s+(?:the\s+(?:file|folder|directory)\s+)?[~/.]\S*\s+(?:to|as)\s+(?P<name>[\w-]+)[.!?]?\s*$",
    re.IGNORECASE,
)
_NOT_FOLDER_NAMES = {"new", "empty", "another", "separate", "sub", "my", "parent", "same", "that"}


def _note_folders(text: str, found: list[Locator]) -> None:
    """File names followed by the folder they are in ("a.txt and b.txt in /srv") learn it, and
    those after a folder the request opens with ("in /srv rename a.txt to b.txt")."""
    for at, folder in enumerate(found):
        if folder.kind != "path" or not folder.value.startswith(("/", "~")):
            continue
        if _OPENS_IN.match(text[: folder.start]):
            named = found[at + 1 :]
        elif _IN_FOLDER.search(text[: folder.start]):
            named = found[at - 1 :: -1] if at else []
        else:
            continue
        for name in named:
            if name.kind != "path" or "/" in name.value or name.folder:
                break
            name.folder = folder.value


def new_folder(text: str) -> str | None:
    """The folder a request says does not exist yet, as a path it gives: "Create /srv/drafts/
    intro.md (the drafts folder doesn't exist yet)" -> /srv/drafts; "into a new folder
    /srv/customers" -> /srv/customers."""
    match = _NEW_FOLDER.search(text)
    if match is None:
        return None
    paths = [x.value for x in locators_in(text) if x.kind == "path"]
    if match["path"]:
        return next((p for p in paths if p == match["path"].rstrip(".,;:)")), None)
    named = f"/{match['name']}/"
    return next((p[: p.index(named) + len(named) - 1] for p in paths if named in p), None)


_NEW_FOLDER = re.compile(
    r"\bnew\s+(?:folder|directory)\s+(?P<path>[~/]\S+)"
    r"|\b(?P<name>[\w.-]+)\s+(?:folder|directory)\s+(?:doesn['’]?t|does\s+not|isn['’]?t\s+there)",
    re.IGNORECASE,
)


_OPENS_IN = re.compile(r"\W*(?:in|inside|under)\s+(?:the\s+)?(?:folder\s+|directory\s+)?$", re.I)


# Unquoted text to pass on, after the words that announce it: "write the text hello to a.txt",
# "a note saying back at 5", "append buy eggs to todo.md". Ends before where it goes.
# Where a text goes: a file, a folder, a path, or a store where the clause ends or goes on
# describing ("add Dmitri Volkov to my memory graph as a person": Dmitri Volkov; "append fix the
# bug in the users table to todo.md" keeps its words).
_STORE = r"(?:memory|graph|table|database|db)\b(?=\W*$|[,;.]|\s+(?:as|with|and)\b)"
_WHERE = (
    r"(?:to|into|in|on|at)\s+(?:(?:the\s+)?end\s+of\s+(?:the\s+)?|the\s+|a\s+|my\s+|our\s+)?"
    rf"(?:file\b|folder\b|(?:[\w-]+\s+)?{_STORE}|/|~|[\w-]+\.[A-Za-z])"
)
# What a text given to pass on is called: "with this line: ...".
_TEXT_NOUN = r"(?:text|words?|lines?|message|sentence|string|content|note)\b"
_SAID = re.compile(
    rf"(?:\b(?:the|a)\s+{_TEXT_NOUN}\s+"
    r"|\b(?:saying|that says|which says|reading|containing)\s+"
    r"|\b(?:message|msg|text|content|note|title|subject|insight|with)\s*:\s*"
    rf"|\b(?:this|the following)\s+{_TEXT_NOUN}\s*:\s*"
    r"|\b(?:insights?|memo)\b[\w\s]{0,20}?\bthat\s+"
    r"|^(?:please\s+)?(?:echo|repeat|say)\s+(?:this|it)(?:\s+back)?\s*:\s*"  # "echo this back: hi"
    # "write to /a/gifts.txt: Grandma's scarf, ...", "new file /a/p.txt: passport, charger"
    rf"|^(?:please\s+)?(?:write|create|save|new\s+file)\b[^:]{{0,200}}?\.\w{{1,5}}\s*(?::|{ARROW})\s+"
    r"|^(?:please\s+)?(?:write|append|add|put|echo)\s+(?:(?:a\s+|the\s+)?(?:new\s+)?row\s+)?"
    r"(?!the\s+(?:text|words?|line)\b))"
    rf"(?P<said>(?:[^\"“‘']|(?<=\w)['’](?=\w))+?)(?=\s+{_WHERE}|\s*[.?]?\s*$)",
    re.IGNORECASE,
)


# Words that stand for text nobody gave yet ("write something to a.txt" asks what to write) or
# for an earlier result ("write the result into a.txt", "write its commit messages into a.txt",
# "write down what memory knows about Falcon"): no text to pass on as it is.
_RESULT_NOUNS = (
    r"result|answer|output|sum|total|number|value|content|contents|text|page|file|data|time|"
    r"phone number"
)
_VAGUE = re.compile(
    r"(?:something|anything|some text|stuff|it|this|that|them|these|those|a note"
    rf"|(?:the|that|this|its)\s+(?:\w+\s+)?(?:{_RESULT_NOUNS}|message)s?\s+of\b.*"
    rf"|(?:the|that|this|its)\s+(?:\w+\s+)?(?:{_RESULT_NOUNS})s?"
    r"|(?:its|their)\s+.+|(?:down\s+)?(?:what|which|who)\b.+)",
    re.IGNORECASE,
)


# "replace A with B", "change A to B", "swap A for B": a text and what it becomes, before where
# (", in a.txt") or the clause's end; "update the status from "A" to "B"", ""A" becomes "B"" and
# "make it "B" instead of "A"", both quoted.
_QUOTE = r"\"[^\"]+\"|“[^”]+”"
_SINGLE = rf"(?<!\w)'{_IN_SINGLE}'(?!\w)|‘[^’]+’"
_CAPITALS = r"[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*"  # "Daniel Okafor"
_CODE = r"[A-Z0-9][\w.-]*\d[\w.-]*|[A-Z0-9][\w.-]*[A-Z][\w.-]*"  # "B2", "v1.2", "C4"
_REPLACEMENT = re.compile(
    r"\b(?:replac(?:e|ing)|chang(?:e|ing)|swap(?:ping)?)\s+(?P<old>\S.*?)\s+(?:with|to|into|for|by)\s+"
    rf"(?P<new>\S.*?)(?=\s*,?\s+{_WHERE}|\s*[.?!;]?\s*$)"
    rf"|\bfrom\s+(?P<was>{_QUOTE})\s+(?:to|into)\s+(?P<becomes>{_QUOTE})"
    rf"|(?P<before>{_QUOTE})\s+(?:becomes|turns into|is replaced by)\s+(?P<after>{_QUOTE})"
    rf"|(?P<instead>{_QUOTE})\s+instead\s+of\s+(?P<replaced>{_QUOTE})"
    # "so it names Daniel Okafor instead of Priya Nair": names in capitals, unquoted
    rf"|(?-i:(?P<named>{_CAPITALS})\s+instead\s+of\s+(?P<unnamed>{_CAPITALS}))"
    # "so that instead of 'waiting for logos' it says 'logos received'"
    rf"|\binstead\s+of\s+(?P<unsaid>{_QUOTE}|{_SINGLE}),?\s+it\s+(?:now\s+)?(?:says|reads|"
    rf"should\s+(?:say|read))\s+(?P<says>{_QUOTE}|{_SINGLE})"
    # "so that 'call the bank' reads 'call the bank today'", in single quotes too.
    rf"|(?P<reading>{_QUOTE}|{_SINGLE})\s+(?:now\s+)?reads\s+(?P<read>{_QUOTE}|{_SINGLE})"
    # "the passport line should say June 10 not June 3"
    r"|\bshould\s+(?:now\s+)?(?:say|read|show)\s+(?P<right>\S.*?)\s+(?:not|instead\s+of|rather\s+than)\s+"
    r"(?P<wrong>\S.*?)(?=\s*(?:[.?!;]?\s*$|[:;]\s))"
    # "the groceries came to 38.10, not 31.80": an amount mistyped, the right one first
    r"|(?<![\w.,])(?P<fixed>\d+(?:[.,]\d+)?),?\s+not\s+(?P<mistyped>\d+(?:[.,]\d+)?)(?!\w|[.,]\d)"
    # "todo.md: leaking tap -> kitchen tap", "budget.csv: hosting 240 -> 300"
    rf"|(?:^|:\s+)(?P<arrowed>[^:\s][^:]*?)\s*{ARROW}\s*(?P<into>[^\s,;:][^,;:]*?)(?=\s*[.?!;]?\s*$)"
    # "next mtg moved B2 → C4, fix it in notes.txt": a code to another, within the sentence
    rf"|(?<![\w./-])(?-i:(?P<code>{_CODE})\s*{ARROW}\s*(?P<recoded>{_CODE}))(?![\w./-])",
    re.IGNORECASE,
)
_QUOTES = "\"'“”‘’"
_PAIRS = (
    ("unnamed", "named"),
    ("code", "recoded"),
    ("old", "new"),
    ("was", "becomes"),
    ("before", "after"),
    ("replaced", "instead"),
    ("unsaid", "says"),
    ("reading", "read"),
    ("wrong", "right"),
    ("mistyped", "fixed"),
    ("arrowed", "into"),
)


_ASKED = re.compile(r"(?:what|how|when|which|who|whom|whose|where|why)\b", re.I)


def replacements(text: str) -> list[tuple[Quoted, Quoted]]:
    """The (text, what it becomes) pairs the text asks for, each as written (its quotes off);
    none in a question ("How do I change the shell to zsh?"), nor for a whole file ("replace the
    contents of a.txt with hello" writes it)."""
    if _ASKS_HOW.match(text):
        return []
    pairs = []
    for match in _REPLACEMENT.finditer(_inside_quotes_hidden(text)):  # "for" in a quote is text
        parts = next(p for p in _PAIRS if match[p[0]])
        if match["fixed"] and not _CORRECTS.search(text):
            continue  # "I have 3, not 4": said, not asked to be corrected
        old, new = (_unquoted(text, match, part) for part in parts)
        if last := _FROM_LAST.search(old.value):  # "change the deadline in a.txt from X to Y"
            old = Quoted(start=old.start + last.start(1), end=old.end, value=last[1])
        if match["arrowed"] and (text.rstrip().endswith("?") or _ASKED.match(new.value)):
            continue  # "carla reyes → email + city?", "disk warning → what time": asked of it
        if match["arrowed"] and locators_in(new.value):
            continue  # "the emails -> /a/e.txt": where they go, no text they become
        if match["arrowed"] and re.search(r"\]\s*-?$", old.value):
            continue  # "Bob -[works at]-> Acme": a relation drawn, no text replaced
        if match["arrowed"] and _ADDS.match(old.value):
            continue  # "notes.txt: add a line → ring the plumber": a line added, none replaced
        if match["arrowed"] and _MOVED.search(old.value) and not locators_in(text):
            continue  # "bob chen moved toronto → vancouver": where someone went, in no file
        if (numeral := _LAST_NUMBER.search(old.value)) and _NUMBER_ONLY.fullmatch(new.value):
            # "hosting 240 -> 300": the number, not the words before it
            old = Quoted(start=old.start + numeral.start(1), end=old.end, value=numeral[1])
        whole = _WHOLE.match(old.value) or locators_in(old.value)
        if old.value and new.value and not whole:
            pairs.append((old, new))
    return pairs


_ADDS = re.compile(
    r"^\W*(?:add|append|insert|put|new)\s+(?:(?:a|an|one|another)\s+)?(?:new\s+|more\s+)?"
    r"(?:line|item|entry|row|task|note|todo|bullet)s?\W*$",
    re.IGNORECASE,
)
_MOVED = re.compile(r"\b(?:moved|relocated|went)\s+(?:from\s+)?\S+$", re.IGNORECASE)
_CORRECTS = re.compile(r"\b(?:fix|correct|update|change|amend|edit)", re.IGNORECASE)
_LAST_NUMBER = re.compile(r"\s(\d+(?:[.,]\d+)?)$")
_NUMBER_ONLY = re.compile(r"\d+(?:[.,]\d+)?")


_FROM_LAST = re.compile(r"\bfrom\s+([^\s\"'“”‘’]+)$", re.IGNORECASE)
_ASKS_HOW = re.compile(r"\W*(?:how|what|why|when|where|which|who)\b", re.IGNORECASE)
_WHOLE = re.compile(r"(?:the\s+)?(?:whole\s+|entire\s+)?contents?\s+of\b", re.IGNORECASE)


def _inside_quotes_hidden(text: str) -> str:
    """The text with what its quotes hold masked (same length), the quote marks kept."""
    return blank_spans(text, quoted_in(text), "x")


def _unquoted(text: str, match: re.Match[str], part: str) -> Quoted:
    start, end = match.span(part)
    inner = quoted_in(text[start:end])
    if len(inner) == 1:  # 'the word "foo"': what is quoted
        return inner[0].model_copy(
            update={"start": start + inner[0].start, "end": start + inner[0].end}
        )
    value = text[start:end].strip(_QUOTES)
    return Quoted(start=start, end=end, value=value)


# Words that only announce the text after them.
_ANNOUNCED = re.compile(
    r"(?:back\s+)?(?:exactly\s+)?(?:this|the following|following|as follows)"
    rf"(?:\s+{_TEXT_NOUN})?\s*:\s*|back\s*:\s*",
    re.I,
)


# "notes.txt", "notes.txt from /srv": a file named, not a text ("app.py: add units" is one)
_NAMES_A_FILE = re.compile(r"[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b(?![:\s]+\w)|.*\s[/~]")
_PLACED = re.compile(
    r"(?:a|an|one|another)\s+(?:new\s+)?(?:[a-z]+\s+)?\w+(?:\s+(?:to|into|in|for)\b|\s*$)",
    re.IGNORECASE,
)
_DESCRIBED = re.compile(
    r"(?:that\s+|which\s+)?(?:we|i|you|they|he|she)\s+(?:\w+ed|said|told|wrote|chose|gave|sent)"
    r"\b(?:\s+\w+){0,3}\s*$",
    re.IGNORECASE,
)
# A polite request after a telling sentence's colon (clauses.py joins them so).
_ASKS_AT = re.compile(r"(?:please\s+)?(?:could|can|would|will)\s+you\b", re.IGNORECASE)
_POINTED = re.compile(
    r"(?:this|that|these|those)\s+\w+(?:\s+(?:to|into|in|on)\b|\s*$)", re.IGNORECASE
)


def said_in(text: str) -> list[Quoted]:
    """Unquoted text the clause gives to be passed on as it is (a file's content, a message);
    a list it asks to be written one item per line, as those lines (`listed_lines`)."""
    if lines := listed_lines(text):
        return [lines]
    found = []
    for match in _SAID.finditer(blank_quoted(text)):
        value = match["said"].strip()
        if announced := _ANNOUNCED.match(value):  # "echo back exactly this: Hello, World!"
            value = value[announced.end() :]
        if not re.search(r"\w", value):  # "... with the note 'x'?": its "?" is no text
            continue
        # "a line for printing, at a cost of 150": what it is for describes it, gives no text
        if _VAGUE.fullmatch(value) or re.match(r"(?:/|~|(?:to|into|in|on|at|for|about)\b)", value):
            continue
        if _POINTED.match(value):  # "add that person to the users table": a thing, no text
            continue
        if _DESCRIBED.match(value):  # "with the message we agreed on": which one is not said
            continue
        if _NAMES_A_FILE.match(value):  # "put notes.txt from /srv in the folder /old": a move
            continue
        if _PLACED.match(value):  # "add a row to the orders table with ...": a thing, no text
            continue
        if _ASKS_AT.match(value) and locators_in(value):
            continue  # "... a thank-you note: could you check <url> ...": the request itself
        if value:
            start = match.end("said") - len(value)
            end = start + len(value)
            if ":" in text[match.start() : start] and re.fullmatch(r"[.?!]\s*", text[end:]):
                end += 1  # "with: Nothing to do today.": after a colon, every character
            found.append(Quoted(start=start, end=end, value=text[start:end]))
    return found


def listed_lines(text: str) -> Quoted | None:
    """ "a file with eggs, flour and butter, one per line", "three lines in it: eggs, flour and
    butter", "a file listing eggs and flour, each on its own line": the items, each on a line of
    its own, where the list stands."""
    if not _PER_LINE.search(text):
        return None
    match = _ITEMS.search(blank_quoted(text))
    if match is None:
        return None
    items = list_items(match["items"])
    return Quoted(start=match.start("items"), end=match.end("items"), value="\n".join(items))


def list_items(text: str) -> list[str]:
    """The items of a list as written: "eggs, flour and butter" is eggs, flour, butter."""
    return [item.strip() for item in re.split(r",\s*(?:and\s+)?|\s+and\s+", text)]


_PER_LINE = re.compile(
    r"\b(?:one|each)\s+(?:per|a|on\s+(?:a|its\s+own|a\s+separate|a\s+new))\s+line\b"
    r"|\b(?:two|three|four|five|six|\d)\s+lines\b",
    re.IGNORECASE,
)
_ITEM = r"[\w'’-]+(?:\s+[\w'’-]+){0,3}"
_ITEMS = re.compile(
    rf"(?:\b(?:with|listing|containing)|:)\s+(?P<items>{_ITEM}(?:,\s*{_ITEM})*,?\s+and\s+{_ITEM}?)"
    r"(?=\s*(?:,\s*(?:one|each)\b|[.!]?\s*$))",
    re.IGNORECASE,
)


def blank_quoted(text: str) -> str:
    """The text with quoted strings and JSON objects blanked out (same length), so their digits
    are not numbers."""
    return blank_spans(_QUOTED.sub(lambda match: " " * len(match.group()), text), _objects_in(text))


_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)(?!\w)|\b(?P<H>\d{1,2}):(?P<M>\d{2})\b"
    r"|\b(?P<word>noon|midnight)\b",
    re.IGNORECASE,
)


def clock_times(text: str) -> list[str]:
    """Clock times as 24-hour 'HH:MM'."""
    return [t.hhmm for t in clock_times_in(text)]


def clock_times_in(text: str) -> list[ClockTime]:
    found = []
    for match in _CLOCK.finditer(text):
        if match["word"]:
            hour, minute = (12 if match["word"].lower() == "noon" else 0), 0
        elif match["H"] is not None:
            hour, minute = int(match["H"]), int(match["M"])
        else:
            hour, minute = int(match["h"]) % 12, int(match["m"] or 0)
            if match["ampm"].lower().startswith("p"):
                hour += 12
        if hour < 24 and minute < 60:
            hhmm = f"{hour:02d}:{minute:02d}"
            found.append(ClockTime(start=match.start(), end=match.end(), hhmm=hhmm))
    return found


# The one month table: each month's abbreviations, its full name last.
MONTH_NAMES = [
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december"),
]  # fmt: skip
MONTHS = {name: number for number, names in enumerate(MONTH_NAMES, 1) for name in names}
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DATE = re.compile(
    r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b"
    r"|(?<![\w/.])(?P<slashed>\d{1,2}/\d{1,2}/\d{4})(?![\w/])"
    r"|\b(?P<rel>today|tomorrow|yesterday)\b"
    r"|\b(?P<next>next\s+)?(?P<weekday>" + "|".join(WEEKDAYS) + r")\b"
    r"|\b(?:(?P<y0>\d{4})\s+)?"  # "2023 April 4th"
     + _MONTH + r"\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(?P<y1>\d{4}))?\b"
    r"|\b(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    + _MONTH.replace("month", "month2")
    + r"(?:,?\s+(?P<y2>\d{4}))?\b",
    re.IGNORECASE,
)


def dates(text: str, today: date) -> list[str]:
    """Dates as ISO 'YYYY-MM-DD'; relative words and weekdays are resolved against `today`."""
    return [d.iso for d in dates_in(text, today)]


def dates_in(text: str, today: date) -> list[DateValue]:
    """The dates a text gives; a day and month without a year take the year the text writes
    nearest them ("from 2023 April 4th to April 8th": both in 2023), else this year."""
    matches = list(_DATE.finditer(text))
    years = [(m.start(), int(y)) for m in matches if (y := m["y0"] or m["y1"] or m["y2"])]
    found = []
    for match in matches:
        near = min(years, key=lambda y: abs(y[0] - match.start()), default=(0, today.year))[1]
        try:
            iso = _date_text(match, today, near)
        except ValueError:
            continue  # e.g. February 30
        found.append(DateValue(start=match.start(), end=match.end(), iso=iso))
    return found


def _date_text(match: re.Match[str], today: date, year: int | None = None) -> str:
    """The date in ISO form; one written with slashes as written: "01/02/2025" is a day of
    January or of February as its writer's country has it, which the text does not say."""
    return match["slashed"] or _resolve_date(match, today, year or today.year).isoformat()


def _resolve_date(match: re.Match[str], today: date, year: int) -> date:
    if match["iso"]:
        return date.fromisoformat(match["iso"])
    if match["rel"]:
        shift = {"today": 0, "tomorrow": 1, "yesterday": -1}[match["rel"].lower()]
        return today + timedelta(days=shift)
    if match["weekday"]:
        ahead = (WEEKDAYS.index(match["weekday"].lower()) - today.weekday()) % 7
        return today + timedelta(days=ahead or 7)
    month = MONTHS[(match["month"] or match["month2"]).lower()]
    day = int(match["d1"] or match["d2"])
    written = match["y0"] or match["y1"] or match["y2"]
    return date(int(written) if written else year, month, day)


# Places that are not the last part of an IANA name, mapped to a representative zone.
PLACE_ZONES = {
    "utc": "UTC", "gmt": "UTC", "japan": "Asia/Tokyo", "china": "Asia/Shanghai",
    "beijing": "Asia/Shanghai", "india": "Asia/Kolkata", "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata", "bangalore": "Asia/Kolkata",
    "uk": "Europe/London", "england": "Europe/London", "britain": "Europe/London",
    "france": "Europe/Paris", "germany": "Europe/Berlin", "spain": "Europe/Madrid",
    "italy": "Europe/Rome", "netherlands": "Europe/Amsterdam", "switzerland": "Europe/Zurich",
    "austria": "Europe/Vienna", "sweden": "Europe/Stockholm", "norway": "Europe/Oslo",
    "poland": "Europe/Warsaw", "ireland": "Europe/Dublin", "portugal": "Europe/Lisbon",
    "greece": "Europe/Athens", "turkey": "Europe/Istanbul", "russia": "Europe/Moscow",
    "israel": "Asia/Jerusalem", "egypt": "Africa/Cairo", "nigeria": "Africa/Lagos",
    "kenya": "Africa/Nairobi", "south africa": "Africa/Johannesburg",
    "brazil": "America/Sao_Paulo", "argentina": "America/Argentina/Buenos_Aires",
    "buenos aires": "America/Argentina/Buenos_Aires", "mexico": "America/Mexico_City",
    "california": "America/Los_Angeles", "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles", "washington": "America/New_York",
    "boston": "America/New_York", "miami": "America/New_York", "houston": "America/Chicago",
    "texas": "America/Chicago", "hawaii": "Pacific/Honolulu", "australia": "Australia/Sydney",
    "new zealand": "Pacific/Auckland", "korea": "Asia/Seoul", "south korea": "Asia/Seoul",
    "thailand": "Asia/Bangkok", "vietnam": "Asia/Ho_Chi_Minh", "hanoi": "Asia/Bangkok",
    "indonesia": "Asia/Jakarta", "philippines": "Asia/Manila", "pakistan": "Asia/Karachi",
    "bangladesh": "Asia/Dhaka", "uae": "Asia/Dubai", "saudi arabia": "Asia/Riyadh",
    "nyc": "America/New_York", "new york city": "America/New_York",
}  # fmt: skip


# Zone names whose last part names no city: old aliases ("Canada/Central") and directions.
_NO_CITIES = ("Etc/", "SystemV/", "US/", "Brazil/", "Canada/", "Chile/", "Mexico/")
_NO_CITY = {"west", "east", "north", "south", "center", "central", "general"}
_PLACED_BEFORE = re.compile(rf"(?:\b(?:in|to|from|for|at)|{ARROW})\s*$", re.IGNORECASE)
_TIME_OF = re.compile(r"\s+(?:clock|time)\b", re.IGNORECASE)
_OFFSET = re.compile(r"\s+offset\b", re.IGNORECASE)
# Zone cities that are English words too ("wake me at 7:00", "at christmas"): capitalised only.
_WORDS_TOO = {"wake", "midway", "easter", "christmas", "reunion", "troll", "jersey", "anchorage"}
_WORDS_TOO |= {"palmer", "casey", "davis", "regina", "marengo", "knox", "vevay", "winamac"}


@cache
def _zone_names() -> dict[str, str]:
    """Lower-case place name -> IANA zone: each zone's city part, then the table above."""
    from zoneinfo import available_timezones

    names: dict[str, str] = {}
    for zone in sorted(available_timezones()):
        city = zone.rsplit("/", 1)[-1].replace("_", " ").lower()
        # "further west", "Time Warner Center": no Australia/West, America/North_Dakota/Center
        if "/" in zone and not zone.startswith(_NO_CITIES) and city not in _NO_CITY:
            names.setdefault(city, zone)
        names.setdefault(zone.lower(), zone)
    names.update(PLACE_ZONES)
    return names


def unaccented(text: str) -> str:
    """The text without its accents: "Zürich" is "Zurich" typed on another keyboard."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def timezones(text: str) -> list[str]:
    """IANA zones for the places (or zone names) the text mentions, in order, without repeats."""
    return [zone for _, zone in timezone_mentions(text)]


def zone_ids(text: str) -> list[Span]:
    """Where the text writes a zone by its IANA name ("Asia/Tokyo"): one value, not two names."""
    zones = {zone.lower() for zone in _zone_names().values()}
    return [
        Span(start=m.start(), end=m.end())
        for m in re.finditer(r"\b[A-Za-z]+(?:/[A-Za-z_+-]+)+", text)
        if m.group().lower() in zones
    ]


def timezone_mentions(text: str) -> list[tuple[int, str]]:
    """(character position, IANA zone) of each place the text mentions, first mention only."""
    return [(start, zone) for start, _end, zone in _zone_spans(text)]


def _zone_spans(text: str) -> list[tuple[int, int, str]]:
    names = _zone_names()
    words = list(re.finditer(r"[^\W\d_][\w/+-]*", text))
    found: list[tuple[int, int, str]] = []
    # "09:00 kolkata in tokyo time", "time in tokyo": beside a clock time or after a place
    # preposition, a city written in lower case.
    clocked = _CLOCK.search(text) is not None
    i = 0
    while i < len(words):
        for size in (3, 2, 1):  # longest match first: "New York" before "York"
            # "São Paulo" is America/Sao_Paulo: the zone names are written without accents.
            phrase = unaccented(" ".join(w.group().lower() for w in words[i : i + size]))
            # One lower-case word is too often a common noun ("time", "nice"): not a place.
            proper = len(words[i : i + size]) > 1 or words[i].group()[0].isupper()
            placed = clocked or _PLACED_BEFORE.search(text[: words[i].start()]) is not None
            # "tokyo clock rn": a place before the word for its time
            after = text[words[min(i + size, len(words)) - 1].end() :]
            placed = placed or _TIME_OF.match(after) is not None
            proper = proper or "/" in phrase or (placed and phrase not in _WORDS_TOO)
            # "18:00 utc to dubai"; not "with its UTC offset", which asks what it is
            offset = phrase in ("utc", "gmt") and _OFFSET.match(after) is not None
            proper = (proper or phrase in ("utc", "gmt")) and not offset
            # An abbreviation is written in capitals: "MET", not "How I Met Your Mother".
            zone = names.get(phrase, "")
            said = " ".join(w.group() for w in words[i : i + size])
            shouted = (
                said.isupper() or phrase in ("utc", "gmt") or "/" in zone or not zone.isupper()
            )
            if len(phrase) > 1 and phrase in names and proper and shouted:
                if names[phrase] not in (zone for *_, zone in found):
                    end = words[min(i + size, len(words)) - 1].end()
                    found.append((words[i].start(), end, names[phrase]))
                i += size
                break
        else:
            i += 1
    return found


# A capitalised name after a place preposition: "in Paris", "for New York", "near Lake Como".
# The one place rule: clause splitting ("there") and argument filling both use it.
PLACE = re.compile(
    r"\b(?P<preposition>in|at|for|near|from|to|around)\s+"
    r"(?P<name>(?:[A-Z][\w'.-]*)(?:\s+(?:de|del|upon|on)?\s*[A-Z][\w'.-]*)*)"
)
_CONNECTORS = {"de", "del", "upon", "on"}
_FULL_STOP = re.compile(r"(?<=[a-z]{2}|[A-Z]{2})\.$")
# Capitalised words after "on"/"in" that name a time, not a place ("London on August 15").
NOT_PLACES = {n[-1].title() for n in MONTH_NAMES} | {d.title() for d in WEEKDAYS} | {"I"}


def places(text: str) -> list[str]:
    return [p.name for p in places_in(text)]


def places_in(text: str) -> list[Place]:
    """Place names the text gives: a capitalised name after "in", "at", "for", "near"...,
    then any city the timezone table knows (which also finds them written in lower case)."""
    found = named_places(text)
    for start, end, _zone in _zone_spans(text):
        name = text[start:end]  # the whole city name: "New York", "Los Angeles"
        if not any(name.lower() in f.name.lower() for f in found):
            title = name.title() if name.islower() else name
            found.append(Place(start=start, end=end, name=title))
    return sorted(found, key=lambda place: place.start)


def named_places(text: str) -> list[Place]:
    """Each capitalised name after a preposition of place, with its preposition."""
    found = []
    for match in PLACE.finditer(text):
        # A sentence's full stop ends the name and is no part of it ("London. What", "LA.");
        # "D.C." and "St." keep theirs.
        words = match["name"].split()
        stop = next((n for n, word in enumerate(words) if _FULL_STOP.search(word)), None)
        if stop is not None:
            words = [*words[:stop], _FULL_STOP.sub("", words[stop])]
        # "London on August 15": the name ends before a month or a day.
        cut = next((n for n, word in enumerate(words) if word in NOT_PLACES), len(words))
        while cut and words[cut - 1] in _CONNECTORS:
            cut -= 1
        if cut:
            name, start = " ".join(words[:cut]), match.start("name")
            preposition = match["preposition"]
            found.append(
                Place(start=start, end=start + len(name), name=name, preposition=preposition)
            )
    return found


# What joins the items of a list: "Paris, Rome and Oslo", "Alice or Carol".
LIST_JOIN = r"\s*(?:,?\s*(?:\b(?:and|or)\b|&)|,)\s*"  # ", and" before ","
# Places listed as alternatives ("Paris, Rome and Oslo"), not as a route ("from Paris to Rome").
_LIST_GAP = re.compile(rf"^{LIST_JOIN}(?:in\s+|at\s+|for\s+)?$")


def listed_places(text: str) -> list[str]:
    """The places of the text when they are listed ("Paris, Rome and Oslo"), else []."""
    found = places(text)
    spots = [text.find(place) for place in found]
    if len(found) < 2 or -1 in spots or spots != sorted(spots):
        return []
    gaps = [
        text[end + len(p) : start] for p, end, start in zip(found, spots, spots[1:], strict=False)
    ]
    return found if all(_LIST_GAP.match(gap) for gap in gaps) else []


_CONVERSION = re.compile(
    r"(?P<num>[-−]?\d[\d,]*(?:\.\d+)?)\s*(?P<from>[°A-Za-z][\w°/² ]{0,24}?)\s+"
    r"(?:to|in|into|as)\s+(?P<to>[°A-Za-z][\w°/² ]{0,24}?)\s*(?:[?.!,]|$)",
    re.IGNORECASE,
)


def unit_conversions(text: str) -> list[tuple[float, str, str]]:
    """'10 miles to km' -> (10.0, 'miles', 'km')."""
    return [
        (float(m["num"].replace(",", "").replace("−", "-")), m["from"].strip(), m["to"].strip())
        for m in _CONVERSION.finditer(text)
    ]


_MATH_WORDS = [
    (r"\bmultiplied by\b|\btimes\b", "*"),
    (r"\bdivided by\b|\bover\b", "/"),
    (r"\bplus\b", "+"),
    (r"\bminus\b", "-"),
    (r"\bto the power of\b", "^"),
    (r"\bsquared\b", "^2"),
    (r"\bcubed\b", "^3"),
    (r"\bpercent\b|\bper cent\b", "%"),
]
_MATH_RUN = re.compile(
    r"(?:(?:sqrt|abs|round|floor|ceil|exp|ln|log|log10|log2|sin|cos|tan|min|max|pi)\b|"
    r"[\d.,()+\-*/^%×÷−]|\bof\b|\bmod\b|\s)+",
    re.IGNORECASE,
)


_OPERATOR = re.compile(r"[-+*/^%×÷−]|\b[a-z]\w*\s*\(|\bpi\b|\bmod\b", re.IGNORECASE)


def math_expression(text: str) -> str | None:
    """The longest arithmetic run with an operator ('what is 15% of 2,340?' -> '15% of 2,340')."""
    for pattern, symbol in _MATH_WORDS:
        text = re.sub(pattern, symbol, text, flags=re.IGNORECASE)
    best = ""
    for match in _MATH_RUN.finditer(text):
        run = match.group().strip(" ,.")
        run = re.sub(r"^(?:of\b|[+*/^%])\s*|\s*(?:\bof|[-+*/^(])$", "", run).strip(" ,.")
        if re.search(r"\d", run) and _OPERATOR.search(run) and len(run) > len(best):
            best = run
    return best or None
