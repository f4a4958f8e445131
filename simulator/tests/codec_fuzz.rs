//! Fuzzing the frame codec (RFC 9000 §16 varints, §19 frames) with
//! deterministic property tests.
//!
//! Note: `cargo fuzz` (libFuzzer) needs a nightly toolchain for
//! `-Zsanitizer`, which cannot be installed here: only the stable toolchain
//! is available and no toolchain can be fetched. These proptest runs cover
//! the same input space — arbitrary byte strings biased toward valid frame
//! types, every truncation point, lengths past the end, offsets at 2^62,
//! unknown types and underflowing ACK ranges — with a fixed RNG seed, so
//! every run checks exactly the same inputs.
//!
//! Unbounded allocation is checked indirectly (no `unsafe` counting
//! allocator is allowed): every byte a decoded frame holds must come from
//! the input, so the decoded payload and the number of frames and ACK
//! ranges are bounded by the input length.

use std::cell::RefCell;

use neqo_fc_sim::quic::{
    EcnCounts,
    ack::AckRanges,
    frame::{Frame, decode_frames},
    varint::{DecodeError, Decoder, MAX_VARINT, encode_varint, varint_len},
};
use proptest::{
    prelude::*,
    test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner},
};

/// Frame type bytes the codec knows (RFC 9000 §12.4, Table 3).
const KNOWN_TYPES: [u8; 19] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,
    0x13, 0x14, 0x15,
];
/// CONNECTION_CLOSE (transport), also known.
const CONNECTION_CLOSE: u8 = 0x1c;

/// A runner with a fixed seed, independent of `PROPTEST_RNG_SEED` and
/// without failure-persistence files.
fn runner(cases: u32, seed: u8) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

fn enc(f: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    f.encode(&mut out);
    out
}

fn varint_bytes(v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    encode_varint(v, &mut out);
    out
}

/// Bytes a decoded frame carries that came straight from the input.
fn payload(f: &Frame) -> usize {
    match f {
        Frame::Padding { len } => *len,
        Frame::Stream { data, .. } => data.as_ref().map_or(0, Vec::len),
        Frame::ConnectionClose { reason, .. } => reason.len(),
        _ => 0,
    }
}

/// One chunk of fuzz input: a frame type byte (mostly a known one) and a
/// few bytes after it, themselves biased toward small varints and the
/// 8-byte prefix so lengths and ranges hit their edges.
fn chunk() -> impl Strategy<Value = Vec<u8>> {
    let ty = prop_oneof![
        8 => prop::sample::select(KNOWN_TYPES.to_vec()),
        1 => Just(CONNECTION_CLOSE),
        2 => any::<u8>(),
    ];
    let body_byte = prop_oneof![
        4 => any::<u8>(),
        2 => 0u8..0x40,
        1 => Just(0xffu8),
        1 => Just(0xc0u8),
        1 => Just(0x00u8),
    ];
    (ty, prop::collection::vec(body_byte, 0..24)).prop_map(|(t, mut body)| {
        body.insert(0, t);
        body
    })
}

/// Byte strings of 0..256 bytes made of chunks.
fn fuzz_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(chunk(), 0..16).prop_map(|chunks| {
            let mut v: Vec<u8> = chunks.concat();
            v.truncate(255);
            v
        }),
        1 => prop::collection::vec(any::<u8>(), 0..256),
        2 => mutated_frames(),
    ]
}

/// Valid encoded frames with up to three bytes overwritten, cut at 255.
fn mutated_frames() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(frame(), 1..6),
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    )
        .prop_map(|(frames, flips)| {
            let mut v = Vec::new();
            for f in &frames {
                f.encode(&mut v);
            }
            v.truncate(255);
            for (i, b) in flips {
                if !v.is_empty() {
                    let i = i.index(v.len());
                    v[i] = b;
                }
            }
            v
        })
}

/// Checks one fuzz input; counts decoded frames by type in `seen`
/// (index: the frame type byte, 0x00..=0x1c) and successes in `seen[0x3f]`.
fn check_arbitrary(bytes: &[u8], seen: &RefCell<[u32; 64]>) -> Result<(), TestCaseError> {
    let Ok(frames) = decode_frames(bytes) else {
        return Ok(());
    };
    {
        let mut seen = seen.borrow_mut();
        seen[0x3f] += 1;
        for f in &frames {
            seen[(f.frame_type() & 0x3f) as usize] += 1;
        }
    }
    let total: usize = frames.iter().map(payload).sum();
    prop_assert!(total <= bytes.len(), "payload {total} > {}", bytes.len());
    prop_assert!(frames.len() <= bytes.len());
    for f in &frames {
        match f {
            Frame::Stream {
                offset,
                length,
                data,
                ..
            } => {
                prop_assert_eq!(data.as_ref().map(|d| d.len() as u64), Some(*length));
                prop_assert!(offset + length <= MAX_VARINT);
            }
            Frame::Ack {
                largest, ranges, ..
            } => {
                prop_assert_eq!(*largest, ranges.largest());
                prop_assert!(ranges.len() <= bytes.len());
                // Decoded ranges keep the type's invariants.
                let pairs: Vec<(u64, u64)> =
                    ranges.iter().map(|r| (*r.end(), *r.start())).collect();
                prop_assert!(AckRanges::from_pairs(pairs).is_ok());
            }
            _ => {}
        }
    }
    // Canonical re-encoding decodes back to the same frames.
    let mut re = Vec::new();
    for f in &frames {
        f.encode(&mut re);
    }
    prop_assert_eq!(decode_frames(&re), Ok(frames));
    Ok(())
}

#[test]
fn arbitrary_bytes_never_panic_100k() {
    let mut r = runner(100_000, 0x5a);
    let seen = RefCell::new([0u32; 64]);
    let result = r.run(&fuzz_input(), |bytes| check_arbitrary(&bytes, &seen));
    if let Err(e) = result {
        panic!("{e}");
    }
    // The bias works: a good share of inputs decode, and every kind of
    // frame (as re-encoded: STREAM with LEN, ACK for ACK_ECN) turns up.
    let seen = seen.into_inner();
    eprintln!("decoded ok: {} of 100000; per type: {seen:?}", seen[0x3f]);
    assert!(seen[0x3f] >= 20_000, "only {} inputs decoded", seen[0x3f]);
    for t in [
        0x00, 0x01, 0x02, 0x04, 0x0a, 0x0b, 0x0e, 0x0f, 0x10, 0x11, 0x14, 0x15, 0x1c,
    ] {
        assert!(seen[t] > 0, "frame type {t:#x} never decoded");
    }
}

#[test]
fn truncated_varints_at_every_cut() {
    let values = [0, 63, 64, 16383, 16384, (1 << 30) - 1, 1 << 30, MAX_VARINT];
    for v in values {
        let bytes = varint_bytes(v);
        assert_eq!(bytes.len(), varint_len(v));
        for cut in 0..bytes.len() {
            let mut d = Decoder::new(&bytes[..cut]);
            assert_eq!(
                d.decode_varint(),
                Err(DecodeError::Truncated),
                "{v} cut {cut}"
            );
            assert_eq!(d.remaining(), cut, "a failed read consumes nothing");
        }
    }
}

/// Valid frames with every integer field at its 8-byte maximum.
fn big_frames() -> Vec<Frame> {
    let m = MAX_VARINT;
    vec![
        Frame::Ping,
        Frame::Ack {
            largest: m,
            ack_delay: m,
            ranges: AckRanges::from_pairs(vec![(m, m - 10), (m - 100, 0)]).unwrap(),
            ecn: Some(EcnCounts {
                ect0: m,
                ect1: m,
                ce: m,
            }),
        },
        Frame::ResetStream {
            stream_id: m,
            error_code: m,
            final_size: m,
        },
        Frame::Stream {
            stream_id: m,
            offset: m - 3,
            length: 3,
            fin: true,
            data: Some(vec![1, 2, 3]),
        },
        Frame::Stream {
            stream_id: 0,
            offset: 0,
            length: 0,
            fin: false,
            data: Some(vec![]),
        },
        Frame::MaxData { maximum: m },
        Frame::MaxStreamData {
            stream_id: m,
            maximum: m,
        },
        Frame::DataBlocked { limit: m },
        Frame::StreamDataBlocked {
            stream_id: m,
            limit: m,
        },
        Frame::ConnectionClose {
            error_code: m,
            frame_type: m,
            reason: b"why".to_vec(),
        },
    ]
}

#[test]
fn every_cut_of_a_valid_frame_is_truncated() {
    for f in big_frames() {
        let bytes = enc(&f);
        assert_eq!(decode_frames(&bytes), Ok(vec![f.clone()]));
        for cut in 1..bytes.len() {
            assert_eq!(
                decode_frames(&bytes[..cut]),
                Err(DecodeError::Truncated),
                "{f:?} cut at {cut} of {}",
                bytes.len()
            );
        }
    }
}

#[test]
fn lengths_past_the_end() {
    // STREAM with LEN (0x0a) and CONNECTION_CLOSE, length one past what is
    // there, and at each varint size up to 2^62 − 1.
    for have in [0usize, 1, 5] {
        for claimed in [have as u64 + 1, 64, 16384, 1 << 30, MAX_VARINT] {
            let mut s = vec![0x0a, 0x04];
            s.extend(varint_bytes(claimed));
            s.extend(vec![7; have]);
            assert_eq!(
                decode_frames(&s),
                Err(DecodeError::Truncated),
                "stream {claimed}/{have}"
            );
            let mut c = vec![0x1c, 0x00, 0x00];
            c.extend(varint_bytes(claimed));
            c.extend(vec![b'x'; have]);
            assert_eq!(
                decode_frames(&c),
                Err(DecodeError::Truncated),
                "close {claimed}/{have}"
            );
        }
        // Exactly what is there decodes.
        let mut s = vec![0x0a, 0x04];
        s.extend(varint_bytes(have as u64));
        s.extend(vec![7; have]);
        assert!(decode_frames(&s).is_ok());
    }
    // An ACK range count far larger than the input can hold.
    for count in [1u64, 2, 1 << 20, MAX_VARINT] {
        let mut a = vec![0x02, 0x3f, 0x00];
        a.extend(varint_bytes(count));
        a.push(0); // first range only
        assert_eq!(decode_frames(&a), Err(DecodeError::Truncated), "{count}");
    }
}

#[test]
fn stream_offset_plus_length_at_2_62() {
    let frame = |offset: u64, length: u64, data: usize| {
        let mut b = vec![0x0e, 0x00];
        b.extend(varint_bytes(offset));
        b.extend(varint_bytes(length));
        b.extend(vec![0; data]);
        b
    };
    // offset + length == 2^62 − 1: fine; == 2^62: too large.
    for k in [0u64, 1, 3, 100] {
        assert!(decode_frames(&frame(MAX_VARINT - k, k, k as usize)).is_ok());
        assert_eq!(
            decode_frames(&frame(MAX_VARINT - k, k + 1, k as usize + 1)),
            Err(DecodeError::ValueTooLarge),
            "offset 2^62-1-{k}"
        );
    }
    // Both fields at the maximum: checked without overflow.
    assert_eq!(
        decode_frames(&frame(MAX_VARINT, MAX_VARINT, 0)),
        Err(DecodeError::ValueTooLarge)
    );
    // Without the LEN bit (0x0c) the data runs to the end of the packet.
    let mut b = vec![0x0c, 0x00];
    b.extend(varint_bytes(MAX_VARINT));
    assert!(decode_frames(&b).is_ok());
    b.push(0);
    assert_eq!(decode_frames(&b), Err(DecodeError::ValueTooLarge));
    // MAX_STREAMS above 2^60 cannot name a stream (RFC 9000 §19.11).
    for ty in [0x12u8, 0x13] {
        let mut b = vec![ty];
        b.extend(varint_bytes(1 << 60));
        assert!(decode_frames(&b).is_ok());
        let mut b = vec![ty];
        b.extend(varint_bytes((1 << 60) + 1));
        assert_eq!(decode_frames(&b), Err(DecodeError::ValueTooLarge));
    }
}

#[test]
fn unknown_frame_types() {
    let known =
        |t: u64| (t < 0x40 && KNOWN_TYPES.contains(&(t as u8))) || t == u64::from(CONNECTION_CLOSE);
    let mut unknown = 0;
    for t in (0..0x40u64).chain([0x40, 0x1234, 0x3fff, 1 << 14, 1 << 30, MAX_VARINT]) {
        if known(t) {
            continue;
        }
        unknown += 1;
        let mut b = varint_bytes(t);
        b.extend([0u8; 16]);
        assert_eq!(
            decode_frames(&b),
            Err(DecodeError::UnknownFrameType(t)),
            "{t:#x}"
        );
    }
    // 0x05..=0x07, 0x16..=0x1b, 0x1d..=0x3f, plus the six above.
    assert_eq!(unknown, 3 + 6 + 35 + 6);
    // A known type in a longer encoding than needed (RFC 9000 §12.4).
    for t in [0x01u8, 0x10] {
        assert_eq!(
            decode_frames(&[0x40, t, 0]),
            Err(DecodeError::InvalidFrame(
                "frame type not minimally encoded"
            ))
        );
    }
}

#[test]
fn ack_ranges_that_underflow() {
    let ack = |largest: u64, fields: &[u64]| {
        let mut b = vec![0x02];
        b.extend(varint_bytes(largest));
        b.push(0); // ACK delay
        for &f in fields {
            b.extend(varint_bytes(f));
        }
        decode_frames(&b)
    };
    use DecodeError::InvalidAckRange;
    for largest in [0u64, 1, 5, 1 << 20, MAX_VARINT] {
        // First ACK Range reaching exactly 0 is fine; one more underflows.
        assert!(ack(largest, &[0, largest]).is_ok());
        if largest < MAX_VARINT {
            assert_eq!(ack(largest, &[0, largest + 1]), Err(InvalidAckRange));
        }
        assert_eq!(
            ack(largest, &[0, MAX_VARINT]).is_ok(),
            largest == MAX_VARINT
        );
    }
    // [3, 5] then a gap: next largest = 3 − gap − 2.
    assert!(ack(5, &[1, 2, 1, 0]).is_ok()); // 0..=0
    assert_eq!(ack(5, &[1, 2, 1, 1]), Err(InvalidAckRange)); // length underflows
    assert_eq!(ack(5, &[1, 2, 2, 0]), Err(InvalidAckRange)); // gap underflows
    assert_eq!(ack(5, &[1, 2, MAX_VARINT, 0]), Err(InvalidAckRange));
    assert_eq!(ack(5, &[1, 2, 0, MAX_VARINT]), Err(InvalidAckRange));
    // [10, 10], [1, 8], then a third range's gap runs below 0.
    assert_eq!(ack(10, &[2, 0, 0, 7, 0, 0]), Err(InvalidAckRange));
    // ACK_ECN (0x03) with the same underflow.
    assert_eq!(
        decode_frames(&[0x03, 5, 0, 0, 6, 0, 0, 0]),
        Err(InvalidAckRange)
    );
}

// ---- Round trip -----------------------------------------------------------

fn varint() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..64u64,
        64..16384u64,
        16384..(1u64 << 30),
        (1u64 << 30)..=MAX_VARINT,
        Just(MAX_VARINT),
    ]
}

fn ack_ranges() -> impl Strategy<Value = AckRanges> {
    (varint(), prop::collection::vec((varint(), varint()), 1..12)).prop_map(|(top, steps)| {
        // Walk downward from `top`: range length, then a gap of ≥ 2.
        let mut pairs = Vec::new();
        let mut hi = top;
        for (len, gap) in steps {
            let lo = hi - len.min(hi);
            pairs.push((hi, lo));
            match lo.checked_sub(gap.min(lo).max(2)) {
                Some(next) if lo >= 2 => hi = next,
                _ => break,
            }
        }
        AckRanges::from_pairs(pairs).expect("valid by construction")
    })
}

fn data() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..8),
        prop::collection::vec(any::<u8>(), 60..70),
        prop::collection::vec(any::<u8>(), 0..300),
    ]
}

fn frame() -> impl Strategy<Value = Frame> {
    prop_oneof![
        (1..40usize).prop_map(|len| Frame::Padding { len }),
        Just(Frame::Ping),
        (
            varint(),
            ack_ranges(),
            prop::option::of((varint(), varint(), varint()))
        )
            .prop_map(|(ack_delay, ranges, ecn)| Frame::Ack {
                largest: ranges.largest(),
                ack_delay,
                ranges,
                ecn: ecn.map(|(ect0, ect1, ce)| EcnCounts { ect0, ect1, ce }),
            }),
        (varint(), varint(), varint()).prop_map(|(stream_id, error_code, final_size)| {
            Frame::ResetStream {
                stream_id,
                error_code,
                final_size,
            }
        }),
        (varint(), varint(), any::<bool>(), data()).prop_map(|(stream_id, offset, fin, data)| {
            Frame::Stream {
                stream_id,
                offset: offset.min(MAX_VARINT - data.len() as u64),
                length: data.len() as u64,
                fin,
                data: Some(data),
            }
        }),
        varint().prop_map(|maximum| Frame::MaxData { maximum }),
        (varint(), varint())
            .prop_map(|(stream_id, maximum)| Frame::MaxStreamData { stream_id, maximum }),
        (any::<bool>(), 0..=1u64 << 60)
            .prop_map(|(bidi, maximum)| Frame::MaxStreams { bidi, maximum }),
        varint().prop_map(|limit| Frame::DataBlocked { limit }),
        (varint(), varint())
            .prop_map(|(stream_id, limit)| Frame::StreamDataBlocked { stream_id, limit }),
        (varint(), 1..=MAX_VARINT, varint(), varint()).prop_map(
            |(sequence, packet_tolerance, max_ack_delay_us, reordering_threshold)| {
                Frame::AckFrequency {
                    sequence,
                    packet_tolerance,
                    max_ack_delay_us,
                    reordering_threshold,
                }
            }
        ),
        (varint(), varint(), data()).prop_map(|(error_code, frame_type, reason)| {
            Frame::ConnectionClose {
                error_code,
                frame_type,
                reason,
            }
        }),
    ]
}

#[test]
fn round_trip_every_kind_10k() {
    let mut r = runner(20_000, 0x17);
    let result = r.run(&frame(), |f| {
        let bytes = enc(&f);
        prop_assert_eq!(f.encoded_len(), bytes.len());
        prop_assert_eq!(decode_frames(&bytes), Ok(vec![f.clone()]));
        // Every strict prefix of a non-padding frame is truncated.
        if !matches!(f, Frame::Padding { .. }) {
            let cut = bytes.len() / 2;
            if cut > 0 {
                prop_assert_eq!(decode_frames(&bytes[..cut]), Err(DecodeError::Truncated));
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn round_trip_packets() {
    let mut r = runner(5_000, 0x29);
    let strategy = prop::collection::vec(frame(), 0..10);
    let result = r.run(&strategy, |frames| {
        let mut bytes = Vec::new();
        for f in &frames {
            f.encode(&mut bytes);
        }
        prop_assert_eq!(
            bytes.len(),
            frames.iter().map(Frame::encoded_len).sum::<usize>()
        );
        // Neighbouring PADDING frames coalesce on decode.
        let mut expect: Vec<Frame> = Vec::new();
        for f in frames {
            match (expect.last_mut(), &f) {
                (Some(Frame::Padding { len }), Frame::Padding { len: more }) => *len += more,
                _ => expect.push(f),
            }
        }
        prop_assert_eq!(decode_frames(&bytes), Ok(expect));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
