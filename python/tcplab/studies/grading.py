"""How strictly a study's conclusion is reproduced, beyond "the check holds" (#30).

A check that holds can still say little: "STCP keeps at least twice Reno's throughput"
holds at ×2.1 although the paper measured ×5.6. So every conclusion gets a grade:

* ``reproduced`` — the finding holds *and* tcplab's value is where the paper's is:
  inside a two-sided band the check states around the paper's number, at the paper's
  position (``optimum``, ``extreme``), in the paper's order (``ranking``), cell by cell
  (``cells``), or — for a one-sided check — within the study's stated factor of the
  paper's value (``published`` in the check, or ``paper`` on the conclusion);
* ``bound`` — the check holds but only as a bound: it is one-sided and tcplab's value is
  outside the paper's band, or the paper states only a direction or a bound itself;
* ``fails`` — the check does not hold;
* ``not decided`` — its runs are missing (a quick run, a failed point), or cannot tell
  (``extreme``: the entries compared lie within their 95% confidence intervals);
* ``input`` — the conclusion measures back something the setup put in (a rate cap, a
  buffer size): shown for transparency, never counted as a finding.

The factor is declared once per study (``[grading] factor``, with why) and may be
overridden per conclusion (``factor``). Nothing here knows any particular study.
"""

from __future__ import annotations

from dataclasses import dataclass

from .checks import Outcome

#: The grades, in the order a summary counts them.
GRADES = ("reproduced", "bound", "fails", "not decided", "input")
#: Check kinds whose verdict is a position, an order or cells against the paper: when
#: they hold, the paper's result is reproduced.
POSITIONAL_KINDS = frozenset({"optimum", "extreme", "ranking", "cells"})
#: The factor of the paper's value a one-sided check's quantity must be within to count
#: as reproduced, when the study declares none.
DEFAULT_FACTOR = 1.5


@dataclass(frozen=True)
class Grade:
    """A conclusion's grade and the reason for it, in words."""

    word: str
    reason: str


def study_factor(data: dict) -> float:
    """The study's ``[grading] factor`` (``DEFAULT_FACTOR`` if it declares none)."""
    return float(data.get("grading", {}).get("factor", DEFAULT_FACTOR))


def paper_value(conclusion: dict) -> float | None:
    """The paper's value of the quantity a conclusion checks, if the study gives one."""
    value = conclusion.get("check", {}).get("published", conclusion.get("paper"))
    return float(value) if isinstance(value, (int, float)) else None


def grade(conclusion: dict, outcome: Outcome, factor: float) -> Grade:
    """The grade of one conclusion given its check's outcome (module docstring)."""
    if conclusion.get("input"):
        return Grade("input", "measures back an input of the setup; not counted as a finding")
    if outcome.holds is None:
        return Grade("not decided", outcome.detail.removeprefix("not decided: ") or "its runs are missing")
    if outcome.holds is False:
        return Grade("fails", "the check does not hold")
    check = conclusion["check"]
    factor = float(conclusion.get("factor", factor))
    if check.get("kind") in POSITIONAL_KINDS:
        return Grade("reproduced", "at the paper's position, order or cells")
    low, high = check.get("min"), check.get("max")
    if low is not None and high is not None:
        return Grade("reproduced", f"within the paper's band {low:g} … {high:g}")
    paper = paper_value(conclusion)
    if paper is None or paper == 0:
        return Grade("bound", "one-sided; the paper states only a direction or a bound")
    values = outcome.value if isinstance(outcome.value, list) else [outcome.value]
    if not values or any(v is None for v in values):
        return Grade("bound", "one-sided; no single value to set against the paper's")
    band = sorted((paper / factor, paper * factor))
    if all(band[0] <= v <= band[1] for v in values):  # type: ignore[operator]
        return Grade("reproduced", f"the paper's {paper:g} within ×{factor:g}")
    shown = ", ".join(f"{v:.3g}" for v in values)  # type: ignore[union-attr]
    return Grade("bound", f"holds as a bound only: tcplab {shown} against the paper's {paper:g} (outside ×{factor:g})")


def tally(grades: list[Grade]) -> dict[str, int]:
    """How many conclusions have each grade."""
    return {word: sum(1 for g in grades if g.word == word) for word in GRADES}


def summary_line(grades: list[Grade]) -> str:
    """One sentence counting strict reproductions, bounds and failures separately."""
    t = tally(grades)
    findings = len(grades) - t["input"]
    line = (f"Of {findings} published findings checked: {t['reproduced']} reproduced, {t['bound']} hold only as a "
            f"bound, {t['fails']} fail, {t['not decided']} not decided")
    if t["input"]:
        line += f" ({t['input']} input checks not counted)"
    return line + "."
