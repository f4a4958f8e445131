//! The blind-start study's finding: the credit a receiver gives before it
//! can measure the rate has no value that holds at every rate.

use fc_lab::compare::run_all;
use fc_studies::blind_start::{self, SWEEPS, of_value};

const MBIT: f64 = 1e6;

/// The credit a receiver gives before it can measure the rate — a lone
/// stream's first window, ten streams' connection start — and no value
/// holds at every rate: on the means over nine RTTs (20–100 ms) at eight
/// rates (2 Mbit/s to 10 Gbit/s), each value of each sweep is behind the
/// better peer at some rate or holds more memory than both. The
/// directions: the shipped 512 KiB seed trails on a fast path and the
/// largest first window holds more memory on a slow one; the smallest
/// connection start trails on some path and the largest holds more memory
/// on a slow one.
#[test]
fn no_blind_start_holds_at_every_rate() {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let points = blind_start::points(&run_all(&blind_start::specs(), threads, &|_| {}));
    for p in &points {
        eprintln!(
            "{:<13} {} {:>5} KiB {:>6.0} Mbit/s: {:+5.1} % vs better peer, memory {:+6.1} % vs larger{}",
            SWEEPS[p.sweep].workload.name(),
            SWEEPS[p.sweep].knob.flag(),
            p.value >> 10,
            p.rate_bps as f64 / MBIT,
            p.gap() * 100.0,
            p.memory_excess() * 100.0,
            if p.holds() { "" } else { "  FAILS" }
        );
        assert_eq!(p.incomplete, 0, "{p:?}");
    }
    for (i, sweep) in SWEEPS.iter().enumerate() {
        assert!(
            blind_start::values_that_hold_everywhere(&points, i).is_empty(),
            "{}: a value holds everywhere; adopt it",
            sweep.workload.name()
        );
    }
    let [small, large, ten] = [0, 1, 2].map(|i| SWEEPS[i].bytes());
    let fast = |p: &&blind_start::Point| p.rate_bps >= 500_000_000;
    let slow = |p: &&blind_start::Point| p.rate_bps <= 200_000_000;
    assert!(
        of_value(&points, 0, small[0])
            .filter(fast)
            .any(|p| p.behind()),
        "the shipped seed no longer trails on a fast path"
    );
    assert!(
        [(0, small[3]), (1, large[3])]
            .into_iter()
            .any(|(s, v)| of_value(&points, s, v)
                .filter(slow)
                .any(|p| p.more_memory())),
        "the largest first window no longer holds more memory on a slow path"
    );
    assert!(
        of_value(&points, 2, ten[0]).any(|p| p.behind()),
        "the smallest connection start no longer trails"
    );
    assert!(
        of_value(&points, 2, ten[3])
            .filter(slow)
            .any(|p| p.more_memory()),
        "the largest connection start no longer holds more memory on a slow path"
    );
}
