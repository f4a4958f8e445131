//! Cost of neqo-fc's hot path: accounting one received 1,200-byte packet
//! and retiring it (stream + connection), one tuning step, and the calls a
//! peer can make with 10,000 streams open, all held back by the budget.
//!
//! Run: `cargo bench --bench fc_hot_path` (about 20 s; add `-- --quick`
//! for a rougher pass). Targets: ≤ 50 ns per packet through
//! `ConnectionFlow`; ≤ 1 µs per `next_update`, `on_data` and
//! `reset_received` at 10,000 held-back streams.

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use neqo_fc::{
    Config, Connection, ConnectionFlow, ConnectionReceiver, Direction, ExcessTuner,
    ReceiverFlowControl, Role, Rtt, StreamId, ValidConfig,
};

const PACKET: u64 = 1200;

/// A stream and its connection whose limits never run out during a bench.
fn unlimited() -> (
    ReceiverFlowControl<StreamId>,
    ReceiverFlowControl<Connection>,
) {
    let config = neqo_fc_sim::scenario::unlimited_windows(Config::default())
        .validate()
        .unwrap();
    (
        ReceiverFlowControl::new(StreamId(0), &config),
        ReceiverFlowControl::new(Connection, &config),
    )
}

/// Controllers with `window` as their initial (and maximum) window.
fn with_window(window: u64) -> ValidConfig {
    Config {
        initial_stream_window: window,
        initial_connection_window: window,
        ..Config::default()
    }
    .validate()
    .unwrap()
}

/// One packet: `on_data` + `consume` + `retire` (stream, connection) and the
/// `update_due` checks a stack makes after it.
#[inline]
fn account(
    stream: &mut ReceiverFlowControl<StreamId>,
    conn: &mut ReceiverFlowControl<Connection>,
    end: u64,
) -> bool {
    let Ok(new) = stream.on_data(end, false) else {
        return false;
    };
    if conn.consume(new).is_err() {
        return false;
    }
    let Ok(read) = stream.retire_to(end) else {
        return false;
    };
    if conn.add_retired(read).is_err() {
        return false;
    }
    stream.update_due() | conn.update_due()
}

fn packet_accounting(c: &mut Criterion) {
    let mut g = c.benchmark_group("packet");
    g.bench_function("account_and_retire_1200B", |b| {
        let (mut stream, mut conn) = unlimited();
        let mut end = 0;
        b.iter(|| {
            end += PACKET;
            black_box(account(&mut stream, &mut conn, black_box(end)))
        });
    });
    // The realistic loop: a 1 Gbit/s, 50 ms path, default configuration,
    // sending MAX_STREAM_DATA / MAX_DATA whenever due (amortised tuning).
    g.bench_function("account_retire_and_update_1200B", |b| {
        let config = ValidConfig::default();
        let tuner = ExcessTuner::DEFAULT;
        let rtt = Rtt::from_sample(Duration::from_millis(50));
        // A stream seeded as `ConnectionFlow` seeds one.
        let seed = ConnectionFlow::new(config)
            .open_stream(StreamId(0))
            .unwrap()
            .fc()
            .window();
        let mut conn = ReceiverFlowControl::new(Connection, &config);
        let mut stream = ReceiverFlowControl::new(StreamId(0), &config);
        stream.raise_window(seed, neqo_fc::ChangeReason::Seed);
        let mut now = Instant::now();
        let mut end = 0;
        b.iter(|| {
            end += PACKET;
            now += Duration::from_nanos(9_600); // 1,200 B at 1 Gbit/s
            if !account(&mut stream, &mut conn, end) {
                return 0;
            }
            let mut sent = 0;
            if let Some(u) = stream.send_update(now, rtt, &tuner) {
                conn.cover_stream_window(stream.window(), config.connection_floor);
                sent = u.limit;
            }
            if let Some(u) = conn.send_update(now, rtt, &tuner) {
                sent ^= u.limit;
            }
            black_box(sent)
        });
    });
    // The same loop through `ConnectionFlow`, as neqo's integration calls
    // it: the budget's books and the connection floor (re-covered as
    // bytes park, before each MAX_DATA) on every packet, the rebalancing
    // pass when its timer is due, window changes drained as a stack
    // writes them to qlog.
    g.bench_function("connection_flow_account_retire_and_update_1200B", |b| {
        let mut flow = ConnectionFlow::new(ValidConfig::default());
        let mut s = flow.open_stream(StreamId(0)).unwrap();
        let rtt = Rtt::from_sample(Duration::from_millis(50));
        let mut now = Instant::now();
        let mut end = 0;
        b.iter(|| {
            end += PACKET;
            now += Duration::from_nanos(9_600);
            if flow.on_data(&mut s, end, false).is_err() || flow.retire_to(&mut s, end).is_err() {
                return 0;
            }
            if flow.next_timeout().is_some_and(|t| t <= now) {
                flow.on_timeout(now, rtt, |f| f(&mut s));
            }
            let mut sent = flow.stream_update(&mut s, now, rtt).unwrap_or(0);
            if flow.connection_update_due() {
                sent ^= flow.connection_update(now, rtt).unwrap_or(0);
            }
            black_box(flow.drain_changes().count());
            black_box(sent)
        });
    });
    g.finish();
}

fn tuning_step(c: &mut Criterion) {
    let tuner = ExcessTuner::DEFAULT;
    let rtt = Rtt::from_sample(Duration::from_millis(50));
    let window = 1 << 20;
    let config = with_window(window);
    let start = Instant::now();
    let mut g = c.benchmark_group("tuning_step");
    // Steady state: a quarter window retired every half RTT, so the excess
    // is negative and the window stays put; the full arithmetic runs.
    g.bench_function("send_update_steady", |b| {
        let mut s = ReceiverFlowControl::new(StreamId(0), &config);
        let mut now = start;
        b.iter(|| {
            let end = s.limit();
            let _ = s.on_data(end, false);
            let _ = s.retire_to(s.retired() + window / 4);
            now += Duration::from_millis(25);
            black_box(s.send_update(now, rtt, &tuner))
        });
    });
    // A step that grows the window (a whole window retired in one RTT).
    g.bench_function("send_update_grow", |b| {
        let mut s = ReceiverFlowControl::new(StreamId(0), &config);
        let _ = s.on_data(window, false);
        let _ = s.retire_to(window / 4);
        let _ = s.send_update(start, rtt, &tuner);
        let _ = s.on_data(s.limit(), false);
        let _ = s.retire_to(s.retired() + window);
        let now = start + Duration::from_millis(50);
        b.iter_batched(
            || s.clone(),
            |mut s| {
                let u = s.send_update(now, rtt, &tuner);
                debug_assert!(u.is_some_and(|u| u.change.is_some()));
                (u, s)
            },
            BatchSize::SmallInput,
        );
    });
    g.finish();
}

const MANY: u64 = 10_000;

fn peer_stream(index: u64) -> StreamId {
    StreamId::new(Role::Client, Direction::Uni, index)
}

/// A server with `MANY` of the peer's streams open, each seeded and read
/// to its first byte, every update written that the budget let through:
/// the rest are held back.
fn held_back(start: Instant, rtt: Option<Rtt>) -> ConnectionReceiver {
    let config = Config {
        max_streams_uni: MANY,
        ..Config::default()
    }
    .validate()
    .unwrap();
    let mut rx = ConnectionReceiver::new(Role::Server, config);
    for i in 0..MANY {
        rx.on_data(peer_stream(i), 1, false).unwrap();
        rx.retire_to(peer_stream(i), 1).unwrap();
    }
    while rx.next_update(start, rtt).is_some() {}
    assert!(!rx.update_pending());
    rx
}

/// Times `call` on `iters` streams of fresh [`held_back`] receivers (built
/// untimed), each stream at most once per receiver.
fn per_stream(
    iters: u64,
    start: Instant,
    rtt: Option<Rtt>,
    mut call: impl FnMut(&mut ConnectionReceiver, StreamId) -> neqo_fc::Res<u64>,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        let mut rx = held_back(start, rtt);
        let n = (iters - done).min(MANY);
        let t = Instant::now();
        for i in 0..n {
            black_box(call(&mut rx, peer_stream((i * 7_919) % MANY)).ok());
        }
        total += t.elapsed();
        done += n;
    }
    total
}

/// Per call, with 10,000 streams held back: what a stack calls per packet
/// (`next_update`) and what a peer's frames cause (`on_data` on any
/// stream, `reset_received`). Each timed run starts from a fresh receiver
/// (not timed) and touches each stream at most once.
fn many_streams(c: &mut Criterion) {
    let rtt = Rtt::from_sample(Duration::from_millis(50));
    let start = Instant::now();
    let mut g = c.benchmark_group("held_back_10k");
    g.bench_function("next_update", |b| {
        let mut rx = held_back(start, rtt);
        let now = start + Duration::from_millis(1);
        b.iter(|| black_box(rx.next_update(now, rtt)));
    });
    g.bench_function("on_data", |b| {
        b.iter_custom(|iters| per_stream(iters, start, rtt, |rx, id| rx.on_data(id, 2, false)));
    });
    g.bench_function("reset_received", |b| {
        b.iter_custom(|iters| per_stream(iters, start, rtt, |rx, id| rx.reset_received(id, 1)));
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = packet_accounting, tuning_step, many_streams
}
criterion_main!(benches);
