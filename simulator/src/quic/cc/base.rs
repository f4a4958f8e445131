//! What NewReno and CUBIC share (RFC 9002 §7, Appendix B): bytes-in-flight
//! accounting, slow start, the recovery period and the minimum window
//! ([`CcBase`]), and the [`CongestionControl`] implementation on top of it
//! that leaves each algorithm only what differs ([`Algorithm`]).

use super::control::{CcState, CongestionControl, initial_window, minimum_window};
use crate::{quic::rtt::RttEstimator, time::Time};

/// What an algorithm adds to [`CcBase`]: congestion-avoidance growth, the
/// reduction at a congestion event, and its own state around undo and
/// persistent congestion. [`CcBase`] has already done the shared part
/// when these are called.
pub(super) trait Algorithm: std::fmt::Debug {
    /// Name for logs ("newreno", "cubic").
    const NAME: &'static str;
    /// The shared window state.
    fn base(&self) -> &CcBase;
    /// The shared window state, to change.
    fn base_mut(&mut self) -> &mut CcBase;
    /// An acknowledgement of `bytes`, which [`CcBase::on_ack`] classified
    /// as `growth`, at `now`.
    fn on_ack(&mut self, growth: AckGrowth, now: Time, bytes: u64, rtt: &RttEstimator);
    /// A congestion event started at `now` (`ecn`: signalled by ECN-CE
    /// marks, not losses): keep what an undo restores, then reduce the
    /// window ([`CcBase::reduce_to`]).
    fn on_congestion_event(&mut self, now: Time, ecn: bool);
    /// [`CcBase::undo`] undid the latest congestion event: restore the
    /// algorithm's state from before it.
    fn on_undo(&mut self);
    /// Persistent congestion collapsed the window.
    fn on_collapse(&mut self);
}

impl<A: Algorithm> CongestionControl for A {
    fn cwnd(&self) -> u64 {
        self.base().cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.base().ssthresh
    }

    fn bytes_in_flight(&self) -> u64 {
        self.base().bytes_in_flight
    }

    fn on_packet_sent(&mut self, _now: Time, bytes: u64) {
        self.base_mut().on_sent(bytes);
    }

    fn on_packet_acked(
        &mut self,
        now: Time,
        sent_time: Time,
        bytes: u64,
        rtt: &RttEstimator,
        app_limited: bool,
    ) {
        let growth = self.base_mut().on_ack(sent_time, bytes, app_limited);
        self.on_ack(growth, now, bytes, rtt);
    }

    fn on_packets_lost(
        &mut self,
        now: Time,
        largest_lost_sent_time: Time,
        lost_bytes: u64,
    ) -> bool {
        if !self
            .base_mut()
            .on_loss(now, largest_lost_sent_time, lost_bytes)
        {
            return false;
        }
        self.on_congestion_event(now, false);
        true
    }

    fn on_ecn_ce(&mut self, now: Time, largest_acked_sent_time: Time) -> bool {
        if !self.base_mut().on_ce(now, largest_acked_sent_time) {
            return false;
        }
        self.on_congestion_event(now, true);
        true
    }

    fn undo_congestion_event(&mut self) -> bool {
        if !self.base_mut().undo() {
            return false;
        }
        self.on_undo();
        true
    }

    fn on_persistent_congestion(&mut self) {
        self.base_mut().on_persistent_congestion();
        self.on_collapse();
    }

    fn on_packet_discarded(&mut self, bytes: u64) {
        self.base_mut().remove_from_flight(bytes);
    }

    fn state(&self) -> CcState {
        self.base().state()
    }

    fn name(&self) -> &'static str {
        A::NAME
    }
}

/// What an acknowledgement means for the window, decided by [`CcBase::on_ack`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AckGrowth {
    /// Sent before the current recovery period began: no growth (§7.3.2).
    InRecovery,
    /// The sender was application limited: no growth (§7.8).
    AppLimited,
    /// Slow start: the window already grew by the acked bytes.
    SlowStart,
    /// Congestion avoidance: the algorithm decides the growth.
    CongestionAvoidance,
}

/// The shared window state just before a congestion event, kept so the
/// event can be undone if it proves spurious.
///
/// Invariant: `cwnd >= minimum_window(mds)` (it was a live window).
#[derive(Clone, Copy, Debug)]
struct BaseUndo {
    cwnd: u64,
    ssthresh: u64,
    recovery_start: Option<Time>,
}

/// Window state shared by the algorithms.
///
/// Invariants: `cwnd >= minimum_window(mds)`; `ssthresh` is `u64::MAX`
/// until the first congestion event; `in_recovery` implies
/// `recovery_start.is_some()`; `undo` holds the state from before the
/// latest congestion event, or `None` once persistent congestion or an
/// undo consumed it.
#[derive(Clone, Debug)]
pub(super) struct CcBase {
    pub mds: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub bytes_in_flight: u64,
    /// congestion_recovery_start_time (Appendix B.2).
    recovery_start: Option<Time>,
    /// No packet sent after `recovery_start` has been acknowledged yet.
    in_recovery: bool,
    /// The latest growth-eligible acknowledgement was app-limited.
    app_limited: bool,
    /// State before the latest congestion event.
    undo: Option<BaseUndo>,
}

impl CcBase {
    pub fn new(mds: u64) -> Self {
        Self {
            mds,
            cwnd: initial_window(mds),
            ssthresh: u64::MAX,
            bytes_in_flight: 0,
            recovery_start: None,
            in_recovery: false,
            app_limited: false,
            undo: None,
        }
    }

    pub const fn min_window(&self) -> u64 {
        minimum_window(self.mds)
    }

    /// True if a packet sent at `sent_time` belongs to the current (or an
    /// earlier) recovery period (Appendix B.4 InCongestionRecovery).
    fn sent_before_recovery(&self, sent_time: Time) -> bool {
        self.recovery_start.is_some_and(|start| sent_time <= start)
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.bytes_in_flight += bytes;
    }

    pub fn remove_from_flight(&mut self, bytes: u64) {
        debug_assert!(
            bytes <= self.bytes_in_flight,
            "more bytes left flight than entered"
        );
        self.bytes_in_flight = self.bytes_in_flight.saturating_sub(bytes);
    }

    /// Appendix B.5 OnPacketAcked, up to the algorithm-specific part; in
    /// slow start the window grows here.
    pub fn on_ack(&mut self, sent_time: Time, bytes: u64, app_limited: bool) -> AckGrowth {
        self.remove_from_flight(bytes);
        if self.sent_before_recovery(sent_time) {
            return AckGrowth::InRecovery;
        }
        self.in_recovery = false;
        self.app_limited = app_limited;
        if app_limited {
            AckGrowth::AppLimited
        } else if self.cwnd < self.ssthresh {
            self.cwnd += bytes;
            AckGrowth::SlowStart
        } else {
            AckGrowth::CongestionAvoidance
        }
    }

    /// Appendix B.6 OnCongestionEvent, up to the reduction: removes the
    /// lost bytes from flight and returns true if a new recovery period
    /// starts (the caller then reduces the window with [`CcBase::reduce_to`]).
    pub fn on_loss(&mut self, now: Time, largest_lost_sent_time: Time, lost_bytes: u64) -> bool {
        self.remove_from_flight(lost_bytes);
        if self.sent_before_recovery(largest_lost_sent_time) {
            return false;
        }
        self.undo = Some(BaseUndo {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            recovery_start: self.recovery_start,
        });
        self.recovery_start = Some(now);
        self.in_recovery = true;
        self.app_limited = false;
        true
    }

    /// Appendix B.7: an ECN-CE report starts a new recovery period unless
    /// the packet it dates from (sent at `sent_time`) belongs to the
    /// current one. Unlike a loss it removes nothing from flight, and it
    /// leaves the undo state of the latest loss event as it is (as neqo
    /// does: only a loss saves state to undo). Returns true if a new
    /// recovery period starts.
    pub fn on_ce(&mut self, now: Time, sent_time: Time) -> bool {
        if self.sent_before_recovery(sent_time) {
            return false;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        self.app_limited = false;
        true
    }

    /// Sets cwnd and ssthresh to `cwnd` (floored at the minimum window).
    pub fn reduce_to(&mut self, cwnd: u64) {
        self.cwnd = cwnd.max(self.min_window());
        self.ssthresh = self.cwnd;
    }

    /// Appendix B.8: collapse to the minimum window, end recovery.
    pub fn on_persistent_congestion(&mut self) {
        self.cwnd = self.min_window();
        self.recovery_start = None;
        self.in_recovery = false;
        // A collapse is not undone (the window state it replaced is stale).
        self.undo = None;
    }

    /// Undoes the latest congestion event (its losses proved spurious):
    /// cwnd and ssthresh go back to at least their values before it, the
    /// recovery period it opened ends, and the previous one's start is
    /// restored. Returns false (changing nothing) when there is nothing to
    /// undo. Like Linux's `tcp_undo_cwnd_reduction`, taking the larger of
    /// the current and the saved values never shrinks the window on undo.
    pub fn undo(&mut self) -> bool {
        let Some(u) = self.undo.take() else {
            return false;
        };
        self.cwnd = self.cwnd.max(u.cwnd);
        self.ssthresh = self.ssthresh.max(u.ssthresh);
        self.recovery_start = u.recovery_start;
        self.in_recovery = false;
        true
    }

    pub fn state(&self) -> CcState {
        if self.in_recovery {
            CcState::Recovery
        } else if self.app_limited {
            CcState::ApplicationLimited
        } else if self.cwnd < self.ssthresh {
            CcState::SlowStart
        } else {
            CcState::CongestionAvoidance
        }
    }
}
