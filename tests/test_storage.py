"""Migrations of the SQLite files: a new file opened by several connections at once (two
questions on one engine teaching the index) is migrated once, and none of them fails."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from toolweave.errors import ConfigError
from toolweave.storage import prepare

MIGRATIONS = [
    """
    -- a comment between statements
    CREATE TABLE a (x TEXT);
    CREATE INDEX a_x ON a (x);
    """,
    "CREATE TABLE b (y TEXT DEFAULT ';'); CREATE TABLE c (z TEXT);",
]


@pytest.mark.parametrize("attempt", range(20))  # a race: the more tries, the likelier it shows
def test_connections_opening_a_new_file_at_once_migrate_it_once(
    tmp_path: Path, attempt: int
) -> None:
    path, errors = tmp_path / f"new{attempt}.sqlite", []
    start = threading.Barrier(8)

    def open_it() -> None:
        db = sqlite3.connect(path, check_same_thread=False)
        start.wait()
        try:
            prepare(db, MIGRATIONS, what="test file", remedy="-")
        except Exception as exc:
            errors.append(exc)
        finally:
            db.close()

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert names >= {"a", "a_x", "b", "c"}


def test_a_file_from_a_newer_version_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "newer.sqlite")
    db.execute("PRAGMA user_version = 9")
    with pytest.raises(ConfigError, match=r"newer toolweave .*format 9.*; upgrade"):
        prepare(db, MIGRATIONS, what="test file", remedy="upgrade")
    assert db.execute("PRAGMA user_version").fetchone()[0] == 9
    assert not db.in_transaction
