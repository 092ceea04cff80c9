"""SQL statements a clause spells out, for a parameter that takes one: the table, columns and
values it names, each copied as written, in the few shapes a plain request has.

"which users in the users table have Lyon as their city" gives
`SELECT * FROM users WHERE city = 'Lyon'`; "add to the users table: name Frank O'Neil, city Dublin"
gives `INSERT INTO users (name, city) VALUES ('Frank O''Neil', 'Dublin')`; "create a table called
suppliers with columns id (integer primary key), name (text)" gives `CREATE TABLE suppliers (id
INTEGER PRIMARY KEY, name TEXT)`. A statement the clause does not spell out whole is not made: a
small model writes it, and a statement it writes must have a statement's shape (execution).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from toolweave.language.cues import gives_a_row
from toolweave.language.numbers import NUMBER_WORDS
from toolweave.language.parameters import STATEMENT_KINDS
from toolweave.language.text import ADD_TO, ADDED_TO, ARROW
from toolweave.language.values import list_items, quoted_in, replacements
from toolweave.types import Span

_IDENT = r"[A-Za-z_]\w*"
# A value: quoted, a number, an e-mail address, or one to four words ("Frank O'Neil"); a
# strict one is no lowercase word ("with town Graz", not "with more than").
_STRICT = r"'[^']*'|\"[^\"]*\"|-?\d+(?:\.\d+)?\b|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_NAME = r"[\w'’-]+(?:\s+[A-Z][\w'’-]*){0,3}"
_VALUE = rf"(?:{_STRICT}|{_NAME})"
_STRICT_VALUE = rf"(?:{_STRICT}|[A-Z]{_NAME})"
# "at example.com", "notes.txt" name no table and column.
_DOMAIN_ENDS = r"(?:com|org|net|edu|gov|io|co|uk|de|fr|txt|md|csv|json|log|py|html)"
_TABLE = re.compile(
    rf"\b(?:the\s+)?(?P<a>{_IDENT})\s+table\b|\btable\s+(?:called\s+|named\s+)?(?P<b>{_IDENT})"
    rf"|\bcolumns?\s+(?:of|in|from)\s+(?:the\s+)?(?P<d>{_IDENT})"
    # orders.amount
    rf"|(?<![\w.@/-])(?P<c>{_IDENT})\.(?!{_DOMAIN_ENDS}\b)(?P<column>{_IDENT})\b(?![.@/-])"
)
_INTO = re.compile(rf"\b(?:into|to|in)\s+(?:the\s+)?(?P<a>{_IDENT})\b")
_NOT_TABLES = {"the", "a", "an", "new", "this", "that", "my", "which", "what", "each", "every"}
_NOT_TABLES |= {"with", "called", "named"}
_CONDITION = re.compile(
    rf"\b(?:whose|where|with)\s+(?:the\s+)?(?P<c1>{_IDENT})\s+(?:is|=|equals)\s+(?P<v1>{_VALUE})"
    rf"|\b(?:have|has)\s+(?P<v2>{_VALUE})\s+as\s+(?:their|its)\s+(?P<c2>{_IDENT})\b"
    rf"|\bwith\s+(?:the\s+)?(?P<c3>{_IDENT})\s+(?P<v3>{_STRICT_VALUE})"
)
_AGGREGATES = {
    "SUM": r"total|sum|summed|add\s+up|combined",
    "AVG": r"average|mean|avg",
    "MAX": r"highest|largest|biggest|maximum|max|most\s+expensive|priciest",
    "MIN": r"lowest|smallest|minimum|min|cheapest|least\s+expensive",
}
_COLUMN = re.compile(rf"\b(?:the\s+)?(?P<c>{_IDENT})\s+column\b")
# "the amounts in the orders table", "all order amounts in the orders table": a column by its
# plural, for a total or an average.
_PLURAL_COLUMN = re.compile(
    rf"\b(?P<p>(?P<c>{_IDENT}?)(?:(?<=i)es|s))\s+(?:in|of|from)\s+(?:the\s+)?{_IDENT}\s+table\b"
)
_COUNT = re.compile(r"\bhow\s+many\b|\bnumber\s+of\s+rows\b|\bcount\s+(?:the\s+)?rows\b", re.I)
# "name Frank O'Neil, email frank@x.org" or "name: Frank O'Neil", "and the comment 'Fast'": a
# column and its value.
# A value in a list runs to the next comma, "and" or the end: "item Desk mat, amount 15.5".
_LISTED = rf"(?:{_STRICT}|[\w'’.-]+(?:\s+(?!please\b|thanks?\b)[\w'’.-]+){{0,3}}?)"
_PAIR = re.compile(
    rf"(?:[:;,-]\s*|\b(?:and|with)\s+)(?:(?:the|an?)\s+(?!following\b))?(?P<c>[a-z_]\w*)\s*(?::\s*|=\s*|\s+(?:of\s+)?)(?P<v>{_LISTED})\s*"
    r"(?=[,;]|\band\b|$)"
)
_ROW = rf"(?:{_IDENT}\s+)?(?:id\s+|number\s+|#)?(?P<id>\d+)"
_IN_TABLE = rf"\s*(?:\s(?:in|of)\s+(?:the\s+)?{_IDENT}\s+table)?\s*"  # "... in the orders table"
# "set the amount of order 4 to 5.75", "change order 4's amount to 5.75", "amount = 5.75 where
# id = 4": a column, the row's id and the new value.
_UPDATES = (
    re.compile(
        rf"\b(?:set|change|update)\s+(?:the\s+)?(?P<c>{_IDENT})\s+(?:of|for)\s+(?:the\s+)?"
        rf"{_ROW}\s+to\s+(?P<v>{_VALUE}){_IN_TABLE}$"
    ),
    re.compile(
        rf"\b(?:set|change|update)\s+(?:the\s+)?{_ROW}['’]s\s+(?P<c>{_IDENT})\s+to\s+"
        rf"(?P<v>{_VALUE}){_IN_TABLE}$"
    ),
    re.compile(
        rf"\b(?:set\s+)?(?P<c>{_IDENT})\s*=\s*(?P<v>{_STRICT})\s+where\s+id\s*=\s*(?P<id>\d+)\s*$",
        re.I,
    ),
    # "order 8 amount -> 59.90": the row, its column, an arrow and the value
    re.compile(rf"^\W*{_ROW}['’]?s?\s+(?P<c>{_IDENT})\s*{ARROW}\s*(?P<v>{_STRICT}){_IN_TABLE}$"),
)
_DELETE = re.compile(
    r"\b(?:delete|remove|drop|clear\s+out|get\s+rid\s+of)\b(?!\s+(?:the\s+)?table\b)", re.I
)
_TYPES = r"(?:integer|int|text|real|numeric|blob|varchar(?:\(\d+\))?|date|boolean)\b"
_TYPE_NAMES = {"int": "INTEGER"}  # a type by its short name, as SQLite writes it
_SQL_WORDS = {"select", "from", "where", "table", "insert", "into", "values", "update", "set"}


@dataclass(frozen=True)
class Known:
    """What the clause's analysis knows beside its text: the names it gives of what a database
    holds (`held`, a table it does not call one: "set the amount of order 4 to 5.75" and
    `orders`), those tables' columns (`columns`, catalog/contents.py) and its typed values
    (`values`: ("email", "a@b.org"), ("place", "Dublin"), ("name", "Frank O'Neil"))."""

    held: Sequence[str] = ()
    columns: Mapping[str, Sequence[str]] = field(default_factory=dict)
    values: Sequence[tuple[str, str]] = ()
    numeric: Mapping[str, Sequence[str]] = field(default_factory=dict)  # columns of numbers
    read: str = ""  # the SQL of a value an earlier step read: what "at that price" is


# "at that price", "and that amount", "with the price": a value read before, said as such
READ_VALUE = re.compile(
    r"\s*,?\s*(?:\b(?:at|for|with|and|as|using)\s+)?(?:that|the|its|this)\s+"
    r"(?:price|cost|amount)\b(?:\s+as\s+the\s+amount\b)?",
    re.IGNORECASE,
)


def with_references(
    tables: Sequence[str], fields: Mapping[str, Sequence[str]]
) -> dict[str, list[str]]:
    """The columns of `tables` and of the tables their `_id` columns reference ("orders" with
    `user_id` brings "users"), so that a row can be read with the name of what it references."""
    known = {t: list(fields[t]) for t in tables if t in fields}
    for table in list(known):
        for column in known[table]:
            if (one := _referenced(column, list(fields))) is not None and one != table:
                known.setdefault(one, list(fields[one]))
    return known


def statement(
    text: str, kinds: tuple[str, ...] = STATEMENT_KINDS, known: Known | None = None
) -> tuple[str, Span] | None:
    """The statement of one of `kinds` the clause spells out, and the span it is read from."""
    known = known or Known()
    written, text = len(text), ADDED_TO.sub(ADD_TO, text)
    wanted = _kind(text)
    if wanted not in kinds:
        return None
    tables = [name for name in known.held if _plain(name) and name.islower()]  # not "Bob"
    if wanted == "create":
        made = _create(text)
    elif wanted == "insert":
        made = _insert(text, tables[:1], known)
    elif wanted == "select":
        made = _select(text, tables[:1], known)
    elif wanted == "update":
        made = _update(text, tables[:1], known)
    else:
        made = _delete(text, tables[:1], known)
    return (made, Span(start=0, end=written)) if made else None


# The statements that change rows: one asked for is never made as another ("change his city"
# is no INSERT).
ROW_CHANGES = ("insert", "update", "delete")


def row_change_asked(text: str) -> str | None:
    """The change of rows the clause asks for ("update", "insert", "delete"), if any."""
    kind = _kind(text)
    return kind if kind in ROW_CHANGES else None


_UPDATING = (
    r"\b(?:update|set|change|modify|edit|replace|correct|fix|adjust|reduce|raise|increase|"
    rf"decrease|knock)\b|\s{ARROW}\s*\w"
)


# A table asked for: "create a new table called suppliers", "set up a categories table", "new
# table shipments:"; not "a new email address ... in the users table".
_CREATING = re.compile(
    r"\b(?:create|make|add|set\s+up|new)\s+(?:(?:a|an|the|one)\s+)?(?:new\s+)?"
    r"(?:[\"'“]?\w+[\"'”]?\s+)?(?:table|tbl)\b"
)


def _kind(text: str) -> str:
    """The statement the clause's verb asks for: a change it does not spell out is no read
    ("update Emma's city in the users table")."""
    lowered = text.lower()
    if _CREATING.search(lowered) and _create(text):
        return "create"
    # "correct the price of the Keyboard order": an update, never a read instead; "carla reyes
    # → email + city?" asks for those
    asked = lowered.rstrip().endswith("?")
    said = re.sub(rf"\s{ARROW}", " ", lowered) if asked else lowered
    if re.search(_UPDATING, said) or _RENAMED.search(text):
        return "update"
    if _DELETE.search(text):
        return "delete"
    if re.search(
        r"\b(?:add(?!\s+up\b)|insert|new\s+row|put|store|save)\b|^\W*(?:please\s+)?record\b"
        r"|\benter\s+(?:it|that|this|them|a|an|the)\b"  # "enter that order in the orders table"
        r"|\brecord\s+(?:a|an)\s"  # "could you record a new order for her"
        r"|\brecord\s+(?:it|them|that|this)\s+(?:in|into|to)\s"  # "record it in the orders table"
        # "new user: Farah Haddad, farah@x.org, Marseille", "new order for Carla Reyes: ..."
        r"|^\W*(?:a\s+)?new\s+\w+(?:\s+for\s+[^:]{1,60})?\s*:",
        lowered,
    ) or gives_a_row(text):
        return "insert"
    if re.search(r"\b(?:drop|truncate|alter|rename|clear|empty|wipe)\b", lowered):
        return "other"  # a change made here never: no statement at all
    return "select"


def _table(text: str, held: list[str], *, into: bool = False) -> str | None:
    for match in _TABLE.finditer(text):
        name = match["a"] or match["b"] or match["c"] or match["d"]
        if _plain(name):
            return name
    into_table = _INTO.search(text) if into else None
    # "... a monitor arm to go with her laptop stand: record an order": a table held first
    if into_table and _plain(into_table["a"]) and (not held or into_table["a"] in held):
        return into_table["a"]
    return held[0] if held else None


def _plain(name: str) -> bool:
    return name.isidentifier() and name.lower() not in _NOT_TABLES | _SQL_WORDS


def sql_literal(value: str) -> str:
    """The value as an SQL literal: a number as written, anything else a quoted string."""
    value = value.strip()
    if re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        return value
    if len(value) > 1 and (value[0] + value[-1]) in ("''", '""', "“”"):
        value = value[1:-1]
    return "'" + value.replace("'", "''") + "'"


# "whose amount is over 100", "with a rating of at least 4": a column compared with a number.
_OPERATORS = {
    ">": r"greater\s+than|more\s+than|higher\s+than|over|above",
    ">=": r"at\s+least",
    "<": r"less\s+than|lower\s+than|under|below",
    "<=": r"at\s+most",
}
_COMPARISON = re.compile(
    rf"\b(?:whose|where|with|have|has)\s+(?:an?\s+|the\s+)?(?P<c>{_IDENT})\s+(?:is\s+|of\s+)?"
    rf"(?P<op>{'|'.join(_OPERATORS.values())})\s+(?P<v>-?\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)


# "a rating of 1 or 2", "with a rating of 2 or lower": a column and two numbers, or a bound.
_EITHER = re.compile(
    rf"\b(?P<c>{_IDENT})\s+(?:of|is|=)\s+(?P<a>-?\d+(?:\.\d+)?)\s+or\s+"
    r"(?:(?P<b>-?\d+(?:\.\d+)?)\b|(?P<bound>lower|less|below|fewer|higher|more|above)\b)",
    re.IGNORECASE,
)


# "every order under 10 dollars": a bound said of the rows themselves, of their one amount.
_BOUND = re.compile(
    rf"\b(?P<op>{'|'.join(_OPERATORS.values())})\s+[$€£]?(?P<v>\d+(?:\.\d+)?)\b", re.IGNORECASE
)


# "orders with an amount between 20 and 50": a range, its ends included.
_BETWEEN = re.compile(
    rf"(?:\b(?:whose|where|with|have|has)\s+(?:an?\s+|the\s+)?(?P<c>{_IDENT})\s+(?:is\s+|of\s+)?)?"
    r"\bbetween\s+[$€£]?(?P<a>-?\d+(?:\.\d+)?)\s+and\s+[$€£]?(?P<b>-?\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)


def _where(text: str, amount: str | None = None) -> str | None:
    """' WHERE city = 'Lyon'', '' without a condition, None for one that cannot be read; a
    bound no column is named for is of the table's one `amount` column, if it has one."""
    if (between := _BETWEEN.search(text)) and (
        column := between["c"] if between["c"] and _plain(between["c"]) else amount
    ):
        return f" WHERE {column} BETWEEN {between['a']} AND {between['b']}"
    if (either := _EITHER.search(text)) and _plain(either["c"]):
        if either["b"]:
            return f" WHERE {either['c']} IN ({either['a']}, {either['b']})"
        below = either["bound"].lower() in ("lower", "less", "below", "fewer")
        return f" WHERE {either['c']} {'<=' if below else '>='} {either['a']}"
    if (compared := _COMPARISON.search(text)) and _plain(compared["c"]):
        said = compared["op"].lower()
        op = next(o for o, words in _OPERATORS.items() if re.fullmatch(words, said))
        return f" WHERE {compared['c']} {op} {compared['v']}"
    if amount and (bound := _BOUND.search(text)):
        said = bound["op"].lower()
        op = next(o for o, words in _OPERATORS.items() if re.fullmatch(words, said))
        return f" WHERE {amount} {op} {bound['v']}"
    match = _CONDITION.search(text)
    if not match:
        return ""
    column = match["c1"] or match["c2"] or match["c3"]
    value = match["v1"] or match["v2"] or match["v3"]
    return f" WHERE {column} = {sql_literal(value)}" if _plain(column) else None


def _select(text: str, held: list[str], known: Known) -> str | None:
    if joined := _join(text, known):
        return joined
    table = _table(text, held)
    where = _where(text, _one_amount(table, known) if table else None)
    if not table or where is None:
        return None
    columns = known.columns.get(table, ())
    if where and columns and where.split()[1] not in columns:
        return None  # "the customer with order 5": orders has no column "order"
    if grouped := _grouped(text, table, columns):
        return grouped
    where = where or _where_by_kind(columns, known.values) or _row_by_id(text, table)
    where = where or _named_row(text, table, known)
    column = _column(text, table) or _one_said(text, columns) or _one_amount(table, known)
    what, order = "*", ""
    if _COUNT.search(text):
        what = "COUNT(*)"
    elif column and _plain(column):
        for function, words in _AGGREGATES.items():
            if not re.search(rf"\b(?:{words})\b", text, re.I):
                continue
            if function in _ORDERS and _WHICH_ROW.search(text):
                order = f" ORDER BY {column} {_ORDERS[function]} LIMIT 1"
            else:
                what = f"{function}({column})"
            break
    # "the Keyboard order": a row said by a value of its own, not by whom it references
    own = [(k, v) for k, v in known.values if not _names_a_row(text, v, table)]
    return _with_names(table, what, where, order, replace(known, values=own)) or (
        f"SELECT {what} FROM {table}{where}{order}"
    )


def _names_a_row(text: str, value: str, table: str) -> bool:
    """Whether the text says the value right before the table's noun or "row" ("the Keyboard
    order", "the USB-C cable row"), or as the thing bought ("who ordered the Monitor")."""
    noun = re.escape(row_noun(table))
    said = (
        rf"\b{re.escape(value)}\s+(?:{noun}|row|entry|record)\b|{_BOUGHT_THE}{re.escape(value)}\b"
    )
    return re.search(said, text, re.I) is not None


# "who ordered the Monitor": the thing bought, no one's name
_BUYING = r"\b(?:ordered|bought|purchased)\s+"
_BOUGHT_THE = rf"{_BUYING}(?:the|a|an)\s+"


def _one_amount(table: str, known: Known) -> str | None:
    """The one column of numbers a table has beside its ids: what "the average order" or "how
    much has Bob spent in total" is of (`amount` of orders)."""
    amounts = [c for c in known.numeric.get(table, ()) if c != "id" and not c.endswith("_id")]
    return amounts[0] if len(amounts) == 1 else None


def _with_names(table: str, what: str, where: str, order: str, known: Known) -> str | None:
    """The rows read with the name of the row each references ("feedback" and the name of
    its `user_id`'s user), found by that name when the clause gives it and the table itself
    has no column for it ("Alice Martin's review in feedback"); None when the table references
    no table with a name, or when neither is needed."""
    columns = known.columns.get(table, ())
    for column in columns:
        one = _referenced(column, [t for t in known.columns if t != table])
        if one is None or "name" not in known.columns[one]:
            continue
        theirs = "" if where else _where_by_kind(known.columns[one], known.values)
        if what != "*" and not theirs:
            return None
        ours = re.sub(r"\b(WHERE|BY) (\w+)", rf"\1 {table}.\2", f"{where}{order}")
        what = (
            f"{table}.*, {one}.name AS {column.removesuffix('_id')}_name"
            if what == "*"
            else (re.sub(r"\((\w+)\)", rf"({table}.\1)", what))
        )
        theirs = theirs.replace(" WHERE ", f" WHERE {one}.", 1)
        return f"SELECT {what} FROM {table} JOIN {one} ON {table}.{column} = {one}.id{theirs}{ours}"
    return None


# "which city has the most users", "the most common city": rows counted by a column's values.
_GROUPED = re.compile(
    rf"\b(?:which|what)\s+(?P<c>{_IDENT})\s+(?:has|have|had)\s+(?:the\s+)?(?:most|"
    r"(?:largest|highest|biggest|greatest)\s+number\s+of|fewest|least)\b"
    rf"|\bmost\s+(?:common|frequent|popular)\s+(?P<d>{_IDENT})\b",
    re.IGNORECASE,
)


def _grouped(text: str, table: str, columns: Sequence[str]) -> str | None:
    """The rows counted by each value of the column the clause groups them by, most first (all
    of them: a tie is shown, not cut)."""
    match = _GROUPED.search(text)
    said = (match["c"] or match["d"]).lower() if match else ""
    column = next((c for c in columns if said in (c, f"{c}s", f"{c}es") and c != "id"), None)
    if column is None:
        return None
    fewest = re.search(r"\b(?:fewest|least)\b", match[0] if match else "", re.I)
    direction = "ASC" if fewest else "DESC"
    return (
        f"SELECT {column}, COUNT(*) AS count FROM {table} GROUP BY {column} "
        f"ORDER BY count {direction}"
    )


# "which order has the lowest amount" asks for the row, "what is the lowest amount" the value.
# "which order has the lowest amount", "what's the cheapest thing anyone ordered": a row.
_WHICH_ROW = re.compile(
    r"\b(?:which|who)\b|\bwhat(?:['’]s|\s+is|\s+was)\s+the\s+[\w\s]{3,25}?\s+"
    r"(?:thing|item|one|order|product|row)\b",
    re.I,
)
_ORDERS = {"MAX": "DESC", "MIN": "ASC"}


def _join(text: str, known: Known) -> str | None:
    """ "every item Bob Chen has bought (users and orders tables)": of the tables the clause
    names, one whose column holds another's id (orders.user_id and users), read for the row of
    the other that the clause's value names; none when the first table takes the value itself."""
    named = [t for t in known.columns if re.search(rf"\b{re.escape(t)}\b", text, re.I)]
    conditions = _COMPARISON.search(text) or _CONDITION.search(text)
    if conditions or any(re.search(rf"\b(?:{w})\b", text, re.I) for w in _AGGREGATES.values()):
        return None  # a condition or a total over two tables is not spelled out here
    for many in named:
        for column in known.columns[many]:
            one = _referenced(column, named)
            if one is None or one == many or _where_by_kind(known.columns[many], known.values):
                continue
            on = f"{many}.{column} = {one}.id"
            # "the customer behind the Keyboard order": that order, with its customer's name
            if (own := _named_row(text, many, known)) and "name" in known.columns[one]:
                what = f"{many}.*, {one}.name AS {column.removesuffix('_id')}_name"
                where = own.replace(" WHERE ", f" WHERE {many}.", 1)
                return f"SELECT {what} FROM {many} JOIN {one} ON {on}{where}"
            if where := _where_by_kind(known.columns[one], known.values):
                what = "COUNT(*)" if _COUNT.search(text) else f"{many}.*"
                where = where.replace(" WHERE ", f" WHERE {one}.", 1)
                return f"SELECT {what} FROM {many} JOIN {one} ON {on}{where}"
    return None


def _referenced(column: str, tables: Sequence[str]) -> str | None:
    """The table a column holds the ids of, by its name: `user_id` and `users`."""
    base = column.removesuffix("_id")
    if base == column:
        return None
    return next((t for t in tables if t in (base, f"{base}s", f"{base}es")), None)


def _column(text: str, table: str) -> str | None:
    """The column the clause names: "orders.amount", "the amount column", "the amounts in the
    orders table" ("salaries": salary; "users in the users table" names no column)."""
    if dotted := next((m for m in _TABLE.finditer(text) if m["column"]), None):
        return str(dotted["column"])
    if named := _COLUMN.search(text):
        return str(named["c"])
    plural = _PLURAL_COLUMN.search(text)
    if not plural or plural["p"] == table:
        return None
    return re.sub(r"i$", "y", plural["c"])


def _insert(text: str, held: list[str], known: Known) -> str | None:
    text = text.rstrip(" .!?")
    read = None
    if READ_VALUE.search(text):  # "add an order ... at that price": a value read before
        if not known.read:
            return None  # not known here: the row is made once it is (planning/dataflow.py)
        read = _one_amount(_table(text, held, into=True) or "", known)
        text = READ_VALUE.sub("", text)
    table, found = _table(text, held, into=True), list(_PAIR.finditer(text))
    if not table:
        return None
    owner = _owner(text, table, known)
    if owner:  # the row's owner is no value of its own columns
        known = replace(known, values=[v for v in known.values if v[1] != owner[2]])
    # One list to the end of the clause: a value it cannot read ("city Dublin please") would
    # otherwise be left out of the row.
    whole = all(a.end() == b.start() for a, b in pairwise(found))
    pairs = [(m["c"], m["v"]) for m in found]
    if len(found) < 2 or not whole or found[-1].end() != len(text) or _left_out(pairs, known):
        columns = known.columns.get(table, ())
        listed = [c for c in columns if not owner or c != owner[0]]  # its owner found apart
        row = _row_by_columns(text, columns, known.values) or _row_in_order(
            text, listed, known.numeric.get(table, ()), owner[2] if owner else ""
        )
        pairs = list(row.items()) if row else []
    row = {c: sql_literal(v) for c, v in pairs}
    if owner and owner[0] not in row:
        row[owner[0]] = owner[1]
    thing = _OF_A_THING.search(text) or _BOUGHT.search(text)
    if thing and (column := _one_text(table, known)) and column not in row:
        row[column] = sql_literal(thing["v"])  # "an order for user 3 of a Baguette"
    price = _PRICE.search(text)
    if price and (column := _one_amount(table, known)) and column not in row:
        row[column] = price["v"]  # "bought a mouse pad for 9.99"
    if read and read not in row:
        row[read] = known.read
    if len(row) < 2 or len(row) < len(pairs) or not all(_plain(c) for c in row):
        return None
    if (known_columns := known.columns.get(table)) and any(c not in known_columns for c in row):
        return None  # "with their name, email and city" names columns, gives no values
    return f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join(row.values())})"


# A price paid: "for 9.99", "at $12" (a currency or cents: "for 2" may be a count).
# "at 10.30" may be a time: after "at", a currency only.
_PRICE = re.compile(
    r"\b(?:(?:for|costing)\s+(?:[$€£]|(?=\d+\.\d{2}\b))|at\s+[$€£])(?P<v>\d+(?:\.\d+)?)(?![\w.%]|:\S)",
    re.IGNORECASE,
)
_OF_A_THING = re.compile(r"\bof\s+(?:a|an|one)\s+(?-i:(?P<v>[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*))")
# "Dmitri Volkov ordered a USB hub for 19.90": the thing bought, up to its price
_BOUGHT = re.compile(
    rf"{_BUYING}(?:a|an|one)\s+(?P<v>[\w-]+(?:\s+[\w-]+){{0,3}}?)(?=\s+(?:for|at|costing)\s+[$€£]?\d)",
    re.IGNORECASE,
)


def thing_added(text: str) -> str | None:
    """What a row to add is of, as the clause writes it: the one text it quotes ("with the item
    'Carrot cake'"), else the name after "of a" ("an order of a Baguette")."""
    quoted = quoted_in(text)
    if len(quoted) == 1:
        return quoted[0].value
    thing = _OF_A_THING.search(text)
    return thing["v"] if thing and not quoted else None


def _one_text(table: str, known: Known) -> str | None:
    """The one column of a table that holds neither numbers, ids, names nor e-mail addresses
    (an order's `item`), if it has one."""
    numeric = set(known.numeric.get(table, ()))
    texts = [
        c
        for c in known.columns.get(table, ())
        if c not in numeric and c != "id" and not c.endswith("_id")
        if not _takes(c, "name") and not _takes(c, "email")
    ]
    return texts[0] if len(texts) == 1 and numeric else None


def _owner(
    text: str, table: str, known: Known, *, owned: bool = False
) -> tuple[str, str, str] | None:
    """The row's reference to the one it is for ("an order for user 3", "a new order for Alice
    Martin", "for her" after her name) or, `owned`, whose it is ("Alice Martin's feedback", "her
    feedback" after her name): the column that holds ids of another table, the SQL of its value
    (the id written, or the id of the row of that name) and the value as written."""
    tables = list(known.columns)
    names = [value for kind, value in known.values if kind == "name"]
    # Whose rows: all of them, by the table's own word ("Alice's feedback", "her orders"); one
    # row of several ("her order") is asked for, never guessed
    rows = rf"(?:\s+\w+)?\s+{re.escape(table)}\b"
    for column in known.columns.get(table, ()):
        if (one := _referenced(column, tables)) is None:
            continue
        noun = re.escape(row_noun(one))
        if numbered := re.search(rf"\bfor\s+{noun}\s+(?:id\s+|#)?(?P<id>\d+)\b", text, re.I):
            return column, numbered["id"], numbered["id"]
        whose = [
            rf"\b{re.escape(n)}['’]s{rows}" if owned else _FOR.format(re.escape(n)) for n in names
        ]
        named = [n for n, said in zip(names, whose, strict=True) if re.search(said, text)]
        pointed = rf"\b(?:his|her|their){rows}" if owned else r"\bfor\s+(?:him|her|them)\b"
        if not named and len(names) == 1 and re.search(pointed, text):
            named = names  # "Alice Martin bought a monitor arm: record an order for her"
        by_name = [c for c in known.columns.get(one, ()) if _takes(c, "name")]
        if len(named) == 1 and len(by_name) == 1:
            found = f"(SELECT id FROM {one} WHERE {by_name[0]} = {sql_literal(named[0])})"
            return column, found, named[0]
    return None


# Whom a new row is for: "an order for Alice Martin", "feedback from Emma Schultz", "Emma
# Schultz emailed us a review: store it in feedback" (who did what the row records).
_FOR = (
    r"\b(?:for|from|by)\s+{0}\b|^\W*{0}\s+(?:has\s+)?(?:[a-z]+(?:ed|s)|bought|paid|got)\b"
    r"|:\s*{0}\s*(?:,|\s/\s)"  # "add to orders: Dmitri Volkov, 'USB hub', 19.90": whose first
)


def _left_out(pairs: list[tuple[str, str]], known: Known) -> bool:
    """Whether a value the clause gives is in none of the listed pairs ("add Fay Berg to staff
    with email f@b.org and salary 12": Fay Berg)."""
    return any(not any(value in v for _, v in pairs) for _, value in known.values)


# The columns a value of each kind goes to, by the words of their names.
_COLUMNS_FOR = {"email": {"email", "mail"}, "place": {"city", "town", "country", "location"}}
_COLUMNS_FOR["name"] = {"name"}


def _takes(column: str, kind: str) -> bool:
    """Whether a value of this kind goes to the column, by the words of its name."""
    return bool(set(re.split(r"[_\W]+", column)) & _COLUMNS_FOR[kind])


def _row_by_columns(
    text: str, columns: Sequence[str], given: Sequence[tuple[str, str]]
) -> dict[str, str] | None:
    """A row from a table's known columns: each column the clause names with a value after it
    ("with email frank@x.org and city Dublin"), then each other value by its kind to the one
    column its kind goes to ("insert Frank O'Neil (frank@x.org) from Dublin into users"). None
    unless every value the clause gives finds its column: a value left out is a wrong row."""
    row: dict[str, str] = {}
    for column in columns:
        # "an amount of 9", "the item name 'Mouse pad'"
        said = rf"\b{re.escape(column)}(?:\s+name)?\s*(?::\s*|=\s*|\s+(?:of\s+)?)"
        after = re.search(rf"{said}(?P<v>{_STRICT_VALUE})", text)
        if after and column != "id":
            row[column] = after["v"]
    for kind, value in given:
        if value in row.values():
            continue
        free = [c for c in columns if c not in row and _takes(c, kind)]
        if len(free) != 1:
            return None
        row[free[0]] = value
    return row


def _row_in_order(
    text: str, columns: Sequence[str], numeric: Sequence[str] = (), owner: str = ""
) -> dict[str, str] | None:
    """ "new user: Farah Haddad, farah@x.org, Marseille": the values listed after a colon in
    the order of the table's columns (its id left out), one each, an e-mail address only for
    the column that takes one, a number only for a column of numbers when those are known
    ("new order for Carla Reyes: 'Mouse pad', 9.99")."""
    listed = re.search(r":\s*(?P<list>[^:]+)$", text)
    named = [c for c in columns if c != "id"]
    items = list_items(re.sub(r"\s+/\s+", ", ", listed["list"])) if listed else []
    values = [_SCORED.sub(r"\1", v) for v in items if v != owner]
    labelled = _labelled(values, named)  # "name Liam O'Brien, email l@x.ie, city Dublin"
    if labelled:
        values, named = list(labelled.values()), list(labelled)
    if not named or len(values) != len(named):
        return None
    row = dict(zip(named, values, strict=True))
    if any(("@" in value) != _takes(column, "email") for column, value in row.items()):
        return None
    if numeric and any(bool(_NUMBER.fullmatch(v)) != (c in numeric) for c, v in row.items()):
        return None
    return row


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# A score said with its scale: "3 stars", "4/5", "8 points" is the number.
_SCORED = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:stars?|points?|/\s*\d+)$", re.IGNORECASE)


def _labelled(values: Sequence[str], columns: Sequence[str]) -> dict[str, str]:
    """Each listed value by the column it opens with ("city Dublin"), if every one opens with
    a different column; else nothing."""
    row = {}
    for value in values:
        label = re.match(r"(\w+)\s*[:=]?\s+(\S.*)$", value)
        if label is None or label[1].lower() not in columns or label[1].lower() in row:
            return {}
        row[label[1].lower()] = label[2]
    return row


def _one_said(text: str, columns: Sequence[str]) -> str | None:
    """The one known column the clause names, if one: "the total order amount" and `amount`."""
    said = [c for c in columns if c != "id" and re.search(rf"\b{re.escape(c)}\b", text, re.I)]
    return said[0] if len(said) == 1 else None


def _where_by_kind(columns: Sequence[str], given: Sequence[tuple[str, str]]) -> str:
    """' WHERE name = 'Carla Reyes'' for "what's Carla Reyes's email?": the one value the clause
    gives, in the one column its kind goes to; '' if either is not one."""
    if len(given) != 1:
        return ""
    kind, value = given[0]
    columns = [c for c in columns if _takes(c, kind)]
    return f" WHERE {columns[0]} = {sql_literal(value)}" if len(columns) == 1 else ""


def _update(text: str, held: list[str], known: Known) -> str | None:
    text = text.rstrip(" .!?")
    match = next((m for pattern in _UPDATES if (m := pattern.search(text))), None)
    table = _table(text, held)
    if not table:
        return None
    if match and _plain(match["c"]):
        return (
            f"UPDATE {table} SET {match['c']} = {sql_literal(match['v'])} WHERE id = {match['id']}"
        )
    if (renamed := _RENAMED.search(text)) and _plain(renamed["c"]):
        column, old, new = renamed["c"], sql_literal(renamed["old"]), sql_literal(renamed["new"])
        return f"UPDATE {table} SET {column} = {new} WHERE {column} = {old}"
    return (
        _update_by_id(text, table, known)
        or _update_by_kind(text, table, known)
        or _update_replaced(text, table, known)
        or _update_by_percent(text, table, known)
    )


# "knock 10% off", "gets 10% off", "reduce ... by 10%", "raise ... by 5 percent"
_SHARE = r"\d+(?:\.\d+)?"
_PERCENT = r"\s*(?:%|\s+percent\b)"
_BY_PERCENT = re.compile(
    rf"\b(?P<off>{_SHARE}){_PERCENT}\s+off\b"
    rf"|\b(?:reduce|lower|cut|decrease|discount)\b[^%]*?\bby\s+(?P<down>{_SHARE}){_PERCENT}"
    rf"|\b(?:raise|increase)\b[^%]*?\bby\s+(?P<up>{_SHARE}){_PERCENT}",
    re.IGNORECASE,
)


def _update_by_percent(text: str, table: str, known: Known) -> str | None:
    """ "every order over 100 gets 10% off": the one amount column, scaled, in the rows the
    condition keeps; none without a condition (every row of a table is no change to guess)."""
    said = _BY_PERCENT.search(text)
    column = _one_said(text, known.numeric.get(table, ())) or _one_amount(table, known)
    where = _where(text, column) if said and column else None
    if not said or not column or not where:
        return None
    percent = float(said["off"] or said["down"] or said["up"]) / 100
    factor = f"{1 + percent if said['up'] else 1 - percent:g}"
    return f"UPDATE {table} SET {column} = {column} * {factor}{where}"


def _update_by_id(text: str, table: str, known: Known) -> str | None:
    """ "emma schultz (user 5): city -> Hamburg": the one column named with the value written
    for it (`_written`), in the row said by its number."""
    column = _one_said(text, known.columns.get(table, ()))
    written = _written(column, text) if column else None
    where = _row_by_id(text, table)
    return (
        f"UPDATE {table} SET {column} = {sql_literal(written['v'])}{where}"
        if written and where
        else None
    )


def _update_replaced(text: str, table: str, known: Known) -> str | None:
    """ "order 8 should now show 59.90 instead of 64.50 ... update the amount": the one column
    named, in the row said by its number, from the one value it was to the one it becomes."""
    pairs = replacements(text)
    column = _one_said(text, known.columns.get(table, ()))
    where = _row_by_id(text, table)
    if len(pairs) != 1 or not column or not where:
        return None
    old, new = (sql_literal(value.value) for value in pairs[0])
    return f"UPDATE {table} SET {column} = {new}{where} AND {column} = {old}"


# "rename the item "USB-C cable" to "USB-C cable (2m)"": a column's value, both quoted.
_QUOTED_VALUE = r"'[^']+'|\"[^\"]+\"|“[^”]+”"
_RENAMED = re.compile(
    rf"\b(?:rename|change|update)\s+(?:the\s+)?(?P<c>{_IDENT})\s+(?P<old>{_QUOTED_VALUE})\s+"
    rf"(?:to|into)\s+(?P<new>{_QUOTED_VALUE})",
    re.IGNORECASE,
)


def _said_new(column: str, value: str, text: str) -> bool:
    col, said = re.escape(column), re.escape(value)
    return (
        re.search(
            rf"\bnew\s+{col}\w*(?:\s+address)?\W+(?:is\s+)?{said}"
            rf"|\b{col}\w*(?:\s+address)?\s+is\s+now\s+{said}",
            text,
            re.IGNORECASE,
        )
        is not None
    )


def _update_by_kind(text: str, table: str, known: Known) -> str | None:
    """An update of a row found by what the clause names it ("set city = Hamburg for Emma
    Schultz in users", "Emma Schultz moved to Hamburg, update her city in the users table"): the
    one column it names (or the one its new value's kind goes to), set to the value written
    after "=" or a "to" that fits the column's kind, in the row of the other value, by its name
    (or its e-mail address). None unless each is one: a guessed row is a wrong change, and a
    name and a place are easily confused."""
    columns = known.columns.get(table, ())
    given = {value: kind for kind, value in known.values}
    # "moved from Toronto to Vancouver": the value it was keeps the change to the row that has it
    # ("moved toronto → vancouver" too)
    was = [
        v
        for v in given
        # (not "... is now e@x.org → users": where it is kept)
        if re.search(
            rf"\bfrom\s+{re.escape(v)}\s+to\s"
            rf"|(?<![\w-]){re.escape(v)}\s*{ARROW}(?!\s*(?:the\s+)?{re.escape(table)}\b)",
            text,
        )
    ]
    was_kind = given[was[0]] if len(was) == 1 else ""
    given = {v: k for v, k in given.items() if v not in was[:1]}
    said = _one_said(text, columns)
    column = said or _one_taking(text, columns, given)
    if column and was_kind and len(given) == 1:
        return _renamed(text, table, column, (was[0], was_kind), given)
    if not column or len(given) != 2 or len(was) > 1:
        return None
    written = _written(column, text)
    # "change her name to Alice Martin-Dubois": a name said after "to" may read as a place
    kinds = {"place", "name"} if said and _takes(column, "name") else set()
    after_to = [
        v for v, k in given.items() if (_takes(column, k) or k in kinds) and _after_to(v, text)
    ]
    # "her new email address, e@x.org", "his email is now e@x.org": the value it becomes
    fresh = [v for v, k in given.items() if _takes(column, k) and _said_new(column, v, text)]
    new = written["v"] if written and written["v"] in given else next(iter(after_to), None)
    new = new or (fresh[0] if len(fresh) == 1 else None)
    if new is None or len(after_to) > 1:
        return None
    row = next(v for v in given if v != new)
    if given[row] not in ("name", "email") and not (written and len(row.split()) > 1):
        return None  # "from Graz to Vienna": a place is no row's name
    kind = "email" if given[row] == "email" else "name"
    # "change her name to Alice Martin-Dubois": a row found by the value it changes
    where = [c for c in columns if c != column and _takes(c, kind)] or [
        c for c in (column,) if _takes(c, kind)
    ]
    if len(where) != 1:
        return None
    before = f" AND {column} = {sql_literal(was[0])}" if was else ""
    return (
        f"UPDATE {table} SET {column} = {sql_literal(new)} "
        f"WHERE {where[0]} = {sql_literal(row)}{before}"
    )


def _renamed(
    text: str, table: str, column: str, was: tuple[str, str], given: Mapping[str, str]
) -> str | None:
    """ "rename user alice martin → Alice Martin-Dubois": the row found by the name (or e-mail
    address) it changes, to the one value given after it; a place changed is every row's ("from
    Graz to Wels")."""
    (new, kind), (old, old_kind) = next(iter(given.items())), was
    if old_kind not in ("name", "email") or not _takes(column, old_kind):
        return None
    if not (_after_to(new, text) and _takes(column, kind)):
        return None
    return f"UPDATE {table} SET {column} = {sql_literal(new)} WHERE {column} = {sql_literal(old)}"


def _written(column: str, text: str) -> re.Match[str] | None:
    """The value written for the column: "city = Hamburg", "so her city is Seville", "city ->
    Hamburg", "moved -> city Seville" (not "whose city is Lyon", which finds the row)."""
    name = re.escape(column)
    said = (
        rf"\b{name}\s*(?:=|{ARROW}|\s(?:is|becomes|should\s+be)\s+(?:now\s+)?)\s*"
        rf"|{ARROW}\s*{name}\s+"
    )
    for match in re.finditer(rf"(?:{said})(?P<v>{_STRICT_VALUE})", text):
        if not re.search(r"\b(?:whose|where|with|when|if)\s+(?:the\s+)?$", text[: match.start()]):
            return match
    return None


def _one_taking(text: str, columns: Sequence[str], given: Mapping[str, str]) -> str | None:
    """The one column that takes the kind of the one value written after "to", when the clause
    names none ("Bob Chen moved to Vancouver, update the users table": city)."""
    after_to = [kind for value, kind in given.items() if _after_to(value, text)]
    taking = [c for c in columns if len(after_to) == 1 and _takes(c, after_to[0])]
    return taking[0] if len(taking) == 1 else None


# What a value becomes: "to Vancouver", "so her city is Seville", "is now Seville", "her new
# address is ...".
_BECOMES = (
    r"(?:to|becomes|is\s+now|should\s+be|so\s+(?:that\s+)?[\w'’ ]{1,40}?\s+is"
    r"|new\s+\w+(?:\s+\w+)?\s+is)"
)


def _after_to(value: str, text: str) -> bool:
    said = rf"(?:\b{_BECOMES}\s+|{ARROW}\s*){re.escape(value)}(?![\w-])"
    return re.search(said, text, re.IGNORECASE) is not None  # "→ vancouver": Vancouver


def row_noun(table: str) -> str:
    """What one row of the table is called: "order" of orders, "entry" of entries."""
    return re.sub(r"ies$", "y", table) if table.endswith("ies") else table.removesuffix("s")


def _row_by_id(text: str, table: str) -> str:
    """' WHERE id = 8' for "order 8", "order number 8", "id 8", "#8" in `orders`; else ""."""
    one = re.escape(row_noun(table))
    said = rf"\b(?:id|#|number|{one}(?:\s+(?:number|no\.?|id|#))?)\s*(?P<id>\d+)\b"
    row = re.search(said, text, re.I)
    return f" WHERE id = {row['id']}" if row else ""


def _delete(text: str, held: list[str], known: Known) -> str | None:
    table = _table(text, held)
    where = _where(text, _one_amount(table, known) if table else None)
    if not where and table:
        where = _row_by_id(text, table) or _named_row(text, table, known)
    if not where and table and (owner := _owner(text, table, known, owned=True)):
        where = f" WHERE {owner[0]} = {owner[1]}"  # "delete Alice Martin's feedback"
    if not where and table:
        where = _own_row(text, table, known) or _item_row(text, table, known)
    # A delete without a condition would empty the table: never read into a request.
    return f"DELETE FROM {table}{where}" if table and where else None


_OWN_ROW = r"['’]s\s+(?:\w+\s+)?(?:entry|row|record|account|profile)\b"  # "'s user row"


def _own_row(text: str, table: str, known: Known) -> str:
    """ "Emma Schultz's entry in the users table": the row of that name, in a table with one
    column for names; "" if none."""
    by_name = [c for c in known.columns.get(table, ()) if _takes(c, "name")]
    names = [v for kind, v in known.values if kind == "name"]
    named = [n for n in names if re.search(rf"\b{re.escape(n)}{_OWN_ROW}", text)]
    if len(by_name) != 1 or len(named) != 1:
        return ""
    return f" WHERE {by_name[0]} = {sql_literal(named[0])}"


def _item_row(text: str, table: str, known: Known) -> str:
    """ "Carla Reyes has cancelled her order for the notebook: remove that order", "carla reyes
    cancelled the notebook, delete that order": the row of that thing in its one text column
    (as written, in any case), of the one person whose it is; "" unless both are known."""
    noun = re.escape(row_noun(table))
    thing = re.search(rf"\b{noun}\s+(?:for|of)\s+(?:the|a|an)\s+{_THING}", text, re.I)
    thing = thing or re.search(
        rf"\b(?:cancel(?:l?ed)?|returned|refunded)\s+the\s+{_THING}", text, re.I
    )
    column = _one_text(table, known)
    owner = _owner(text, table, known)
    if not thing or not column or not owner:
        return ""
    said = sql_literal(thing["v"].lower())
    return f" WHERE LOWER({column}) = {said} AND {owner[0]} = {owner[1]}"


_THING = r"(?P<v>[\w-]+(?:\s+[\w-]+){0,2}?)(?=\s*(?:[.,;:!?]|$|\s+(?:from|in|please)\b))"


def _named_row(text: str, table: str, known: Known) -> str:
    """ "the Notebook order", "who ordered the Monitor": the row whose one text column (not a
    name, nor an e-mail address) holds those capitalised words; "" if none or several."""
    name = r"(?-i:[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)"
    named = re.search(rf"\bthe\s+(?P<v>{name})\s+{re.escape(row_noun(table))}\b", text, re.I)
    named = named or re.search(rf"{_BOUGHT_THE}(?P<v>{name})", text)
    numeric = set(known.numeric.get(table, ()))
    texts = [
        c
        for c in known.columns.get(table, ())
        if c not in numeric
        and c != "id"
        and not c.endswith("_id")
        and not any(_takes(c, kind) for kind in _COLUMNS_FOR)
    ]
    if named is None or len(texts) != 1:
        return ""
    return f" WHERE {texts[0]} = {sql_literal(named['v'])}"


_CONSTRAINTS = {  # what a column's words may say of it, as SQL ("required" is NOT NULL)
    "PRIMARY KEY": re.compile(r"\bprimary\s+key\b|\bpk\b", re.I),
    "NOT NULL": re.compile(
        r"\b(?:not\s+null|non-?\s?null|required|mandatory|(?:can[’']?t|cannot|may\s+not|must"
        r"\s+not)\s+be\s+(?:null|empty))\b",
        re.I,
    ),
    "UNIQUE": re.compile(r"\bunique\b", re.I),
}
# Words of a column's phrase that are neither its name, its type nor a constraint.
_COLUMN_FILLER = re.compile(
    r"\b(?:a|an|the|and|plus|with|columns?|fields?|called|named|as|that|which|for|its|of|type|"
    rf"{'|'.join(sorted(NUMBER_WORDS))}|\d+)\b|[():,;.?!]",  # "with three columns: ..."
    re.I,
)
# What no column is called: "update it in the users table for me" makes no table.
_NO_COLUMNS = {"me", "us", "it", "you", "him", "her", "them", "please", "this", "there"}
_IN_ORDER = re.compile(r"^\W*in\s+(?:that|this|the\s+same)\s+order\W*$", re.I)
_NEW_TABLE = (  # "a table called codes", "a categories table", a table "for suppliers"
    re.compile(rf"\btable\s+(?:called|named)\s+[\"'“]?(?P<t>{_IDENT})", re.I),
    re.compile(rf"\btable\s+[\"'“](?P<t>{_IDENT})[\"'”]", re.I),
    re.compile(rf"\b(?:a|an|the)\s+(?:new\s+)?(?P<t>{_IDENT})\s+table\b", re.I),
    re.compile(rf"\btable\b[^,:;]*?\bfor\s+(?:the\s+)?(?P<t>{_IDENT})", re.I),
    re.compile(rf"\b(?:table|tbl)\s+(?P<t>{_IDENT})", re.I),
)
_NOT_NEW_TABLES = {"with", "in", "for", "of", "to", "on", "that", "which", "called", "named"}


def _new_table(text: str) -> tuple[str, int] | None:
    """The name of the table to create and where its columns start."""
    for pattern in _NEW_TABLE:
        match = pattern.search(text)
        if match and _plain(match["t"]) and match["t"].lower() not in _NOT_NEW_TABLES:
            return match["t"], match.end()
    return None


_IN_THE_DATABASE = re.compile(
    r"^\s*(?:to|in|into)\s+(?:the|my|our|this)\s+(?:database|db)\b", re.IGNORECASE
)


def _create(text: str) -> str | None:
    """ "a categories table with an integer primary key called id and a required text column
    called label": `CREATE TABLE categories (id INTEGER PRIMARY KEY, label TEXT NOT NULL)`.
    Each column's phrase must leave one word for its name, else no statement at all; a type
    is the one said, none when none is ("a country column")."""
    if (table := _new_table(text)) is None:
        return None
    name, end = table
    # "add a wishlist table to the database, with ...": where it goes is no column
    rest = _IN_THE_DATABASE.sub("", text[end:])
    # "create tbl returns (id int pk, reason text)": the columns listed in brackets
    listed = re.match(r"\s*\((?P<inside>[^()]*(?:\([^()]*\)[^()]*)*)\)\W*$", rest)
    parts = re.split(
        r"[,;]\s*(?:and\s+|plus\s+)?|\s+(?:and|plus)\s+",
        listed["inside"] if listed else _outside_brackets(rest),
    )
    columns = [
        _column_made(part) for part in parts if part.strip(" .:!?") and not _IN_ORDER.match(part)
    ]
    if not columns or None in columns:
        return None
    return f"CREATE TABLE {name} ({', '.join(c for c in columns if c)})"


def _column_made(said: str) -> str | None:
    """ "an integer id as the primary key": `id INTEGER PRIMARY KEY`."""
    words = said
    constraints = []
    for sql, pattern in _CONSTRAINTS.items():
        if pattern.search(words):
            constraints.append(sql)
            words = pattern.sub(" ", words)
    kind = re.search(rf"\b{_TYPES}", words, re.I)
    if kind:
        words = words[: kind.start()] + " " + words[kind.end() :]
    left = _COLUMN_FILLER.sub(" ", words.replace("\0", ",")).split()
    named = left[0] if len(left) == 1 else ""
    if not _plain(named) or named.lower() in _NO_COLUMNS or re.fullmatch(_TYPES, named, re.I):
        return None
    typed = [_TYPE_NAMES.get(kind[0].lower(), kind[0].upper())] if kind else []
    return " ".join([named, *typed, *constraints])


def _outside_brackets(text: str) -> str:
    """The text with commas inside brackets hidden ("code (TEXT, the primary key)")."""
    depth, out = 0, []
    for char in text:
        depth += (char == "(") - (char == ")")
        out.append("\0" if char == "," and depth > 0 else char)
    return "".join(out)
