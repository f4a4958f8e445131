//! What one endpoint records for qlog: its events at the scenario's
//! [`TraceLevel`], packets' frames without payload, and congestion-state
//! changes. Recording never changes what the endpoint does.

use crate::{
    quic::{cc::CcState, frame::Frame},
    time::Time,
    trace::{Endpoint, TraceEvent, TraceLevel, TraceRecord},
};

/// The trace of one endpoint.
///
/// Invariants: `records` is empty while the level is [`TraceLevel::Off`];
/// `cc_state` is the state last reported by the congestion controller
/// (tracked at every level, recorded only when tracing).
#[derive(Debug)]
pub struct Tracer {
    endpoint: Endpoint,
    level: TraceLevel,
    records: Vec<TraceRecord>,
    /// Packets offered to [`Tracer::frames`] (the `Core` level keeps every
    /// 16th packet without a flow-control frame).
    packets: u64,
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
            packets: 0,
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

    /// The frames to record for a packet, or `None` when this packet is
    /// not traced (tracing off, or `Core` level and no flow-control frame).
    /// STREAM frames lose their payload.
    pub fn frames(&mut self, frames: &[Frame]) -> Option<Vec<Frame>> {
        if !self.on() {
            return None;
        }
        self.packets += 1;
        if self.level == TraceLevel::Core {
            let fc = frames.iter().any(|f| {
                matches!(
                    f,
                    Frame::MaxData { .. }
                        | Frame::MaxStreamData { .. }
                        | Frame::DataBlocked { .. }
                        | Frame::StreamDataBlocked { .. }
                        | Frame::ConnectionClose { .. }
                )
            });
            if !fc && self.packets % 16 != 1 {
                return None;
            }
        }
        Some(
            frames
                .iter()
                .map(|f| match f {
                    Frame::Stream {
                        stream_id,
                        offset,
                        length,
                        fin,
                        ..
                    } => Frame::Stream {
                        stream_id: *stream_id,
                        offset: *offset,
                        length: *length,
                        fin: *fin,
                        data: None,
                    },
                    other => other.clone(),
                })
                .collect(),
        )
    }

    /// The congestion controller is in `state`: records the change, if it
    /// is one.
    pub fn cc_state(&mut self, now: Time, state: CcState) {
        if state != self.cc_state {
            let old = self.cc_state;
            self.cc_state = state;
            self.record(now, TraceEvent::CongestionStateUpdated { old, new: state });
        }
    }

    /// The records so far, leaving the trace empty.
    pub fn take(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.records)
    }
}
