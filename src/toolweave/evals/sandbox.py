"""The throw-away world `eval servers` runs in: real third-party MCP servers (npm and PyPI, each
PyPI one in a virtualenv of its own so its pins never meet toolweave's), a folder, a web site on
loopback, a SQLite database, a knowledge-graph file and a git repository, all built from
`evals/data/servers/sandbox` and restored before every request.

`state()` flattens everything a request could change into "kind:name" -> fingerprint, so the
difference of two states is the set of side effects a run had.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from toolweave.errors import InputError
from toolweave.types import ServerSpec

DATA = Path(__file__).parent / "data" / "servers"
NPM_SERVERS = {
    "fs": "@modelcontextprotocol/server-filesystem",
    "memory": "@modelcontextprotocol/server-memory",
    "everything": "@modelcontextprotocol/server-everything",
}
# name -> (package, extra requirements of its virtualenv). mcp-server-sqlite predates mcp 2.
PYPI_SERVERS = {
    "fetch": ("mcp-server-fetch", []),
    "git": ("mcp-server-git", []),
    "sqlite": ("mcp-server-sqlite", ["mcp<2"]),
}


def install_pypi_servers(folder: Path, progress: Any = print) -> dict[str, Path]:
    """Each PyPI server's console script, installed on first use into folder/<package>."""
    scripts = {}
    for name, (package, extras) in PYPI_SERVERS.items():
        venv = folder / package
        script = venv / "bin" / package
        if not (venv / ".installed").exists():
            progress(f"installing {package} into {venv}")
            shutil.rmtree(venv, ignore_errors=True)
            _run([sys.executable, "-m", "venv", str(venv)])
            _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", package, *extras])
            (venv / ".installed").touch()
        scripts[name] = script
    return scripts


def _run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise InputError(f"{' '.join(command[:4])} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


@dataclass
class Sandbox:
    root: Path
    data: Path = DATA / "sandbox"  # what it holds: files, site, db.sql, memory.jsonl, repo.yaml
    site: str = ""  # the web site's base URL, no trailing slash
    base_commit: str = ""

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def db(self) -> Path:
        return self.root / "db.sqlite"

    @property
    def memory(self) -> Path:
        return self.root / "memory.jsonl"

    def placeholders(self) -> dict[str, str]:
        return {"files": str(self.files), "repo": str(self.repo), "site": self.site}

    def servers(self, scripts: dict[str, Path]) -> dict[str, ServerSpec]:
        """The servers over this sandbox (the time server is toolweave's default one)."""
        npx = {name: ["-y", package] for name, package in NPM_SERVERS.items()}
        npx["fs"].append(str(self.files))
        specs = {name: ServerSpec(command="npx", args=args) for name, args in npx.items()}
        specs["memory"].env = {"MEMORY_FILE_PATH": str(self.memory)}
        specs["fetch"] = ServerSpec(
            command=str(scripts["fetch"]), args=["--ignore-robots-txt", "--allow-private-ips"]
        )
        specs["git"] = ServerSpec(command=str(scripts["git"]))
        specs["sqlite"] = ServerSpec(
            command=str(scripts["sqlite"]), args=["--db-path", str(self.db)]
        )
        return specs

    # -- building and restoring ----------------------------------------------------------------

    def build(self) -> None:
        self.repo.mkdir(parents=True)
        _git(self.repo, "init", "-q", "-b", "main")
        _git(self.repo, "config", "user.email", "eval@example.com")
        _git(self.repo, "config", "user.name", "Eval")
        for commit in _repo_spec(self.data).get("commits") or []:
            _write_all(self.repo, commit.get("files") or {})
            _git(self.repo, "add", "-A")
            _git(self.repo, "commit", "-q", "-m", commit["message"])
        self.base_commit = _git(self.repo, "rev-parse", "HEAD").strip()
        self.reset()

    def reset(self) -> None:
        """Everything as the sandbox folder describes it (servers keep running)."""
        shutil.rmtree(self.files, ignore_errors=True)
        shutil.copytree(self.data / "files", self.files)
        shutil.copyfile(self.data / "memory.jsonl", self.memory)
        self._reset_db()
        self._reset_repo()

    def _reset_db(self) -> None:
        # The SQLite server keeps its connection open: the file is emptied, not replaced.
        with sqlite3.connect(self.db) as db:
            tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
            for (table,) in tables:
                if not table.startswith("sqlite_"):
                    db.execute(f'DROP TABLE "{table}"')
            db.executescript((self.data / "db.sql").read_text())

    def _reset_repo(self) -> None:
        repo = self.repo
        _git(repo, "checkout", "-q", "-f", "main")
        _git(repo, "reset", "-q", "--hard", self.base_commit)
        _git(repo, "clean", "-qfdx")
        for branch in _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split():
            if branch != "main":
                _git(repo, "branch", "-q", "-D", branch)
        spec = _repo_spec(self.data)
        _write_all(repo, spec.get("worktree") or {})
        _write_all(repo, spec.get("untracked") or {})

    # -- what a run changed --------------------------------------------------------------------

    def state(self) -> dict[str, str]:
        return {
            **self._files_state(),
            **self._db_state(),
            **self._memory_state(),
            **self._git_state(),
        }

    def _files_state(self) -> dict[str, str]:
        found = {}
        for path in sorted(self.files.rglob("*")):
            name = path.relative_to(self.files).as_posix()
            found[f"file:{name}"] = _digest(path.read_bytes()) if path.is_file() else "directory"
        return found

    def _db_state(self) -> dict[str, str]:
        with sqlite3.connect(self.db) as db:
            tables = db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
            return {
                f"table:{name}": _digest(
                    (sql + repr(sorted(map(repr, db.execute(f'SELECT * FROM "{name}"'))))).encode()
                )
                for name, sql in tables.fetchall()
            }

    def graph(self) -> list[dict[str, Any]]:
        lines = self.memory.read_text().splitlines() if self.memory.exists() else []
        return [json.loads(line) for line in lines if line.strip()]

    def _memory_state(self) -> dict[str, str]:
        found = {}
        for item in self.graph():
            if item.get("type") == "entity":
                body = [item.get("entityType"), sorted(item.get("observations") or [])]
                found[f"entity:{item['name']}"] = json.dumps(body)
            elif item.get("type") == "relation":
                found[f"relation:{item['from']}|{item['relationType']}|{item['to']}"] = "1"
        return found

    def head_message(self) -> str:
        return _git(self.repo, "log", "-1", "--format=%s").strip()

    def _git_state(self) -> dict[str, str]:
        repo = self.repo
        heads = _git(repo, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
        found = {f"git:branch:{line.split()[0]}": line.split()[1] for line in heads.splitlines()}
        found["git:HEAD"] = _git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
        found["git:staged"] = _git(repo, "diff", "--cached", "--name-status")
        found["git:worktree"] = _git(repo, "status", "--porcelain", "--untracked-files=all")
        return found


def _repo_spec(data: Path) -> dict[str, Any]:
    return yaml.safe_load((data / "repo.yaml").read_text()) or {}


def _write_all(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _git(repo: Path, *args: str) -> str:
    return _run(["git", *args], cwd=repo)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@contextmanager
def serve_site(folder: Path) -> Iterator[str]:
    """The folder served over HTTP on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return
