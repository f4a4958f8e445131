//! Closing streams: unread bytes and credit released, late frames ignored.

use neqo_fc::{Direction, Error, UpdateFrame};

use super::{
    INITIAL, KIB, SEED, changes, credit_sum, msd, open, receiver, rtt, sid, snapshot, tight,
    updates,
};
use crate::common::{self, at, blocked};

const MAX_STREAMS_BIDI_101: UpdateFrame = UpdateFrame::MaxStreams {
    direction: Direction::Bidi,
    limit: 101,
};

/// Closing a stream whose final size is known forgets it: its unread bytes
/// are released at the connection, its credit leaves the budget, and the
/// peer may open another (MAX_STREAMS). A stream closed before its final
/// size is known stays counted — what still arrives is released at once —
/// until the final size arrives (new lifecycle: the old receiver forgot it
/// at once and lost count of what the peer still sent).
#[test]
fn close_stream_releases_unread_bytes_and_its_credit() {
    let mut rx = receiver(common::config_512k());
    rx.on_data(sid(0), 10_000, true).unwrap();
    rx.retire_to(sid(0), 4_000).unwrap();
    rx.on_data(sid(1), 3_000, false).unwrap();
    // Stream 0's credit ends at its final size: 10,000 − 4,000 read.
    assert_eq!(rx.flow().committed(), 6_000 + INITIAL);
    assert_eq!(rx.flow().connection().unretired(), 9_000);
    // The promised part counts the open streams: 2 × 64 KiB, plus the
    // growth part 3 × the 512 KiB estimate.
    assert_eq!(rx.flow().budget(), 2 * INITIAL + 3 * 512 * KIB);
    rx.close_stream(sid(0));
    assert!(rx.stream(sid(0)).is_none());
    assert_eq!(rx.streams().count(), 1);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..2));
    // The 6,000 unread bytes count as retired at the connection.
    assert_eq!(rx.flow().connection().retired(), 10_000);
    assert_eq!(rx.flow().connection().consumed(), 13_000);
    assert_eq!(rx.flow().connection().unretired(), 3_000);
    // The closed stream's promised 64 KiB leave the budget with it (the old
    // budget counted every `max_streams` slot, open or not).
    assert_eq!(rx.flow().budget(), INITIAL + 3 * 512 * KIB);
    // Closing again, or an unknown stream, does nothing.
    rx.close_stream(sid(0));
    rx.close_stream(sid(77));
    assert_eq!((rx.streams().count(), rx.flow().committed()), (1, INITIAL));
    assert_eq!(rx.flow().connection().retired(), 10_000);
    // The peer may open one more stream; stream 1's seed update goes too.
    let sent = updates(&mut rx, at(1), rtt(50));
    assert_eq!(sent, [msd(sid(1), SEED), MAX_STREAMS_BIDI_101]);
    assert_eq!(rx.flow().committed(), SEED);

    // Stream 1 closed before its final size: still counted, its 3,000
    // unread bytes released.
    rx.close_stream(sid(1));
    assert_eq!(rx.streams().count(), 1);
    assert_eq!(rx.stream(sid(1)).unwrap().retired(), 3_000);
    assert_eq!(
        (
            rx.flow().connection().retired(),
            rx.flow().connection().unretired()
        ),
        (13_000, 0)
    );
    assert_eq!(rx.flow().committed(), SEED - 3_000);
    // Data still arriving is counted against the limits and released.
    rx.on_data(sid(1), 5_000, false).unwrap();
    assert_eq!(rx.flow().connection().unretired(), 0);
    assert_eq!(rx.flow().connection().consumed(), 15_000);
    assert_eq!(rx.flow().committed(), SEED - 5_000);
    // The final size arrives: the stream is forgotten.
    assert_eq!(rx.on_data(sid(1), 6_000, true), Ok(1_000));
    assert!(rx.stream(sid(1)).is_none());
    assert_eq!(
        (
            rx.streams().count(),
            rx.flow().committed(),
            rx.flow().connection().unretired()
        ),
        (0, 0, 0)
    );
    assert_eq!(rx.flow().connection().retired(), 16_000);
    assert_eq!(
        updates(&mut rx, at(3), rtt(50)),
        [UpdateFrame::MaxStreams {
            direction: Direction::Bidi,
            limit: 102
        }]
    );
}

#[test]
fn closing_a_stream_keeps_committed_within_the_budget() {
    // Two streams at once, growth 100,000: budget 2 × 65,536 + 100,000 =
    // 231,072 while both are open (it counts open streams).
    let mut rx = receiver(tight(100_000, 2));
    let (a, b, c) = (sid(0), sid(1), sid(2));
    assert_eq!(rx.flow().budget(), 100_000);
    // a is seeded at 131,072 (65,536 of room), b at 65,536 + 34,464.
    open(&mut rx, a, at(0));
    updates(&mut rx, at(0), rtt(50));
    open(&mut rx, b, at(0));
    assert_eq!(rx.stream(b).unwrap().window(), 100_000);
    updates(&mut rx, at(0), rtt(50));
    assert_eq!(rx.flow().budget(), 231_072);
    assert_eq!(rx.flow().committed(), 231_072);
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    // a's peer sends 10,000 bytes that are never read; a is reset. Its
    // 131,072 of credit leave `committed`, the 65,536 beyond its initial
    // window return to the growth room, its promised 65,536 leave the
    // budget.
    rx.on_data(a, 10_000, false).unwrap();
    assert_eq!(rx.reset_received(a, 10_000), Ok(0));
    assert!(rx.stream(a).is_none());
    assert_eq!(rx.flow().committed(), 100_000);
    assert_eq!(rx.flow().budget(), INITIAL + 100_000);
    assert_eq!(rx.flow().connection().unretired(), 0);
    // A new stream in a's place (once MAX_STREAMS allows it) finds the
    // 65,536 of room again.
    assert_eq!(
        updates(&mut rx, at(2), rtt(50)),
        [UpdateFrame::MaxStreams {
            direction: Direction::Bidi,
            limit: 3
        }]
    );
    open(&mut rx, c, at(2));
    assert_eq!(rx.stream(c).unwrap().window(), SEED);
    updates(&mut rx, at(2), rtt(50));
    assert_eq!(rx.flow().committed(), rx.flow().budget());
    assert_eq!(rx.flow().committed(), credit_sum(&rx, 0..3));
    // A third open stream is refused: two at once.
    assert_eq!(
        rx.on_data(sid(3), 0, false),
        Err(Error::StreamLimit {
            id: sid(3),
            limit: 3
        })
    );
    // Closing the full-credit stream b (34,464 beyond its initial window)
    // and opening another: still within the budget.
    rx.on_data(b, 0, true).unwrap();
    rx.close_stream(b);
    assert_eq!(rx.flow().committed(), SEED);
    updates(&mut rx, at(3), rtt(50));
    open(&mut rx, sid(3), at(3));
    assert_eq!(rx.stream(sid(3)).unwrap().window(), 100_000);
    updates(&mut rx, at(3), rtt(50));
    assert!(
        rx.flow().committed() <= rx.flow().budget(),
        "committed {} > budget {}",
        rx.flow().committed(),
        rx.flow().budget()
    );
    assert_eq!(rx.flow().committed(), 231_072);
}

#[test]
fn late_frames_for_closed_streams_are_ignored() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    let sent = updates(&mut rx, at(0), rtt(50));
    assert_eq!(sent.len(), 1);
    rx.on_data(id, 20_000, true).unwrap();
    rx.close_stream(id);
    // Closing lets the peer open another stream.
    assert_eq!(updates(&mut rx, at(1), rtt(50)), [MAX_STREAMS_BIDI_101]);
    changes(&mut rx);
    let before = snapshot(&rx, id);
    let consumed = rx.flow().connection().consumed();
    rx.update_lost(sent[0]);
    rx.update_acked(sent[0]);
    rx.update_lost(msd(id, u64::MAX));
    blocked(&mut rx, Some(id));
    assert_eq!(rx.stream_data_blocked_received(id, SEED), Ok(false));
    assert_eq!(rx.retire_to(id, 20_000), Ok(0));
    // Retransmitted data, a FIN, a reset: the stream is closed, nothing is
    // counted and nothing reopens it. Data past the final size is still
    // FINAL_SIZE_ERROR (RFC 9000 §4.5), and changes nothing either.
    assert_eq!(rx.on_data(id, 20_000, true), Ok(0));
    assert_eq!(rx.on_data(id, 30_000, false).unwrap_err().code(), 0x06);
    assert_eq!(rx.reset_received(id, 20_000), Ok(0));
    assert_eq!(snapshot(&rx, id), before);
    assert_eq!(rx.flow().connection().consumed(), consumed);
    assert!(!rx.update_pending());
    assert!(updates(&mut rx, at(100), rtt(50)).is_empty());
    assert!(rx.stream(id).is_none());
    assert_eq!(rx.flow().committed(), 0);
    assert!(changes(&mut rx).is_empty());
}
