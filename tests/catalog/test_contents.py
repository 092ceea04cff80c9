"""What each server holds (catalog/contents.py): which tools are sampled, the names read from
their listings, and the file that keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolweave.catalog.connections import ServerPool
from toolweave.catalog.contents import (
    Contents,
    describes_one,
    lists_everything,
    names_in_result,
    roots_in_result,
    runs_select,
    words_in_result,
)
from toolweave.types import ToolHints, ToolSpec


def tool(name: str, required: list[str] | None = None, **hints: bool) -> ToolSpec:
    schema = {"type": "object", "properties": {}, "required": required or []}
    return ToolSpec(server="s", name=name, input_schema=schema, hints=ToolHints(**hints))


def test_only_argument_free_listings_that_change_nothing_are_sampled() -> None:
    assert lists_everything(tool("list_tables"))
    assert lists_everything(tool("read_graph", read_only=True))
    assert lists_everything(tool("listEntities"))
    assert not lists_everything(tool("read_file", ["path"]))  # needs a value: not called
    assert not lists_everything(tool("get-env"))  # not a listing: environment secrets stay put
    assert not lists_everything(tool("list_and_purge", read_only=False))
    assert not lists_everything(tool("read_queue", destructive=True))
    assert not lists_everything(tool("list_web_results", open_world=True))


def test_names_come_from_the_name_fields_of_json_and_python_listings() -> None:
    graph = {"entities": [{"name": "Bob", "observations": ["name: x"]}, {"name": "Acme Corp"}]}
    assert names_in_result(json.dumps(graph, indent=2)) == ["Bob", "Acme Corp"]
    assert names_in_result("[{'name': 'users'}, {'name': 'orders'}, {'name': 'users'}]") == [
        "users",
        "orders",
    ]
    assert names_in_result("""[{'name': "O'Neil"}, {"name": "Ann"}]""") == ["O'Neil", "Ann"]
    assert names_in_result("Allowed directories:\n/srv/files") == []


def test_words_come_from_the_values_of_json_listings_not_their_keys_or_secrets() -> None:
    secret = "sk-livesecretkey"
    graph = {"entities": [{"name": "Alice", "observations": ["allergic to peanuts", secret]}]}
    said = words_in_result(json.dumps(graph), secrets=[secret])
    assert "peanut" in said and "allerg" in said  # stems, as a question's words are matched
    assert "observ" not in said and "entiti" not in said  # keys say what any record has
    assert "livesecretkey" in words_in_result(json.dumps(graph))  # the secret, were it not one
    assert not any("secret" in w for w in said)
    graph["entities"][0]["related"] = "Alice Martin"
    assert "martin" in words_in_result(json.dumps(graph))  # a value: only names are left out
    assert "martin" not in words_in_result(json.dumps(graph), names={"Alice Martin"})
    graph = {"entities": [{"name": "Carol", "observations": ["Lives in Leeds"]}]}
    assert "leed" in words_in_result(json.dumps(graph))  # a name within a record, however short
    assert "live" not in words_in_result(json.dumps(graph))  # not its first word
    assert words_in_result("Allowed directories: /srv/files") == []  # no JSON, no words
    assert words_in_result("[" * 100_000) == []  # too deep to decode: nothing, no error


def test_what_was_sampled_is_kept_beside_the_index(tmp_path: Path) -> None:
    contents = Contents(tmp_path)
    contents.names = {"memory": ["Bob"]}
    contents.words = {"memory": frozenset({"peanut"})}
    contents._save()
    assert Contents(tmp_path).held() == {"memory": ["Bob"]}
    assert Contents(tmp_path).about() == {"memory": frozenset({"peanut"})}
    (tmp_path / "contents.json").write_text('{"memory": ["Bob"]}')  # an older file: sampled again
    assert Contents(tmp_path).held() == {}
    (tmp_path / "contents.json").write_text("{not json")
    assert Contents(tmp_path).held() == {}  # damaged: sampled again, not fatal


def list_people() -> str:
    """List everyone in the address book."""
    return json.dumps([{"name": "Bob"}, {"name": "sk-live-0123456789abcdef"}])


def read_person(name: str) -> str:
    """Read one person's entry."""
    raise AssertionError("a tool that needs a value is never sampled")


@pytest.mark.anyio
async def test_a_server_is_sampled_through_a_real_mcp_session_without_secrets(
    tmp_path: Path,
) -> None:
    native = {"book": [list_people, read_person]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        contents = Contents(tmp_path)
        await contents.sample(pool, pool.tools, {"book"}, secrets=["sk-live-0123456789abcdef"])
    assert contents.held() == {"book": ["Bob"]}
    assert Contents(tmp_path).held() == {"book": ["Bob"]}
    assert "sk-live-0123456789abcdef" not in (tmp_path / "contents.json").read_text()


def list_tables() -> str:
    """List all tables in the database."""
    return json.dumps([{"name": "users"}, {"name": "orders"}])


def describe_table(table_name: str) -> str:
    """Get the schema information for a specific table."""
    columns = {"users": ["id", "email"], "orders": ["id", "amount"]}[table_name]
    types = {"id": "INTEGER", "email": "TEXT", "amount": "REAL"}
    return str([{"cid": n, "name": c, "type": types[c]} for n, c in enumerate(columns)])


@pytest.mark.anyio
async def test_the_fields_of_what_a_listing_names_come_from_the_tool_that_describes_one(
    tmp_path: Path,
) -> None:
    assert describes_one(tool("describe_table", ["table_name"])) is None  # takes no text
    native = {"db": [list_tables, describe_table]}
    async with ServerPool({}, log_dir=tmp_path, native=native) as pool:
        (describe,) = [t for t in pool.tools if t.name == "describe_table"]
        assert describes_one(describe) == "table_name"
        contents = Contents(tmp_path)
        await contents.sample(pool, pool.tools, {"db"})
    assert contents.fields_of() == {"users": ["id", "email"], "orders": ["id", "amount"]}
    assert Contents(tmp_path).fields_of() == contents.fields_of()
    # And which hold numbers, by their type: what a total is of.
    assert contents.numeric_of() == {"users": ["id"], "orders": ["id", "amount"]}
    assert Contents(tmp_path).numeric_of() == contents.numeric_of()


def list_allowed_directories() -> str:
    """List the directories this server may reach."""
    return "Allowed directories:\n/srv/files\n/srv/photos/"


@pytest.mark.anyio
async def test_the_folders_a_server_may_reach_come_from_a_listing_of_paths(tmp_path: Path) -> None:
    assert roots_in_result("Allowed directories:\n/a/b\n/c/ d\nno/path") == ["/a/b"]
    async with ServerPool({}, log_dir=tmp_path, native={"fs": [list_allowed_directories]}) as pool:
        contents = Contents(tmp_path)
        await contents.sample(pool, pool.tools, {"fs"})
    assert contents.roots_of() == {"fs": ["/srv/files", "/srv/photos"]}
    assert contents.held() == {} and Contents(tmp_path).roots_of() == contents.roots_of()


class _Shop:
    """A real SQLite database behind the tools mcp-server-sqlite offers (the same names, words
    and result format)."""

    def __init__(self, path: Path) -> None:
        import sqlite3

        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.executescript(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT);"
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount REAL);"
            "INSERT INTO users (name, email) VALUES ('Emma Schultz', 'e@x.example'),"
            " ('Bob Chen', 'b@x.example'), ('Emma Schultz', 'e2@x.example');"
        )
        self.seen: list[str] = []

    def tools(self) -> list[object]:
        def list_tables() -> str:
            """List all tables in the SQLite database"""
            return self._rows("SELECT name FROM sqlite_master WHERE type='table'")

        def describe_table(table_name: str) -> str:
            """Get the schema information for a specific table"""
            return self._rows(f"PRAGMA table_info({table_name})")

        def read_query(query: str) -> str:
            """Execute a SELECT query on the SQLite database"""
            return self._rows(query)

        def write_query(query: str) -> str:
            """Execute an INSERT, UPDATE, or DELETE query on the SQLite database"""
            raise AssertionError("a tool that changes things is never sampled")

        return [list_tables, describe_table, read_query, write_query]

    def _rows(self, query: str) -> str:
        self.seen.append(query)
        cursor = self.db.execute(query)
        keys = [d[0] for d in cursor.description]
        return str([dict(zip(keys, row, strict=True)) for row in cursor.fetchall()])


@pytest.mark.anyio
async def test_the_names_in_a_tables_rows_are_read_by_the_tool_that_runs_a_select(
    tmp_path: Path,
) -> None:
    shop = _Shop(tmp_path / "shop.db")
    async with ServerPool({}, log_dir=tmp_path, native={"db": shop.tools()}) as pool:
        by_name = {t.name: t for t in pool.tools}
        assert runs_select(by_name["read_query"]) == "query"
        assert runs_select(by_name["write_query"]) is None  # its words name no SELECT
        assert runs_select(by_name["describe_table"]) is None
        contents = Contents(tmp_path)
        await contents.sample(pool, pool.tools, {"db"})
    # Only the table with a name field is read, and only its names are kept, once each.
    assert contents.in_rows() == {"db": ["Emma Schultz", "Bob Chen"]}
    assert [q for q in shop.seen if "users" in q] == [
        "PRAGMA table_info(users)",
        'SELECT DISTINCT name FROM "users" LIMIT 500',
    ]
    assert Contents(tmp_path).in_rows() == contents.in_rows()
    assert "e@x.example" not in (tmp_path / "contents.json").read_text()
