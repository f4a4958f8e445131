//! The server carrying out a scripted [`Hostile`] misbehaviour (issue #6):
//! the extra frames it puts in its packets and the ACKs it holds back.
//!
//! Only the server misbehaves; the client is the system under test. With
//! no [`Hostile`] set, none of this code runs.

use std::collections::VecDeque;

use crate::{quic::frame::Frame, scenario::Hostile, time::Time};

use super::{packet::pattern, send_stream::SendStream};

/// Encoded size below which no extra frame is added (largest control
/// frame: 1 type byte + two 8-byte varints, plus slack).
const ROOM: usize = 24;

/// STREAM frame header bound: type + id + offset + length varints.
const STREAM_HEADER: usize = 1 + 8 + 8 + 2;

/// The server's misbehaviour during one run.
///
/// Invariant: `extra_left` only decreases; at most `per_packet` frames are
/// added to a packet, so the work per packet stays bounded.
#[derive(Clone, Debug)]
pub struct HostileSender {
    mode: Hostile,
    extra_left: u64,
    /// Round-robin cursor over the send streams (flood target).
    cursor: usize,
    /// ACK frames held back, with their release times (ascending).
    held_acks: VecDeque<(Time, Frame)>,
}

impl HostileSender {
    /// The sender side of `mode`.
    #[must_use]
    pub fn new(mode: Hostile) -> Self {
        let extra_left = match mode {
            Hostile::IgnoreLimits { extra } => extra,
            _ => 0,
        };
        Self {
            mode,
            extra_left,
            cursor: 0,
            held_acks: VecDeque::new(),
        }
    }

    /// Takes an ACK frame made at `now`: returns it to send at once, or
    /// holds it for [`Hostile::DelayAcks`]' delay and returns `None`.
    pub fn hold_ack(&mut self, now: Time, ack: Frame) -> Option<Frame> {
        match self.mode.ack_delay() {
            Some(delay) => {
                self.held_acks.push_back((now + delay, ack));
                None
            }
            None => Some(ack),
        }
    }

    /// The newest held ACK due at `now` (older due ones are dropped: the
    /// newer acknowledges at least as much).
    pub fn release_ack(&mut self, now: Time) -> Option<Frame> {
        let mut out = None;
        while self.held_acks.front().is_some_and(|(t, _)| *t <= now) {
            out = self.held_acks.pop_front().map(|(_, f)| f);
        }
        out
    }

    /// When the next held ACK is due.
    #[must_use]
    pub fn next_ack_release(&self) -> Option<Time> {
        self.held_acks.front().map(|(t, _)| *t)
    }

    /// The misbehaviour.
    #[must_use]
    pub fn mode(&self) -> Hostile {
        self.mode
    }

    /// Adds the hostile frames to a packet being built, within `space`.
    /// `conn_limit` is the peer's current MAX_DATA, `initial_conn` the
    /// initial one. Returns the *_BLOCKED frames added (for the stats).
    /// The frames are not recorded for retransmission.
    pub fn add_frames(
        &mut self,
        streams: &[SendStream],
        conn_limit: u64,
        initial_conn: u64,
        verify: bool,
        space: &mut usize,
        frames: &mut Vec<Frame>,
    ) -> u64 {
        match self.mode {
            Hostile::IgnoreLimits { .. } => {
                self.overrun(streams, verify, space, frames);
                0
            }
            Hostile::FloodBlocked { per_packet } => {
                let mut added = 0;
                for k in 0..per_packet {
                    let f = if k % 2 == 0 || streams.is_empty() {
                        Frame::DataBlocked { limit: conn_limit }
                    } else {
                        self.cursor = (self.cursor + 1) % streams.len();
                        let s = &streams[self.cursor];
                        Frame::StreamDataBlocked {
                            stream_id: s.id,
                            limit: s.fc.limit(),
                        }
                    };
                    if !push_within(f, space, frames) {
                        break;
                    }
                    added += 1;
                }
                added
            }
            Hostile::DuplicateMaxData { per_packet } => {
                for k in 0..per_packet {
                    // Alternate a duplicate of the initial limit and an
                    // older, smaller one: neither may raise any credit.
                    let maximum = if k % 2 == 0 {
                        initial_conn
                    } else {
                        initial_conn / 2
                    };
                    if !push_within(Frame::MaxData { maximum }, space, frames) {
                        break;
                    }
                }
                0
            }
            Hostile::ManyStreams { .. } | Hostile::DelayAcks { .. } | Hostile::PaceFast => 0,
        }
    }

    /// Sends up to `extra_left` bytes past the limit of the first stream
    /// that its limit blocks.
    fn overrun(
        &mut self,
        streams: &[SendStream],
        verify: bool,
        space: &mut usize,
        frames: &mut Vec<Frame>,
    ) {
        if self.extra_left == 0 || *space <= STREAM_HEADER + ROOM {
            return;
        }
        let Some(s) = streams.iter().find(|s| s.stream_blocked()) else {
            return;
        };
        let room = (*space - STREAM_HEADER) as u64;
        let len = self.extra_left.min(room).min(s.new_left());
        let offset = s.fc.limit();
        let f = Frame::Stream {
            stream_id: s.id,
            offset,
            length: len,
            fin: false,
            data: verify.then(|| pattern(s.id, offset, len)),
        };
        if push_within(f, space, frames) {
            self.extra_left -= len;
        }
    }
}

/// Appends `f` if it fits in `space`, and charges its encoded length.
fn push_within(f: Frame, space: &mut usize, frames: &mut Vec<Frame>) -> bool {
    let len = f.encoded_len();
    if len > *space {
        return false;
    }
    *space -= len;
    frames.push(f);
    true
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn blocked_stream() -> SendStream {
        let mut s = SendStream::new(3, 10_000, 1_000, None);
        assert!(s.next_chunk(5_000, u64::MAX).is_some());
        assert!(s.stream_blocked());
        s
    }

    #[test]
    fn held_acks_leave_exactly_delay_later_newest_first() {
        let delay = Duration::from_millis(100);
        let mut h = HostileSender::new(Hostile::DelayAcks { delay });
        let t0 = Time::ZERO + Duration::from_millis(5);
        assert_eq!(h.hold_ack(t0, Frame::Ping), None);
        assert_eq!(
            h.hold_ack(t0 + Duration::from_millis(1), Frame::Padding { len: 1 }),
            None
        );
        assert_eq!(h.next_ack_release(), Some(t0 + delay));
        let just_before = t0 + (delay - Duration::from_nanos(1));
        assert_eq!(h.release_ack(just_before), None);
        assert_eq!(h.release_ack(t0 + delay), Some(Frame::Ping));
        assert_eq!(
            h.release_ack(t0 + delay * 2),
            Some(Frame::Padding { len: 1 })
        );
        assert_eq!(h.next_ack_release(), None);
        let mut plain = HostileSender::new(Hostile::PaceFast);
        assert_eq!(plain.hold_ack(t0, Frame::Ping), Some(Frame::Ping));
    }

    #[test]
    fn overrun_starts_at_the_limit_and_stops_after_extra() {
        let streams = [blocked_stream()];
        let mut h = HostileSender::new(Hostile::IgnoreLimits { extra: 1_500 });
        let mut frames = Vec::new();
        let mut space = 1_000;
        h.add_frames(&streams, 0, 0, false, &mut space, &mut frames);
        let Frame::Stream { offset, length, .. } = frames[0] else {
            panic!("{frames:?}");
        };
        assert_eq!((offset, length), (1_000, 1_000 - 19));
        let mut space = 1_400;
        h.add_frames(&streams, 0, 0, false, &mut space, &mut frames);
        let Frame::Stream { length, .. } = frames[1] else {
            panic!("{frames:?}");
        };
        assert_eq!(length, 1_500 - 981);
        let mut space = 1_400;
        h.add_frames(&streams, 0, 0, false, &mut space, &mut frames);
        assert_eq!(frames.len(), 2);
    }

    #[test]
    fn flood_adds_exactly_per_packet_frames_when_they_fit() {
        let streams = [blocked_stream()];
        let mut h = HostileSender::new(Hostile::FloodBlocked { per_packet: 5 });
        let mut frames = Vec::new();
        let mut space = 1_000;
        assert_eq!(
            h.add_frames(&streams, 500, 0, false, &mut space, &mut frames),
            5
        );
        assert_eq!(frames[0], Frame::DataBlocked { limit: 500 });
        assert_eq!(
            frames[1],
            Frame::StreamDataBlocked {
                stream_id: 3,
                limit: 1_000
            }
        );
        // A full packet takes only what fits.
        let mut space = 3;
        assert_eq!(
            h.add_frames(&streams, 500, 0, false, &mut space, &mut frames),
            1
        );
        assert_eq!(space, 0);
    }

    #[test]
    fn duplicate_max_data_never_exceeds_the_initial_limit() {
        let mut h = HostileSender::new(Hostile::DuplicateMaxData { per_packet: 4 });
        let mut frames = Vec::new();
        let mut space = 1_000;
        h.add_frames(&[], 0, 1 << 19, false, &mut space, &mut frames);
        assert_eq!(
            frames,
            vec![
                Frame::MaxData { maximum: 1 << 19 },
                Frame::MaxData { maximum: 1 << 18 },
                Frame::MaxData { maximum: 1 << 19 },
                Frame::MaxData { maximum: 1 << 18 },
            ]
        );
    }
}
