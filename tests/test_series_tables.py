"""Series leave the engine compact and exact: counts in the narrowest width that holds
them (widened, never wrapped, when a bin needs more), samples in single precision,
and Parquet files written in bounded chunks that still add up to the whole run."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest

import tcplab
from tcplab import series as series_module

LOSSY = """
[simulation]
duration = "3s"
seed = 7
bin = "10ms"

[topology.dumbbell]
pairs = 3
access = { bandwidth = "100Mbps", delay = "1ms" }
bottleneck = { bandwidth = "20Mbps", delay = "10ms", loss = { type = "bernoulli", rate = 0.01 } }

[[flow]]
count = 3
from = "left{i}"
to = "right{i}"
transport = { type = "tcp", cc = "cubic" }
app = { type = "bulk" }
"""


def test_parquet_written_in_chunks_smaller_than_one_flow_adds_up_to_the_run(tmp_path, monkeypatch):
    """With chunks of 7 rows (a flow has 300 bins), every flow is split across many
    chunks: the file still has one row per flow and bin, its per-bin counts add up to
    the engine's own per-flow counters, and the cumulative loss rate — which runs
    across chunk boundaries — equals dropped / sent summed from the flow's first bin."""
    monkeypatch.setattr(series_module, "CHUNK_ROWS", 7)
    result = tcplab.run(LOSSY)
    result.save(tmp_path / "out", plots=False)
    table = pq.read_table(tmp_path / "out" / "flow_series.parquet").to_pandas()
    assert len(table) == 3 * 300
    for flow in result.summary["flows"]:
        rows = table[table["flow"] == flow["id"]].sort_values("time_s")
        assert len(rows) == 300
        assert rows["delivered_bytes"].sum() == flow["delivered_bytes"]
        assert rows["sent_packets"].sum() == flow["packets_sent"]
        assert rows["dropped_packets"].sum() == flow["packets_dropped"] > 0
        sent, dropped = rows["sent_packets"].cumsum(), rows["dropped_packets"].cumsum()
        expected = np.where(sent > 0, dropped / sent.clip(lower=1), np.nan)
        np.testing.assert_allclose(rows["cum_loss_rate"], expected, rtol=1e-12, equal_nan=True)
    links = pq.read_table(tmp_path / "out" / "link_series.parquet").to_pandas()
    assert len(links) == len(result.summary["links"]) * 300
    for link in result.summary["links"]:
        assert links[links["link"] == link["id"]]["tx_bytes"].sum() == link["tx_bytes"]


def test_a_bin_count_beyond_32_bits_is_exact():
    """10 Gbit/s of 8,972-byte datagrams for 4 s into one 4 s bin: about 5 GB, more than
    a 32-bit count holds. The bin's value equals the engine's delivered-byte counter
    exactly, which is a whole number of datagrams."""
    result = tcplab.run("""
[simulation]
duration = "4s"
bin = "4s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
from = "a"
to = "b"
bandwidth = "40Gbps"
delay = "1ms"
mtu = 9000
[[flow]]
from = "a"
to = "b"
transport = "udp"
app = { type = "cbr", rate = "10Gbps", packet_size = "8972B" }
""")
    delivered = result.summary["flows"][0]["delivered_bytes"]
    series = result.flow_series
    assert delivered > 2**32 and delivered % 8972 == 0
    assert series["delivered_bytes"].tolist() == [delivered]


@pytest.mark.parametrize("column", ["cwnd_bytes", "srtt_ms", "cc_w_max_segments"])
def test_samples_are_single_precision_and_counts_narrow(column):
    result = tcplab.run(LOSSY)
    raw = result._series()
    assert raw.flow[column].dtype == np.float32
    # 10 ms bins at 100 Mbit/s carry at most 125,000 bytes (plus a released receive
    # buffer) and a few hundred packets: no count needs 64 bits.
    assert all(raw.flow[k].dtype.itemsize <= 4 for k in ("delivered_bytes", "sent_packets", "dropped_packets"))
