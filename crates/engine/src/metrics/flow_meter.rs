//! Per-flow measurements: what the network did with the flow's packets (per direction)
//! and what the receiving application got. Memory is fixed per flow (counters, one
//! histogram, a few bin arrays): it never grows with the number of packets.

use super::bin_counts::BinCounts;
use super::bins::{BinSum, Binning};
use super::histogram::Histogram;
use crate::metrics::DropCause;
use crate::metrics::Probe;
use crate::time::SimTime;
use crate::wire::Direction;

/// Network-level counters of one direction of a flow (per-packet ones first).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct DirectionCounters {
    /// Packets handed to the network by the transport (datagrams before fragmentation).
    pub sent_packets: u64,
    /// IP bytes of those packets.
    pub sent_bytes: u64,
    /// Packets (reassembled datagrams) that reached the far endpoint.
    pub arrived_packets: u64,
    /// Packets lost, by cause: queue, RED, random (a datagram counts once, however many
    /// of its fragments were lost).
    pub dropped: [u64; 3],
    /// IP fragments created from this direction's packets.
    pub fragments: u64,
}

impl DirectionCounters {
    /// All drops, whatever the cause.
    pub fn dropped_total(&self) -> u64 {
        self.dropped.iter().sum()
    }
}

/// Everything measured about one flow.
///
/// Laid out by hand (`repr(C)`): what every packet updates first, in four cache
/// lines, then the series, which are written once per bin (see
/// [`crate::net::channel::Channel`] for why it matters with many flows).
#[derive(Debug, Clone)]
#[repr(C)]
pub struct FlowMeter {
    /// End of the bin of the sender's latest event (see [`FlowMeter::probe_due`]).
    probe_bin_end: SimTime,
    /// Per-direction network counters (index: [`Direction::index`]).
    pub network: [DirectionCounters; 2],
    /// Payload bytes the sender handed to the network (retransmissions included).
    pub payload_sent_bytes: u64,
    /// Payload bytes delivered in order to the receiving application.
    pub delivered_bytes: u64,
    /// IP bytes (headers included) of forward packets and fragments that reached the
    /// receiving host, duplicates and retransmissions included: what a packet capture
    /// there counts.
    pub received_bytes: u64,
    sent_bin: BinSum,
    delivered_bin: BinSum,
    received_bin: BinSum,
    jitter_ns: f64,
    last_transit_ns: Option<i64>,
    /// One-way delay of forward packets, ns.
    pub delay: Histogram,
    bins: Binning,
    /// The bin of the sender's latest event, whose state is not yet written.
    pending_bin: Option<usize>,
    /// Per bin: forward packets sent.
    pub bin_sent_packets: BinCounts,
    /// Per bin: forward packets dropped.
    pub bin_dropped_packets: BinCounts,
    /// Per bin: payload bytes delivered to the application.
    pub bin_delivered_bytes: BinCounts,
    /// Per bin: IP bytes received at the receiving host (see `received_bytes`).
    pub bin_received_bytes: BinCounts,
    /// Per bin, for window-based senders: last cwnd, ssthresh and SRTT seen in the bin
    /// (NaN where nothing was sampled). Allocated on the first sample.
    pub bin_congestion: Option<CongestionSeries>,
    /// Of the delivered bytes, per stream (multistream transports; empty for the
    /// others). Last: read only at the end of the run.
    pub stream_delivered_bytes: Vec<u64>,
}

/// Per-bin samples of a sender's congestion state.
///
/// Samples are single precision (24-bit mantissa: relative error below 6·10⁻⁸,
/// windows below 16 MiB exact): half the memory of a double, and far finer than
/// anything a per-bin sample of a window or an RTT is used for. The summaries keep
/// full precision.
#[derive(Debug, Clone)]
pub struct CongestionSeries {
    /// Congestion window, bytes.
    pub cwnd_bytes: Vec<f32>,
    /// Slow-start threshold, bytes (NaN while unset).
    pub ssthresh_bytes: Vec<f32>,
    /// Smoothed RTT, ms.
    pub srtt_ms: Vec<f32>,
    /// The congestion-control algorithm's own state: (name, value per bin).
    pub cc_state: Vec<(&'static str, Vec<f32>)>,
}

impl FlowMeter {
    /// A meter with empty counters and bins.
    pub fn new(bins: Binning) -> Self {
        FlowMeter {
            bins,
            network: [DirectionCounters::default(); 2],
            payload_sent_bytes: 0,
            delivered_bytes: 0,
            stream_delivered_bytes: Vec::new(),
            received_bytes: 0,
            delay: Histogram::new(),
            jitter_ns: 0.0,
            last_transit_ns: None,
            bin_sent_packets: BinCounts::zeros(bins.count),
            sent_bin: BinSum::new(&bins),
            bin_dropped_packets: BinCounts::zeros(bins.count),
            bin_delivered_bytes: BinCounts::zeros(bins.count),
            delivered_bin: BinSum::new(&bins),
            bin_received_bytes: BinCounts::zeros(bins.count),
            received_bin: BinSum::new(&bins),
            bin_congestion: None,
            pending_bin: None,
            probe_bin_end: SimTime::ZERO,
        }
    }

    /// Whether the sender's state must be sampled before its event at `now`: its
    /// previous event fell in an earlier bin, so the state it left is that bin's last
    /// value. Sampling only then (not after every ACK) gives the same series.
    #[inline]
    pub fn probe_due(&self, now: SimTime) -> bool {
        now >= self.probe_bin_end
    }

    /// Records `probe`, the state left by the sender's previous event, as the last
    /// value of that event's bin, and moves on to the bin of `now`.
    pub fn close_probe_bin(&mut self, now: SimTime, probe: Option<Probe>) {
        self.write_pending_probe(probe);
        let i = self.bins.index(now);
        self.probe_bin_end = if i + 1 == self.bins.count {
            SimTime(u64::MAX) // the last bin also takes anything past the end
        } else {
            self.bins.end(i)
        };
        self.pending_bin = probe.map(|_| i);
    }

    /// Writes `latest` (the sender's state after the last event of the pending bin)
    /// into that bin of the congestion series.
    fn write_pending_probe(&mut self, latest: Option<Probe>) {
        let (Some(i), Some(probe)) = (self.pending_bin.take(), latest) else {
            return;
        };
        let n = self.bins.count;
        let series = self.bin_congestion.get_or_insert_with(|| CongestionSeries {
            cwnd_bytes: vec![f32::NAN; n],
            ssthresh_bytes: vec![f32::NAN; n],
            srtt_ms: vec![f32::NAN; n],
            cc_state: probe
                .cc_names
                .iter()
                .map(|name| (*name, vec![f32::NAN; n]))
                .collect(),
        });
        for (k, (_, values)) in series.cc_state.iter_mut().enumerate() {
            values[i] = probe.cc_state[k] as f32;
        }
        series.cwnd_bytes[i] = probe.cwnd_bytes as f32;
        series.ssthresh_bytes[i] = if probe.ssthresh_bytes >= u64::MAX / 2 {
            f32::NAN
        } else {
            probe.ssthresh_bytes as f32
        };
        series.srtt_ms[i] = probe
            .srtt
            .map_or(f32::NAN, |s| (s.as_ns() as f64 / 1e6) as f32);
    }

    /// The transport handed a packet of `ip_bytes` carrying `payload_bytes` to the network.
    pub fn on_sent(&mut self, now: SimTime, dir: Direction, ip_bytes: u32, payload_bytes: u32) {
        let c = &mut self.network[dir.index()];
        c.sent_packets += 1;
        c.sent_bytes += ip_bytes as u64;
        if dir == Direction::Forward {
            self.payload_sent_bytes += payload_bytes as u64;
            self.sent_bin
                .add(&self.bins, now, 1, &mut self.bin_sent_packets);
        }
    }

    /// A forward packet or fragment of `ip_bytes` reached the receiving host (before
    /// reassembly, so that a large datagram counts as its fragments arrive).
    #[inline]
    pub fn on_received(&mut self, now: SimTime, ip_bytes: u32) {
        self.received_bytes += ip_bytes as u64;
        self.received_bin.add(
            &self.bins,
            now,
            ip_bytes as u64,
            &mut self.bin_received_bytes,
        );
    }

    /// A packet (or the last fragment of a datagram) reached the far endpoint.
    pub fn on_arrived(&mut self, now: SimTime, dir: Direction, sent_at: SimTime) {
        self.network[dir.index()].arrived_packets += 1;
        if dir == Direction::Forward {
            let transit = (now - sent_at).as_ns();
            self.delay.record(transit);
            // RFC 3550 section 6.4.1 / A.8: J += (|D| - J) / 16.
            // One-way delays stay far below 2^63 ns, and i64 avoids 128-bit float
            // conversion on every packet.
            let transit = transit as i64;
            if let Some(prev) = self.last_transit_ns {
                let d = (transit - prev).unsigned_abs() as f64;
                self.jitter_ns += (d - self.jitter_ns) / 16.0;
            }
            self.last_transit_ns = Some(transit);
        }
    }

    /// A packet of this flow was dropped.
    pub fn on_dropped(&mut self, now: SimTime, dir: Direction, cause: DropCause) {
        self.network[dir.index()].dropped[cause.index()] += 1;
        if dir == Direction::Forward {
            self.bin_dropped_packets.add(self.bins.index(now), 1);
        }
    }

    /// A packet of this flow was split into `count` fragments.
    pub fn on_fragmented(&mut self, dir: Direction, count: u32) {
        self.network[dir.index()].fragments += count as u64;
    }

    /// The receiving application got `bytes` more in-order payload.
    pub fn on_delivered(&mut self, now: SimTime, bytes: u64) {
        self.delivered_bytes += bytes;
        self.delivered_bin
            .add(&self.bins, now, bytes, &mut self.bin_delivered_bytes);
    }

    /// The receiving application got `bytes` on `stream` (already counted by
    /// [`FlowMeter::on_delivered`]).
    pub fn on_stream_delivered(&mut self, stream: u16, bytes: u64) {
        let i = stream as usize;
        if i >= self.stream_delivered_bytes.len() {
            self.stream_delivered_bytes.resize(i + 1, 0);
        }
        self.stream_delivered_bytes[i] += bytes;
    }

    /// Completes the per-bin series (call once, at the end of the run), given the
    /// sender's final state.
    pub fn finish(&mut self, final_probe: Option<Probe>) {
        self.write_pending_probe(final_probe);
        self.sent_bin.flush(&mut self.bin_sent_packets);
        self.delivered_bin.flush(&mut self.bin_delivered_bytes);
        self.received_bin.flush(&mut self.bin_received_bytes);
    }

    /// RFC 3550 interarrival jitter estimate, ns.
    pub fn jitter_ns(&self) -> f64 {
        self.jitter_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(cwnd: u64) -> Probe {
        Probe {
            cwnd_bytes: cwnd,
            ssthresh_bytes: u64::MAX,
            srtt: Some(SimTime(cwnd * 10)),
            cc_names: &[],
            cc_state: [f64::NAN; crate::cc::STATE_SLOTS],
        }
    }

    /// Each bin keeps the state after the last event in it; bins without events stay
    /// NaN; an event exactly on a bin edge belongs to the later bin. The engine samples
    /// the state before a sender's event when the previous one was in an earlier bin,
    /// and once at the end; this replays that protocol with the state after each event.
    #[test]
    fn congestion_series_keep_the_state_after_each_bins_last_event() {
        let bins = Binning::new(SimTime(100), SimTime(400));
        let mut m = FlowMeter::new(bins);
        let mut state = None;
        for (t, cwnd) in [(0, 1), (50, 2), (99, 3), (100, 4), (350, 5), (399, 6)] {
            if m.probe_due(SimTime(t)) {
                m.close_probe_bin(SimTime(t), state.or(Some(probe(0))));
            }
            state = Some(probe(cwnd)); // the event's effect
        }
        m.finish(state);
        let c = m.bin_congestion.expect("probed");
        let shown: Vec<String> = c.cwnd_bytes.iter().map(|x| format!("{x}")).collect();
        assert_eq!(shown, ["3", "4", "NaN", "6"]);
        assert_eq!(c.srtt_ms[0], 30e-6);
        assert!(c.ssthresh_bytes.iter().all(|x| x.is_nan()));
    }
}
