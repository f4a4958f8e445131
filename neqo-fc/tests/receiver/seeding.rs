//! Seeding a new stream from the connection window, and the connection
//! floor that follows the largest stream window.

use neqo_fc::{ChangeReason, Config, ConnectionFlow, Fraction, MAX_VARINT, Subject, WindowChange};

use super::{Fixed, ID, at, conn, rtt};

/// A 256 KiB initial stream window and a ¼ seed, set explicitly so the
/// boundaries below do not move with the defaults. No budget: a stream is
/// seeded from the connection window itself, as the old per-controller
/// `open_stream` did (with a budget the basis is the connection's
/// estimate, which starts at the same value).
fn seed_config(connection_window: u64) -> Config {
    Config {
        initial_stream_window: 256 << 10,
        initial_connection_window: connection_window,
        max_stream_window: 32 << 20,
        max_connection_window: MAX_VARINT,
        update_fraction: Fraction::QUARTER,
        seed_fraction: Some(Fraction::QUARTER),
        budget: None,
        ..Config::default()
    }
}

/// A stream opened through a [`ConnectionFlow`] (the only place streams
/// are seeded now), with the stream's own window change, if any.
fn open_seeded(
    config: Config,
) -> (
    ConnectionFlow<Fixed>,
    neqo_fc::StreamReceiver,
    Option<WindowChange>,
) {
    let mut flow = ConnectionFlow::with_tuner(config.validate().unwrap(), Fixed);
    let s = flow.open_stream(ID).unwrap();
    let change = flow
        .drain_changes()
        .find(|c| c.subject == Subject::Stream(ID));
    (flow, s, change)
}

fn seeded(
    connection_window: u64,
) -> (
    ConnectionFlow<Fixed>,
    neqo_fc::StreamReceiver,
    Option<WindowChange>,
) {
    open_seeded(seed_config(connection_window))
}

#[test]
fn open_stream_seeds_max_of_initial_and_a_quarter_of_the_connection() {
    const INITIAL: u64 = 256 << 10;
    // C / 4 == initial: no seed change.
    let (_, s, change) = seeded(1 << 20);
    assert_eq!(
        (s.fc().window(), s.fc().limit(), change),
        (INITIAL, INITIAL, None)
    );
    assert_eq!(s.seed(), INITIAL);
    // C / 4 one byte above the initial window.
    let (_, s, change) = seeded((1 << 20) + 4);
    assert_eq!(s.fc().window(), INITIAL + 1);
    assert_eq!(
        s.fc().limit(),
        INITIAL,
        "the peer only knows the initial limit"
    );
    assert_eq!(
        change,
        Some(WindowChange {
            subject: Subject::Stream(ID),
            old: INITIAL,
            new: INITIAL + 1,
            reason: ChangeReason::Seed,
            rtt: None,
            elapsed: None,
            now: None,
        })
    );
    // Capped at the maximum stream window.
    let (_, s, change) = seeded(1 << 40);
    assert_eq!(s.fc().window(), 32 << 20);
    assert_eq!(change.unwrap().new, 32 << 20);
}

#[test]
fn seed_makes_an_early_update_due_only_when_it_exceeds_initial_by_the_threshold() {
    const INITIAL: u64 = 256 << 10;
    // Due when seed − initial ≥ ⌊seed / 4⌋: first at seed = 349_525.
    let (mut flow, mut s, _) = seeded(4 * 349_525);
    assert_eq!(s.fc().window(), 349_525);
    assert_eq!(349_525 - INITIAL, 349_525 / 4);
    assert!(s.update_due());
    assert_eq!(flow.stream_update(&mut s, at(8), rtt()), Some(349_525));
    assert!(!s.update_due());

    let (_, s, _) = seeded(4 * 349_525 - 1);
    assert_eq!(s.fc().window(), 349_524);
    assert!(!s.update_due());

    // A large connection window: the new stream starts at C / 4 at once.
    let (mut flow, mut s, _) = seeded(8 << 20);
    assert!(s.update_due());
    assert_eq!(flow.stream_update(&mut s, at(8), rtt()), Some(2 << 20));
}

#[test]
fn seeding_disabled_or_initial_above_seed_keeps_initial() {
    let (_, s, change) = open_seeded(Config {
        seed_fraction: None,
        ..seed_config(16 << 20)
    });
    assert_eq!((s.fc().window(), change), (256 << 10, None));
    assert!(!s.update_due());
    // A transport parameter above the seed: the window starts there.
    let (_, s, change) = open_seeded(Config {
        initial_stream_window: 1 << 20,
        ..seed_config(512 << 10)
    });
    assert_eq!(
        (s.fc().window(), s.fc().limit(), change),
        (1 << 20, 1 << 20, None)
    );
}

#[test]
fn connection_floor_raises_to_three_halves_of_the_stream_window() {
    let mut c = conn(1000);
    assert_eq!(c.cover_stream_window(666, Fraction::THREE_HALVES), None);
    assert_eq!(c.window(), 1000);
    assert_eq!(
        c.cover_stream_window(668, Fraction::THREE_HALVES),
        Some(WindowChange {
            subject: Subject::Connection,
            old: 1000,
            new: 1002,
            reason: ChangeReason::ConnectionFloor,
            rtt: None,
            elapsed: None,
            now: None,
        })
    );
    assert_eq!(
        c.cover_stream_window(1000, Fraction::THREE_HALVES)
            .unwrap()
            .new,
        1500
    );
    assert!(2 * c.window() >= 3 * 1000);
    // Never lowers it.
    assert_eq!(c.cover_stream_window(10, Fraction::THREE_HALVES), None);
    assert_eq!(c.window(), 1500);
    // The limit follows through the next update: 1500 − 1000 ≥ ¼ × 1500.
    assert!(c.update_due());
    assert_eq!(c.send_update(at(6), rtt(), &Fixed).unwrap().limit, 1500);
}

/// With no floor (0, allowed without a budget, as neqo main runs) a
/// stream seeded above the connection window leaves the connection window
/// where it was; with the default 3/2 the same stream raises it.
#[test]
fn no_connection_floor_leaves_the_connection_window_to_its_own_tuning() {
    let (flow, s, _) = open_seeded(Config {
        connection_floor: Fraction::ZERO,
        ..seed_config(8 << 20)
    });
    assert_eq!(s.fc().window(), 2 << 20, "seeded at ¼ of 8 MiB");
    assert_eq!(flow.connection().window(), 8 << 20);
    let (flow, s, _) = open_seeded(Config {
        connection_floor: Fraction::ZERO,
        initial_stream_window: 12 << 20,
        ..seed_config(8 << 20)
    });
    assert_eq!(s.fc().window(), 12 << 20);
    assert_eq!(flow.connection().window(), 8 << 20, "below the stream's");
    let (flow, _, _) = open_seeded(Config {
        initial_stream_window: 12 << 20,
        ..seed_config(8 << 20)
    });
    assert_eq!(flow.connection().window(), 18 << 20, "3/2 × 12 MiB");
}

/// The floor is exact: `2 × C ≥ 3 × S` also for odd stream windows (the
/// product is rounded up, not down).
#[test]
fn connection_floor_holds_for_odd_stream_windows() {
    let mut c = conn(1000);
    c.cover_stream_window(667, Fraction::THREE_HALVES);
    assert!(
        2 * c.window() >= 3 * 667,
        "connection window {} < 1.5 × 667",
        c.window()
    );
    assert_eq!(c.window(), 1001, "the smallest window that covers it");
}
