//! Shared half-duplex segments: several stations on one medium that carries one
//! transmission at a time (a LAN in the sense of ns-2's `make-lan`, the LAN study's
//! "half duplex" variant).
//!
//! Model. A segment is a router node of its own (as ns-2's `LanNode`) joined to each
//! station by a link marked with the segment's name:
//! * station → segment: the station's interface queue and its transmitter. All these
//!   channels of one segment share a single "busy until" time, so a frame starts only
//!   when the medium is free; it then occupies the medium for its serialization time
//!   at the segment's rate and reaches every station one propagation delay later.
//! * segment → station: instantaneous (rate 0, delay 0): it only hands on what the
//!   segment already carried, so a frame crosses the segment exactly once.
//!
//! Arbitration is first come, first served across stations: a frame that reaches the
//! head of its station's queue while the medium is busy is sent as soon as the frames
//! ready before it are done. This is an ideal, collision-free MAC (as if the stations
//! held a perfect token), so N saturated stations share the rate equally and one
//! station alone gets all of it. What it leaves out, documented in docs/scenario.md:
//! CSMA/CD collisions, jam signals and binary exponential backoff (ns-2's
//! `Mac/802_3`), which waste a little capacity and add randomness under contention.
//!
//! Because channels of one medium are coupled through the shared time, offers to them
//! must arrive in global time order: they are never cut-through targets.

use crate::config::ScenarioConfig;
use crate::net::channel::Channel;
use crate::time::SimTime;
use std::collections::HashMap;

/// The busy-until time of every shared medium, indexed by [`Channel::medium`].
#[derive(Debug, Clone, Default)]
pub struct Media {
    busy_until: Vec<SimTime>,
}

impl Media {
    /// Finds the segments of `config` and attaches the transmitting channel of each
    /// station link (channel 2·i of link i) to its segment's medium.
    pub fn attach(config: &ScenarioConfig, channels: &mut [Channel]) -> Media {
        let mut index: HashMap<&str, u32> = HashMap::new();
        for (i, link) in config.links.iter().enumerate() {
            if let Some(segment) = link.segment.as_deref() {
                let next = index.len() as u32;
                let m = *index.entry(segment).or_insert(next);
                channels[2 * i].medium = Some(m);
            }
        }
        Media {
            busy_until: vec![SimTime::ZERO; index.len()],
        }
    }

    /// The busy-until time of medium `m`, for [`Channel::offer_on_medium`].
    pub fn busy_until(&mut self, m: u32) -> &mut SimTime {
        &mut self.busy_until[m as usize]
    }
}
