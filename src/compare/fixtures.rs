//! A report to build table tests on, without running the simulator.

use crate::{report::RunReport, spec::RunSpec, tuners::TunerChoice, workloads::MatrixWorkload};

/// A report of `tuner` on `profile` / `workload` (a quarter-size bulk
/// transfer on gbit-50ms underneath) that took `secs`, complete if `ok`,
/// with a peak stream window of 2 BDP.
pub fn report(profile: &str, workload: &str, tuner: &str, secs: f64, ok: bool) -> RunReport {
    let path = crate::profiles::find("gbit-50ms").unwrap().path();
    let w = MatrixWorkload::Bulk.on(&path, true);
    let spec = RunSpec::new(path, w, TunerChoice::parse(tuner).unwrap());
    let mut r = spec.failed_report(String::new());
    r.profile = profile.into();
    r.workload = workload.into();
    r.error = None;
    r.completed = ok;
    r.duration_s = secs;
    r.bytes = if ok { r.expected_bytes } else { 0 };
    r.peak_stream_window_bytes = 12_500_000;
    r
}
