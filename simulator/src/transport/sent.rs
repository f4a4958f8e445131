//! What the sender remembers about each packet until it is acknowledged
//! or declared lost (RFC 9002 §A.1.1).

use std::collections::VecDeque;

use smallvec::SmallVec;

use crate::time::Time;

/// A frame whose loss or acknowledgement matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SentFrame {
    /// Stream bytes `[offset, offset + len)` (+ FIN).
    Stream {
        /// Stream ID.
        id: u64,
        /// First byte.
        offset: u64,
        /// Byte count.
        len: u64,
        /// Carried FIN.
        fin: bool,
    },
    /// MAX_DATA, MAX_STREAM_DATA or MAX_STREAMS, as flow control made it.
    Update(neqo_fc::UpdateFrame),
    /// ACK_FREQUENCY request `sequence`.
    AckFrequency {
        /// Sequence number.
        sequence: u64,
        /// Packets per ACK asked for.
        packet_tolerance: u64,
        /// Delay asked for, in microseconds.
        max_ack_delay_us: u64,
    },
    /// DATA_BLOCKED at this limit.
    DataBlocked(u64),
    /// STREAM_DATA_BLOCKED.
    StreamDataBlocked {
        /// Stream ID.
        id: u64,
        /// Limit.
        limit: u64,
    },
}

impl SentFrame {
    /// The frame as it went on the wire (STREAM frames without payload).
    #[must_use]
    pub fn as_frame(&self) -> crate::quic::frame::Frame {
        use crate::quic::frame::Frame;
        use neqo_fc::{Direction, UpdateFrame};
        match *self {
            Self::Stream {
                id,
                offset,
                len,
                fin,
            } => Frame::Stream {
                stream_id: id,
                offset,
                length: len,
                fin,
                data: None,
            },
            Self::Update(UpdateFrame::MaxData(maximum)) => Frame::MaxData { maximum },
            Self::Update(UpdateFrame::MaxStreamData { id, limit }) => Frame::MaxStreamData {
                stream_id: id.0,
                maximum: limit,
            },
            Self::Update(UpdateFrame::MaxStreams { direction, limit }) => Frame::MaxStreams {
                bidi: direction == Direction::Bidi,
                maximum: limit,
            },
            Self::AckFrequency {
                sequence,
                packet_tolerance,
                max_ack_delay_us,
            } => Frame::AckFrequency {
                sequence,
                packet_tolerance,
                max_ack_delay_us,
                reordering_threshold: 0,
            },
            Self::DataBlocked(limit) => Frame::DataBlocked { limit },
            Self::StreamDataBlocked { id, limit } => Frame::StreamDataBlocked {
                stream_id: id,
                limit,
            },
        }
    }
}

/// The frames of one packet; most carry one or two, kept inline.
pub type SentFrames = SmallVec<[SentFrame; 2]>;

/// A packet awaiting acknowledgement.
#[derive(Clone, Debug)]
pub struct SentPacket {
    /// Packet number.
    pub pn: u64,
    /// When it was sent.
    pub time_sent: Time,
    /// UDP payload bytes.
    pub size: u32,
    /// Contains an ack-eliciting frame.
    pub ack_eliciting: bool,
    /// Counts toward bytes in flight (ack-eliciting or padded).
    pub in_flight: bool,
    /// The sender was using at least half its congestion window when this
    /// was sent; acks of packets sent otherwise are application-limited
    /// and do not grow the window (RFC 9002 §7.8).
    pub cwnd_limited: bool,
    /// Sent marked ECT(0) (ECN validation counts these).
    pub ect: bool,
    /// Frames to act on at ack / loss.
    pub frames: SentFrames,
}

/// Packets in flight, indexed by packet number (numbers are consecutive).
///
/// Invariant: `slots[i]` holds packet `base + i` or `None` once it was
/// acknowledged or declared lost; the front slot is never `None`.
#[derive(Debug, Default)]
pub struct SentPackets {
    base: u64,
    slots: VecDeque<Option<SentPacket>>,
    outstanding: usize,
}

impl SentPackets {
    /// Records a packet; its number must be the next one.
    pub fn push(&mut self, pkt: SentPacket) {
        if self.slots.is_empty() {
            self.base = pkt.pn;
        }
        debug_assert_eq!(pkt.pn, self.base + self.slots.len() as u64);
        self.slots.push_back(Some(pkt));
        self.outstanding += 1;
    }

    /// Number of packets neither acknowledged nor lost.
    #[must_use]
    pub fn len(&self) -> usize {
        self.outstanding
    }

    /// True when nothing is outstanding.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.outstanding == 0
    }

    /// Removes and returns packet `pn` if it is outstanding.
    pub fn take(&mut self, pn: u64) -> Option<SentPacket> {
        let idx = usize::try_from(pn.checked_sub(self.base)?).ok()?;
        let pkt = self.slots.get_mut(idx)?.take()?;
        self.outstanding -= 1;
        self.trim();
        Some(pkt)
    }

    fn trim(&mut self) {
        while matches!(self.slots.front(), Some(None)) {
            self.slots.pop_front();
            self.base += 1;
        }
    }

    /// Lowest outstanding packet number range end: packets `< end` are in
    /// slots `[base, end)`.
    #[must_use]
    pub fn base(&self) -> u64 {
        self.base
    }

    /// One past the highest recorded packet number.
    #[must_use]
    pub fn end(&self) -> u64 {
        self.base + self.slots.len() as u64
    }

    /// Outstanding packets with numbers below `end`, oldest first.
    pub fn iter_below(&self, end: u64) -> impl Iterator<Item = &SentPacket> {
        let n = usize::try_from(end.saturating_sub(self.base)).unwrap_or(usize::MAX);
        self.slots.iter().take(n).flatten()
    }

    /// All outstanding packets, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &SentPacket> {
        self.slots.iter().flatten()
    }
}
