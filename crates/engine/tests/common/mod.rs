//! Scenario builders shared by the engine's integration tests and benchmarks.
#![allow(dead_code)]

use tcplab_engine::config::*;

/// A DropTail queue holding `n` packets.
pub fn droptail(n: u64) -> QueueConfig {
    QueueConfig::Droptail {
        limit: Amount {
            value: n,
            unit: SizeUnit::Packets,
        },
    }
}

/// A direction with the given queue and no loss.
pub fn channel(queue: QueueConfig) -> ChannelConfig {
    ChannelConfig {
        queue,
        loss: LossConfig::None,
        loss_placement: LossPlacement::AfterSerialization,
        queue_origin: String::new(),
        loss_origin: String::new(),
    }
}

/// A host or router.
pub fn node(name: &str, kind: NodeKind) -> NodeConfig {
    NodeConfig {
        name: name.into(),
        kind,
        origin: String::new(),
    }
}

/// A link with the same queue on both sides and no loss.
pub fn link(
    from: &str,
    to: &str,
    bandwidth_bps: u64,
    delay_ns: u64,
    mtu: u32,
    queue: QueueConfig,
) -> LinkConfig {
    LinkConfig {
        from: from.into(),
        to: to.into(),
        bandwidth_bps,
        delay_ns,
        mtu_bytes: mtu,
        framing_bytes: 0,
        cost: 1,
        forward: channel(queue.clone()),
        reverse: channel(queue),
        segment: None,
        origin: format!("link[{from}-{to}]"),
    }
}

/// A UDP flow.
pub fn udp_flow(name: &str, from: &str, to: &str, app: AppConfig) -> FlowConfig {
    FlowConfig {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        transport: TransportConfig::Udp,
        app,
        start_ns: 0,
        stop_ns: None,
        path: None,
        origin: format!("flow[{name}]"),
    }
}

/// CBR of `rate_bps` with `payload` bytes per datagram.
pub fn cbr(rate_bps: u64, payload: u32) -> AppConfig {
    AppConfig::Cbr {
        rate_bps,
        payload_bytes: payload,
    }
}

/// 10 s of simulated time, seed 1, 50 ms bins.
pub fn ten_seconds() -> SimulationConfig {
    SimulationConfig {
        duration_ns: 10_000_000_000,
        seed: 1,
        bin_ns: 50_000_000,
    }
}

/// Hosts "a" and "b" joined through router "r": a -(access)- r -(neck)- b, no flows
/// yet; the access link never drops.
pub fn two_hops(
    access_bps: u64,
    access_delay_ns: u64,
    neck_bps: u64,
    neck_delay_ns: u64,
    neck_queue: QueueConfig,
) -> ScenarioConfig {
    ScenarioConfig {
        simulation: ten_seconds(),
        nodes: vec![
            node("a", NodeKind::Host),
            node("r", NodeKind::Router),
            node("b", NodeKind::Host),
        ],
        links: vec![
            link(
                "a",
                "r",
                access_bps,
                access_delay_ns,
                1500,
                droptail(100_000),
            ),
            link("r", "b", neck_bps, neck_delay_ns, 1500, neck_queue),
        ],
        flows: vec![],
        fairness_flows: None,
        routing: Default::default(),
    }
}

/// A dumbbell: left{i} - router_left - router_right - right{i}, no flows yet.
pub fn dumbbell(
    pairs: usize,
    access_bps: u64,
    access_delay_ns: u64,
    neck_bps: u64,
    neck_delay_ns: u64,
    neck_queue: QueueConfig,
) -> ScenarioConfig {
    let mut nodes = vec![
        node("router_left", NodeKind::Router),
        node("router_right", NodeKind::Router),
    ];
    let mut links = vec![link(
        "router_left",
        "router_right",
        neck_bps,
        neck_delay_ns,
        1500,
        neck_queue,
    )];
    for i in 0..pairs {
        let (l, r) = (format!("left{i}"), format!("right{i}"));
        nodes.push(node(&l, NodeKind::Host));
        nodes.push(node(&r, NodeKind::Host));
        links.push(link(
            &l,
            "router_left",
            access_bps,
            access_delay_ns,
            1500,
            droptail(10_000),
        ));
        links.push(link(
            "router_right",
            &r,
            access_bps,
            access_delay_ns,
            1500,
            droptail(10_000),
        ));
    }
    ScenarioConfig {
        simulation: ten_seconds(),
        nodes,
        links,
        flows: vec![],
        fairness_flows: None,
        routing: Default::default(),
    }
}

/// TCP with tcplab's defaults except: NewReno, ACK every segment, IW 10, no handshake
/// changes (handshake on), 64 MiB receive buffer.
pub fn tcp() -> TcpConfig {
    TcpConfig {
        cc: CcConfig::newreno(),
        recovery: None,
        sack: false,
        mss_bytes: None,
        initial_window_segments: 10,
        handshake: true,
        ack_every: 1,
        delayed_ack_ns: 40_000_000,
        receive_buffer: Amount {
            value: 64 << 20,
            unit: SizeUnit::Bytes,
        },
        max_window: None,
        timestamps: false,
        window_scaling: true,
        receive_autotuning: false,
        small_queues: false,
        rto: RtoConfig {
            initial_ns: 1_000_000_000,
            min_ns: 200_000_000,
            max_ns: 60_000_000_000,
            fixed_ns: None,
            floor: RtoFloor::Rto,
            tick_ns: None,
        },
        pacing: false,
        send_jitter_ns: 0,
        limited_transmit: true,
        limited_transmit_after_timeout: false,
        restart_rto_on_duplicates: false,
        rtt_samples_from_duplicates: false,
        thin_linear_timeouts: false,
        slow_start_at_ssthresh: false,
        newreno_timer: NewRenoTimer::Impatient,
        timeout_ssthresh: TimeoutSsthresh::FlightSize,
        timeout_reduction: TimeoutReduction::OncePerWindow,
        detect_lost_retransmits: true,
        sack_blocks: 4,
        loss_detection: tcplab_engine::config::LossDetection::Rack,
        tail_loss_probe: true,
        dsack: true,
        option_sizes: Default::default(),
        undo: true,
        frto: true,
        cwnd_counting: CwndCounting::Bytes,
        rtt_sampling: RttSampling::EveryAck,
        delay_growth: false,
        reduction: Reduction::Pipe,
        sack_after_timeout: Default::default(),
    }
}

/// A TCP flow.
pub fn tcp_flow(name: &str, from: &str, to: &str, tcp: TcpConfig, app: AppConfig) -> FlowConfig {
    FlowConfig {
        transport: TransportConfig::Tcp(tcp),
        app,
        ..udp_flow(name, from, to, AppConfig::Bulk)
    }
}

/// `n` bulk TCP flows left{i} → right{i} of a [`dumbbell`], each with `tcp`, flow i
/// starting at i × `spacing_ns`.
#[allow(dead_code)] // not every test file that includes `common` uses it
pub fn add_bulk_flows(cfg: &mut ScenarioConfig, n: usize, tcp: &TcpConfig, spacing_ns: u64) {
    for i in 0..n {
        let mut f = tcp_flow(
            &format!("f{i}"),
            &format!("left{i}"),
            &format!("right{i}"),
            tcp.clone(),
            AppConfig::Bulk,
        );
        f.start_ns = i as u64 * spacing_ns;
        cfg.flows.push(f);
    }
}

/// SCTP with RFC 9260's defaults, no handshake, buffers that never limit.
pub fn sctp() -> SctpConfig {
    SctpConfig {
        streams: 1,
        message_bytes: None,
        unordered: false,
        handshake: false,
        nodelay: false,
        cc: CcConfig::Sctp(Default::default()),
        receive_buffer: Amount {
            value: 1 << 30,
            unit: SizeUnit::Bytes,
        },
        send_buffer: Amount {
            value: 1 << 30,
            unit: SizeUnit::Bytes,
        },
        rto: RtoConfig {
            initial_ns: 3_000_000_000,
            min_ns: 1_000_000_000,
            max_ns: 60_000_000_000,
            fixed_ns: None,
            floor: RtoFloor::Rto,
            tick_ns: None,
        },
        fast_retransmit_after: 3,
        sack_every: 2,
        sack_delay_ns: 200_000_000,
        max_burst: 4,
        burst_limit: BurstLimit::Packets,
        flight_accounting: Default::default(),
        recovery: Default::default(),
    }
}

/// An SCTP flow.
pub fn sctp_flow(name: &str, from: &str, to: &str, sctp: SctpConfig, app: AppConfig) -> FlowConfig {
    FlowConfig {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        transport: TransportConfig::Sctp(sctp),
        app,
        start_ns: 0,
        stop_ns: None,
        path: None,
        origin: format!("flow[{name}]"),
    }
}
