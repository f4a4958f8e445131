//! What one endpoint records for qlog: its events at the scenario's
//! [`TraceLevel`], packets' frames without payload, and congestion-state
//! changes. Recording never changes what the endpoint does.
//!
//! The `Core` level keeps a trace small and still whole for qvis: a packet
//! is recorded when it carries a flow-control frame or its number falls in
//! a sampled block ([`sampled`]), decided from the packet alone so both
//! ends record the same packets; every ACK frame lists only the packets
//! this trace holds (an ACK naming none of them is left out), every lost
//! packet is recorded (at its send time, when its loss is declared), and
//! `recovery:metrics_updated` goes with the recorded packets. So every
//! packet number an event names is in the trace, which is what qvis
//! looks up (it logs an error for each one missing).

use crate::{
    quic::{ack::AckRanges, cc::CcState, frame::Frame, ranges::RangeSet},
    time::Time,
    trace::{Endpoint, TraceEvent, TraceLevel, TraceRecord},
};

use super::{MAX_ACK_RANGES, sent::SentPacket};

/// Packet-number history kept for clipping ACK frames: ACK frames reach at
/// most the ACK state's 4,096 packets below the largest; twice that, for
/// the peer's view lagging ours.
const HISTORY: u64 = 8192;

/// Core level: packet `pn` is in a sampled block, 64 consecutive packet
/// numbers of every 1,024 (a sixteenth, in runs that ACK ranges clip to a
/// few ranges each).
#[must_use]
pub const fn sampled(pn: u64) -> bool {
    (pn >> 6) & 15 == 0
}

/// Frames that make a packet worth recording at every level.
fn flow_control_frame(f: &Frame) -> bool {
    matches!(
        f,
        Frame::MaxData { .. }
            | Frame::MaxStreamData { .. }
            | Frame::MaxStreams { .. }
            | Frame::DataBlocked { .. }
            | Frame::StreamDataBlocked { .. }
            | Frame::ConnectionClose { .. }
    )
}

/// The trace of one endpoint.
///
/// Invariants: `records` is empty while the level is [`TraceLevel::Off`];
/// `cc_state` is the state last reported by the congestion controller
/// (tracked at every level, recorded only when tracing); at `Core`,
/// `sent` / `received` hold the numbers of the recorded packets this
/// endpoint sent / received (within `HISTORY` of the largest).
#[derive(Debug)]
pub struct Tracer {
    endpoint: Endpoint,
    level: TraceLevel,
    records: Vec<TraceRecord>,
    sent: RangeSet,
    received: RangeSet,
    /// The packet being received was recorded (its ACK's metrics go too).
    current_recorded: bool,
    cc_state: CcState,
}

impl Tracer {
    /// A trace for `endpoint` at `level`.
    #[must_use]
    pub fn new(endpoint: Endpoint, level: TraceLevel) -> Self {
        Self {
            endpoint,
            level,
            records: Vec::new(),
            sent: RangeSet::default(),
            received: RangeSet::default(),
            current_recorded: false,
            cc_state: CcState::SlowStart,
        }
    }

    /// True unless the level is [`TraceLevel::Off`].
    #[must_use]
    pub fn on(&self) -> bool {
        self.level != TraceLevel::Off
    }

    /// Records `event` at `time` (nothing when tracing is off).
    pub fn record(&mut self, time: Time, event: TraceEvent) {
        if self.on() {
            self.records.push(TraceRecord {
                time,
                endpoint: self.endpoint,
                event,
            });
        }
    }

    /// True when a `recovery:metrics_updated` for the packet being
    /// received belongs in the trace.
    #[must_use]
    pub fn metrics_wanted(&self) -> bool {
        match self.level {
            TraceLevel::Off => false,
            TraceLevel::Core => self.current_recorded,
            TraceLevel::Full => true,
        }
    }

    /// The frames to record for packet `pn` this endpoint sends, or `None`
    /// when it is not recorded. A packet none of whose frames survive the
    /// trace's filter (an ACK-only packet acknowledging nothing the trace
    /// holds) is not recorded.
    pub fn sent_frames(&mut self, pn: u64, frames: &[Frame]) -> Option<Vec<Frame>> {
        if !self.decide(pn, frames) {
            return None;
        }
        let out = self.traced(frames, &self.received);
        if out.is_empty() {
            return None;
        }
        if self.level == TraceLevel::Core {
            remember(&mut self.sent, pn);
        }
        Some(out)
    }

    /// The frames to record for packet `pn` this endpoint received, or
    /// `None` when it is not recorded.
    /// Like [`Self::sent_frames`], a packet with nothing left to show is
    /// not recorded.
    pub fn received_frames(&mut self, pn: u64, frames: &[Frame]) -> Option<Vec<Frame>> {
        self.current_recorded = false;
        if !self.decide(pn, frames) {
            return None;
        }
        let out = self.traced(frames, &self.sent);
        if out.is_empty() {
            return None;
        }
        self.current_recorded = true;
        if self.level == TraceLevel::Core {
            remember(&mut self.received, pn);
        }
        Some(out)
    }

    /// Packet `p`, sent at `p.time_sent`, was declared lost: at `Core`, if
    /// it was not recorded, its `packet_sent` is recorded now (with the
    /// frames it carried other than ACK), so the loss names a packet in
    /// the trace.
    pub fn lost(&mut self, p: &SentPacket) {
        if self.level != TraceLevel::Core || self.sent.contains(p.pn) {
            return;
        }
        remember(&mut self.sent, p.pn);
        let frames = p.frames.iter().map(|f| f.as_frame()).collect();
        self.record(
            p.time_sent,
            TraceEvent::PacketSent {
                pn: p.pn,
                size: p.size,
                frames,
            },
        );
    }

    fn decide(&self, pn: u64, frames: &[Frame]) -> bool {
        match self.level {
            TraceLevel::Off => false,
            TraceLevel::Full => true,
            TraceLevel::Core => sampled(pn) || frames.iter().any(flow_control_frame),
        }
    }

    /// `frames` as recorded: STREAM frames lose their payload; at `Core`,
    /// ACK frames keep only the packet numbers in `recorded` (the other
    /// side's packets this trace holds), and go if none is left.
    fn traced(&self, frames: &[Frame], recorded: &RangeSet) -> Vec<Frame> {
        frames
            .iter()
            .filter_map(|f| match f {
                Frame::Stream {
                    stream_id,
                    offset,
                    length,
                    fin,
                    ..
                } => Some(Frame::Stream {
                    stream_id: *stream_id,
                    offset: *offset,
                    length: *length,
                    fin: *fin,
                    data: None,
                }),
                Frame::Ack {
                    largest,
                    ack_delay,
                    ranges,
                    ecn,
                } if self.level == TraceLevel::Core => {
                    let mut kept = RangeSet::default();
                    for r in ranges.iter() {
                        for (s, e) in recorded.iter_within(*r.start(), r.end() + 1) {
                            kept.insert(s, e);
                        }
                    }
                    AckRanges::from_range_set_capped(&kept, MAX_ACK_RANGES * 4).map(|ranges| {
                        Frame::Ack {
                            largest: (*largest).min(ranges.largest()),
                            ack_delay: *ack_delay,
                            ranges,
                            ecn: *ecn,
                        }
                    })
                }
                other => Some(other.clone()),
            })
            .collect()
    }

    /// The congestion controller is in `state`: records the change, if it
    /// is one.
    pub fn cc_state(&mut self, now: Time, state: CcState) {
        self.cc_state_by(now, state, false);
    }

    /// [`Tracer::cc_state`], saying whether an ECN-CE report caused it.
    pub fn cc_state_by(&mut self, now: Time, state: CcState, ecn: bool) {
        if state != self.cc_state {
            let old = self.cc_state;
            self.cc_state = state;
            self.record(
                now,
                TraceEvent::CongestionStateUpdated {
                    old,
                    new: state,
                    ecn,
                },
            );
        }
    }

    /// The records so far, leaving the trace empty.
    pub fn take(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.records)
    }
}

/// Adds `pn` to `set`, forgetting what lies more than [`HISTORY`] below it
/// now and then.
fn remember(set: &mut RangeSet, pn: u64) {
    set.insert(pn, pn + 1);
    if pn > 2 * HISTORY && pn.is_multiple_of(1024) {
        set.remove_below(pn - HISTORY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(pairs: Vec<(u64, u64)>) -> Frame {
        Frame::Ack {
            largest: pairs[0].0,
            ack_delay: 0,
            ranges: AckRanges::from_pairs(pairs).unwrap(),
            ecn: None,
        }
    }

    #[test]
    fn core_acks_name_only_recorded_packets() {
        let mut t = Tracer::new(Endpoint::Server, TraceLevel::Core);
        // The peer's packets 0..=2000 arrive; 0..64 and 1024..1088 are
        // sampled, 500 carries a MAX_DATA.
        for pn in 0..=2000 {
            let frames = if pn == 500 {
                vec![Frame::MaxData { maximum: 1 }]
            } else {
                vec![Frame::Ping]
            };
            let got = t.received_frames(pn, &frames);
            assert_eq!(got.is_some(), sampled(pn) || pn == 500, "{pn}");
        }
        // Our ACK of everything lists just those.
        let sent = t.sent_frames(64 * 16 * 7, &[ack(vec![(2000, 0)])]).unwrap();
        let Frame::Ack {
            ranges, largest, ..
        } = &sent[0]
        else {
            panic!("{sent:?}")
        };
        let got: Vec<_> = ranges.iter().collect();
        assert_eq!(got, [1024..=1087, 500..=500, 0..=63]);
        assert_eq!(*largest, 1087);
        // An ACK naming no recorded packet is left out.
        let sent = t
            .sent_frames(0, &[ack(vec![(900, 600)]), Frame::Ping])
            .unwrap();
        assert_eq!(sent, [Frame::Ping]);
        // Full level: the frame as it was.
        let mut full = Tracer::new(Endpoint::Server, TraceLevel::Full);
        let a = ack(vec![(2000, 0)]);
        assert_eq!(full.sent_frames(5, std::slice::from_ref(&a)), Some(vec![a]));
    }
}
