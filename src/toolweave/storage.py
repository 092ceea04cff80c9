"""Opening the SQLite files toolweave writes (search cache, traces, learned examples, the tool
graph): tuned for many small writes, brought up to date by numbered migrations kept in
`PRAGMA user_version`."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator, Sequence

from toolweave.errors import ConfigError


def prepare(db: sqlite3.Connection, migrations: Sequence[str], *, what: str, remedy: str) -> None:
    """WAL without an fsync per commit (a crash may lose the last writes, never corrupt the file),
    then the migrations this file lacks, in one write transaction: two connections opening a new
    file at once (two questions on one engine) migrate it once, the second waiting for the first.
    A file from a newer toolweave is a ConfigError naming `what` it is and the `remedy`."""
    db.execute("PRAGMA busy_timeout=5000")
    _wal(db)
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > len(migrations):
            raise ConfigError(
                f"{what} was written by a newer toolweave (format {version}); {remedy}"
            )
        for number, script in enumerate(migrations[version:], start=version + 1):
            for statement in _statements(script):  # executescript would commit first
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {number}")
        db.commit()
    except BaseException:
        db.rollback()
        raise


def _wal(db: sqlite3.Connection, tries: int = 50) -> None:
    """Write-ahead logging. Switching a new file to it takes a lock that SQLite does not wait
    for (busy_timeout does not apply), so a connection that meets another one doing it retries."""
    for attempt in range(tries):
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError:
            if attempt == tries - 1:
                raise
            time.sleep(0.05)


def _statements(script: str) -> Iterator[str]:
    """The script's statements one by one (sqlite3.complete_statement says where each ends)."""
    statement = ""
    for part in script.split(";"):
        statement += part + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \t\n;"):
                yield statement
            statement = ""
