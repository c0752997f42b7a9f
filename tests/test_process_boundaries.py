"""Errors and results cross process boundaries (issue "Robustness", part 3): every
error tcplab raises and every result object pickles, so a process pool with one bad
point reports it and finishes the others instead of waiting for ever."""

from __future__ import annotations

import multiprocessing
import pickle
import tempfile

import pytest

from conftest import BASE
import tcplab
from tcplab.output import OutputError
from tcplab.runner import InternalError
from tcplab.scenario.errors import ScenarioError
from tcplab.studies import StudyError
from tcplab.studies.checks import CheckError
from tcplab.sweeps.orchestrate import SweepInputError
from tcplab.sweeps.store import SweepDirectoryError

BAD = BASE.replace('duration = "2s"', 'duration = "-2s"')


@pytest.mark.parametrize("error", [
    ScenarioError("flow[0].app.rate", "needs a unit", "s.toml"),
    OutputError("out: not a directory"), InternalError("packets not conserved"), StudyError("x"),
    CheckError("y"), SweepInputError("z"), SweepDirectoryError("w"),
])
def test_every_error_pickles_with_its_message_and_fields(error):
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is type(error) and str(back) == str(error)
    assert vars(back) == vars(error)


def test_a_result_pickles(tmp_path):
    result = tcplab.run(_scenario_file(str(tmp_path), BASE))
    back = pickle.loads(pickle.dumps(result))
    assert back.summary == result.summary
    assert back.flow_series.equals(result.flow_series)


def _scenario_file(directory: str, text: str) -> str:
    """A scenario file in ``directory`` (the test's own, so nothing is left behind;
    runs from a file name, as users' pool workers do)."""
    with tempfile.NamedTemporaryFile("w", dir=directory, suffix=".toml", delete=False) as f:
        f.write(text)
    return f.name


def _goodput(directory: str, text: str) -> float:
    return tcplab.run(_scenario_file(directory, text)).summary["flows"][0]["goodput_bps"]


def test_a_pool_with_one_bad_point_reports_it_and_finishes_the_others(tmp_path):
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pending = [pool.apply_async(_goodput, (str(tmp_path), text)) for text in (BASE, BAD, BASE)]
        outcomes = []
        for p in pending:
            try:
                outcomes.append(p.get(timeout=60))
            except ScenarioError as e:
                outcomes.append(e)
    assert isinstance(outcomes[1], ScenarioError) and "simulation.duration" in str(outcomes[1])
    assert outcomes[0] == outcomes[2] > 0
    with multiprocessing.get_context("fork").Pool(2) as pool, pytest.raises(ScenarioError):
        pool.starmap_async(_goodput, [(str(tmp_path), BASE), (str(tmp_path), BAD)]).get(timeout=60)  # raises, no hang
