//! # tcplab-emu
//!
//! The emulation backend's forwarder (issue #14, docs/emulation.md): one thread that
//! moves real IP packets between the hosts' TUN devices through an
//! [`EmulatedNetwork`] — the simulator's own link models — against the wall clock.
//!
//! Each host is a network namespace whose only interface is a TUN device; the caller
//! (tcplab's Python package) creates them and hands over their file descriptors as
//! [`Port`]s. Every packet a host sends is read here, stamped with the time since the
//! run's start and given to the network; every packet the network delivers is written
//! to its destination host's device when it is due. Between the two the thread sleeps
//! in `ppoll` until the next packet is due or a device has something to read, with
//! a timer slack of 1 ns so that it wakes on time.
//!
//! No allocation per packet: packet buffers are recycled through a free list.

#![warn(missing_docs)]

use std::collections::HashMap;
use std::io;
use std::os::fd::RawFd;
use tcplab_engine::emulate::{Delivery, EmulatedNetwork, Sent};
use tcplab_engine::SimTime;

/// A host's TUN device: the node it belongs to and the descriptor to read and write.
#[derive(Debug, Clone, Copy)]
pub struct Port {
    /// The host's node index in the scenario.
    pub node: u32,
    /// An open TUN device (`IFF_TUN | IFF_NO_PI`), made non-blocking here.
    pub fd: RawFd,
}

/// What the forwarder did, for the run's self-calibration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForwarderStats {
    /// Packets read from the hosts.
    pub read_packets: u64,
    /// Packets the network dropped at their first link (queue or loss model).
    pub dropped_at_entry: u64,
    /// Packets not for a host a flow of the scenario reaches.
    pub unroutable: u64,
    /// Packets written to their destination host.
    pub written_packets: u64,
    /// Writes the kernel refused (the packet is lost).
    pub write_failures: u64,
    /// Lateness of the written packets (write time − the model's due time), ns:
    /// mean, and the largest.
    pub lateness_mean_ns: f64,
    /// See `lateness_mean_ns`.
    pub lateness_max_ns: u64,
    /// Lateness distribution: counts of packets written within 0.05, 0.1, 0.2, 0.5,
    /// 1, 2, 5 ms and later of their due time.
    pub lateness_histogram: [u64; 8],
    /// Times the thread woke up.
    pub wakeups: u64,
}

/// Upper bounds of [`ForwarderStats::lateness_histogram`]'s buckets, ns (the last
/// bucket takes the rest).
pub const LATENESS_BOUNDS_NS: [u64; 7] = [
    50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000,
];

/// The current `CLOCK_MONOTONIC` time, ns: the clock every process of an emulated run
/// shares (the traffic generators stamp and bin with it too).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given; CLOCK_MONOTONIC exists
    // on every Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Reads at most this many packets from one device per wake-up, so that one busy host
/// cannot starve the others or delay due packets.
const READ_BATCH: usize = 64;

/// How far ahead of its wire a host's packets are taken: a host's interface takes a
/// packet once its link has at most this much left to send (a network card's small
/// transmit ring). Until then the packet waits in the host's own queue, where TCP
/// small queues see it, instead of leaving the host at once in a burst a real
/// interface would have paced.
const EGRESS_AHEAD: SimTime = SimTime(100_000);

/// Forwards packets between `ports` through `net` until the run's end (the scenario's
/// duration: as in the simulator, nothing moves after it) or until `stop` (a pipe's
/// read end) becomes readable or is closed. Time zero of the network is `start_ns` on
/// the monotonic clock ([`monotonic_ns`]); packets read before it count as sent at
/// zero. `max_packet` bounds a packet's size (the largest device MTU).
pub fn forward(
    net: &mut EmulatedNetwork,
    ports: &[Port],
    stop: RawFd,
    start_ns: u64,
    max_packet: usize,
) -> io::Result<ForwarderStats> {
    // SAFETY: prctl(PR_SET_TIMERSLACK) changes only this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    for p in ports {
        set_nonblocking(p.fd)?;
    }
    let port_of: HashMap<u32, Port> = ports.iter().map(|p| (p.node, *p)).collect();
    let mut polled: Vec<libc::pollfd> = ports
        .iter()
        .map(|p| p.fd)
        .chain([stop])
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let elapsed = || SimTime(monotonic_ns().saturating_sub(start_ns));
    let end = SimTime(net.config().simulation.duration_ns);
    let mut stats = ForwarderStats::default();
    let mut lateness_sum = 0f64;
    let mut free: Vec<Vec<u8>> = Vec::new();
    let mut due: Vec<Delivery> = Vec::new();
    // Per port: when its interface was due to free, if the last wait left the host
    // unheard because its interface was busy (see below).
    let mut held_until: Vec<Option<SimTime>> = vec![None; ports.len()];
    loop {
        let now = elapsed();
        net.advance(now, &mut due);
        for d in due.drain(..) {
            let port = port_of[&d.to];
            // How late this packet is handed over: the host's reply is dated as if
            // it had come on time, so a late forwarder (a busy core) does not make
            // the replies to a late batch look like a burst.
            let behind = elapsed().as_ns().saturating_sub(d.due.as_ns());
            // SAFETY: writing an initialised buffer to an open descriptor.
            let n = unsafe { libc::write(port.fd, d.packet.as_ptr().cast(), d.packet.len()) };
            if n < 0 {
                stats.write_failures += 1;
            } else {
                stats.written_packets += 1;
                let late = elapsed().as_ns().saturating_sub(d.due.as_ns());
                lateness_sum += late as f64;
                stats.lateness_max_ns = stats.lateness_max_ns.max(late);
                let bucket = LATENESS_BOUNDS_NS
                    .iter()
                    .position(|&b| late <= b)
                    .unwrap_or(7);
                stats.lateness_histogram[bucket] += 1;
            }
            let mut buffer = d.packet;
            buffer.clear();
            free.push(buffer);
            // The write ran the host's stack: an ACK it sent in reply is taken now,
            // not left to pile up with the next ones until this batch of writes is
            // done (which sends ACKs, and then data, in bursts the simulator would
            // not have), and dated from the packet's due time.
            let on_time = || SimTime(elapsed().as_ns().saturating_sub(behind));
            read_device(port, net, &mut free, &mut stats, max_packet, on_time);
        }
        if now >= end {
            break;
        }
        // A host held back with a packet waiting while its interface was busy: that
        // packet was waiting when the interface freed (a real card would have started
        // it then), and this thread woke late for it. Taken at once and dated from
        // then, the link does not idle for the thread's lateness (0.1-5 ms a wake-up
        // under load, which left an overloaded 20 Mb/s link idle up to a quarter of
        // the time).
        for (port, held) in ports.iter().zip(held_until.iter_mut()) {
            if let Some(free_at) = held.take() {
                if interface_free_at(net, port.node) <= elapsed() {
                    let behind = elapsed().as_ns().saturating_sub(free_at.as_ns());
                    let on_time = || SimTime(elapsed().as_ns().saturating_sub(behind));
                    read_device(*port, net, &mut free, &mut stats, max_packet, on_time);
                }
            }
        }
        // Hosts whose interface is still busy are not listened to until it is free.
        let mut wake = net.next_due().map_or(end, |t| t.min(end));
        for ((p, port), held) in polled.iter_mut().zip(ports).zip(held_until.iter_mut()) {
            let free_at = interface_free_at(net, port.node);
            p.fd = if free_at <= elapsed() { port.fd } else { -1 };
            if p.fd < 0 {
                wake = wake.min(free_at);
                if held.is_none() && has_waiting(port.fd) {
                    *held = Some(free_at);
                }
            }
        }
        wait(
            &mut polled,
            Some(wake.as_ns().saturating_sub(elapsed().as_ns())),
        )?;
        stats.wakeups += 1;
        if polled.last().is_some_and(|p| p.revents != 0) {
            break;
        }
        for (p, port) in polled.iter().zip(ports) {
            if p.revents & libc::POLLIN != 0 {
                read_device(*port, net, &mut free, &mut stats, max_packet, elapsed);
            }
        }
    }
    if stats.written_packets > 0 {
        stats.lateness_mean_ns = lateness_sum / stats.written_packets as f64;
    }
    Ok(stats)
}

/// When host `node`'s interface can take its next packet ([`EGRESS_AHEAD`]).
fn interface_free_at(net: &EmulatedNetwork, node: u32) -> SimTime {
    SimTime(
        net.egress_free_at(node)
            .as_ns()
            .saturating_sub(EGRESS_AHEAD.as_ns()),
    )
}

/// Reads what `port`'s host has sent into the network, each packet stamped with the
/// time it was read, while its interface can take more (at most [`READ_BATCH`]).
fn read_device(
    port: Port,
    net: &mut EmulatedNetwork,
    free: &mut Vec<Vec<u8>>,
    stats: &mut ForwarderStats,
    max_packet: usize,
    elapsed: impl Fn() -> SimTime,
) {
    for _ in 0..READ_BATCH {
        if interface_free_at(net, port.node) > elapsed() {
            return;
        }
        let mut buffer = free.pop().unwrap_or_else(|| Vec::with_capacity(max_packet));
        buffer.reserve(max_packet);
        // SAFETY: reading into the buffer's spare capacity, then keeping only the
        // bytes the kernel wrote.
        let n = unsafe { libc::read(port.fd, buffer.as_mut_ptr().cast(), buffer.capacity()) };
        if n <= 0 {
            free.push(buffer);
            return;
        }
        unsafe { buffer.set_len(n as usize) };
        stats.read_packets += 1;
        match net.send(elapsed(), port.node, buffer) {
            Sent::Admitted => {}
            Sent::Dropped => stats.dropped_at_entry += 1,
            Sent::Unroutable => stats.unroutable += 1,
        }
    }
}

/// Whether `fd` has a packet to read now (a poll that does not wait).
fn has_waiting(fd: RawFd) -> bool {
    let mut one = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: polling one valid pollfd without waiting.
    unsafe { libc::poll(&mut one, 1, 0) == 1 && one.revents & libc::POLLIN != 0 }
}

/// Sleeps until a descriptor of `polled` is ready or `timeout` ns have passed
/// (forever without one); an interrupted wait returns early.
fn wait(polled: &mut [libc::pollfd], timeout: Option<u64>) -> io::Result<()> {
    for p in polled.iter_mut() {
        p.revents = 0;
    }
    let ts = timeout.map(|ns| libc::timespec {
        tv_sec: (ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (ns % 1_000_000_000) as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `polled` is a valid array of pollfd of the given length.
    let r = unsafe {
        libc::ppoll(
            polled.as_mut_ptr(),
            polled.len() as libc::nfds_t,
            ts_ptr,
            std::ptr::null(),
        )
    };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wait returns when the stop pipe becomes readable, and not before a timeout
    /// that has not yet passed.
    #[test]
    fn wait_wakes_on_a_ready_descriptor_and_on_time() {
        let mut fds = [0; 2];
        // SAFETY: pipe() fills two descriptors.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let mut polled = [libc::pollfd {
            fd: fds[0],
            events: libc::POLLIN,
            revents: 0,
        }];
        let t = monotonic_ns();
        wait(&mut polled, Some(20_000_000)).unwrap();
        let slept = monotonic_ns() - t;
        assert!(slept >= 20_000_000, "{slept}");
        assert_eq!(polled[0].revents, 0);
        assert_eq!(unsafe { libc::write(fds[1], [1u8].as_ptr().cast(), 1) }, 1);
        wait(&mut polled, None).unwrap();
        assert_ne!(polled[0].revents & libc::POLLIN, 0);
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
    }
}
