//! What a run will cost before it starts (simulated time, simulator events,
//! wall time), estimated from the path and the workload so that `fc-lab
//! run` can warn before a run far beyond the usual. Rough by design: within
//! a factor of about two on the built-in profiles.

use std::time::Duration;

use neqo_fc_sim::scenario::ReaderSpeed;

use crate::spec::RunSpec;

/// Stream bytes a full-size packet carries (1,500-byte datagrams minus the
/// packet and frame headers, rounded down).
pub const PAYLOAD_PER_PACKET: u64 = 1_400;

/// Simulator events per data packet: its arrival, half an ACK arrival (one
/// ACK per two packets), and timers.
pub const EVENTS_PER_PACKET: f64 = 2.6;

/// Wall time of one event with a single stream open.
const NS_PER_EVENT: f64 = 600.0;

/// Extra wall time per event for each open stream (some per-packet work
/// scans the streams).
const NS_PER_EVENT_PER_STREAM: f64 = 5.0;

/// An estimate wall time above which `run` warns before starting.
pub const WARN_WALL: Duration = Duration::from_secs(30);

/// What a run is expected to cost.
///
/// Invariant: `bytes ≤` the workload's total; `simulated ≤` the time limit;
/// `wall` = `events` × the per-event cost for its streams.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Bytes the run can deliver before its time limit.
    pub bytes: u64,
    /// Simulated time it will take (the time limit when it cannot finish).
    pub simulated: Duration,
    /// True when the time limit comes before the workload is delivered.
    pub hits_time_limit: bool,
    /// Simulator events.
    pub events: f64,
    /// Wall time on one core.
    pub wall: Duration,
}

/// The time limit a spec runs with (the simulator's default: one hour).
#[must_use]
pub fn time_limit(spec: &RunSpec) -> Duration {
    spec.time_limit.unwrap_or(Duration::from_secs(3600))
}

/// Estimates the cost of `spec`.
#[must_use]
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub fn estimate(spec: &RunSpec) -> Cost {
    let total = spec.workload.total_bytes();
    // The slowest of the link and the reader sets the pace.
    let reader = match spec.workload.reader {
        ReaderSpeed::Unlimited => u64::MAX,
        ReaderSpeed::Rate(bps) | ReaderSpeed::Periodic { bps, .. } => bps,
    };
    // With cross traffic ours gets about half the link, and starts later.
    let cross = spec.path.cross;
    let link = spec.path.rate_bps.max(1) as f64;
    let share = if cross.is_some() { link / 2.0 } else { link };
    let rate = share.min(reader as f64).max(1.0);
    let lead = cross.map_or(0.0, |c| c.our_start().as_secs_f64());
    // Slow start takes about log2(BDP / 10 packets) round trips.
    let rtt = spec.path.rtt.as_secs_f64();
    let ramp_rtts = (spec.path.bdp_bytes() as f64 / (10.0 * 1_500.0))
        .max(1.0)
        .log2()
        + 2.0;
    let needed = total as f64 * 8.0 / rate + ramp_rtts * rtt;
    let limit = (time_limit(spec).as_secs_f64() - lead).max(0.0);
    let hits_time_limit = needed > limit;
    let seconds = needed.min(limit);
    let bytes = if hits_time_limit {
        ((rate / 8.0 * limit) as u64).min(total)
    } else {
        total
    };
    // The other connection fills what ours leaves of the link, from its
    // start to ours' end.
    let cross_bytes = cross.map_or(0.0, |c| {
        let span = (lead + seconds - c.cross_start().as_secs_f64()).max(0.0);
        (link / 8.0 * span - bytes as f64).max(0.0)
    });
    let packets = (bytes as f64 + cross_bytes) / PAYLOAD_PER_PACKET as f64;
    // A periodic reader wakes the receiver once per period.
    let wakeups = match spec.workload.reader {
        ReaderSpeed::Periodic { period, .. } => seconds / period.as_secs_f64().max(1e-9),
        _ => 0.0,
    };
    let events = packets * EVENTS_PER_PACKET + wakeups;
    let per_event = NS_PER_EVENT + NS_PER_EVENT_PER_STREAM * f64::from(spec.workload.streams);
    Cost {
        bytes,
        simulated: Duration::from_secs_f64(
            (lead + seconds).clamp(0.0, time_limit(spec).as_secs_f64()),
        ),
        hits_time_limit,
        events,
        wall: Duration::from_secs_f64((events * per_event / 1e9).min(1e12)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{profiles::find, tuners::TunerSpec, workloads::WorkloadSpec};
    use neqo_fc_sim::scenario::WorkloadKind;

    fn bulk(profile: &str, bytes: u64, streams: u32) -> RunSpec {
        let path = find(profile).unwrap().path();
        let workload = WorkloadSpec {
            name: "bulk".into(),
            kind: WorkloadKind::Bulk { bytes },
            streams,
            reader: ReaderSpeed::Unlimited,
            stall: None,
        };
        RunSpec::new(path, workload, TunerSpec::Default)
    }

    #[test]
    fn gigabit_gib_is_a_second_or_so() {
        // Measured: 1 GiB at 1 Gbit/s, 50 ms: ~1.9 M events, 0.6–1.1 s.
        let c = estimate(&bulk("gbit-50ms", 1 << 30, 1));
        assert!((1.5e6..3e6).contains(&c.events), "{c:?}");
        assert!(c.wall > Duration::from_millis(500) && c.wall < Duration::from_secs(3));
        assert!(!c.hits_time_limit);
        assert!(c.simulated > Duration::from_secs(8) && c.simulated < Duration::from_secs(11));
    }

    #[test]
    fn cross_traffic_costs_the_other_connection_too() {
        use neqo_fc_sim::scenario::CrossTraffic;
        let alone = estimate(&bulk("gbit-50ms", 1 << 30, 1));
        let mut spec = bulk("gbit-50ms", 1 << 30, 1);
        spec.path.cross = Some(CrossTraffic::First {
            lead: Duration::from_secs(3),
        });
        let shared = estimate(&spec);
        // Half the link for ours: twice the time, plus the lead; the link
        // full all along.
        assert!(shared.simulated > alone.simulated * 2 + Duration::from_secs(2));
        assert!(shared.events > 2.0 * alone.events, "{shared:?} {alone:?}");
        // A slow reader beside a bulk download: the other connection's
        // hour of gigabit is what costs, and the estimate says so.
        spec.workload.reader = ReaderSpeed::Rate(1_000);
        let slow = estimate(&spec);
        assert!(
            slow.hits_time_limit && slow.wall > WARN_WALL * 10,
            "{slow:?}"
        );
    }

    #[test]
    fn huge_runs_are_flagged_and_slow_links_hit_the_limit() {
        let c = estimate(&bulk("gbit-50ms", 30 << 30, 1));
        assert!(c.wall > WARN_WALL, "{c:?}");
        let many = estimate(&bulk("gbit-50ms", 1 << 30, 10_000));
        assert!(many.wall > Duration::from_secs(3600), "{many:?}");
        // 1 GiB over satellite (~480 kbit/s) takes ~5 h: the 1 h limit.
        let slow = estimate(&bulk("satellite", 1 << 30, 1));
        assert!(slow.hits_time_limit);
        assert_eq!(slow.simulated, Duration::from_secs(3600));
        assert!(slow.bytes < 1 << 30);
    }
}
