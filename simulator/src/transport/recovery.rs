//! Loss detection and congestion control at one endpoint (RFC 9002 §6,
//! §7): the sent-packet table, the RTT estimator, the congestion
//! controller, the pacer and the loss / PTO timers.

use std::{collections::BTreeMap, time::Duration};

use crate::{
    quic::{
        ack::AckRanges,
        app_limit::AppLimit,
        cc::{CcAlgorithm, CcState, CongestionControl},
        ecn_counts::EcnCounts,
        ecn_validation::{EcnState, EcnValidator},
        pacer::{Pacer, Pacing},
        rtt::RttEstimator,
    },
    time::Time,
};

pub use self::outcome::{AckOutcome, LossTrigger, RecoveryStats, TimeoutOutcome};
use super::{
    ACK_DELAY_EXPONENT,
    ack_only_sent::AckOnlySent,
    sent::{SentPacket, SentPackets},
};

/// RFC 9002 §6.1.1 kPacketThreshold: the packet threshold a connection
/// starts with (it only ever rises from here, see [`Recovery`]).
pub const PACKET_THRESHOLD: u64 = 3;
/// Ceiling of the adaptive packet threshold. RFC 9002 §6.1 lets
/// implementations raise the thresholds after spurious losses; a bound
/// keeps one freak reordering from disabling packet-threshold detection
/// for good. Linux bounds its adaptive reordering degree the same way
/// (`tcp_max_reordering`, 300 by default). Above the cap the time
/// threshold still detects any real loss.
pub const MAX_PACKET_THRESHOLD: u64 = 256;
/// Ceiling of the reordering-window multiplier: the window is
/// `mult × min_rtt / 4`, itself capped at smoothed_rtt (RFC 8985 §6.2
/// step 4), so beyond 4 steps it would only ever hit that cap.
pub const MAX_REO_WND_MULT: u32 = 4;
/// Most declared-lost packets remembered for spurious-loss detection.
/// Each is also forgotten one PTO period after it was declared lost (the
/// peer acknowledges an out-of-order arrival at once, RFC 9000 §13.2.1,
/// so a later ACK is not coming).
pub const MAX_LOST_REMEMBERED: usize = 1024;
/// RFC 9002 §7.6.1 kPersistentCongestionThreshold.
pub const PERSISTENT_CONGESTION_THRESHOLD: u32 = 3;
/// RFC 9002 §6.1.2 kGranularity.
pub const GRANULARITY: Duration = Duration::from_millis(1);

/// A packet declared lost, remembered so that a late acknowledgement
/// shows the loss was spurious.
///
/// Invariant: `packet` is no longer in the sent table or in flight.
#[derive(Debug)]
struct LostRecord {
    packet: SentPacket,
    trigger: LossTrigger,
    declared: Time,
    /// The congestion event this loss is blamed on.
    event: Option<u64>,
}

/// The latest congestion event, while it may still be undone.
///
/// Invariant: `blamed` counts the remembered declared-lost packets whose
/// `event` is `id`.
#[derive(Clone, Copy, Debug)]
struct UndoableEvent {
    id: u64,
    blamed: usize,
}

/// Loss recovery state.
///
/// Invariants: `PACKET_THRESHOLD <= packet_threshold <=
/// MAX_PACKET_THRESHOLD` and `reo_wnd_mult <= MAX_REO_WND_MULT`, both
/// non-decreasing; `lost` holds at most [`MAX_LOST_REMEMBERED`] records;
/// `event`, when set, is the congestion controller's latest event and not
/// yet undone.
#[derive(Debug)]
pub struct Recovery {
    sent: SentPackets,
    /// ACK-only packets' send times, for RTT samples (RFC 9002 §5.1).
    ack_only: AckOnlySent,
    /// RTT estimate (RFC 9002 §5).
    pub rtt: RttEstimator,
    /// Congestion controller.
    pub cc: Box<dyn CongestionControl>,
    pacer: Pacer,
    pacing: Pacing,
    largest_acked: Option<u64>,
    loss_time: Option<Time>,
    pto_count: u32,
    last_eliciting_sent: Option<Time>,
    eliciting_outstanding: usize,
    max_ack_delay: Duration,
    /// Current packet threshold (RFC 9002 §6.1.1), raised on spurious
    /// losses.
    packet_threshold: u64,
    /// Reordering-window multiplier (RFC 8985 §6.2 step 4); 0 = the plain
    /// RFC 9002 time threshold.
    reo_wnd_mult: u32,
    /// The multiplier grows at most once per round trip: only for a
    /// spurious loss of a packet numbered at or above this.
    reo_round_end: u64,
    /// Declared-lost packets by number.
    lost: BTreeMap<u64, LostRecord>,
    /// Congestion events so far (ids of [`UndoableEvent`]).
    events: u64,
    event: Option<UndoableEvent>,
    /// When the first RTT sample was taken (RFC 9002 §7.6.2).
    first_rtt_sample: Option<Time>,
    /// ECN validation (RFC 9000 §13.4.2); it also keeps the largest
    /// validated ECN-CE count (`ecn_ce_counters`, RFC 9002 Appendix B.7).
    ecn: EcnValidator,
    /// Which packets count as using the congestion window.
    app_limit: AppLimit,
    /// With [`AppLimit::Neqo`]: one past the last packet sent using the
    /// window; acknowledging any packet below it grows the window.
    first_app_limited: Option<u64>,
    /// Counters; they only ever grow.
    pub stats: RecoveryStats,
}

impl Recovery {
    /// Recovery for an endpoint whose peer delays ACKs by up to
    /// `max_ack_delay`, pacing as `pacing` says.
    #[must_use]
    pub fn new(
        cc: CcAlgorithm,
        max_datagram_size: u64,
        max_ack_delay: Duration,
        pacing: Pacing,
    ) -> Self {
        Self {
            sent: SentPackets::default(),
            ack_only: AckOnlySent::default(),
            rtt: RttEstimator::new(Duration::from_millis(333)),
            cc: cc.build(max_datagram_size),
            pacer: Pacer::new(max_datagram_size, pacing),
            pacing,
            largest_acked: None,
            loss_time: None,
            pto_count: 0,
            last_eliciting_sent: None,
            eliciting_outstanding: 0,
            max_ack_delay,
            packet_threshold: PACKET_THRESHOLD,
            reo_wnd_mult: 0,
            reo_round_end: 0,
            lost: BTreeMap::new(),
            events: 0,
            event: None,
            first_rtt_sample: None,
            ecn: EcnValidator::new(false),
            app_limit: AppLimit::PerPacket,
            first_app_limited: None,
            stats: RecoveryStats::default(),
        }
    }

    /// Judges which packets used the congestion window by `rule`
    /// (default [`AppLimit::PerPacket`]).
    #[must_use]
    pub fn with_app_limit(mut self, rule: AppLimit) -> Self {
        self.app_limit = rule;
        self
    }

    /// Whether an in-flight packet of `size` bytes sent now uses the
    /// congestion window ([`AppLimit::uses_window`]); the caller records
    /// the answer in [`SentPacket::cwnd_limited`].
    #[must_use]
    pub fn uses_window(&self, size: u64, max_datagram: u64) -> bool {
        let cwnd = self.cc.cwnd();
        // Only neqo's rule looks at the phase (one call saved per packet).
        let slow_start = self.app_limit == AppLimit::Neqo && cwnd < self.cc.ssthresh();
        self.app_limit.uses_window(
            self.cc.bytes_in_flight(),
            size,
            cwnd,
            slow_start,
            max_datagram,
        )
    }

    /// The packet threshold in force: never below [`PACKET_THRESHOLD`] or
    /// above [`MAX_PACKET_THRESHOLD`], and never decreasing.
    #[must_use]
    pub fn packet_threshold(&self) -> u64 {
        self.packet_threshold
    }

    /// The reordering-window multiplier in force (0 = plain RFC 9002):
    /// at most [`MAX_REO_WND_MULT`], never decreasing.
    #[must_use]
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }

    /// How long after a packet was sent, once a later one is acknowledged,
    /// it is declared lost (RFC 9002 §6.1.2).
    ///
    /// RFC 9002's 9/8 × max(smoothed_rtt, latest_rtt) until a spurious
    /// time-threshold loss; after that at least that RTT plus a RACK
    /// reordering window of `mult × min_rtt / 4`, capped at smoothed_rtt
    /// (RFC 8985 §6.2 step 4). Widening in steps of min_rtt / 4 tracks
    /// reordering measured in time (jitter does not scale with the RTT),
    /// and the cap bounds the delay to detect a real loss by two RTTs.
    #[must_use]
    pub fn loss_delay(&self) -> Duration {
        let rtt = self.rtt.latest().max(self.rtt.smoothed());
        let reo_wnd = (self.rtt.min_rtt() / 4)
            .saturating_mul(self.reo_wnd_mult)
            .min(self.rtt.smoothed());
        (rtt * 9 / 8).max(rtt + reo_wnd).max(GRANULARITY)
    }

    /// Bytes the congestion window has room for.
    #[must_use]
    pub fn cwnd_room(&self) -> u64 {
        self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight())
    }

    /// Earliest time a datagram of `bytes` may leave under pacing.
    #[must_use]
    pub fn pacing_time(&self, now: Time, bytes: u64) -> Time {
        self.pacer.next_send_time(
            now,
            self.cc.cwnd(),
            self.rtt.smoothed(),
            self.slow_start(),
            bytes,
        )
    }

    /// Earliest time a packet of `bytes` carrying only control frames
    /// (MAX_*, *_BLOCKED) may leave: `now` unless [`Pacing::paces_control`]
    /// says such packets are paced, and then only while something is in
    /// flight (with nothing in flight neqo does not pace).
    #[must_use]
    pub fn control_pacing_time(&self, now: Time, bytes: u64) -> Time {
        if !self.pacing.paces_control() || self.cc.bytes_in_flight() == 0 {
            return now;
        }
        self.pacing_time(now, bytes)
    }

    /// In slow start the pacer uses its slow-start gain ([`Pacing`]).
    fn slow_start(&self) -> bool {
        self.cc.state() == CcState::SlowStart
    }

    /// Marks this endpoint's packets ECT(0) and validates the peer's ECN
    /// counts (RFC 9000 §13.4.2); without it, counts are ignored.
    #[must_use]
    pub fn with_ecn(mut self) -> Self {
        self.ecn = EcnValidator::new(true);
        self
    }

    /// Whether the next packet is marked ECT(0); if so, counts it as sent
    /// marked. Call once per packet sent.
    pub fn mark_next_ect(&mut self) -> bool {
        let mark = self.ecn.marking();
        if mark {
            self.ecn.on_marked_sent();
        }
        mark
    }

    /// Where ECN validation stands.
    #[must_use]
    pub fn ecn_state(&self) -> EcnState {
        self.ecn.state()
    }

    /// Records a sent packet (ack-eliciting / in-flight ones only need
    /// tracking; others are ignored here).
    pub fn on_packet_sent(&mut self, now: Time, pkt: SentPacket) {
        if self.app_limit == AppLimit::Neqo && pkt.in_flight && pkt.cwnd_limited {
            self.first_app_limited = Some(pkt.pn + 1);
        }
        if pkt.in_flight {
            self.cc.on_packet_sent(now, u64::from(pkt.size));
            let slow_start = self.slow_start();
            self.pacer.on_sent(
                now,
                self.cc.cwnd(),
                self.rtt.smoothed(),
                slow_start,
                u64::from(pkt.size),
            );
        } else if self.pacing.ack_only_debt() {
            let slow_start = self.slow_start();
            self.pacer.spend_unpaced(
                now,
                self.cc.cwnd(),
                self.rtt.smoothed(),
                slow_start,
                u64::from(pkt.size),
            );
        }
        if pkt.ack_eliciting {
            self.last_eliciting_sent = Some(now);
            self.eliciting_outstanding += 1;
        }
        if pkt.ack_eliciting || pkt.in_flight {
            self.sent.push(pkt);
        } else {
            self.ack_only.on_sent(pkt.pn, pkt.time_sent);
            // Keep packet numbers consecutive in the table.
            self.sent.push(pkt);
            let pn = self.sent.end() - 1;
            self.sent.take(pn);
        }
    }

    /// Processes an ACK frame (RFC 9002 §A.7), with its ECN counts when it
    /// carried them and the sender marks its packets ECT.
    pub fn on_ack(
        &mut self,
        now: Time,
        largest: u64,
        ack_delay: u64,
        ranges: &AckRanges,
        ecn: Option<EcnCounts>,
    ) -> AckOutcome {
        let mut out = AckOutcome::default();
        if largest >= self.sent.end() {
            return out; // acknowledges a packet never sent: ignore
        }
        let prior_largest = self.largest_acked;
        self.largest_acked = Some(self.largest_acked.map_or(largest, |l| l.max(largest)));
        self.forget_old_losses(now);
        if !self.lost.is_empty() {
            self.find_spurious(ranges, prior_largest, &mut out.spurious);
        }
        let base = self.sent.base();
        for r in ranges.iter() {
            let hi = *r.end();
            if hi < base {
                break;
            }
            let lo = (*r.start()).max(base);
            for pn in (lo..=hi).rev() {
                if let Some(p) = self.sent.take(pn) {
                    out.acked.push(p);
                }
            }
        }
        // The largest, if an ACK-only packet: its send time (and it is
        // forgotten, acknowledged or not).
        let ack_only_largest = self.ack_only.on_ack(largest);
        if out.acked.is_empty() {
            return out;
        }
        // RTT sample when the largest acknowledged is newly acknowledged
        // and something newly acknowledged was ack-eliciting (§5.1),
        // timed from the largest whatever it carried.
        let largest_sent = match out.acked.first() {
            Some(first) if first.pn == largest => Some(first.time_sent),
            _ => ack_only_largest,
        };
        if let Some(sent_at) = largest_sent
            && out.acked.iter().any(|p| p.ack_eliciting)
        {
            let latest = now - sent_at;
            let delay = Duration::from_micros(ack_delay.saturating_mul(1 << ACK_DELAY_EXPONENT));
            self.rtt.update(latest, delay, self.max_ack_delay);
            self.first_rtt_sample.get_or_insert(now);
            out.rtt_sampled = true;
        }
        // neqo judges the whole acknowledgement: it grows the window if
        // any packet it covers lies below the watermark.
        let ack_used_window = self.app_limit == AppLimit::Neqo
            && self
                .first_app_limited
                .is_some_and(|w| out.acked.iter().any(|p| p.in_flight && p.pn < w));
        for p in &out.acked {
            if p.ack_eliciting {
                self.eliciting_outstanding -= 1;
            }
            if p.in_flight {
                let used_window = match self.app_limit {
                    AppLimit::PerPacket => p.cwnd_limited,
                    AppLimit::Neqo => ack_used_window,
                };
                self.cc.on_packet_acked(
                    now,
                    p.time_sent,
                    u64::from(p.size),
                    &self.rtt,
                    !used_window,
                );
            }
        }
        // Counts are judged only on an ACK that advances the largest
        // acknowledged: an older one may carry older counts (RFC 9000
        // §13.4.2.1).
        if let Some(first) = out.acked.first()
            && prior_largest.is_none_or(|p| largest > p)
        {
            let newly_marked = out.acked.iter().filter(|p| p.ect).count() as u64;
            if self.ecn.on_ack(newly_marked, ecn).is_some() {
                self.process_ecn(now, first.time_sent);
            }
        }
        self.pto_count = 0;
        out.lost = self.detect_lost(now);
        out
    }

    /// RFC 9002 Appendix B.7 ProcessECN: a validated CE count above the
    /// largest seen starts a congestion event dated by `largest_acked_sent`, the send
    /// time of the largest newly acknowledged packet (one reduction per
    /// recovery period, like a loss; nothing to retransmit and nothing to
    /// undo).
    fn process_ecn(&mut self, now: Time, largest_acked_sent: Time) {
        if self.cc.on_ecn_ce(now, largest_acked_sent) {
            self.stats.ecn_events += 1;
        }
    }

    /// Congestion events that reduced the window so far (loss, ECN-CE,
    /// persistent congestion); undoing one does not count back.
    #[must_use]
    pub const fn window_reductions(&self) -> u64 {
        self.events + self.stats.ecn_events + self.stats.persistent_congestion
    }

    /// Sets an RTT sample taken outside packet exchange (the handshake's,
    /// completed at `now`).
    pub fn seed_rtt(&mut self, now: Time, rtt: Duration) {
        self.rtt.update(rtt, Duration::ZERO, self.max_ack_delay);
        self.first_rtt_sample.get_or_insert(now);
    }

    /// Forgets declared-lost packets whose acknowledgement is no longer
    /// expected (one PTO period after the loss) or that overflow the
    /// memory bound. The latest congestion event can no longer be proven
    /// spurious once one of its losses is forgotten.
    fn forget_old_losses(&mut self, now: Time) {
        let horizon = self.rtt.pto_period(self.max_ack_delay);
        while let Some((_, r)) = self.lost.first_key_value() {
            if self.lost.len() <= MAX_LOST_REMEMBERED && r.declared + horizon > now {
                break;
            }
            if let Some((_, r)) = self.lost.pop_first()
                && r.event.is_some()
                && r.event == self.event.map(|e| e.id)
            {
                self.event = None;
            }
        }
    }

    /// Moves the remembered lost packets that `ranges` acknowledge into
    /// `spurious`, adapts the thresholds to them, and undoes the latest
    /// congestion event once every loss blamed on it proved spurious.
    fn find_spurious(
        &mut self,
        ranges: &AckRanges,
        prior_largest: Option<u64>,
        spurious: &mut Vec<SentPacket>,
    ) {
        let mut found = Vec::new();
        for r in ranges.iter() {
            if r.start() <= r.end() {
                found.extend(self.lost.range(r).map(|(&pn, _)| pn));
            }
        }
        for pn in found {
            let Some(rec) = self.lost.remove(&pn) else {
                continue;
            };
            self.stats.spurious_losses += 1;
            self.adapt(&rec, prior_largest);
            if let Some(ev) = &mut self.event
                && rec.event == Some(ev.id)
            {
                ev.blamed = ev.blamed.saturating_sub(1);
                if ev.blamed == 0 {
                    // Every loss this event was blamed on was acknowledged
                    // after all: the reduction answered no congestion.
                    // Restore the window from before it, as Linux's undo
                    // does for spurious retransmissions (RFC 4015, the
                    // Eifel response, restores cwnd and ssthresh alike).
                    self.event = None;
                    if self.cc.undo_congestion_event() {
                        self.stats.undone_events += 1;
                    }
                }
            }
            spurious.push(rec.packet);
        }
    }

    /// Widens the threshold that declared `rec` lost too early (RFC 9002
    /// §6.1: implementations can detect spurious retransmissions and
    /// increase the packet or time reordering threshold).
    fn adapt(&mut self, rec: &LostRecord, prior_largest: Option<u64>) {
        match rec.trigger {
            LossTrigger::Reordering => {
                // The packet arrived after every packet up to
                // `prior_largest` was acknowledged: a reordering distance
                // of `prior_largest - pn`. One more would have waited for
                // it (RACK counts reordering in time instead, RFC 8985
                // §6.2 step 3; QUIC's packet threshold counts packets, so
                // the distance is measured the same way).
                let distance = prior_largest.map_or(0, |l| l.saturating_sub(rec.packet.pn));
                let wanted = distance.saturating_add(1).min(MAX_PACKET_THRESHOLD);
                self.packet_threshold = self.packet_threshold.max(wanted);
            }
            LossTrigger::Time => {
                // RFC 8985 §6.2 step 4: one step per round trip in which
                // spurious losses were seen, so a burst of late packets
                // from one reordering episode counts once.
                if rec.packet.pn >= self.reo_round_end {
                    self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(MAX_REO_WND_MULT);
                    self.reo_round_end = self.sent.end();
                }
            }
        }
    }

    fn detect_lost(&mut self, now: Time) -> Vec<(SentPacket, LossTrigger)> {
        self.loss_time = None;
        let Some(largest) = self.largest_acked else {
            return Vec::new();
        };
        let loss_delay = self.loss_delay();
        let lost_send_time = now.saturating_sub(loss_delay);
        let mut lost_pns = Vec::new();
        for p in self.sent.iter_below(largest) {
            if largest >= p.pn.saturating_add(self.packet_threshold) {
                lost_pns.push((p.pn, LossTrigger::Reordering));
            } else if p.time_sent <= lost_send_time {
                lost_pns.push((p.pn, LossTrigger::Time));
            } else {
                let t = p.time_sent + loss_delay;
                self.loss_time = Some(self.loss_time.map_or(t, |l| l.min(t)));
            }
        }
        let mut lost = Vec::with_capacity(lost_pns.len());
        for (pn, trigger) in lost_pns {
            if let Some(p) = self.sent.take(pn) {
                lost.push((p, trigger));
            }
        }
        self.on_lost(now, &lost);
        lost
    }

    fn on_lost(&mut self, now: Time, lost: &[(SentPacket, LossTrigger)]) {
        let mut bytes = 0;
        let mut newest: Option<Time> = None;
        for (p, _) in lost {
            if p.ack_eliciting {
                self.eliciting_outstanding -= 1;
            }
            if p.in_flight {
                bytes += u64::from(p.size);
                newest = Some(newest.map_or(p.time_sent, |t| t.max(p.time_sent)));
            }
        }
        let Some(t) = newest else { return };
        if self.persistent_congestion(lost) {
            // RFC 9002 §7.6.2: collapse to the minimum window. No undo
            // for this: the losses spanned several PTO periods.
            self.cc.on_packets_lost(now, t, bytes);
            self.cc.on_persistent_congestion();
            self.stats.persistent_congestion += 1;
            self.event = None;
        } else if self.cc.on_packets_lost(now, t, bytes) {
            self.events += 1;
            self.event = Some(UndoableEvent {
                id: self.events,
                blamed: 0,
            });
        }
        let event = self.event.map(|e| e.id);
        for (p, trigger) in lost {
            if !p.in_flight {
                continue;
            }
            if let Some(ev) = &mut self.event {
                ev.blamed += 1;
            }
            self.lost.insert(
                p.pn,
                LostRecord {
                    packet: p.clone(),
                    trigger: *trigger,
                    declared: now,
                    event,
                },
            );
        }
        if self.lost.len() > MAX_LOST_REMEMBERED {
            self.forget_old_losses(now);
        }
    }

    /// RFC 9002 §7.6.2: two ack-eliciting packets declared lost, sent more
    /// than the persistent congestion duration apart, after the first RTT
    /// sample, with every packet sent between them lost too. `lost` is in
    /// packet-number order; a gap in the numbers (a packet acknowledged,
    /// still in flight, or never tracked) ends a run, which can only miss
    /// persistent congestion, never invent it.
    fn persistent_congestion(&self, lost: &[(SentPacket, LossTrigger)]) -> bool {
        let Some(first_sample) = self.first_rtt_sample else {
            return false;
        };
        // §7.6.1: (smoothed_rtt + max(4·rttvar, kGranularity) +
        // max_ack_delay) × kPersistentCongestionThreshold.
        let duration = self
            .rtt
            .pto_period(self.max_ack_delay)
            .saturating_mul(PERSISTENT_CONGESTION_THRESHOLD);
        let mut run: Option<(u64, Time)> = None; // (last pn, run start)
        for (p, _) in lost {
            if !p.ack_eliciting || p.time_sent <= first_sample {
                run = None;
                continue;
            }
            let start = match run {
                Some((last, start)) if p.pn == last + 1 => start,
                _ => p.time_sent,
            };
            if p.time_sent - start > duration {
                return true;
            }
            run = Some((p.pn, start));
        }
        false
    }

    /// When the loss timer or the PTO fires (RFC 9002 §6.2.1).
    #[must_use]
    pub fn timeout(&self) -> Option<Time> {
        if self.loss_time.is_some() {
            return self.loss_time;
        }
        if self.eliciting_outstanding == 0 {
            return None;
        }
        let period = self.rtt.pto_period(self.max_ack_delay);
        let backoff = period.saturating_mul(1 << self.pto_count.min(16));
        self.last_eliciting_sent.map(|t| t + backoff)
    }

    /// Handles the loss / PTO timer at `now`.
    pub fn on_timeout(&mut self, now: Time) -> TimeoutOutcome {
        match self.timeout() {
            Some(t) if t <= now => {}
            _ => return TimeoutOutcome::None,
        }
        if self.loss_time.is_some() {
            return TimeoutOutcome::Lost(self.detect_lost(now));
        }
        self.pto_count += 1;
        TimeoutOutcome::Probe
    }

    /// The oldest outstanding packets (for PTO probes that resend data).
    pub fn oldest_outstanding(&self, n: usize) -> impl Iterator<Item = &SentPacket> {
        self.sent.iter().filter(|p| p.ack_eliciting).take(n)
    }
}

mod outcome;
#[cfg(test)]
mod tests;
