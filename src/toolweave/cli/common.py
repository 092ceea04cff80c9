"""What every command shares: the consoles, the --config option, loading settings, running a
coroutine with errors mapped to exit codes, progress on stderr, and logging."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from toolweave.errors import ConfigError, InputError, ToolweaveError
from toolweave.settings import Settings, load_settings

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help="Settings file (default: $TOOLWEAVE_CONFIG, ./toolweave.toml, user config dir).",
        show_default=False,
    ),
]


def fail(exc: Exception, *, code: int) -> NoReturn:
    """Print `error: <exc>` on stderr and exit with `code`."""
    err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
    raise typer.Exit(code)


def load_or_exit(config: Path | None) -> Settings:
    """The settings, or exit 2 with the configuration error; what they ignore is warned about."""
    try:
        settings = load_settings(config)
        for warning in settings.warnings():
            err.print(f"[yellow]warning:[/yellow] {escape(warning)}", soft_wrap=True)
        return settings
    except ConfigError as exc:
        fail(exc, code=2)


def run_or_exit(coro: Any) -> Any:
    """Run `coro`; a configuration or input error exits 2, another toolweave error 1, Ctrl-C 130,
    SIGTERM (as `timeout`, systemd and Docker send it) 143. Both signals cancel the run, so
    every server it started is stopped before the process ends."""
    terminated = False

    async def main() -> Any:
        def terminate() -> None:
            nonlocal terminated
            terminated = True
            if task is not None:
                task.cancel()

        task = asyncio.current_task()
        if task is not None:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, terminate)
        return await coro

    try:
        return asyncio.run(main())
    except (ConfigError, InputError) as exc:
        fail(exc, code=2)
    except ToolweaveError as exc:
        fail(exc, code=1)
    except asyncio.CancelledError:
        if not terminated:
            raise
        err.print("terminated")
        raise typer.Exit(143) from None
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


class Bar:
    """Progress on stderr for `(phase, done, total)` callbacks: a bar on a terminal, otherwise a
    line when a phase starts and at each further tenth of it, with the time it has taken and an
    estimate of what is left (so the log of a long unattended run shows where it is)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        from rich.progress import Progress

        self.progress = Progress(console=err, transient=True) if sys.stderr.isatty() else None
        self.tasks: dict[str, Any] = {}
        self.clock = clock
        self.lines: dict[str, tuple[float, int]] = {}  # per phase: its start, the tenths said

    def __enter__(self) -> Any:
        if self.progress is not None:
            self.progress.start()
        return self.update

    def update(self, phase: str, done: int, total: int) -> None:
        if self.progress is None:
            self._line(phase, done, total)
            return
        if phase not in self.tasks:
            self.tasks[phase] = self.progress.add_task(phase, total=total)
        self.progress.update(self.tasks[phase], completed=done, total=total)

    def _line(self, phase: str, done: int, total: int) -> None:
        now = self.clock()
        if phase not in self.lines:
            self.lines[phase] = (now, 0)
            print(f"{phase} ({total:,})", file=sys.stderr, flush=True)
        start, said = self.lines[phase]
        tenths = 10 * done // total if total > 0 else 0
        if tenths <= said or done <= 0:
            return
        self.lines[phase] = (start, tenths)
        spent = now - start
        left = spent * (total - done) / done
        print(
            f"  {phase}: {done:,}/{total:,}, {spent:,.0f} s, about {left:,.0f} s left",
            file=sys.stderr,
            flush=True,
        )

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()


def configure_logging() -> None:
    """Warnings and errors on stderr. Configured before anything else: libraries that set up
    logging themselves (the MCP SDK's in-process servers) then leave it alone, and loggers that
    set their own level (bm25s: DEBUG) are held back by the handler's level."""
    import logging

    from rich.logging import RichHandler

    handler = RichHandler(console=err, show_path=False)
    handler.setLevel(logging.WARNING)
    logging.basicConfig(level=logging.WARNING, format="%(message)s", handlers=[handler])
