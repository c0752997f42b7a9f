"""One scenario format (issue #13 part 7): the engine publishes it (crates/engine/src/
format.rs → ``tcplab schema``), the parser takes its keys, choices and defaults from it,
and the docs are checked against it.

The checks that matter are between independent parts: files written by hand (the
bundled scenarios, the studies', the benchmarks'), the parser's own verdicts on
thousands of fuzzed scenarios, a standard JSON Schema validator (jsonschema), and the
hand-written docs/scenario.md.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import tomllib

import jsonschema
import pytest
from conftest import REPO, run_cli
from hypothesis import HealthCheck, assume, given, settings
from tcplab.scenario import format, reference
from tcplab.scenario.errors import ScenarioError
from tcplab.scenario.expand import expand_counts
from tcplab.scenario.schema import compile_scenario

sys.path.insert(0, str(REPO / "tests"))
from fuzz.strategies import SEEDS, Deep, mutated_scenario  # noqa: E402
from test_bad_input import CASES  # noqa: E402

SCENARIO_FILES = sorted(
    [*REPO.glob("scenarios/*.toml"), *REPO.glob("benchmarks/scenarios/*.toml"),
     *(p for p in REPO.glob("python/tcplab/studies/*/*.toml") if p.name != "study.toml")]
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(format.schema())


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(format.schema())
    assert format.schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_bundled_scenario_is_valid_against_the_schema(path, validator):
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(tomllib.loads(path.read_text()))]
    assert not errors, errors


def test_there_are_scenarios_of_every_kind_to_check():
    assert len(SCENARIO_FILES) >= 12  # bundled, benchmarks and every study's


def _front_end_accepts(doc: dict) -> bool:
    try:
        compile_scenario(expand_counts(copy.deepcopy(doc)))
    except ScenarioError:
        return False
    return True


def _unknown_keys(validator, doc: dict) -> list:
    """Where the schema finds a key no table takes (directly, or in the best-matching
    alternative of a tagged table)."""
    found = []
    for error in validator.iter_errors(doc):
        for e in [error, *(error.context or [])]:
            if e.validator == "additionalProperties":
                found.append(list(e.absolute_path))
    return found


def _contains_deep(value: object) -> bool:
    if isinstance(value, Deep):
        return True
    if isinstance(value, dict):
        return any(_contains_deep(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_deep(v) for v in value)
    return False


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_the_fuzzers_seed_scenarios_satisfy_both(seed, validator):
    assert _front_end_accepts(SEEDS[seed])
    assert not list(validator.iter_errors(SEEDS[seed]))


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated_scenario())
def test_parser_and_schema_agree_on_fuzzed_scenarios(validator, doc):
    """What the parser accepts the schema accepts; a key the schema calls unknown the
    parser refuses (the parser also checks values the schema cannot: ranges, units)."""
    assume(not _contains_deep(doc))
    accepted = _front_end_accepts(doc)
    if accepted:
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]
        assert not errors, (doc, errors)
    if _unknown_keys(validator, doc):
        assert not accepted, doc


@pytest.mark.parametrize("case", [c for c in CASES if "did you mean" in " ".join(c[2]) and "unit" not in " ".join(c[2])],
                         ids=lambda c: c[0])
def test_misspellings_the_parser_refuses_the_schema_refuses(case, validator):
    """Every hand-written bad-input case about a misspelled key or choice is also
    invalid for an editor validating with the published schema."""
    _, text, _ = case
    assert list(validator.iter_errors(tomllib.loads(text))), text


def _documented_words() -> str:
    return (REPO / "docs" / "scenario.md").read_text()


def test_every_key_of_the_format_is_explained_in_docs_scenario_md():
    text = _documented_words()
    missing = []
    for table, keys in format.all_keys().items():
        for key in keys:
            # `key`, key = ..., or a table header: [key], [[key]], [topology.key], [key.sub]
            if not re.search(rf"(`{re.escape(key)}`|\b{re.escape(key)} =|\[\[?(\w+\.)?{re.escape(key)}[\].])", text):
                missing.append(f"{table}.{key}")
    for option in format.definition("Cc")["anyOf"][1]["oneOf"]:
        algorithm = option["properties"]["algorithm"]["const"]
        for key in option["properties"]:
            if not re.search(rf"\b{re.escape(key)}\b", text):
                missing.append(f"cc.{algorithm}.{key}")
    assert not missing, f"keys of the format not in docs/scenario.md: {missing}"


def test_every_choice_of_the_format_is_named_in_docs_scenario_md():
    text = _documented_words()
    missing = []
    for name in ["LossAt", "RedMode", "NodeKind", "Profile", "Recovery", "RtoFloor", "NewRenoTimer", "TimeoutSsthresh", "TimeoutReduction",
                 "CwndCounting", "RttSampling", "Reduction", "OnOffDistribution", "TransportName", "FramingName"]:
        missing += [f"{name}: {c}" for c in format.choices(name) if f'"{c}"' not in text]
    for name in ["Queue", "Loss", "App"]:
        missing += [f"{name}: {v}" for v in format.variants(name) if f'"{v}"' not in text]
    assert not missing, missing


def test_the_generated_reference_is_current():
    """docs/scenario-reference.md is what ``python -m tcplab.scenario.reference`` prints."""
    written = (REPO / "docs" / "scenario-reference.md").read_text()
    assert written == reference.markdown(), "regenerate: python -m tcplab.scenario.reference > docs/scenario-reference.md"


def test_the_documented_defaults_are_the_formats():
    """The hand-written defaults in docs/scenario.md's tables and TOML examples marked
    as defaults agree with the format (an independent statement of the same facts)."""
    text = _documented_words()
    stated = {
        # docs/scenario.md, "[simulation]" table: | `seed` | 1 |, | `bin` | `"50ms"` |
        ("Simulation", "seed", None): re.search(r"\| `seed` \| (\d+) \|", text).group(1),
        ("Simulation", "bin", None): re.search(r'\| `bin` \| `"([^"]+)"` \|', text).group(1),
        # "Without `queue`, a direction gets DropTail with 1000 packets"
        ("LinkProperties", "queue", None): re.search(r"gets DropTail with (\d+) packets", text).group(1),
    }
    assert int(stated[("Simulation", "seed", None)]) == format.default("Simulation", "seed")
    assert stated[("Simulation", "bin", None)] == format.default("Simulation", "bin")
    assert f"{stated[('LinkProperties', 'queue', None)]} packets" == format.default("LinkProperties", "queue")["limit"]
    # The [flow.transport] example in "TCP options" writes every default it shows.
    block = text[text.index("[flow.transport]"):text.index("### Congestion control")]
    shown = dict(re.findall(r"^(\w+) = (\S+)", block, flags=re.M))
    tcp = format.defaults("TransportTable", "tcp")
    for key in ["sack", "initial_window", "handshake", "delayed_ack", "receive_buffer", "timestamps", "window_scaling",
                "pacing", "profile", "limited_transmit", "limited_transmit_after_timeout", "newreno_timer", "timeout_ssthresh", "timeout_reduction", "loss_detection",
                "tail_loss_probe", "dsack", "undo", "frto", "cwnd_counting",
                "rtt_sampling", "delay_growth", "reduction", "sack_after_timeout"]:
        assert json.loads(shown[key]) == tcp[key], (key, shown[key], tcp[key])


def test_tcplab_schema_prints_and_writes_the_format(tmp_path):
    printed = run_cli("schema")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout) == format.schema()
    out = tmp_path / "tcplab.schema.json"
    written = run_cli("schema", "--out", str(out))
    assert written.returncode == 0, written.stderr
    assert json.loads(out.read_text()) == format.schema()
    refused = run_cli("schema", "--out", str(tmp_path / "missing" / "x.json"))
    assert refused.returncode == 2 and "cannot be written" in refused.stderr


def test_a_key_the_schema_declares_needs_no_python(monkeypatch):
    """#34 item 1: a key that the engine takes as the schema declares it — a boolean, a
    word of a choice, a count, a value with a unit — is read from the schema alone,
    under its engine name (the key, with the unit's suffix, or `x-tcplab-engine`), and
    the engine's errors at that name are restated at the key; so adding one touches the
    Rust format, the engine and the docs. A key of another kind fails at import, naming
    itself."""
    from tcplab.scenario import declared

    monkeypatch.setattr(declared, "SCENARIO_KEYS", {})
    new_keys = {
        "new_flag": {"type": "boolean", "default": False},
        "new_word": {"$ref": "#/$defs/NewRenoTimer", "default": "impatient"},
        "new_wait": {"$ref": "#/$defs/Duration", "default": "0s"},
        "new_size": {"$ref": "#/$defs/Size", "x-tcplab-engine": "new_bytes"},
        "new_rate": {"anyOf": [{"$ref": "#/$defs/Rate"}, {"$ref": "#/$defs/Each"}]},
    }
    monkeypatch.setattr(format, "table", lambda name, variant=None: {"properties": new_keys})
    read = {key: reader for key, (_, reader) in declared.declared_keys("TransportTable", "tcp", units=declared.UNIT_READERS_32).items()}
    assert declared.SCENARIO_KEYS == {"new_flag": "new_flag", "new_word": "new_word", "new_wait_ns": "new_wait",
                                      "new_bytes": "new_size", "new_rate_bps": "new_rate"}
    assert read["new_flag"](True, "x") is True
    with pytest.raises(ScenarioError, match="did you mean 'impatient'"):
        read["new_word"]("impatiant", "x")
    assert read["new_wait"]("1.5ms", "x") == 1_500_000
    assert read["new_size"]("2KiB", "x") == 2048
    with pytest.raises(ScenarioError, match="at most 4,294,967,295"):
        read["new_size"]("5GB", "x")  # a transport's byte counts are 32-bit in the engine
    assert read["new_rate"]("2Mbps", "x") == 2_000_000
    new_keys["new_table"] = {"$ref": "#/$defs/Rto"}
    with pytest.raises(TypeError, match="'new_table'.*needs a hand-written rule"):
        declared.declared_keys("LinkProperties")


def test_one_engine_field_from_two_keys_fails_at_import(monkeypatch):
    """The engine's errors are restated at the user's key through one map from engine
    field to key, so two keys may not fill one field name."""
    from tcplab.scenario import declared

    monkeypatch.setattr(declared, "SCENARIO_KEYS", {})
    monkeypatch.setattr(format, "table", lambda name, variant=None: {"properties": {
        "size": {"$ref": "#/$defs/Size"}, "length": {"$ref": "#/$defs/Size", "x-tcplab-engine": "size_bytes"}}})
    with pytest.raises(TypeError, match="'size_bytes' comes from both 'size' and 'length'"):
        declared.declared_keys("App", "file")


@pytest.mark.parametrize("profile", format.choices("Profile"))
def test_every_declared_tcp_key_reaches_the_engine_with_its_profiles_value(profile):
    """What the generic translation gives is the profile's value (format.rs's
    `profiles` extension) or the key's schema default, read as written, and a written
    value wins."""
    from tcplab.scenario.schema import _TCP_AS_DECLARED

    profiles = format.extension("TransportTable", "profile", "profiles", "tcp")
    defaults = format.defaults("TransportTable", "tcp")
    base = {"simulation": {"duration": "1s"}, "node": [{"name": "a"}, {"name": "b"}],
            "link": [{"from": "a", "to": "b", "bandwidth": "1Mbps", "delay": "1ms"}]}

    def transport(**written):
        flow = {"from": "a", "to": "b", "transport": {"type": "tcp", "profile": profile, **written}, "app": {"type": "bulk"}}
        return compile_scenario({**base, "flow": [flow]})["flows"][0]["transport"]

    unwritten = transport()
    assert len(_TCP_AS_DECLARED) >= 25
    for key, (name, read) in _TCP_AS_DECLARED.items():
        written = profiles[profile].get(key, defaults.get(key))
        assert unwritten[name] == (None if written is None else read(written, "")), key
    assert unwritten["send_jitter_ns"] == 0 and unwritten["mss_bytes"] is None  # by hand: "0s", no default
    flipped = {key: not unwritten[key] for key, (name, _) in _TCP_AS_DECLARED.items() if isinstance(unwritten[name], bool)}
    assert {k: v for k, v in transport(**flipped).items() if k in flipped} == flipped
    assert transport(send_jitter="2ms", mss="1200B")["send_jitter_ns"] == 2_000_000
