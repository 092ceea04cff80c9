"""SQL statements a clause spells out (language/sql.py), run on a real SQLite database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from toolweave.language.parameters import sql_kinds
from toolweave.language.sql import Known, statement, with_references
from toolweave.types import Span


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.executescript(
        """
        CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT, town TEXT, salary REAL);
        INSERT INTO staff (name, town, salary) VALUES
            ('Ana Lima', 'Porto', 30.5), ('Ben Ode', 'Graz', 20), ('Cy Park', 'Porto', 10);
        """
    )
    yield connection
    connection.close()


def made(text: str, kinds: tuple[str, ...] | None = None) -> str | None:
    found = statement(text, kinds) if kinds else statement(text)
    return found[0] if found else None


def test_a_read_with_a_condition_keeps_the_rows_asked_for(db: sqlite3.Connection) -> None:
    for text in (
        "who in the staff table has Porto as their town?",
        "list everyone in the staff table whose town is Porto",
    ):
        sql = made(text)
        assert sql == "SELECT * FROM staff WHERE town = 'Porto'"
        assert [row[1] for row in db.execute(sql)] == ["Ana Lima", "Cy Park"]


def test_aggregates_over_a_named_column(db: sqlite3.Connection) -> None:
    assert db.execute(made("add up the salary column of staff") or "").fetchone() == (60.5,)
    assert made("what is the highest staff.salary?") == "SELECT MAX(salary) FROM staff"
    assert made("how many rows does the staff table have") == "SELECT COUNT(*) FROM staff"
    # A column by its plural: "the salaries in the staff table".
    assert db.execute(made("what do the salaries in the staff table add up to?") or "").fetchone()
    assert made("the total of all the staff salaries in the staff table") == (
        "SELECT SUM(salary) FROM staff"
    )
    # No column named: the whole table, for the answer to read; the table is no column.
    assert made("what is the total pay in the staff table?") == "SELECT * FROM staff"
    assert made("the average age of staffs in the staffs table") == "SELECT * FROM staffs"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("which rows of the staff table have a salary over 20?", "salary > 20"),
        ("staff whose salary is less than 12.5 in the staff table", "salary < 12.5"),
        ("list the staff table rows with a salary of at least 15", "salary >= 15"),
        ("staff table rows that have a salary between 20 and 50", "salary BETWEEN 20 AND 50"),
    ],
)
def test_a_column_compared_with_a_number(text: str, where: str) -> None:
    assert made(text) == f"SELECT * FROM staff WHERE {where}"


def test_an_insert_copies_each_value_exactly(db: sqlite3.Connection) -> None:
    sql = made("put a row into the staff table: name Dara O'Hara, town Cork, salary 12.25")
    assert sql is not None
    db.execute(sql)
    row = db.execute("SELECT name, town, salary FROM staff WHERE town = 'Cork'").fetchone()
    assert row == ("Dara O'Hara", "Cork", 12.25)
    assert made("new row in staff - name: Eve Ng, email: eve.ng@example.org") == (
        "INSERT INTO staff (name, email) VALUES ('Eve Ng', 'eve.ng@example.org')"
    )
    # A value of several words runs to the next comma or "and"; "with" opens the list too.
    assert made("add a row to the staff table with name Lu, town Ban hoi and salary 3") == (
        "INSERT INTO staff (name, town, salary) VALUES ('Lu', 'Ban hoi', 3)"
    )


def test_update_delete_and_create(db: sqlite3.Connection) -> None:
    sql = made("in the staff table, set the salary for id 2 to 21.5")
    assert sql == "UPDATE staff SET salary = 21.5 WHERE id = 2"
    db.execute(sql)
    assert db.execute("SELECT salary FROM staff WHERE id = 2").fetchone() == (21.5,)
    assert made("remove the row with town Graz from the staff table") == (
        "DELETE FROM staff WHERE town = 'Graz'"
    )
    assert made("clear out the staff table rows with a salary below 10") == (
        "DELETE FROM staff WHERE salary < 10"
    )
    assert made("clear the staff table") is None  # every row: never read into a request
    # A row by the table's own word for one: "room 12" in the rooms table.
    assert made("drop room 12 from the rooms table") == "DELETE FROM rooms WHERE id = 12"
    sql = made("make a table named rooms with columns id (integer primary key) and floor (int)")
    assert sql == "CREATE TABLE rooms (id INTEGER PRIMARY KEY, floor INTEGER)"
    db.execute(sql)
    assert made("create a desks table with columns id (integer primary key), room (int)") == (
        "CREATE TABLE desks (id INTEGER PRIMARY KEY, room INTEGER)"
    )
    # Only a type and the constraints said: "the primary key", "required" as NOT NULL.
    said = "create a table called codes with columns: code (TEXT, the primary key) and pct"
    said += " (INTEGER, required)"
    assert made(said) == "CREATE TABLE codes (code TEXT PRIMARY KEY, pct INTEGER NOT NULL)"
    # Columns said in words: a name called, a type before it, "can't be null"; no type unsaid.
    said = "set up a categories table with an integer primary key called id and a required text"
    assert made(f"{said} column called label") == (
        "CREATE TABLE categories (id INTEGER PRIMARY KEY, label TEXT NOT NULL)"
    )
    said = "add a desks table to the database, with an integer primary key id and a required"
    assert made(f"{said} integer room") == (  # where the table goes is no column
        "CREATE TABLE desks (id INTEGER PRIMARY KEY, room INTEGER NOT NULL)"
    )
    said = "a new table in the database for suppliers: an integer id as the primary key, a name"
    sql = made(f"I need {said} that can't be null, and a country column.")
    assert sql == "CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name NOT NULL, country)"
    db.execute(sql or "")
    # A count of columns, "pk", "in that order" say nothing of a column.
    said = "new table ships: id int pk, carrier text"
    assert made(said) == "CREATE TABLE ships (id INTEGER PRIMARY KEY, carrier TEXT)"
    said = "create a table called ships with three columns: id (integer), day (text) and port"
    assert made(f"{said} (text), in that order.") == (
        "CREATE TABLE ships (id INTEGER, day TEXT, port TEXT)"
    )
    # A column's phrase that leaves more than its name makes no statement at all, nor does a
    # table only named after "new" ("a new email address ... the users table for me").
    assert made("create a table called prices with a cost that defaults to zero") is None
    said = "She has a new email address. Could you update it in the staff table for me, please?"
    assert statement(said, ("create",), Known(held=["staff"])) is None
    # A row by its id: "staff 3's salary"; an update written almost as SQL.
    for text in ("change staff 3's salary to 9", "update the staff table: salary = 9 where id = 3"):
        assert statement(text, known=Known(held=["staff"])) == (
            "UPDATE staff SET salary = 9 WHERE id = 3",
            Span(start=0, end=len(text)),
        )


@pytest.mark.parametrize(
    "text",
    [
        "delete everything from the staff table",  # no condition: it would empty the table
        "set the salary of Ana to 5",  # which table?
        "add a new person to the staff table",  # no values
        "select the people from Porto",  # no table named
        "insert Fay (fay@example.org) from Oslo into staff",  # values without their columns
        "add to the staff table: name Gus, town Cork please",  # a value it cannot read
        "update Ana Lima's town in the staff table",  # a change not spelled out is no read
        "drop the staff table",
    ],
)
def test_what_is_not_spelled_out_is_not_made(text: str) -> None:
    assert made(text) is None


def test_a_table_the_database_holds_is_named_without_the_word_table(
    db: sqlite3.Connection,
) -> None:
    """The names a clause gives of what the server holds (catalog/contents.py) name a table:
    "staff 2" is a row of `staff`; a name of a person is no table."""
    sql = statement("set the salary of staff 2 to 22", known=Known(held=["staff"]))
    assert sql is not None and sql[0] == "UPDATE staff SET salary = 22 WHERE id = 2"
    db.execute(sql[0])
    assert db.execute("SELECT salary FROM staff WHERE id = 2").fetchone() == (22,)
    assert statement("what is Bob's email?", known=Known(held=["Bob"])) is None
    assert (
        statement("set the salary of Ana to 5", known=Known(held=["staff"])) is None
    )  # which row?


def test_a_parameter_takes_the_statements_its_words_name() -> None:
    assert sql_kinds("query", {"description": "SELECT SQL query to execute"}) == ("select",)
    assert sql_kinds("sql", {"description": "A read-only statement"}) == ("select",)
    assert sql_kinds("query", {"description": "CREATE TABLE SQL statement"}) == ("create",)
    assert len(sql_kinds("query", {"description": "SQL query to execute"})) == 5
    assert sql_kinds("query", {"description": "Search words"}) == ()
    # A statement of another kind than the parameter takes is not made for it.
    assert made("add to the staff table: name Gil, town Faro", ("select",)) is None


def test_an_insert_by_the_tables_known_columns(db: sqlite3.Connection) -> None:
    """The columns sampled from the server (catalog/contents.py) place what the clause gives
    by kind, or by the column named before a value; a value no one column takes: no row."""
    db.execute("ALTER TABLE staff ADD COLUMN email TEXT")
    columns = {"staff": ["id", "name", "town", "salary", "email"]}
    given = [("email", "fay@example.org"), ("place", "Oslo"), ("name", "Fay Berg")]
    known = Known(held=["staff"], columns=columns, values=given)
    sql = made_with("insert Fay Berg (fay@example.org) from Oslo into staff", known)
    assert sql == (
        "INSERT INTO staff (email, town, name) VALUES ('fay@example.org', 'Oslo', 'Fay Berg')"
    )
    db.execute(sql)
    assert db.execute("SELECT name, town FROM staff WHERE email = 'fay@example.org'").fetchone()
    text = "add Fay Berg to the staff table with email fay@example.org and salary 12"
    known = Known(held=["staff"], columns=columns, values=[given[0], given[2]])
    assert made_with(text, known) == (
        "INSERT INTO staff (salary, email, name) VALUES (12, 'fay@example.org', 'Fay Berg')"
    )
    # A row for someone: values listed in the columns' order, a price said as one.
    orders = {"staff": ["id", "name"], "orders": ["id", "staff_id", "item", "amount"]}
    ana, numeric = [("name", "Ana Lima")], {"orders": ["amount"]}
    for_ana = Known(held=["orders"], columns=orders, values=ana, numeric=numeric)
    by_id = "(SELECT id FROM staff WHERE name = 'Ana Lima')"
    assert made_with("new order for Ana Lima: 'Mouse pad', 9.99", for_ana) == (
        f"INSERT INTO orders (item, amount, staff_id) VALUES ('Mouse pad', 9.99, {by_id})"
    )
    assert made_with("new order for Ana Lima: 9.99, 'Mouse pad'", for_ana) is None
    bought = "Ana Lima has bought a pad for 9.99, record it in the orders table with item name 'P'"
    assert made_with(bought, for_ana) == (
        f"INSERT INTO orders (item, staff_id, amount) VALUES ('P', {by_id}, 9.99)"
    )
    # Whose row and what of by the sentence before ("Ana Lima ordered a pad for 9.99"), or
    # listed first; never a name as the id of its row
    for text in (
        "Ana Lima ordered a Mouse pad for 9.99 by phone: could you enter that order in orders?",
        "Ana Lima bought a Mouse pad for 9.99: record it in the orders table",
        "add to orders: Ana Lima / Mouse pad / 9.99",
        "add to orders: Ana Lima, 'Mouse pad', 9.99",
    ):
        sql = made_with(text, for_ana)
        assert sql is not None and "'Mouse pad'" in sql and "9.99" in sql and by_id in sql
    # A row from someone, its text quoted, a score with its scale.
    reviews = {"staff": ["id", "name"], "reviews": ["id", "staff_id", "rating", "comment"]}
    scored = Known(held=["reviews"], columns=reviews, values=ana, numeric={"reviews": ["rating"]})
    assert made_with("reviews from Ana Lima: 3 stars, 'Slow.'", scored) == (
        f"INSERT INTO reviews (rating, comment, staff_id) VALUES (3, 'Slow.', {by_id})"
    )
    # Without the columns, or with a value no one column takes, nothing is made.
    assert made_with("insert Fay Berg (fay@example.org) from Oslo into staff", Known()) is None
    two_places = Known(columns={"staff": ["id", "name", "city", "country"]}, values=given[1:])
    assert made_with("insert Fay Berg from Oslo into staff", two_places) is None


def test_a_read_of_someone_named_by_the_column_their_kind_of_value_goes_to() -> None:
    columns = {"staff": ["id", "name", "town", "salary"]}
    named = Known(held=["staff"], columns=columns, values=[("name", "Fay Berg")])
    assert made_with("what's Fay Berg's salary?", named) == (
        "SELECT * FROM staff WHERE name = 'Fay Berg'"
    )
    placed = Known(held=["staff"], columns=columns, values=[("place", "Oslo")])
    assert made_with("how many staff work in Oslo?", placed) == (
        "SELECT COUNT(*) FROM staff WHERE town = 'Oslo'"
    )
    # The one known column it names is what a total or an average is of.
    assert made_with("total staff salary?", Known(held=["staff"], columns=columns)) == (
        "SELECT SUM(salary) FROM staff"
    )
    assert made_with(
        "the combined salary of all staff", Known(held=["staff"], columns=columns)
    ) == ("SELECT SUM(salary) FROM staff")
    assert made_with("staff salary, summed?", Known(held=["staff"], columns=columns)) == (
        "SELECT SUM(salary) FROM staff"
    )
    # Two values, or none with a column of their kind: no condition is guessed.
    two = Known(held=["staff"], columns=columns, values=[("name", "Fay Berg"), ("place", "Oslo")])
    assert made_with("is Fay Berg in Oslo?", two) == "SELECT * FROM staff"
    email = Known(held=["staff"], columns=columns, values=[("email", "f@b.org")])
    assert made_with("who has f@b.org?", email) == "SELECT * FROM staff"
    # A condition on a column the table does not have is no statement ("with order 5").
    assert made_with("the staff with town Graz", Known(held=["staff"], columns=columns)) == (
        "SELECT * FROM staff WHERE town = 'Graz'"
    )
    assert made_with("the staff with salary 5", Known(held=["staff"], columns=columns)) == (
        "SELECT * FROM staff WHERE salary = 5"
    )
    assert made_with("the customer with order 5", Known(held=["staff"], columns=columns)) is None


def made_with(text: str, known: Known) -> str | None:
    found = statement(text, known=known)
    return found[0] if found else None


def test_an_update_of_a_row_named_by_its_values(db: sqlite3.Connection) -> None:
    """The one column named, the one value of its kind, and the row by the other value's
    column; one value short, or a column of neither's kind, and nothing is made."""
    columns = {"staff": ["id", "name", "town", "salary"]}
    given = [("name", "Ana Lima"), ("place", "Graz")]
    known = Known(held=["staff"], columns=columns, values=given)
    for text in (
        "Ana Lima moved to Graz, please update her town in the staff table",
        "set town = Graz for Ana Lima in staff",
        "Ana Lima moved to Graz, update the staff table",  # the one column places go to
    ):
        sql = made_with(text, known)
        assert sql == "UPDATE staff SET town = 'Graz' WHERE name = 'Ana Lima'"
    for text in (
        "Ana Lima moved -> town Graz",
        "Ana Lima: town -> Graz",
        "Ana Lima moved porto → graz, update her town",  # terse; the place as written
    ):
        assert made_with(text, known) == sql
    email = Known(
        held=["staff"],
        columns={"staff": ["id", "name", "email"]},
        values=[("name", "Ana Lima"), ("email", "ana@new.example")],
    )
    assert made_with("Ana Lima's new address is ana@new.example, fix it in staff", email) == (
        "UPDATE staff SET email = 'ana@new.example' WHERE name = 'Ana Lima'"
    )
    # what it is now, said as new or now; an arrow to the table is where, no value it was
    for text in (
        "Ana Lima sent her new email address, ana@new.example: could you change it in staff?",
        "Ana Lima's email is now ana@new.example → staff",
    ):
        assert made_with(text, email) == (
            "UPDATE staff SET email = 'ana@new.example' WHERE name = 'Ana Lima'"
        )
    # A row said by its number: "ana lima (staff 2): town -> Graz".
    assert made_with(
        "ana lima (staff 2): town -> Graz", Known(held=["staff"], columns=columns)
    ) == ("UPDATE staff SET town = 'Graz' WHERE id = 2")
    db.execute(sql or "")
    assert db.execute("SELECT town FROM staff WHERE name = 'Ana Lima'").fetchone() == ("Graz",)
    # A name read as a place ("for Ana Lima") changes nothing: the value is the one after "=".
    confused = Known(
        held=["staff"], columns=columns, values=[("place", "Ana Lima"), ("name", "Graz")]
    )
    assert made_with("set town = Graz for Ana Lima in staff", confused) == (
        "UPDATE staff SET town = 'Graz' WHERE name = 'Ana Lima'"
    )
    assert made_with("update the town of Ana Lima in staff", confused) is None
    places = Known(held=["staff"], columns=columns, values=[("place", "Graz"), ("place", "Wels")])
    assert made_with("update the town from Graz to Wels in staff", places) is None  # no row name
    one = Known(held=["staff"], columns=columns, values=given[:1])
    assert made_with("update Ana Lima's town in the staff table", one) is None
    assert made_with("Ana Lima moved to Graz, update her salary in staff", known) is None
    # The value it was, said after "from", keeps the change to the row that still has it.
    moved = Known(held=["staff"], columns=columns, values=[*given, ("place", "Linz")])
    assert made_with("Ana Lima has moved from Linz to Graz, update her town in staff", moved) == (
        "UPDATE staff SET town = 'Graz' WHERE name = 'Ana Lima' AND town = 'Linz'"
    )
    # A row found by the value it changes: "rename staff Ana Lima → Ana Lima-Ode"
    renamed = Known(held=["staff"], columns=columns, values=[given[0], ("name", "Ana Lima-Ode")])
    assert made_with("rename staff Ana Lima → Ana Lima-Ode", renamed) == (
        "UPDATE staff SET name = 'Ana Lima-Ode' WHERE name = 'Ana Lima'"
    )
    two = Known(held=["staff"], columns=columns, values=[*moved.values, ("place", "Wels")])
    assert made_with("Ana Lima moved from Linz to Graz or Wels, update staff", two) is None


def test_a_row_listed_with_the_before_a_column_and_a_verb_that_records(
    db: sqlite3.Connection,
) -> None:
    known = Known(held=["staff"])
    for text in (
        "add a row to staff with name Gus, town Cork and the salary 7",
        "record some staff: name Gus, town Cork, salary 7",
        "add a row to staff with the following: name Gus, town Cork, salary 7",
    ):
        assert made_with(text, known) == (
            "INSERT INTO staff (name, town, salary) VALUES ('Gus', 'Cork', 7)"
        )


def test_which_row_has_the_most_is_the_row_not_the_value(db: sqlite3.Connection) -> None:
    known = Known(held=["staff"], columns={"staff": ["id", "name", "town", "salary"]})
    sql = made_with("in the staff table, which person has the lowest salary?", known)
    assert sql == "SELECT * FROM staff ORDER BY salary ASC LIMIT 1"
    assert db.execute(sql or "").fetchone()[1] == "Cy Park"
    lowest = made_with("what is the lowest salary in the staff table?", known)
    assert lowest == "SELECT MIN(salary) FROM staff"


def test_a_domain_names_no_table() -> None:
    known = Known(held=["staff"])
    assert "example" not in (made_with("who in staff has an address at example.com?", known) or "")
    assert "FROM backup" not in (made_with("copy notes.txt to notes-backup.txt", known) or "")


def test_two_tables_named_are_joined_by_the_id_one_holds(db: sqlite3.Connection) -> None:
    db.executescript(
        "CREATE TABLE shifts (id INTEGER PRIMARY KEY, staff_id INTEGER, day TEXT);"
        "INSERT INTO shifts (staff_id, day) VALUES (1, 'Mon'), (2, 'Tue'), (1, 'Fri');"
    )
    columns = {"staff": ["id", "name", "town", "salary"], "shifts": ["id", "staff_id", "day"]}
    known = Known(held=["staff", "shifts"], columns=columns, values=[("name", "Ana Lima")])
    sql = made_with("which days does Ana Lima work? (staff and shifts tables)", known)
    assert sql == (
        "SELECT shifts.* FROM shifts JOIN staff ON shifts.staff_id = staff.id"
        " WHERE staff.name = 'Ana Lima'"
    )
    assert [row[2] for row in db.execute(sql or "")] == ["Mon", "Fri"]
    counted = made_with("how many shifts does Ana Lima have? (staff and shifts tables)", known)
    assert counted == (
        "SELECT COUNT(*) FROM shifts JOIN staff ON shifts.staff_id = staff.id"
        " WHERE staff.name = 'Ana Lima'"
    )
    # One table named: no join is guessed.
    alone = Known(held=["staff"], columns={"staff": columns["staff"]}, values=known.values)
    assert made_with("Ana Lima's town in staff?", alone) == (
        "SELECT * FROM staff WHERE name = 'Ana Lima'"
    )


def test_a_value_renamed_and_a_table_named_in_quotes(db: sqlite3.Connection) -> None:
    sql = made('rename the town "Porto" to "Oporto" in the staff table')
    assert sql == "UPDATE staff SET town = 'Oporto' WHERE town = 'Porto'"
    db.execute(sql or "")
    assert [row[0] for row in db.execute("SELECT town FROM staff ORDER BY id")] == [
        "Oporto",
        "Graz",
        "Oporto",
    ]
    assert made('new table "desks": id integer primary key, room text not null') == (
        "CREATE TABLE desks (id INTEGER PRIMARY KEY, room TEXT NOT NULL)"
    )


def test_rows_that_reference_another_table_are_read_with_its_names(
    db: sqlite3.Connection,
) -> None:
    db.executescript(
        "CREATE TABLE shifts (id INTEGER PRIMARY KEY, staff_id INTEGER, day TEXT, hours REAL);"
        "INSERT INTO shifts (staff_id, day, hours)"
        " VALUES (1, 'Mon', 8), (2, 'Tue', 3), (1, 'Fri', 6);"
    )
    fields = {
        "staff": ["id", "name", "town", "salary"],
        "shifts": ["id", "staff_id", "day", "hours"],
    }
    columns = with_references(["shifts"], fields)
    assert columns == {"shifts": fields["shifts"], "staff": fields["staff"]}
    shortest = made_with("who has the lowest hours in shifts?", Known(["shifts"], columns))
    assert shortest == (
        "SELECT shifts.*, staff.name AS staff_name FROM shifts JOIN staff"
        " ON shifts.staff_id = staff.id ORDER BY shifts.hours ASC LIMIT 1"
    )
    assert list(db.execute(shortest or "")) == [(2, 2, "Tue", 3.0, "Ben Ode")]
    # Found by the name the table itself has no column for.
    ana = Known(["shifts"], columns, [("name", "Ana Lima")])
    sql = made_with("total hours of Ana Lima in shifts", ana)
    assert list(db.execute(sql or "")) == [(14.0,)]
    assert [r[2] for r in db.execute(made_with("Ana Lima's shifts", ana) or "")] == ["Mon", "Fri"]
    # A table that references nothing is read as it is.
    assert with_references(["staff"], fields) == {"staff": fields["staff"]}


def test_rows_counted_by_the_values_of_a_column(db: sqlite3.Connection) -> None:
    known = Known(["staff"], {"staff": ["id", "name", "town", "salary"]})
    for text in ("which town has the most staff?", "the most common town in staff"):
        sql = made_with(text, known)
        assert list(db.execute(sql or "")) == [("Porto", 2), ("Graz", 1)]
    fewest = made_with("which town has the fewest staff?", known)
    assert next(iter(db.execute(fewest or ""))) == ("Graz", 1)
    # A word that is no column groups nothing.
    assert "GROUP BY" not in (made_with("which person has the most salary in staff?", known) or "")


def test_a_total_of_the_one_column_of_numbers_a_table_has(db: sqlite3.Connection) -> None:
    columns = {"staff": ["id", "name", "town", "salary"]}
    known = Known(["staff"], columns, numeric={"staff": ["id", "salary"]})
    assert made_with("what's the average pay in staff?", known) == "SELECT AVG(salary) FROM staff"
    assert made_with("avg pay in staff", known) == "SELECT AVG(salary) FROM staff"
    # The cheapest row, not its price alone: "what's the cheapest thing ..."
    assert made_with("what's the cheapest one in staff?", known) == (
        "SELECT * FROM staff ORDER BY salary ASC LIMIT 1"
    )
    assert made_with("what's the lowest salary in staff?", known) == "SELECT MIN(salary) FROM staff"
    named = Known(["staff"], columns, [("name", "Ana Lima")], numeric=known.numeric)
    sql = made_with("how much does Ana Lima earn in total (staff table)?", named)
    assert list(db.execute(sql or "")) == [(30.5,)]
    # Two columns of numbers: which one is not guessed.
    two = Known(["staff"], columns, numeric={"staff": ["salary", "town"]})
    assert made_with("what's the average pay in staff?", two) == "SELECT * FROM staff"


def test_a_column_equal_to_either_of_two_numbers_or_bounded_by_one(db: sqlite3.Connection) -> None:
    def towns(text: str) -> list[str]:
        return [row[2] for row in db.execute(made(text) or "")]

    text = "who in the staff table has a salary of 10 or 20?"
    assert made(text) == "SELECT * FROM staff WHERE salary IN (10, 20)"
    assert towns(text) == ["Graz", "Porto"]
    assert towns("who in the staff table has a salary of 20 or less") == ["Graz", "Porto"]
    assert towns("who in the staff table has a salary of 20 or more") == ["Porto", "Graz"]


def test_a_bound_said_of_the_rows_is_of_their_one_amount(db: sqlite3.Connection) -> None:
    columns = {"staff": ["id", "name", "town", "salary"]}
    known = Known(["staff"], columns, numeric={"staff": ["id", "salary"]})
    sql = made_with("delete every staff under 15 dollars", known)
    assert sql == "DELETE FROM staff WHERE salary < 15"
    assert made_with("list the staff over $15", known) == "SELECT * FROM staff WHERE salary > 15"
    assert [row[1] for row in db.execute(made_with("staff over $25", known) or "")] == ["Ana Lima"]
    # No one column of numbers: no bound is guessed, and a delete without it is none at all.
    assert made_with("delete every staff under 15 dollars", Known(["staff"], columns)) is None


def test_a_row_said_by_a_value_of_its_own_is_found_by_no_referenced_name() -> None:
    """ "the Keyboard order" had read the orders of a user named Keyboard."""
    columns = {"orders": ["id", "user_id", "item"], "users": ["id", "name"]}
    known = Known(["orders"], columns, [("name", "Keyboard")])
    sql = made_with("show me the Keyboard order in the database", known) or ""
    assert "name = 'Keyboard'" not in sql and "item = 'Keyboard'" in sql  # that order
    # nor is the thing bought anyone's name
    for text in ("who ordered the Keyboard?", "who bought the Keyboard"):
        sql = made_with(text, known) or ""
        assert "name = 'Keyboard'" not in sql and "item = 'Keyboard'" in sql
    named = Known(["orders"], columns, [("name", "Ana Lima")])
    sql = made_with("show me the orders of Ana Lima", named) or ""
    assert "WHERE users.name = 'Ana Lima'" in sql
    # both tables named: that order, with the name of its customer
    both = Known(["orders", "users"], columns, [("name", "Keyboard")])
    asked = "the customer behind the Keyboard order - check the orders and users tables"
    assert made_with(asked, both) == (
        "SELECT orders.*, users.name AS user_name FROM orders JOIN users "
        "ON orders.user_id = users.id WHERE orders.item = 'Keyboard'"
    )


def test_a_change_asked_is_never_read_instead() -> None:
    """ "can you correct the price of the Keyboard order?" had been given a SELECT to run as a
    write: a change whose values are missing gets no statement (the user is asked)."""
    known = Known(["orders"], {"orders": ["id", "item", "amount"]})
    assert made_with("can you correct the price of the Keyboard order in orders?", known) is None
    assert made_with("what is the price of the Keyboard order in orders?", known) is not None


def test_an_update_takes_the_value_its_column_is_said_to_become() -> None:
    """ "so her city is Seville" sets the city; "whose city is Lyon" finds the row."""
    known = Known(
        held=["users"],
        columns={"users": ["id", "name", "email", "city"]},
        values=[("name", "Carla Reyes"), ("name", "Seville")],
    )
    text = "update Carla Reyes's record in the users table so Carla Reyes's city is Seville"
    assert statement(text, known=known) == (
        "UPDATE users SET city = 'Seville' WHERE name = 'Carla Reyes'",
        Span(start=0, end=len(text)),
    )
    whose = "update the users table whose city is Seville for Carla Reyes"
    assert statement(whose, known=known) is None
    # A name changed: the row by the name it had; a hyphen goes on one name
    renamed = Known(
        held=["users"],
        columns={"users": ["id", "name", "email", "city"]},
        values=[("place", "Alice Martin-Dubois"), ("name", "Alice Martin")],
    )
    text = "Alice Martin got married: change her name in the users table to Alice Martin-Dubois"
    assert statement(text, known=renamed) == (
        "UPDATE users SET name = 'Alice Martin-Dubois' WHERE name = 'Alice Martin'",
        Span(start=0, end=len(text)),
    )


def test_an_insert_takes_only_the_columns_the_table_has() -> None:
    """ "with their name, email and city" names the columns, it gives no values."""
    known = Known(held=["users"], columns={"users": ["id", "name", "email", "city"]})
    text = "add that customer to the users table with their name, email and city"
    assert statement(text, known=known) is None


def test_a_new_row_listed_in_the_order_of_the_columns() -> None:
    """ "new user: Farah Haddad, farah.h@example.com, Marseille": one value per column, in
    the table's order; a count that differs, or an e-mail address out of place, makes nothing."""
    known = Known(held=["staff"], columns={"staff": ["id", "name", "email", "town"]})
    assert made_with("new staff: Ana Lima, ana@x.org, Graz", known) == (
        "INSERT INTO staff (name, email, town) VALUES ('Ana Lima', 'ana@x.org', 'Graz')"
    )
    assert made_with("new staff: Ana Lima, Graz", known) is None
    assert made_with("new staff: ana@x.org, Ana Lima, Graz", known) is None
    # Each value said after its column, in any order.
    assert made_with("add him to the staff table: town Graz, name Ana Lima", known) == (
        "INSERT INTO staff (town, name) VALUES ('Graz', 'Ana Lima')"
    )


def test_a_row_s_field_and_its_new_value_after_an_arrow() -> None:
    known = Known(held=["orders"], columns={"orders": ["id", "item", "amount"]})
    assert made_with("order 8 amount -> 59.90", known) == (
        "UPDATE orders SET amount = 59.90 WHERE id = 8"
    )


def test_a_row_named_by_its_one_text_column() -> None:
    known = Known(
        held=["orders"],
        columns={"orders": ["id", "user_id", "item", "amount"]},
        numeric={"orders": ["id", "user_id", "amount"]},
    )
    assert made_with("remove the Notebook order from orders", known) == (
        "DELETE FROM orders WHERE item = 'Notebook'"
    )
    assert made_with("remove the order", known) is None  # which one is not said
    people = Known(held=["users"], columns={"users": ["id", "name", "email", "city"]})
    assert made_with("delete the Lyon user", people) is None  # a name or a city?


def test_a_row_said_by_its_number_is_read() -> None:
    known = Known(held=["orders"], columns={"orders": ["id", "item", "amount"]})
    assert made_with("look up order number 6", known) == "SELECT * FROM orders WHERE id = 6"


def test_a_row_s_value_and_what_it_was_instead() -> None:
    known = Known(held=["orders"], columns={"orders": ["id", "item", "amount"]})
    text = "order 8 should now show 59.90 instead of 64.50: could you update the amount?"
    assert made_with(text, known) == (
        "UPDATE orders SET amount = 59.90 WHERE id = 8 AND amount = 64.50"
    )


def test_a_row_for_someone_holds_their_id(db: sqlite3.Connection) -> None:
    """ "an order for user 1", "a new order for Ana Lima", "for her" after her name: the row's
    reference to the row it is for, the id written or that of the row by that name."""
    db.execute("CREATE TABLE tasks (id INTEGER PRIMARY KEY, staff_id INTEGER NOT NULL, job TEXT)")
    columns = {"tasks": ["id", "staff_id", "job"], "staff": ["id", "name", "town", "salary"]}
    numbered = Known(held=["tasks"], columns=columns)
    sql = made_with("add a task for staff 2 with job 'Audit'", numbered)
    assert sql == "INSERT INTO tasks (job, staff_id) VALUES ('Audit', 2)"
    named = Known(held=["tasks"], columns=columns, values=[("name", "Ana Lima")])
    by_name = (
        "INSERT INTO tasks (job, staff_id) "
        "VALUES ('Audit', (SELECT id FROM staff WHERE name = 'Ana Lima'))"
    )
    assert made_with("add a task for Ana Lima with the job 'Audit'", named) == by_name
    told = "Ana Lima is back to go over the books: could you record a new task for her with a job "
    told += "of 'Audit'?"
    assert made_with(told, named) == by_name  # "to go" is no table, "record a" adds a row
    # whom it is from, or who did what the row records, stored
    for said in (
        "store a task from Ana Lima in the tasks table with the job 'Audit'",
        "Ana Lima emailed us her plans: save a task with the job 'Audit' in the tasks table",
    ):
        assert made_with(said, named) == by_name, said
    db.execute(by_name)
    assert db.execute("SELECT staff_id FROM tasks WHERE job = 'Audit'").fetchone() == (1,)
    # Whose rows to delete: "Ana Lima's tasks", "her tasks" after her name; "her task", one
    # of several maybe, is asked for
    by_owner = "DELETE FROM tasks WHERE staff_id = (SELECT id FROM staff WHERE name = 'Ana Lima')"
    assert made_with("delete Ana Lima's tasks from the tasks table", named) == by_owner
    assert made_with("Ana Lima left: please delete her tasks", named) == by_owner
    assert made_with("Ana Lima phoned: delete her task from the tasks table", named) is None
    assert made_with("delete the tasks from tasks", named) is None  # whose is not said
    # Someone's own row, in the table of names
    staff = Known(held=["staff"], columns=columns, values=[("name", "Ana Lima")])
    own = "delete Ana Lima's entry in the staff table"
    assert made_with(own, staff) == "DELETE FROM staff WHERE name = 'Ana Lima'"
    assert made_with("delete Ana Lima's staff row", staff) == made_with(own, staff)
    # Nobody it is for: the row without
    assert made_with("add a task with job 'Audit' and staff_id 3", numbered) == (
        "INSERT INTO tasks (job, staff_id) VALUES ('Audit', 3)"
    )


def test_a_share_off_the_amounts_of_the_rows_a_condition_keeps(db: sqlite3.Connection) -> None:
    columns = {"staff": ["id", "name", "town", "salary"]}
    known = Known(held=["staff"], columns=columns, numeric={"staff": ["id", "salary"]})
    sql = made_with("staff earning more than 15 -> knock 10% off the salary", known)
    assert sql == "UPDATE staff SET salary = salary * 0.9 WHERE salary > 15"
    db.execute(sql or "")
    assert db.execute("SELECT salary FROM staff ORDER BY id").fetchall() == [
        (27.45,),
        (18.0,),
        (10.0,),
    ]
    raised = made_with("please raise the salary of staff under 15 by 5 percent", known)
    assert raised == "UPDATE staff SET salary = salary * 1.05 WHERE salary < 15"
    assert made_with("knock 10% off every salary", known) is None  # every row: not guessed


def test_a_table_whose_columns_are_listed_in_brackets(db: sqlite3.Connection) -> None:
    sql = made("create tbl shifts (id int pk, staff_id int not null, note text)", ("create",))
    assert (
        sql == "CREATE TABLE shifts (id INTEGER PRIMARY KEY, staff_id INTEGER NOT NULL, note TEXT)"
    )
    db.execute(sql or "")
    kinds = db.execute("SELECT name, type FROM pragma_table_info('shifts') ORDER BY cid")
    assert kinds.fetchall() == [("id", "INTEGER"), ("staff_id", "INTEGER"), ("note", "TEXT")]


def test_a_deletion_of_someones_thing_is_the_row_of_both() -> None:
    """'carla reyes cancelled the notebook, delete that order' (eval servers, dev fresh13): her
    row of that item, whatever its case; without whose it is, nothing."""
    db = sqlite3.connect(":memory:")
    db.executescript(
        """
        CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, item TEXT, amount REAL);
        INSERT INTO users (name) VALUES ('Ana Lima'), ('Ben Ode');
        INSERT INTO orders (user_id, item, amount) VALUES (1, 'Notebook', 3), (2, 'Notebook', 3),
            (1, 'Pen', 1);
        """
    )
    columns = {"users": ["id", "name"], "orders": ["id", "user_id", "item", "amount"]}
    ana = Known(
        held=["orders", "users"],
        columns=columns,
        values=[("name", "Ana Lima")],
        numeric={"orders": ["amount"]},
    )
    for text in (
        "Ana Lima cancelled the notebook, delete that order",
        "Ana Lima has cancelled her order for the notebook: please remove that order from orders",
    ):
        sql = made_with(text, ana)
        assert sql is not None
        db.execute("SAVEPOINT s")
        db.execute(sql)
        assert db.execute("SELECT user_id, item FROM orders ORDER BY id").fetchall() == [
            (2, "Notebook"),
            (1, "Pen"),
        ]
        db.execute("ROLLBACK TO s")
    nobody = Known(held=["orders"], columns=columns, numeric={"orders": ["amount"]})
    assert made_with("delete the order for the notebook", nobody) is None
