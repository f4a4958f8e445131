//! The numbers of one run as a flat record: what `--json` prints and
//! `report.json` holds. Units are in the field names (`_s` simulated
//! seconds, `_bps` bit/s, `_bytes` bytes); every field is always present,
//! non-finite numbers print as `null`.

use serde::{Deserialize, Serialize};

/// One run's summary.
///
/// Invariants: `goodput_bps = bytes × 8 / duration_s` (0 when the duration
/// is 0); `bdp_bytes = link_rate_bps × rtt_s / 8` rounded down;
/// `stream_completion_s.len() = streams` for completed runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Path name (`gbit-50ms`, `custom`, `gbit-50ms-custom`).
    pub profile: String,
    /// Canonical tuner name (`default`, `fixed:1MiB`, …).
    pub tuner: String,
    /// Workload name (`bulk`, `small-msgs-10`, `messages`, …).
    pub workload: String,
    /// PRNG seed.
    pub seed: u64,
    /// Runs this report stands for: 1, or in `compare` on a random path the
    /// seeds (`seed`, `seed + 1`, …) whose median-goodput run this is.
    pub seeds: u64,
    /// Bytes the client application read, all streams.
    pub bytes: u64,
    /// Bytes the workload was to deliver, all streams.
    pub expected_bytes: u64,
    /// Concurrent streams.
    pub streams: u32,
    /// Simulated time until the last byte was read (or the run stopped).
    pub duration_s: f64,
    /// `bytes × 8 / duration_s`.
    pub goodput_bps: f64,
    /// Bottleneck rate.
    pub link_rate_bps: u64,
    /// Round-trip propagation delay of the path.
    pub rtt_s: f64,
    /// Bandwidth-delay product.
    pub bdp_bytes: u64,
    /// Bottleneck queue capacity.
    pub queue_bytes: u64,
    /// Random loss probability on the data direction.
    pub loss_rate: f64,
    /// Largest jitter on the data direction.
    pub jitter_s: f64,
    /// Cross traffic (`--cross`): `first:3s`, `second:2s`; `null` = none.
    #[serde(default)]
    pub cross: Option<String>,
    /// With cross traffic, the other connection's goodput while ours ran
    /// (0 without).
    #[serde(default)]
    pub cross_goodput_bps: f64,
    /// Rate of the reverse direction (ACKs, MAX_*); the link rate unless
    /// set apart (`--reverse-rate`).
    pub reverse_rate_bps: u64,
    /// Random loss probability on the reverse direction.
    pub reverse_loss_rate: f64,
    /// Client read rate limit; `null` = reads as fast as data arrives.
    pub reader_rate_bps: Option<u64>,
    /// A periodic reader's wake-up interval (`null`: reads as data comes).
    pub reader_period_s: Option<f64>,
    /// Congestion control (`cubic`, `newreno`).
    pub cc: String,
    /// Transport model: `default`, `neqo`, or one with overrides
    /// (`neqo,pacing=rfc9002`).
    pub transport: String,
    /// Share of the window retired before an update is sent.
    pub update_fraction: f64,
    /// The connection memory budget was on (`default`, `…+budget`).
    pub memory_budget: bool,
    /// Stalled readers as `N:DURATION@START` (`50:2s@1s`, `1:forever@1s`);
    /// `null` when every reader keeps reading.
    pub stall: Option<String>,
    /// Initial stream window advertised.
    pub initial_stream_window_bytes: u64,
    /// Initial connection window advertised (`initial_max_data`).
    #[serde(default)]
    pub initial_conn_window_bytes: u64,
    /// The cap on stream windows the run's tuner had
    /// (`Config::max_stream_window`; 2^62 − 1 for `unlimited`, 0 in a
    /// report written before it was recorded).
    #[serde(default)]
    pub max_stream_window_bytes: u64,
    /// Largest stream receive window at the client.
    pub peak_stream_window_bytes: u64,
    /// Largest connection receive window at the client.
    pub peak_conn_window_bytes: u64,
    /// Largest receive-buffer occupancy (out of order + unread).
    pub peak_recv_buffer_bytes: u64,
    /// Largest credit outstanding over all streams (limit − read).
    pub peak_total_credit_bytes: u64,
    /// Largest exposure: the most the peer could have made the client
    /// buffer at once, `min(MAX_DATA − read, Σ stream credit)` (≤ the
    /// total credit; smaller where the connection window binds).
    #[serde(default)]
    pub peak_exposure_bytes: u64,
    /// Largest congestion window.
    pub peak_cwnd_bytes: u64,
    /// Datagrams dropped on either path.
    pub drops: u64,
    /// Packets the sender declared lost.
    pub packets_lost: u64,
    /// Datagrams a CoDel bottleneck marked CE (with ECN; both directions).
    pub ce_marks: u64,
    /// Congestion events the sender started on ECN-CE reports.
    pub ecn_congestion_events: u64,
    /// Where the sender's ECN validation ended: `off`, `testing`,
    /// `capable`, or `failed: <why>` (RFC 9000 §13.4.2).
    #[serde(default)]
    pub ecn_validation: String,
    /// Stream bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Time the sender had data and cwnd but no flow-control credit
    /// (`fc_link_idle_s + fc_blocked_link_busy_s`).
    pub fc_blocked_s: f64,
    /// Of that, time the bottleneck link sat idle: link time lost to flow
    /// control (the number to look at).
    pub fc_link_idle_s: f64,
    /// Of that, time data queued earlier still kept the link busy (no
    /// throughput lost yet).
    pub fc_blocked_link_busy_s: f64,
    /// MAX_DATA + MAX_STREAM_DATA frames sent by the client.
    pub window_updates_sent: u64,
    /// DATA_BLOCKED + STREAM_DATA_BLOCKED frames sent by the server.
    pub blocked_frames_sent: u64,
    /// Busy time of the forward bottleneck / duration.
    pub link_utilisation: f64,
    /// Minimum RTT the sender measured.
    pub min_rtt_s: f64,
    /// Smoothed RTT at the end.
    pub final_srtt_s: f64,
    /// Every stream completed.
    pub completed: bool,
    /// Why the run ended: `completed`, `connection_error`, `time_limit`
    /// (the simulated `--time-limit`), `idle` (nothing left to happen with
    /// data undelivered: a stall), `stopped` (`--max-wall`).
    pub end: String,
    /// Transport error that closed the connection (`"0x3 reason"`), or a
    /// failure of the run itself; `null` when none.
    pub error: Option<String>,
    /// Jain's fairness index over the streams' goodputs (1 = equal).
    pub fairness_index: f64,
    /// Time each stream's last byte was read, by stream index.
    pub stream_completion_s: Vec<f64>,
    /// Largest connection memory budget in force (0 without a budget).
    pub peak_budget_bytes: u64,
    /// Times the credit outstanding exceeded the budget (must be 0).
    pub budget_violations: u64,
    /// With stalled readers: goodput of the streams that kept reading,
    /// during the stall; `null` otherwise.
    pub stall_goodput_bps: Option<f64>,
    /// Bytes that failed verification (`--verify`; must be 0).
    pub verify_failures: u64,
    /// Simulator events processed.
    pub events: u64,
    /// Fingerprint of the event stream (hex), for determinism checks.
    pub event_hash: String,
}

impl RunReport {
    /// Peak stream window as a multiple of the BDP: ∞ for an unlimited
    /// window ([`crate::format::UNLIMITED_BYTES`] or more) or a zero BDP.
    #[must_use]
    pub fn window_bdp(&self) -> f64 {
        over_bdp(self.peak_stream_window_bytes, self.bdp_bytes)
    }

    /// Peak credit outstanding over all streams as a multiple of the BDP
    /// (∞ when unlimited).
    #[must_use]
    pub fn credit_bdp(&self) -> f64 {
        over_bdp(self.peak_total_credit_bytes, self.bdp_bytes)
    }

    /// The peak memory figures in bytes: stream window, total credit,
    /// exposure, receive buffer.
    #[must_use]
    pub const fn memory_figures(&self) -> [u64; 4] {
        [
            self.peak_stream_window_bytes,
            self.peak_total_credit_bytes,
            self.peak_exposure_bytes,
            self.peak_recv_buffer_bytes,
        ]
    }

    /// Peak memory budget as a multiple of the BDP (0 without a budget).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn budget_bdp(&self) -> f64 {
        self.peak_budget_bytes as f64 / self.bdp_bytes as f64
    }

    /// Peak receive buffer as a multiple of the BDP.
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn buffer_bdp(&self) -> f64 {
        self.peak_recv_buffer_bytes as f64 / self.bdp_bytes as f64
    }

    /// Goodput as a share of the link rate (0..=1 in practice).
    #[must_use]
    #[allow(clippy::cast_precision_loss)]
    pub fn link_share(&self) -> f64 {
        self.goodput_bps / self.link_rate_bps as f64
    }

    /// True when the stream-window cap held the run back: its peak stream
    /// window reached the cap and the link sat idle for lack of credit
    /// for more than 1 % of the run. Never for `unlimited`.
    #[must_use]
    pub fn cap_limited(&self) -> bool {
        let cap = self.max_stream_window_bytes;
        cap > 0
            && cap < crate::format::UNLIMITED_BYTES
            && self.peak_stream_window_bytes >= cap
            && self.fc_link_idle_s > 0.01 * self.duration_s
    }

    /// True when the run delivered everything without an error.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.completed && self.error.is_none()
    }
}

/// `bytes / bdp`, ∞ for unlimited windows.
#[allow(clippy::cast_precision_loss)]
fn over_bdp(bytes: u64, bdp: u64) -> f64 {
    if bytes >= crate::format::UNLIMITED_BYTES {
        f64::INFINITY
    } else {
        bytes as f64 / bdp as f64
    }
}

#[cfg(test)]
mod tests {
    use crate::{profiles::find, spec::RunSpec, tuners::TunerChoice, workloads::MatrixWorkload};

    #[test]
    fn budget_and_stall_fields_follow_the_spec() {
        let path = find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::StallMix.on(&path, false);
        let spec = RunSpec::new(path, w, TunerChoice::parse("neqo+budget").unwrap());
        let mut r = spec.failed_report("x".to_owned());
        assert!(r.memory_budget);
        assert_eq!(r.stall.as_deref(), Some("50:2s@1s"));
        assert_eq!(r.tuner, "neqo+budget");
        assert_eq!(r.bdp_bytes, 6_250_000);
        r.peak_total_credit_bytes = 12_500_000;
        r.peak_budget_bytes = 3_125_000;
        assert_eq!(r.credit_bdp(), 2.0);
        assert_eq!(r.budget_bdp(), 0.5);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["stall"], "50:2s@1s");
        assert_eq!(json["memory_budget"], true);
        assert!(json["stall_goodput_bps"].is_null());

        let path = find("gbit-50ms").unwrap().path();
        let w = MatrixWorkload::Many100.on(&path, false);
        let off = RunSpec::new(path, w, TunerChoice::parse("default-budget").unwrap());
        let r = off.failed_report("x".to_owned());
        assert!(!r.memory_budget);
        assert_eq!(r.stall, None);
    }
}
