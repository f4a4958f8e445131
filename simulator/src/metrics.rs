//! What a run measured. All quantities are simulated, hence deterministic.

use std::time::Duration;

use crate::{progress::RunEnd, quic::ecn_validation::EcnState};

/// One point of the sampled time series (for plots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Simulated time since start.
    pub time: Duration,
    /// Largest stream receive window at the client, bytes.
    pub stream_window: u64,
    /// Connection receive window at the client, bytes.
    pub conn_window: u64,
    /// Sender congestion window, bytes.
    pub cwnd: u64,
    /// Sender bytes in flight.
    pub bytes_in_flight: u64,
    /// Bytes the client application has read so far (all streams).
    pub delivered: u64,
    /// Bytes buffered at the client (received, not read), all streams.
    pub recv_buffer: u64,
    /// Credit outstanding summed over the client's streams (limit − read).
    pub total_credit: u64,
}

/// Results of one run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Bytes the client application read (all streams).
    pub bytes: u64,
    /// Time the last byte was read (or the run stopped).
    pub duration: Duration,
    /// True when every stream completed.
    pub completed: bool,
    /// `bytes × 8 / duration`.
    pub goodput_bps: f64,
    /// Time the forward bottleneck spent serialising / duration.
    pub link_utilisation: f64,
    /// Datagrams dropped on either path (queue, random loss, CoDel).
    pub drops: u64,
    /// Stream bytes sent more than once.
    pub retransmitted_bytes: u64,
    /// Packets declared lost by the sender.
    pub packets_lost: u64,
    /// Of those, packets acknowledged later after all (spurious losses);
    /// never more than `packets_lost`.
    pub spurious_losses: u64,
    /// Congestion events the sender undid because every loss behind them
    /// was spurious.
    pub undone_congestion_events: u64,
    /// Times the sender declared persistent congestion (RFC 9002 §7.6).
    pub persistent_congestion: u64,
    /// Datagrams a CoDel bottleneck marked CE instead of dropping, both
    /// directions (0 unless the transport uses ECN).
    pub ce_marks: u64,
    /// Congestion events the sender started on a rise in the peer's
    /// ECN-CE count (RFC 9002 Appendix B.7).
    pub ecn_congestion_events: u64,
    /// Where the sender's ECN validation (RFC 9000 §13.4.2) ended.
    pub ecn_state: EcnState,
    /// The sender's packet threshold at the end (3 unless spurious losses
    /// raised it; never above the transport's cap).
    pub packet_threshold: u64,
    /// Time the sender had data and congestion window but no flow-control
    /// credit (stream or connection), whether or not data queued earlier
    /// still kept the bottleneck busy.
    pub fc_blocked: Duration,
    /// The part of `fc_blocked` during which the bottleneck link sat idle:
    /// link time lost to flow control. `fc_blocked − fc_link_idle` is time
    /// blocked while the queue still fed the link (nothing lost yet).
    /// Invariant: `fc_link_idle ≤ fc_blocked`.
    pub fc_link_idle: Duration,
    /// Largest stream receive window at the client.
    pub peak_stream_window: u64,
    /// Largest connection receive window at the client.
    pub peak_conn_window: u64,
    /// Largest receive-buffer occupancy (out-of-order + unread), bytes.
    pub peak_recv_buffer: u64,
    /// Largest credit outstanding summed over streams (limit − read).
    pub peak_total_credit: u64,
    /// Largest exposure: the most the peer could have made the client
    /// buffer at once, `min(MAX_DATA − read, Σ stream credit)`. Credit
    /// summed over streams overstates a stack whose connection window is
    /// smaller than it. Invariant: `peak_exposure ≤ peak_total_credit`.
    pub peak_exposure: u64,
    /// Largest congestion window.
    pub peak_cwnd: u64,
    /// MAX_DATA + MAX_STREAM_DATA frames the client sent.
    pub window_updates_sent: u64,
    /// DATA_BLOCKED + STREAM_DATA_BLOCKED frames the server sent.
    pub blocked_frames_sent: u64,
    /// Per-stream completion times (time each stream's last byte was read), by stream index.
    pub stream_completion: Vec<Duration>,
    /// Jain's fairness index over the streams' goodputs (1.0 = equal).
    pub fairness_index: f64,
    /// Number of simulator events processed.
    pub events: u64,
    /// FNV-1a fingerprint of the event stream (determinism checks).
    pub event_hash: u64,
    /// Transport error that closed the connection, if any (code, reason).
    pub error: Option<(u64, String)>,
    /// Bytes whose content failed verification (verify mode; must be 0).
    pub verify_failures: u64,
    /// With stalled readers: goodput of the streams that do not stall,
    /// measured from the stall's start to its end (or the end of the run).
    pub stall_goodput_bps: Option<f64>,
    /// Largest memory budget in force (0 without a budget).
    pub peak_budget: u64,
    /// Times the credit outstanding was found above the budget (must be 0).
    pub budget_violations: u64,
    /// True when an endpoint's CONNECTION_CLOSE reached the other end.
    pub close_delivered: bool,
    /// Datagrams the paths duplicated (both directions).
    pub duplicated: u64,
    /// Datagrams the paths reordered (both directions).
    pub reordered: u64,
    /// Smoothed RTT at the end, at the sender.
    pub final_srtt: Duration,
    /// Minimum RTT seen by the sender.
    pub min_rtt: Duration,
    /// With cross traffic: bytes the other connection's client read while
    /// ours ran (from its start to `duration` after); else 0.
    pub cross_bytes: u64,
    /// `cross_bytes` over `duration`, bit/s.
    pub cross_goodput_bps: f64,
    /// Why the run ended.
    pub end: RunEnd,
}
