//! The data sender of an SCTP association (RFC 9260): the application's messages cut
//! into DATA chunks and spread over streams, TSNs, bundling up to the path MTU with
//! Nagle's rule (section 6.1, lksctp), SACK processing with gap blocks and miss
//! indications (section 6.2.1, 7.2.4), the T3-rtx timer (section 6.3), and the window
//! from a [`CongestionControl`] (section 7.2 with `sctp`). One destination address.

use crate::app::ByteSource;
use crate::cc::{AckEvent, CongestionControl};
use crate::config::{BurstLimit, FlightAccounting, SctpRecovery};
use crate::metrics::Probe;
use crate::time::SimTime;
use crate::transport::rto::RttEstimator;
use crate::transport::{Endpoint, Outbox, TransportStats};
use crate::wire::sctp::{
    self as wire, control, flags, DataChunk, DataPacket, SackPacket, MAX_DATA_CHUNKS,
};
use crate::wire::TransportHeader;
use std::collections::VecDeque;

/// Fixed parameters of a data sender.
#[derive(Debug, Clone)]
pub struct SenderParams {
    /// Path MTU, bytes: packets are filled up to it.
    pub pmtu: u32,
    /// Largest DATA chunk payload one packet carries: PMTU − 20 − 12 − 16.
    pub max_chunk_payload: u32,
    /// Bytes per application message.
    pub message_bytes: u32,
    /// Outbound streams; messages go round-robin over them.
    pub streams: u32,
    /// U flag on every chunk.
    pub unordered: bool,
    /// Open with the four-way handshake.
    pub handshake: bool,
    /// SCTP_NODELAY (no Nagle).
    pub nodelay: bool,
    /// Send buffer, bytes: written and not cumulatively acknowledged.
    pub send_buffer: u64,
    /// The receiver's window, assumed until its first SACK.
    pub peer_window: u64,
    /// Miss indications before fast retransmit.
    pub fast_retransmit_after: u32,
    /// Max.Burst.
    pub max_burst: u32,
    /// How Max.Burst applies.
    pub burst_limit: BurstLimit,
    /// What a chunk adds to the flight.
    pub flight_accounting: FlightAccounting,
    /// How losses found by SACKs are answered.
    pub recovery: SctpRecovery,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the flow's start.
    Closed,
    /// INIT sent (section 5.1 COOKIE-WAIT).
    CookieWait,
    /// COOKIE-ECHO sent (COOKIE-ECHOED): only the data bundled with it is out.
    CookieEchoed,
    Established,
}

/// Why a chunk awaits retransmission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    None,
    /// Section 7.2.4: a fast retransmission (sent first, once, whatever cwnd says).
    Fast,
    /// Section 6.3.3: after a T3-rtx expiry.
    Timeout,
}

/// A DATA chunk sent and not cumulatively acknowledged.
#[derive(Debug, Clone, Copy)]
struct Outstanding {
    tsn: u32,
    chunk: DataChunk,
    /// Acknowledged by a gap block.
    acked: bool,
    /// Counted in the flight size.
    in_flight: bool,
    /// Miss indications (section 7.2.4).
    misses: u32,
    mark: Mark,
    /// Fast-retransmitted once already: never again (section 7.2.4).
    fast_retransmitted: bool,
    retransmitted: bool,
}

impl Outstanding {
    /// What the chunk adds to the flight ([`FlightAccounting::chunk_bytes`]).
    fn flight_bytes(&self, accounting: FlightAccounting) -> u64 {
        accounting.chunk_bytes(self.chunk.len) as u64
    }
}

/// Marks `o` acknowledged, taking it off the flight and the retransmission marks;
/// false if it already was.
fn ack_one(
    o: &mut Outstanding,
    accounting: FlightAccounting,
    flight: &mut u64,
    marked: &mut Marked,
) -> bool {
    if o.acked {
        return false;
    }
    o.acked = true;
    if o.in_flight {
        *flight -= o.flight_bytes(accounting);
        o.in_flight = false;
    }
    if o.mark != Mark::None {
        o.mark = Mark::None;
        marked.remove(o.chunk.len);
    }
    true
}

/// The chunks marked for retransmission: how many, and their bytes (kept as counters so
/// that a SACK needs no walk over everything outstanding).
#[derive(Debug, Clone, Copy, Default)]
struct Marked {
    chunks: usize,
    bytes: u64,
}

impl Marked {
    fn add(&mut self, len: u16) {
        self.chunks += 1;
        self.bytes += len as u64;
    }

    fn remove(&mut self, len: u16) {
        self.chunks -= 1;
        self.bytes -= len as u64;
    }
}

/// What the SCTP sender adds to the common transport counters (its `details`).
#[derive(Debug, Clone, Default)]
struct SenderReport {
    /// Packets with DATA or control chunks sent.
    packets: u64,
    /// Packets by DATA chunks carried: index k counts packets with k chunks.
    chunks_per_packet: [u64; MAX_DATA_CHUNKS + 1],
    /// DATA chunks sent, retransmissions included.
    data_chunks: u64,
    /// Messages the application wrote.
    messages: u64,
}

/// The sending end of an SCTP association.
#[derive(Debug)]
pub struct SctpSender {
    p: SenderParams,
    cc: Box<dyn CongestionControl>,
    app: ByteSource,
    state: State,
    /// TSN the next new chunk gets.
    next_tsn: u32,
    /// Cumulative TSN ack point.
    cum_ack: u32,
    /// Chunks written and not yet sent, in order.
    pending: VecDeque<DataChunk>,
    pending_bytes: u64,
    /// Chunks sent and not cumulatively acknowledged, by TSN.
    outstanding: VecDeque<Outstanding>,
    /// Chunks marked for retransmission (not in the flight, not acknowledged).
    marked: Marked,
    /// Section 6.1 flightsize: bytes sent, not acknowledged, not marked for resending.
    flight: u64,
    /// Section 6.2.1 rwnd: the peer's window less what is outstanding.
    peer_rwnd: u64,
    /// Bytes written by the application and not cumulatively acknowledged.
    buffered: u64,
    /// Application bytes taken into messages so far.
    taken: u64,
    /// Stream of the next message.
    next_stream: u32,
    /// Next stream sequence number per stream.
    ssn: Vec<u16>,
    /// Section 7.2.4: the Fast Recovery exit point while in Fast Recovery.
    fast_recovery: Option<u32>,
    /// [`SctpRecovery::Ns2`]: the highest TSN sent when cwnd was last cut for a fast
    /// retransmission (`uiRecover`); a loss among chunks up to it cuts no more.
    recover: Option<u32>,
    /// Send marked chunks at once, one packet, whatever cwnd says (section 7.2.4 (3)).
    fast_retransmit_due: bool,
    rtt: RttEstimator,
    /// The chunk being timed for an RTT measurement (section 6.3.1 C5: one per round
    /// trip; Karn's rule: none from a retransmitted chunk).
    timed: Option<(u32, SimTime)>,
    /// T3-rtx (T1-init / T1-cookie during the handshake) deadline.
    t3_at: Option<SimTime>,
    /// A rate-limited application's next data.
    app_wait: Option<SimTime>,
    /// The data bundled with COOKIE-ECHO, resent with it if the timer expires.
    cookie_due: bool,
    stats: TransportStats,
    report: SenderReport,
}

impl SctpSender {
    /// A sender whose application is `app` and whose window comes from `cc`.
    pub fn new(
        p: SenderParams,
        cc: Box<dyn CongestionControl>,
        rtt: RttEstimator,
        app: ByteSource,
    ) -> Self {
        SctpSender {
            peer_rwnd: p.peer_window,
            ssn: vec![0; p.streams as usize],
            state: State::Closed,
            next_tsn: 1,
            cum_ack: 0,
            pending: VecDeque::new(),
            pending_bytes: 0,
            outstanding: VecDeque::new(),
            marked: Marked::default(),
            flight: 0,
            buffered: 0,
            taken: 0,
            next_stream: 0,
            fast_recovery: None,
            recover: None,
            fast_retransmit_due: false,
            rtt,
            timed: None,
            t3_at: None,
            app_wait: None,
            cookie_due: false,
            stats: TransportStats::default(),
            report: SenderReport::default(),
            cc,
            app,
            p,
        }
    }

    fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }

    /// Writes the application's data into messages while the send buffer has room.
    fn take_app_data(&mut self, now: SimTime) {
        self.app_wait = None;
        loop {
            let produced = if self.app.unlimited() && self.app.finished(now) {
                self.taken // a bulk source past its stop time writes nothing more
            } else {
                self.app.written_by(now)
            };
            let available = produced.saturating_sub(self.taken);
            let m = self.p.message_bytes as u64;
            if available == 0 || (available < m && !self.app.finished(now)) {
                // A whole message is not there yet.
                let want = self.taken + m;
                self.app_wait = self.app.time_written(want).filter(|&t| t > now);
                return;
            }
            let len = available.min(m);
            if self.buffered + len > self.p.send_buffer && self.buffered > 0 {
                return; // the buffer frees as SACKs arrive
            }
            self.write_message(now, len, self.app.finished(now) && len == available);
        }
    }

    /// One message of `len` bytes on the next stream, cut into chunks of at most a
    /// packet's payload (section 6.9: B on the first, E on the last).
    fn write_message(&mut self, now: SimTime, len: u64, last: bool) {
        let stream = self.next_stream;
        self.next_stream = (self.next_stream + 1) % self.p.streams;
        let ssn = self.ssn[stream as usize];
        self.ssn[stream as usize] = ssn.wrapping_add(1);
        let max = self.p.max_chunk_payload as u64;
        let mut left = len;
        let mut first = true;
        while left > 0 {
            let part = left.min(max);
            left -= part;
            let mut f =
                if first { flags::BEGIN } else { 0 } | if left == 0 { flags::END } else { 0 };
            if self.p.unordered {
                f |= flags::UNORDERED;
            }
            if last && left == 0 {
                f |= flags::LAST;
            }
            self.pending.push_back(DataChunk {
                flags: f,
                stream: stream as u16,
                ssn,
                len: part as u16,
                written_us: wire::micros_mod32(now),
            });
            first = false;
        }
        self.pending_bytes += len;
        self.buffered += len;
        self.taken += len;
        self.report.messages += 1;
    }

    /// Room for DATA in a packet that already holds `used` bytes.
    fn fits(&self, used: u32, chunk: &DataChunk) -> bool {
        used + chunk.wire_bytes() <= self.p.pmtu
    }

    /// Bytes of a packet before its DATA chunks: headers, and COOKIE-ECHO when due.
    fn packet_overhead(&self) -> u32 {
        let cookie = if self.cookie_due {
            wire::COOKIE_ECHO_CHUNK_BYTES
        } else {
            0
        };
        crate::wire::IPV4_HEADER_BYTES + wire::COMMON_HEADER_BYTES + cookie
    }

    /// Sends what the window, the receiver and Max.Burst allow: marked chunks first
    /// (lowest TSN first), then new data.
    fn transmit(&mut self, now: SimTime, out: &mut Outbox) {
        match self.state {
            State::Closed | State::CookieWait => return,
            State::CookieEchoed if !self.cookie_due => return,
            _ => {}
        }
        self.take_app_data(now);
        if self.p.burst_limit == BurstLimit::Cwnd {
            // lksctp 2.6: cwnd is lowered to flight + Max.Burst·PMTU before sending.
            let unit = self.p.flight_accounting.window_unit(self.p.pmtu);
            let cap = self.flight + self.p.max_burst as u64 * unit as u64;
            if self.cwnd() > cap {
                self.cc.limit_cwnd(cap);
            }
        }
        let mut sent = 0u32;
        loop {
            if self.p.burst_limit == BurstLimit::Packets && sent >= self.p.max_burst {
                break;
            }
            let forced = std::mem::take(&mut self.fast_retransmit_due);
            let packet = if self.marked.chunks > 0 && (forced || self.flight < self.cwnd()) {
                self.retransmission_packet(now, forced)
            } else if self.marked.chunks == 0 && self.state == State::Established || self.cookie_due
            {
                self.new_data_packet(now)
            } else {
                None
            };
            let Some(mut packet) = packet else { break };
            if std::mem::take(&mut self.cookie_due) {
                packet.add_control(control::COOKIE_ECHO);
            }
            self.emit(now, packet, out);
            sent += 1;
            if self.state == State::CookieEchoed {
                break; // the rest waits for COOKIE-ACK
            }
            if forced && self.p.recovery == SctpRecovery::Ns2 {
                break; // ns-2: the fast retransmission's packet alone
            }
            self.take_app_data(now);
        }
    }

    /// A packet of chunks marked for retransmission.
    fn retransmission_packet(&mut self, now: SimTime, forced: bool) -> Option<DataPacket> {
        let mut packet: Option<DataPacket> = None;
        let mut used = self.packet_overhead();
        let mut restart_t3 = false;
        for i in 0..self.outstanding.len() {
            let o = self.outstanding[i];
            if o.mark == Mark::None {
                continue;
            }
            // A fast retransmission sends only the Fast-marked chunks (section 7.2.4 (3)).
            if forced && o.mark != Mark::Fast {
                continue;
            }
            let p = packet.get_or_insert_with(|| DataPacket::new(o.tsn, 0));
            if !p.can_take(o.tsn) || !self.fits(used, &o.chunk) {
                break;
            }
            used += o.chunk.wire_bytes();
            p.push(o.tsn, o.chunk);
            restart_t3 |= i == 0;
            let o = &mut self.outstanding[i];
            o.mark = Mark::None;
            o.retransmitted = true;
            o.in_flight = true;
            self.flight += o.flight_bytes(self.p.flight_accounting);
            self.marked.remove(o.chunk.len);
            self.stats.retransmits += 1;
            if self.timed.is_some_and(|(t, _)| t == o.tsn) {
                self.timed = None; // Karn
            }
        }
        let packet = packet.filter(|p| p.count() > 0)?;
        // Section 7.2.4 (4), 6.3.3 E3: the timer restarts when the earliest
        // outstanding chunk goes again.
        if restart_t3 {
            self.t3_at = Some(now + self.rtt.rto());
        }
        Some(packet)
    }

    /// A packet of new chunks, if the window, the peer's window and Nagle allow one.
    fn new_data_packet(&mut self, now: SimTime) -> Option<DataPacket> {
        let first = *self.pending.front()?;
        if self.flight >= self.cwnd() {
            return None; // section 6.1 B
        }
        if self.peer_rwnd < first.len as u64 && self.flight > 0 {
            return None; // section 6.1 A (one chunk may probe a closed window)
        }
        let full = (self.p.max_chunk_payload) as u64;
        if !self.p.nodelay
            && self.flight > 0
            && self.pending_bytes < full
            && self.state == State::Established
            && self
                .pending
                .back()
                .is_none_or(|c| c.flags & flags::LAST == 0)
        {
            return None; // Nagle: wait to fill a packet while data is outstanding
        }
        let mut packet = DataPacket::new(self.next_tsn, 0);
        let mut used = self.packet_overhead();
        while let Some(&chunk) = self.pending.front() {
            if !packet.can_take(self.next_tsn) || !self.fits(used, &chunk) {
                break;
            }
            if packet.count() > 0 && self.peer_rwnd < chunk.len as u64 {
                break;
            }
            self.pending.pop_front();
            self.pending_bytes -= chunk.len as u64;
            used += chunk.wire_bytes();
            let tsn = self.next_tsn;
            self.next_tsn += 1;
            packet.push(tsn, chunk);
            self.flight += self.p.flight_accounting.chunk_bytes(chunk.len) as u64;
            self.peer_rwnd = self.peer_rwnd.saturating_sub(chunk.len as u64);
            self.outstanding.push_back(Outstanding {
                tsn,
                chunk,
                acked: false,
                in_flight: true,
                misses: 0,
                mark: Mark::None,
                fast_retransmitted: false,
                retransmitted: false,
            });
            if self.timed.is_none() {
                self.timed = Some((tsn, now));
            }
        }
        (packet.count() > 0).then_some(packet)
    }

    fn emit(&mut self, now: SimTime, packet: DataPacket, out: &mut Outbox) {
        self.report.packets += 1;
        self.report.chunks_per_packet[packet.count()] += 1;
        self.report.data_chunks += packet.count() as u64;
        self.cc
            .on_sent(now, packet.payload_bytes() as u64, self.flight);
        out.send(packet.ip_bytes(), TransportHeader::SctpData(packet));
        if self.t3_at.is_none() {
            self.t3_at = Some(now + self.rtt.rto()); // section 6.3.2 R1
        }
    }

    /// Section 6.2.1, 7.2.4: a SACK.
    fn on_sack(&mut self, now: SimTime, sack: &SackPacket, out: &mut Outbox) {
        if sack.cum_tsn() < self.cum_ack {
            return; // older than one already processed (section 6.2.1 D i)
        }
        let prior_flight = self.flight;
        let cwnd_limited = prior_flight >= self.cwnd();
        let mut cum_bytes = 0u64;
        let mut acked_bytes = 0u64;
        let mut highest_newly_acked: Option<u32> = None;
        let mut rtt_sample = None;
        while let Some(o) = self.outstanding.front_mut() {
            if o.tsn > sack.cum_tsn() {
                break;
            }
            let newly = ack_one(
                o,
                self.p.flight_accounting,
                &mut self.flight,
                &mut self.marked,
            );
            let o = self.outstanding.pop_front().expect("front exists");
            cum_bytes += o.chunk.len as u64;
            if newly {
                acked_bytes += o.flight_bytes(self.p.flight_accounting);
                highest_newly_acked = Some(o.tsn);
            }
            if let Some((tsn, at)) = self.timed {
                if tsn == o.tsn {
                    if newly && !o.retransmitted {
                        rtt_sample = Some(now.saturating_sub(at));
                    }
                    self.timed = None;
                }
            }
        }
        let cum_advanced = sack.cum_tsn() > self.cum_ack;
        self.cum_ack = sack.cum_tsn();
        self.buffered -= cum_bytes;
        for (start, end) in sack.gap_blocks() {
            let from = self.outstanding.partition_point(|o| o.tsn < start);
            for i in from..self.outstanding.len() {
                let tsn = self.outstanding[i].tsn;
                if tsn > end {
                    break;
                }
                let accounting = self.p.flight_accounting;
                if ack_one(
                    &mut self.outstanding[i],
                    accounting,
                    &mut self.flight,
                    &mut self.marked,
                ) {
                    acked_bytes += self.outstanding[i].flight_bytes(accounting);
                    highest_newly_acked = Some(highest_newly_acked.map_or(tsn, |h| h.max(tsn)));
                    if self.timed.is_some_and(|(t, _)| t == tsn) {
                        let (_, at) = self.timed.take().expect("checked");
                        if !self.outstanding[i].retransmitted {
                            rtt_sample = Some(now.saturating_sub(at));
                        }
                    }
                }
            }
        }
        if let Some(r) = rtt_sample {
            self.rtt.sample(r);
            self.stats.record_rtt(self.rtt.srtt());
        }
        // Section 6.2.1: what is still unacknowledged is in the flight or marked.
        let unacked = self.flight + self.marked.bytes;
        self.peer_rwnd = (sack.a_rwnd() as u64).saturating_sub(unacked);
        let new_fast = self.count_misses(highest_newly_acked, cum_advanced);
        // Section 7.2.4: the SACK that reaches the exit point ends Fast Recovery, and
        // counts as outside it (lksctp's sctp_transport_raise_cwnd exits first).
        if self.fast_recovery.is_some_and(|exit| self.cum_ack >= exit) {
            self.fast_recovery = None;
            self.cc.on_recovery_end(now);
        }
        let in_recovery = match self.p.recovery {
            SctpRecovery::Rfc9260 => self.fast_recovery.is_some(),
            // ns-2 adjusts cwnd only once the cumulative TSN reaches the recover point.
            SctpRecovery::Ns2 => self.recover.is_some_and(|r| self.cum_ack < r),
        };
        self.cc.on_ack(&AckEvent {
            bytes_acked: acked_bytes,
            newly_acked_bytes: cum_bytes,
            delivered_bytes: acked_bytes,
            rtt: rtt_sample,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            in_flight: self.flight,
            prior_in_flight: prior_flight,
            in_recovery,
            cwnd_limited,
            ..AckEvent::empty(now)
        });
        if new_fast {
            if self.p.recovery == SctpRecovery::Rfc9260 {
                // Section 7.2.4 (2): one reduction per Fast Recovery.
                if self.fast_recovery.is_none() {
                    self.cc.on_congestion_event(now, prior_flight, self.flight);
                    self.fast_recovery = Some(self.next_tsn - 1);
                    self.stats.fast_retransmits += 1;
                }
            } else if self.marked_beyond_recover() {
                // ns-2: one reduction per window of data.
                self.cc.on_congestion_event(now, prior_flight, self.flight);
                self.recover = Some(self.next_tsn - 1);
                self.stats.fast_retransmits += 1;
            }
            self.fast_retransmit_due = true;
        }
        // Section 6.3.2 R2, R3.
        // Every chunk not acknowledged is in the flight or marked.
        if self.flight == 0 && self.marked.chunks == 0 {
            self.t3_at = None;
        } else if cum_advanced {
            self.t3_at = Some(now + self.rtt.rto());
        }
        self.transmit(now, out);
    }

    /// [`SctpRecovery::Ns2`]: whether a chunk marked for retransmission was sent after
    /// cwnd was last cut (`FastRtx`: a marked chunk above `uiRecover`).
    fn marked_beyond_recover(&self) -> bool {
        let highest_marked = self.outstanding.iter().rev().find(|o| o.mark != Mark::None);
        highest_marked.is_some_and(|o| self.recover.is_none_or(|r| o.tsn > r))
    }

    /// Section 7.2.4: a miss indication for every unacknowledged chunk below the
    /// highest TSN this SACK newly acknowledged (HTNA); returns whether a chunk
    /// reached the threshold and was marked for fast retransmission.
    fn count_misses(&mut self, htna: Option<u32>, cum_advanced: bool) -> bool {
        // In Fast Recovery, a SACK that moves the cumulative ack counts every gap
        // below the highest acknowledged TSN; ns-2 does so while the SACK's HTNA lies
        // within the window last cut.
        let recovering = match self.p.recovery {
            SctpRecovery::Rfc9260 => self.fast_recovery.is_some(),
            SctpRecovery::Ns2 => htna.zip(self.recover).is_some_and(|(h, r)| h <= r),
        };
        let limit = match (recovering && cum_advanced, htna) {
            (true, _) => self
                .outstanding
                .iter()
                .rev()
                .find(|o| o.acked)
                .map(|o| o.tsn),
            (false, h) => h,
        };
        let Some(limit) = limit else { return false };
        let mut marked_any = false;
        for o in self.outstanding.iter_mut() {
            if o.tsn >= limit {
                break;
            }
            if o.acked || o.mark != Mark::None {
                continue;
            }
            o.misses += 1;
            if o.misses >= self.p.fast_retransmit_after && !o.fast_retransmitted {
                o.fast_retransmitted = true;
                o.mark = Mark::Fast;
                if o.in_flight {
                    o.in_flight = false;
                    self.flight -= o.flight_bytes(self.p.flight_accounting);
                }
                self.marked.add(o.chunk.len);
                marked_any = true;
            }
        }
        marked_any
    }

    /// Section 6.3.3: T3-rtx expired.
    fn on_t3_expiry(&mut self, now: SimTime, out: &mut Outbox) {
        self.t3_at = None;
        self.stats.rto_count += 1;
        let first = self.rtt.backoff() == 0;
        self.rtt.on_timeout(); // E2: back off
        self.cc.on_retransmission_timeout(now, self.cwnd(), first); // E1
        self.mark_all_for_retransmission(); // E3
        self.fast_recovery = None;
        self.fast_retransmit_due = false;
        self.timed = None;
        self.t3_at = Some(now + self.rtt.rto());
        // E3: as many of the earliest chunks as fit one packet, and only that packet
        // (lksctp's rtx_timeout flush); the window opens from there.
        if let Some(packet) = self.retransmission_packet(now, false) {
            self.emit(now, packet, out);
        }
    }

    /// Section 5.1: INIT, or COOKIE-ECHO again, after T1 expired.
    fn handshake_timeout(&mut self, now: SimTime, out: &mut Outbox) {
        self.stats.rto_count += 1;
        self.rtt.on_timeout();
        match self.state {
            State::CookieWait => self.send_init(now, out),
            State::CookieEchoed => {
                // The data that rode with the lost COOKIE-ECHO rides again.
                self.mark_all_for_retransmission();
                self.send_cookie_echo(now, out);
            }
            _ => {}
        }
    }

    /// Section 7.2.3 / 6.3.3 E3, and a lost COOKIE-ECHO: every chunk not acknowledged
    /// is marked for retransmission and leaves the flight.
    fn mark_all_for_retransmission(&mut self) {
        for o in self.outstanding.iter_mut() {
            if !o.acked && o.mark == Mark::None {
                o.mark = Mark::Timeout;
                self.marked.add(o.chunk.len);
            }
            if o.in_flight {
                o.in_flight = false;
                self.flight -= o.flight_bytes(self.p.flight_accounting);
            }
        }
    }

    /// Section 5.1 C: COOKIE-ECHO with as much DATA as the first packet takes, or
    /// alone when none fits.
    fn send_cookie_echo(&mut self, now: SimTime, out: &mut Outbox) {
        self.cookie_due = true;
        self.t3_at = None;
        self.transmit(now, out);
        if std::mem::take(&mut self.cookie_due) {
            self.emit(
                now,
                DataPacket::new(self.next_tsn, control::COOKIE_ECHO),
                out,
            );
        }
    }

    fn send_init(&mut self, now: SimTime, out: &mut Outbox) {
        self.t3_at = None;
        self.emit(now, DataPacket::new(self.next_tsn, control::INIT), out);
    }

    fn start(&mut self, now: SimTime, out: &mut Outbox) {
        if self.p.handshake {
            self.state = State::CookieWait;
            self.send_init(now, out);
        } else {
            self.state = State::Established;
            self.transmit(now, out);
        }
    }
}

impl Endpoint for SctpSender {
    fn on_packet(&mut self, now: SimTime, header: &TransportHeader, out: &mut Outbox) {
        let TransportHeader::SctpSack(sack) = header else {
            return;
        };
        if sack.control() & control::INIT_ACK != 0 && self.state == State::CookieWait {
            self.state = State::CookieEchoed;
            self.rtt.reset_backoff(); // the handshake's backoff ends with it
            self.send_cookie_echo(now, out);
            return;
        }
        if sack.control() & control::COOKIE_ACK != 0 && self.state == State::CookieEchoed {
            self.state = State::Established;
            self.rtt.reset_backoff();
            if !sack.has_sack() {
                self.t3_at = None;
                self.transmit(now, out);
                return;
            }
        }
        if sack.has_sack() && self.state != State::CookieWait {
            self.on_sack(now, sack, out);
        }
    }

    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox) {
        if self.state == State::Closed {
            if now >= self.app.start() {
                self.start(now, out);
            }
            return;
        }
        if self.t3_at.is_some_and(|t| now >= t) {
            match self.state {
                State::CookieWait | State::CookieEchoed => self.handshake_timeout(now, out),
                _ => self.on_t3_expiry(now, out),
            }
            return;
        }
        if self.app_wait.is_some_and(|t| now >= t) {
            self.transmit(now, out);
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        if self.state == State::Closed {
            return Some(self.app.start());
        }
        match (self.t3_at, self.app_wait) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn probe(&self) -> Option<Probe> {
        Some(Probe::of(self.cwnd(), self.cc.as_ref(), self.rtt.srtt()))
    }

    fn stats(&self) -> Option<TransportStats> {
        Some(self.stats)
    }

    fn details(&self) -> Option<serde_json::Value> {
        let r = &self.report;
        Some(serde_json::json!({
            "packets": r.packets,
            "data_chunks": r.data_chunks,
            "messages": r.messages,
            "chunks_per_packet": r.chunks_per_packet,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{BuildContext, CcConfig};
    use crate::config::{AppConfig, RtoConfig, RtoFloor};
    use crate::rng::Rng;

    const PMTU: u32 = 1500;
    const CHUNK: u64 = 1452;

    /// The settings the tests vary; lksctp's by default.
    #[derive(Clone, Copy)]
    struct Variant {
        burst_limit: BurstLimit,
        initial_window: u64,
        flight_accounting: FlightAccounting,
        recovery: SctpRecovery,
    }

    impl Default for Variant {
        fn default() -> Self {
            Variant {
                burst_limit: BurstLimit::Packets,
                initial_window: super::super::initial_cwnd(PMTU),
                flight_accounting: FlightAccounting::Payload,
                recovery: SctpRecovery::Rfc9260,
            }
        }
    }

    fn sender(chunks: u64) -> SctpSender {
        sender_with(chunks, Variant::default())
    }

    fn sender_with(chunks: u64, v: Variant) -> SctpSender {
        let Variant {
            burst_limit,
            initial_window,
            flight_accounting,
            recovery,
        } = v;
        let app = ByteSource::new(
            &AppConfig::File {
                size_bytes: chunks * CHUNK,
            },
            SimTime::ZERO,
            SimTime::NEVER,
        );
        let cc = CcConfig::Sctp(Default::default()).build(BuildContext {
            mss: flight_accounting.window_unit(PMTU) as u64,
            initial_window,
            rng: Rng::for_component(1, "test"),
            window_in_packets: false,
            slow_start_at_ssthresh: false,
            slow_start_limit: None,
        });
        let rto = RttEstimator::new(
            &RtoConfig {
                initial_ns: 3_000_000_000,
                min_ns: 1_000_000_000,
                max_ns: 60_000_000_000,
                fixed_ns: None,
                floor: RtoFloor::Rto,
                tick_ns: None,
            },
            0.0,
        );
        SctpSender::new(
            SenderParams {
                pmtu: PMTU,
                max_chunk_payload: CHUNK as u32,
                message_bytes: CHUNK as u32,
                streams: 1,
                unordered: false,
                handshake: false,
                nodelay: false,
                send_buffer: u64::MAX,
                peer_window: 1 << 30,
                fast_retransmit_after: 3,
                max_burst: 4,
                burst_limit,
                flight_accounting,
                recovery,
            },
            cc,
            rto,
            app,
        )
    }

    /// The TSNs of the DATA chunks `out` holds, and empties it.
    fn sent(out: &mut Outbox) -> Vec<u32> {
        out.drain_packets()
            .flat_map(|o| match o.header {
                TransportHeader::SctpData(p) => p.data().map(|(t, _)| t).collect::<Vec<_>>(),
                _ => vec![],
            })
            .collect()
    }

    /// A SACK for cumulative TSN `cum` and gap blocks given as absolute TSNs.
    fn sack(cum: u32, gaps: &[(u32, u32)]) -> TransportHeader {
        let mut s = SackPacket::sack(0, cum, 1 << 30, 0);
        for &(a, b) in gaps {
            assert!(s.push_gap((a - cum) as u16, (b - cum) as u16));
        }
        TransportHeader::SctpSack(s)
    }

    /// Section 7.2 worked by hand with TSN 3 dropped, one SACK per packet:
    /// - start: cwnd = min(4·1500, max(2·1500, 4380)) = 4,380; a packet may go while
    ///   the flight is below cwnd (6.1 B), so TSNs 1–4 leave (flight 5,808).
    /// - SACK 1: the flight filled cwnd and the cumulative TSN advanced: cwnd +=
    ///   min(1452, 1500) → 5,832; flight 4,356 → TSNs 5, 6 (7,260).
    /// - SACK 2: cwnd 7,284; flight 5,808 → TSNs 7, 8 (8,712).
    /// - SACK 2 + gap 4: no growth (cumulative TSN unchanged); TSN 3's first miss (it
    ///   lies below 4, the highest TSN newly acked); flight 7,260 → TSN 9 (8,712).
    /// - SACK 2 + gap 4–5: second miss; flight 7,260 → TSN 10 (8,712).
    /// - SACK 2 + gap 4–6: third miss → fast retransmit (7.2.4): ssthresh =
    ///   max(7284/2, 4·1500) = 6,000 = cwnd; TSN 3 leaves the flight (8,712 − 1,452
    ///   for TSN 6 − 1,452 = 5,808) and goes at once (7,260 ≥ cwnd: nothing new).
    ///   Fast Recovery until TSN 10 is acknowledged.
    /// - SACK 2 + gap 4–7: in Fast Recovery, no growth; flight 5,808 < 6,000 → TSN 11.
    /// - SACK 11: Fast Recovery ends first; the flight (7,260) filled cwnd, cwnd ≤
    ///   ssthresh and the cumulative TSN advanced: cwnd += min(7260, 1500) → 7,500.
    #[test]
    fn window_follows_section_7_under_a_drop() {
        let mut s = sender(40);
        let mut out = Outbox::new();
        let t = |ms| SimTime::from_ms(ms);
        s.on_wakeup(t(0), &mut out);
        assert_eq!(sent(&mut out), vec![1, 2, 3, 4]);
        assert_eq!(s.cwnd(), 4380);
        s.on_packet(t(100), &sack(1, &[]), &mut out);
        assert_eq!((s.cwnd(), sent(&mut out)), (5832, vec![5, 6]));
        s.on_packet(t(101), &sack(2, &[]), &mut out);
        assert_eq!((s.cwnd(), sent(&mut out)), (7284, vec![7, 8]));
        s.on_packet(t(102), &sack(2, &[(4, 4)]), &mut out);
        assert_eq!((s.cwnd(), sent(&mut out)), (7284, vec![9]));
        s.on_packet(t(103), &sack(2, &[(4, 5)]), &mut out);
        assert_eq!((s.cwnd(), sent(&mut out)), (7284, vec![10]));
        s.on_packet(t(104), &sack(2, &[(4, 6)]), &mut out);
        assert_eq!((s.cwnd(), s.cc.ssthresh()), (6000, 6000));
        assert_eq!(sent(&mut out), vec![3]);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.fast_recovery, Some(10));
        s.on_packet(t(105), &sack(2, &[(4, 7)]), &mut out);
        assert_eq!((s.cwnd(), sent(&mut out)), (6000, vec![11]));
        s.on_packet(t(200), &sack(11, &[]), &mut out);
        assert_eq!(s.fast_recovery, None);
        assert_eq!(s.cwnd(), 7500);
    }

    /// Section 6.3.3 / 7.2.3: T3-rtx expiry — ssthresh = max(cwnd/2, 4·MTU) = 6,000
    /// (cwnd 4,380), cwnd = 1 MTU, the RTO doubles (3 s → 6 s), and exactly one packet
    /// (the earliest outstanding chunk) goes again.
    #[test]
    fn t3_expiry_resends_one_packet_with_a_one_mtu_window() {
        let mut s = sender(40);
        let mut out = Outbox::new();
        s.on_wakeup(SimTime::ZERO, &mut out);
        assert_eq!(sent(&mut out), vec![1, 2, 3, 4]);
        assert_eq!(s.poll_at(), Some(SimTime::from_secs(3)));
        s.on_wakeup(SimTime::from_secs(3), &mut out);
        assert_eq!(sent(&mut out), vec![1]);
        assert_eq!((s.cwnd(), s.cc.ssthresh()), (1500, 6000));
        assert_eq!(s.poll_at(), Some(SimTime::from_secs(9)));
        assert_eq!(s.stats.rto_count, 1);
    }
    /// Max.Burst (section 6.1) with a 20,000-byte window and nothing in flight: RFC
    /// 9260's rule lets 4 packets leave at once (TSNs 1–4, cwnd untouched); lksctp's
    /// lowers cwnd to flight + 4·PMTU = 6,000 first, under which 5 packets go (the 5th
    /// starts at 5,808 < 6,000).
    #[test]
    fn max_burst_limits_a_sending_opportunity() {
        let mut out = Outbox::new();
        let mut rfc = sender_with(
            40,
            Variant {
                initial_window: 20_000,
                ..Variant::default()
            },
        );
        rfc.on_wakeup(SimTime::ZERO, &mut out);
        assert_eq!((sent(&mut out), rfc.cwnd()), (vec![1, 2, 3, 4], 20_000));
        let mut linux = sender_with(
            40,
            Variant {
                burst_limit: BurstLimit::Cwnd,
                initial_window: 20_000,
                ..Variant::default()
            },
        );
        linux.on_wakeup(SimTime::ZERO, &mut out);
        assert_eq!((sent(&mut out), linux.cwnd()), (vec![1, 2, 3, 4, 5], 6_000));
    }

    /// ns-2's accounting (`flight_accounting = "chunk"`): the window's unit is the
    /// largest chunk, 1,500 − 20 − 12 = 1,468 B, and each 1,452-byte chunk adds 1,468 B
    /// to the flight. Four units of window then hold exactly four chunks: lksctp's
    /// burst cap lowers cwnd to 0 + 4·1,468 = 5,872 and the fifth chunk would start at
    /// 5,872, not below it (under `payload` it starts at 5,808 < 6,000 and goes). A T3
    /// expiry leaves cwnd one unit, 1,468, and ssthresh max(4,380/2, 4·1,468) = 5,872.
    #[test]
    fn chunk_accounting_counts_headers_in_largest_chunk_units() {
        let mut out = Outbox::new();
        let mut ns2 = sender_with(
            40,
            Variant {
                burst_limit: BurstLimit::Cwnd,
                initial_window: 20_000,
                flight_accounting: FlightAccounting::Chunk,
                ..Variant::default()
            },
        );
        ns2.on_wakeup(SimTime::ZERO, &mut out);
        assert_eq!((sent(&mut out), ns2.cwnd()), (vec![1, 2, 3, 4], 5_872));
        assert_eq!(ns2.flight, 4 * 1_468);
        let mut t3 = sender_with(
            40,
            Variant {
                initial_window: super::super::initial_cwnd(1_468),
                flight_accounting: FlightAccounting::Chunk,
                ..Variant::default()
            },
        );
        t3.on_wakeup(SimTime::ZERO, &mut out);
        assert_eq!((sent(&mut out), t3.cwnd()), (vec![1, 2, 3], 4_380));
        t3.on_wakeup(SimTime::from_secs(3), &mut out);
        assert_eq!(sent(&mut out), vec![1]);
        assert_eq!((t3.cwnd(), t3.cc.ssthresh()), (1_468, 5_872));
    }

    /// A loss among chunks sent after a fast retransmission, found while that
    /// recovery lasts (its retransmission of TSN 3 is lost too, so the exit point,
    /// TSN 10, stays unacknowledged). As `window_follows_section_7_under_a_drop` up to
    /// TSN 11 (the cut at TSN 3: ssthresh = cwnd = 6,000); each SACK then frees one
    /// chunk, so TSNs 12-16 follow one per SACK; TSN 11 is missing, and its third miss
    /// (gap blocks 4-10 and 12-14) marks it. RFC 9260 (7.2.4): still in Fast Recovery,
    /// no second cut. ns-2 (`recovery = "ns2"`, the implementer's guide): 11 was sent
    /// after the cut (above the recover point, 10), so cwnd is cut again. Neither grows
    /// cwnd meanwhile (Fast Recovery; ns-2: the cumulative TSN is below 10).
    #[test]
    fn a_loss_beyond_the_recover_point_cuts_again_only_in_ns2s_recovery() {
        for (recovery, cuts) in [(SctpRecovery::Rfc9260, 1), (SctpRecovery::Ns2, 2)] {
            let mut s = sender_with(
                40,
                Variant {
                    recovery,
                    ..Variant::default()
                },
            );
            let mut out = Outbox::new();
            let t = |ms| SimTime::from_ms(ms);
            s.on_wakeup(t(0), &mut out);
            s.on_packet(t(100), &sack(1, &[]), &mut out);
            s.on_packet(t(101), &sack(2, &[]), &mut out);
            for (i, end) in [4, 5, 6].into_iter().enumerate() {
                s.on_packet(t(102 + i as u64), &sack(2, &[(4, end)]), &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_eq!(sent(&mut out), vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3]);
            for (i, end) in [7, 8, 9, 10].into_iter().enumerate() {
                s.on_packet(t(110 + i as u64), &sack(2, &[(4, end)]), &mut out);
            }
            assert_eq!(sent(&mut out), vec![11, 12, 13, 14]);
            for (i, end) in [12, 13, 14].into_iter().enumerate() {
                s.on_packet(t(120 + i as u64), &sack(2, &[(4, 10), (12, end)]), &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, cuts, "{recovery:?}");
            assert!(
                sent(&mut out).contains(&11),
                "TSN 11 fast-retransmitted either way"
            );
        }
    }
}
