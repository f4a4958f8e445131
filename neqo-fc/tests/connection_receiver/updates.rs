//! Update scheduling: MAX_DATA and MAX_STREAM_DATA when due, after a loss,
//! after *_BLOCKED, with and without budget room.

use neqo_fc::{Budget, ChangeReason, Config, ConnectionReceiver, ExcessTuner, UpdateFrame};

use super::{
    INITIAL, KIB, SEED, changes, committed_floor, credit_floor, msd, open, receiver, rtt, sid,
    tight, updates, with_budget,
};
use crate::common::{self, at, blocked, fire_timer};

/// MAX_DATA is due once a quarter of the 512 KiB connection window,
/// 128 KiB, has been read (one byte less is not enough).
#[test]
fn next_update_sends_max_data_when_due() {
    let mut rx = receiver(common::config_512k());
    for i in 0..2 {
        open(&mut rx, sid(i), at(0));
    }
    assert_eq!(updates(&mut rx, at(0), rtt(50)).len(), 2);
    assert!(!rx.update_pending());
    // 128 KiB − 1 retired at the connection: not yet due.
    rx.on_data(sid(0), SEED, false).unwrap();
    rx.retire_to(sid(0), SEED - 1).unwrap();
    assert!(!rx.flow().connection().update_due());
    rx.retire_to(sid(0), SEED).unwrap();
    assert!(rx.flow().connection().update_due());
    let sent = updates(&mut rx, at(10), rtt(50));
    // The stream first, then MAX_DATA = retired + window.
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0], msd(sid(0), rx.stream(sid(0)).unwrap().limit()));
    let UpdateFrame::MaxData(max_data) = sent[1] else {
        panic!("{sent:?}")
    };
    let c = rx.flow().connection();
    assert_eq!(max_data, c.limit());
    assert_eq!(max_data, SEED + c.window());
    // The window covers the credit now given to streams: the seeds beyond
    // the promises over 3/4, the unused promises within the estimate.
    assert!(c.window() >= credit_floor(&rx, 0..2));
    assert!(!rx.update_pending());
    assert_eq!(rx.next_update(at(10), rtt(50)), None);
}

/// A receiver with the default configuration (up to `max_streams`
/// bidirectional streams) where the peer's first `open_now` streams opened at
/// once.
fn default_with_open(max_streams: u64, open_now: u64) -> ConnectionReceiver<ExcessTuner> {
    let mut rx = receiver(Config {
        max_streams_bidi: max_streams,
        ..Config::default()
    });
    for k in 0..open_now {
        open(&mut rx, sid(k), at(0));
    }
    rx
}

/// A thousand streams open at once, each with its 64 KiB promise (64 MB
/// together): the connection window covers the seeds and one estimated
/// need, not every promise, so the peer can use one need's worth of them
/// at a time, as behind a peer stack's connection window.
#[test]
fn idle_promises_are_backed_up_to_one_need() {
    let mut rx = default_with_open(1000, 1000);
    // Before any update: one estimate (1 MiB).
    assert_eq!(rx.flow().connection().window(), 1 << 20);
    // The seeds go out: six streams at 512 KiB and a seventh at what is
    // left use the growth budget (3 × the 1 MiB estimate), then MAX_DATA.
    let sent = updates(&mut rx, at(0), rtt(50));
    assert_eq!(sent.len(), 8, "{sent:?}");
    let promised = 1000 * INITIAL;
    assert_eq!(rx.flow().committed(), promised + (3 << 20));
    // The connection covers those seeds over 3/4 and one estimate: 5 MiB,
    // against 1000 × 64 KiB × 4/3 = 83 MiB for every promise.
    let w = rx.flow().connection().window();
    assert_eq!(w, credit_floor(&rx, 0..1000));
    assert_eq!(w, 5 << 20);
    assert!(w < committed_floor(&rx) / 10, "{w}");
}

/// Data that parks in streams whose application stopped reading raises
/// the connection window byte for byte (within an update threshold), so
/// the stream still reading keeps its room: fifty streams fill their
/// credit (seeds or 64 KiB promises) as fast as MAX_DATA lets them,
/// nothing is read, and after every round of updates the connection has
/// room for all of the reading stream's credit.
#[test]
fn parked_bytes_keep_the_readers_room() {
    let mut rx = default_with_open(100, 51);
    updates(&mut rx, at(0), rtt(50));
    let reader = rx.stream(sid(0)).unwrap().credit();
    assert_eq!(reader, 512 * KIB);
    for round in 1..100 {
        for k in 1..51 {
            let (s, c) = (rx.stream(sid(k)).unwrap(), rx.flow().connection());
            let room = c.limit() - c.consumed();
            let end = s.limit().min(s.consumed() + room);
            rx.on_data(sid(k), end, false).unwrap();
            // Within an update threshold of the floor after data arrives.
            let w = rx.flow().connection().window();
            let slack = rx.flow().config().update_fraction.of(w);
            let need = credit_floor(&rx, 0..51);
            assert!(w + slack >= need, "{w} + {slack} < {need}");
        }
        updates(&mut rx, at(round), rtt(50));
        let c = rx.flow().connection();
        let free = c.limit() - c.consumed();
        assert!(free >= reader, "round {round}: {free} < {reader}");
    }
    // Every parked stream is full: the connection never held them back.
    let full: u64 = (1..51).map(|k| rx.stream(sid(k)).unwrap().limit()).sum();
    assert_eq!(rx.flow().connection().unretired(), full);
    assert!(full >= 50 * INITIAL);
}

#[test]
fn lost_update_is_due_again_latest_only() {
    let mut rx = receiver(common::config_512k());
    let id = sid(0);
    open(&mut rx, id, at(0));
    let first = updates(&mut rx, at(0), rtt(50))[0];
    // Lost: the same limit again.
    rx.update_lost(first);
    assert!(rx.update_pending());
    assert_eq!(updates(&mut rx, at(1), rtt(50)), [first]);
    // A newer limit goes out; losing the older frame changes nothing.
    rx.on_data(id, SEED, false).unwrap();
    rx.retire_to(id, SEED).unwrap();
    let sent = updates(&mut rx, at(30), rtt(50));
    let second = *sent
        .iter()
        .find(|u| matches!(u, UpdateFrame::MaxStreamData { id: i, .. } if *i == id))
        .unwrap();
    let max_data = *sent
        .iter()
        .find(|u| matches!(u, UpdateFrame::MaxData(_)))
        .unwrap();
    assert!(second.limit() > first.limit());
    rx.update_lost(first);
    rx.update_lost(UpdateFrame::MaxData(max_data.limit() - 1));
    assert!(!rx.update_pending());
    // The newest frames lost: each is due again, once.
    rx.update_lost(second);
    rx.update_lost(max_data);
    assert_eq!(updates(&mut rx, at(31), rtt(50)), [second, max_data]);
    assert!(!rx.update_pending());
    // Acknowledged before the loss is declared: nothing to re-send.
    rx.update_acked(second);
    rx.update_acked(max_data);
    rx.update_lost(second);
    rx.update_lost(max_data);
    assert!(!rx.update_pending());
}

/// A stream without seeding (window 64 KiB) whose peer filled its 64 KiB
/// and reports STREAM_DATA_BLOCKED each millisecond, after the
/// application has read up to the next offset in `reads`: the updates
/// written after each report.
fn blocked_then_read(
    config: Config,
    reads: &[u64],
) -> (ConnectionReceiver<ExcessTuner>, Vec<Vec<UpdateFrame>>) {
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..config
    });
    let id = sid(0);
    rx.on_data(id, INITIAL, false).unwrap();
    let mut sent = Vec::new();
    for (t, &read) in (1..).zip(reads) {
        rx.retire_to(id, read).unwrap();
        blocked(&mut rx, Some(id));
        sent.push(updates(&mut rx, at(t), rtt(50)));
    }
    (rx, sent)
}

#[test]
fn blocked_frames_make_an_update_due_when_credit_can_grow() {
    let (mut rx, sent) = blocked_then_read(tight(1 << 20, 4), &[0, 2_047, 2_048]);
    // Nothing read: a STREAM_DATA_BLOCKED cannot be answered. An eighth
    // of the update quantum read (16,384 / 8 = 2,048) is enough; one byte
    // less is not.
    assert!(sent[0].is_empty());
    assert!(sent[1].is_empty());
    assert_eq!(sent[2], [msd(sid(0), INITIAL + 2_048)]);
    // The stream's credit is back at its promised 64 KiB: no growth used.
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().budget(), INITIAL + (1 << 20));
    // DATA_BLOCKED with little read at the connection level: no MAX_DATA
    // beyond what retiring allows (2,048 < the 1/8 step of 128 KiB).
    blocked(&mut rx, None);
    assert!(updates(&mut rx, at(4), rtt(50)).is_empty());
}

/// A STREAM_DATA_BLOCKED whose data is still in flight waits for it: the
/// report alone writes nothing (a peer flooding them gets no update
/// sooner), and the data that bears it out queues the update.
#[test]
fn blocked_frames_wait_for_the_data_that_bears_them_out() {
    let mut rx = receiver(Config {
        seed_fraction: None,
        budget: None,
        ..common::config_512k()
    });
    let id = sid(0);
    rx.on_data(id, INITIAL - 4_096, false).unwrap();
    rx.retire_to(id, 2_048).unwrap();
    // 2,048 read: the *_BLOCKED step (16,384 / 8), but the peer claims to
    // be blocked at 65,536 with only 61,440 received.
    for _ in 0..1_000 {
        assert_eq!(rx.stream_data_blocked_received(id, INITIAL), Ok(true));
    }
    assert!(!rx.update_pending());
    assert!(updates(&mut rx, at(1), rtt(50)).is_empty());
    // A limit above ours: ignored. A new stream: opened (RFC 9000 §3.2),
    // its claim waiting for the data.
    assert_eq!(rx.stream_data_blocked_received(id, INITIAL + 1), Ok(false));
    assert_eq!(rx.stream_data_blocked_received(sid(4), INITIAL), Ok(true));
    assert!(rx.stream(sid(4)).is_some());
    // The last 4,096 bytes arrive: the report stands.
    rx.on_data(id, INITIAL, false).unwrap();
    assert!(rx.update_pending());
    assert_eq!(updates(&mut rx, at(2), rtt(50)), [msd(id, INITIAL + 2_048)]);
    assert!(!rx.update_pending());
}

/// The same without growth budget: the extension keeps the stream's credit
/// within the 64 KiB every open stream is promised, so it needs no growth
/// room.
#[test]
fn blocked_frames_are_answered_within_the_promised_credit_without_growth() {
    let (rx, sent) = blocked_then_read(tight(0, 4), &[0, 2_047, 2_048, INITIAL]);
    assert!(sent[0].is_empty());
    assert!(sent[1].is_empty());
    assert_eq!(sent[2], [msd(sid(0), INITIAL + 2_048)]);
    // All 64 KiB read: the limit moves on by a whole initial window.
    assert_eq!(sent[3], [msd(sid(0), 2 * INITIAL)]);
    assert_eq!(rx.flow().committed(), INITIAL);
    assert_eq!(rx.flow().budget(), INITIAL);
}

#[test]
fn lost_update_is_resent_even_without_budget_room() {
    // Two streams open, growth 100,000: budget = 2 × 65,536 + 100,000 =
    // 231,072.
    let mut rx = receiver(Config {
        max_streams_bidi: 2,
        ..with_budget(Budget {
            ceiling: 100_000,
            ..Budget::default()
        })
    });
    let (a, b) = (sid(0), sid(1));
    let r = rtt(50);
    // a is seeded at 131,072, b at 65,536 + the 34,464 of room left.
    open(&mut rx, a, at(0));
    open(&mut rx, b, at(0));
    let first = updates(&mut rx, at(0), r);
    let lost = msd(a, SEED);
    assert_eq!(first, [lost, msd(b, 100_000)]);
    assert_eq!(rx.flow().committed(), rx.flow().budget(), "no room left");
    // a's peer, which only knows 65,536, sends it; a reads 16,383 (one
    // byte short of an update: a quarter of 131,072 is 32,768), freeing
    // 16,383 of room. b's peer sends 100,000 and b reads a quarter of
    // it fast: its window grows and its update takes all the room.
    rx.on_data(a, INITIAL, false).unwrap();
    rx.retire_to(a, 16_383).unwrap();
    rx.on_data(b, 100_000, false).unwrap();
    rx.retire_to(b, 25_000).unwrap();
    let sent = updates(&mut rx, at(1), r);
    assert_eq!(sent, [msd(b, 100_000 + 16_383 + 25_000)]);
    assert_eq!(rx.flow().committed(), rx.flow().budget(), "no room left");
    // The frame carrying a's 131,072 is lost; the peer, blocked at
    // 65,536, keeps sending STREAM_DATA_BLOCKED. b's application stalls.
    // a wants 16,383 more, a quarter of its update quantum: without the
    // loss it would wait for room.
    rx.update_lost(lost);
    let mut resent = Vec::new();
    for i in 0..20 {
        blocked(&mut rx, Some(a));
        resent.extend(updates(&mut rx, at(4 + 50 * i), r));
    }
    assert_eq!(
        resent.first(),
        Some(&lost),
        "lost {lost:?} not re-sent at once: {resent:?}; committed {} budget {}",
        rx.flow().committed(),
        rx.flow().budget()
    );
    // Re-sending used no room.
    assert!(rx.flow().committed() <= rx.flow().budget());
    assert_eq!(rx.stream(a).unwrap().limit(), SEED);
}

#[test]
fn a_raised_window_does_not_hold_back_the_credit_the_room_allows() {
    // Default settings with a growth budget of 65,536 and no seeding
    // (reclaim after 4 RTTs).
    let mut rx = receiver(Config {
        seed_fraction: None,
        ..with_budget(Budget {
            ceiling: INITIAL,
            ..Budget::default()
        })
    });
    let id = sid(0);
    open(&mut rx, id, at(0));
    // The first call schedules the first pass one RTT (1 ms) later.
    assert_eq!(rx.next_update(at(0), rtt(1)), None);
    assert_eq!(rx.next_timeout(), Some(at(1)));
    rx.on_data(id, INITIAL, false).unwrap();
    rx.retire_to(id, INITIAL).unwrap();
    // The peer is blocked at 65,536 and says so every millisecond.
    let mut sent = Vec::new();
    for t in 1..=30 {
        blocked(&mut rx, Some(id));
        fire_timer(&mut rx, at(t), rtt(6));
        while let Some(u) = rx.next_update(at(t), rtt(6)) {
            if let UpdateFrame::MaxStreamData { id: i, limit } = u
                && i == id
            {
                sent.push((t, limit));
            }
        }
        if t == 1 {
            // 64 KiB read in the first 1 ms pass while the RTT estimate
            // grows to 6 ms: 393,216 per RTT; the pass raises the window
            // to estimate / 1.5 = 393,216. A quarter of it (98,304) is more
            // than the 65,536 of room, but the room is worth a frame.
            let seen = changes(&mut rx);
            assert_eq!(seen[0].reason, ChangeReason::Budget);
            assert_eq!((seen[0].old, seen[0].new), (INITIAL, 393_216));
            assert_eq!(rx.flow().estimate(), 589_824);
        }
    }
    // The first MAX_STREAM_DATA at 1 ms, with at least all the growth
    // room (the stream had read all its credit: at most its promised
    // 65,536 more).
    let &(when, limit) = sent.first().expect("no MAX_STREAM_DATA in 30 ms");
    assert_eq!(when, 1, "{sent:?}");
    assert!((2 * INITIAL..=3 * INITIAL).contains(&limit), "{sent:?}");
    assert!(rx.flow().committed() <= rx.flow().budget());
}
