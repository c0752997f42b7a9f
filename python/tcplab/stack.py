"""What ran on each flow, in a few words — "cubic (linux, SACK)", "newreno (tcplab)",
"sctp (2 streams)", "udp" — for summary.json, flows.csv, the console and report tables
and the sweep catalog, so that no result names only "tcp" (issue #32, item 5)."""

from __future__ import annotations

import re

#: The profile a TCP flow gets when its scenario names none (docs/scenario.md).
DEFAULT_PROFILE = "tcplab"

_ORIGIN = re.compile(r"flow\[(\d+)\]")


def _written_profile(raw: dict, origin: str) -> str:
    """The `profile` the flow's table names (``origin`` is where the flow was declared,
    e.g. ``flow[3]``; a counted table's copies share it), or the default."""
    m = _ORIGIN.match(origin or "")
    flows = raw.get("flow")
    if m and isinstance(flows, list) and int(m.group(1)) < len(flows):
        table = flows[int(m.group(1))]
        transport = table.get("transport") if isinstance(table, dict) else None
        if isinstance(transport, dict) and isinstance(transport.get("profile"), str):
            return transport["profile"]
    return DEFAULT_PROFILE


def describe(flow: dict, raw: dict, stack: str | None = None, algorithm: str | None = None) -> str:
    """The label of one engine flow configuration (``scenario.engine["flows"][i]``)
    of the scenario written as ``raw``. For an emulated run, ``stack`` names who ran
    the TCP instead of the profile (``"Linux kernel"``) and ``algorithm`` the kernel's
    module, where its name differs from tcplab's (``reno`` for ``newreno``)."""
    transport = flow["transport"]
    kind = transport["type"]
    if kind == "tcp":
        where = stack or _written_profile(raw, flow.get("origin", ""))
        sack = ", SACK" if transport.get("sack") else ""
        return f"{algorithm or transport['cc']['algorithm']} ({where}{sack})"
    if kind == "sctp":
        streams = transport.get("streams", 1)
        return "sctp" if streams == 1 else f"sctp ({streams} streams)"
    return str(kind)


def with_label(flow_summary: dict, label: str) -> dict:
    """``flow_summary`` with ``label`` right after its ``transport`` (the
    column order of flows.csv and the catalog's flows view)."""
    out: dict = {}
    for key, value in flow_summary.items():
        out[key] = value
        if key == "transport":
            out["label"] = label
    out.setdefault("label", label)
    return out
