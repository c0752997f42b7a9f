"""The shape of a study file (``study.toml``): which keys each section and each check
kind takes, of which type, and which are required — checked when the study is loaded,
so that a study a user edited (``tcplab reproduce DIR``) fails in a second with the
entry named, never with a Python error after its sweeps have run (#35, #34 item 5).

Each shape is a table of key → :data:`Type`; a key missing from a shape is refused as
unknown (a misspelt ``mni`` would otherwise be silently ignored). What the values mean
(sweep names, bands that contain the paper's value, SQL identifiers) is checked after
this, in :mod:`tcplab.studies`.
"""

from __future__ import annotations

from collections.abc import Callable

from ..scenario.errors import suggest

#: A value's check: the expectation it failed to meet, or None.
Type = Callable[[object], "str | None"]


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _simple(test: Callable[[object], bool], expected: str) -> Type:
    return lambda v: None if test(v) else expected


TEXT = _simple(lambda v: isinstance(v, str), "expected a string")
NUMBER = _simple(_is_number, "expected a number")
WHOLE = _simple(lambda v: isinstance(v, int) and not isinstance(v, bool), "expected a whole number")
FLAG = _simple(lambda v: isinstance(v, bool), "expected true or false")
SCALAR = _simple(lambda v: isinstance(v, (str, int, float, bool)), "expected a number, a string or true/false")
NUMBER_OR_TEXT = _simple(lambda v: _is_number(v) or isinstance(v, str), "expected a number or a string")
ANY_TABLE = _simple(lambda v: isinstance(v, dict), "expected a table")
TEXTS = _simple(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "expected a list of strings")
SCALARS = _simple(lambda v: isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) for x in v),
                  "expected a list of numbers or strings")
#: A point of a sweep, or a row of a results table: column = value.
POINT = _simple(lambda v: isinstance(v, dict) and all(isinstance(x, (str, int, float, bool)) for x in v.values()),
                "expected a table of column = number or string, e.g. { size = 256 }")


def table(shape: dict[str, Type], required: tuple[str, ...] = ()) -> Type:
    """A table with the keys of ``shape`` (each of its type), ``required`` ones present."""
    return lambda v: problem(v, shape, required)


def list_of(item: Type) -> Type:
    """A list whose every element is of type ``item``."""
    return lambda v: _first(item, ((f"[{i}]", x) for i, x in enumerate(v))) if isinstance(v, list) else "expected a list"


def table_of(item: Type) -> Type:
    """A table of any keys whose every value is of type ``item``."""
    return lambda v: _first(item, ((f".{k}", x) for k, x in v.items())) if isinstance(v, dict) else "expected a table"


def _first(item: Type, entries) -> str | None:
    """The first of ``entries`` (path, value) that is not of type ``item``, as its path
    and problem, or None."""
    for where, x in entries:
        found = item(x)
        if found is not None:
            return f"{where}{after_key(found)}"
    return None


def after_key(found: str) -> str:
    """``found`` (a problem's text) as it follows a key path: ``.key`` and ``[i]``
    directly, a message after ': '."""
    return found if found.startswith((".", "[")) else f": {found}"


def problem(value: object, shape: dict[str, Type], required: tuple[str, ...] = ()) -> str | None:
    """What is wrong with ``value`` as a table of ``shape`` (".key: expected …"), or None."""
    if not isinstance(value, dict):
        return f"expected a table with {', '.join(required or tuple(shape))}"
    for key in required:
        if key not in value:
            return f".{key}: missing"
    for key, v in value.items():
        expected = shape.get(key)
        if expected is None:
            return f".{key}: unknown key{suggest(str(key), list(shape))}; valid keys: {', '.join(shape)}"
        found = expected(v)
        if found is not None:
            return f".{key}{after_key(found)}"
    return None


#: Per group (``by`` value): the paper's optimum, or the positions it allows.
OPTIMA = table_of(_simple(lambda v: _is_number(v) or isinstance(v, list) and bool(v) and all(map(_is_number, v)),
                          "expected the paper's optimum: a number, or a list of numbers"))

#: A measured quantity: one cell of a results table at one point of a sweep.
MEASURE = table({"sweep": TEXT, "where": POINT, "table": TEXT, "row": POINT, "column": TEXT, "scale": NUMBER,
                 "format": TEXT}, required=("column",))
#: Two measured quantities (a ratio's numerator and denominator).
PAIR = table({"sweep": TEXT, "a": MEASURE, "b": MEASURE}, required=("a", "b"))

#: Keys every check kind may take: its label, sweep, axes, grouping and band.
_COMMON = {"kind": TEXT, "label": TEXT, "sweep": TEXT, "x": TEXT, "y": TEXT, "by": TEXT, "where": POINT,
           "min": NUMBER, "max": NUMBER, "published": NUMBER, "scale": NUMBER}

#: Per check kind: the keys of its own and those it cannot do without.
CHECK_SHAPES: dict[str, tuple[dict[str, Type], tuple[str, ...]]] = {
    "measure_ratio": ({"a": MEASURE, "b": MEASURE}, ("a", "b")),
    "measure_difference": ({"a": MEASURE, "b": MEASURE}, ("a", "b")),
    "ratio_change": ({"first": PAIR, "second": PAIR}, ("first", "second")),
    "optimum": ({"expect": OPTIMA, "method": TEXT, "knee_fraction": NUMBER, "tolerance": NUMBER},
                ("sweep", "x", "y")),
    "rise": ({"low": NUMBER, "high": NUMBER, "min_ratio": NUMBER}, ("sweep", "x", "y", "low", "high", "min_ratio")),
    "flat_after": ({"after": NUMBER, "max_spread": NUMBER}, ("sweep", "x", "y", "after", "max_spread")),
    "ratio_to_best": ({"best_by": TEXT, "at": NUMBER, "min_ratio": NUMBER},
                      ("sweep", "x", "y", "best_by", "at", "min_ratio")),
    "best_beats": ({"other": TEXT, "min_ratio": NUMBER}, ("sweep", "y", "by", "other")),
    "ranking": ({"min_rho": NUMBER, "top": WHOLE}, ("sweep", "y", "by")),
    "cells": ({"factor": NUMBER}, ("sweep", "y", "factor")),
    "compare": ({"a": POINT, "b": POINT}, ("sweep", "y", "a", "b")),
    "extreme": ({"largest": FLAG, "expect": SCALAR}, ("sweep", "y", "by", "expect")),
    "value": ({"of": MEASURE}, ()),
}


def check_shape(check: object) -> str | None:
    """What is wrong with a conclusion's ``check`` table as its kind takes it, or None
    (an unknown kind is :func:`tcplab.studies.checks.check_problem`'s to name)."""
    if not isinstance(check, dict):
        return None
    kind = check.get("kind")
    if not isinstance(kind, str) or kind not in CHECK_SHAPES:  # a table is no kind (and unhashable)
        return None
    own, required = CHECK_SHAPES[kind]
    if kind == "value" and "of" not in check:
        required = ("sweep", "y")
    return problem(check, {**_COMMON, **own}, required)


_SWEEP_TABLE = ANY_TABLE  # the [sweep] table's own rules are the sweep parser's (sweeps/spec.py)

#: How ``--explore`` draws its readings (studies/explore.py): every combination of the
#: unstated values, or each varied alone around the default.
EXPLORE_DESIGNS = ("grid", "one_at_a_time")
EXPLORE_DESIGN = _simple(lambda v: v in EXPLORE_DESIGNS, "expected " + " or ".join(f'"{d}"' for d in EXPLORE_DESIGNS))

#: The sections of a study file.
STUDY = {
    "name": TEXT, "title": TEXT, "paper": TEXT, "question": TEXT, "quick_note": TEXT,
    "setup": list_of(table({"item": TEXT, "paper": TEXT, "tcplab": TEXT, "why": TEXT})),
    "unstated": list_of(table({"name": TEXT, "what": TEXT, "paper": TEXT, "values": SCALARS, "default": SCALAR,
                               "why": TEXT, "set": ANY_TABLE, "physical": FLAG},
                              required=("name", "values", "default", "set"))),
    "explore": table({"design": EXPLORE_DESIGN, "note": TEXT}),
    "sweep": list_of(table({"name": TEXT, "scenario": TEXT, "title": TEXT, "paper": TEXT, "table": _SWEEP_TABLE,
                            "quick": _SWEEP_TABLE, "explore": _SWEEP_TABLE, "full_only": FLAG, "emu": FLAG, "emu_note": TEXT,
                            "emu_differences": TEXTS, "measure": FLAG, "measure_note": TEXT},
                           required=("name", "scenario", "table"))),
    "grading": table({"factor": NUMBER, "why": TEXT}),
    "conclusion": list_of(table({"text": TEXT, "check": ANY_TABLE, "full_run": TEXT, "quick_run": TEXT,
                                 "full_only": FLAG, "explore": FLAG, "input": FLAG}, required=("text", "check"))),
    "figure": list_of(table({"title": TEXT, "quick_title": TEXT, "sweep": TEXT, "label": TEXT,
                             "others": list_of(table({"sweep": TEXT, "label": TEXT}, required=("sweep",))),
                             "x": TEXT, "xlabel": TEXT, "y": TEXT, "xscale": NUMBER, "lines": TEXT,
                             "exclude": table_of(SCALARS), "xlog": FLAG}, required=("sweep", "x", "y"))),
    "series_figure": list_of(table({"title": TEXT, "kind": TEXT, "sweep": TEXT, "where": POINT, "flows": TEXTS,
                                    "link": TEXT, "by": TEXT, "log_y": FLAG, "y_min": NUMBER},
                                   required=("kind", "sweep"))),
    "quantity": table_of(MEASURE),
    "difference": list_of(table({"text": TEXT, "full_only": FLAG, "holds": TEXTS}, required=("text",))),
    "published_table": list_of(ANY_TABLE),  # its rows' shape: studies/published.py
    "published": list_of(table({"label": TEXT, "value": NUMBER, "sweep": TEXT, "where": POINT, "table": TEXT,
                                "row": POINT, "column": TEXT, "scale": NUMBER}, required=("value",))),
}


def study_problem(data: dict) -> str | None:
    """What is wrong with a study file's structure ("conclusion[3].check.min: expected a
    number"), or None."""
    found = problem(data, STUDY)
    if found is None:
        for i, c in enumerate(data.get("conclusion", [])):
            found = check_shape(c["check"])
            if found is not None:
                return f"conclusion[{i}].check{after_key(found)}"
    return found.lstrip(".") if found else None
