"""The ``tcplab`` command's shared parts: the Typer application every command module
registers on, the consoles, the options several commands take, and how a command
fails, is interrupted and ends. Command modules import from here and never from one
another's private names; :mod:`tcplab.cli` imports them all and runs the app.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from .. import __version__
from ..scenario.errors import one_line

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    help="tcplab: end-to-end transport performance laboratory.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)


def _piped_width() -> int:
    """Width for output that is not a terminal: $COLUMNS when set, else wide enough
    that tables keep one row per flow."""
    try:
        return max(int(os.environ.get("COLUMNS", "")), 40)
    except ValueError:
        return 160


def escape(text: str) -> str:
    """``text`` with anything rich would read as markup escaped."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


class _LazyConsole:
    """A rich Console made on first use: importing rich costs 40 ms that a run would
    otherwise spend before its engine starts (the import happens on the second thread
    while the engine runs, see :func:`_import_output_modules`)."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def _get(self) -> Console:
        if self._console is None:
            from rich.console import Console

            if self._stderr:
                self._console = Console(stderr=True)
            else:
                self._console = Console() if sys.stdout.isatty() else Console(width=_piped_width())
                # rich ends the process (status 1) when the reader of standard output
                # has gone; tcplab carries on and still writes its files.
                self._console.on_broken_pipe = _discard_stdout  # type: ignore[method-assign]
        return self._console

    def __getattr__(self, name: str):
        return getattr(self._get(), name)


# Typed as what they stand for: every use goes through attribute access.
out_console: Console = _LazyConsole(stderr=False)  # type: ignore[assignment]
err_console: Console = _LazyConsole(stderr=True)  # type: ignore[assignment]


def real_console(console: Console) -> Console:
    """The Console itself, for rich APIs that take one (a progress bar)."""
    return console._get() if isinstance(console, _LazyConsole) else console


ScenarioArg = Annotated[Path, typer.Argument(help="Scenario file (.toml or .yaml).", show_default=False)]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", metavar="KEY=VALUE",
                 help="Override a scenario field: its dotted path = a value (e.g. flow[0].app.rate = 2Mbps). Repeatable."),
]


def fail(message: str, status: int) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(status)


def _version(value: bool) -> None:
    if value:
        out_console.print(f"tcplab {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """tcplab: end-to-end transport performance laboratory."""


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwinds everything (a results directory being
    written is removed, the old one kept) and ends the command with 128 + signal.
    Not an Exception, so no handler on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def interrupt(signum: int, _frame) -> None:
    """A signal handler that unwinds the command (see :class:`Interrupted`)."""
    raise Interrupted(signum)


#: Set by :func:`start_as_command`: a command started from the shell may end with
#: ``os._exit`` once its output is flushed and its files are closed (not when tcplab is
#: used as a library).
_STARTED_AS_COMMAND = False


def start_as_command() -> None:
    """Marks this process as the ``tcplab`` command (see :func:`exit_without_teardown`)."""
    global _STARTED_AS_COMMAND
    _STARTED_AS_COMMAND = True


def _discard_stdout() -> None:
    """The reader of standard output has gone (`tcplab run … | head`): what is left to
    print goes nowhere, and the command carries on (its files are still written)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def print_or_discard(write) -> None:
    """Calls ``write`` (which prints to standard output), tolerating a closed pipe."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()


def exit_without_teardown(status: int = 0) -> None:
    """Ends a finished command at once, with exit ``status``: the interpreter's
    teardown (freeing numpy's, pyarrow's and every module's objects) takes about 40 ms
    of a 0.4 s run and does nothing the user needs. Everything tcplab wrote is closed
    by now."""
    if _STARTED_AS_COMMAND:
        print_or_discard(lambda: None)
        sys.stderr.flush()
        os._exit(status)
    if status:
        raise SystemExit(status)


