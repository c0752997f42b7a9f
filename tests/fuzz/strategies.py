"""Hypothesis strategies for the scenario fuzzer: valid seed scenarios, structural
mutations (wrong types, extreme numbers and units, deep nesting, odd strings,
dangling references, duplicated tables, missing and unknown keys), serialization to
TOML or YAML, byte-level corruption, and odd command-line arguments."""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field

import yaml
from hypothesis import strategies as st

# Valid starting points, each small enough to run in well under a second.
SEEDS: list[dict] = [
    {
        "simulation": {"duration": "0.5s", "seed": 1},
        "topology": {"dumbbell": {"pairs": 2, "access": {"bandwidth": "100Mbps", "delay": "2ms"},
                                  "bottleneck": {"bandwidth": "10Mbps", "delay": "10ms",
                                                 "queue": {"type": "droptail", "limit": "50 packets"}}}},
        "flow": [{"from": "left0", "to": "right0", "transport": "udp",
                  "app": {"type": "cbr", "rate": "6Mbps", "packet_size": "1000B"}}],
    },
    {
        "simulation": {"duration": "1s", "seed": 3, "bin": "100ms"},
        "topology": {"dumbbell": {"pairs": 3, "access": {"bandwidth": "1Gbps", "delay": "1ms"},
                                  "bottleneck": {"bandwidth": "50Mbps", "delay": "20ms",
                                                 "queue": {"type": "red", "limit": "100 packets"}}}},
        "flow": [{"count": 3, "from": "left{i}", "to": "right{i}", "start": "{i*10}ms",
                  "transport": {"type": "tcp", "cc": "cubic", "sack": True},
                  "app": {"type": "bulk"}}],
    },
    {
        "simulation": {"duration": "0.5s"},
        "node": [{"name": "a"}, {"name": "r", "kind": "router"}, {"name": "b"}],
        "link": [{"from": "a", "to": "r", "bandwidth": "100Mbps", "delay": "1ms", "mtu": 9000},
                 {"from": "r", "to": "b", "bandwidth": "20Mbps", "delay": "5ms",
                  "loss": {"type": "bernoulli", "rate": 0.01}}],
        "flow": [{"from": "a", "to": "b", "transport": {"type": "tcp", "cc": {"algorithm": "bbr"}},
                  "app": {"type": "file", "size": "200KB"}},
                 {"from": "b", "to": "a", "transport": "udp",
                  "app": {"type": "onoff", "rate": "2Mbps", "packet_size": "500B", "on": "50ms", "off": "50ms"}}],
    },
    {
        "simulation": {"duration": "0.5s"},
        "node": [{"name": "s"}, {"name": "c0"}, {"name": "c1"}],
        "segment": [{"name": "lan", "stations": ["s", "c0", "c1"], "bandwidth": "10Mbps", "delay": "0.1ms"}],
        "flow": [{"from": "c0", "to": "s", "transport": {"type": "tcp", "cc": "reno"}, "app": {"type": "bulk"}},
                 {"from": "c1", "to": "s", "transport": "udp",
                  "app": {"type": "poisson", "rate": "1Mbps", "packet_size": "200B"}}],
    },
]

UNITS = ["s", "ms", "us", "ns", "h", "bps", "kbps", "Mbps", "Gbps", "Tbps", "B", "KB", "MB", "GB", "KiB",
         "packets", " packets", "%", "", "Mbsp", "sec"]
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, -1, 1, 2**31, 2**32, 2**63 - 1, 2**64, 1e-300, 1e300, 1e308, 0.5, 1.5]),
)
ODD_TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["[/]", "[bold]x", "{i}", "{1/0}", "{i**999999}", "left0", "right9", "../../etc", "\x00", "é∂≈",
                     "nan", "inf", "-0", "1e999s", "tcp", "udp", "droptail"]),
    st.builds(lambda n: "x" * n, st.integers(1000, 100_000)),
)
WITH_UNIT = st.builds(lambda n, u: f"{n}{u}", st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=True)), st.sampled_from(UNITS))


@dataclass(frozen=True)
class Deep:
    """A value nested ``depth`` levels deep (lists, or tables {a = ...}), kept as a
    description and written out as text: a real 3,000-level structure would exhaust
    the fuzzer's own stack before it reached tcplab's."""

    depth: int
    kind: str

    def text(self, table: str) -> str:
        """TOML or JSON/YAML text (``table`` is the key-value form: '"a" = ' or '"a": ')."""
        if self.kind == "list":
            return "[" * self.depth + "1" + "]" * self.depth
        return ("{" + table) * self.depth + "1" + "}" * self.depth


def _deep(depth: int, kind: str) -> Deep:
    return Deep(depth, kind)


DEEP = st.builds(_deep, st.integers(20, 3000), st.sampled_from(["list", "dict"]))
ODD_VALUES = st.one_of(NUMBERS, ODD_TEXT, WITH_UNIT, st.booleans(), DEEP,
                       st.lists(st.integers(-5, 5), max_size=4), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3))


def leaves(value: object, path: tuple = ()) -> list[tuple]:
    """Paths (tuples of keys and indices) of every value in a scenario, down to depth 8."""
    out = [path] if path else []
    if len(path) >= 8:
        return out
    if isinstance(value, dict):
        for k, v in value.items():
            out += leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += leaves(v, path + (i,))
    return out


def _parent(doc: dict, path: tuple):
    node = doc
    for step in path[:-1]:
        node = node[step]
    return node


#: How a scenario is mutated (a dangling reference: a name no node has).
SCENARIO_OPS = ("set", "set", "set", "delete", "unknown_key", "duplicate", "dangling", "nest")
#: How a sweep table or a study file is mutated ("swap": a value from elsewhere in it).
TABLE_OPS = ("set", "set", "set", "delete", "unknown_key", "duplicate", "nest", "swap")


def _mutate(draw, doc: dict, count: int, ops: tuple[str, ...], focus: tuple[str, ...] = ()) -> dict:
    """``doc`` with ``count`` structural mutations drawn from ``ops``; with ``focus``,
    most of them hit the leaves under those keys (a study file's prose is not what
    needs testing)."""
    for _ in range(count):
        paths = leaves(doc)
        if not paths:
            break
        focused = [p for p in paths if any(k in p for k in focus)]
        path = draw(st.sampled_from(focused if focused and draw(st.integers(0, 3)) else paths))
        parent, key = _parent(doc, path), path[-1]
        op = draw(st.sampled_from(ops))
        if op == "set":
            parent[key] = draw(ODD_VALUES)
        elif op == "delete":
            del parent[key]
        elif op == "unknown_key" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=12))] = draw(ODD_VALUES)
        elif op == "duplicate" and isinstance(parent, list):
            parent.append(copy.copy(parent[key]))
        elif op == "dangling" and key in ("from", "to", "stations", "name"):
            parent[key] = draw(st.sampled_from(["nowhere", "left99", "", "a", "s"]))
        elif op == "nest":
            parent[key] = _deep(draw(st.integers(50, 3000)), draw(st.sampled_from(["list", "dict"])))
        elif op == "swap":
            # A value of the right shape from elsewhere in the document.
            other = draw(st.sampled_from(paths))
            if other[: len(path)] != path and path[: len(other)] != other:
                parent[key] = copy.deepcopy(_parent(doc, other)[other[-1]])
    return doc


@st.composite
def mutated_scenario(draw) -> dict:
    """A seed scenario with up to four mutations."""
    doc = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    return _mutate(draw, doc, draw(st.integers(0, 4)), SCENARIO_OPS)


def _toml_value(v: object) -> str:
    if isinstance(v, Deep):
        return v.text('"a" = ')
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


def to_toml(doc: dict) -> str:
    """TOML text: top-level tables as [sections], lists of tables as [[arrays]]."""
    lines = [f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in doc.items()
             if not isinstance(v, dict) and not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{json.dumps(str(k))}]")
            lines += [f"{json.dumps(str(kk))} = {_toml_value(vv)}" for kk, vv in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{json.dumps(str(k))}]]")
                lines += [f"{json.dumps(str(kk))} = {_toml_value(vv)}" for kk, vv in item.items()]
    return "\n".join(lines) + "\n"


def to_yaml(doc: dict) -> str:
    """YAML text (in its JSON subset where a value is nested deeply)."""
    deep: list[Deep] = []

    def placeholder(v: object) -> str:
        if isinstance(v, Deep):
            deep.append(v)
            return f"@@DEEP{len(deep) - 1}@@"
        raise TypeError(type(v))

    if not any(isinstance(v, Deep) for v in _values(doc)):
        return yaml.safe_dump(doc, allow_unicode=True)
    text = json.dumps(doc, default=placeholder, ensure_ascii=False)
    for i, d in enumerate(deep):
        text = text.replace(f'"@@DEEP{i}@@"', d.text('"a": '))
    return text + "\n"


def _values(value: object):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _values(v)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v)


@st.composite
def corrupted(draw, data: bytes) -> bytes:
    """``data`` with a byte-level corruption: flipped, deleted, inserted or duplicated bytes, or a truncation."""
    if not data:
        return data
    i = draw(st.integers(0, len(data) - 1))
    op = draw(st.sampled_from(["flip", "delete", "insert", "truncate", "duplicate"]))
    if op == "flip":
        return data[:i] + bytes([data[i] ^ (1 << draw(st.integers(0, 7)))]) + data[i + 1:]
    if op == "delete":
        return data[:i] + data[i + draw(st.integers(1, 40)):]
    if op == "insert":
        return data[:i] + draw(st.binary(min_size=1, max_size=20)) + data[i:]
    if op == "truncate":
        return data[:i]
    j = draw(st.integers(i, len(data)))
    return data[:j] + data[i:j] + data[j:]


@dataclass
class Case:
    """One fuzz input: the scenario file's name and bytes, and the command line. A case
    on tcplab's own outputs (``argv`` given) runs that command line in a directory
    holding copies of the named ``fixtures`` (a results directory, a sweep), with
    ``content`` written over the file ``filename`` among them."""

    filename: str
    content: bytes
    args: list[str] = field(default_factory=list)
    out: str = "out"
    plots: bool = False
    command: str = "run"
    argv: list[str] | None = None
    fixtures: tuple[str, ...] = ()


SET_KEYS = ["simulation.duration", "simulation.bin", "simulation.seed", "topology.dumbbell.pairs",
            "topology.dumbbell.bottleneck.bandwidth", "flow[0].app.rate", "flow[0].transport.cc", "flow[9].to",
            "link[0].delay", "nonexistent.key", "flow[].x", "a..b", "[", "=", ""]


@st.composite
def cases(draw) -> Case:
    """A scenario, serialized (and maybe corrupted), with a command line that may hold
    odd --set, --seed and --out arguments."""
    doc = draw(mutated_scenario())
    fmt = draw(st.sampled_from(["toml", "toml", "yaml"]))
    text = to_toml(doc) if fmt == "toml" else to_yaml(doc)
    content = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        content = draw(corrupted(content))
    args: list[str] = []
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 4)) == 0 else 0):
        value = draw(st.one_of(WITH_UNIT, ODD_TEXT.filter(lambda s: len(s) < 200), st.integers(-5, 10**6).map(str)))
        args += ["--set", f"{draw(st.sampled_from(SET_KEYS))}={value}"]
    if draw(st.integers(0, 9)) == 0:
        args += ["--seed", str(draw(st.integers(-3, 2**70)))]
    out = draw(st.sampled_from(["out"] * 12 + ["scenario." + fmt + "/below", ".", "x" * 300, "a/../out", "out/"]))
    return Case(filename=f"scenario.{fmt}", content=content, args=args, out=out,
                plots=draw(st.integers(0, 19)) == 0, command=draw(st.sampled_from(["run"] * 9 + ["validate"])))


#: Files of a results directory (``tcplab run``) an output case may damage.
RESULT_FILES = ["summary.json", "flows.csv", "links.csv", "flow_series.parquet", "link_series.parquet",
                "delay_cdf.parquet", "scenario.toml", "report.html"]
#: Statements ``tcplab query`` must refuse or answer, never obey beyond reading.
HOSTILE_SQL = ["COPY runs TO 'stolen.csv'", "ATTACH 'x.duckdb' AS x", "INSTALL httpfs", "LOAD httpfs",
               "SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM read_text('/etc/hostname')",
               "SET enable_external_access = true", "PRAGMA version", "CREATE TABLE t AS SELECT 1",
               "DROP VIEW runs", "SELECT 1; COPY runs TO 'x.csv'", "CALL duckdb_settings()",
               "SELECT * FROM runs, runs, runs, runs LIMIT 5", "SELECT repeat('x', 100000000)",
               "SELECT range(1, 100000000)", "SELECT 1e400", "EXPLAIN SELECT * FROM runs", "", ";", "--",
               "SELECT * FROM flow_series", "DESCRIBE runs", "SUMMARIZE runs", "SELECT nope FROM runs"]


@st.composite
def query_cases(draw) -> Case:
    """``tcplab query`` on a small sweep with hostile, odd or ordinary SQL."""
    sql = draw(st.one_of(st.sampled_from(HOSTILE_SQL), ODD_TEXT.filter(lambda s: len(s) < 300),
                         st.builds(lambda col, n: f"SELECT {col} FROM runs LIMIT {n}",
                                   st.sampled_from(["*", "key", "goodput_bps", "avg(goodput_bps)", "x", "1/0"]),
                                   st.integers(-2, 10**20))))
    flags = ["--csv"] if draw(st.booleans()) else []
    return Case(filename="query.sql", content=sql.encode("utf-8", "surrogatepass"), command="query",
                argv=["query", "sweep", sql, *flags], fixtures=("sweep",))


@st.composite
def results_cases(draw, originals: dict[str, bytes]) -> Case:
    """``tcplab report`` or ``tcplab compare`` on a results directory with one of its
    files damaged: bytes corrupted, emptied, or (summary.json) a key dropped or retyped."""
    name = draw(st.sampled_from(RESULT_FILES))
    data = originals[name]
    how = draw(st.sampled_from(["bytes", "bytes", "empty", "json"]))
    if how == "empty":
        data = b""
    elif how == "json" and name == "summary.json":
        summary = json.loads(data)
        path = draw(st.sampled_from(leaves(summary)))
        parent = _parent(summary, path)
        value = draw(st.one_of(st.none(), st.just("x"), st.integers(-1, 2**70), st.just([]), st.just({})))
        if draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = value
        data = json.dumps(summary).encode()
    else:
        data = draw(corrupted(data))
    command = draw(st.sampled_from(["report", "compare", "compare"]))
    argv = ["report", "res"] if command == "report" else ["compare", "base", "res", *(["--out", "cmp"] if draw(st.booleans()) else [])]
    return Case(filename=f"res/{name}", content=data, command=command, argv=argv, fixtures=("res", "base"))


#: Valid ``[sweep]`` tables for the seed scenarios: a parameter by path, one with
#: ``set`` templates, a range, named cases, zip and exclude — each a few small runs.
SWEEP_SEEDS: list[dict] = [
    {"replications": 2, "metrics": ["goodput_bps", "drops"],
     "parameters": {"simulation.seed": [1, 2]}},
    {"parameters": {"d": {"values": [1, 5], "set": {"simulation.duration": "{d/10}s"}},
                    "s": {"from": 1, "to": 3, "step": 1, "set": {"simulation.seed": "{s}"}}},
     "exclude": ["d > 3 and s == 2"], "series": False, "time_limit": "60s"},
    {"parameters": {"a": {"values": [1, 2]}, "b": {"values": [3, 4]}},
     "zip": [["a", "b"]], "plot": [{"x": "a", "y": "goodput_bps", "lines": "b"}]},
    {"parameters": {"variant": {"cases": {"one": {"simulation.seed": 1}, "two": {"simulation.seed": 2}}},
                    "r": {"from": 0.1, "to": 0.4, "num": 2, "scale": "log", "unit": "s", "set": {"simulation.duration": "{r}s"}}}},
]


@st.composite
def sweep_cases(draw) -> Case:
    """``tcplab sweep`` on a seed scenario with a mutated ``[sweep]`` table — inline, or
    in a sweep file naming the scenario (the fixture ``base``)."""
    scenario = copy.deepcopy(draw(st.sampled_from(SEEDS[:2])))
    table = _mutate(draw, copy.deepcopy(draw(st.sampled_from(SWEEP_SEEDS))), draw(st.integers(0, 3)), TABLE_OPS)
    if draw(st.booleans()):
        doc, fixtures = {**scenario, "sweep": table}, ()
    else:
        doc = {"scenario": draw(st.sampled_from(["base/scenario.toml"] * 6 + ["nowhere.toml", "base", ""])),
               "set": {"simulation.duration": draw(st.sampled_from(["0.3s", "0.3s", "0", "-1s", "1e9s"]))},
               "sweep": table}
        fixtures = ("base",)
        if draw(st.integers(0, 3)) == 0:
            doc = _mutate(draw, doc, 1, TABLE_OPS)
    content = to_toml(doc).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        content = draw(corrupted(content))
    return Case(filename="sweep.toml", content=content, command="sweep",
                argv=["sweep", "sweep.toml", "--out", "out", "--jobs", "1"], fixtures=fixtures)


#: What a study file's checks, sweeps and published values live under.
STUDY_FOCUS = ("conclusion", "check", "sweep", "published", "figure", "series_figure", "unstated",
               "grading", "quantity", "difference", "table", "parameters", "quick")


@st.composite
def study_cases(draw, original: dict) -> Case:
    """``tcplab reproduce DIR --quick`` on a copy of a shipped study (fixture ``study``)
    whose study.toml is mutated, resuming the fixture's finished quick run (``study-out``)
    so that only what the mutation changed runs again."""
    doc = _mutate(draw, copy.deepcopy(original), draw(st.integers(1, 4)), TABLE_OPS, STUDY_FOCUS)
    content = to_toml(doc).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        content = draw(corrupted(content))
    return Case(filename="study/study.toml", content=content, command="reproduce",
                argv=["reproduce", "study", "--quick", "--out", "study-out", "--jobs", "1"],
                fixtures=("study", "study-out"))
