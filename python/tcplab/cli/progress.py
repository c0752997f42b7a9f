"""The one progress bar every command shows on standard error (a run, a sweep, an
emulated run, a measurement): a label, the bar, the command's own columns, the time
remaining."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from .app import err_console, real_console

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

#: Turns what a progress callback is given into (completed, total, column fields).
Reading = Callable[..., tuple[float, float, dict]]


class ProgressBar:
    """A progress callback that draws a bar: called with whatever its command's
    callback is given, which ``reading`` turns into (completed, total, fields for the
    ``columns`` — rich format strings over ``task.completed``, ``task.total``,
    ``task.percentage`` and those fields).

    Shown from the first call — or, with ``delay_s``, only once that much wall time
    has passed and while unfinished (a short run prints no bar) — until :meth:`close`;
    ``keep`` leaves it on the screen (a sweep's tally); ``enabled=False`` draws
    nothing (interval lines are the progress report)."""

    def __init__(self, label: str, columns: list[str], reading: Reading, *, keep: bool = False,
                 delay_s: float = 0.0, remaining: bool = True, enabled: bool = True) -> None:
        self.label, self.columns, self.reading = label, columns, reading
        self.keep, self.remaining, self.enabled = keep, remaining, enabled
        self.shown_after = time.perf_counter() + delay_s
        self.lazy = delay_s > 0
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __call__(self, *given: object) -> None:
        if not self.enabled:
            return
        completed, total, fields = self.reading(*given)
        if self.bar is None:
            if time.perf_counter() < self.shown_after or (self.lazy and completed >= total):
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            columns = [TextColumn(self.label), BarColumn(), *(TextColumn(c) for c in self.columns)]
            self.bar = Progress(*columns, *([TimeRemainingColumn()] if self.remaining else []),
                                console=real_console(err_console), transient=not self.keep)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total, **fields)
        assert self.task is not None
        self.bar.update(self.task, completed=completed, total=total, **fields)

    def close(self) -> None:
        """Takes the bar off the screen (or leaves it, with ``keep``)."""
        if self.bar is not None:
            self.bar.stop()

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
