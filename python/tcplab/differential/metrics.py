"""What a differential comparison measures in each run, and the agreement targets.

Per flow: goodput, retransmissions, mean SRTT and the cwnd sawtooth's period; over
the bulk TCP flows, Jain's fairness index. Runs of a scenario with random loss are
compared as means over their seeds (the rule is the scenario's, fixed before any
result: :attr:`~.space.Sample.random`).

Goodput is compared per *flow class*: flows the scenario makes interchangeable (same
kind, algorithm, path and RTT; :func:`~.space.flow_classes`) are one class, compared by
their mean. Which of N identical flows wins more of a shared bottleneck is decided by
timing details no two simulators share; how much the class gets is the model's
answer. A class of one flow is that flow.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field

from ..emu.crosscheck import flow_cwnd, sawtooth_period_s
from ..results import RunResult
from .space import BULK_KINDS

#: Agreement targets (issue #29). Kernel: every flow's goodput within ±10%, the
#: scenario's TCP retransmissions within a factor 1.5.
KERNEL_FLOW_TOLERANCE = 0.10
KERNEL_RETX_FACTOR = 1.5
#: ns-2: the aggregate goodput within ±10%, every flow's within ±15%.
NS2_AGGREGATE_TOLERANCE = 0.10
NS2_FLOW_TOLERANCE = 0.15
#: Shares of scenarios that must meet them (kernel: goodput, retransmissions; ns-2:
#: aggregate, per flow).
KERNEL_SHARES = (0.90, 0.80)
NS2_SHARES = (0.90, 0.80)


@dataclass
class RunMetrics:
    """One run's (or the seed mean's) figures, one entry per flow in scenario order."""

    kinds: list[str]
    goodput_bps: list[float]
    retransmits: list[float | None]
    srtt_ms: list[float | None]
    period_s: list[float | None]
    #: Each seed's per-flow goodput (mean figures: the runs they average).
    seed_goodput_bps: list[list[float]] = field(default_factory=list)

    @property
    def aggregate_bps(self) -> float:
        """Goodput summed over every flow."""
        return sum(self.goodput_bps)

    @property
    def bulk_retransmits(self) -> float:
        """Retransmissions (TCP segments, SCTP chunks) summed over the bulk flows."""
        return sum(r or 0.0 for k, r in zip(self.kinds, self.retransmits, strict=True) if k in BULK_KINDS)

    @property
    def jain(self) -> float | None:
        """Jain's index over the bulk (TCP or SCTP) flows (None with fewer than two)."""
        xs = [g for k, g in zip(self.kinds, self.goodput_bps, strict=True) if k in BULK_KINDS]
        if len(xs) < 2 or not any(xs):
            return None
        return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def measure(result: RunResult) -> RunMetrics:
    """The figures of a tcplab or emulated run."""
    flows = result.summary["flows"]
    series = result.flow_series
    periods = [sawtooth_period_s(*flow_cwnd(series, f["id"])) if f["transport"] == "tcp" else None for f in flows]
    return RunMetrics(
        kinds=[f["transport"] for f in flows],
        goodput_bps=[float(f["goodput_bps"]) for f in flows],
        retransmits=[None if f.get("retransmits") is None else float(f["retransmits"]) for f in flows],
        srtt_ms=[None if f.get("srtt_ms") is None else float(f["srtt_ms"]) for f in flows],
        period_s=periods,
    )


def mean_of(values: list[float | None]) -> float | None:
    """The mean of the known values (None when there are none)."""
    known = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.fmean(known) if known else None


def mean(runs: list[RunMetrics]) -> RunMetrics:
    """The per-flow means over runs of one scenario (different seeds)."""
    first = runs[0]
    n = len(first.kinds)
    return RunMetrics(
        kinds=first.kinds,
        goodput_bps=[statistics.fmean(r.goodput_bps[i] for r in runs) for i in range(n)],
        retransmits=[mean_of([r.retransmits[i] for r in runs]) for i in range(n)],
        srtt_ms=[mean_of([r.srtt_ms[i] for r in runs]) for i in range(n)],
        period_s=[mean_of([r.period_s[i] for r in runs]) for i in range(n)],
        seed_goodput_bps=[r.goodput_bps for r in runs],
    )


def relative(ours: float | None, theirs: float | None) -> float | None:
    """(ours − theirs) / theirs; None when either is unknown or the reference is 0."""
    if ours is None or theirs is None or theirs == 0 or math.isnan(ours) or math.isnan(theirs):
        return None
    return ours / theirs - 1.0


def factor(a: float, b: float) -> float:
    """max/min of two counts (1 when both are 0, infinite when one is)."""
    if a == b:
        return 1.0
    lo, hi = sorted((a, b))
    return math.inf if lo == 0 else hi / lo


@dataclass
class Comparison:
    """One sample in tcplab and in a reference (``Linux`` or ``ns-2``).

    ``status``: ``"compared"``, ``"excluded"`` (by a rule applied before running, with
    ``reason``) or ``"failed"`` (a backend failed; ``reason`` says how)."""

    name: str
    space: str
    description: str
    status: str
    reason: str = ""
    seeds: list[int] = field(default_factory=list)
    #: Flow classes (lists of flow indices); one class per flow when empty.
    classes: list[list[int]] = field(default_factory=list)
    ours: RunMetrics | None = None
    theirs: RunMetrics | None = None
    wall_s: float = 0.0
    #: Repeated runs of the reference on the same seed (a sample without random loss),
    #: the first being the original run. ``theirs`` is then their mean; their range is
    #: the reference's own run-to-run spread.
    reference_runs: list[RunMetrics] = field(default_factory=list)

    def flow_classes(self) -> list[list[int]]:
        """The flow classes compared (each flow alone when none were recorded)."""
        assert self.ours is not None
        return self.classes or [[i] for i in range(len(self.ours.kinds))]

    def class_goodput(self, metrics: RunMetrics, goodput: list[float] | None = None) -> list[float]:
        """Mean goodput per flow of each class."""
        values = metrics.goodput_bps if goodput is None else goodput
        return [statistics.fmean(values[i] for i in c) for c in self.flow_classes()]

    def flow_errors(self) -> list[float | None]:
        """Each flow class's mean goodput, tcplab relative to the reference."""
        assert self.ours is not None and self.theirs is not None
        return [relative(a, b) for a, b in zip(self.class_goodput(self.ours), self.class_goodput(self.theirs), strict=True)]

    def _runs_on_both_sides(self) -> bool:
        """Whether each side has two runs or more, so that its mean has a spread."""
        assert self.ours is not None and self.theirs is not None
        return min(len(self.ours.seed_goodput_bps), len(self.theirs.seed_goodput_bps)) >= 2

    def seed_noise(self) -> list[float | None]:
        """Per class: two standard errors of the difference of the seed means,
        relative to the reference's mean (None unless each side has two runs or more:
        the kernel's repeated runs of a sample without random loss against tcplab's
        phase replicas count as its runs)."""
        assert self.ours is not None and self.theirs is not None
        if not self._runs_on_both_sides():
            return [None] * len(self.flow_classes())
        ours = [self.class_goodput(self.ours, g) for g in self.ours.seed_goodput_bps]
        theirs = [self.class_goodput(self.theirs, g) for g in self.theirs.seed_goodput_bps]
        return [_two_standard_errors([run[j] for run in ours], [run[j] for run in theirs], ref)
                for j, ref in enumerate(self.class_goodput(self.theirs))]

    def aggregate_noise(self) -> float | None:
        """Two standard errors of the difference of the seed means of the aggregate
        goodput, relative to the reference's (None with one seed)."""
        assert self.ours is not None and self.theirs is not None
        if not self._runs_on_both_sides():
            return None
        return _two_standard_errors([sum(g) for g in self.ours.seed_goodput_bps],
                                    [sum(g) for g in self.theirs.seed_goodput_bps], self.theirs.aggregate_bps)

    def precise_enough(self) -> bool:
        """Whether the seed means are known well enough to judge the targets by: two
        standard errors of their difference at most half the tolerance, for the
        aggregate (ns-2's target) and for every flow class. One seed (no random loss) is
        taken as it is; a class the reference gave nothing is not judged by it."""
        aggregate_tolerance = None if self.space == "kernel" else NS2_AGGREGATE_TOLERANCE
        _, class_tolerance, _ = flow_target(self.space)
        noise = self.aggregate_noise()
        if aggregate_tolerance is not None and noise is not None and noise > aggregate_tolerance / 2:
            return False
        return all(n is None or n <= class_tolerance / 2 for n in self.seed_noise())

    def reference_range(self) -> list[tuple[float, float] | None]:
        """Per class: the lowest and highest of the reference's repeated runs (None
        without repeats)."""
        if len(self.reference_runs) < 2:
            return [None] * len(self.flow_classes())
        runs = [self.class_goodput(run) for run in self.reference_runs]
        return [(min(r[j] for r in runs), max(r[j] for r in runs)) for j in range(len(runs[0]))]

    def reference_self_errors(self) -> list[float]:
        """Per repeated run of the reference: its worst flow-class error (magnitude)
        relative to the mean of the *other* runs; empty without repeats.

        What a model that behaved exactly like one more run of the reference could
        expect against it: the reference's own reproducibility, a yardstick for the
        goodput target (not a tolerance: the target is never changed by it)."""
        if len(self.reference_runs) < 2:
            return []
        runs = [self.class_goodput(run) for run in self.reference_runs]
        errors = []
        for i, run in enumerate(runs):
            others = [r for j, r in enumerate(runs) if j != i]
            rest = [statistics.fmean(o[k] for o in others) for k in range(len(run))]
            worst = [abs(e) if (e := relative(a, b)) is not None else math.inf for a, b in zip(run, rest, strict=True)]
            errors.append(max(worst))
        return errors

    def aggregate_error(self) -> float | None:
        """Goodput summed over every flow, tcplab relative to the reference."""
        assert self.ours is not None and self.theirs is not None
        return relative(self.ours.aggregate_bps, self.theirs.aggregate_bps)

    def retransmit_factor(self) -> float:
        """Bulk-flow retransmissions (TCP segments, SCTP chunks), the larger count over the smaller (see :func:`factor`)."""
        assert self.ours is not None and self.theirs is not None
        return factor(self.ours.bulk_retransmits, self.theirs.bulk_retransmits)

    def worst_flow_error(self) -> float:
        """The flow-class error of largest magnitude, with its sign (infinite when a
        class has no reference figure)."""
        errors = [e if e is not None else math.inf for e in self.flow_errors()]
        return max(errors, key=abs)

    def verdicts(self) -> dict[str, bool]:
        """Each target of the space: met or not."""
        if self.space == "kernel":
            return {"goodput": abs(self.worst_flow_error()) <= KERNEL_FLOW_TOLERANCE,
                    "retransmits": self.retransmit_factor() <= KERNEL_RETX_FACTOR}
        aggregate = self.aggregate_error()
        return {"aggregate": aggregate is not None and abs(aggregate) <= NS2_AGGREGATE_TOLERANCE,
                "per flow": abs(self.worst_flow_error()) <= NS2_FLOW_TOLERANCE}

    def to_json(self) -> dict:
        """Plain data for ``comparison.json``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Comparison:
        """The comparison :meth:`to_json` wrote."""
        fields = dict(data)
        ours, theirs = fields.pop("ours", None), fields.pop("theirs", None)
        runs = [RunMetrics(**run) for run in fields.pop("reference_runs", [])]
        return cls(**fields, ours=RunMetrics(**ours) if ours else None, theirs=RunMetrics(**theirs) if theirs else None,
                   reference_runs=runs)


def _two_standard_errors(ours: list[float], theirs: list[float], reference: float) -> float | None:
    """Two standard errors of the difference of two seed means (each side's runs),
    relative to ``reference`` (None when it is 0)."""
    if not reference:
        return None
    var = sum(statistics.variance(side) / len(side) for side in (ours, theirs))
    return 2 * math.sqrt(var) / reference


def flow_target(space: str) -> tuple[str, float, float]:
    """(verdict key, tolerance, required share) of the space's per-flow-class goodput target."""
    if space == "kernel":
        return "goodput", KERNEL_FLOW_TOLERANCE, KERNEL_SHARES[0]
    return "per flow", NS2_FLOW_TOLERANCE, NS2_SHARES[1]


def targets(space: str) -> list[tuple[str, float, str]]:
    """(verdict key, required share, wording) of the space's targets."""
    if space == "kernel":
        return [("goodput", KERNEL_SHARES[0], f"every flow's goodput within ±{KERNEL_FLOW_TOLERANCE:.0%}"),
                ("retransmits", KERNEL_SHARES[1], f"TCP retransmissions within a factor {KERNEL_RETX_FACTOR:g}")]
    return [("aggregate", NS2_SHARES[0], f"aggregate goodput within ±{NS2_AGGREGATE_TOLERANCE:.0%}"),
            ("per flow", NS2_SHARES[1], f"every flow's goodput within ±{NS2_FLOW_TOLERANCE:.0%}")]
