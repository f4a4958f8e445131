//! neqo-fc's hot path never allocates: a counting global allocator sees
//! zero allocations over 10,000 rounds of packet accounting, retiring,
//! updates (sent, lost, acknowledged, with window growth and seeding),
//! errors, and sender credit / blocked handling.
//!
//! `unsafe` is needed only for `GlobalAlloc`; neqo-fc itself forbids it.
#![allow(unsafe_code)]

use std::{
    alloc::{GlobalAlloc, Layout, System},
    cell::Cell,
    time::{Duration, Instant},
};

use neqo_fc::{
    Connection, ConnectionFlow, ConnectionReceiver, Error, ExcessTuner, ReceiverFlowControl, Role,
    Rtt, SenderFlowControl, StreamId, ValidConfig,
};

/// Forwards to the system allocator and counts allocations made on a
/// thread while that thread's `COUNTING` flag is set.
struct Counting;

thread_local! {
    /// Set only around the measured loop, on the test's own thread, so
    /// the harness's other threads do not disturb the count.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    /// This thread's count: tests measuring at the same time on other
    /// threads never add to it.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged; counting touches only const-initialised thread-locals.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn counter_sees_allocations() {
    // The instrument works: a Vec allocates once.
    let n = allocations_in(|| {
        std::hint::black_box(vec![1u8; 64]);
    });
    assert_eq!(n, 1);
}

/// Tallies, so the loop demonstrably exercised every path.
#[derive(Debug, Default)]
struct Tally {
    updates: u64,
    growth: u64,
    resends: u64,
    seeds: u64,
    errors: u64,
    blocked: u64,
}

#[test]
fn hot_path_does_not_allocate() {
    let config = ValidConfig::default();
    let tuner = ExcessTuner::DEFAULT;
    let rtt = Rtt::new(Duration::from_millis(60), Duration::from_millis(50));
    let min_rtt = Duration::from_millis(50);
    let mut conn = ReceiverFlowControl::new(Connection, &config);
    let mut stream = ReceiverFlowControl::new(StreamId(0), &config);
    // Seeding, the floor and the budget's books (streams that come and go);
    // its change log grows to its working size first.
    let mut flow = ConnectionFlow::new(config);
    let warm = flow.open_stream(StreamId(0)).unwrap();
    flow.close_stream(warm);
    flow.drain_changes().for_each(drop);
    let mut credit = SenderFlowControl::new(StreamId(0), stream.limit());
    let mut credit_conn = SenderFlowControl::new(Connection, conn.limit());
    let mut probe = SenderFlowControl::new(Connection, 0);
    let mut tally = Tally::default();

    let start = Instant::now();
    let allocations = allocations_in(|| {
        let mut now = start;
        for i in 0..10_000u64 {
            now += Duration::from_micros(10);
            // Sender: take credit for one packet; every 7th time, all the
            // credit it has (it then reports *_BLOCKED, below).
            let want = if i % 7 == 0 {
                credit.available().min(credit_conn.available())
            } else {
                1200
            };
            let n = credit.consume(want);
            credit_conn.consume(n);
            // A sender whose peer grants half a packet at a time: blocked
            // at every new limit, the report sometimes lost and re-sent.
            probe.update(probe.limit() + 600);
            probe.consume(1200);
            if probe.blocked() {
                tally.blocked += 1;
                if let Some(limit) = probe.blocked_needed() {
                    probe.blocked_sent();
                    if i % 3 == 0 {
                        probe.blocked_lost(limit);
                        probe.blocked_sent();
                    }
                }
            }
            // Receiver: account the packet and read it.
            let end = credit.used();
            let new = stream.on_data(end, false).unwrap();
            conn.consume(new).unwrap();
            // The sender reports *_BLOCKED at the limits it knows, which
            // the data just received bears out.
            if i % 7 == 0 {
                stream.blocked_received(credit.limit());
                conn.blocked_received(credit_conn.limit());
            }
            let read = stream.retire_to(end).unwrap();
            conn.add_retired(read).unwrap();
            // A peer misbehaving: errors are values, not allocations.
            if let Err(Error::FlowControl { .. }) = stream.on_data(stream.limit() + 1, false) {
                tally.errors += 1;
            }
            // Updates, sometimes lost and resent, then acknowledged.
            if let Some(u) = stream.send_update(now, rtt, &tuner) {
                tally.updates += 1;
                tally.growth += u64::from(u.change.is_some());
                conn.cover_stream_window(stream.window(), config.connection_floor);
                let mut limit = u.limit;
                if i % 2 == 0 {
                    stream.update_lost(limit);
                    if let Some(again) = stream.send_update(now, rtt, &tuner) {
                        tally.resends += 1;
                        limit = again.limit;
                    }
                }
                stream.update_acked(limit);
                credit.update(limit);
                credit.update(limit - 1); // a late, lower duplicate
            }
            if let Some(u) = conn.send_update(now, rtt, &tuner) {
                conn.update_lost(u.limit);
                conn.update_acked(u.limit);
                credit_conn.update(u.limit);
            }
            // A window-limited stream: a whole window read in one RTT grows
            // its window (the tuner's path that reports a change).
            if i % 10 == 0 {
                let w = config.initial_stream_window;
                let mut g = ReceiverFlowControl::new(StreamId(2), &config);
                let _ = g.on_data(w / 4, false);
                let _ = g.retire_to(w / 4);
                let _ = g.send_update(now, rtt, &tuner);
                // A whole window arrives and is read within one RTT.
                let _ = g.on_data(w / 4 + w, false);
                let _ = g.retire_to(w / 4 + w);
                let grew = g.send_update(now + min_rtt, rtt, &tuner);
                tally.growth += u64::from(grew.is_some_and(|u| u.change.is_some()));
            }
            // Streams come and go: seeding a new controller is a value too.
            if i % 1000 == 0 {
                let s = flow.open_stream(StreamId(4 * i + 4)).unwrap();
                tally.seeds += u64::from(s.seed() > s.fc().limit());
                flow.close_stream(s);
                flow.drain_changes().for_each(drop);
            }
        }
    });
    eprintln!("{tally:?}");
    assert_eq!(allocations, 0, "hot path allocated; {tally:?}");
    // The loop went through every path it claims to.
    assert!(tally.updates > 50, "{tally:?}");
    assert!(tally.growth >= 1000, "{tally:?}");
    assert!(tally.resends > 50, "{tally:?}");
    assert!(tally.seeds > 0, "{tally:?}");
    assert_eq!(tally.errors, 10_000, "{tally:?}");
    assert_eq!(tally.blocked, 10_000, "{tally:?}");
}

/// The connection-level receiver an embedding stack drives per packet —
/// data, reads, MAX_* frames, acks, the budget's rebalancing passes and the
/// change log — allocates nothing once its streams are open and its
/// buffers have grown to their working size.
#[test]
fn connection_receiver_steady_state_does_not_allocate() {
    let config = ValidConfig::default();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    let rtt = Rtt::from_sample(Duration::from_millis(20));
    let ids = [StreamId(0), StreamId(4), StreamId(8)];
    let mut offsets = [0u64; 3];
    let mut now = Instant::now();
    let step = |rx: &mut ConnectionReceiver<_>, now: Instant, offsets: &mut [u64; 3]| -> u64 {
        let mut frames = 0;
        for (k, id) in ids.iter().enumerate() {
            let limit = rx
                .stream(*id)
                .map_or(config.initial_stream_window, |s| s.limit());
            let end = (offsets[k] + 1200).min(limit);
            rx.on_data(*id, end, false).unwrap();
            rx.retire_to(*id, end).unwrap();
            offsets[k] = end;
        }
        if rx.next_timeout().is_some_and(|t| t <= now) {
            rx.on_timeout(now, rtt);
        }
        while let Some(u) = rx.next_update(now, rtt) {
            rx.update_acked(u);
            frames += 1;
        }
        for change in rx.drain_changes() {
            std::hint::black_box(change);
        }
        frames
    };
    // Warm up: open the streams, grow the windows and the buffers.
    for _ in 0..20_000 {
        now += Duration::from_micros(20);
        step(&mut rx, now, &mut offsets);
    }
    let mut frames = 0;
    let allocations = allocations_in(|| {
        for _ in 0..20_000 {
            now += Duration::from_micros(20);
            frames += step(&mut rx, now, &mut offsets);
        }
    });
    assert_eq!(allocations, 0, "steady state allocated");
    assert!(frames > 100, "the loop sent updates: {frames}");
}
