//! UDP (RFC 768): a datagram source on one side, a sink on the other; no feedback.

use super::{Endpoint, Outbox, Transport};
use crate::app::DatagramSource;
use crate::config::{Amount, AppConfig, CcConfig, ConfigError};
use crate::rng::Rng;
use crate::time::SimTime;
use crate::wire::{TransportHeader, IPV4_HEADER_BYTES, UDP_HEADER_BYTES};

/// UDP as the engine sees it (see [`Transport`]): no options, no feedback; it sends
/// the application's datagrams as they come (fragmented where a link's MTU needs it).
#[derive(Debug, Clone, Copy)]
pub struct Udp;

impl Transport for Udp {
    fn name(&self) -> &'static str {
        "udp"
    }

    fn carries_datagrams(&self) -> bool {
        true
    }

    fn ip_protocol(&self) -> u8 {
        17
    }

    fn needs_return_path(&self) -> bool {
        false
    }

    fn check(&self, _: &str, _: u32, _: u32) -> Result<u32, ConfigError> {
        Ok(0)
    }

    fn endpoints(
        &self,
        app: &AppConfig,
        start: SimTime,
        stop: SimTime,
        _: u32,
        rng: Rng,
    ) -> (Box<dyn Endpoint>, Box<dyn Endpoint>) {
        let source = DatagramSource::new(app, start, stop, rng);
        (Box::new(UdpSender::new(source)), Box::new(UdpSink))
    }

    fn feedback_per_packet(&self) -> f64 {
        0.0
    }

    fn window(&self) -> Option<Amount> {
        None
    }

    fn congestion_control(&self) -> Option<&CcConfig> {
        None
    }
}

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
