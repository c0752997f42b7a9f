"""Small, safe expressions inside scenario and sweep strings.

Used in three places: per-index values of counted tables (``from = "left{i}"``,
``start = "{i*100}ms"``), values a sweep parameter sets (``"{delay_ms/2}ms"``) and a
sweep's ``exclude`` conditions (``"rto_s < 0.05 and delay_ms >= 10"``).

An expression is Python syntax restricted to numbers, strings, names given by the
caller, arithmetic (``+ - * / // % **``), comparisons, ``and``/``or``/``not``, ``in``
with a literal tuple or list, and the functions ``min``, ``max``, ``round``, ``abs``.
Nothing else is evaluated (no attribute access, no calls of other functions), so a
scenario file cannot run code.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from .errors import ScenarioError

#: The largest whole number an expression may produce, in decimal digits, and the
#: longest string or tuple: no scenario quantity needs more (the engine's integers stop
#: at 20 digits, floats at 309), and a few characters of input must not be able to
#: occupy the machine (`9**9**9`, `'a'*10**9`).
MAX_DIGITS = 1000
MAX_LENGTH = 10_000


class _TooLarge(Exception):
    """An operation whose result would exceed MAX_DIGITS or MAX_LENGTH."""


def _digits(n: int) -> float:
    """Decimal digits of ``n``, estimated from its bit length (no conversion)."""
    return abs(n).bit_length() * 0.30103


def _checked_pow(a: Any, b: Any) -> Any:
    whole = isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1
    if whole and b * math.log10(abs(a)) > MAX_DIGITS:
        raise _TooLarge(f"{a}**{b} has more than {MAX_DIGITS} digits")
    return operator.pow(a, b)


def _checked_mul(a: Any, b: Any) -> Any:
    for seq, n in ((a, b), (b, a)):
        if isinstance(seq, (str, tuple)) and isinstance(n, int) and len(seq) * n > MAX_LENGTH:
            raise _TooLarge(f"a repetition of {len(seq) * n:,} items (at most {MAX_LENGTH:,})")
    if isinstance(a, int) and isinstance(b, int) and _digits(a) + _digits(b) > MAX_DIGITS:
        raise _TooLarge(f"a product of more than {MAX_DIGITS} digits")
    return operator.mul(a, b)


_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: _checked_mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: _checked_pow,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {"min": min, "max": max, "round": round, "abs": abs}

#: ``{expression}`` inside a template string.
_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def evaluate(expression: str, names: dict, path: str = "") -> object:
    """The value of ``expression`` with ``names`` bound; a :class:`ScenarioError` at
    ``path`` for anything malformed, unknown or not allowed."""
    tree = _parsed(expression)
    if tree is None:
        raise ScenarioError(path, f"cannot read the expression {expression!r}")
    try:
        return _eval(tree.body, names, expression, path)
    except ZeroDivisionError:
        raise ScenarioError(path, f"division by zero in {expression!r}") from None
    except _TooLarge as e:
        raise ScenarioError(path, f"{expression!r} is too large: {e}") from None
    except OverflowError:
        raise ScenarioError(path, f"{expression!r} is too large for a number (beyond about 1e308)") from None
    except (TypeError, ValueError) as e:
        raise ScenarioError(path, f"cannot evaluate {expression!r}: {e}") from None


@functools.lru_cache(maxsize=4096)
def _parsed(expression: str) -> ast.Expression | None:
    """``expression``'s syntax tree (None if it is not one): a counted table renders
    the same few expressions for each of its N copies, and a sweep for every point."""
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return None


def _eval(node: ast.AST, names: dict, text: str, path: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            from .errors import suggest

            known = ", ".join(sorted(names)) or "none"
            raise ScenarioError(path, f"unknown name '{node.id}' in {text!r}{suggest(node.id, names)}; names available: {known}")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, names, text, path), _eval(node.right, names, text, path))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        value = _eval(node.operand, names, text, path)
        return -value if isinstance(node.op, ast.USub) else (+value if isinstance(node.op, ast.UAdd) else not value)
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names, text, path) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        left = _eval(node.left, names, text, path)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, names, text, path)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, names, text, path) for e in node.elts)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
            and not node.keywords):
        return _FUNCTIONS[node.func.id](*(_eval(a, names, text, path) for a in node.args))
    raise ScenarioError(path, f"not allowed in an expression: {ast.unparse(node)!r} (in {text!r}); "
                              "use numbers, names, + - * / // % **, comparisons, and/or/not, in (...), min/max/round/abs")


def format_number(value: object) -> str:
    """A number as a scenario would write it: ``3``, ``0.05``, ``1e-06`` (12 significant
    digits, so 0.1*3 reads 0.3, not 0.30000000000000004)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".12g")
    return str(value)


def render(template: str, names: dict, path: str = "") -> object:
    """``template`` with every ``{expression}`` replaced by its value. A template that
    is a single placeholder and nothing else keeps the value's type (so ``"{i}"`` is
    the integer ``i``); otherwise the result is a string."""
    whole = _PLACEHOLDER.fullmatch(template)
    if whole:
        return evaluate(whole.group(1), names, path)
    return _PLACEHOLDER.sub(lambda m: format_number(evaluate(m.group(1), names, path)), template)


def is_template(value: object) -> bool:
    """Whether ``value`` is a string with at least one ``{expression}``."""
    return isinstance(value, str) and _PLACEHOLDER.search(value) is not None
