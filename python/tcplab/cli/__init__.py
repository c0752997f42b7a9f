"""The ``tcplab`` command: :func:`main` registers every command module on the shared
application (:mod:`.app`) and runs it.

- :mod:`.run_cmd`: run, report, validate
- :mod:`.sweep_cmd`: sweep, query, reproduce
- :mod:`.emu_cmd`: emu (--cleanup), crosscheck
- :mod:`.measure_cmd`, :mod:`.advise_cmd`, :mod:`.compare_cmd`, :mod:`.examples_cmd`,
  :mod:`.schema_cmd`: measure, advise, compare, examples, schema

Exit status: 0 on success, 2 for invalid input (scenario, overrides, output
directory), 1 for an internal error (a bug: please report it), 128 + signal when
interrupted.
"""

from __future__ import annotations

import os
import signal
import sys

from .app import Interrupted, app, err_console, escape, interrupt, start_as_command

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``tcplab`` command."""
    start_as_command()
    # tcplab does no large linear algebra; OpenBLAS's threads, started when numpy is
    # imported (during the run, on a second thread), would only take cores from the
    # engine.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # Registers each module's commands on the app.
    from . import (  # noqa: F401
        advise_cmd,
        compare_cmd,
        emu_cmd,
        examples_cmd,
        measure_cmd,
        run_cmd,
        schema_cmd,
        sweep_cmd,
    )

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, interrupt)
    try:
        app()
    except Interrupted as e:
        name = signal.Signals(e.signum).name
        err_console.print(f"[bold red]interrupted[/] by {name}: stopped (a results directory is only ever replaced whole)", highlight=False, soft_wrap=True)
        sys.exit(128 + e.signum)
    except Exception as e:  # a bug in tcplab (usage errors never get here): one line, the traceback in a file
        _report_internal_error(e)
        sys.exit(1)


def _report_internal_error(error: Exception) -> None:
    import tempfile
    import traceback

    with tempfile.NamedTemporaryFile("w", prefix="tcplab-internal-error-", suffix=".txt", delete=False) as f:
        traceback.print_exception(error, file=f)
    err_console.print(f"[bold red]internal error:[/] {escape(type(error).__name__)}: {escape(str(error)[:200])} "
                      f"(a bug in tcplab; please report it with {escape(f.name)})", highlight=False, soft_wrap=True)
