//! Send-side flow control (RFC 9000 §4.1): credit clamps, MAX_* frames only
//! raise the limit, and one *_BLOCKED per limit, re-armed only on loss while
//! still blocked at that limit.

use neqo_fc::{Connection, MAX_VARINT, SenderFlowControl, StreamId, Subject};

fn exhausted(limit: u64) -> SenderFlowControl<Connection> {
    let mut s = SenderFlowControl::new(Connection, limit);
    assert_eq!(s.consume(limit), limit);
    s
}

#[test]
fn consume_grants_at_most_the_available_credit() {
    let mut s = SenderFlowControl::new(StreamId(2), 1000);
    assert_eq!(s.subject(), StreamId(2));
    assert_eq!(s.consume(0), 0);
    assert_eq!(s.consume(999), 999);
    assert_eq!(s.available(), 1);
    assert_eq!(s.consume(2), 1);
    assert_eq!((s.used(), s.available()), (1000, 0));
    assert_eq!(s.consume(5), 0);
    assert_eq!(s.used(), 1000);
    let mut s = SenderFlowControl::new(Connection, 1000);
    assert_eq!(s.consume(u64::MAX), 1000);
}

#[test]
fn limits_are_clamped_to_max_varint() {
    let mut s = SenderFlowControl::new(Connection, u64::MAX);
    assert_eq!(s.limit(), MAX_VARINT);
    assert!(!s.update(u64::MAX));
    assert_eq!(s.consume(u64::MAX), MAX_VARINT);
    assert_eq!(s.available(), 0);

    let mut s = SenderFlowControl::new(Connection, MAX_VARINT - 1);
    assert!(s.update(1 << 62));
    assert_eq!(s.limit(), MAX_VARINT);
}

#[test]
fn update_only_raises_the_limit() {
    let mut s = SenderFlowControl::new(Connection, 1000);
    assert!(!s.update(999), "lower: ignored");
    assert!(!s.update(1000), "equal: ignored");
    assert!(!s.update(0));
    assert_eq!(s.limit(), 1000);
    assert!(s.update(1001));
    assert_eq!((s.limit(), s.available()), (1001, 1001));
    // A late, reordered frame after a raise.
    assert!(!s.update(1000));
    assert_eq!(s.limit(), 1001);
}

#[test]
fn not_blocked_while_credit_remains() {
    let mut s = SenderFlowControl::new(Connection, 1000);
    s.consume(999);
    assert!(!s.blocked());
    assert_eq!(s.blocked_needed(), None);
    s.consume(1);
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(1000));
}

#[test]
fn blocked_is_reported_once_per_limit() {
    let mut s = exhausted(1000);
    assert_eq!(s.blocked_needed(), None, "nothing armed yet");
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(1000));
    assert!(!s.blocked(), "already armed at this limit");
    assert_eq!(s.blocked_needed(), Some(1000));
    s.blocked_sent();
    assert_eq!(s.blocked_needed(), None);
    assert!(!s.blocked(), "already reported at this limit");
    assert_eq!(s.blocked_needed(), None);
    // A lower or equal MAX_DATA does not re-arm either.
    assert!(!s.update(1000));
    assert!(!s.blocked());
    // A raise, used up: a new limit, a new report.
    assert!(s.update(2000));
    assert!(!s.blocked());
    assert_eq!(s.consume(1000), 1000);
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(2000));
}

#[test]
fn raise_cancels_an_unsent_blocked_report() {
    let mut s = exhausted(1000);
    assert!(s.blocked());
    assert!(s.update(1500));
    assert_eq!(s.blocked_needed(), None);
    // Even when the new credit is used up again, the old report stays
    // cancelled; only `blocked()` at the new limit arms one.
    s.consume(500);
    assert_eq!(s.blocked_needed(), None);
    assert!(s.blocked());
    assert_eq!(s.blocked_needed(), Some(1500));
}

#[test]
fn blocked_loss_rearms_only_while_still_blocked_at_that_limit() {
    let mut s = exhausted(1000);
    assert!(s.blocked());
    s.blocked_sent();
    // Lost while still blocked at 1000: report again, once.
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), Some(1000));
    s.blocked_sent();
    assert_eq!(s.blocked_needed(), None);
    // A loss report for a limit never reported: nothing.
    s.blocked_lost(999);
    assert_eq!(s.blocked_needed(), None);
}

#[test]
fn blocked_loss_after_the_limit_was_raised_does_nothing() {
    let mut s = exhausted(1000);
    assert!(s.blocked());
    s.blocked_sent();
    assert!(s.update(2000));
    // Raised and credit available.
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), None);
    // Raised and used up again, reported at 2000: a late loss of the report
    // for 1000 still does nothing.
    s.consume(1000);
    assert!(s.blocked());
    s.blocked_sent();
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), None);
    s.blocked_lost(2000);
    assert_eq!(s.blocked_needed(), Some(2000));
}

#[test]
fn blocked_loss_before_blocked_does_nothing() {
    let mut s = exhausted(1000);
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), None);
    let mut s = SenderFlowControl::new(StreamId(0), 0);
    assert_eq!(s.available(), 0);
    assert!(s.blocked(), "a zero initial limit blocks at once");
    assert_eq!(s.blocked_needed(), Some(0));
}

#[test]
fn subjects_name_the_frame_kind() {
    use neqo_fc::FlowSubject;
    let s = SenderFlowControl::new(StreamId(9), 1);
    assert_eq!(s.subject().subject(), Subject::Stream(StreamId(9)));
    let c = SenderFlowControl::new(Connection, 1);
    assert_eq!(c.subject().subject(), Subject::Connection);
}

#[test]
fn blocked_by_writes_reports_a_limit_before_its_credit_is_sent() {
    let mut s = SenderFlowControl::new(StreamId(0), 1000);
    s.consume(400);
    // The application wrote up to 1000; 600 bytes of credit are unsent.
    assert!(s.blocked_by_writes());
    assert_eq!(s.blocked_needed(), Some(1000));
    assert!(!s.blocked_by_writes(), "once per limit");
    s.blocked_sent();
    assert_eq!(s.blocked_needed(), None);
    // Sending the rest does not report the same limit again.
    s.consume(600);
    assert!(!s.blocked(), "already reported at this limit");
    // Lost while the limit stands: reported again, credit or not.
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), Some(1000));
    // A raise cancels the pending report and a new limit gets its own.
    assert!(s.update(1500));
    assert_eq!(s.blocked_needed(), None);
    s.blocked_lost(1000);
    assert_eq!(s.blocked_needed(), None, "the lost report's limit is gone");
    assert!(s.blocked_by_writes());
    assert_eq!(s.blocked_needed(), Some(1500));
    assert_eq!(s.available(), 500);
}
