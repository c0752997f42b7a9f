"""tcplab and ns-2.35 losing exactly the same packets (tests/ns2/README.md, "Same
drops"): one Agent/TCP flow (Reno, Newreno, Sack1) against ``profile = "ns2"`` on a
loss-limited long path, the bottleneck dropping the packets of a list — tcplab's
``loss = { type = "list" }``, ns-2's ``ErrorModel/List`` — drawn once per list from
its own seeded stream. With the randomness of the losses taken out, the two tools'
answers differ only by their TCPs: goodput, retransmissions and timeouts per list.

    python tests/ns2/drop_lists.py                  # 20 lists x 3 agents, 60 s each
    python tests/ns2/drop_lists.py --lists 4 --agents Sack1
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "differential"))
import ns2 as sampled  # noqa: E402  (tests/differential/ns2.py: both renderings of a sample)
from tcplab.differential.space import MSS, Flow, Sample  # noqa: E402

AGENTS = ("Reno", "Newreno", "Sack1")
#: The path: sample ns2-tcp-s1-029's (docs/differential.md), one flow. 200 ms RTT and
#: 2.3% loss keep the window near 8 segments: the regime of fast retransmits and
#: timeouts where the two tools once parted by 5% (README.md).
PATH = Sample(space="ns2-tcp", seed=1, index=29, topology="dumbbell", neck_bps=3_084_923_000.0,
              base_rtt_s=0.2, buffer_packets=28_890, access_factor=638.0,
              flows=(Flow(kind="tcp", cc="Sack1", rtt_s=0.2, hops=(0,)),), duration_s=60.0)
LOSS_RATE = 0.023
#: Packets a list covers (the flow sends about 4,500 in 60 s).
LIST_LENGTH = 20_000


@dataclass
class Outcome:
    """One tool's figures for one flow."""

    goodput_bps: float
    retransmits: int
    timeouts: int


def drops(index: int) -> list[int]:
    """List ``index``: each packet crossing the bottleneck dropped with probability
    LOSS_RATE, numbered from 0 (ns-2's count; tcplab's list counts from 1)."""
    rng = random.Random(index)
    return [k for k in range(LIST_LENGTH) if rng.random() < LOSS_RATE]


def _sample(agent: str, duration_s: float) -> Sample:
    return replace(PATH, flows=(replace(PATH.flows[0], cc=agent),), duration_s=duration_s)


def run_tcplab(agent: str, dropped: list[int], duration_s: float) -> Outcome:
    """tcplab's side: the sample's scenario with the list on the bottleneck."""
    import tcplab

    doc = sampled.scenario_of(_sample(agent, duration_s))
    neck = next(link for link in doc["link"] if (link["from"], link["to"]) == ("r0", "r1"))
    neck["forward"]["loss"] = {"type": "list", "packets": [k + 1 for k in dropped]}
    neck["forward"]["loss_at"] = "before_queue"
    flow = tcplab.run(tcplab.load(doc)).flows.iloc[0]
    return Outcome(float(flow.goodput_bps), int(flow.retransmits), int(flow.rto_count))


def run_ns2(agent: str, dropped: list[int], duration_s: float, ns: str = "ns") -> Outcome:
    """ns-2's side: the sample's script with an ErrorModel/List before the queue."""
    sample = _sample(agent, duration_s)
    script = sampled.tcl(sample, 1).replace("$ns run", "\n".join([
        "set em [new ErrorModel/List]", "$em droplist {" + " ".join(map(str, dropped)) + "}",
        "$ns lossmodel $em $r(0) $r(1)", "$em drop-target [new Agent/Null]", "$ns run"]))
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "drops.tcl").write_text(script)
        proc = subprocess.run([ns, "drops.tcl"], cwd=d, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"ns-2 failed: {proc.stderr.strip()[-400:]}")
    words = next(line.split() for line in proc.stdout.splitlines() if line.startswith("tcp 0 "))
    # ack_: the highest segment acknowledged in order, numbered from 0.
    goodput = (int(words[2]) + 1) * MSS * 8 / duration_s
    return Outcome(goodput, int(words[3]), int(words[4]))


def compare(agent: str, lists: range, duration_s: float, ns: str = "ns") -> list[tuple[Outcome, Outcome]]:
    """Both tools on each list: (tcplab, ns-2) per list."""
    return [(run_tcplab(agent, drops(i), duration_s), run_ns2(agent, drops(i), duration_s, ns)) for i in lists]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lists", type=int, default=20)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds per run")
    ap.add_argument("--agents", default=",".join(AGENTS))
    args = ap.parse_args(argv)
    print("| agent | lists | goodput Mbit/s tcplab / ns-2 | Δ mean | worst list | retransmissions | timeouts |")
    print("|---|---|---|---|---|---|---|")
    for agent in args.agents.split(","):
        pairs = compare(agent, range(args.lists), args.duration)
        ours = statistics.mean(o.goodput_bps for o, _ in pairs)
        theirs = statistics.mean(t.goodput_bps for _, t in pairs)
        worst = max((o.goodput_bps / t.goodput_bps - 1 for o, t in pairs), key=abs)
        print(f"| {agent} | {len(pairs)} | {ours / 1e6:.4f} / {theirs / 1e6:.4f} | {ours / theirs - 1:+.1%} "
              f"| {worst:+.1%} | {sum(o.retransmits for o, _ in pairs)} / {sum(t.retransmits for _, t in pairs)} "
              f"| {sum(o.timeouts for o, _ in pairs)} / {sum(t.timeouts for _, t in pairs)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
