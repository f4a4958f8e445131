//! The simulator's QUIC frames as qlog 0.3 `QuicFrame`s (the frame objects
//! inside `transport:packet_sent` / `transport:packet_received`).

use neqo_fc_sim::quic::{ack::AckRanges, frame::Frame};
use qlog::events::quic::{AckedRanges, ErrorSpace, QuicFrame, StreamType};

/// `ack_delay_exponent` the transport uses: the RFC 9000 §18.2 default.
/// An ACK frame's ACK Delay field is microseconds shifted right by it
/// (RFC 9000 §19.3).
pub const ACK_DELAY_EXPONENT: u32 = 3;

/// The qlog form of one frame. Every field of the simulator frame that qlog
/// has a slot for is carried over; STREAM payload bytes are never logged,
/// only `offset`, `length` and `fin`.
#[must_use]
pub fn quic_frame(frame: &Frame) -> QuicFrame {
    match frame {
        Frame::Padding { len } => {
            let len = u32::try_from(*len).unwrap_or(u32::MAX);
            QuicFrame::Padding {
                length: Some(len),
                payload_length: len,
            }
        }
        Frame::Ping => QuicFrame::Ping {
            length: None,
            payload_length: None,
        },
        Frame::Ack {
            ack_delay,
            ranges,
            ecn,
            ..
        } => QuicFrame::Ack {
            ack_delay: Some(ack_delay_ms(*ack_delay)),
            acked_ranges: Some(acked_ranges(ranges)),
            ect1: ecn.map(|c| c.ect1),
            ect0: ecn.map(|c| c.ect0),
            ce: ecn.map(|c| c.ce),
            length: None,
            payload_length: None,
        },
        Frame::ResetStream {
            stream_id,
            error_code,
            final_size,
        } => QuicFrame::ResetStream {
            stream_id: *stream_id,
            error_code: *error_code,
            final_size: *final_size,
            length: None,
            payload_length: None,
        },
        Frame::Stream {
            stream_id,
            offset,
            length,
            fin,
            ..
        } => QuicFrame::Stream {
            stream_id: *stream_id,
            offset: *offset,
            length: *length,
            fin: Some(*fin),
            raw: None,
        },
        Frame::MaxData { maximum } => QuicFrame::MaxData { maximum: *maximum },
        Frame::MaxStreamData { stream_id, maximum } => QuicFrame::MaxStreamData {
            stream_id: *stream_id,
            maximum: *maximum,
        },
        Frame::MaxStreams { bidi, maximum } => QuicFrame::MaxStreams {
            stream_type: if *bidi {
                StreamType::Bidirectional
            } else {
                StreamType::Unidirectional
            },
            maximum: *maximum,
        },
        Frame::DataBlocked { limit } => QuicFrame::DataBlocked { limit: *limit },
        Frame::StreamDataBlocked { stream_id, limit } => QuicFrame::StreamDataBlocked {
            stream_id: *stream_id,
            limit: *limit,
        },
        // qlog 0.3 has no ACK_FREQUENCY object: it goes as an unknown
        // frame of its type, with its encoded length.
        Frame::AckFrequency { .. } => QuicFrame::Unknown {
            raw_frame_type: frame.frame_type(),
            frame_type_value: None,
            raw: Some(qlog::events::RawInfo {
                length: Some(frame.encoded_len() as u64),
                payload_length: None,
                data: None,
            }),
        },
        Frame::ConnectionClose {
            error_code,
            frame_type,
            reason,
        } => QuicFrame::ConnectionClose {
            error_space: Some(ErrorSpace::TransportError),
            error_code: Some(*error_code),
            error_code_value: None,
            reason: Some(String::from_utf8_lossy(reason).into_owned()),
            trigger_frame_type: Some(*frame_type),
        },
    }
}

/// ACK Delay field (encoded units) in milliseconds: `encoded <<
/// ack_delay_exponent` microseconds (RFC 9000 §19.3), saturating.
#[must_use]
pub fn ack_delay_ms(encoded: u64) -> f32 {
    let micros = encoded.saturating_mul(1 << ACK_DELAY_EXPONENT);
    (micros as f64 / 1000.0) as f32
}

/// `[[smallest, largest], …]` pairs, lowest range first (qlog's
/// `acked_ranges`; both ends inclusive).
fn acked_ranges(ranges: &AckRanges) -> AckedRanges {
    let mut pairs: Vec<(u64, u64)> = ranges.iter().map(|r| (*r.start(), *r.end())).collect();
    pairs.reverse();
    AckedRanges::Double(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn js(frame: &Frame) -> serde_json::Value {
        serde_json::to_value(quic_frame(frame)).unwrap()
    }

    #[test]
    fn stream_carries_offset_length_fin_not_data() {
        let f = Frame::Stream {
            stream_id: 4,
            offset: 1_000,
            length: 1_200,
            fin: true,
            data: Some(vec![7; 1_200]),
        };
        assert_eq!(
            js(&f),
            json!({"frame_type": "stream", "stream_id": 4, "offset": 1000, "length": 1200, "fin": true})
        );
        let f = Frame::Stream {
            stream_id: 0,
            offset: 0,
            length: 1,
            fin: false,
            data: None,
        };
        assert_eq!(
            js(&f),
            json!({"frame_type": "stream", "stream_id": 0, "offset": 0, "length": 1, "fin": false})
        );
    }

    /// qlog 0.3 has no ACK_FREQUENCY object: an unknown frame of type
    /// 0xaf with its length, which qvis shows by type.
    #[test]
    fn ack_frequency_is_an_unknown_frame_of_its_type() {
        let f = Frame::AckFrequency {
            sequence: 1,
            packet_tolerance: 2,
            max_ack_delay_us: 5000,
            reordering_threshold: 0,
        };
        let v = js(&f);
        assert_eq!(v["frame_type"], "unknown");
        assert_eq!(v["raw_frame_type"], 0xaf);
        assert_eq!(v["raw"]["length"], 7);
    }

    #[test]
    fn ack_ranges_ascending_and_delay_in_ms() {
        // Ranges 10..=19, 5..=5, 0..=2 (highest first, as the wire has them).
        let ranges = AckRanges::from_pairs(vec![(19, 10), (5, 5), (2, 0)]).unwrap();
        let f = Frame::Ack {
            largest: 19,
            ack_delay: 5, // 5 << 3 = 40 µs
            ranges,
            ecn: None,
        };
        assert_eq!(
            js(&f),
            json!({"frame_type": "ack", "ack_delay": 0.04_f32, "acked_ranges": [[0, 2], [5, 5], [10, 19]]})
        );
    }

    #[test]
    fn ack_ecn_counts_are_named_as_qlog_names_them() {
        let f = Frame::Ack {
            largest: 2,
            ack_delay: 0,
            ranges: AckRanges::from_pairs(vec![(2, 0)]).unwrap(),
            ecn: Some(neqo_fc_sim::quic::EcnCounts {
                ect0: 2,
                ect1: 0,
                ce: 1,
            }),
        };
        assert_eq!(
            js(&f),
            json!({"frame_type": "ack", "ack_delay": 0.0_f32, "acked_ranges": [[0, 2]],
                   "ect1": 0, "ect0": 2, "ce": 1})
        );
    }

    #[test]
    fn ack_delay_conversion_and_saturation() {
        assert_eq!(ack_delay_ms(0), 0.0);
        assert_eq!(ack_delay_ms(125), 1.0); // 1000 µs
        assert_eq!(ack_delay_ms(3_125), 25.0); // max_ack_delay 25 ms
        assert_eq!(ack_delay_ms(u64::MAX), (u64::MAX as f64 / 1000.0) as f32);
    }

    #[test]
    fn flow_control_frames() {
        assert_eq!(
            js(&Frame::MaxData { maximum: 1 << 20 }),
            json!({"frame_type": "max_data", "maximum": 1_048_576})
        );
        assert_eq!(
            js(&Frame::MaxStreamData {
                stream_id: 8,
                maximum: 262_144
            }),
            json!({"frame_type": "max_stream_data", "stream_id": 8, "maximum": 262_144})
        );
        assert_eq!(
            js(&Frame::DataBlocked { limit: 524_288 }),
            json!({"frame_type": "data_blocked", "limit": 524_288})
        );
        assert_eq!(
            js(&Frame::StreamDataBlocked {
                stream_id: 0,
                limit: 262_144
            }),
            json!({"frame_type": "stream_data_blocked", "stream_id": 0, "limit": 262_144})
        );
    }

    #[test]
    fn other_frames() {
        assert_eq!(
            js(&Frame::Padding { len: 37 }),
            json!({"frame_type": "padding", "length": 37, "payload_length": 37})
        );
        assert_eq!(
            js(&Frame::Padding { len: usize::MAX }),
            json!({"frame_type": "padding", "length": u32::MAX, "payload_length": u32::MAX})
        );
        assert_eq!(js(&Frame::Ping), json!({"frame_type": "ping"}));
        assert_eq!(
            js(&Frame::ResetStream {
                stream_id: 4,
                error_code: 7,
                final_size: 1000
            }),
            json!({"frame_type": "reset_stream", "stream_id": 4, "error_code": 7, "final_size": 1000})
        );
        assert_eq!(
            js(&Frame::ConnectionClose {
                error_code: 3,
                frame_type: 0x08,
                reason: b"flow control \xff".to_vec()
            }),
            json!({
                "frame_type": "connection_close",
                "error_space": "transport_error",
                "error_code": 3,
                "reason": "flow control \u{fffd}",
                "trigger_frame_type": 8
            })
        );
    }
}
