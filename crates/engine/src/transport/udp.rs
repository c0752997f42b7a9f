//! UDP (RFC 768): a datagram source on one side, a sink on the other; no feedback.

use super::{Endpoint, Outbox};
use crate::app::DatagramSource;
use crate::net::packet::{TransportHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};
use crate::time::SimTime;

/// Sends the datagrams of its source as they fall due.
#[derive(Debug)]
pub struct UdpSender {
    source: DatagramSource,
    next_seq: u64,
}

impl UdpSender {
    /// A sender driven by `source`.
    pub fn new(source: DatagramSource) -> Self {
        UdpSender {
            source,
            next_seq: 0,
        }
    }
}

impl Endpoint for UdpSender {
    fn on_packet(&mut self, _now: SimTime, _header: &TransportHeader, _out: &mut Outbox) {}

    fn on_wakeup(&mut self, now: SimTime, out: &mut Outbox) {
        while let Some(t) = self.source.next_time() {
            if t > now {
                break;
            }
            let payload_bytes = self.source.payload_bytes();
            let size = IPV4_HEADER_BYTES + UDP_HEADER_BYTES + payload_bytes;
            out.send(
                size,
                TransportHeader::Udp {
                    seq: self.next_seq,
                    payload_bytes,
                },
            );
            self.next_seq += 1;
            self.source.advance();
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        self.source.next_time()
    }
}

/// Hands every arriving datagram's payload to the application.
#[derive(Debug, Default)]
pub struct UdpSink;

impl Endpoint for UdpSink {
    fn on_packet(&mut self, _now: SimTime, header: &TransportHeader, out: &mut Outbox) {
        out.deliver(header.payload_bytes() as u64);
    }

    fn on_wakeup(&mut self, _now: SimTime, _out: &mut Outbox) {}

    fn poll_at(&self) -> Option<SimTime> {
        None
    }
}
