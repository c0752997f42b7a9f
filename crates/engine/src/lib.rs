//! # tcplab-engine
//!
//! A packet-level discrete-event network simulator: the `sim` backend of tcplab.
//! It is a plain Rust library — no files, no units, no Python — whose contract is one
//! validated [`config::ScenarioConfig`] in and one [`results::RunResults`] out.
//!
//! ## Promises
//! * **Deterministic.** Time is an integer count of nanoseconds ([`time::SimTime`]);
//!   events are ordered by (time, insertion order) ([`sched`]); every random component
//!   draws from its own stream seeded by (run seed, component name) ([`rng`]). No OS
//!   clock or OS randomness is read anywhere. Same scenario + seed ⇒ identical results.
//! * **Never panics on configuration.** [`validate::plan`] rejects anything invalid with
//!   a [`config::ConfigError`] naming the scenario field.
//! * **Packets are conserved.** Every run ends by checking, for each flow and
//!   direction, sent = delivered + dropped + in flight, counting in-flight packets
//!   from the channels themselves ([`sim::InternalError`] otherwise).
//! * **Few events.** One event per packet per hop (its arrival at the far end): a link
//!   computes serialization start and end when it admits a packet (FIFO at a constant
//!   rate), so the queue and serializer need no events of their own.
//! * **Bounded memory.** Meters are sized flows × bins; packets are recycled.
//! * **No I/O.** The engine opens no file and reads no clock: packet captures
//!   ([`pcap`]) write to writers the caller passes.
//!
//! ## Layers
//! Each layer names only those before it (`tests/test_import_graph.py` checks that the
//! modules form no cycle):
//! * [`time`], [`rng`] — simulated time and the random streams.
//! * [`wire`] — what a packet carries: IPv4 sizes, the transport headers
//!   ([`wire::tcp`], [`wire::sctp`]), directions and ports.
//! * [`cc`] — congestion control: a small trait, one file per algorithm, shared by TCP
//!   and SCTP.
//! * [`metrics`] — meters for flows and queues, histograms, bins, Jain's index.
//! * [`config`] — the validated scenario the engine runs; [`app`] — traffic sources.
//! * [`net`] — packets and their pool, link directions ([`net::channel`]) with output
//!   queues ([`net::queue`]: DropTail, RED) and loss models ([`net::loss`]), static
//!   routing ([`net::routing`]) and IPv4 fragmentation ([`net::fragment`]). Models
//!   take `now` as an argument and never touch the event loop, so the real-time
//!   emulator ([`emulate`], driven by `tcplab emu`) reuses them.
//! * [`validate`] — checks a configuration and plans the run.
//! * [`transport`] — sans-IO endpoints behind the [`transport::Endpoint`] trait: UDP,
//!   TCP, SCTP.
//! * [`results`] — what a run reports; [`sim`] — the event loop tying them together.

#![warn(missing_docs)]

pub mod app;
pub mod cc;
pub mod config;
pub mod emulate;
pub mod estimate;
pub mod format;
pub mod json_path;
pub mod metrics;
pub mod net;
pub mod observe;
pub mod pcap;
pub mod prefetch;
pub mod results;
pub mod rng;
pub mod sched;
pub mod series_tables;
pub mod sim;
pub mod time;
pub mod transport;
pub mod validate;
pub mod wire;

pub use config::{CcConfig, ConfigError, ScenarioConfig};
pub use results::RunResults;
pub use sim::{InternalError, Simulation};
pub use time::SimTime;
