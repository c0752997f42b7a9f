"""A study's explanations with this run's numbers in them (#30 item 2).

The ``[[difference]]`` texts of a study explain where tcplab differs from the paper and
why. Every number in them that tcplab measured is a placeholder, ``{name}``, for a
quantity the study declares once::

    [quantity]
    reno_100 = { sweep = "table2_2618", where = { variant = "reno", rtt_ms = 100 }, column = "goodput_bps", scale = 1e-6, format = ".0f" }
    reno_per_ack_50 = { ..., table = "flows", row = { id = "f0" } }

(the ``[[published]]`` entries' form: a column of one row of ``runs``, ``flows`` or
``links`` at one point, averaged over the replications, times ``scale``). The report
fills each placeholder from this run's catalog, so the prose cannot drift from the
data; a quantity whose sweep this run did not run (a quick run) shows as "n/a" and the
paragraph says which. Numbers from the paper, or from a formula, stay literal.
"""

from __future__ import annotations

import re
from pathlib import Path

from .measures import measure

#: ``{name}`` or ``{name:format}`` (a Python format spec overriding the quantity's own).
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]+))?\}")
#: What a quantity this run did not measure shows as.
NOT_RUN = "n/a"
#: One side of a claim: ``{name}``, ``2 * {name}`` or a number.
_TERM = r"\s*(?:(?:(?P<{0}f>[0-9.]+(?:e[-+]?[0-9]+)?)\s*\*\s*)?\{{(?P<{0}q>[A-Za-z_][A-Za-z0-9_]*)\}}|(?P<{0}n>-?[0-9.]+(?:e[-+]?[0-9]+)?))\s*"
#: A claim an explanation makes of its numbers (``holds = ["{a} < {b}", "{c} >= 2 * {d}"]``).
_CLAIM = re.compile("^" + _TERM.format("l") + r"(?P<op><=|>=|<|>)" + _TERM.format("r") + "$")
_OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def format_problem(spec: str) -> str | None:
    """Why ``spec`` is not a format for a number (``.3g``, ``,.0f``), or None."""
    try:
        format(1.5, spec)
    except (ValueError, TypeError):
        return f"{spec!r} is not a format for a number (e.g. \".3g\" or \",.0f\")"
    return None


def render(text: str, quantities: dict, out: Path) -> tuple[str, list[str]]:
    """``text`` with each placeholder replaced by its quantity's value in this run, and
    the names of those this run did not measure."""
    missing: list[str] = []

    def fill(m: re.Match) -> str:
        name, spec = m.group(1), m.group(2)
        q = quantities[name]
        value, _ = measure(q, out)
        if value is None:
            missing.append(name)
            return NOT_RUN
        return format(value, spec or q.get("format", ".3g"))

    return _PLACEHOLDER.sub(fill, text), missing


def claim_names(claim: str) -> list[str] | None:
    """The quantities a claim compares, or None when it is not of the claim form."""
    m = _CLAIM.match(claim)
    return None if m is None else [q for q in (m.group("lq"), m.group("rq")) if q is not None]


def unmet_claims(claims: list[str], quantities: dict, out: Path) -> tuple[list[str], list[str]]:
    """The claims (``holds``) this run's numbers contradict, each said with its values,
    and the quantities they read that this run did not measure.

    An explanation is written against a full run; its ``holds`` state, as comparisons
    of its quantities, what its words claim ("jumbo frames do not help node 7":
    ``{jumbo} < {standard}``), so that a run whose numbers no longer show it says so
    instead of printing the claim beside numbers that contradict it."""
    unmet: list[str] = []
    missing: list[str] = []

    def side(m: re.Match, which: str) -> tuple[float | None, str]:
        if (number := m.group(which + "n")) is not None:
            return float(number), number
        name = m.group(which + "q")
        q = quantities[name]
        value, _ = measure(q, out)
        if value is None:
            missing.append(name)
            return None, name
        factor = float(m.group(which + "f") or 1)
        shown = format(value, q.get("format", ".3g"))
        return factor * value, (f"{m.group(which + 'f')} × " if m.group(which + "f") else "") + f"{name} = {shown}"

    for claim in claims:
        m = _CLAIM.match(claim)
        assert m is not None, claim  # refused when the study loads (problems)
        (a, said_a), (b, said_b) = side(m, "l"), side(m, "r")
        if a is not None and b is not None and not _OPS[m.group("op")](a, b):
            unmet.append(f"{said_a} is not {m.group('op')} {said_b}")
    return unmet, missing


def problems(data: dict, sweeps: set[str]) -> list[str]:
    """Placeholders naming no declared quantity, and quantities without a sweep or
    column or naming a sweep the study does not declare: what is wrong with a study's
    prose before anything runs."""
    quantities = data.get("quantity", {})
    found = []
    for name, q in quantities.items():
        if not isinstance(q, dict) or "sweep" not in q or "column" not in q:
            found.append(f"quantity.{name}: expected a table with sweep, column and where")
        elif q["sweep"] not in sweeps:
            found.append(f"quantity.{name}.sweep: the study declares no sweep {q['sweep']!r}")
        elif "format" in q and (bad := format_problem(q["format"])) is not None:
            found.append(f"quantity.{name}.format: {bad}")
    for i, d in enumerate(data.get("difference", [])):
        text = d if isinstance(d, str) else d.get("text", "")
        for m in _PLACEHOLDER.finditer(text):
            if m.group(1) not in quantities:
                found.append(f"difference[{i}].text: {{{m.group(1)}}} names no [quantity]")
            elif m.group(2) is not None and (bad := format_problem(m.group(2))) is not None:
                found.append(f"difference[{i}].text: {{{m.group(0)[1:-1]}}}: {bad}")
        for j, claim in enumerate(d.get("holds", []) if isinstance(d, dict) else []):
            names = claim_names(claim)
            if names is None:
                found.append(f"difference[{i}].holds[{j}]: {claim!r} is not a claim of the form "
                             "\"{a} < {b}\", \"{a} >= 2 * {b}\" or \"{a} > 0.5\"")
            found += [f"difference[{i}].holds[{j}]: {{{n}}} names no [quantity]" for n in names or [] if n not in quantities]
    return found
