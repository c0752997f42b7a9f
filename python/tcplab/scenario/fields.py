"""Reading one table of a scenario: known keys only, typed values, exact paths."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from .errors import ScenarioError, describe_value, suggest

if TYPE_CHECKING:  # annotations only: `typing` costs start-up time at run time
    from typing import Any, TypeVar

    T = TypeVar("T")

_MISSING: Any = object()


def join(path: str, key: str | int) -> str:
    """``path.key`` or ``path[i]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


class Table:
    """A dict from the scenario, read key by key.

    Unknown keys are reported up front (with the nearest valid key), so a misspelled
    key reads "unknown key" instead of a confusing "missing" for the intended one.
    """

    def __init__(self, data: object, path: str, allowed: Iterable[str], what: str = "a table") -> None:
        if not isinstance(data, dict):
            raise ScenarioError(path, f"expected {what} (key = value pairs), got {describe_value(data)}")
        self.data: dict = data
        self.path = path
        self.allowed = list(allowed)
        for key in data:
            if key not in self.allowed:
                raise ScenarioError(
                    join(path, str(key)),
                    f"unknown key '{key}'{suggest(str(key), self.allowed)}; valid keys here: {', '.join(self.allowed)}",
                )

    def has(self, key: str) -> bool:
        """Whether the user wrote ``key``."""
        return key in self.data

    def get(self, key: str, parse: Callable[[object, str], T], default: T = _MISSING) -> T:
        """The parsed value of ``key``; required unless a default is given."""
        if key not in self.data:
            if default is _MISSING:
                raise ScenarioError(join(self.path, key), "missing (required)")
            return default
        return parse(self.data[key], join(self.path, key))


def string(value: object, path: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise ScenarioError(path, f"expected a non-empty string, got {describe_value(value)}")
    return value


def boolean(value: object, path: str) -> bool:
    """true or false."""
    if not isinstance(value, bool):
        raise ScenarioError(path, f"expected true or false, got {describe_value(value)}")
    return value


def integer(value: object, path: str, *, minimum: int = 0) -> int:
    """A whole number ≥ ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(path, f"expected a whole number, got {describe_value(value)}")
    if value < minimum:
        raise ScenarioError(path, f"must be at least {minimum}, got {value}")
    return value


def positive_integer(value: object, path: str) -> int:
    """A whole number ≥ 1."""
    return integer(value, path, minimum=1)


#: The largest count the engine keeps in 32 bits (segments, streams, ACK ratios, bytes
#: of one packet or message).
U32_MAX = 2**32 - 1


def at_most_u32(n: int, path: str) -> int:
    """``n``, or a ScenarioError naming ``path`` when it exceeds :data:`U32_MAX`: the
    front end checks it, since the engine's reader could only say "expected u32"
    without the field."""
    if n > U32_MAX:
        raise ScenarioError(path, f"at most {U32_MAX:,}, got {n:,}")
    return n


def count32(value: object, path: str) -> int:
    """A whole number from 1 to :data:`U32_MAX`."""
    return at_most_u32(positive_integer(value, path), path)


def number(value: object, path: str) -> float:
    """A finite non-negative number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError(path, f"expected a number, got {describe_value(value)}")
    if value < 0 or value != value or value in (float("inf"),):
        raise ScenarioError(path, f"expected a finite non-negative number, got {value}")
    return float(value)


def choice(options: Iterable[str]) -> Callable[[object, str], str]:
    """One of ``options``, with a suggestion when misspelled."""
    options = list(options)

    def parse(value: object, path: str) -> str:
        if not isinstance(value, str) or value not in options:
            hint = suggest(value, options) if isinstance(value, str) else ""
            raise ScenarioError(path, f"unknown value {value!r}{hint}; expected one of: {', '.join(options)}")
        return value

    return parse


def tagged(value: object, path: str, kinds: list[str], example: str) -> str:
    """The `type` of a tagged table (queue, loss model, application, transport): the
    value must be a table whose `type` is one of `kinds`; `example` shows one."""
    if not isinstance(value, dict):
        raise ScenarioError(path, f"expected a table like {example}, got {describe_value(value)}")
    if "type" not in value:
        raise ScenarioError(join(path, "type"), f"missing (required); expected one of: {', '.join(kinds)}")
    return choice(kinds)(value["type"], join(path, "type"))


def list_of(item: Callable[[object, str], T]) -> Callable[[object, str], list[T]]:
    """A list whose items are parsed by ``item``."""

    def parse(value: object, path: str) -> list[T]:
        if not isinstance(value, list):
            raise ScenarioError(path, f"expected a list, got {describe_value(value)}")
        return [item(v, join(path, i)) for i, v in enumerate(value)]

    return parse
