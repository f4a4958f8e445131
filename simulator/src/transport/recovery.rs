//! Loss detection and congestion control at one endpoint (RFC 9002 §6,
//! §7): the sent-packet table, the RTT estimator, the congestion
//! controller, the pacer and the loss / PTO timers.

use std::time::Duration;

use crate::{
    quic::{
        ack::AckRanges,
        cc::{CcAlgorithm, CcState, CongestionControl},
        pacer::Pacer,
        rtt::RttEstimator,
    },
    time::Time,
};

use super::{
    ACK_DELAY_EXPONENT,
    sent::{SentPacket, SentPackets},
};

/// RFC 9002 §6.1.1 kPacketThreshold.
pub const PACKET_THRESHOLD: u64 = 3;
/// RFC 9002 §6.1.2 kGranularity.
pub const GRANULARITY: Duration = Duration::from_millis(1);
/// Packets the pacer lets leave back to back.
const PACING_BURST: u64 = 10;

/// Why a packet was declared lost (qlog's trigger names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTrigger {
    /// Three or more later packets were acknowledged.
    Reordering,
    /// Sent more than 9/8 RTT before a later acknowledged packet.
    Time,
}

impl LossTrigger {
    /// qlog name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Reordering => "reordering_threshold",
            Self::Time => "time_threshold",
        }
    }
}

/// What an ACK frame did.
#[derive(Debug, Default)]
pub struct AckOutcome {
    /// Newly acknowledged packets.
    pub acked: Vec<SentPacket>,
    /// Packets declared lost as a result.
    pub lost: Vec<(SentPacket, LossTrigger)>,
    /// An RTT sample was taken.
    pub rtt_sampled: bool,
}

/// What a timer expiry did.
#[derive(Debug)]
pub enum TimeoutOutcome {
    /// Nothing was due.
    None,
    /// The loss timer declared these lost.
    Lost(Vec<(SentPacket, LossTrigger)>),
    /// A probe timeout: send up to two ack-eliciting probes.
    Probe,
}

/// Loss recovery state.
#[derive(Debug)]
pub struct Recovery {
    sent: SentPackets,
    /// RTT estimate (RFC 9002 §5).
    pub rtt: RttEstimator,
    /// Congestion controller.
    pub cc: Box<dyn CongestionControl>,
    pacer: Pacer,
    largest_acked: Option<u64>,
    loss_time: Option<Time>,
    pto_count: u32,
    last_eliciting_sent: Option<Time>,
    eliciting_outstanding: usize,
    max_ack_delay: Duration,
}

impl Recovery {
    /// Recovery for an endpoint whose peer delays ACKs by up to
    /// `max_ack_delay`.
    #[must_use]
    pub fn new(cc: CcAlgorithm, max_datagram_size: u64, max_ack_delay: Duration) -> Self {
        Self {
            sent: SentPackets::default(),
            rtt: RttEstimator::new(Duration::from_millis(333)),
            cc: cc.build(max_datagram_size),
            pacer: Pacer::new(max_datagram_size, PACING_BURST),
            largest_acked: None,
            loss_time: None,
            pto_count: 0,
            last_eliciting_sent: None,
            eliciting_outstanding: 0,
            max_ack_delay,
        }
    }

    /// Bytes the congestion window has room for.
    #[must_use]
    pub fn cwnd_room(&self) -> u64 {
        self.cc.cwnd().saturating_sub(self.cc.bytes_in_flight())
    }

    /// Earliest time a datagram of `bytes` may leave under pacing.
    #[must_use]
    pub fn pacing_time(&self, now: Time, bytes: u64) -> Time {
        self.pacer
            .next_send_time(now, self.pacing_cwnd(), self.rtt.smoothed(), bytes)
    }

    /// The window the pacer spreads over one smoothed RTT. The pacer's
    /// gain is 1.25 (RFC 9002 §7.7); in slow start we pace at 2 × cwnd /
    /// srtt instead, as Linux does (`tcp_pacing_ss_ratio` = 200 %), so
    /// pacing does not slow the exponential ramp.
    fn pacing_cwnd(&self) -> u64 {
        let cwnd = self.cc.cwnd();
        if self.cc.state() == CcState::SlowStart {
            cwnd.saturating_mul(8) / 5
        } else {
            cwnd
        }
    }

    /// Records a sent packet (ack-eliciting / in-flight ones only need
    /// tracking; others are ignored here).
    pub fn on_packet_sent(&mut self, now: Time, pkt: SentPacket) {
        if pkt.in_flight {
            self.cc.on_packet_sent(now, u64::from(pkt.size));
            let pacing_cwnd = self.pacing_cwnd();
            self.pacer
                .on_sent(now, pacing_cwnd, self.rtt.smoothed(), u64::from(pkt.size));
        }
        if pkt.ack_eliciting {
            self.last_eliciting_sent = Some(now);
            self.eliciting_outstanding += 1;
        }
        if pkt.ack_eliciting || pkt.in_flight {
            self.sent.push(pkt);
        } else {
            // Keep packet numbers consecutive in the table.
            self.sent.push(pkt);
            let pn = self.sent.end() - 1;
            self.sent.take(pn);
        }
    }

    /// Processes an ACK frame (RFC 9002 §A.7).
    pub fn on_ack(
        &mut self,
        now: Time,
        largest: u64,
        ack_delay: u64,
        ranges: &AckRanges,
    ) -> AckOutcome {
        let mut out = AckOutcome::default();
        if largest >= self.sent.end() {
            return out; // acknowledges a packet never sent: ignore
        }
        self.largest_acked = Some(self.largest_acked.map_or(largest, |l| l.max(largest)));
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
        if out.acked.is_empty() {
            return out;
        }
        // RTT sample when the largest acknowledged is newly acknowledged
        // and something newly acknowledged was ack-eliciting (§5.1).
        if let Some(first) = out.acked.first()
            && first.pn == largest
            && out.acked.iter().any(|p| p.ack_eliciting)
        {
            let latest = now - first.time_sent;
            let delay = Duration::from_micros(ack_delay.saturating_mul(1 << ACK_DELAY_EXPONENT));
            self.rtt.update(latest, delay, self.max_ack_delay);
            out.rtt_sampled = true;
        }
        for p in &out.acked {
            if p.ack_eliciting {
                self.eliciting_outstanding -= 1;
            }
            if p.in_flight {
                self.cc.on_packet_acked(
                    now,
                    p.time_sent,
                    u64::from(p.size),
                    &self.rtt,
                    !p.cwnd_limited,
                );
            }
        }
        self.pto_count = 0;
        out.lost = self.detect_lost(now);
        out
    }

    /// Sets an RTT sample taken outside packet exchange (the handshake's).
    pub fn seed_rtt(&mut self, rtt: Duration) {
        self.rtt.update(rtt, Duration::ZERO, self.max_ack_delay);
    }

    fn detect_lost(&mut self, now: Time) -> Vec<(SentPacket, LossTrigger)> {
        self.loss_time = None;
        let Some(largest) = self.largest_acked else {
            return Vec::new();
        };
        let rtt = self.rtt.latest().max(self.rtt.smoothed());
        let loss_delay = (rtt * 9 / 8).max(GRANULARITY);
        let lost_send_time = now.saturating_sub(loss_delay);
        let mut lost_pns = Vec::new();
        for p in self.sent.iter_below(largest) {
            if largest >= p.pn + PACKET_THRESHOLD {
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
        if let Some(t) = newest {
            self.cc.on_packets_lost(now, t, bytes);
        }
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
