use super::*;
use crate::quic::ranges::RangeSet;

fn enc(f: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    f.encode(&mut out);
    assert_eq!(out.len(), f.encoded_len(), "{f:?}");
    out
}

fn ack(ranges: &[(u64, u64)]) -> Frame {
    let mut s = RangeSet::new();
    for &(a, b) in ranges {
        s.insert(a, b);
    }
    let ranges = AckRanges::from_range_set(&s).unwrap();
    Frame::Ack {
        largest: ranges.largest(),
        ack_delay: 5,
        ranges,
        ecn: None,
    }
}

fn with_ecn(f: Frame, counts: EcnCounts) -> Frame {
    match f {
        Frame::Ack {
            largest,
            ack_delay,
            ranges,
            ..
        } => Frame::Ack {
            largest,
            ack_delay,
            ranges,
            ecn: Some(counts),
        },
        f => f,
    }
}

#[test]
fn exact_encodings() {
    let cases: Vec<(Frame, Vec<u8>)> = vec![
        (Frame::Padding { len: 3 }, vec![0, 0, 0]),
        (Frame::Ping, vec![0x01]),
        // MAX_DATA: type 0x10, 16384 needs the 4-byte form.
        (
            Frame::MaxData { maximum: 16384 },
            vec![0x10, 0x80, 0x00, 0x40, 0x00],
        ),
        (Frame::MaxData { maximum: 16383 }, vec![0x10, 0x7f, 0xff]),
        (
            Frame::MaxStreamData {
                stream_id: 4,
                maximum: 63,
            },
            vec![0x11, 0x04, 0x3f],
        ),
        (
            Frame::MaxStreams {
                bidi: false,
                maximum: 3,
            },
            vec![0x13, 0x03],
        ),
        (
            Frame::MaxStreams {
                bidi: true,
                maximum: 100,
            },
            vec![0x12, 0x40, 0x64],
        ),
        (Frame::DataBlocked { limit: 64 }, vec![0x14, 0x40, 0x40]),
        // ACK_FREQUENCY: type 0xaf takes the 2-byte form; 5,000 µs too.
        (
            Frame::AckFrequency {
                sequence: 1,
                packet_tolerance: 2,
                max_ack_delay_us: 5000,
                reordering_threshold: 0,
            },
            vec![0x40, 0xaf, 0x01, 0x02, 0x53, 0x88, 0x00],
        ),
        (
            Frame::StreamDataBlocked {
                stream_id: 8,
                limit: 1,
            },
            vec![0x15, 0x08, 0x01],
        ),
        (
            Frame::ResetStream {
                stream_id: 0,
                error_code: 7,
                final_size: 1000,
            },
            vec![0x04, 0x00, 0x07, 0x43, 0xe8],
        ),
        // STREAM, offset 0: no OFF bit; LEN and FIN bits: 0x0b.
        (
            Frame::Stream {
                stream_id: 4,
                offset: 0,
                length: 3,
                fin: true,
                data: Some(b"abc".to_vec()),
            },
            vec![0x0b, 0x04, 0x03, b'a', b'b', b'c'],
        ),
        // STREAM, offset 100 (2-byte varint), virtual payload: 0x0e.
        (
            Frame::Stream {
                stream_id: 4,
                offset: 100,
                length: 2,
                fin: false,
                data: None,
            },
            vec![0x0e, 0x04, 0x40, 0x64, 0x02, 0, 0],
        ),
        // ACK 10..=19, 5..=5, 0..=2, delay 5.
        (
            ack(&[(0, 3), (5, 6), (10, 20)]),
            vec![0x02, 19, 5, 2, 9, 3, 0, 1, 2],
        ),
        // ACK_ECN 0..=2, delay 5, ECT0 3, ECT1 0, CE 1.
        (
            with_ecn(
                ack(&[(0, 3)]),
                EcnCounts {
                    ect0: 3,
                    ect1: 0,
                    ce: 1,
                },
            ),
            vec![0x03, 2, 5, 0, 2, 3, 0, 1],
        ),
        (
            Frame::ConnectionClose {
                error_code: 0x03,
                frame_type: 0x08,
                reason: b"x".to_vec(),
            },
            vec![0x1c, 0x03, 0x08, 0x01, b'x'],
        ),
    ];
    for (frame, bytes) in cases {
        assert_eq!(enc(&frame), bytes, "{frame:?}");
        let decoded = decode_frames(&bytes).unwrap();
        let expect = match frame {
            Frame::Stream {
                stream_id,
                offset,
                length,
                fin,
                data: None,
            } => Frame::Stream {
                stream_id,
                offset,
                length,
                fin,
                data: Some(vec![0; length as usize]),
            },
            f => f,
        };
        assert_eq!(decoded, [expect]);
    }
}

#[test]
fn decode_variants_not_produced_by_encode() {
    // STREAM without LEN bit: data runs to the end of the packet.
    let f = decode_frames(&[0x08, 0x04, b'h', b'i']).unwrap();
    assert_eq!(
        f,
        [Frame::Stream {
            stream_id: 4,
            offset: 0,
            length: 2,
            fin: false,
            data: Some(b"hi".to_vec()),
        }]
    );
    // ACK_ECN: the counts are kept (and ranges re-encode as type 0x03).
    let f = decode_frames(&[0x03, 7, 0, 0, 3, 1, 2, 3]).unwrap();
    let counts = EcnCounts {
        ect0: 1,
        ect1: 2,
        ce: 3,
    };
    assert_eq!(f, [with_ecn(ack(&[(4, 8)]).clone_with_delay(0), counts)]);
    // Truncated counts are an error, not a frame without them.
    assert!(decode_frames(&[0x03, 7, 0, 0, 3, 1, 2]).is_err());
    // Padding runs coalesce, around other frames too.
    let f = decode_frames(&[0, 0, 1, 0, 0, 0]).unwrap();
    assert_eq!(
        f,
        [
            Frame::Padding { len: 2 },
            Frame::Ping,
            Frame::Padding { len: 3 }
        ]
    );
}

impl Frame {
    fn clone_with_delay(&self, d: u64) -> Frame {
        match self.clone() {
            Frame::Ack {
                largest,
                ranges,
                ecn,
                ..
            } => Frame::Ack {
                largest,
                ack_delay: d,
                ranges,
                ecn,
            },
            f => f,
        }
    }
}

#[test]
fn malformed_input_is_rejected() {
    use DecodeError::*;
    let cases: &[(&[u8], DecodeError)] = &[
        (&[0x02, 5, 0, 0], Truncated),
        (&[0x02, 5, 0, 0, 6], InvalidAckRange),
        (&[0x1e], UnknownFrameType(0x1e)),
        (&[0x05, 0, 0], UnknownFrameType(0x05)),
        (
            &[0x40, 0x01],
            InvalidFrame("frame type not minimally encoded"),
        ),
        // STREAM claims 5 bytes, has 2.
        (&[0x0a, 0x00, 0x05, 1, 2], Truncated),
        // offset 2^62-1 plus length 1.
        (
            &[
                0x0e, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0,
            ],
            ValueTooLarge,
        ),
        // CONNECTION_CLOSE reason length larger than the packet.
        (&[0x1c, 0, 0, 0xbf, 0xff, 0xff, 0xff], Truncated),
        (&[0x10], Truncated),
    ];
    for (bytes, err) in cases {
        assert_eq!(decode_frames(bytes), Err(*err), "{bytes:02x?}");
    }
    // offset + length == 2^62 - 1 exactly is allowed (empty data at the end).
    let ok = [
        0x0e, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
    ];
    assert!(decode_frames(&ok).is_ok());
}

#[test]
fn ack_eliciting() {
    assert!(Frame::Ping.is_ack_eliciting());
    assert!(Frame::MaxData { maximum: 1 }.is_ack_eliciting());
    assert!(!Frame::Padding { len: 1 }.is_ack_eliciting());
    assert!(!ack(&[(0, 1)]).is_ack_eliciting());
    assert!(
        !Frame::ConnectionClose {
            error_code: 0,
            frame_type: 0,
            reason: vec![]
        }
        .is_ack_eliciting()
    );
}

// Round trips of arbitrary frames and packets, and decoding of
// arbitrary or mutated bytes: `tests/codec_fuzz.rs` (fixed seeds).
