//! When an update is due (RFC 9000 §4.2): the threshold, *_BLOCKED, and
//! losses and acknowledgements of earlier limits.

use neqo_fc::{Connection, FlowSubject, Fraction, ReceiverFlowControl};

use super::{Fixed, ID, at, config, conn, ms, rtt, stream, two_updates};

/// With a constant window `w`, an update is due exactly when
/// `fraction × w` bytes were retired since the limit was set.
fn check_update_threshold<S: FlowSubject>(
    mut fc: ReceiverFlowControl<S>,
    w: u64,
    threshold: u64,
    mut receive: impl FnMut(&mut ReceiverFlowControl<S>, u64),
    mut retire: impl FnMut(&mut ReceiverFlowControl<S>, u64),
) {
    assert_eq!(fc.window(), w);
    let mut now = at(0);
    let mut retired = 0;
    for round in 0..3 {
        // Receive everything allowed, then retire up to one byte short.
        let limit = fc.limit();
        receive(&mut fc, limit);
        retire(&mut fc, retired + threshold - 1);
        assert!(!fc.update_due(), "round {round}: one byte short is not due");
        assert_eq!(fc.send_update(now, rtt(), &Fixed), None);
        retire(&mut fc, retired + threshold);
        assert!(fc.update_due(), "round {round}: exactly the threshold");
        now += ms(10);
        let u = fc.send_update(now, rtt(), &Fixed).expect("due");
        retired += threshold;
        assert_eq!(u.limit, retired + w);
        assert_eq!(fc.limit(), retired + w);
        assert_eq!(u.change, None);
        assert!(!fc.update_due());
    }
}

fn stream_case(fraction: Fraction, w: u64, threshold: u64) {
    check_update_threshold(
        ReceiverFlowControl::new(ID, &config(w, fraction)),
        w,
        threshold,
        |s, end| {
            s.on_data(end, false).unwrap();
        },
        |s, off| {
            s.retire_to(off).unwrap();
        },
    );
}

fn conn_case(fraction: Fraction, w: u64, threshold: u64) {
    check_update_threshold(
        ReceiverFlowControl::new(Connection, &config(w, fraction)),
        w,
        threshold,
        |c, end| c.consume(end - c.consumed()).unwrap(),
        |c, total| c.add_retired(total - c.retired()).unwrap(),
    );
}

#[test]
fn update_due_at_a_quarter() {
    stream_case(Fraction::QUARTER, 1000, 250);
    conn_case(Fraction::QUARTER, 1000, 250);
}

#[test]
fn update_due_at_a_half() {
    stream_case(Fraction::HALF, 1000, 500);
    conn_case(Fraction::HALF, 1000, 500);
}

#[test]
fn update_due_at_one_only_when_exhausted() {
    stream_case(Fraction::ONE, 1000, 1000);
    conn_case(Fraction::ONE, 1000, 1000);
}

#[test]
fn received_but_unread_data_never_makes_an_update_due() {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    assert_eq!(s.limit(), 1000);
}

#[test]
fn blocked_makes_update_due_only_if_the_limit_can_be_extended() {
    let mut s = stream(1000);
    s.on_data(1000, false).unwrap();
    s.blocked_received(s.limit());
    // Nothing retired: the limit cannot be extended.
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    // One byte retired: extendable, but less than the smallest extension
    // worth answering a *_BLOCKED with (an eighth of the 250-byte
    // threshold: 31 bytes), so a byte-by-byte reader cannot turn every
    // read into an update.
    s.retire_to(1).unwrap();
    assert!(!s.update_due());
    s.retire_to(30).unwrap();
    assert!(!s.update_due());
    // 31 bytes: due, below the ¼ threshold.
    s.retire_to(31).unwrap();
    assert!(s.update_due());
    let u = s.send_update(at(2), rtt(), &Fixed).unwrap();
    assert_eq!(u.limit, 1031);
    // The report was consumed by that update.
    s.retire_to(62).unwrap();
    assert!(!s.update_due());
    // Without a blocked report the same 31 bytes are not enough.
    let mut t = stream(1000);
    t.on_data(1000, false).unwrap();
    t.retire_to(31).unwrap();
    assert!(!t.update_due());

    let mut c = conn(1000);
    c.consume(1000).unwrap();
    c.blocked_received(c.limit());
    assert!(!c.update_due());
    c.add_retired(30).unwrap();
    assert!(!c.update_due());
    c.add_retired(1).unwrap();
    assert!(c.update_due());
    assert_eq!(c.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1031);
}

/// A *_BLOCKED counts only once the data received reaches the limit the
/// peer says it is blocked at (issue #6: a peer flooding *_BLOCKED must
/// not make updates, and tuning steps, come sooner than retirement does).
/// A stack that writes an update a whole threshold after it became due
/// rations its updates (neqo 0.30's pacer): from then on a *_BLOCKED no
/// longer makes one due before the threshold, as a sliver of credit would
/// spend the stack's next update. A stack that writes them on time keeps
/// the early answer.
#[test]
fn blocked_gets_no_early_answer_once_an_update_was_written_a_threshold_late() {
    // Window 1000, threshold 250, *_BLOCKED step 31. `lag` bytes are read
    // while the second update, due at 749 retired, waits to be written.
    let run = |lag: u64| {
        let mut s = stream(1000);
        s.on_data(250, false).unwrap();
        s.retire_to(250).unwrap();
        assert_eq!(s.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1250);
        s.on_data(749 + lag, false).unwrap();
        s.retire_to(749).unwrap();
        assert!(s.update_due());
        s.retire_to(749 + lag).unwrap();
        let limit = s.send_update(at(2), rtt(), &Fixed).unwrap().limit;
        assert_eq!(limit, 1749 + lag);
        // 100 more arrive and are read (≥ the step, < the threshold), and
        // the peer reports blocked at 800, which the data passed.
        s.on_data(849 + lag, false).unwrap();
        s.retire_to(849 + lag).unwrap();
        assert!(!s.update_due());
        assert!(s.blocked_received(800));
        s
    };
    // 249 read while it waited: one byte short of a threshold late.
    let s = run(249);
    assert!(!s.updates_held_back());
    assert!(s.update_due(), "on time: the claim is answered early");
    // 250: a threshold late.
    let mut s = run(250);
    assert!(s.updates_held_back());
    assert!(!s.update_due(), "held back: no early answer");
    assert_eq!(s.send_update(at(3), rtt(), &Fixed), None);
    // The threshold still makes an update due: 250 read since the limit.
    s.on_data(1249, false).unwrap();
    s.retire_to(1248).unwrap();
    assert!(!s.update_due());
    s.retire_to(1249).unwrap();
    assert!(s.update_due());
    assert_eq!(s.send_update(at(4), rtt(), &Fixed).unwrap().limit, 2249);
    // Never cleared: that update was on time, the next claim still waits.
    s.on_data(1349, false).unwrap();
    s.retire_to(1349).unwrap();
    assert!(s.blocked_received(1300));
    assert!(s.updates_held_back());
    assert!(!s.update_due());
}

#[test]
fn blocked_counts_only_once_the_data_reaches_the_claimed_limit() {
    let mut s = stream(1000);
    s.on_data(600, false).unwrap();
    s.retire_to(100).unwrap();
    // 100 retired ≥ the 31-byte *_BLOCKED step, but the peer has sent only
    // 600 of its 1000: it is not blocked, and the report changes nothing.
    assert!(s.blocked_received(1000));
    for _ in 0..1000 {
        assert!(s.blocked_received(1000));
    }
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(1), rtt(), &Fixed), None);
    assert_eq!(s.limit(), 1000);
    // The data up to 1000 arrives (it was in flight): the report stands.
    s.on_data(1000, false).unwrap();
    assert!(s.update_due());
    let u = s.send_update(at(2), rtt(), &Fixed).unwrap();
    assert_eq!(u.limit, 1100);
    // That update answered it: 40 more bytes (≥ 31) are not enough now.
    s.retire_to(140).unwrap();
    assert!(!s.update_due());
    // A limit above the one we advertised: no honest peer is blocked
    // there; ignored.
    assert!(!s.blocked_received(1101));
    assert!(!s.update_due());
    // Blocked at the older 1000, which the data reached: a sender starved
    // before our 1100 arrived. It counts (40 ≥ 31 retired).
    assert!(s.blocked_received(1000));
    assert!(s.update_due());
    assert_eq!(s.send_update(at(3), rtt(), &Fixed).unwrap().limit, 1140);
    assert!(!s.update_due());

    // The same at the connection level.
    let mut c = conn(1000);
    c.consume(500).unwrap();
    c.add_retired(200).unwrap();
    assert!(c.blocked_received(1000));
    assert!(
        !c.update_due(),
        "200 < ¼ × 1000 and the report is not borne out"
    );
    c.consume(499).unwrap();
    assert!(!c.update_due());
    c.consume(1).unwrap();
    assert!(c.update_due());
    assert_eq!(c.send_update(at(1), rtt(), &Fixed).unwrap().limit, 1200);
    // Once the final size is known, reports are ignored.
    let mut f = stream(1000);
    f.on_data(500, true).unwrap();
    assert!(!f.blocked_received(1000));
    assert!(!f.blocked_received(500));
}

#[test]
fn losing_the_latest_limit_makes_it_due_again() {
    let (mut s, _, l2) = two_updates();
    s.update_lost(l2);
    assert!(s.update_due());
    let again = s.send_update(at(3), rtt(), &Fixed).unwrap();
    assert_eq!(again.limit, l2);
    assert!(!s.update_due());
}

#[test]
fn losing_an_older_limit_does_not() {
    let (mut s, l1, _) = two_updates();
    s.update_lost(l1);
    assert!(!s.update_due());
    s.update_lost(1000); // the transport parameter, acknowledged by definition
    assert!(!s.update_due());
    s.update_lost(9999); // never sent
    assert!(!s.update_due());
}

#[test]
fn acking_the_latest_limit_clears_a_pending_resend() {
    let (mut s, l1, l2) = two_updates();
    s.update_lost(l2);
    // An ack of an older limit does not help.
    s.update_acked(l1);
    assert!(s.update_due());
    s.update_acked(l2);
    assert!(!s.update_due());
    // Once acknowledged, a late loss report of another copy is moot.
    s.update_lost(l2);
    assert!(!s.update_due());
    // Acks never lower the acknowledged limit: a later ack of an older
    // limit does not re-arm a loss of the latest one.
    s.update_acked(l1);
    s.update_lost(l2);
    assert!(!s.update_due());
}

#[test]
fn no_update_once_final_size_is_known() {
    let (mut s, _, l2) = two_updates();
    s.update_lost(l2);
    s.blocked_received(s.limit());
    assert!(s.update_due());
    assert_eq!(s.on_data(1300, true), Ok(50));
    assert!(!s.update_due(), "FIN clears a pending resend");
    s.retire_to(1300).unwrap();
    assert!(!s.update_due());
    s.blocked_received(s.limit());
    s.update_lost(l2);
    assert!(!s.update_due());
    assert_eq!(s.send_update(at(10), rtt(), &Fixed), None);
    assert_eq!(s.limit(), l2);
}
