//! Counters and peaks of one endpoint: what it observed, never what it
//! decides. The endpoint calls the `on_*` methods as things happen; the
//! simulation reads the fields at the end of a run.

use std::time::Duration;

use neqo_fc::{Subject, WindowChange};

/// Counters and peaks of one endpoint.
///
/// Invariants: every field only grows (peaks are maxima, counters sums);
/// `budget_violations` stays 0 while `neqo_fc`'s budget holds.
#[derive(Clone, Debug, Default)]
pub struct ConnStats {
    /// Stream bytes sent again after a loss or PTO.
    pub retransmitted_bytes: u64,
    /// Packets declared lost.
    pub packets_lost: u64,
    /// Total time flow-control blocked with data and cwnd room.
    pub fc_blocked: Duration,
    /// Peak stream receive window.
    pub peak_stream_window: u64,
    /// Peak connection receive window.
    pub peak_conn_window: u64,
    /// Peak receive buffer (bytes received, not read).
    pub peak_recv_buffer: u64,
    /// Peak credit outstanding over streams.
    pub peak_total_credit: u64,
    /// Peak exposure: the most the peer could have made us buffer at
    /// once, `min(connection credit, Σ stream credit)`.
    pub peak_exposure: u64,
    /// Peak congestion window.
    pub peak_cwnd: u64,
    /// MAX_DATA + MAX_STREAM_DATA sent.
    pub window_updates_sent: u64,
    /// *_BLOCKED frames sent.
    pub blocked_frames_sent: u64,
    /// Largest budget in force.
    pub peak_budget: u64,
    /// Credit found above the budget (must stay 0).
    pub budget_violations: u64,
    /// Payload bytes that failed verification.
    pub verify_failures: u64,
}

impl ConnStats {
    /// The stats of an endpoint that starts with connection receive window
    /// `conn_window` and congestion window `cwnd`.
    #[must_use]
    pub fn new(conn_window: u64, cwnd: u64) -> Self {
        Self {
            peak_conn_window: conn_window,
            peak_cwnd: cwnd,
            ..Self::default()
        }
    }

    /// A receive window changed.
    pub fn on_window_change(&mut self, c: &WindowChange) {
        match c.subject {
            Subject::Connection => self.on_conn_window(c.new),
            Subject::Stream(_) => self.on_stream_window(c.new),
        }
    }

    /// A stream receive window is `window` (a stream opened or grew).
    pub fn on_stream_window(&mut self, window: u64) {
        self.peak_stream_window = self.peak_stream_window.max(window);
    }

    fn on_conn_window(&mut self, window: u64) {
        self.peak_conn_window = self.peak_conn_window.max(window);
    }

    /// `bytes` are received and not yet read, all streams together.
    pub fn on_recv_buffer(&mut self, bytes: u64) {
        self.peak_recv_buffer = self.peak_recv_buffer.max(bytes);
    }

    /// The credit outstanding over all streams is `committed` and the
    /// connection's `conn_credit` (MAX_DATA − bytes read), under `budget`
    /// when the connection has one. The peer can make us buffer at most
    /// the smaller of the two.
    pub fn on_credit(&mut self, committed: u64, conn_credit: u64, budget: Option<u64>) {
        self.peak_total_credit = self.peak_total_credit.max(committed);
        self.peak_exposure = self.peak_exposure.max(committed.min(conn_credit));
        if let Some(budget) = budget {
            self.peak_budget = self.peak_budget.max(budget);
            if committed > budget {
                self.budget_violations += 1;
            }
        }
    }

    /// The congestion window is `cwnd`.
    pub fn on_cwnd(&mut self, cwnd: u64) {
        self.peak_cwnd = self.peak_cwnd.max(cwnd);
    }
}
