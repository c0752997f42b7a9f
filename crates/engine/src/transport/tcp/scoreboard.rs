//! The sender's retransmission queue and SACK scoreboard (RFC 6675 section 2–4).
//!
//! One entry per segment sent and not yet cumulatively acknowledged, in sequence
//! order, each marked SACKed, lost, and/or retransmitted. Byte counters kept in step
//! with the marks give the bytes in flight in O(1), as Linux does:
//! `pipe = outstanding − sacked − lost + retransmitted` (RFC 6675's SetPipe without
//! walking the queue). Lost marking follows RFC 6675's IsLost with DupThresh = 3
//! segments: a segment is lost once three SACKed segments lie above it. A
//! retransmission is lost once DupThresh segments sent after it are SACKed (Linux's
//! lost-retransmit rule, `tcp_mark_lost_retrans`; RFC 8985 finds the same by time),
//! when the sender asks for it.
//!
//! Every operation costs O(log n) in the queue's length plus the segments whose marks
//! it changes (amortised): a receiver repeats its SACK blocks on every ACK (RFC 2018
//! section 4) and on a long fat path one block can cover ~10⁵ segments, so walking the
//! blocks' segments would make each ACK O(window). The SACKed sequence ranges are kept
//! merged, and only the parts of a block not already known are walked.

use super::rack::Rack;
use super::rate::{Delivered, DeliveryStamp};
use super::retransmission_order::RetransmissionOrder;
use super::DUP_THRESH;
use crate::time::SimTime;
use std::collections::{BTreeMap, VecDeque};

/// One segment awaiting acknowledgement: 40 bytes, written on every transmission and
/// read on every ACK, so with many flows its size is memory traffic. The rest of its
/// delivery-rate stamp lives in the board's side queue, kept only when the algorithm
/// reads rate samples.
#[derive(Debug, Clone, Copy)]
pub struct SentSegment {
    /// First sequence number.
    pub start: u64,
    /// Sequence numbers it occupies (payload plus SYN/FIN).
    len: u32,
    /// Application bytes carried.
    pub payload_bytes: u32,
    /// When it was last (re)transmitted.
    pub sent_at: SimTime,
    /// The connection's delivered count at its last transmission (the stamp's part
    /// that round counting reads, so it is always kept).
    delivered: u64,
    /// Segment flags (SYN, FIN).
    pub flags: u8,
    /// Ever retransmitted (Karn's rule: no RTT sample).
    pub ever_retransmitted: bool,
    sacked: bool,
    lost: bool,
    retransmitted: bool,
}

impl SentSegment {
    /// The connection's delivered count (bytes) when it was last sent.
    pub fn delivered_at_send(&self) -> u64 {
        self.delivered
    }

    /// Sequence numbers it occupies.
    pub fn seq_len(&self) -> u64 {
        self.len as u64
    }

    /// One past its last sequence number.
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
}

/// The part of a delivery-rate stamp beyond the delivered count.
#[derive(Debug, Clone, Copy, Default)]
struct RateStamp {
    delivered_time: SimTime,
    first_sent_time: SimTime,
    app_limited: bool,
}

impl RateStamp {
    fn of(stamp: DeliveryStamp) -> Self {
        RateStamp {
            delivered_time: stamp.delivered_time,
            first_sent_time: stamp.first_sent_time,
            app_limited: stamp.app_limited,
        }
    }
}

/// What a cumulative ACK removed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Acked {
    /// Sequence bytes newly acknowledged.
    pub bytes: u64,
    /// Newest segment removed was never retransmitted, and neither was any other
    /// removed segment: its send time gives an unambiguous RTT sample.
    pub rtt_sample_from: Option<SimTime>,
    /// Bytes removed that had not been SACKed before (newly delivered).
    pub newly_delivered: u64,
    /// The newest newly delivered segment, for the delivery-rate sample.
    pub newest: Option<Delivered>,
    /// The lowest end of a newly delivered segment that had never been retransmitted
    /// (its original reached the receiver; Linux `FLAG_ORIG_SACK_ACKED` when at most
    /// `high_seq`).
    pub original_delivered: Option<u64>,
}

/// What SACK blocks newly marked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sacked {
    /// Bytes newly SACKed.
    pub bytes: u64,
    /// The newest newly SACKed segment.
    pub newest: Option<Delivered>,
    /// The lowest end of a newly SACKed segment that had never been retransmitted.
    pub original_delivered: Option<u64>,
}

/// Segments in flight with their marks.
#[derive(Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSegment>,
    /// With `keep_rate_stamps`, entry i completes segment i's delivery-rate stamp;
    /// otherwise empty.
    rate_stamps: VecDeque<RateStamp>,
    keep_rate_stamps: bool,
    outstanding: u64,
    sacked: u64,
    sacked_segments: usize,
    lost: u64,
    retransmitted: u64,
    /// Outstanding segments ever retransmitted. With none, and none SACKed or lost, a
    /// cumulative ACK removes only plain segments, sent in sequence order (the common
    /// case outside loss repair, taken without reading their marks).
    ever_retransmitted_segments: usize,
    /// Segments marked lost and not yet retransmitted: NextSeg rule 1 has work only
    /// when this is non-zero, so ACKs outside loss repair never scan the queue.
    pending_retransmit: usize,
    /// No segment below this sequence number awaits retransmission.
    retransmit_hint: u64,
    /// Starts of the DupThresh highest SACKed segments, ascending: the lowest of them
    /// is the IsLost boundary, found without walking the queue.
    top_sacked: Vec<u64>,
    /// Segments below this sequence number have been through lost marking.
    lost_frontier: u64,
    /// The SACKed segments as maximal runs of sequence space, start → end. Runs
    /// wholly below the cumulative ACK are dropped; one may straddle it.
    sacked_runs: BTreeMap<u64, u64>,
    /// Retransmissions to watch for loss, oldest first (only with lost-retransmit
    /// detection or RACK on; empty outside loss repair).
    watched: VecDeque<WatchedRetransmission>,
    /// RFC 8985 state, when losses are detected by time.
    rack: Option<Rack>,
    /// ns-2 TCP/Linux's numbering of retransmissions, when its second lost-retransmit
    /// rule is on ([`Scoreboard::with_retransmission_order`]).
    retx_order: Option<RetransmissionOrder>,
    /// Segments ever marked lost (each marking counts): a change says an ACK found a
    /// new loss.
    losses_marked: u64,
    /// Retransmissions ever marked lost.
    retransmissions_lost: u64,
    /// With RACK: original transmissions below this sequence number are settled
    /// (delivered, marked lost or retransmitted); the time walk starts here.
    rack_frontier: u64,
}

/// A retransmission whose own loss is watched for: it is lost once DupThresh segments
/// sent after it, all at or above `sent_above`, have been SACKed.
#[derive(Debug, Clone, Copy)]
struct WatchedRetransmission {
    /// The retransmitted segment's first sequence number.
    start: u64,
    /// When it went out: a later retransmission of the same segment supersedes it.
    sent_at: SimTime,
    /// SND.NXT when it went out: everything from here on was sent after it.
    sent_above: u64,
    /// Its number in sending order (with ns-2's numbering on; 0 otherwise).
    order: u64,
}

impl Scoreboard {
    /// An empty board. With `rate_samples` it keeps each segment's whole delivery-rate
    /// stamp; without, only the delivered count (enough for round counting), and the
    /// other stamp fields read back as zero.
    pub fn new(rate_samples: bool) -> Self {
        Scoreboard {
            keep_rate_stamps: rate_samples,
            ..Self::default()
        }
    }

    /// The board for a sender that detects losses by time (RFC 8985 RACK).
    pub fn with_rack(mut self) -> Self {
        self.rack = Some(Rack::default());
        self
    }

    /// With ns-2.35 TCP/Linux's second lost-retransmit rule: a retransmission is lost
    /// once one sent more than DupThresh + 1 retransmissions after it is delivered
    /// ([`RetransmissionOrder`]; checked by [`Scoreboard::mark_lost_by_ns2_linux_fack`]).
    pub fn with_retransmission_order(mut self) -> Self {
        self.retx_order = Some(RetransmissionOrder::default());
        self
    }

    /// RACK's state, when on.
    pub fn rack_mut(&mut self) -> Option<&mut Rack> {
        self.rack.as_mut()
    }

    /// Segments selectively acknowledged.
    pub fn sacked_segments(&self) -> usize {
        self.sacked_segments
    }

    /// How many times a segment has been marked lost so far.
    pub fn losses_marked(&self) -> u64 {
        self.losses_marked
    }

    /// How many retransmissions have been marked lost so far.
    pub fn retransmissions_lost(&self) -> u64 {
        self.retransmissions_lost
    }

    /// Bytes marked lost (retransmitted or not).
    pub fn lost_bytes(&self) -> u64 {
        self.lost
    }

    /// The highest segment not SACKed: what a tail loss probe resends.
    pub fn last_unsacked(&self) -> Option<SentSegment> {
        self.segs.iter().rev().find(|s| !s.sacked).copied()
    }

    /// Segment i's last transmission, for the delivery-rate sampler.
    fn delivered(&self, i: usize) -> Delivered {
        let s = &self.segs[i];
        let rest = self.rate_stamps.get(i).copied().unwrap_or_default();
        Delivered {
            stamp: DeliveryStamp {
                delivered: s.delivered,
                delivered_time: rest.delivered_time,
                first_sent_time: rest.first_sent_time,
                app_limited: rest.app_limited,
            },
            sent_at: s.sent_at,
        }
    }

    /// Bytes in flight: RFC 6675 "pipe".
    pub fn in_flight(&self) -> u64 {
        self.outstanding - self.sacked - self.lost + self.retransmitted
    }

    /// Bytes sent and not cumulatively acknowledged (RFC 5681 FlightSize).
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// Segments sent and not cumulatively acknowledged (Linux `packets_out`).
    pub fn segments(&self) -> usize {
        self.segs.len()
    }

    /// Bytes of retransmissions in flight (not SACKed, not marked lost again).
    pub fn retransmitted_bytes(&self) -> u64 {
        self.retransmitted
    }

    /// Bytes selectively acknowledged.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked
    }

    /// Whether nothing is outstanding.
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// The first unacknowledged segment.
    pub fn first(&self) -> Option<&SentSegment> {
        self.segs.front()
    }

    /// Records a new segment sent at `now` with delivery state `stamp`.
    pub fn push(
        &mut self,
        start: u64,
        end: u64,
        payload_bytes: u32,
        flags: u8,
        now: SimTime,
        stamp: DeliveryStamp,
    ) {
        self.segs.push_back(SentSegment {
            start,
            len: (end - start) as u32,
            payload_bytes,
            sent_at: now,
            delivered: stamp.delivered,
            flags,
            ever_retransmitted: false,
            sacked: false,
            lost: false,
            retransmitted: false,
        });
        if self.keep_rate_stamps {
            self.rate_stamps.push_back(RateStamp::of(stamp));
        }
        self.outstanding += end - start;
    }

    /// Removes every segment wholly below `ack` (a cumulative ACK).
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        // A segment marked retransmitted is also ever retransmitted.
        let marked =
            self.sacked_segments > 0 || self.lost > 0 || self.ever_retransmitted_segments > 0;
        let acked = if marked {
            self.remove_marked(ack)
        } else {
            self.remove_plain(ack)
        };
        self.retransmit_hint = self.retransmit_hint.max(ack);
        // Retransmissions go out roughly in sequence order: the front is the oldest.
        while self.watched.front().is_some_and(|w| w.start < ack) {
            self.watched.pop_front();
        }
        if let Some(order) = self.retx_order.as_mut() {
            order.forget_below(ack);
        }
        if !self.top_sacked.is_empty() {
            self.top_sacked.retain(|&start| start >= ack);
        }
        // The emptiness test keeps SACK-less connections off the map entirely.
        if !self.sacked_runs.is_empty() {
            while let Some(run) = self.sacked_runs.first_entry() {
                if *run.get() > ack {
                    break;
                }
                run.remove();
            }
        }
        acked
    }

    /// [`Scoreboard::ack_to`] when no segment carries a mark: every removed segment is
    /// newly delivered, the last one removed is the newest (sent last, with the
    /// largest delivered count), and none was retransmitted (its send time gives the
    /// RTT sample).
    fn remove_plain(&mut self, ack: u64) -> Acked {
        let mut acked = Acked::default();
        let mut removed = 0;
        for s in self.segs.iter() {
            if s.end() > ack {
                break;
            }
            acked.bytes += s.seq_len();
            acked.rtt_sample_from = Some(s.sent_at);
            removed += 1;
        }
        acked.newly_delivered = acked.bytes;
        if removed > 0 {
            acked.original_delivered = Some(self.segs[0].end());
            acked.newest = Some(self.delivered(removed - 1));
            if let Some(rack) = &mut self.rack {
                // Sent in sequence order, never retransmitted: the last is the latest.
                let s = &self.segs[removed - 1];
                rack.on_delivered(s.sent_at, s.end(), false);
            }
        }
        self.pop_front(removed);
        self.outstanding -= acked.bytes;
        acked
    }

    /// Removes the first `n` segments.
    fn pop_front(&mut self, n: usize) {
        // A pop per segment: cheaper than `drain` for the one or two an ACK removes.
        for _ in 0..n {
            self.segs.pop_front();
        }
        if self.keep_rate_stamps {
            for _ in 0..n {
                self.rate_stamps.pop_front();
            }
        }
    }

    /// [`Scoreboard::ack_to`] in general: the removed segments' marks come off the
    /// counters.
    fn remove_marked(&mut self, ack: u64) -> Acked {
        let mut acked = Acked::default();
        let mut ambiguous = false;
        let mut last_sent = None;
        // The removed segments' marks, taken off the counters once after the walk.
        let (mut sacked, mut sacked_segments, mut lost, mut lost_pending, mut retx) =
            (0, 0, 0, 0, 0);
        let mut ever_retransmitted = 0;
        // (index, delivered, sent_at) of the newest newly delivered segment.
        let mut newest: Option<(usize, u64, SimTime)> = None;
        let mut removed = 0;
        for s in self.segs.iter() {
            if s.end() > ack {
                break;
            }
            let len = s.seq_len();
            acked.bytes += len;
            if s.sacked {
                sacked += len;
                sacked_segments += 1;
            } else {
                acked.newly_delivered += len;
                if newest.is_none_or(|(_, d, t)| (s.delivered, s.sent_at) >= (d, t)) {
                    newest = Some((removed, s.delivered, s.sent_at));
                }
                if !s.ever_retransmitted && acked.original_delivered.is_none() {
                    acked.original_delivered = Some(s.end()); // ascending: the lowest
                }
                if let Some(rack) = &mut self.rack {
                    rack.on_delivered(s.sent_at, s.end(), s.ever_retransmitted);
                }
            }
            if s.lost {
                lost += len;
                lost_pending += usize::from(!s.retransmitted);
            }
            if s.retransmitted {
                retx += len;
            }
            ambiguous |= s.ever_retransmitted;
            ever_retransmitted += usize::from(s.ever_retransmitted);
            last_sent = Some(s.sent_at);
            removed += 1;
        }
        acked.newest = newest.map(|(i, _, _)| self.delivered(i));
        if self.retx_order.is_some() {
            for i in 0..removed {
                if self.segs[i].retransmitted {
                    self.note_retransmission_delivered(i, true);
                }
            }
        }
        self.pop_front(removed);
        self.outstanding -= acked.bytes;
        self.ever_retransmitted_segments -= ever_retransmitted;
        self.sacked -= sacked;
        self.sacked_segments -= sacked_segments;
        self.lost -= lost;
        self.pending_retransmit -= lost_pending;
        self.retransmitted -= retx;
        if !ambiguous {
            acked.rtt_sample_from = last_sent;
        }
        acked
    }

    /// Marks the segments inside SACK block [left, right), adding to `newly`. Only
    /// the stretches of the block outside the known SACKed runs are walked.
    pub fn sack(&mut self, left: u64, right: u64, newly: &mut Sacked) {
        let mut cursor = left;
        while cursor < right {
            if let Some((_, &end)) = self.sacked_runs.range(..=cursor).next_back() {
                if end > cursor {
                    cursor = end; // already known: skip the run
                    continue;
                }
            }
            let gap_end = match self.sacked_runs.range(cursor..).next() {
                Some((&start, _)) => start.min(right),
                None => right,
            };
            self.sack_unknown(cursor, gap_end, left, right, newly);
            cursor = gap_end;
        }
    }

    /// Marks the whole segments of block [left, right) that lie in [from, to), a
    /// stretch holding no SACKed segment, and records them as one SACKed run.
    fn sack_unknown(&mut self, from: u64, to: u64, left: u64, right: u64, newly: &mut Sacked) {
        let mut i = self.segs.partition_point(|s| s.end() <= from);
        let mut run: Option<(u64, u64)> = None;
        while i < self.segs.len() && self.segs[i].start < to {
            let s = &mut self.segs[i];
            // Only whole segments inside the block count as received.
            if s.start >= left && s.end() <= right && !s.sacked {
                let (len, was_lost, was_retx) = (s.seq_len(), s.lost, s.retransmitted);
                s.sacked = true;
                s.lost = false;
                s.retransmitted = false;
                self.sacked += len;
                self.sacked_segments += 1;
                if was_lost {
                    self.lost -= len;
                    if !was_retx {
                        self.pending_retransmit -= 1;
                    }
                }
                if was_retx {
                    self.retransmitted -= len;
                    self.note_retransmission_delivered(i, false);
                }
                newly.bytes += len;
                newly.newest = Some(self.delivered(i).newest(newly.newest));
                let s = &self.segs[i];
                if !s.ever_retransmitted {
                    let end = s.end();
                    newly.original_delivered =
                        Some(newly.original_delivered.map_or(end, |e| e.min(end)));
                }
                if let Some(rack) = &mut self.rack {
                    rack.on_delivered(s.sent_at, s.end(), s.ever_retransmitted);
                }
                let (start, end) = (self.segs[i].start, self.segs[i].end());
                run = Some((run.map_or(start, |r| r.0), end));
                self.note_top_sacked(start);
            }
            i += 1;
        }
        if let Some((start, end)) = run {
            self.add_sacked_run(start, end);
        }
    }

    /// Keeps the DupThresh highest SACKed starts.
    fn note_top_sacked(&mut self, start: u64) {
        if self.top_sacked.len() < DUP_THRESH || start > self.top_sacked[0] {
            let at = self.top_sacked.partition_point(|&x| x < start);
            self.top_sacked.insert(at, start);
            if self.top_sacked.len() > DUP_THRESH {
                self.top_sacked.remove(0);
            }
        }
    }

    /// Inserts run [start, end), merging it with the runs it touches.
    fn add_sacked_run(&mut self, mut start: u64, mut end: u64) {
        if let Some((&prev_start, &prev_end)) = self.sacked_runs.range(..start).next_back() {
            if prev_end >= start {
                start = prev_start;
                end = end.max(prev_end);
            }
        }
        while let Some((&next_start, &next_end)) = self.sacked_runs.range(start..).next() {
            if next_start > end {
                break;
            }
            self.sacked_runs.remove(&next_start);
            end = end.max(next_end);
        }
        self.sacked_runs.insert(start, end);
    }

    fn mark_lost_at(&mut self, i: usize) {
        let s = &mut self.segs[i];
        if s.sacked || (s.lost && !s.retransmitted) {
            return;
        }
        let len = s.seq_len();
        if s.retransmitted {
            // The retransmission is lost too (found by time or SACKs, or presumed after
            // a timeout). A probe's retransmission was not marked lost before it.
            s.retransmitted = false;
            self.retransmitted -= len;
            self.retransmissions_lost += 1;
        }
        if !s.lost {
            self.lost += len;
        }
        s.lost = true;
        self.losses_marked += 1;
        self.pending_retransmit += 1;
        self.retransmit_hint = self.retransmit_hint.min(s.start);
    }

    /// Marks the first unacknowledged segment lost (fast retransmit, NewReno partial ACK).
    pub fn mark_first_lost(&mut self) {
        if !self.segs.is_empty() && !self.segs[0].lost {
            self.mark_lost_at(0);
        }
    }

    /// RFC 6675 IsLost for the whole queue: every un-SACKed segment with at least
    /// DupThresh SACKed segments above it is marked lost. Each segment is examined
    /// once (the frontier only moves up). Returns whether the first segment is lost.
    pub fn mark_lost_by_sack(&mut self) -> bool {
        if self.top_sacked.len() < DUP_THRESH {
            return false;
        }
        let boundary = self.top_sacked[0];
        self.mark_unsacked_lost_below(boundary);
        self.mark_lost_retransmissions(boundary);
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// Marks lost again every watched retransmission with DupThresh SACKed segments
    /// (those from `boundary` up) sent after it: the receiver got later data, so the
    /// retransmission was dropped (Linux `tcp_mark_lost_retrans` with DupThresh as
    /// its reordering allowance). Sent-after is by sequence number: SND.NXT was
    /// `sent_above` when the retransmission left, so everything above was sent later.
    fn mark_lost_retransmissions(&mut self, boundary: u64) {
        while let Some(w) = self.watched.front().copied() {
            if boundary < w.sent_above {
                break; // later entries were sent later still, with SND.NXT no lower
            }
            self.watched.pop_front();
            if let Some(i) = self.still_out(w) {
                self.mark_lost_at(i);
            }
        }
    }

    /// Where the watched retransmission `w` is, if it is still the segment's latest
    /// transmission and neither acknowledged nor SACKed.
    fn still_out(&self, w: WatchedRetransmission) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.start < w.start);
        let s = self.segs.get(i)?;
        (s.start == w.start && s.retransmitted && !s.sacked && s.sent_at == w.sent_at).then_some(i)
    }

    /// FACK (Mathis & Mahdavi 1996; Linux 2.6's default, `tcp_update_scoreboard` with
    /// `tcp_mark_head_lost`): every un-SACKed segment below `high_seq` with at least
    /// DupThresh segments, SACKed or not, between it and the highest SACKed one
    /// (that one included) is lost. Returns whether the first segment is lost.
    pub fn mark_lost_by_fack(&mut self, high_seq: u64) -> bool {
        let Some(&highest) = self.top_sacked.last() else {
            return false;
        };
        self.mark_fack_lost(highest, DUP_THRESH, high_seq);
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// ns-2.35's TCP/Linux scoreboard (`ScoreBoard1::UpdateScoreBoard`): every segment
    /// not SACKed that lies DupThresh + 1 segments or more below the highest SACKed one
    /// is lost (`lost_seq_threshold = fack_ - (dupack_threshold + 1)`), and so is every
    /// retransmission sent before the highest SACKed segment was first sent
    /// (`GetSndNxt() <= fack_`: no reordering allowance). Returns whether anything was
    /// newly marked lost (ns-2's FLAG_DATA_LOST, which alone starts a recovery).
    pub fn mark_lost_by_ns2_linux_fack(&mut self) -> bool {
        let Some(&highest) = self.top_sacked.last() else {
            return false;
        };
        let before = self.losses_marked();
        self.mark_fack_lost(highest, DUP_THRESH + 1, u64::MAX);
        self.mark_lost_by_retransmission_order();
        self.losses_marked() > before
    }

    /// ns-2's second lost-retransmit rule ([`RetransmissionOrder`]), on this ACK's walk.
    /// `watched` is in sending order, so in numbering order since the last reset (a
    /// reset clears it): only a prefix can be condemned, and entries no longer out
    /// (delivered, lost or sent again) leave for good as the walk meets them.
    fn mark_lost_by_retransmission_order(&mut self) {
        let Some(order) = self.retx_order.as_mut() else {
            return;
        };
        let Some(highest) = order.begin_walk() else {
            return;
        };
        let mut kept = Vec::new();
        while let Some(w) = self.watched.front().copied() {
            if !RetransmissionOrder::condemned(w.order, highest) {
                break;
            }
            self.watched.pop_front();
            let Some(i) = self.still_out(w) else {
                continue;
            };
            if self
                .retx_order
                .as_ref()
                .is_some_and(|o| o.is_lost(w.start, w.order))
            {
                self.mark_lost_at(i);
            } else {
                kept.push(w); // below a retransmission SACKed now: judged on the next ACK
            }
        }
        for w in kept.into_iter().rev() {
            self.watched.push_front(w);
        }
        if let Some(order) = self.retx_order.as_mut() {
            order.end_walk();
        }
    }

    /// Segment `i`, whose latest transmission is a retransmission, was delivered
    /// (cumulatively acknowledged or SACKed): ns-2's numbering learns its number.
    fn note_retransmission_delivered(&mut self, i: usize, cumulative: bool) {
        if let Some(order) = self.retx_order.as_mut() {
            let s = &self.segs[i];
            order.on_delivered(s.start, s.sent_at, cumulative);
        }
    }

    /// The forward-acknowledgement rule both FACK markers share: with `highest` the
    /// highest SACKed segment, every un-SACKed segment below `high_seq` that lies at
    /// least `distance` segments below it (fackets_out − distance from SND.UNA) is
    /// lost, and so is every retransmission sent before `highest` was first sent (2.6's
    /// lost-retransmit check beside FACK, `tcp_sacktag_write_queue` with IsFack, and
    /// ns-2's alike: no reordering allowance). Each segment is examined once: the
    /// frontier only moves up.
    fn mark_fack_lost(&mut self, highest: u64, distance: usize, high_seq: u64) {
        let fackets = self.segs.partition_point(|s| s.start <= highest);
        if let Some(first_kept) = fackets.checked_sub(distance).filter(|&i| i > 0) {
            self.mark_unsacked_lost_below(self.segs[first_kept].start.min(high_seq));
        }
        self.mark_lost_retransmissions(highest);
    }

    /// ns-2.35's Sack1 in fast recovery (`Sack1TcpAgent::send_much` taking
    /// `ScoreBoardRQ::GetNextRetran` before new data): every un-SACKed segment below
    /// the highest SACKed one is lost, whatever lies above it (RFC 6675's IsLost asks
    /// for DupThresh SACKed segments). Each segment is examined once.
    pub fn mark_lost_below_highest_sacked(&mut self) {
        if let Some(&highest) = self.top_sacked.last() {
            self.mark_unsacked_lost_below(highest);
        }
    }

    /// Marks lost every segment starting below `boundary` that is neither SACKed nor
    /// marked, from the frontier up (each segment is examined once).
    fn mark_unsacked_lost_below(&mut self, boundary: u64) {
        let from = self.segs.partition_point(|s| s.end() <= self.lost_frontier);
        let to = self.segs.partition_point(|s| s.start < boundary);
        for i in from..to {
            let s = self.segs[i];
            if !s.sacked && !s.lost {
                self.mark_lost_at(i);
            }
        }
        self.lost_frontier = self.lost_frontier.max(boundary);
    }

    /// RACK loss detection (RFC 8985 6.2 step 5, Linux `tcp_rack_detect_loss`): every
    /// transmission sent before the most recent delivered one that has had RACK.rtt +
    /// `reo_wnd` to arrive is lost — originals walked in sequence (= sending) order
    /// from the frontier, retransmissions in the order they went out. Returns when
    /// the next one not yet expired will be (the reordering timer), if any.
    pub fn mark_lost_by_time(&mut self, now: SimTime, reo_wnd: SimTime) -> Option<SimTime> {
        let rack = self.rack?;
        let mut wait: Option<i64> = None;
        // Originals.
        let mut i = self.segs.partition_point(|s| s.end() <= self.rack_frontier);
        while i < self.segs.len() {
            let s = self.segs[i];
            if s.sacked || s.ever_retransmitted || s.lost {
                i += 1;
                self.rack_frontier = s.end();
                continue;
            }
            if rack.sent_after_record(s.sent_at, s.end()) {
                break;
            }
            let remaining = rack.remaining(now, s.sent_at, reo_wnd);
            if remaining > 0 {
                wait = Some(remaining);
                break;
            }
            self.mark_lost_at(i);
            self.rack_frontier = s.end();
            i += 1;
        }
        // Retransmissions (each one once, in the order it was sent).
        while let Some(w) = self.watched.front().copied() {
            let Some(i) = self.still_out(w) else {
                self.watched.pop_front(); // delivered, or sent again since
                continue;
            };
            let s = self.segs[i];
            if rack.sent_after_record(s.sent_at, s.end()) {
                break;
            }
            let remaining = rack.remaining(now, s.sent_at, reo_wnd);
            if remaining > 0 {
                wait = Some(wait.map_or(remaining, |x| x.min(remaining)));
                break;
            }
            self.watched.pop_front();
            self.mark_lost_at(i);
        }
        wait.map(|r| now + SimTime(r as u64))
    }

    /// Takes back every SACK mark, as if the receiver had reported none (RFC 2018
    /// section 8's advice after a timeout: the receiver may have reneged). Called
    /// before `mark_all_lost`, which then presumes the formerly SACKed segments lost.
    pub fn forget_sacks(&mut self) {
        if self.sacked_segments == 0 {
            return;
        }
        for s in self.segs.iter_mut() {
            s.sacked = false;
        }
        self.sacked = 0;
        self.sacked_segments = 0;
        self.sacked_runs.clear();
        self.top_sacked.clear();
        self.watched.clear();
        self.lost_frontier = 0;
        self.rack_frontier = 0;
    }

    /// Forgets everything learnt about the outstanding segments — SACKs, loss marks,
    /// retransmissions in flight — as ns-2.35's TCP/Linux does when a recovery ends
    /// (`ScoreBoard1::ClearScoreBoard` in `tcp_fastretrans_alert`): every outstanding
    /// segment counts as in flight again until later SACK blocks say otherwise, and a
    /// hole they then show is a new loss (a retransmission still in flight included).
    pub fn clear_marks(&mut self) {
        self.forget_sacks();
        self.unmark_lost();
        if self.retransmitted > 0 {
            for s in self.segs.iter_mut() {
                s.retransmitted = false;
            }
            self.retransmitted = 0;
        }
        // Every retransmission watched for its own loss is forgotten with the rest.
        self.watched.clear();
        if let Some(order) = self.retx_order.as_mut() {
            order.reset();
        }
    }

    /// After a retransmission timeout every un-SACKed segment is presumed lost
    /// (retransmitted ones included). With RACK, only the first segment and those
    /// sent longer than RACK.rtt ago (Linux `tcp_timeout_mark_lost`): the others may
    /// still be on their way.
    pub fn mark_all_lost(&mut self, now: SimTime) {
        let recent = self
            .rack
            .map(|r| SimTime(now.as_ns().saturating_sub(r.rtt().as_ns())));
        for i in 0..self.segs.len() {
            if i > 0 && recent.is_some_and(|t| self.segs[i].sent_at > t) {
                continue;
            }
            self.mark_lost_at(i);
        }
        // ns-2's `MarkLoss` numbers retransmissions afresh; every retransmission is
        // lost, so none is watched any more (and the numbers stay in sending order).
        if let Some(order) = self.retx_order.as_mut() {
            order.reset();
            self.watched.clear();
        }
    }

    /// Takes back every loss mark (Linux `tcp_undo_cwnd_reduction` with
    /// `unmark_loss`): a reduction proved spurious, so what was deemed lost is in
    /// flight after all. Retransmissions stay counted in flight, as in Linux.
    pub fn unmark_lost(&mut self) {
        if self.lost == 0 {
            return;
        }
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
        self.lost = 0;
        self.pending_retransmit = 0;
        self.retransmit_hint = u64::MAX;
        // What was unmarked must be examined again: the frontiers had passed these
        // segments as marked, and a segment the undo took back that really was lost
        // would otherwise wait for the timer (Linux's RACK walks its whole sent queue).
        self.rack_frontier = 0;
        self.lost_frontier = 0;
    }

    /// RFC 6675 NextSeg rule (1): the first lost segment not yet retransmitted.
    pub fn next_to_retransmit(&mut self) -> Option<SentSegment> {
        if self.pending_retransmit == 0 {
            return None;
        }
        let from = self
            .segs
            .partition_point(|s| s.end() <= self.retransmit_hint);
        let found = self
            .segs
            .range(from..)
            .position(|s| s.lost && !s.retransmitted && !s.sacked);
        match found {
            Some(k) => {
                // Nothing below it awaits retransmission: the next search starts here
                // even if this one is not sent now (the window may be full).
                self.retransmit_hint = self.segs[from + k].start;
                Some(self.segs[from + k])
            }
            None => {
                self.retransmit_hint = u64::MAX;
                None
            }
        }
    }

    /// Records the retransmission at `now`, with delivery state `stamp`, of the segment
    /// starting at `start`; with `watch = Some(snd_nxt)` its own loss will be detected
    /// by SACKs of data sent after it ([`Scoreboard::mark_lost_by_sack`]).
    pub fn retransmitted(
        &mut self,
        start: u64,
        now: SimTime,
        stamp: DeliveryStamp,
        watch: Option<u64>,
    ) {
        if let Some(sent_above) = watch {
            let order = self.retx_order.as_mut().map_or(0, |o| o.number(start, now));
            self.watched.push_back(WatchedRetransmission {
                start,
                sent_at: now,
                sent_above,
                order,
            });
        }
        let i = self.segs.partition_point(|s| s.start < start);
        let s = &mut self.segs[i];
        debug_assert_eq!(s.start, start);
        if !s.retransmitted {
            s.retransmitted = true;
            self.retransmitted += s.seq_len();
            if s.lost {
                self.pending_retransmit -= 1;
            }
        }
        if !s.ever_retransmitted {
            s.ever_retransmitted = true;
            self.ever_retransmitted_segments += 1;
        }
        s.sent_at = now;
        s.delivered = stamp.delivered;
        // NextSeg's search resumes after this segment only if it was the first one
        // awaiting retransmission. A retransmission from elsewhere — a tail-loss probe
        // of the highest segment — must not jump the search past lost segments below
        // it, or they would wait for the timer.
        if s.start == self.retransmit_hint {
            self.retransmit_hint = s.end();
        }
        if let Some(rest) = self.rate_stamps.get_mut(i) {
            *rest = RateStamp::of(stamp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` 100-byte segments from sequence number 1, segment i sent at and stamped
    /// with `sent(i)`.
    fn board_with(
        n: u64,
        keep_rate_stamps: bool,
        sent: impl Fn(u64) -> (SimTime, DeliveryStamp),
    ) -> Scoreboard {
        let mut b = Scoreboard::new(keep_rate_stamps);
        for i in 0..n {
            let (at, stamp) = sent(i);
            b.push(1 + i * 100, 1 + (i + 1) * 100, 100, 0, at, stamp);
        }
        b
    }

    /// `n` segments sent at time zero with empty stamps.
    fn board(n: u64) -> Scoreboard {
        board_with(n, true, |_| (SimTime::ZERO, DeliveryStamp::default()))
    }

    /// A board with no marks takes `ack_to`'s plain path; the same segments with one
    /// retransmission above the ACK take the general path. The ACK removes the same
    /// unmarked segments from both, so both must report the same: bytes, newly
    /// delivered bytes, the newest segment (the last removed: 3 of 0..=3, sent at
    /// 3 ms with delivered = 300) and the RTT sample's send time.
    #[test]
    fn the_plain_path_reports_what_the_general_path_does() {
        let boards = [false, true].map(|retransmit_above| {
            let mut b = stamped_board(6, true);
            if retransmit_above {
                b.retransmitted(501, SimTime::from_ms(9), stamp(600, 9), None);
            }
            b
        });
        let [plain, general] = boards.map(|mut b| {
            let a = b.ack_to(401);
            (
                a.bytes,
                a.newly_delivered,
                a.newest,
                a.rtt_sample_from,
                b.outstanding(),
            )
        });
        assert_eq!(plain, general);
        let newest = Delivered {
            stamp: stamp(300, 3),
            sent_at: SimTime::from_ms(3),
        };
        assert_eq!(
            plain,
            (400, 400, Some(newest), Some(SimTime::from_ms(3)), 200)
        );
    }

    #[test]
    fn pipe_counts_what_is_neither_sacked_nor_lost_plus_retransmissions() {
        let mut b = board(10);
        assert_eq!(b.in_flight(), 1000);
        b.sack(201, 501, &mut Sacked::default()); // segments 3..5 received
        assert_eq!(b.in_flight(), 700);
        assert!(b.mark_lost_by_sack()); // 3 SACKed above segments 1 and 2
        assert_eq!(b.in_flight(), 500);
        let s = b.next_to_retransmit().unwrap();
        assert_eq!(s.start, 1);
        b.retransmitted(1, SimTime::from_ms(1), DeliveryStamp::default(), None);
        assert_eq!(b.in_flight(), 600);
        assert_eq!(b.next_to_retransmit().unwrap().start, 101);
    }

    /// An undo takes back the loss marks; segments that really were lost must be found
    /// again by the next SACKs (before, the frontier had passed them: they waited for
    /// the timer — a BBR flow after Startup sat 450 ms without sending).
    #[test]
    fn segments_unmarked_by_an_undo_are_marked_lost_again() {
        let mut b = board(10);
        b.sack(201, 501, &mut Sacked::default()); // segments 3..5 received
        assert!(b.mark_lost_by_sack()); // segments 1 and 2 lost
        b.unmark_lost(); // the reduction looked spurious
        assert!(b.next_to_retransmit().is_none());
        b.sack(501, 601, &mut Sacked::default()); // segment 6 arrives: 1 and 2 still missing
        assert!(b.mark_lost_by_sack());
        assert_eq!(b.next_to_retransmit().map(|s| s.start), Some(1));
    }

    /// A retransmission that is not NextSeg's candidate (a tail-loss probe of the
    /// highest segment) leaves the lost segments below it to be resent next.
    #[test]
    fn a_probe_above_lost_segments_does_not_hide_them() {
        let mut b = board(10);
        b.sack(201, 501, &mut Sacked::default());
        assert!(b.mark_lost_by_sack()); // segments 1 and 2 lost
        b.retransmitted(901, SimTime::from_ms(5), DeliveryStamp::default(), None); // the probe
        assert_eq!(b.next_to_retransmit().map(|s| s.start), Some(1));
    }

    #[test]
    fn fewer_than_dupthresh_sacks_mark_nothing() {
        let mut b = board(10);
        b.sack(901, 1001, &mut Sacked::default());
        b.sack(701, 801, &mut Sacked::default());
        assert!(!b.mark_lost_by_sack());
        assert!(b.next_to_retransmit().is_none());
    }

    #[test]
    fn cumulative_ack_removes_and_reports_rtt_unless_retransmitted() {
        let mut b = board(4);
        let a = b.ack_to(201);
        assert_eq!(a.bytes, 200);
        assert_eq!(a.rtt_sample_from, Some(SimTime::ZERO));
        b.mark_first_lost();
        b.retransmitted(201, SimTime::from_ms(5), DeliveryStamp::default(), None);
        let a = b.ack_to(401);
        assert_eq!(a.bytes, 200);
        assert_eq!(a.rtt_sample_from, None); // Karn
        assert!(b.is_empty());
        assert_eq!(b.in_flight(), 0);
    }

    /// `n` segments, segment i sent at i ms with delivered = 100·i.
    fn stamped_board(n: u64, keep_rate_stamps: bool) -> Scoreboard {
        board_with(n, keep_rate_stamps, |i| {
            (SimTime::from_ms(i), stamp(i * 100, i))
        })
    }

    fn stamp(delivered: u64, at_ms: u64) -> DeliveryStamp {
        DeliveryStamp {
            delivered,
            delivered_time: SimTime::from_ms(at_ms),
            first_sent_time: SimTime::from_ms(at_ms + 1),
            app_limited: true,
        }
    }

    /// The newest delivered segment is the one sent with the most delivered before it
    /// (a retransmission of an old segment, stamped late, beats newer originals). With
    /// rate samples the whole stamp comes back; without, only the delivered count and
    /// the send time (what round counting reads), the rest zero.
    #[test]
    fn acks_report_the_newest_stamp_whole_or_in_part() {
        for keep in [true, false] {
            let mut b = stamped_board(3, keep);
            b.mark_first_lost();
            b.retransmitted(1, SimTime::from_ms(50), stamp(700, 40), None);
            let newest = b.ack_to(301).newest.unwrap();
            assert_eq!(newest.sent_at, SimTime::from_ms(50));
            assert_eq!(newest.stamp.delivered, 700);
            let whole = if keep {
                stamp(700, 40)
            } else {
                DeliveryStamp {
                    delivered: 700,
                    ..DeliveryStamp::default()
                }
            };
            assert_eq!(newest.stamp, whole);
            assert!(b.is_empty());
        }
        // One segment left behind: its stamp must still line up with it.
        let mut b = Scoreboard::new(true);
        b.push(1, 101, 100, 0, SimTime::ZERO, stamp(0, 0));
        b.push(101, 201, 100, 0, SimTime::from_ms(1), stamp(5, 9));
        b.ack_to(101);
        assert_eq!(b.ack_to(201).newest.unwrap().stamp, stamp(5, 9));
    }

    #[test]
    fn timeout_marks_retransmissions_lost_again() {
        let mut b = board(3);
        b.mark_first_lost();
        b.retransmitted(1, SimTime::ZERO, DeliveryStamp::default(), None);
        b.mark_all_lost(SimTime::ZERO);
        assert_eq!(b.in_flight(), 0);
        assert_eq!(b.next_to_retransmit().unwrap().start, 1);
    }

    /// 20 segments, 10–19 SACKed, so that 0–9 are lost (ns-2's FACK distance), and
    /// 0–9 resent in order at 10 + i ms with SND.NXT = 2001.
    fn ns2_board_with_ten_resent(numbered: bool) -> Scoreboard {
        let mut b = board(20);
        if numbered {
            b = b.with_retransmission_order();
        }
        b.sack(1001, 2001, &mut Sacked::default());
        b.mark_lost_by_ns2_linux_fack();
        assert_eq!(
            b.losses_marked(),
            10,
            "0-9 lie DupThresh + 1 or more below 19"
        );
        for i in 0..10 {
            let seg = b.next_to_retransmit().expect("a lost segment");
            assert_eq!(seg.start, 1 + i * 100);
            b.retransmitted(
                seg.start,
                SimTime::from_ms(10 + i),
                DeliveryStamp::default(),
                Some(2001),
            );
        }
        b
    }

    /// ns-2 TCP/Linux's second lost-retransmit rule, by state (`ScoreBoard1`, with
    /// DupThresh 3). Segments 0–9 (sequence 1 + 100·i) are lost and resent in order as
    /// retransmissions numbered 0–9, with SND.NXT = 2001 each time, so no segment sent
    /// after any of them is SACKed below and the first rule (`GetSndNxt() <= fack_`)
    /// finds nothing. The receiver holds 10–19 (SACKed) from the start.
    #[test]
    fn ns2_linux_finds_a_lost_retransmission_by_later_retransmissions() {
        let mut b = ns2_board_with_ten_resent(true);
        let mut newly = Sacked::default();
        let retx = |b: &Scoreboard, i: u64| {
            b.segs
                .iter()
                .find(|s| s.start == 1 + i * 100)
                .copied()
                .unwrap()
        };
        // Retransmission 0 arrives: the cumulative ACK moves to 101 (acked_rtx_id_ 0).
        b.ack_to(101);
        assert!(!b.mark_lost_by_ns2_linux_fack());
        // 1 is lost in the network; 2–5 arrive and are SACKed one ACK each: the
        // number in force reaches 5, and 1 + 3 + 1 < 5 is false.
        for i in 2..=5 {
            b.sack(1 + i * 100, 1 + (i + 1) * 100, &mut newly);
            assert!(!b.mark_lost_by_ns2_linux_fack(), "after retransmission {i}");
        }
        // Marked lost once and resent: in flight as a retransmission.
        assert!(retx(&b, 1).retransmitted);
        // Retransmission 6 arrives: it sets the number to 6, but segment 1 lies below
        // it in sequence, so ns-2's walk reached 1 before learning 6: not yet.
        b.sack(601, 701, &mut newly);
        assert!(!b.mark_lost_by_ns2_linux_fack());
        // The next ACK (retransmission 7) judges 1 with 6 in force: 1 + 4 < 6, lost.
        let before = b.losses_marked();
        b.sack(701, 801, &mut newly);
        assert!(b.mark_lost_by_ns2_linux_fack());
        assert_eq!(b.losses_marked(), before + 1);
        assert!(retx(&b, 1).lost && !retx(&b, 1).retransmitted);
        assert_eq!(b.next_to_retransmit().unwrap().start, 101);
        // A board without the numbering (the first rule alone) still waits.
        let mut plain = ns2_board_with_ten_resent(false);
        plain.ack_to(101);
        for i in 2..=7 {
            plain.sack(1 + i * 100, 1 + (i + 1) * 100, &mut newly);
            assert!(!plain.mark_lost_by_ns2_linux_fack());
        }
        assert!(
            plain.segs[0].retransmitted,
            "segment 1's retransmission still counted in flight"
        );
    }

    /// A recovery's end (`clear_marks`) and a timeout (`mark_all_lost`) number the
    /// retransmissions afresh, as `ClearScoreBoard` and `MarkLoss` reset `rtx_id_`
    /// and `acked_rtx_id_`: a delivered retransmission numbered before the reset does
    /// not condemn one numbered after it.
    #[test]
    fn ns2_linux_numbering_restarts_when_the_board_is_cleared() {
        let mut b = ns2_board_with_ten_resent(true);
        let mut newly = Sacked::default();
        b.sack(901, 1001, &mut newly); // retransmission 9 delivered
        b.mark_lost_by_ns2_linux_fack();
        assert!(b.segs[1].retransmitted, "judged on the next ACK's walk");
        b.mark_lost_by_ns2_linux_fack();
        assert!(!b.segs[1].retransmitted, "1 + 4 < 9: lost again");
        b.mark_all_lost(SimTime::from_ms(50));
        let seg = b.next_to_retransmit().unwrap();
        b.retransmitted(
            seg.start,
            SimTime::from_ms(60),
            DeliveryStamp::default(),
            Some(2001),
        );
        b.mark_lost_by_ns2_linux_fack();
        assert!(
            b.segs[0].retransmitted,
            "numbered 0 after the reset, nothing delivered since"
        );
    }

    /// Random SACK blocks (overlapping, repeated, growing, partial segments) and
    /// cumulative ACKs against a plain model that marks every whole segment inside
    /// every block ever received: the skipping of known runs must change nothing.
    #[test]
    fn skipping_known_runs_marks_what_a_full_walk_marks() {
        for seed in 0..50 {
            let mut rng = crate::rng::Rng::for_component(seed, "scoreboard");
            let mut below = |n: u64| rng.next_u64() % n;
            let n = 200u64;
            let mut b = board(n);
            let mut model = vec![false; n as usize];
            let mut una = 1u64;
            for _ in 0..300 {
                if below(10) == 0 {
                    una = (una + 100 * below(10)).min(1 + n * 100);
                    b.ack_to(una);
                    continue;
                }
                let left = 1 + below(n * 100);
                let right = (left + 1 + below(3_000)).min(1 + n * 100);
                let mut newly = Sacked::default();
                b.sack(left, right, &mut newly);
                let mut expected_new = 0;
                for (k, marked) in model.iter_mut().enumerate() {
                    let (start, end) = (1 + k as u64 * 100, 1 + (k as u64 + 1) * 100);
                    if start >= una && start >= left && end <= right && !*marked {
                        *marked = true;
                        expected_new += 100;
                    }
                }
                assert_eq!(newly.bytes, expected_new, "seed {seed}");
                let sacked_above_una: u64 = model
                    .iter()
                    .enumerate()
                    .filter(|&(k, &m)| m && 1 + k as u64 * 100 >= una)
                    .count() as u64
                    * 100;
                assert_eq!(b.sacked_bytes(), sacked_above_una, "seed {seed}");
            }
        }
    }
}
