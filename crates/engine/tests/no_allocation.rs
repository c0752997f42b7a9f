//! The per-packet path allocates nothing once pools and queues have warmed up
//! (htsim's rule). A counting global allocator observes the whole process.

mod common;

use common::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use tcplab_engine::{SimTime, Simulation};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn saturated_dumbbell_runs_without_allocating_in_steady_state() {
    let mut cfg = dumbbell(
        10,
        1_000_000_000,
        1_000_000,
        100_000_000,
        20_000_000,
        droptail(100),
    );
    // The run goes on past the measured window: in its last RTT, packets that would
    // arrive after the end stay in the bottleneck's pipe instead of being cut through
    // to the next link, and that pipe grows once. That is the end of the run, not the
    // per-packet path.
    cfg.simulation.duration_ns = 25_000_000_000;
    for i in 0..10 {
        cfg.flows.push(udp_flow(
            &format!("f{i}"),
            &format!("left{i}"),
            &format!("right{i}"),
            cbr(15_000_000, 1000),
        ));
    }
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run_until(SimTime::from_secs(5));
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let events_before = sim.events();
    sim.run_until(SimTime::from_secs(20));
    let allocated = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let events = sim.events() - events_before;
    assert!(events > 500_000, "{events} events");
    assert_eq!(
        allocated, 0,
        "{allocated} allocations during {events} events"
    );
}
