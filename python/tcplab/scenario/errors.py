"""The one error type for bad scenarios, and how it reads."""

from __future__ import annotations

import json
from collections.abc import Iterable


class ScenarioError(ValueError):
    """A scenario is invalid: names the file, the field path and what was expected.

    The CLI prints ``str(error)`` and exits with status 2.
    """

    def __init__(self, path: str, message: str, source: str | None = None) -> None:
        self.path = path
        self.message = message
        self.source = source
        super().__init__(str(self))

    def __reduce__(self):
        # Pickles by its fields (the default would call __init__ with the message
        # alone, which fails on unpickling: a process pool then waits for ever).
        return (ScenarioError, (self.path, self.message, self.source))

    def with_source(self, source: str) -> ScenarioError:
        """The same error, attributed to ``source`` (a file name or "--set")."""
        return ScenarioError(self.path, self.message, source)

    def __str__(self) -> str:
        where = f"{self.source}: " if self.source else ""
        field = f"{self.path}: " if self.path else ""
        return one_line(f"{where}{field}{self.message}")


def one_line(text: str) -> str:
    """``text`` with every character that would break or hide a line (newlines,
    U+2028, other control characters) shown as an escape, so that a name a user
    wrote can never turn one message into several."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii") for c in text)


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the nearest of ``choices``, or an empty string."""
    choices = list(choices)
    lowered = {c.lower(): c for c in choices}
    if word.lower() in lowered:
        return f" (did you mean '{lowered[word.lower()]}'?)"
    import difflib  # only on the error path: keeps start-up lean

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def describe_value(value: object) -> str:
    """A value as the scenario file spells it: true, the string "x", the number 2.5, a
    list, a table (not Python's type names)."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    return f"{value!r}"
