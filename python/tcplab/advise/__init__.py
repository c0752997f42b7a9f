"""``tcplab advise``: what would help on this path.

Given a scenario (a path and its traffic) and the flows that are yours, the advisor
tries the changes a user can make — congestion control, the bottleneck's queue and
the hosts' socket buffers, jumbo frames, the retransmission timer, TCP or SCTP — each
as a replicated run of the same scenario, compares each with the scenario as it is
(95% confidence intervals), weighs side effects on the other flows, fairness, delay
and loss, and ranks them, with the one-line change to the scenario and to a real
host. Rules of thumb from the five studies are shown beside the evidence, as such.

Modules, one job each: :mod:`.path` (what the path is), :mod:`.knobs` (what to try),
:mod:`.evidence` (running it as a sweep), :mod:`.verdict` (effects, side effects,
ranking), :mod:`.rules` (the studies' rules of thumb), :mod:`.render` (text, JSON and
the HTML report).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..scenario import Scenario
from .evidence import CURRENT, Evidence, gather, start_offsets, sweep_spec
from .knobs import QUESTION_TITLES, QUESTIONS, Variant, variants
from .path import AdviceInputError, PathSummary, summarise
from .rules import Rule, applicable
from .verdict import HELPS, Assessment, assess, ranked, recommendation

#: Replications per variant by default: enough for a t interval to mean something.
DEFAULT_REPLICATIONS = 5


@dataclass
class QuestionAdvice:
    """One question answered: its variants judged, best first, the recommended one
    (None: keep what you have) and the studies' rules that apply."""

    question: str
    assessments: list[Assessment]
    recommended: Assessment | None
    rules: list[Rule]

    @property
    def title(self) -> str:
        """The question in words."""
        return QUESTION_TITLES[self.question]


@dataclass
class Advice:
    """Everything ``tcplab advise`` found: the path, each question's answer, the
    overall recommendation, runs that failed and notes on questions that did not
    apply."""

    path: PathSummary
    objective: str
    replications: int
    answers: list[QuestionAdvice]
    evidence: Evidence
    notes: list[str] = field(default_factory=list)
    #: What --verify found on the real hosts (None: not asked).
    verification: dict | None = None
    #: The recommendations of two or more questions made together, judged as one
    #: change (None when fewer than two questions recommend something).
    combined: Assessment | None = None

    @property
    def best(self) -> Assessment | None:
        """The change with the largest gain that helps without harming others: one
        question's recommendation, or all of them together if that gains more."""
        picks = [a.recommended for a in self.answers if a.recommended is not None]
        if self.combined is not None and self.combined.verdict == HELPS:
            picks.append(self.combined)
        return max(picks, key=lambda a: a.gain.relative if a.gain else 0.0) if picks else None


def advise(scenario: Scenario, raw: dict, out: Path, *, questions: list[str] | None = None,
           flows: list[str] | None = None, replications: int = DEFAULT_REPLICATIONS,
           base_overrides: tuple[str, ...] = (), jobs: int | None = None, dask_address: str | None = None,
           progress: Callable[[int, int, int, int], None] | None = None) -> Advice:
    """Answers ``questions`` (default: all) for ``flows`` (default: every TCP and SCTP
    flow) of ``scenario``, whose file as written is ``raw`` and whose ``--set``
    assignments are ``base_overrides``. Runs go to the sweep directory ``out``."""
    asked = list(QUESTIONS) if not questions or "all" in questions else list(dict.fromkeys(questions))
    path = summarise(scenario, flows)
    tried, notes = variants(path, asked)
    if not tried:
        raise AdviceInputError("nothing to try: " + "; ".join(notes))
    spec = sweep_spec(path, raw, tried, replications, base_overrides)
    evidence = gather(spec, out, path, jobs=jobs, dask_address=dask_address, progress=progress)
    if evidence.runs.empty or not (evidence.runs["variant"] == CURRENT).any():
        message = evidence.failures.get(CURRENT, "no run succeeded")
        raise AdviceInputError(f"the scenario as it is did not run: {message}")
    objective = "fct_s" if path.finite else "goodput_bps"
    # fairness_flows None: Jain's index is over every flow.
    fair_between = scenario.engine.get("fairness_flows") or scenario.engine["flows"]
    judged = assess(evidence.runs, tried, objective, fairness=len(fair_between) > 1)
    answers = []
    for q in asked:
        mine = [a for a in judged if a.variant.question == q]
        if not mine and not applicable(path, q):
            continue
        answers.append(QuestionAdvice(q, ranked(mine), recommendation(mine), applicable(path, q)))
    combined = _together(answers, path, raw, replications, base_overrides, out, objective, len(fair_between) > 1,
                         jobs=jobs, dask_address=dask_address, progress=progress)
    failed = [f"{name}: {message}" for name, message in evidence.failures.items()]
    if start_offsets(path, replications) is not None:
        notes.append("nothing in the scenario is random, so its replications start the flows at different fractions "
                     "of a round trip (the first as written): the intervals say how much an answer depends on the "
                     "flows' relative timing")
    elif not path.random_elements:
        notes.append("nothing in the scenario is random and it has one flow: every run of a setting is the same, "
                     "so the intervals are zero and the differences exact")
    return Advice(path=path, objective=objective, replications=replications, answers=answers, evidence=evidence,
                  notes=notes + [f"not run: {f}" for f in failed], combined=combined)


def _together(answers: list[QuestionAdvice], path: PathSummary, raw: dict, replications: int,
              base_overrides: tuple[str, ...], out: Path, objective: str, fairness: bool, **run) -> Assessment | None:
    """The questions' recommendations made at once, run and judged like any change: gains
    of separate changes need not add up (a bigger buffer and a more aggressive algorithm
    may each help and together overflow). The runs join the same sweep directory, whose
    runs of the scenario as it is they share."""
    picks = _compatible([a.recommended for a in answers if a.recommended is not None])
    if len(picks) < 2:
        return None
    together = Variant("combined", " + ".join(a.variant.name for a in picks),
                       tuple(o for a in picks for o in a.variant.overrides),
                       " ".join(a.variant.scenario_change for a in picks),
                       "; ".join(a.variant.host_change for a in picks),
                       ", ".join(dict.fromkeys(a.variant.owner for a in picks)))
    evidence = gather(sweep_spec(path, raw, [together], replications, base_overrides), out, path, **run)
    judged = assess(evidence.runs, [together], objective, fairness=fairness)
    return judged[0] if judged else None


def _compatible(picks: list[Assessment]) -> list[Assessment]:
    """The recommendations that can be made together: a change that replaces a flow's
    whole transport (TCP to SCTP) would undo the others' settings inside it (its
    congestion control, buffers, RTO), so it is left out of the combination when any
    other recommendation sets one; it stands as its own question's answer."""
    def inside(key: str, table: str) -> bool:
        return key.startswith(table + ".")

    def replaced(a: Assessment) -> list[str]:
        return [k for k, _ in a.variant.overrides if k.endswith(".transport")]

    return [a for a in picks
            if not any(inside(k, t) for t in replaced(a) for b in picks if b is not a for k, _ in b.variant.overrides)]


__all__ = ["Advice", "AdviceInputError", "QuestionAdvice", "QUESTIONS", "Variant", "advise"]
