//! Many-streams runs for tuning the budget (a debugging aid; fc-lab's
//! `run --streams … --stall-readers …` is the user-facing way):
//! `cargo run --release -p neqo-fc-sim --example many -- RATE_MBIT RTT_MS STREAMS KIB [STALLED STALL_MS]`
//! (STALL_MS 0 = never resume). Environment: `NOBUDGET=1` turns the budget
//! off, `STALL_START=MS` (default 500), `DUMP=1` prints the time series from
//! `FROM=SECONDS`, `TRACE=FROM:TO` prints flow-control frames and events in
//! that window (`ALL=1`: every packet).

use std::time::Duration;

use neqo_fc_sim::{
    net::{PathConfig, bdp_bytes},
    run,
    scenario::{ReaderSpeed, Scenario, Stall, Workload, WorkloadKind},
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let rate = arg(1, 1000) * 1_000_000;
    let rtt = Duration::from_millis(arg(2, 50));
    let streams = arg(3, 100);
    let kib = arg(4, 1024);
    let stall_n = arg(5, 0);
    let stall_ms = arg(6, 2000);
    let path = PathConfig {
        rate_bps: Some(rate),
        queue_bytes: bdp_bytes(rate, rtt),
        delay: rtt / 2,
        ..PathConfig::default()
    };
    let (kind, stall) = if stall_n > 0 {
        (
            WorkloadKind::BulkPlus {
                bulk: 256 << 20,
                each: kib << 10,
            },
            Some(Stall {
                streams: stall_n as u32,
                start: Duration::from_millis(
                    std::env::var("STALL_START")
                        .ok()
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(500),
                ),
                duration: if stall_ms == 0 {
                    Duration::MAX
                } else {
                    Duration::from_millis(stall_ms)
                },
            }),
        )
    } else {
        (WorkloadKind::Bulk { bytes: kib << 10 }, None)
    };
    let workload = Workload {
        kind,
        streams: u32::try_from(streams).unwrap(),
        reader: ReaderSpeed::Unlimited,
        stall,
    };
    let mut s = Scenario::new(path, workload);
    if std::env::var("NOBUDGET").is_ok_and(|v| v == "1") {
        s.fc.budget = None;
    }
    if std::env::var("TRACE").is_ok() {
        s.trace = neqo_fc_sim::trace::TraceLevel::Full;
    }
    let r = run(&s);
    if let Ok(range) = std::env::var("TRACE") {
        let (a, b) = range.split_once(':').unwrap();
        let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
        for rec in &r.trace {
            let t = rec.time.as_secs_f64();
            if t >= a && t <= b {
                match &rec.event {
                    neqo_fc_sim::trace::TraceEvent::PacketSent { pn, frames, .. }
                    | neqo_fc_sim::trace::TraceEvent::PacketReceived { pn, frames, .. } => {
                        let fs: Vec<String> = frames
                            .iter()
                            .filter(|f| {
                                !matches!(
                                    f,
                                    neqo_fc_sim::quic::frame::Frame::Ack { .. }
                                        | neqo_fc_sim::quic::frame::Frame::Stream { .. }
                                )
                            })
                            .map(|f| format!("{f:?}"))
                            .collect();
                        let nstream = frames
                            .iter()
                            .filter(|f| matches!(f, neqo_fc_sim::quic::frame::Frame::Stream { .. }))
                            .count();
                        if !fs.is_empty() || std::env::var("ALL").is_ok() {
                            println!(
                                "{t:.6} {:?} {} pn {pn} streams {nstream} {}",
                                rec.endpoint,
                                if matches!(
                                    rec.event,
                                    neqo_fc_sim::trace::TraceEvent::PacketSent { .. }
                                ) {
                                    "SENT"
                                } else {
                                    "RECV"
                                },
                                fs.join(" ")
                            );
                        }
                    }
                    e => println!("{t:.6} {:?} {e:?}", rec.endpoint),
                }
            }
        }
    }
    let m = &r.metrics;
    if std::env::var("DUMP").is_ok_and(|v| v == "1") {
        let from: f64 = std::env::var("FROM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        for x in r
            .series
            .iter()
            .filter(|x| x.time.as_secs_f64() >= from)
            .take(80)
        {
            println!(
                "{:>7.3} win {:>9} conn {:>9} cwnd {:>9} infl {:>9} deliv {:>11} buf {:>9} credit {:>9}",
                x.time.as_secs_f64(),
                x.stream_window,
                x.conn_window,
                x.cwnd,
                x.bytes_in_flight,
                x.delivered,
                x.recv_buffer,
                x.total_credit
            );
        }
    }
    let bdp = bdp_bytes(rate, rtt) as f64;
    println!(
        "goodput {:.1} Mbit/s dur {:?} done {} credit {:.2} BDP budget {:.2} BDP viol {} recvbuf {:.2} BDP conn {:.2} stream {:.2} fair {:.3} stall_goodput {:?} err {:?}",
        m.goodput_bps / 1e6,
        m.duration,
        m.completed,
        m.peak_total_credit as f64 / bdp,
        m.peak_budget as f64 / bdp,
        m.budget_violations,
        m.peak_recv_buffer as f64 / bdp,
        m.peak_conn_window as f64 / bdp,
        m.peak_stream_window as f64 / bdp,
        m.fairness_index,
        m.stall_goodput_bps.map(|g| (g / 1e6).round()),
        m.error
    );
}
