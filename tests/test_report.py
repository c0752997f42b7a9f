"""The HTML report: what its charts show (against sums computed here from the saved
series), that it is self-contained, that `tcplab report DIR` rebuilds it from the
files alone, and — in a real headless Chromium — that it loads without errors, every
chart draws, and its legend, zoom and hover work. The screenshot is kept in
test-artifacts/."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, SCENARIOS, run_cli
from debian import ensure

ARTIFACTS = REPO / "test-artifacts"
CHART_JSON = re.compile(r"<script type='application/json' id='tcplab-charts'>(.*?)</script>", re.S)


def _charts(report) -> dict[str, dict]:
    text = report.read_text()
    return {c["name"]: c for c in json.loads(CHART_JSON.search(text).group(1).replace("<\\/", "</"))}


def _decoded(b64: str, dtype: str) -> np.ndarray:
    import base64

    return np.frombuffer(base64.b64decode(b64), dtype=dtype)


def _many_flows(n: int) -> str:
    head = ('[simulation]\nduration = "2s"\nseed = 5\nbin = "100ms"\n\n[topology.dumbbell]\n'
            f'pairs = {n}\naccess = {{ bandwidth = "100Mbps", delay = "1ms" }}\n'
            'bottleneck = { bandwidth = "20Mbps", delay = "10ms", queue = { type = "droptail", limit = "60 packets" } }\n')
    flows = "".join(f'\n[[flow]]\nfrom = "left{i}"\nto = "right{i}"\nstart = "{50 * i}ms"\n'
                    'app = { type = "bulk" }\ntransport = { type = "tcp", cc = "newreno" }\n' for i in range(n))
    return head + flows


@pytest.fixture(scope="module")
def tcp_run(tmp_path_factory):
    """A lossy TCP LAN run: every chart, cwnd with ssthresh, RTT and loss included."""
    out = tmp_path_factory.mktemp("report") / "lan"
    p = run_cli("run", str(SCENARIOS / "lan-base.toml"), "--out", str(out), "--set", "simulation.duration=2s")
    assert p.returncode == 0, p.stderr
    return out


def test_report_has_every_chart_and_is_self_contained(tcp_run):
    report = tcp_run / "report.html"
    text = report.read_text()
    assert {"throughput", "goodput", "cwnd", "rtt", "queue", "utilization", "flow_rates", "throughput_cdf", "delay_cdf",
            "loss"} == set(_charts(report))
    # Offline: nothing is fetched (no src/href to another document, no http URL at all).
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", text)
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text
    summary = json.loads((tcp_run / "summary.json").read_text())
    assert summary["scenario"] in text and "Scenario as run" in text and summary["provenance"]["source"] in text


def test_throughput_chart_is_the_received_bytes_per_bin(tcp_run):
    """The chart's values against the saved series: bytes × 8 / bin width."""
    series = pd.read_parquet(tcp_run / "flow_series.parquet")
    summary = json.loads((tcp_run / "summary.json").read_text())
    bin_s = summary["bin_s"]
    chart = _charts(tcp_run / "report.html")["throughput"]
    labels = {f["id"]: f["label"] for f in summary["flows"]}
    for line in chart["panels"][0]["lines"]:
        flow, _, label = line["name"].partition(": ")
        assert label == labels[flow]  # the legend says what ran (#32 item 5)
        mine = series[series.flow == flow]
        expected = mine["received_bytes"].to_numpy() * 8 / bin_s / 1e6
        assert np.allclose(_decoded(line["y"], "<f4"), expected, rtol=1e-6)
        assert np.allclose(_decoded(line["x"], "<f8"), mine["time_s"].to_numpy())


def test_many_flows_show_sum_band_and_extremes(tmp_path):
    """Beyond 10 flows: the sum over flows (checked against the series), the median
    with a 10th-90th percentile band, and two highest and two lowest flows by name."""
    scenario = tmp_path / "many.toml"
    scenario.write_text(_many_flows(12))
    out = tmp_path / "out"
    assert run_cli("run", str(scenario), "--out", str(out)).returncode == 0
    chart = _charts(out / "report.html")["throughput"]
    total, spread = chart["panels"]
    series = pd.read_parquet(out / "flow_series.parquet")
    per_bin = series.groupby("time_s", sort=True)["received_bytes"].sum().to_numpy() * 8 / 0.1 / 1e6
    assert np.allclose(_decoded(total["lines"][0]["y"], "<f4"), per_bin, rtol=1e-6)
    assert len(spread["bands"]) == 1 and "12 flows" in spread["bands"][0]["name"]
    names = [line["name"] for line in spread["lines"]]
    assert names[0] == "median flow" and sum("highest" in n for n in names) == 2 and sum("lowest" in n for n in names) == 2
    means = series.groupby("flow")["received_bytes"].mean()
    assert names[1].split()[0].rstrip(":") == means.idxmax() and names[-2:][0].split()[0].rstrip(":") == means.idxmin()


def test_report_command_rebuilds_the_report_from_the_files(tcp_run, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tcp_run, copy)
    (copy / "report.html").unlink()
    p = run_cli("report", str(copy), "--plot-format", "svg")
    assert p.returncode == 0, p.stderr
    assert _charts(copy / "report.html") == _charts(tcp_run / "report.html")
    assert (copy / "cwnd.svg").read_bytes().startswith(b"<?xml")
    assert run_cli("report", str(tmp_path / "nothing-here")).returncode == 2


def test_report_in_headless_chromium(tcp_run):
    """Loads the report in Debian's Chromium with every network request refused: no
    console error, every chart drawn, legend toggling, zoom and hover working."""
    chromium = ensure("chromium", "chromium")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        requests: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", lambda route: (requests.append(route.request.url), route.abort() if not route.request.url.startswith("file:") else route.continue_()))
        page.goto((tcp_run / "report.html").as_uri())
        page.wait_for_selector("figure.chart")
        assert errors == []
        assert [u for u in requests if not u.startswith("file:")] == []

        # The tables fit a 1,280-pixel window: nothing hidden behind a scroll bar (#32 item 8).
        widths = page.evaluate("() => [...document.querySelectorAll('div.scroll')].map(d => [d.scrollWidth, d.clientWidth])")
        assert widths and all(scroll <= client for scroll, client in widths), widths

        figures = page.locator("figure.chart")
        assert figures.count() == 10
        for i in range(figures.count()):
            drawn = figures.nth(i).evaluate(
                "f => [...f.querySelectorAll('path.line, rect.bar')].filter(e => (e.getAttribute('d') || 'bar').length > 2).length")
            assert drawn > 0, figures.nth(i).get_attribute("data-name")

        cwnd = page.locator("#chart-cwnd")
        cwnd.scroll_into_view_if_needed()
        entry = cwnd.locator(".legend .entry").first
        name = entry.get_attribute("data-name")
        shown = f"[...f.querySelectorAll('path.line')].filter(p => p.dataset.name === {json.dumps(name)} && p.style.display !== 'none').length"
        before = cwnd.evaluate(f"f => {shown}")
        assert before == 2  # the flow's cwnd and its dashed ssthresh
        entry.click()
        assert cwnd.evaluate(f"f => {shown}") == 0 and "off" in (entry.get_attribute("class") or "")
        entry.click()
        assert cwnd.evaluate(f"f => {shown}") == before

        # Hover: the tooltip names the flow; drag: the time axis zooms in.
        panel = cwnd.locator("svg.panel").first
        box = panel.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
        tooltip = cwnd.locator(".tooltip")
        # It lists the flows by value (the top ones, then "… N more"): a flow of the
        # legend, whichever leads at that instant.
        legend = cwnd.locator(".legend .entry").evaluate_all("es => es.map(e => e.dataset.name)")
        text = tooltip.inner_text()
        assert tooltip.is_visible() and text.startswith("time (s)") and any(f"{n}:" in text for n in legend)
        ticks = "f => [...f.querySelector('svg.panel').querySelectorAll('g.axes text')].map(t => t.textContent).join('|')"
        whole = cwnd.evaluate(ticks)
        page.mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] * 0.5)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.45, box["y"] + box["height"] * 0.5, steps=5)
        page.mouse.up()
        assert cwnd.evaluate(ticks) != whole
        cwnd.locator(".reset").click()
        assert cwnd.evaluate(ticks) == whole

        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
        assert errors == []
        browser.close()


def test_sctp_runs_report_bundles_and_streams(tmp_path):
    """An SCTP association's results: streams.csv (one row per stream, the messages
    adding up to the file), the bundle histogram in summary.json (every packet counted
    once), and the report's section with both."""
    scenario = tmp_path / "sctp.toml"
    scenario.write_text(
        '[simulation]\nduration = "30s"\nseed = 2\n\n[topology.dumbbell]\npairs = 1\n'
        'access = { bandwidth = "100Mbps", delay = "1ms" }\n'
        'bottleneck = { bandwidth = "10Mbps", delay = "20ms", queue = { type = "droptail", limit = "100 packets" } }\n\n'
        '[[flow]]\nfrom = "left0"\nto = "right0"\napp = { type = "file", size = "1MB" }\n'
        'transport = { type = "sctp", streams = 3, message_size = "500B" }\n')
    out = tmp_path / "out"
    p = run_cli("run", str(scenario), "--out", str(out))
    assert p.returncode == 0, p.stderr
    streams = pd.read_csv(out / "streams.csv")
    assert list(streams["stream"]) == [0, 1, 2]
    assert streams["messages"].sum() == 2000  # 10^6 / 500
    assert streams["delivered_bytes"].sum() == 1_000_000
    flow = json.loads((out / "summary.json").read_text())["flows"][0]
    assert sum(flow["transport_details"]["chunks_per_packet"]) == flow["packets_sent"]
    # 500-byte messages: two DATA chunks fill a 1,500-byte packet (32 + 2 × 516 = 1,064).
    assert flow["transport_details"]["chunks_per_packet"][2] >= 990
    html_text = (out / "report.html").read_text()
    assert "SCTP: bundling and streams" in html_text and "blocked messages" in html_text
