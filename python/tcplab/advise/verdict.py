"""Judging each variant against the scenario as it is: the change in your flows'
goodput (or completion time) with a 95% confidence interval, its side effects on the
other flows, fairness, delay and loss, a verdict, and the ranking within a question.

A gain counts only when its interval excludes zero and it is at least
:data:`MIN_EFFECT`; a variant that gains at the others' expense (their goodput down by
:data:`HARM` or more; with no other flows, Jain's index over yours down by
:data:`FAIRNESS_DROP`) is said to, and is never the recommendation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..sweeps.stats import difference_ci
from .evidence import CURRENT
from .knobs import Variant

#: The smallest relative change called an effect (smaller ones are within what
#: replications of one setting differ by on most paths).
MIN_EFFECT = 0.02
#: The others' goodput falling by this fraction (significantly) is harm.
HARM = 0.10
#: Jain's index falling by this much (significantly) is harm.
FAIRNESS_DROP = 0.05
#: Your packets' mean delay rising by this fraction is named as a side effect.
DELAY_RISE = 0.25

HELPS = "helps"
HELPS_AT_OTHERS_EXPENSE = "helps you, at the others' expense"
HURTS = "hurts"
UNCLEAR = "no clear effect"


@dataclass(frozen=True)
class Change:
    """A measure's mean under the variant, under the current setting, and the
    difference's 95% confidence interval, relative to the current mean."""

    mean: float
    base: float
    #: (variant − current) / current, and the interval's half-width on that scale.
    relative: float
    half_width: float | None

    @property
    def low(self) -> float:
        """The interval's lower end (NaN when unknown)."""
        return self.relative - self.half_width if self.half_width is not None else math.nan

    @property
    def high(self) -> float:
        """The interval's upper end (NaN when unknown)."""
        return self.relative + self.half_width if self.half_width is not None else math.nan

    def significant(self, at_least: float) -> int:
        """+1 if the change is surely above ``at_least``, −1 if surely below
        −``at_least``, 0 otherwise (or without an interval)."""
        if self.half_width is None or math.isnan(self.relative):
            return 0
        if self.low > 0 and self.relative >= at_least:
            return 1
        if self.high < 0 and self.relative <= -at_least:
            return -1
        return 0


def change(variant: list[float], current: list[float]) -> Change | None:
    """The :class:`Change` from ``current`` to ``variant`` runs (None if either has no
    value or the current mean is zero)."""
    diff, half = difference_ci(variant, current)
    clean = [v for v in current if v == v]
    base = sum(clean) / len(clean) if clean else math.nan
    if math.isnan(diff) or not base:
        return None
    return Change(mean=base + diff, base=base, relative=diff / abs(base),
                  half_width=None if half is None else half / abs(base))


@dataclass(frozen=True)
class Assessment:
    """One variant judged: the change in the objective (positive = better), the side
    effects, the verdict and why."""

    variant: Variant
    #: The objective's change; for completion time, the relative *saving* (positive = faster).
    gain: Change | None
    others: Change | None
    fairness: Change | None
    delay: Change | None
    loss: Change | None
    runs: int
    verdict: str
    #: Side effects in words ("the other flows' goodput −35% [−40, −30]").
    side_effects: tuple[str, ...]


def _values(runs, variant: str, measure: str) -> list[float]:
    return [float(v) for v in runs.loc[runs["variant"] == variant, measure] if v == v]


def assess(runs, variants: list[Variant], objective: str, fairness: bool = True) -> list[Assessment]:
    """Every variant with runs, judged against the current setting's runs.
    ``objective`` is ``"goodput_bps"`` (higher is better) or ``"fct_s"`` (lower);
    ``fairness`` False when the scenario has fewer than two flows to be fair between."""
    out = []
    for v in variants:
        if not (runs["variant"] == v.name).any():
            continue

        def measure(name: str, _v: Variant = v) -> Change | None:
            return change(_values(runs, _v.name, name), _values(runs, CURRENT, name))

        gain = measure(objective)
        if gain is not None and objective == "fct_s":
            # A completion time that falls by x% is a gain of x%: flip the sign.
            gain = Change(gain.mean, gain.base, -gain.relative, gain.half_width)
        others, delay, loss = measure("others_goodput_bps"), measure("delay_ms"), measure("loss_rate")
        jain = _jain_change(runs, v.name) if fairness else None
        effects = _side_effects(others, jain, delay, loss)
        # Harm is what the others lose. Jain's index alone is no harm where others exist
        # (your flow taking bandwidth nobody used lowers it too); among your own flows,
        # with nobody else there, a fall in it is (a long-RTT flow starved).
        harm = (others.significant(HARM) < 0 if others is not None
                else jain is not None and jain.significant(FAIRNESS_DROP) < 0)
        direction = gain.significant(MIN_EFFECT) if gain is not None else 0
        verdict = (HURTS if direction < 0 else UNCLEAR if direction == 0
                   else HELPS_AT_OTHERS_EXPENSE if harm else HELPS)
        out.append(Assessment(v, gain, others, jain, delay, loss, int((runs["variant"] == v.name).sum()), verdict, effects))
    return out


def _jain_change(runs, variant: str) -> Change | None:
    """Jain's index compared in absolute terms (an index, not a quantity): ``relative``
    holds the difference of the means."""
    now, then = _values(runs, variant, "jain"), _values(runs, CURRENT, "jain")
    diff, half = difference_ci(now, then)
    if math.isnan(diff):
        return None
    base = sum(then) / len(then)
    return Change(mean=base + diff, base=base, relative=diff, half_width=half)


def percent(c: Change, points: bool = False) -> str:
    """A change as "+12% [+8, +16]", beyond doubling as a factor ("×3.1 [×2.8, ×3.4]");
    ``points``: as index points ("-0.12 [-0.20, -0.04]")."""
    if points:
        text = f"{c.relative:+.2f}"
        return text + (f" [{c.low:+.2f}, {c.high:+.2f}]" if c.half_width is not None else "")
    if c.relative >= 1 and (c.half_width is None or c.low > -1):
        # Beyond doubling, a factor reads better than a percentage ("×38", not "+3687%").
        text = f"×{1 + c.relative:.3g}"
        return text + (f" [×{1 + c.low:.3g}, ×{1 + c.high:.3g}]" if c.half_width is not None else "")
    text = f"{c.relative * 100:+.0f}%"
    return text + (f" [{c.low * 100:+.0f}, {c.high * 100:+.0f}]" if c.half_width is not None else "")


def _side_effects(others: Change | None, jain: Change | None, delay: Change | None, loss: Change | None) -> tuple[str, ...]:
    out = []
    if others is not None and others.significant(MIN_EFFECT):
        out.append(f"the other flows' goodput {percent(others)}")
    if jain is not None and jain.significant(0.01):
        out.append(f"Jain's fairness index {percent(jain, points=True)}")
    if delay is not None and delay.significant(DELAY_RISE) > 0:
        out.append(f"your packets' delay {percent(delay)}")
    if loss is not None and loss.significant(0.25):
        out.append(f"your loss rate {percent(loss)}")
    return tuple(out)


def ranked(assessments: list[Assessment]) -> list[Assessment]:
    """Best first: helping variants by gain, then those that help at others' expense,
    then unclear ones, then those that hurt."""
    order = {HELPS: 0, HELPS_AT_OTHERS_EXPENSE: 1, UNCLEAR: 2, HURTS: 3}
    return sorted(assessments, key=lambda a: (order[a.verdict], -(a.gain.relative if a.gain else -math.inf)))


def recommendation(assessments: list[Assessment]) -> Assessment | None:
    """The variant to recommend: the largest gain among those that help without harm."""
    helping = [a for a in ranked(assessments) if a.verdict == HELPS]
    return helping[0] if helping else None
