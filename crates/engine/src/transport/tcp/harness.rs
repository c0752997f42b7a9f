//! A two-endpoint test harness for TCP loss recovery, sans-IO: a sender and a receiver
//! joined by a path with a bottleneck (a rate and an unbounded FIFO) and a fixed
//! one-way delay each way, which drops exactly the data transmissions a test names —
//! by sequence number and by which transmission of it it is (1 = the original, 2 = the
//! first retransmission, …). Every data transmission and every expiry of the timer is
//! logged with the sender's window at that moment, so tests can follow the sender's
//! decisions step by step. The bottleneck sits at the sender, as its host's first link:
//! its backlog of data packets is what a sender with TCP Small Queues reads, and the
//! harness wakes a sender that waits for it as the engine does.

use super::{endpoints, TcpReceiver, TcpSender};
use crate::app::ByteSource;
use crate::config::{AppConfig, TcpConfig};
use crate::net::host_backlog::HostBacklog;
use crate::rng::Rng;
use crate::time::SimTime;
use crate::transport::{Endpoint, Outbox};
use crate::wire::tcp::{flags, TcpSegment};
use crate::wire::TransportHeader;
use std::collections::{BTreeMap, HashMap};

/// Payload bytes of the harness's segments (timestamps off: MSS 1,000).
pub const MSS: u64 = 1000;

/// A data transmission the sender made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sent {
    /// When it left the sender.
    pub at: SimTime,
    /// Its first sequence number.
    pub seq: u64,
    /// Which transmission of `seq` it is (1 = the original).
    pub nth: u32,
    /// Whether the path dropped it.
    pub dropped: bool,
}

/// The sender's window after something happened.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// When.
    pub at: SimTime,
    /// Congestion window, bytes (with any recovery inflation).
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` while unset).
    pub ssthresh: u64,
}

/// What the sender had out after one of its calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flight {
    /// When.
    pub at: SimTime,
    /// Highest sequence number sent less SND.UNA (RFC 5681's FlightSize), bytes.
    pub outstanding: u64,
    /// The usable congestion window then (with any recovery inflation), bytes.
    pub cwnd: u64,
}

/// Which direction a packet in flight travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Towards {
    Receiver,
    Sender,
}

/// A sender, a receiver and the path between them.
pub struct Harness {
    sender: TcpSender,
    receiver: TcpReceiver,
    now: SimTime,
    one_way: SimTime,
    rate_bps: u64,
    /// When the bottleneck finishes what it is sending.
    bottleneck_free: SimTime,
    in_flight: BTreeMap<(SimTime, u64), (Towards, TransportHeader)>,
    next_id: u64,
    transmissions: HashMap<u64, u32>,
    /// Whether the `nth` transmission of `seq`, sent at the given time, is dropped.
    drop: Box<dyn FnMut(u64, u32, SimTime) -> bool>,
    /// Extra delay after the bottleneck for the `nth` transmission of `seq` (a
    /// segment held back this way is overtaken: reordering).
    late: Box<dyn FnMut(u64, u32) -> SimTime>,
    /// The bottleneck sends nothing in [start, end) (a link stall: every segment
    /// waits, in order).
    stall: Option<(SimTime, SimTime)>,
    /// The data packets the bottleneck still holds (the sender's host backlog).
    host: HostBacklog,
    /// When a sender that waits for its host is to be woken.
    host_wake: Option<SimTime>,
    /// The largest host backlog a sender call began with, bytes.
    pub largest_host_backlog: u64,
    /// One past the highest sequence number sent so far.
    highest_sent: u64,
    /// The highest cumulative ACK the sender has received (SND.UNA).
    pub snd_una: u64,
    /// After every sender call: the data outstanding and the usable window.
    pub flights: Vec<Flight>,
    /// SND.UNA at each expiry of the retransmission timer (the segment timed out).
    pub timeout_una: Vec<u64>,
    /// Every data transmission, in order.
    pub sent: Vec<Sent>,
    /// The window after every ACK and timeout.
    pub windows: Vec<Window>,
    /// The window just before each expiry of the retransmission timer, and just after.
    pub timeouts: Vec<(Window, Window)>,
    /// Payload bytes handed to the receiving application.
    pub delivered: u64,
}

/// A TCP configuration: the `tcplab` defaults with `overrides` (scenario-engine field
/// names, as in [`TcpConfig`]) on top.
pub fn tcp(overrides: serde_json::Value) -> TcpConfig {
    let mut base = serde_json::json!({
        "cc": {"algorithm": "reno"},
        "sack": false,
        "mss_bytes": MSS,
        "initial_window_segments": 10,
        "handshake": false,
        "ack_every": 1,
        "delayed_ack_ns": 40_000_000u64,
        "receive_buffer": {"value": 64u64 << 20, "unit": "bytes"},
        "timestamps": false,
        "window_scaling": true,
        "rto": {"initial_ns": 1_000_000_000u64, "min_ns": 200_000_000u64, "max_ns": 60_000_000_000u64},
        "pacing": false,
    });
    if let (Some(b), Some(o)) = (base.as_object_mut(), overrides.as_object()) {
        for (k, v) in o {
            b.insert(k.clone(), v.clone());
        }
    }
    serde_json::from_value(base).expect("a valid TCP configuration")
}

impl Harness {
    /// A bulk transfer of `bytes` over a path of `rate_bps` and `one_way` delay each
    /// way; `drop(seq, nth)` says whether the `nth` transmission of the segment
    /// starting at `seq` is lost.
    pub fn new(
        cfg: &TcpConfig,
        bytes: u64,
        rate_bps: u64,
        one_way: SimTime,
        mut drop: impl FnMut(u64, u32) -> bool + 'static,
    ) -> Self {
        let app = ByteSource::new(
            &AppConfig::File { size_bytes: bytes },
            SimTime::ZERO,
            SimTime::from_secs(3600),
        );
        let (sender, receiver) = endpoints(cfg, MSS as u32, app, Rng::for_component(1, "harness"));
        Harness {
            sender,
            receiver,
            now: SimTime::ZERO,
            one_way,
            rate_bps,
            bottleneck_free: SimTime::ZERO,
            in_flight: BTreeMap::new(),
            next_id: 0,
            transmissions: HashMap::new(),
            drop: Box::new(move |seq, nth, _| drop(seq, nth)),
            late: Box::new(|_, _| SimTime::ZERO),
            stall: None,
            host: HostBacklog::new(),
            host_wake: None,
            largest_host_backlog: 0,
            highest_sent: 0,
            snd_una: 0,
            flights: Vec::new(),
            timeout_una: Vec::new(),
            sent: Vec::new(),
            windows: Vec::new(),
            timeouts: Vec::new(),
            delivered: 0,
        }
    }

    /// Drops by `drop(seq, nth, now)` instead: also by when the transmission is sent
    /// (a burst of loss lasts a while, not a number of segments).
    pub fn with_timed_drops(
        mut self,
        drop: impl FnMut(u64, u32, SimTime) -> bool + 'static,
    ) -> Self {
        self.drop = Box::new(drop);
        self
    }

    /// Holds the `nth` transmission of `seq` back by `late(seq, nth)` after the
    /// bottleneck, so later segments overtake it.
    pub fn with_late(mut self, late: impl FnMut(u64, u32) -> SimTime + 'static) -> Self {
        self.late = Box::new(late);
        self
    }

    /// Stops the bottleneck from `start` to `end`: what reaches it then waits.
    pub fn with_stall(mut self, start: SimTime, end: SimTime) -> Self {
        self.stall = Some((start, end));
        self
    }

    fn window(&self) -> Window {
        let p = self.sender.probe().expect("a TCP sender has a probe");
        Window {
            at: self.now,
            cwnd: p.cwnd_bytes,
            ssthresh: p.ssthresh_bytes,
        }
    }

    /// Puts what an endpoint sent on the path.
    fn carry(&mut self, out: &mut Outbox, towards: Towards) {
        self.delivered += out.take_delivered();
        let packets: Vec<_> = out.drain_packets().collect();
        for p in packets {
            let arrival = match (&p.header, towards) {
                (TransportHeader::Tcp(seg), Towards::Receiver) => self.forward(seg, p.size_bytes),
                _ => Some(self.now + self.one_way),
            };
            let Some(arrival) = arrival else { continue }; // dropped
            self.in_flight
                .insert((arrival, self.next_id), (towards, p.header));
            self.next_id += 1;
        }
    }

    /// A data segment through the bottleneck: logged, maybe dropped, else its arrival.
    fn forward(&mut self, seg: &TcpSegment, size: u32) -> Option<SimTime> {
        let end = seg.seq + seg.payload_bytes as u64 + seg.has(flags::FIN) as u64;
        self.highest_sent = self.highest_sent.max(end);
        if seg.payload_bytes > 0 || seg.has(flags::FIN) {
            let nth = self.transmissions.entry(seg.seq).or_insert(0);
            *nth += 1;
            let nth = *nth;
            let dropped = (self.drop)(seg.seq, nth, self.now);
            self.sent.push(Sent {
                at: self.now,
                seq: seg.seq,
                nth,
                dropped,
            });
            if dropped {
                return None;
            }
        }
        let mut start = self.now.max(self.bottleneck_free);
        if let Some((from, to)) = self.stall {
            if (from..to).contains(&start) {
                start = to;
            }
        }
        let serialization = SimTime(size as u64 * 8 * 1_000_000_000 / self.rate_bps);
        self.bottleneck_free = start + serialization;
        self.host.push(self.bottleneck_free, size);
        let late = if seg.payload_bytes > 0 || seg.has(flags::FIN) {
            let nth = self.transmissions.get(&seg.seq).copied().unwrap_or(1);
            (self.late)(seg.seq, nth)
        } else {
            SimTime::ZERO
        };
        Some(self.bottleneck_free + self.one_way + late)
    }

    /// Shows the sender its host backlog before a call.
    fn show_backlog(&mut self, out: &mut Outbox) {
        let bytes = self.host.bytes_at(self.now);
        self.largest_host_backlog = self.largest_host_backlog.max(bytes);
        out.set_host_backlog(bytes);
    }

    /// After a sender call: what it sent goes on the path, and a sender that waits for
    /// its host is woken when the bottleneck next finishes a packet.
    fn carry_from_sender(&mut self, out: &mut Outbox) {
        self.carry(out, Towards::Receiver);
        self.flights.push(Flight {
            at: self.now,
            outstanding: self.highest_sent.saturating_sub(self.snd_una),
            cwnd: self.window().cwnd,
        });
        if out.take_wait_for_host() {
            self.host_wake = self.host.next_completion();
        }
    }

    /// Runs until `until` or until nothing is left to happen.
    pub fn run(&mut self, until: SimTime) {
        let mut out = Outbox::new();
        self.show_backlog(&mut out);
        self.sender.on_wakeup(self.now, &mut out);
        self.carry_from_sender(&mut out);
        loop {
            let arrival = self.in_flight.keys().next().map(|k| k.0);
            let timers = [
                self.sender.poll_at(),
                self.receiver.poll_at(),
                self.host_wake,
            ];
            let wake = timers.into_iter().flatten().min();
            let next = match (arrival, wake) {
                (Some(a), Some(w)) => a.min(w),
                (a, w) => match a.or(w) {
                    Some(t) => t,
                    None => return,
                },
            };
            if next > until {
                return;
            }
            self.now = next;
            if arrival == Some(next) {
                let (_, (towards, header)) = self.in_flight.pop_first().expect("an arrival");
                match towards {
                    Towards::Receiver => {
                        self.receiver.on_packet(next, &header, &mut out);
                        self.carry(&mut out, Towards::Sender);
                    }
                    Towards::Sender => {
                        if let TransportHeader::Tcp(seg) = &header {
                            self.snd_una = self.snd_una.max(seg.ack);
                        }
                        self.show_backlog(&mut out);
                        self.sender.on_packet(next, &header, &mut out);
                        self.windows.push(self.window());
                        self.carry_from_sender(&mut out);
                    }
                }
                continue;
            }
            if self.receiver.poll_at() == Some(next) {
                self.receiver.on_wakeup(next, &mut out);
                self.carry(&mut out, Towards::Sender);
            }
            let host_wake = self.host_wake == Some(next);
            if self.sender.poll_at() == Some(next) || host_wake {
                if host_wake {
                    self.host_wake = None;
                }
                let before = self.window();
                let timeouts = self.rto_count();
                self.show_backlog(&mut out);
                self.sender.on_wakeup(next, &mut out);
                if self.rto_count() > timeouts {
                    self.timeouts.push((before, self.window()));
                    self.timeout_una.push(self.snd_una);
                }
                self.windows.push(self.window());
                self.carry_from_sender(&mut out);
            }
        }
    }

    /// Expiries of the retransmission timer so far.
    pub fn rto_count(&self) -> u64 {
        self.sender.stats().map_or(0, |s| s.rto_count)
    }

    /// The sender's counters so far.
    pub fn sender_stats(&self) -> crate::transport::TransportStats {
        self.sender.stats().unwrap_or_default()
    }

    /// Retransmissions so far.
    pub fn retransmits(&self) -> u64 {
        self.sender.stats().map_or(0, |s| s.retransmits)
    }

    /// The transmissions of the segment starting at `seq`.
    pub fn transmissions_of(&self, seq: u64) -> Vec<Sent> {
        self.sent.iter().filter(|s| s.seq == seq).copied().collect()
    }
}
