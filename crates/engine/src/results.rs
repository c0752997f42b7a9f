//! What a run reports: per-flow and per-link-direction summaries, fairness, and the
//! binned time series. Plain serde structs: the Python side turns them into
//! summary.json, DataFrames, Parquet and plots without computing any metric itself.

use crate::config::NodeConfig;
use crate::config::ScenarioConfig;
use crate::metrics::bins::Binning;
use crate::metrics::jain_index;
use crate::metrics::BinCounts;
use crate::metrics::FlowMeter;
use crate::metrics::Probe;
use crate::net::channel::{Channel, ChannelSpec};
use crate::time::SimTime;
use crate::transport::TransportStats;
use serde::Serialize;
use std::collections::HashMap;

/// Drops split by cause.
#[derive(Debug, Clone, Serialize)]
pub struct Drops {
    /// Tail drops (queue full or RED hard limit).
    pub queue: u64,
    /// RED early drops.
    pub red: u64,
    /// Loss-model drops.
    pub random: u64,
}

impl From<[u64; 3]> for Drops {
    fn from(d: [u64; 3]) -> Self {
        Drops {
            queue: d[0],
            red: d[1],
            random: d[2],
        }
    }
}

/// One-way delay statistics in milliseconds (`None` when nothing arrived).
#[derive(Debug, Clone, Serialize)]
pub struct DelayMs {
    /// Smallest (exact).
    pub min: Option<f64>,
    /// Mean (exact).
    pub mean: Option<f64>,
    /// Median (histogram bucket midpoint, within 1.6%).
    pub p50: Option<f64>,
    /// 95th percentile.
    pub p95: Option<f64>,
    /// 99th percentile.
    pub p99: Option<f64>,
    /// Largest (exact).
    pub max: Option<f64>,
}

/// Packets of the reverse direction (acknowledgements; zero for UDP).
#[derive(Debug, Clone, Serialize)]
pub struct ReverseCounters {
    /// Packets sent by the receiver.
    pub packets_sent: u64,
    /// Packets that reached the sender.
    pub packets_delivered: u64,
    /// Packets lost.
    pub packets_dropped: u64,
}

/// Summary of one flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowResult {
    /// Flow name.
    pub id: String,
    /// Source node.
    pub src: String,
    /// Destination node.
    pub dst: String,
    /// Transport protocol.
    pub transport: String,
    /// Payload bytes the sender put on the network.
    pub sent_bytes: u64,
    /// Payload bytes delivered in order to the receiving application.
    pub delivered_bytes: u64,
    /// delivered_bytes·8 / active time (start to stop or end of run), bit/s.
    pub goodput_bps: f64,
    /// Largest per-bin goodput, bit/s. In-order delivery hands a repaired window to
    /// the application at once, so this can exceed the path's capacity many times.
    pub goodput_max_bps: f64,
    /// IP bytes (headers included) that reached the receiving host, retransmissions
    /// and duplicates included: what a capture there (tcpdump, Wireshark) counts.
    pub received_bytes: u64,
    /// received_bytes·8 / active time, bit/s.
    pub throughput_bps: f64,
    /// Largest per-bin received throughput, bit/s: never more than the last link's
    /// capacity plus one packet per bin.
    pub throughput_max_bps: f64,
    /// Goodput over the whole bins in the last quarter of the active interval, bit/s:
    /// the rate a long transfer settled at, without its start-up (null when that
    /// quarter holds no whole bin).
    pub goodput_tail_bps: Option<f64>,
    /// Forward packets sent (datagrams, before fragmentation).
    pub packets_sent: u64,
    /// Forward packets that reached the receiver.
    pub packets_delivered: u64,
    /// Forward packets lost.
    pub packets_dropped: u64,
    /// Forward drops by cause.
    pub drops: Drops,
    /// Forward packets still in the network when the run ended.
    pub packets_in_flight: u64,
    /// packets_dropped / packets_sent.
    pub loss_rate: f64,
    /// One-way delay of delivered forward packets.
    pub delay_ms: DelayMs,
    /// RFC 3550 interarrival jitter at the end of the run, ms.
    pub jitter_ms: f64,
    /// IP fragments created from this flow's packets.
    pub fragments: u64,
    /// When the application started, s.
    pub start_s: f64,
    /// End of the interval goodput is averaged over, s.
    pub end_s: f64,
    /// Reverse-direction counters.
    pub reverse: ReverseCounters,
    /// Segments retransmitted (reliable transports; `null` otherwise).
    pub retransmits: Option<u64>,
    /// Loss-recovery episodes entered by duplicate ACKs / SACK.
    pub fast_retransmits: Option<u64>,
    /// Retransmission timeouts.
    pub rto_count: Option<u64>,
    /// Mean of the smoothed RTT over all RTT samples, ms.
    pub srtt_ms: Option<f64>,
    /// Flow completion time of a finite transfer (start to last byte delivered), s.
    pub fct_s: Option<f64>,
    /// IP bytes the sender put on the wire, every header included (retransmissions
    /// too; before fragmentation).
    pub wire_bytes_sent: u64,
    /// The transport's own end-of-run figures (SCTP: chunks per packet, per-stream
    /// table), its sender's and receiver's merged; `null` for transports without.
    pub transport_details: Option<serde_json::Value>,
    /// Bytes handed to the receiving application per stream, as the engine counted
    /// the deliveries (multistream transports; `null` for the others).
    pub delivered_bytes_by_stream: Option<Vec<u64>>,
}

/// Summary of one direction of one link.
#[derive(Debug, Clone, Serialize)]
pub struct LinkResult {
    /// "src->dst" (with "#k" appended when parallel links would share a name).
    pub id: String,
    /// Upstream node.
    pub src: String,
    /// Downstream node.
    pub dst: String,
    /// Index of the link in the scenario's expanded link list.
    pub link: usize,
    /// "forward" (from → to as declared) or "reverse".
    pub direction: String,
    /// Bit rate; 0 for the instantaneous delivery side of a shared segment.
    pub bandwidth_bps: u64,
    /// Propagation delay, ms.
    pub delay_ms: f64,
    /// MTU, bytes.
    pub mtu_bytes: u32,
    /// Packets serialized.
    pub tx_packets: u64,
    /// IP bytes serialized.
    pub tx_bytes: u64,
    /// Fraction of the run the serializer was busy (framing included).
    pub utilization: f64,
    /// Drops by cause.
    pub drops: Drops,
    /// Largest queue, bytes.
    pub queue_max_bytes: u64,
    /// Time-weighted mean queue, bytes.
    pub queue_mean_bytes: f64,
    /// Largest queue, packets.
    pub queue_max_packets: u64,
    /// Time-weighted mean queue, packets.
    pub queue_mean_packets: f64,
    /// Packets fragmented on entering this link.
    pub fragmented_packets: u64,
}

/// Jain's fairness index.
#[derive(Debug, Clone, Serialize)]
pub struct Fairness {
    /// (Σx)²/(n·Σx²) over the flows' goodputs; `None` if no flow delivered anything.
    pub jain: Option<f64>,
    /// The flows it was computed over.
    pub flows: Vec<String>,
}

/// Binned time series of one flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSeries {
    /// Flow name.
    pub id: String,
    /// Payload bytes delivered per bin.
    pub delivered_bytes: BinCounts,
    /// IP bytes received at the receiving host per bin (see
    /// [`FlowResult::received_bytes`]).
    pub received_bytes: BinCounts,
    /// Forward packets sent per bin.
    pub sent_packets: BinCounts,
    /// Forward packets dropped per bin.
    pub dropped_packets: BinCounts,
    /// Congestion window at the end of each bin, bytes (window-based senders; carried
    /// forward through bins without a sample; NaN — `null` in JSON — before the sender
    /// starts). Samples are single precision (see
    /// [`crate::metrics::flow_meter::CongestionSeries`]); NaN rather than `Option` keeps
    /// a cell at 4 bytes.
    pub cwnd_bytes: Option<Vec<f32>>,
    /// Slow-start threshold at the end of each bin, bytes (NaN before the first loss).
    pub ssthresh_bytes: Option<Vec<f32>>,
    /// Smoothed RTT at the end of each bin, ms (NaN before the first sample).
    pub srtt_ms: Option<Vec<f32>>,
    /// The congestion-control algorithm's own state at the end of each bin, by name
    /// (e.g. CUBIC's `w_max_segments`, BBR's `bw_mbps`); empty when it exposes none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cc_state: Vec<(String, Vec<f32>)>,
}

/// Binned time series of one link direction.
#[derive(Debug, Clone, Serialize)]
pub struct LinkSeries {
    /// Link direction id.
    pub id: String,
    /// IP bytes serialized per bin.
    pub tx_bytes: BinCounts,
    /// Drops per bin.
    pub drops: BinCounts,
    /// Time-weighted mean queue per bin, packets (single precision).
    pub queue_mean_packets: Vec<f32>,
    /// Time-weighted mean queue per bin, bytes (single precision).
    pub queue_mean_bytes: Vec<f32>,
    /// Largest queue per bin, packets.
    pub queue_max_packets: BinCounts,
    /// Largest queue per bin, bytes.
    pub queue_max_bytes: BinCounts,
}

/// A flow's delay distribution as histogram buckets: (upper bound ms, count).
#[derive(Debug, Clone, Serialize)]
pub struct DelayHistogram {
    /// Flow name.
    pub id: String,
    /// Non-empty buckets in increasing order.
    pub buckets: Vec<(f64, u64)>,
}

/// Everything a run reports.
#[derive(Debug, Clone, Serialize)]
pub struct RunResults {
    /// Simulated time, s.
    pub duration_s: f64,
    /// Run seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Bin width, s.
    pub bin_s: f64,
    /// Start of each bin, s.
    pub bin_start_s: Vec<f64>,
    /// Per-flow summaries.
    pub flows: Vec<FlowResult>,
    /// Per-link-direction summaries.
    pub links: Vec<LinkResult>,
    /// Fairness across flows.
    pub fairness: Fairness,
    /// Per-flow time series.
    pub flow_series: Vec<FlowSeries>,
    /// Per-link-direction time series.
    pub link_series: Vec<LinkSeries>,
    /// Per-flow delay distributions.
    pub delay_histograms: Vec<DelayHistogram>,
}

impl RunResults {
    /// Leaves the summaries only: no per-bin series, no delay histograms.
    pub fn drop_series(&mut self) {
        self.bin_start_s = Vec::new();
        self.flow_series = Vec::new();
        self.link_series = Vec::new();
        self.delay_histograms = Vec::new();
    }

    /// The results as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results are plain data")
    }
}

fn ms(ns: f64) -> f64 {
    ns / 1e6
}

/// Goodput over the bins lying wholly within the last quarter of [start, end]: a
/// flow's rate once past its start-up (`FlowResult::goodput_tail_bps`; the emulator's
/// results compute it from the receiving application's bins through the binding).
pub fn tail_goodput_bps(
    delivered: &BinCounts,
    bins: Binning,
    start: SimTime,
    end: SimTime,
) -> Option<f64> {
    let from = start + SimTime((end - start).as_ns() * 3 / 4);
    let (bits, seconds) = (0..bins.count.min(delivered.len()))
        .filter(|&i| bins.start(i) >= from && bins.end(i) <= end)
        .fold((0.0, 0.0), |(bits, s), i| {
            (bits + delivered.get(i) as f64 * 8.0, s + bins.seconds(i))
        });
    (seconds > 0.0).then(|| bits / seconds)
}

/// One flow's counters at some moment of a run (see [`crate::Simulation::flow_snapshots`]).
#[derive(Debug, Clone, Serialize)]
pub struct FlowSnapshot {
    /// Payload bytes delivered in order to the receiving application so far.
    pub delivered_bytes: u64,
    /// IP bytes received at the receiving host so far (see
    /// [`FlowResult::received_bytes`]).
    pub received_bytes: u64,
    /// Forward packets sent so far.
    pub packets_sent: u64,
    /// Forward packets lost so far.
    pub packets_dropped: u64,
    /// Segments retransmitted so far (reliable transports).
    pub retransmits: Option<u64>,
    /// The sender's congestion window now, bytes (window-based senders).
    pub cwnd_bytes: Option<u64>,
    /// The sender's smoothed RTT now, ms (once measured).
    pub srtt_ms: Option<f64>,
}

/// A simulation's state as results read it: its configuration, meters and channels, and
/// each flow's transport figures. The simulation lends it ([`crate::sim::Simulation`]
/// builds one); results never see the simulation itself, so the two modules do not
/// depend on each other.
pub(crate) struct RunState<'a> {
    /// The scenario run.
    pub config: &'a ScenarioConfig,
    /// The flows Jain's index covers.
    pub fairness_flows: &'a [usize],
    /// The run's time bins.
    pub bins: Binning,
    /// The run's end.
    pub duration: SimTime,
    /// Events processed.
    pub events: u64,
    /// Per flow: its meters (their series move out into the results).
    pub meters: &'a mut [FlowMeter],
    /// Every channel, in channel order.
    pub channels: &'a mut [Channel],
    /// Per flow: what its endpoints report.
    pub transports: Vec<FlowTransport>,
}

/// What a flow's endpoints report at the end of a run (or now, for a snapshot).
pub(crate) struct FlowTransport {
    /// The sender's congestion state (window-based senders).
    pub probe: Option<Probe>,
    /// Both endpoints' counters merged (reliable transports).
    pub stats: Option<TransportStats>,
    /// The transport's figures of its own (see [`crate::transport::Endpoint::details`]).
    pub details: Option<serde_json::Value>,
}

/// Every flow's [`FlowSnapshot`] now, from its meters and its transport's report.
pub(crate) fn snapshots(meters: &[FlowMeter], transports: &[FlowTransport]) -> Vec<FlowSnapshot> {
    meters
        .iter()
        .zip(transports)
        .map(|(m, t)| FlowSnapshot {
            delivered_bytes: m.delivered_bytes,
            received_bytes: m.received_bytes,
            packets_sent: m.network[0].sent_packets,
            packets_dropped: m.network[0].dropped_total(),
            retransmits: t.stats.map(|s| s.retransmits),
            cwnd_bytes: t.probe.map(|p| p.cwnd_bytes),
            srtt_ms: t.probe.and_then(|p| p.srtt).map(|s| ms(s.as_ns() as f64)),
        })
        .collect()
}

/// Builds the results of a finished simulation.
pub(crate) fn collect(mut run: RunState) -> RunResults {
    let flow_count = run.config.flows.len();
    let mut flows = Vec::with_capacity(flow_count);
    let mut flow_series = Vec::with_capacity(flow_count);
    let mut delay_histograms = Vec::with_capacity(flow_count);
    for f in 0..flow_count {
        flows.push(flow_result(&mut run, f));
        delay_histograms.push(delay_histogram(&run, f));
        flow_series.push(take_flow_series(&mut run, f));
    }
    let names = channel_names(&run.config.nodes, run.channels.iter().map(|c| c.spec));
    let mut links = Vec::with_capacity(run.channels.len());
    let mut link_series = Vec::with_capacity(run.channels.len());
    for (c, ch) in run.channels.iter_mut().enumerate() {
        let (link, series) = link_result(c, ch, &names[c], &run.config.nodes, run.duration);
        links.push(link);
        link_series.push(series);
    }
    let fairness = fairness(run.fairness_flows, &flows);
    let bins = run.bins;
    RunResults {
        duration_s: run.duration.as_secs_f64(),
        seed: run.config.simulation.seed,
        events: run.events,
        bin_s: bins.width.as_secs_f64(),
        bin_start_s: (0..bins.count)
            .map(|i| bins.start(i).as_secs_f64())
            .collect(),
        flows,
        links,
        fairness,
        flow_series,
        link_series,
        delay_histograms,
    }
}

/// Flow `f`'s summary: its meters and its transport's counters.
fn flow_result(run: &mut RunState, f: usize) -> FlowResult {
    let (bins, fc, m) = (run.bins, &run.config.flows[f], &run.meters[f]);
    let (fwd, rev) = (&m.network[0], &m.network[1]);
    let start = SimTime(fc.start_ns);
    let tstats = run.transports[f].stats;
    let completed = tstats.and_then(|t| t.completed_at);
    // A finished transfer's goodput is averaged over its completion time.
    let end =
        completed.unwrap_or_else(|| fc.stop_ns.map_or(run.duration, SimTime).min(run.duration));
    let active_s = (end - start).as_secs_f64();
    let max_rate_bps = |series: &BinCounts| {
        series
            .iter()
            .enumerate()
            .map(|(i, b)| b as f64 * 8.0 / bins.seconds(i))
            .fold(0.0, f64::max)
    };
    let d = &m.delay;
    FlowResult {
        id: fc.name.clone(),
        src: fc.from.clone(),
        dst: fc.to.clone(),
        transport: fc.transport.transport().name().into(),
        retransmits: tstats.map(|t| t.retransmits),
        fast_retransmits: tstats.map(|t| t.fast_retransmits),
        rto_count: tstats.map(|t| t.rto_count),
        srtt_ms: tstats
            .and_then(|t| (t.rtt_samples > 0).then(|| ms(t.srtt_sum_ns / t.rtt_samples as f64))),
        fct_s: completed.map(|t| (t - start).as_secs_f64()),
        wire_bytes_sent: fwd.sent_bytes,
        transport_details: run.transports[f].details.take(),
        delivered_bytes_by_stream: (!m.stream_delivered_bytes.is_empty())
            .then(|| m.stream_delivered_bytes.clone()),
        sent_bytes: m.payload_sent_bytes,
        delivered_bytes: m.delivered_bytes,
        goodput_bps: m.delivered_bytes as f64 * 8.0 / active_s,
        goodput_max_bps: max_rate_bps(&m.bin_delivered_bytes),
        received_bytes: m.received_bytes,
        throughput_bps: m.received_bytes as f64 * 8.0 / active_s,
        throughput_max_bps: max_rate_bps(&m.bin_received_bytes),
        goodput_tail_bps: tail_goodput_bps(&m.bin_delivered_bytes, bins, start, end),
        packets_sent: fwd.sent_packets,
        packets_delivered: fwd.arrived_packets,
        packets_dropped: fwd.dropped_total(),
        drops: fwd.dropped.into(),
        packets_in_flight: fwd.sent_packets - fwd.arrived_packets - fwd.dropped_total(),
        loss_rate: if fwd.sent_packets > 0 {
            fwd.dropped_total() as f64 / fwd.sent_packets as f64
        } else {
            0.0
        },
        delay_ms: DelayMs {
            min: d.min().map(|v| ms(v as f64)),
            mean: d.mean().map(ms),
            p50: d.quantile(0.5).map(ms),
            p95: d.quantile(0.95).map(ms),
            p99: d.quantile(0.99).map(ms),
            max: d.max().map(|v| ms(v as f64)),
        },
        jitter_ms: ms(m.jitter_ns()),
        fragments: fwd.fragments,
        start_s: start.as_secs_f64(),
        end_s: end.as_secs_f64(),
        reverse: ReverseCounters {
            packets_sent: rev.sent_packets,
            packets_delivered: rev.arrived_packets,
            packets_dropped: rev.dropped_total(),
        },
    }
}

/// Flow `f`'s one-way delay distribution (bucket upper bounds in ms, counts).
fn delay_histogram(run: &RunState, f: usize) -> DelayHistogram {
    DelayHistogram {
        id: run.config.flows[f].name.clone(),
        buckets: run.meters[f]
            .delay
            .buckets()
            .into_iter()
            .map(|(hi, c)| (ms(hi as f64), c))
            .collect(),
    }
}

/// Flow `f`'s time series. The bin arrays move out of the meter (not copied): a run's
/// series are its largest allocation, and two copies of them would double its peak
/// memory.
fn take_flow_series(run: &mut RunState, f: usize) -> FlowSeries {
    let m = &mut run.meters[f];
    let (cwnd_bytes, ssthresh_bytes, srtt_ms, cc_state) = match m.bin_congestion.take() {
        Some(c) => (
            Some(forward_fill(c.cwnd_bytes)),
            Some(forward_fill(c.ssthresh_bytes)),
            Some(forward_fill(c.srtt_ms)),
            c.cc_state
                .into_iter()
                .map(|(name, v)| (name.to_string(), forward_fill(v)))
                .collect(),
        ),
        None => (None, None, None, Vec::new()),
    };
    FlowSeries {
        id: run.config.flows[f].name.clone(),
        delivered_bytes: std::mem::take(&mut m.bin_delivered_bytes),
        received_bytes: std::mem::take(&mut m.bin_received_bytes),
        sent_packets: std::mem::take(&mut m.bin_sent_packets),
        dropped_packets: std::mem::take(&mut m.bin_dropped_packets),
        cwnd_bytes,
        ssthresh_bytes,
        srtt_ms,
        cc_state,
    }
}

/// Jain's index over the goodputs of the flows `[metrics]` names (all by default).
fn fairness(covered: &[usize], flows: &[FlowResult]) -> Fairness {
    let goodputs: Vec<f64> = covered.iter().map(|&f| flows[f].goodput_bps).collect();
    Fairness {
        jain: jain_index(&goodputs),
        flows: covered.iter().map(|&f| flows[f].id.clone()).collect(),
    }
}

/// Carries the last sample forward over bins that had none (NaN); `None` before any.
fn forward_fill(mut values: Vec<f32>) -> Vec<f32> {
    let mut last = f32::NAN;
    for v in &mut values {
        if v.is_nan() {
            *v = last;
        } else {
            last = *v;
        }
    }
    values
}

/// Channel `c`'s summary and series at the end of a run of `duration`, taking its
/// per-bin series out of it (`name` from [`channel_names`]).
pub(crate) fn link_result(
    c: usize,
    ch: &mut Channel,
    name: &str,
    nodes: &[NodeConfig],
    duration: SimTime,
) -> (LinkResult, LinkSeries) {
    let occ = ch.meter.finish();
    let k = &ch.counters;
    let spec = ch.spec;
    let link = LinkResult {
        id: name.to_string(),
        src: nodes[spec.from as usize].name.clone(),
        dst: nodes[spec.to as usize].name.clone(),
        link: c / 2,
        direction: if c % 2 == 0 { "forward" } else { "reverse" }.into(),
        bandwidth_bps: spec.rate_bps,
        delay_ms: ms(spec.delay.as_ns() as f64),
        mtu_bytes: spec.mtu_bytes,
        tx_packets: k.tx_packets,
        tx_bytes: k.tx_bytes,
        utilization: k.busy_ns as f64 / duration.as_ns() as f64,
        drops: k.drops.into(),
        queue_max_bytes: occ.max_bytes,
        queue_mean_bytes: occ.mean_bytes,
        queue_max_packets: occ.max_packets,
        queue_mean_packets: occ.mean_packets,
        fragmented_packets: k.fragmented_packets,
    };
    let series = LinkSeries {
        id: name.to_string(),
        tx_bytes: std::mem::take(&mut ch.counters.bin_tx_bytes),
        drops: std::mem::take(&mut ch.counters.bin_drops),
        queue_mean_packets: occ.bin_mean_packets,
        queue_mean_bytes: occ.bin_mean_bytes,
        queue_max_packets: occ.bin_max_packets,
        queue_max_bytes: occ.bin_max_bytes,
    };
    (link, series)
}

/// "a->b" for each channel, with "#k" (the link index) where parallel links collide.
pub(crate) fn channel_names(
    nodes: &[NodeConfig],
    channels: impl IntoIterator<Item = ChannelSpec>,
) -> Vec<String> {
    let plain: Vec<String> = channels
        .into_iter()
        .map(|spec| {
            format!(
                "{}->{}",
                nodes[spec.from as usize].name, nodes[spec.to as usize].name
            )
        })
        .collect();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for name in &plain {
        *uses.entry(name.as_str()).or_default() += 1;
    }
    plain
        .iter()
        .enumerate()
        .map(|(c, name)| {
            if uses[name.as_str()] > 1 {
                format!("{name}#{}", c / 2)
            } else {
                name.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_goodput_counts_only_whole_bins_in_the_last_quarter() {
        // 10 bins of 1 s; active 2 s..10 s, so the tail starts at 8 s: bins 8 and 9.
        let bins = Binning::new(SimTime::from_secs(1), SimTime::from_secs(10));
        let delivered = BinCounts::from((0..10).map(|i| 1000 * (i + 1)).collect::<Vec<u64>>());
        let g = tail_goodput_bps(
            &delivered,
            bins,
            SimTime::from_secs(2),
            SimTime::from_secs(10),
        );
        assert_eq!(g, Some((9000.0 + 10000.0) * 8.0 / 2.0));
        // Active 6 s..10 s: the tail starts at 9 s, bin 9 alone.
        let g = tail_goodput_bps(
            &delivered,
            bins,
            SimTime::from_secs(6),
            SimTime::from_secs(10),
        );
        assert_eq!(g, Some(10000.0 * 8.0));
        // A quarter shorter than a bin holds no whole bin.
        let g = tail_goodput_bps(
            &delivered,
            bins,
            SimTime::from_secs(9),
            SimTime::from_secs(10),
        );
        assert_eq!(g, None);
    }
}
