//! The QUIC frames this transport uses, with their real wire encoding
//! (RFC 9000 §12.4, §19).

use super::ack::AckRanges;
use super::ecn_counts::EcnCounts;
use super::varint::{DecodeError, Decoder, MAX_VARINT, encode_varint, varint_len};

/// Frame type codes (RFC 9000 §12.4, Table 3).
mod frame_type {
    pub const PADDING: u64 = 0x00;
    pub const PING: u64 = 0x01;
    pub const ACK: u64 = 0x02;
    pub const ACK_ECN: u64 = 0x03;
    pub const RESET_STREAM: u64 = 0x04;
    /// STREAM is 0x08..=0x0f; the low three bits are OFF, LEN and FIN.
    pub const STREAM: u64 = 0x08;
    pub const STREAM_OFF: u64 = 0x04;
    pub const STREAM_LEN: u64 = 0x02;
    pub const STREAM_FIN: u64 = 0x01;
    pub const MAX_DATA: u64 = 0x10;
    pub const MAX_STREAM_DATA: u64 = 0x11;
    pub const MAX_STREAMS_BIDI: u64 = 0x12;
    pub const MAX_STREAMS_UNI: u64 = 0x13;
    pub const DATA_BLOCKED: u64 = 0x14;
    pub const STREAM_DATA_BLOCKED: u64 = 0x15;
    pub const CONNECTION_CLOSE: u64 = 0x1c;
    /// draft-ietf-quic-ack-frequency's ACK_FREQUENCY.
    pub const ACK_FREQUENCY: u64 = 0xaf;
}

/// One QUIC frame.
///
/// Invariants for a frame that is encoded: every integer field is at most
/// [`MAX_VARINT`]; for `Stream`, `offset + length <= MAX_VARINT` and
/// `data`, when present, holds exactly `length` bytes; for `Ack`,
/// `largest == ranges.largest()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// A run of `len` PADDING (0x00) bytes; decoding coalesces a run.
    Padding {
        /// Number of 0x00 bytes.
        len: usize,
    },
    /// PING (0x01): ack-eliciting, no content.
    Ping,
    /// ACK (0x02, §19.3).
    Ack {
        /// Largest Acknowledged packet number.
        largest: u64,
        /// ACK Delay in encoded units: microseconds >> ack_delay_exponent.
        ack_delay: u64,
        /// The acknowledged ranges.
        ranges: AckRanges,
        /// ECN counts (type 0x03, §19.3.2); `None` for type 0x02.
        ecn: Option<EcnCounts>,
    },
    /// RESET_STREAM (0x04, §19.4).
    ResetStream {
        /// Stream being reset.
        stream_id: u64,
        /// Application Protocol Error Code.
        error_code: u64,
        /// Final size of the stream in bytes.
        final_size: u64,
    },
    /// STREAM (0x08..=0x0f, §19.8).
    Stream {
        /// Stream the data belongs to.
        stream_id: u64,
        /// Byte offset of the first data byte in the stream.
        offset: u64,
        /// Number of data bytes.
        length: u64,
        /// FIN bit: this frame ends the stream.
        fin: bool,
        /// The bytes, or `None` for a virtual payload of `length` bytes
        /// (encoded as zeros). Decoding always yields `Some`.
        data: Option<Vec<u8>>,
    },
    /// MAX_DATA (0x10, §19.9).
    MaxData {
        /// New connection-level limit in bytes.
        maximum: u64,
    },
    /// MAX_STREAM_DATA (0x11, §19.10).
    MaxStreamData {
        /// Stream the limit applies to.
        stream_id: u64,
        /// New stream-level limit in bytes.
        maximum: u64,
    },
    /// MAX_STREAMS (0x12 bidirectional, 0x13 unidirectional, §19.11).
    MaxStreams {
        /// True for bidirectional streams.
        bidi: bool,
        /// Streams of that type the peer may open in all (≤ 2^60).
        maximum: u64,
    },
    /// DATA_BLOCKED (0x14, §19.12).
    DataBlocked {
        /// Connection-level limit at which the sender is blocked.
        limit: u64,
    },
    /// STREAM_DATA_BLOCKED (0x15, §19.13).
    StreamDataBlocked {
        /// Blocked stream.
        stream_id: u64,
        /// Stream-level limit at which the sender is blocked.
        limit: u64,
    },
    /// ACK_FREQUENCY (0xaf, draft-ietf-quic-ack-frequency, in the form
    /// neqo 0.30 speaks): the sender asks its peer to acknowledge once
    /// `packet_tolerance` ack-eliciting packets are unacknowledged, or
    /// `max_ack_delay_us` after the first of them. A frame whose
    /// `sequence` is below one already applied is ignored.
    AckFrequency {
        /// Sequence number; increases with every new request.
        sequence: u64,
        /// Ack-eliciting packets per ACK (≥ 1).
        packet_tolerance: u64,
        /// The longest the peer may delay an ACK, in microseconds.
        max_ack_delay_us: u64,
        /// Out-of-order packets the peer tolerates before acknowledging
        /// at once; 0 = acknowledge every out-of-order packet at once.
        reordering_threshold: u64,
    },
    /// CONNECTION_CLOSE carrying a transport error (0x1c, §19.19).
    ConnectionClose {
        /// Transport error code.
        error_code: u64,
        /// Type of the frame that triggered the error (0 if unknown).
        frame_type: u64,
        /// Reason phrase (UTF-8 by convention, not checked).
        reason: Vec<u8>,
    },
}

impl Frame {
    /// The frame type as it appears on the wire (for STREAM, with the
    /// OFF/LEN/FIN bits [`Frame::encode`] uses).
    #[must_use]
    pub fn frame_type(&self) -> u64 {
        use frame_type as t;
        match self {
            Self::Padding { .. } => t::PADDING,
            Self::Ping => t::PING,
            Self::Ack { ecn: None, .. } => t::ACK,
            Self::Ack { ecn: Some(_), .. } => t::ACK_ECN,
            Self::ResetStream { .. } => t::RESET_STREAM,
            Self::Stream { offset, fin, .. } => {
                let off = if *offset > 0 { t::STREAM_OFF } else { 0 };
                t::STREAM | off | t::STREAM_LEN | u64::from(*fin)
            }
            Self::MaxData { .. } => t::MAX_DATA,
            Self::MaxStreamData { .. } => t::MAX_STREAM_DATA,
            Self::MaxStreams { bidi: true, .. } => t::MAX_STREAMS_BIDI,
            Self::MaxStreams { bidi: false, .. } => t::MAX_STREAMS_UNI,
            Self::DataBlocked { .. } => t::DATA_BLOCKED,
            Self::StreamDataBlocked { .. } => t::STREAM_DATA_BLOCKED,
            Self::ConnectionClose { .. } => t::CONNECTION_CLOSE,
            Self::AckFrequency { .. } => t::ACK_FREQUENCY,
        }
    }

    /// True for frames that make the peer send an ACK: everything except
    /// PADDING, ACK and CONNECTION_CLOSE (RFC 9002 §2).
    #[must_use]
    pub const fn is_ack_eliciting(&self) -> bool {
        !matches!(
            self,
            Self::Padding { .. } | Self::Ack { .. } | Self::ConnectionClose { .. }
        )
    }

    /// Exact number of bytes [`Frame::encode`] writes.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        let vl = varint_len;
        match self {
            Self::Padding { len } => *len,
            Self::Ping => 1,
            Self::Ack {
                largest,
                ack_delay,
                ranges,
                ecn,
            } => {
                1 + vl(*largest)
                    + vl(*ack_delay)
                    + ranges.encoded_len()
                    + ecn.as_ref().map_or(0, EcnCounts::encoded_len)
            }
            Self::ResetStream {
                stream_id,
                error_code,
                final_size,
            } => 1 + vl(*stream_id) + vl(*error_code) + vl(*final_size),
            Self::Stream {
                stream_id,
                offset,
                length,
                ..
            } => {
                let off = if *offset > 0 { vl(*offset) } else { 0 };
                1 + vl(*stream_id) + off + vl(*length) + *length as usize
            }
            Self::MaxData { maximum } => 1 + vl(*maximum),
            Self::MaxStreamData { stream_id, maximum } => 1 + vl(*stream_id) + vl(*maximum),
            Self::MaxStreams { maximum, .. } => 1 + vl(*maximum),
            Self::DataBlocked { limit } => 1 + vl(*limit),
            Self::StreamDataBlocked { stream_id, limit } => 1 + vl(*stream_id) + vl(*limit),
            Self::AckFrequency {
                sequence,
                packet_tolerance,
                max_ack_delay_us,
                reordering_threshold,
            } => {
                vl(frame_type::ACK_FREQUENCY)
                    + vl(*sequence)
                    + vl(*packet_tolerance)
                    + vl(*max_ack_delay_us)
                    + vl(*reordering_threshold)
            }
            Self::ConnectionClose {
                error_code,
                frame_type,
                reason,
            } => 1 + vl(*error_code) + vl(*frame_type) + vl(reason.len() as u64) + reason.len(),
        }
    }

    /// Appends the wire encoding (exactly [`Frame::encoded_len`] bytes).
    /// A STREAM frame without data writes `length` zero bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let ty = self.frame_type();
        match self {
            Self::Padding { len } => out.resize(out.len() + len, 0),
            Self::Ping => encode_varint(ty, out),
            Self::Ack {
                largest,
                ack_delay,
                ranges,
                ecn,
            } => {
                debug_assert_eq!(*largest, ranges.largest());
                encode_varint(ty, out);
                encode_varint(*largest, out);
                encode_varint(*ack_delay, out);
                ranges.encode(out);
                if let Some(counts) = ecn {
                    counts.encode(out);
                }
            }
            Self::ResetStream {
                stream_id,
                error_code,
                final_size,
            } => encode_all(out, &[ty, *stream_id, *error_code, *final_size]),
            Self::Stream {
                stream_id,
                offset,
                length,
                data,
                ..
            } => {
                debug_assert!(offset.saturating_add(*length) <= MAX_VARINT);
                encode_varint(ty, out);
                encode_varint(*stream_id, out);
                if *offset > 0 {
                    encode_varint(*offset, out);
                }
                encode_varint(*length, out);
                let length = *length as usize;
                let body = data.as_deref().unwrap_or_default();
                debug_assert!(data.is_none() || body.len() == length);
                let copied = body.len().min(length);
                out.extend_from_slice(&body[..copied]);
                out.resize(out.len() + (length - copied), 0);
            }
            Self::MaxData { maximum } => encode_all(out, &[ty, *maximum]),
            Self::MaxStreamData { stream_id, maximum } => {
                encode_all(out, &[ty, *stream_id, *maximum]);
            }
            Self::MaxStreams { maximum, .. } => encode_all(out, &[ty, *maximum]),
            Self::DataBlocked { limit } => encode_all(out, &[ty, *limit]),
            Self::StreamDataBlocked { stream_id, limit } => {
                encode_all(out, &[ty, *stream_id, *limit]);
            }
            Self::AckFrequency {
                sequence,
                packet_tolerance,
                max_ack_delay_us,
                reordering_threshold,
            } => encode_all(
                out,
                &[
                    ty,
                    *sequence,
                    *packet_tolerance,
                    *max_ack_delay_us,
                    *reordering_threshold,
                ],
            ),
            Self::ConnectionClose {
                error_code,
                frame_type,
                reason,
            } => {
                encode_all(out, &[ty, *error_code, *frame_type, reason.len() as u64]);
                out.extend_from_slice(reason);
            }
        }
        debug_assert_eq!(out.len() - start, self.encoded_len());
    }

    /// Reads one frame. A PADDING frame swallows the whole run of 0x00 bytes
    /// that follows it. ACK_ECN (0x03) is accepted and its counts dropped.
    ///
    /// # Errors
    /// Any [`DecodeError`]; the input is never trusted for allocation sizes
    /// beyond what it actually holds.
    pub fn decode(dec: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        use frame_type as t;
        let before = dec.remaining();
        let ty = dec.decode_varint()?;
        // RFC 9000 §12.4: frame types use the shortest encoding.
        if before - dec.remaining() != varint_len(ty) {
            return Err(DecodeError::InvalidFrame(
                "frame type not minimally encoded",
            ));
        }
        let frame = match ty {
            t::PADDING => {
                let mut len = 1;
                while dec.peek_u8() == Some(0) {
                    dec.decode_u8()?;
                    len += 1;
                }
                Self::Padding { len }
            }
            t::PING => Self::Ping,
            t::ACK | t::ACK_ECN => {
                let largest = dec.decode_varint()?;
                let ack_delay = dec.decode_varint()?;
                let ranges = AckRanges::decode(largest, dec)?;
                let ecn = if ty == t::ACK_ECN {
                    Some(EcnCounts::decode(dec)?)
                } else {
                    None
                };
                Self::Ack {
                    largest,
                    ack_delay,
                    ranges,
                    ecn,
                }
            }
            t::RESET_STREAM => Self::ResetStream {
                stream_id: dec.decode_varint()?,
                error_code: dec.decode_varint()?,
                final_size: dec.decode_varint()?,
            },
            0x08..=0x0f => {
                let stream_id = dec.decode_varint()?;
                let offset = if ty & t::STREAM_OFF != 0 {
                    dec.decode_varint()?
                } else {
                    0
                };
                let length = if ty & t::STREAM_LEN != 0 {
                    dec.decode_varint()?
                } else {
                    dec.remaining() as u64
                };
                // RFC 9000 §19.8: offset + length must stay below 2^62.
                if offset + length > MAX_VARINT {
                    return Err(DecodeError::ValueTooLarge);
                }
                let data = take_checked(dec, length)?.to_vec();
                Self::Stream {
                    stream_id,
                    offset,
                    length,
                    fin: ty & t::STREAM_FIN != 0,
                    data: Some(data),
                }
            }
            t::MAX_DATA => Self::MaxData {
                maximum: dec.decode_varint()?,
            },
            t::MAX_STREAM_DATA => Self::MaxStreamData {
                stream_id: dec.decode_varint()?,
                maximum: dec.decode_varint()?,
            },
            t::MAX_STREAMS_BIDI | t::MAX_STREAMS_UNI => {
                let maximum = dec.decode_varint()?;
                // RFC 9000 §19.11: more than 2^60 streams cannot be named.
                if maximum > 1 << 60 {
                    return Err(DecodeError::ValueTooLarge);
                }
                Self::MaxStreams {
                    bidi: ty == t::MAX_STREAMS_BIDI,
                    maximum,
                }
            }
            t::DATA_BLOCKED => Self::DataBlocked {
                limit: dec.decode_varint()?,
            },
            t::STREAM_DATA_BLOCKED => Self::StreamDataBlocked {
                stream_id: dec.decode_varint()?,
                limit: dec.decode_varint()?,
            },
            t::ACK_FREQUENCY => {
                let sequence = dec.decode_varint()?;
                let packet_tolerance = dec.decode_varint()?;
                if packet_tolerance == 0 {
                    return Err(DecodeError::InvalidFrame(
                        "ACK_FREQUENCY packet tolerance 0",
                    ));
                }
                Self::AckFrequency {
                    sequence,
                    packet_tolerance,
                    max_ack_delay_us: dec.decode_varint()?,
                    reordering_threshold: dec.decode_varint()?,
                }
            }
            t::CONNECTION_CLOSE => {
                let error_code = dec.decode_varint()?;
                let frame_type = dec.decode_varint()?;
                let len = dec.decode_varint()?;
                Self::ConnectionClose {
                    error_code,
                    frame_type,
                    reason: take_checked(dec, len)?.to_vec(),
                }
            }
            other => return Err(DecodeError::UnknownFrameType(other)),
        };
        Ok(frame)
    }
}

/// Decodes every frame in a packet payload.
///
/// # Errors
/// The first [`DecodeError`] met; no partial result.
pub fn decode_frames(bytes: &[u8]) -> Result<Vec<Frame>, DecodeError> {
    let mut dec = Decoder::new(bytes);
    let mut frames = Vec::new();
    while !dec.is_empty() {
        frames.push(Frame::decode(&mut dec)?);
    }
    Ok(frames)
}

fn encode_all(out: &mut Vec<u8>, values: &[u64]) {
    for &v in values {
        encode_varint(v, out);
    }
}

/// `dec.take(len)` for a length read from the wire, checked against the
/// remaining input before any conversion or allocation.
fn take_checked<'a>(dec: &mut Decoder<'a>, len: u64) -> Result<&'a [u8], DecodeError> {
    if len > dec.remaining() as u64 {
        return Err(DecodeError::Truncated);
    }
    dec.take(len as usize)
}

#[cfg(test)]
mod tests;
