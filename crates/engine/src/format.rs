//! The scenario file format as users write it (docs/scenario.md): every table, key,
//! unit, default and help text, as Rust types.
//!
//! These types are the single source of the format. They are never filled in: the
//! front end parses files (units, shorthands, `count` tables) and hands the engine a
//! [`crate::config::ScenarioConfig`] in SI units. What they give is their JSON Schema
//! ([`json_schema()`]), which `tcplab schema` publishes for editors, and from which the
//! Python front end takes its key lists, choices and defaults (`tcplab.scenario.format`)
//! and docs/scenario.md is checked (`tests/test_schema.py`) — so the three cannot drift.
//!
//! Doc comments are the help text of each key; `default` extensions give the value a
//! key takes when the scenario leaves it out, written as a user would write it.
// Described, never constructed: neither unused fields nor the size of variants matter.
#![allow(dead_code, clippy::large_enum_variant)]

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};

/// A value written as a number with a unit (`"10ms"`, `"1Gbps"`, `"1500B"`), or a
/// template (`"{i * 10}ms"`) in a table with `count`. `$number` says what a bare number
/// may be: `any` (counted in `$plain`, for packets, segments, probabilities and byte
/// counts every tool writes bare, such as an MTU) or `zero` (only 0: a bare 10 could be
/// 10 ms or 10 s, 10 bit/s or 10 Mbit/s, so the front end asks for the unit).
macro_rules! unit_type {
    ($name:ident, $unit:literal, zero, $examples:tt, $doc:literal) => {
        unit_type!(@emit $name, $unit, {"const": 0, "description": "0 needs no unit"}, $examples, $doc);
    };
    ($name:ident, $unit:literal, $plain:literal, $examples:tt, $doc:literal) => {
        unit_type!(@emit $name, $unit, {"type": "number", "minimum": 0, "description": $plain}, $examples, $doc);
    };
    (@emit $name:ident, $unit:literal, $number:tt, $examples:tt, $doc:literal) => {
        #[doc = $doc]
        pub struct $name(serde_json::Value);

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({
                    "description": $doc,
                    "anyOf": [
                        $number,
                        {"type": "string", "pattern": UNIT_PATTERN},
                    ],
                    "examples": $examples,
                    "x-tcplab-unit": $unit,
                })
            }
        }
    };
}

/// A number followed by a unit, or a `{...}` template.
const UNIT_PATTERN: &str =
    r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*[^\d\s]*(\s+\S+)?\s*$|\{";

unit_type!(
    Duration,
    "duration",
    zero,
    ["10ms", "1.5s", "100us"],
    "A time: a number with ns, us, ms, s or min (a bare number other than 0 is an error)."
);
unit_type!(Rate, "rate", zero, ["100Mbps", "1Gbps", "64kbps"],
    "A bit rate: a number with bps, kbps, Mbps, Gbps (b/s spellings too; B/s for bytes); a bare number other than 0 is an error.");
unit_type!(Size, "size", zero, ["1500B", "9KiB", "10MB"],
    "A size in bytes: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024); a bare number other than 0 is an error.");
unit_type!(
    Bytes,
    "size",
    "bytes",
    [1500, "9000B"],
    "A byte count written bare as every tool writes it (an MTU, an MSS) or with a size unit."
);
unit_type!(Amount, "amount", "packets", ["100 packets", "64KB"],
    "A queue limit, threshold or buffer: packets (a plain number, or \"N packets\"/\"N segments\") or a byte size.");
unit_type!(
    Probability,
    "probability",
    "a fraction in [0, 1]",
    [0.01, "1%"],
    "A probability: a fraction in [0, 1] or a percentage string (\"1%\")."
);
unit_type!(
    Segments,
    "segments",
    "segments",
    [10, "10 segments"],
    "A whole number of TCP segments (10 or \"10 segments\")."
);

/// `"auto"` (derived as ns-2.35 does), or a value.
pub enum AutoOr<T> {
    /// Derived from the link (ns-2.35's automatic configuration).
    Auto(AutoWord),
    /// Given explicitly.
    Value(T),
}

impl<T: JsonSchema> JsonSchema for AutoOr<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("AutoOr{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let value = generator.subschema_for::<T>();
        json_schema!({"anyOf": [{"const": "auto"}, value]})
    }
}

/// The word `"auto"`.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoWord {
    /// Derive the value.
    Auto,
}

/// A table whose keys are all optional: `T`'s keys, overriding another table's.
pub struct Partial<T>(T);

impl<T: JsonSchema> JsonSchema for Partial<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Partial{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = T::json_schema(generator);
        schema.remove("required");
        schema
    }
}

/// A whole scenario file (TOML, YAML, or a Python dict of the same shape).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "tcplab scenario")]
pub struct Scenario {
    /// The scenario's name: the default results directory is `results/<name>`.
    #[serde(default)]
    pub name: String,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: String,
    /// Run length, seed and time-series bin width.
    pub simulation: Simulation,
    /// Topology shorthands that expand into nodes and links.
    #[serde(default)]
    pub topology: Topology,
    /// Hosts and routers named explicitly.
    #[serde(default)]
    pub node: Vec<Node>,
    /// Full-duplex point-to-point links.
    #[serde(default)]
    pub link: Vec<Link>,
    /// Shared half-duplex media (ns-2's make-lan).
    #[serde(default)]
    pub segment: Vec<Segment>,
    /// Traffic: one table per flow (or per `count` flows).
    pub flow: Vec<Flow>,
    /// Which flows the summary's fairness index covers.
    #[serde(default)]
    pub metrics: Metrics,
    /// How routes are chosen where several paths cost the same.
    #[serde(default)]
    pub routing: Routing,
    /// A sweep over this scenario's parameters (docs/sweeps.md); read by `tcplab sweep`, not by a run.
    #[serde(default)]
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub sweep: serde_json::Value,
}

/// `[simulation]`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Simulation {
    /// Simulated time to run.
    pub duration: Duration,
    /// Run seed; every random component draws its own stream from (seed, component name).
    #[serde(default)]
    #[schemars(extend("default" = 1))]
    pub seed: u64,
    /// Width of the time-series bins (the source studies use 50 ms).
    #[serde(default)]
    #[schemars(extend("default" = "50ms"))]
    pub bin: Option<Duration>,
}

/// `[topology]`: shorthands that expand into nodes and links.
#[derive(Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// N sender/receiver pairs around one bottleneck: senders `left{i}`, receivers
    /// `right{i}`, routers `router_left` and `router_right`.
    #[serde(default)]
    pub dumbbell: Option<Dumbbell>,
    /// A k-ary fat tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)² core switches, k³/4 hosts `host{i}`.
    #[serde(default)]
    pub fat_tree: Option<FatTree>,
}

/// `[topology.fat_tree]`. Host `host{i}` hangs off edge switch `edge{p}_{e}` with
/// p = i ÷ (k²/4) and e = (i ÷ (k/2)) mod (k/2); every edge switch of pod p links to
/// every aggregation switch `agg{p}_{a}`; aggregation switch a of every pod links to
/// the core switches `core{j}`, j from a·k/2 to a·k/2 + k/2 − 1.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    /// Ports per switch: an even number from 2 to 64 (k = 16: 1,024 hosts, 320 switches).
    #[schemars(range(min = 2, max = 64))]
    pub k: u32,
    /// Every link of the tree (switch to switch and host to switch).
    pub link: LinkProperties,
    /// Overrides of `link` for the host links (the forward direction runs from the host).
    #[serde(default)]
    pub host_link: Option<Partial<LinkProperties>>,
}

/// `[topology.dumbbell]`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// Number of sender/receiver pairs (1 to 100,000).
    #[schemars(range(min = 1, max = 100_000))]
    pub pairs: u32,
    /// Every access link (required unless both `left_access` and `right_access` are given).
    #[serde(default)]
    pub access: Option<Partial<LinkProperties>>,
    /// Overrides of `access` for the senders' links: one table for all pairs, or a list with one per pair.
    #[serde(default)]
    pub left_access: Option<OneOrPerPair>,
    /// Overrides of `access` for the receivers' links: one table for all pairs, or a list with one per pair.
    #[serde(default)]
    pub right_access: Option<OneOrPerPair>,
    /// The link `router_left — router_right` (its forward direction runs left to right).
    pub bottleneck: LinkProperties,
}

/// One table of link keys for every pair, or a list of them, one per pair.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum OneOrPerPair {
    /// The same overrides for every pair.
    One(Partial<LinkProperties>),
    /// Overrides pair by pair.
    PerPair(Vec<Partial<LinkProperties>>),
}

/// `[[node]]`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// Unique name, used by links, flows and results.
    pub name: String,
    /// A host sources and sinks traffic and never forwards; a router forwards.
    #[serde(default)]
    #[schemars(extend("default" = "host"))]
    pub kind: NodeKind,
    /// Make this many nodes from this table (`{i}` in strings is the index).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
}

/// Whether a node forwards traffic for others.
#[derive(Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// An end system.
    #[default]
    Host,
    /// Forwards packets along routes.
    Router,
}

/// A link's or a segment's MTU when the scenario gives none (bytes).
const DEFAULT_MTU: u32 = 1500;
/// Link-layer bytes per packet when the scenario gives none: none, as ns-2.
const DEFAULT_FRAMING: u32 = 0;

/// The queue of a link direction or a segment's station when the scenario gives none:
/// large enough that only a real bottleneck (where the queue should be set) drops.
fn default_queue() -> serde_json::Value {
    serde_json::json!({"type": "droptail", "limit": "1000 packets"})
}

/// No random loss unless the scenario asks for it.
fn default_loss() -> serde_json::Value {
    serde_json::json!({"type": "none"})
}

/// The keys every link table takes (`[[link]]`, and the dumbbell's links).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkProperties {
    /// Bit rate of each direction.
    pub bandwidth: Rate,
    /// One-way propagation delay (0 is accepted).
    pub delay: Duration,
    /// Largest IP packet the link carries, 68 to 65,535 bytes (9,000 / 9,180 for jumbo frames).
    #[serde(default)]
    #[schemars(extend("default" = DEFAULT_MTU))]
    pub mtu: Option<Bytes>,
    /// Link-layer bytes added to every packet on the wire: 0 (as ns-2), "ethernet" (38) or a size.
    #[serde(default)]
    #[schemars(extend("default" = DEFAULT_FRAMING))]
    pub framing: Option<Framing>,
    /// Routing metric (static shortest path; hop count by default).
    #[serde(default)]
    #[schemars(extend("default" = 1), range(min = 1))]
    pub cost: u32,
    /// Output queue of each direction (`forward`/`reverse` override it).
    #[serde(default)]
    #[schemars(extend("default" = default_queue()))]
    pub queue: Option<Queue>,
    /// Random loss of each direction (`forward`/`reverse` override it).
    #[serde(default)]
    #[schemars(extend("default" = default_loss()))]
    pub loss: Option<Loss>,
    /// Where random loss acts: after serialization (the packet used the link) or before the queue (ns-2's lossmodel).
    #[serde(default)]
    #[schemars(extend("default" = "after_serialization"))]
    pub loss_at: LossAt,
    /// Overrides for the direction `from -> to`.
    #[serde(default)]
    pub forward: Option<Direction>,
    /// Overrides for the direction `to -> from`.
    #[serde(default)]
    pub reverse: Option<Direction>,
}

/// `[[link]]`: a full-duplex link between `from` and `to`, with every key of a link table.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// One end (the forward direction runs from here).
    pub from: String,
    /// The other end.
    pub to: String,
    /// Make this many links from this table (`{i}` in strings is the index).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
    /// Everything else a link says: rate, delay, MTU, queue, loss, …
    #[serde(flatten)]
    pub properties: LinkProperties,
}

/// Link-layer framing: a named framing or a size in bytes.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum Framing {
    /// "ethernet" (38 bytes: preamble, header, FCS, inter-frame gap) or "none" (0).
    Named(FramingName),
    /// Bytes per packet.
    Bytes(Bytes),
}

/// A named link-layer framing.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FramingName {
    /// 38 bytes: preamble 8, header 14, FCS 4, inter-frame gap 12.
    Ethernet,
    /// No framing.
    None,
}

/// Where a link's random loss acts.
#[derive(Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossAt {
    /// After serialization: the lost packet used the link; the receiver never sees it.
    #[default]
    AfterSerialization,
    /// Before the queue, as ns-2's `$ns lossmodel`: no place in the queue, no time on the link.
    BeforeQueue,
}

/// Per-direction overrides of a link's queue and loss.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Direction {
    /// This direction's output queue.
    #[serde(default)]
    pub queue: Option<Queue>,
    /// This direction's random loss.
    #[serde(default)]
    pub loss: Option<Loss>,
    /// Where this direction's loss acts.
    #[serde(default)]
    pub loss_at: Option<LossAt>,
}

/// An output queue (packets waiting for the link; the one being sent is not counted).
#[derive(JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Queue {
    /// First come, first served; arrivals beyond the limit are dropped.
    Droptail {
        /// Packets, or a byte size holding at least one MTU-sized packet.
        limit: Amount,
    },
    /// Random Early Detection as ns-2.35 runs it (queue/red.cc; its defaults).
    Red(Red),
}

/// RED's parameters; the defaults are ns-2.35's (automatic thresholds and weight) in packet mode.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Red {
    /// Hard limit: packets or bytes.
    pub limit: Amount,
    /// Minimum threshold of the average queue ("auto": max(5, target_delay · C / 2) packets).
    #[serde(default)]
    #[schemars(extend("default" = "auto"))]
    pub min_th: Option<AutoOr<Amount>>,
    /// Maximum threshold ("auto": 3 · min_th).
    #[serde(default)]
    #[schemars(extend("default" = "auto"))]
    pub max_th: Option<AutoOr<Amount>>,
    /// Drop probability at max_th.
    #[serde(default)]
    #[schemars(extend("default" = 0.1))]
    pub max_p: Option<Probability>,
    /// Weight of the average ("auto": 1 − exp(−1 / (10 · RTT · C))).
    #[serde(default)]
    #[schemars(extend("default" = "auto"))]
    pub w_q: Option<AutoOr<Probability>>,
    /// Target queueing delay of the automatic thresholds.
    #[serde(default)]
    #[schemars(extend("default" = "5ms"))]
    pub target_delay: Option<Duration>,
    /// Packet size the automatic configuration and byte mode assume.
    #[serde(default)]
    #[schemars(extend("default" = "500B", "x-tcplab-engine" = "mean_packet_bytes"))]
    pub mean_packet_size: Option<Size>,
    /// "packet", or "byte" (ns-2's bytes_: the drop probability scales with the packet's size).
    #[serde(default)]
    #[schemars(extend("default" = "packet"))]
    pub mode: RedMode,
    /// Ramp the probability from max_p to 1 between max_th and 2 · max_th.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub gentle: bool,
    /// Space early drops uniformly (ns-2's wait_).
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub wait: bool,
}

/// How RED counts.
#[derive(Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Every packet alike.
    #[default]
    Packet,
    /// By size: probability × size / mean_packet_size.
    Byte,
}

/// A random-loss model.
#[derive(JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Loss {
    /// Nothing is lost.
    None {},
    /// Each packet independently.
    Bernoulli {
        /// Loss probability per packet.
        rate: Probability,
    },
    /// Two-state bursty loss; the chain steps once per packet.
    GilbertElliott {
        /// Probability of moving from the good state to the bad one.
        p_good_to_bad: Probability,
        /// Probability of moving from the bad state to the good one.
        p_bad_to_good: Probability,
        /// Loss probability in the good state.
        #[serde(default)]
        #[schemars(extend("default" = 0))]
        loss_good: Option<Probability>,
        /// Loss probability in the bad state.
        #[serde(default)]
        #[schemars(extend("default" = 1))]
        loss_bad: Option<Probability>,
    },
    /// Packets offset + n, offset + 2n, … (for tests).
    EveryNth {
        /// The period.
        #[schemars(range(min = 1))]
        n: u64,
        /// Packets before the first period starts.
        #[serde(default)]
        #[schemars(extend("default" = 0))]
        offset: u64,
    },
    /// Exactly these packets, numbered from 1 in the order they cross the direction.
    List {
        /// The packets to drop.
        packets: Vec<u64>,
    },
}

/// `[[segment]]`: a half-duplex medium shared by its stations, one transmission at a time.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// The segment's name; it becomes a router node of its own.
    pub name: String,
    /// The attached nodes (at least two).
    pub stations: Vec<String>,
    /// The medium's bit rate.
    pub bandwidth: Rate,
    /// Propagation between any two stations.
    pub delay: Duration,
    /// Largest IP packet.
    #[serde(default)]
    #[schemars(extend("default" = DEFAULT_MTU))]
    pub mtu: Option<Bytes>,
    /// Link-layer bytes per packet.
    #[serde(default)]
    #[schemars(extend("default" = DEFAULT_FRAMING))]
    pub framing: Option<Framing>,
    /// Each station's interface queue.
    #[serde(default)]
    #[schemars(extend("default" = default_queue()))]
    pub queue: Option<Queue>,
    /// Random loss on send.
    #[serde(default)]
    #[schemars(extend("default" = default_loss()))]
    pub loss: Option<Loss>,
    /// Where random loss acts.
    #[serde(default)]
    #[schemars(extend("default" = "after_serialization"))]
    pub loss_at: LossAt,
    /// Make this many segments from this table (`{i}` in strings is the index).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
}

/// `[[flow]]`: traffic from one host to another.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Name in the results (default flow0, flow1, …).
    #[serde(default)]
    pub name: Option<String>,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// "udp", "tcp", "sctp", or a table with the transport's options.
    pub transport: Transport,
    /// What the application sends.
    pub app: App,
    /// When the application starts.
    #[serde(default)]
    #[schemars(extend("default" = "0s"))]
    pub start: Option<Duration>,
    /// When the application stops (default: the end of the run).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// An explicit route: the nodes from `from` to `to`.
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Make this many flows from this table (`{i}` in strings is the index).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub count: Option<u32>,
}

/// A flow's transport: a name with every default, or a table.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum Transport {
    /// "udp", "tcp" or "sctp" with its defaults.
    Name(TransportName),
    /// A table: `{ type = "tcp", cc = "cubic", ... }`, `{ type = "sctp", streams = 4 }`.
    Table(TransportTable),
}

/// The transports.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TransportName {
    /// Datagrams (UDP 8 B + IPv4 20 B headers).
    Udp,
    /// A reliable byte stream.
    Tcp,
    /// Reliable messages over streams (RFC 9260).
    Sctp,
}

/// A transport table.
#[derive(JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TransportTable {
    /// UDP (no options).
    Udp {},
    /// TCP with options.
    Tcp(Tcp),
    /// SCTP with options.
    Sctp(Sctp),
}

/// SCTP's options (RFC 9260's values by default; one association, one path).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sctp {
    /// Outbound streams; the application's messages go round-robin over them.
    #[serde(default)]
    #[schemars(extend("default" = 1), range(min = 1, max = 65535))]
    pub streams: u32,
    /// Bytes per application message (default: the largest DATA chunk a packet carries, path MTU − 48); larger messages are fragmented.
    #[serde(default)]
    #[schemars(extend("x-tcplab-engine" = "message_bytes"))]
    pub message_size: Option<Size>,
    /// Deliver messages unordered (U flag): none waits behind a gap.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub unordered: bool,
    /// INIT / INIT-ACK / COOKIE-ECHO / COOKIE-ACK before data.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub handshake: bool,
    /// SCTP_NODELAY: no Nagle (send partly filled packets while data is outstanding).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub nodelay: bool,
    /// Congestion control: "sctp" (RFC 9260 section 7) or another algorithm, as for TCP.
    #[serde(default)]
    #[schemars(extend("default" = "sctp"))]
    pub cc: Option<Cc>,
    /// The advertised receiver window (a_rwnd): a size, or "N packets" of full chunks.
    #[serde(default)]
    #[schemars(extend("default" = "64MiB"))]
    pub receive_buffer: Option<Amount>,
    /// What the application may have written and not yet had acknowledged; a message's delay counts from when it enters.
    #[serde(default)]
    #[schemars(extend("default" = "64MiB"))]
    pub send_buffer: Option<Amount>,
    /// true: SACK every 2nd packet or after 200 ms; false: every packet; or a table.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub delayed_sack: Option<DelayedSack>,
    /// Miss indications before fast retransmit (RFC 2960 said 4).
    #[serde(default)]
    #[schemars(extend("default" = 3), range(min = 1))]
    pub fast_retransmit_after: u32,
    /// Max.Burst: packets per sending opportunity.
    #[serde(default)]
    #[schemars(extend("default" = 4), range(min = 1))]
    pub max_burst: u32,
    /// "packets": at most Max.Burst packets per opportunity (RFC 9260); "cwnd": cwnd lowered to flight + Max.Burst·PMTU (Linux 2.6).
    #[serde(default)]
    #[schemars(extend("default" = "packets"))]
    pub burst_limit: Option<BurstLimit>,
    /// "payload": the flight counts chunk payload, cwnd grows in path MTUs (lksctp); "chunk": each chunk counts with its 16-byte header, cwnd grows in largest chunks, path MTU − 32 (ns-2.35).
    #[serde(default)]
    #[schemars(extend("default" = "payload"))]
    pub flight_accounting: Option<FlightAccounting>,
    /// "rfc9260": Fast Recovery (one cwnd cut until the exit point is acknowledged, no growth meanwhile); "ns2": ns-2.35's RFC 2960 with the implementer's guide (a cut per window of data, one packet per fast retransmission).
    #[serde(default)]
    #[schemars(extend("default" = "rfc9260"))]
    pub recovery: Option<SctpRecovery>,
    /// The T3-rtx timer (RFC 9260 section 15).
    #[serde(default)]
    pub rto: Option<SctpRto>,
}

/// Delayed SACK: a switch or a table.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum DelayedSack {
    /// true: every 2nd packet or after 200 ms; false: every packet.
    Switch(bool),
    /// Explicit settings.
    Table(DelayedSackTable),
}

/// Explicit delayed-SACK settings.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelayedSackTable {
    /// SACK every this many packets carrying DATA.
    #[serde(default)]
    #[schemars(extend("default" = 2), range(min = 1))]
    pub every: u32,
    /// Longest a SACK is held back (at most 500 ms).
    #[serde(default)]
    #[schemars(extend("default" = "200ms"))]
    pub timeout: Option<Duration>,
}

/// How Max.Burst limits a sending opportunity.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BurstLimit {
    /// At most Max.Burst packets (RFC 9260 section 6.1).
    Packets,
    /// cwnd lowered to flight size + Max.Burst·PMTU (lksctp 2.6).
    Cwnd,
}

/// SCTP's answer to losses found by SACKs.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SctpRecovery {
    /// RFC 9260 section 7.2.4's Fast Recovery (lksctp).
    Rfc9260,
    /// ns-2.35's Agent/SCTP: RFC 2960 with the implementer's guide.
    Ns2,
}

/// What SCTP's flight counts.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlightAccounting {
    /// Chunk payload; cwnd in path MTUs (lksctp).
    Payload,
    /// Chunks with their 16-byte headers; cwnd in largest chunks (ns-2.35's Agent/SCTP).
    Chunk,
}

/// SCTP's retransmission timer (RFC 9260 section 15: RTO.Initial, RTO.Min, RTO.Max).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SctpRto {
    /// Before the first RTT measurement.
    #[serde(default)]
    #[schemars(extend("default" = "3s"))]
    pub initial: Option<Duration>,
    /// Lower bound.
    #[serde(default)]
    #[schemars(extend("default" = "1s"))]
    pub min: Option<Duration>,
    /// Upper bound (backoff stops there).
    #[serde(default)]
    #[schemars(extend("default" = "60s"))]
    pub max: Option<Duration>,
}

/// TCP's options. Defaults are tcplab's profile; `profile` switches the group to ns-2's or Linux's.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tcp {
    /// "tcplab", "ns2" or "linux": sets many options at once to what that stack does; keys written still win.
    #[serde(default)]
    #[schemars(extend("default" = "tcplab", "x-tcplab-profiles" = profiles()))]
    pub profile: Profile,
    /// Congestion control: an algorithm name, or a table with the algorithm, a preset and parameters.
    #[serde(default)]
    #[schemars(extend("default" = "newreno"))]
    pub cc: Option<Cc>,
    /// Loss recovery (default: sack with sack = true, else newreno; reno with cc = "reno" in the ns2 profile).
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// SACK blocks (RFC 2018). On by default, as every current stack negotiates it:
    /// without it a burst of losses is repaired one hole per round trip.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub sack: bool,
    /// Maximum segment size (default: path MTU − 40).
    #[serde(default)]
    pub mss: Option<Bytes>,
    /// Initial window in segments (RFC 6928).
    #[serde(default)]
    #[schemars(extend("default" = 10))]
    pub initial_window: Option<Segments>,
    /// SYN / SYN-ACK before data; false is ns-2's one-way TCP.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub handshake: bool,
    /// true: ACK every 2nd segment or after 40 ms; false: every segment; or a table.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub delayed_ack: Option<DelayedAck>,
    /// The advertised window: a size, or "N packets" of full segments.
    #[serde(default)]
    #[schemars(extend("default" = "64MiB"))]
    pub receive_buffer: Option<Amount>,
    /// A cap on the send window (default: none).
    #[serde(default)]
    pub max_window: Option<Amount>,
    /// RFC 7323 timestamps (12 option bytes per segment).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub timestamps: bool,
    /// Window scaling; without it the window is at most 65,535 bytes.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub window_scaling: bool,
    /// Linux's receive-window autotuning: the window offered grows with what the
    /// application reads (twice the best round trip's, plus data held above a hole), up
    /// to `receive_buffer`, instead of all of it from the start.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub receive_autotuning: bool,
    /// Linux's TCP Small Queues: at most about 1 ms of the flow's pacing rate (2 packets at least, 4 MB at most) waits in its host's first link; the rest waits in the socket until the link has sent some, so a burst never overflows the host's own queue.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub small_queues: bool,
    /// The retransmission timer.
    #[serde(default)]
    pub rto: Option<Rto>,
    /// Space segments at cwnd/SRTT (×2 in slow start, ×1.2 after).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub pacing: bool,
    /// A random delay U[0, x] before each sending opportunity (ns-2's overhead_).
    #[serde(default)]
    #[schemars(extend("default" = "0s"))]
    pub send_jitter: Option<Duration>,
    /// RFC 3042: a new segment on each of the first two duplicate ACKs.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub limited_transmit: bool,
    /// Without SACK, Limited Transmit's two segments also after a timeout, as the go-back-N's next ones (ns-2's send_one).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub limited_transmit_after_timeout: bool,
    /// Slow start also at cwnd = ssthresh, one segment more after each reduction (Linux 2.6's `snd_cwnd <= snd_ssthresh`).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub slow_start_at_ssthresh: bool,
    /// Duplicate ACKs restart the retransmission timer too (ns-2's TCP/Linux), not only ACKs of new data (RFC 6298 5.3).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub restart_rto_on_duplicates: bool,
    /// Duplicate ACKs' timestamp echoes are RTT samples too, each ending the timer's backoff (ns-2's TCP/Linux: `time_processing` runs `rtt_update` for every ACK, and its `ts_resetRTO_` is on); RFC 6298 and Linux sample only ACKs of new data. Needs `timestamps`.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub rtt_samples_from_duplicates: bool,
    /// Linux's linear timeouts for thin streams (`TCP_THIN_LINEAR_TIMEOUTS`; off in Linux by default): while fewer than 4 segments are outstanding after slow start, the first 6 timeouts in a row keep the RTO instead of doubling it.
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub thin_linear_timeouts: bool,
    /// NewReno's retransmission timer in recovery (RFC 6582 section 4).
    #[serde(default)]
    #[schemars(extend("default" = "impatient"))]
    pub newreno_timer: Option<NewRenoTimer>,
    /// ssthresh after a timeout: from the flight size (RFC 5681) or from cwnd (ns-2, Linux).
    #[serde(default)]
    #[schemars(extend("default" = "flight_size"))]
    pub timeout_ssthresh: Option<TimeoutSsthresh>,
    /// Which timeouts reduce ssthresh: once per window of data (RFC 5681, Linux) or every one after progress (ns-2).
    #[serde(default)]
    #[schemars(extend("default" = "once_per_window"))]
    pub timeout_reduction: Option<TimeoutReduction>,
    /// SACK recovery finds a lost retransmission from SACKs of later data (Linux) instead of waiting for the timer (ns-2).
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub detect_lost_retransmits: bool,
    /// How SACK losses are found: dupthresh (RFC 6675), fack (Linux 2.6), rack (RFC 8985, Linux) or holes (ns-2's Sack1).
    #[serde(default)]
    #[schemars(extend("default" = "rack"))]
    pub loss_detection: Option<LossDetection>,
    /// RFC 8985 Tail Loss Probe: probe the tail of a window 2 SRTT after the last ACK (SACK only).
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub tail_loss_probe: bool,
    /// The receiver reports a duplicate segment in a first D-SACK block (RFC 2883; with SACK).
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub dsack: bool,
    /// Bytes TCP options take on the wire: as real stacks encode them ("rfc": timestamps 12 on every segment, inside the MSS; SACK 4 + 8 per block) or as ns-2.35 counts them ("ns2": timestamps 10 on the sender's segments only, beyond the MSS; SACK 8 per block).
    #[serde(default)]
    #[schemars(extend("default" = "rfc"))]
    pub option_sizes: Option<OptionSizes>,
    /// SACK blocks the receiver remembers and reports, newest first (RFC 2018 section 4; Linux keeps 4, ns-2's sink 3); 3 fit beside timestamps.
    #[serde(default)]
    #[schemars(extend("default" = 4), range(min = 1, max = 4))]
    pub sack_blocks: Option<u8>,
    /// Undo a reduction D-SACKs or timestamps prove spurious (RFC 3708/3522 detection, RFC 4015 response; Linux).
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub undo: bool,
    /// F-RTO (RFC 5682): after a timeout send new data first, and undo it if the originals arrived.
    #[serde(default)]
    #[schemars(extend("default" = true))]
    pub frto: bool,
    /// RFC 3465 byte counting (2 segments per ACK at most in slow start), every segment an ACK covers (Linux), or one per ACK (Linux 2.6, ns-2).
    #[serde(default)]
    #[schemars(extend("default" = "bytes"))]
    pub cwnd_counting: Option<CwndCounting>,
    /// The RTO estimator's samples: every ACK, or one timed segment per RTT (BSD, ns-2); algorithms see every ACK's.
    #[serde(default)]
    #[schemars(extend("default" = "every_ack"))]
    pub rtt_sampling: Option<RttSampling>,
    /// One segment until the first ACK, then the initial window (ns-2's delay_growth_).
    #[serde(default)]
    #[schemars(extend("default" = false))]
    pub delay_growth: bool,
    /// The window's way down in fast recovery: "prr", "rate_halving", or "pipe" (RFC
    /// 6675 alone with SACK; window inflation without).
    #[serde(default)]
    #[schemars(extend("default" = "prr"))]
    pub reduction: Option<Reduction>,
    /// After a timeout, keep the SACK information (Linux) or forget it and go back N over SACKed data too (RFC 2018 section 8; ns-2's Sack1).
    #[serde(default)]
    #[schemars(extend("default" = "keep"))]
    pub sack_after_timeout: Option<SackAfterTimeout>,
    /// The older spelling of `reduction = "prr"` (true) or "pipe" (false); not with `reduction`.
    #[serde(default)]
    pub prr: Option<bool>,
}

/// Stacks whose defaults a `profile` reproduces.
#[derive(Default, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// tcplab's defaults (each key's `default`).
    #[default]
    Tcplab,
    /// ns-2.35's Agent/TCP and TCPSink (tcl/lib/ns-default.tcl).
    Ns2,
    /// Linux (include/net/tcp.h and the sysctls' defaults).
    Linux,
    /// Linux 2.6.18 (2006; the highspeed study's testbed, the base of ns-2's TCP/Linux):
    /// FACK, rate halving, lost-retransmit detection, no RACK or TLP, 3 s initial RTO,
    /// and each algorithm's `linux-2.6.18` preset where it has one.
    #[serde(rename = "linux-2.6.18")]
    Linux2618,
}

/// What each profile sets, in scenario terms (keys as in the `tcp` table, plus
/// `ack_every` and `delayed_ack_timeout` for `delayed_ack`, and `rto_initial`,
/// `rto_min`, `rto_max`, `rto_floor`, `rto_tick` for `rto`; `cc_preset` names the
/// preset an algorithm starts from when it has one of that name, and
/// `reno_recovery` the loss recovery of `cc = "reno"` without SACK when `recovery` is not written — Reno's
/// own, RFC 5681 3.2, unless the profile says otherwise — and `reduction_without_sack`
/// the `reduction` when neither it nor SACK is on). Sources: ns-2.35
/// tcl/lib/ns-default.tcl (Agent/TCP, TCPSink) and Linux include/net/tcp.h.
fn profiles() -> serde_json::Value {
    serde_json::json!({
        "tcplab": {
            "reduction_without_sack": "pipe", // RFC 6582 NewReno's window inflation without SACK
            // RFC 6582 section 4 leaves the timer open: slow but steady for a few holes,
            // impatient for a slow-start overshoot's thousands (docs/loss-recovery.md).
            "newreno_timer": "by_holes",
            // RFC 6582 for every algorithm without SACK: RFC 5681's own fast recovery
            // leaves a window's second loss to the timer (`recovery = "reno"` keeps it).
            "reno_recovery": "newreno",
        },
        "ns2": {
            "initial_window": 2,             // windowInit_ 2
            "handshake": false,              // one-way Agent/TCP: no SYN
            "ack_every": 1,                  // Agent/TCPSink acknowledges every segment
            "max_window": "20 packets",      // window_ 20
            "receive_buffer": "20 packets",
            "sack": false,                   // Agent/TCP/Reno and Newreno (Sack1 is sack = true)
            "timestamps": false,             // timestamps_ false
            "rto_initial": "3s",             // rtxcur_init_ 3.0
            "rto_min": "200ms",              // minrto_ 0.2
            "rto_max": "60s",                // maxrto_ 60
            "rto_tick": "10ms",              // tcpTick_ 0.01: rtt_update's clock
            "limited_transmit": true,        // singledup_ 1
            "limited_transmit_after_timeout": true, // send_one() on dupacks whatever the state (Reno, Newreno)
            "newreno_timer": "impatient",    // Agent/TCP/Newreno newreno_changes1_ 1
            "timeout_ssthresh": "cwnd",      // slowdown(CLOSE_SSTHRESH_HALF) halves window()
            "timeout_reduction": "per_timeout", // ... on every timeout(), also inside fast recovery
            "detect_lost_retransmits": false, // Sack1: a lost retransmission waits for the timer
            "loss_detection": "holes",       // Sack1: ScoreBoardRQ::GetNextRetran, any hole below a SACK
            "tail_loss_probe": false,        // ns-2.35 has no TLP
            "dsack": false,                  // TCPSink/Sack1 sends no D-SACK blocks
            "sack_blocks": 3,                // Agent/TCPSink maxSackBlocks_ 3
            "option_sizes": "ns2",           // headersize(): 8 bytes per SACK block, ts_option_size_ 10
            "undo": false,                   // nor does Agent/TCP undo
            "frto": false,                   // (Agent/TCP/Newreno/FRTO is a separate agent)
            "cwnd_counting": "ns2",          // opencwnd: +1 (slow start) or +1/cwnd per new ACK
            "rtt_sampling": "once_per_rtt",  // rtt_active_/rtt_seq_: one timed segment per RTT
            "delay_growth": true,            // delay_growth_ true: one segment, IW after its ACK
            "reduction": "sack1_pipe",       // Sack1's pipe_ counter against cwnd (Reno, Newreno: inflation)
            "sack_after_timeout": "forget",  // Sack1::timeout: ClearScoreBoard; dupacks unread while timeout_
        },
        "linux": {
            "initial_window": 10,            // TCP_INIT_CWND (RFC 6928)
            "handshake": true,
            "ack_every": 2,
            "delayed_ack_timeout": "40ms",   // TCP_DELACK_MIN
            "sack": true,
            "timestamps": true,
            "window_scaling": true,
            "receive_autotuning": true,      // tcp_moderate_rcvbuf = 1 (tcp_rcv_space_adjust, tcp_rcvbuf_grow)
            "small_queues": true,            // TCP Small Queues since 3.6 (tcp_small_queue_check)
            "rto_initial": "1s",             // TCP_TIMEOUT_INIT
            "rto_min": "200ms",              // TCP_RTO_MIN
            "rto_max": "120s",               // TCP_RTO_MAX
            "rto_floor": "variance",         // rttvar >= tcp_rto_min: RTO >= SRTT + 200 ms
            "limited_transmit": true,        // duplicates shrink packets_in_flight (RFC 3042 in effect)
            "newreno_timer": "slow_but_steady", // the RTO is rearmed on every ACK of new data
            "timeout_ssthresh": "cwnd",      // tcp_reno_ssthresh: max(cwnd/2, 2)
            "cwnd_counting": "segments",     // tcp_slow_start: cwnd += acked, no ABC limit (removed in 3.8)
            // reduction: PRR as the tcplab default (RFC 6937 since Linux 3.2, SafeACK since 4.2)
            "cc": "cubic",                   // the default module since 2.6.19
            "cc_preset": "linux",            // each algorithm as the kernel ships it (CUBIC: HyStart, β = 717/1024)
            "reno_recovery": "newreno",      // without SACK Linux repairs partial ACKs whatever the module (tcp_newreno_mark_lost)
            // RACK-TLP as the tcplab default: sysctl tcp_recovery = 1 (RACK) since 4.18,
            // tcp_early_retrans = 3 (TLP) since 3.10.
        },
        // Linux 2.6.18's net/ipv4/tcp_input.c, tcp_output.c and include/net/tcp.h.
        "linux-2.6.18": {
            "cc": "bic",                     // the default module until 2.6.19 (then cubic)
            "cc_preset": "linux-2.6.18",     // each algorithm as 2.6.18 shipped it, if tcplab has it
            "initial_window": 3,             // tcp_init_cwnd: RFC 3390, 3 segments of 1,448 B
            "handshake": true,
            "ack_every": 2,
            "delayed_ack_timeout": "40ms",   // TCP_DELACK_MIN
            "sack": true,
            "timestamps": true,
            "window_scaling": true,
            "rto_initial": "3s",             // TCP_TIMEOUT_INIT (1 s only since 3.1)
            "rto_min": "200ms",              // TCP_RTO_MIN
            "rto_max": "120s",               // TCP_RTO_MAX
            "rto_floor": "variance",         // tcp_rtt_estimator: mdev >= tcp_rto_min
            "limited_transmit": true,
            "newreno_timer": "slow_but_steady", // tcp_ack rearms the RTO on every ACK of new data
            "timeout_ssthresh": "cwnd",      // tcp_enter_loss: ssthresh = ca_ops->ssthresh()
            "timeout_reduction": "once_per_window", // ... only in Open/Disorder, or at high_seq
            "detect_lost_retransmits": true, // tcp_sacktag_write_queue's "lost retransmit" check
            "reno_recovery": "newreno",      // tcp_fastretrans_alert's partial-ACK rule (tcp_try_undo_partial)
            "loss_detection": "fack",        // sysctl_tcp_fack = 1: tcp_update_scoreboard
            "tail_loss_probe": false,        // TLP arrived in 3.10
            "frto": false,                   // sysctl_tcp_frto = 0 (on by default from 2.6.24)
            "reduction": "rate_halving",     // tcp_cwnd_down (PRR replaced it in 3.2)
            "slow_start_at_ssthresh": true,  // tcp_reno_cong_avoid: snd_cwnd <= snd_ssthresh
            "cwnd_counting": "acks",         // sysctl_tcp_abc = 0: one tcp_cong_avoid per ACK
        },
    })
}

/// A congestion-control algorithm: its name, or a table with parameters (the
/// algorithms and their parameters are in the schema's `Cc` definition, built from
/// each algorithm's configuration).
pub struct Cc;

impl JsonSchema for Cc {
    fn schema_name() -> Cow<'static, str> {
        "Cc".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        cc_schema()
    }
}

/// The `cc` schema from the engine's catalogue: a name, or per algorithm a table of
/// `algorithm`, `preset` and its parameters (a duration where the engine's field is
/// in ns, typed by the default otherwise).
fn cc_schema() -> Schema {
    let catalogue = crate::CcConfig::catalogue();
    let mut names = Vec::new();
    let mut tables = Vec::new();
    if let serde_json::Value::Object(all) = &catalogue {
        for (name, entry) in all {
            names.push(serde_json::Value::String(name.clone()));
            let mut properties = serde_json::Map::new();
            properties.insert("algorithm".into(), serde_json::json!({"const": name}));
            let presets: Vec<_> = entry["presets"]
                .as_object()
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            if !presets.is_empty() {
                properties.insert("preset".into(), serde_json::json!({"enum": presets}));
            }
            if let Some(defaults) = entry["defaults"].as_object() {
                for (field, default) in defaults {
                    let (key, schema) = match field.strip_suffix("_ns") {
                        Some(key) => (
                            key.to_string(),
                            serde_json::json!({"$ref": "#/$defs/Duration"}),
                        ),
                        None => (field.clone(), parameter_schema(default)),
                    };
                    let mut schema = schema;
                    if let serde_json::Value::Object(m) = &mut schema {
                        m.insert("default".into(), duration_default(field, default));
                    }
                    properties.insert(key, schema);
                }
            }
            tables.push(serde_json::json!({
                "type": "object", "properties": properties, "required": ["algorithm"], "additionalProperties": false,
            }));
        }
    }
    json_schema!({"anyOf": [{"enum": names}, {"oneOf": tables}]})
}

fn parameter_schema(default: &serde_json::Value) -> serde_json::Value {
    match default {
        serde_json::Value::Bool(_) => serde_json::json!({"type": "boolean"}),
        serde_json::Value::Number(n) if n.is_u64() || n.is_i64() => {
            serde_json::json!({"type": "integer"})
        }
        _ => serde_json::json!({"type": "number"}),
    }
}

/// A default of an `_ns` field as the scenario writes it (seconds as a string: "0.2s").
fn duration_default(field: &str, default: &serde_json::Value) -> serde_json::Value {
    match (field.ends_with("_ns"), default.as_f64()) {
        (true, Some(ns)) => serde_json::Value::String(format!("{}s", ns / 1e9)),
        _ => default.clone(),
    }
}

/// Loss recovery after three duplicate ACKs.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// RFC 5681: leave recovery at the first new ACK.
    Reno,
    /// RFC 6582: stay until the whole window is repaired.
    Newreno,
    /// RFC 6675, with SACK blocks.
    Sack,
}

/// `delayed_ack`: true, false, or a table.
#[derive(JsonSchema)]
#[serde(untagged)]
pub enum DelayedAck {
    /// true: every 2nd segment or after 40 ms; false: every segment.
    Switch(bool),
    /// Explicit settings.
    Table(DelayedAckTable),
}

/// Explicit delayed-ACK settings.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelayedAckTable {
    /// Acknowledge every this many full segments.
    #[serde(default)]
    #[schemars(extend("default" = 2), range(min = 1))]
    pub every: u32,
    /// Longest an ACK is held back.
    #[serde(default)]
    #[schemars(extend("default" = "40ms"))]
    pub timeout: Option<Duration>,
}

/// The retransmission timeout (RFC 6298).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rto {
    /// Before the first RTT sample.
    #[serde(default)]
    #[schemars(extend("default" = "1s"))]
    pub initial: Option<Duration>,
    /// Lower bound.
    #[serde(default)]
    #[schemars(extend("default" = "200ms"))]
    pub min: Option<Duration>,
    /// Upper bound (backoff stops there).
    #[serde(default)]
    #[schemars(extend("default" = "60s"))]
    pub max: Option<Duration>,
    /// A fixed RTO instead of the estimator (the LAN study).
    #[serde(default)]
    pub fixed: Option<Duration>,
    /// "rto": max(SRTT + 4·RTTVAR, min) (RFC 6298); "variance": SRTT + max(4·RTTVAR, min) (Linux).
    #[serde(default)]
    #[schemars(extend("default" = "rto"))]
    pub floor: Option<RtoFloor>,
    /// The RTT clock's tick (ns-2's `tcpTick_`; BSD's 500 ms slow timer): RTT samples
    /// in whole ticks, SRTT and RTTVAR in BSD's fixed point, the RTO in whole ticks
    /// (at least two). Unset: exact arithmetic (RFC 6298 with a 1-ns clock).
    #[serde(default)]
    pub tick: Option<Duration>,
}

/// Where the RTO's lower bound applies.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoFloor {
    /// To the whole RTO (RFC 6298).
    Rto,
    /// To the variance term (Linux).
    Variance,
}

/// NewReno's timer in recovery (RFC 6582 section 4).
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NewRenoTimer {
    /// Reset only by the first partial ACK.
    Impatient,
    /// Reset by every partial ACK.
    SlowButSteady,
    /// Slow but steady when the first partial ACK shows at most 32 holes, impatient otherwise.
    ByHoles,
}

/// ssthresh after a timeout.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutSsthresh {
    /// Half the flight size (RFC 5681).
    FlightSize,
    /// Half of cwnd (ns-2, Linux).
    Cwnd,
}

/// Which retransmission timeouts reduce ssthresh.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutReduction {
    /// One reduction per window of data (RFC 5681, Linux's tcp_enter_loss).
    OncePerWindow,
    /// Every timeout, repeats and those inside fast recovery too (ns-2's slowdown()).
    PerTimeout,
}

/// How a SACK sender decides a segment is lost.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossDetection {
    /// RFC 6675 IsLost: three SACKed segments above it.
    #[serde(rename = "dupthresh")]
    DupThresh,
    /// Forward acknowledgement (Linux 2.6): three segments between it and the highest SACKed.
    Fack,
    /// RACK (RFC 8985, Linux since 4.18): sent before a delivered segment and RACK.rtt passed.
    Rack,
    /// ns-2.35's Sack1: in recovery every hole below the highest SACKed segment, once, before new data.
    Holes,
    /// ns-2.35's TCP/Linux: four segments between it and the highest SACKed; recovery only once one is lost.
    #[serde(rename = "ns2_linux")]
    Ns2Linux,
}

/// How cwnd grows per ACK.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndCounting {
    /// By bytes acknowledged (RFC 3465; at most 2 segments per ACK in slow start).
    Bytes,
    /// By segments acknowledged, without RFC 3465's slow-start limit (Linux since 3.8).
    Segments,
    /// One segment per ACK while cwnd-limited (Linux with tcp_abc = 0).
    Acks,
    /// ns-2's opencwnd: per ACK, window-limited or not, fractional cwnd, whole-segment ssthresh.
    Ns2,
}

/// Which segments give RTT samples.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK.
    EveryAck,
    /// One timed segment per round trip (BSD, ns-2).
    OncePerRtt,
}

/// The window's way down in SACK recovery.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reduction {
    /// RFC 6675 alone.
    Pipe,
    /// Proportional Rate Reduction (RFC 9937, was 6937; Linux ≥ 3.2).
    Prr,
    /// Linux 2.6: one segment less per two ACKs.
    RateHalving,
    /// ns-2.35's Sack1: its pipe_ counter (outstanding − 3 at the fast retransmit, −1 per ACK, −2 per partial ACK, +1 per send).
    Sack1Pipe,
    /// ns-2.35's TCP/Linux: cwnd at min_cwnd at once, the flight down one segment per two ACKs from the old window to it.
    Ns2Linux,
}

/// How TCP options are counted on the wire.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OptionSizes {
    /// As real stacks encode them (RFC 7323, RFC 2018): timestamps 12 bytes on every segment, taken from the MSS.
    Rfc,
    /// As ns-2.35 counts them (`headersize()`): timestamps 10 bytes on the sender's segments only, beyond the MSS; SACK 8 per block.
    Ns2,
}

/// SACK information after a retransmission timeout.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SackAfterTimeout {
    /// Kept: SACKed segments are not resent (Linux).
    Keep,
    /// Forgotten, and blocks unread until the timeout's recovery ends (RFC 2018 section 8; ns-2's Sack1).
    Forget,
}

/// What a flow's application sends.
#[derive(JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum App {
    /// Constant bit rate (UDP): one packet every packet_size · 8 / rate.
    Cbr {
        /// Sending rate.
        rate: Rate,
        /// Payload per datagram.
        #[schemars(extend("x-tcplab-engine" = "payload_bytes"))]
        packet_size: Size,
    },
    /// Exponential gaps with the given mean rate (UDP).
    Poisson {
        /// Mean sending rate.
        rate: Rate,
        /// Payload per datagram.
        #[schemars(extend("x-tcplab-engine" = "payload_bytes"))]
        packet_size: Size,
    },
    /// CBR during on periods (UDP).
    Onoff {
        /// Rate while on.
        rate: Rate,
        /// Payload per datagram.
        #[schemars(extend("x-tcplab-engine" = "payload_bytes"))]
        packet_size: Size,
        /// Mean on period.
        on: Duration,
        /// Mean off period.
        off: Duration,
        /// Period lengths: "exponential" or "constant".
        #[serde(default)]
        #[schemars(extend("default" = "exponential"))]
        distribution: Option<OnOffDistribution>,
    },
    /// Always has data (TCP; FTP in the source studies).
    Bulk {},
    /// A finite transfer (TCP); its completion time is `fct_s`.
    File {
        /// Bytes to transfer.
        size: Size,
    },
    /// Data produced at a rate (TCP), e.g. by a disk.
    RateLimited {
        /// Production rate.
        rate: Rate,
        /// Total bytes (default: unbounded).
        #[serde(default)]
        size: Option<Size>,
    },
}

/// On/off period lengths.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnOffDistribution {
    /// Exponentially distributed around the mean.
    Exponential,
    /// Exactly the mean.
    Constant,
}

/// `[routing]`.
#[derive(Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Routing {
    /// Among equal-cost shortest paths: "first" (the link declared first, at every hop)
    /// or "ecmp" (per flow, by a hash of its addresses, ports and protocol at each router,
    /// as switches spread flows; the run's seed salts the hash).
    #[serde(default)]
    #[schemars(extend("default" = "first"))]
    pub multipath: Option<Multipath>,
}

/// How a route picks among equal-cost next hops.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Multipath {
    /// The next hop over the link declared first: every flow between two nodes shares one path.
    First,
    /// Equal-cost multipath: a hash of the flow's five-tuple picks the next hop at each router.
    Ecmp,
}

/// `[metrics]`.
#[derive(Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    /// The flows Jain's fairness index is computed over (default: all).
    #[serde(default)]
    pub fairness_flows: Option<Vec<String>>,
}

/// The JSON Schema (draft 2020-12) of scenario files.
pub fn json_schema() -> serde_json::Value {
    let mut schema = schemars::schema_for!(Scenario).to_value();
    remove_null(&mut schema);
    allow_each_in_counted_tables(&mut schema);
    schema
}

/// TOML has no null: an optional key is one that may be left out, not be null. Drops
/// the null alternative schemars gives every `Option`, and the null default of those
/// with no default of their own (the key is then simply optional).
fn remove_null(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("default").is_some_and(|d| d.is_null()) {
                map.remove("default");
            }
            if let Some(serde_json::Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(serde_json::Value::Array(alternatives)) = map.get_mut("anyOf") {
                alternatives.retain(|a| a.get("type").and_then(|t| t.as_str()) != Some("null"));
                if alternatives.len() == 1 {
                    let only = alternatives.remove(0);
                    map.remove("anyOf");
                    if let serde_json::Value::Object(inner) = only {
                        for (k, v) in inner {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            map.values_mut().for_each(remove_null);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(remove_null),
        _ => {}
    }
}

/// In tables that take `count`, any key may be `{ each = [...] }`: one value per copy.
fn allow_each_in_counted_tables(schema: &mut serde_json::Value) {
    let Some(defs) = schema.get_mut("$defs").and_then(|d| d.as_object_mut()) else {
        return;
    };
    defs.insert(
        "Each".into(),
        serde_json::json!({
            "description": "One value per copy of a counted table: copy i takes item i.",
            "type": "object",
            "properties": {"each": {"type": "array"}},
            "required": ["each"],
            "additionalProperties": false,
        }),
    );
    for name in ["Node", "Link", "Segment", "Flow"] {
        let Some(properties) = defs
            .get_mut(name)
            .and_then(|d| d.get_mut("properties"))
            .and_then(|p| p.as_object_mut())
        else {
            continue;
        };
        for (key, property) in properties.iter_mut() {
            if key == "count" {
                continue;
            }
            let mut original = property.take();
            let mut wrapper = serde_json::Map::new();
            if let Some(fields) = original.as_object_mut() {
                for lifted in ["description", "default"] {
                    if let Some(value) = fields.remove(lifted) {
                        wrapper.insert(lifted.into(), value);
                    }
                }
            }
            wrapper.insert(
                "anyOf".into(),
                serde_json::json!([original, {"$ref": "#/$defs/Each"}]),
            );
            *property = serde_json::Value::Object(wrapper);
        }
    }
}
