use super::*;
use crate::event::EventHash;

const GBIT: u64 = 1_000_000_000;
const SER_1500: u64 = 12_224;

#[test]
fn bdp_exact() {
    // 1 Gbit/s x 50 ms = 6.25 MB.
    assert_eq!(
        bdp_bytes(1_000_000_000, Duration::from_millis(50)),
        6_250_000
    );
    // neqo's bench: 1 Gbit/s x 40 ms = 5 MB.
    assert_eq!(
        bdp_bytes(1_000_000_000, Duration::from_millis(40)),
        5_000_000
    );
    // Rounds down: 1 bit/s x 7 s = 0.875 B.
    assert_eq!(bdp_bytes(1, Duration::from_secs(7)), 0);
    assert_eq!(bdp_bytes(1, Duration::from_secs(8)), 1);
    assert_eq!(bdp_bytes(0, Duration::from_secs(1)), 0);
    assert_eq!(bdp_bytes(u64::MAX, Duration::MAX), u64::MAX);
}

#[test]
fn gigabit_is_a_one_bdp_tail_drop_path() {
    let p = PathConfig::gigabit();
    assert_eq!(p.rate_bps, Some(GBIT));
    assert_eq!(p.queue_bytes, 6_250_000);
    assert_eq!(p.delay, Duration::from_millis(25));
    assert!(!p.codel && p.loss == LossModel::None && p.jitter.is_zero());
    let slow = PathConfig::tail_drop(8_000, Duration::from_secs(1));
    assert_eq!(
        (slow.queue_bytes, slow.delay),
        (1_000, Duration::from_millis(500))
    );
}

fn gbit_path(delay_ms: u64, queue_bytes: u64) -> PathConfig {
    PathConfig {
        rate_bps: Some(GBIT),
        queue_bytes,
        delay: Duration::from_millis(delay_ms),
        ..PathConfig::default()
    }
}

#[test]
fn default_path_is_transparent() {
    let mut p = Path::new(&PathConfig::default());
    let mut rng = Rng::new(0);
    assert_eq!(p.send(Time(5), 1500, &mut rng), Verdict::Forward(Time(5)));
    assert_eq!(p.send(Time(5), 1500, &mut rng), Verdict::Forward(Time(5)));
    let s = p.stats();
    assert_eq!(s.packets_in, 2);
    assert_eq!(s.forwarded_packets, 2);
    assert_eq!(s.forwarded_bytes, 3000);
    assert_eq!(s.busy_time, Duration::ZERO);
    assert!(p.bottleneck().is_none() && p.jitter().is_none());
    // Nothing random configured: no randomness consumed.
    assert_eq!(rng.next_u64(), Rng::new(0).next_u64());
}

#[test]
fn rate_plus_delay_is_exact() {
    let mut p = Path::new(&gbit_path(20, 1_000_000));
    let mut rng = Rng::new(0);
    let t0 = Time::from_millis(3);
    assert_eq!(
        p.send(t0, 1500, &mut rng),
        Verdict::Forward(Time(3_000_000 + SER_1500 + 20_000_000))
    );
    // Back-to-back: the n-th leaves at n serialisation times, plus delay.
    for n in 2..=10 {
        assert_eq!(
            p.send(t0, 1500, &mut rng),
            Verdict::Forward(Time(3_000_000 + n * SER_1500 + 20_000_000))
        );
    }
    assert_eq!(p.stats().busy_time, Duration::from_nanos(10 * SER_1500));
    assert_eq!(p.delay(), Duration::from_millis(20));
}

#[test]
fn overhead_from_config() {
    let cfg = PathConfig {
        overhead_bytes: 80,
        ..gbit_path(0, 0)
    };
    let mut p = Path::new(&cfg);
    assert_eq!(
        p.send(Time(0), 1500, &mut Rng::new(0)),
        Verdict::Forward(Time(12_640))
    );
}

#[test]
fn tail_drop_counted_at_boundary() {
    let k = 4;
    let mut p = Path::new(&gbit_path(1, k * 1500));
    let mut rng = Rng::new(0);
    for _ in 0..=k {
        assert!(matches!(
            p.send(Time(0), 1500, &mut rng),
            Verdict::Forward(_)
        ));
    }
    assert_eq!(
        p.send(Time(0), 1500, &mut rng),
        Verdict::Drop(DropReason::QueueFull)
    );
    let s = p.stats();
    assert_eq!(s.dropped_queue, 1);
    assert_eq!(s.peak_queue_bytes, k * 1500);
    assert_eq!(s.forwarded_packets, k + 1);
    assert_eq!(s.packets_in, k + 2);
}

#[test]
fn lost_datagrams_take_no_queue_space() {
    let cfg = PathConfig {
        loss: LossModel::Bernoulli { rate: 1.0 },
        ..gbit_path(0, 0)
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(0);
    for _ in 0..10 {
        assert_eq!(
            p.send(Time(0), 1500, &mut rng),
            Verdict::Drop(DropReason::RandomLoss)
        );
    }
    let s = p.stats();
    assert_eq!(
        (s.dropped_loss, s.dropped_queue, s.forwarded_packets),
        (10, 0, 0)
    );
    assert_eq!(s.busy_time, Duration::ZERO);
}

#[test]
fn codel_drops_counted() {
    // 100 Mbit/s at 2x overload for 1 s with a large queue.
    let cfg = PathConfig {
        rate_bps: Some(100_000_000),
        queue_bytes: 20_000_000,
        codel: true,
        ..PathConfig::default()
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(0);
    let mut codel = 0;
    for i in 0..16_000u64 {
        if p.send(Time(i * 61_120), 1500, &mut rng) == Verdict::Drop(DropReason::Codel) {
            codel += 1;
        }
    }
    let s = p.stats();
    // Same control-law arithmetic as the bottleneck's CoDel test, over
    // 16,000 datagrams instead of 16,362.
    assert_eq!(codel, 98);
    assert_eq!(s.dropped_queue, 0);
    assert_eq!(s.dropped_codel, codel);
    assert_eq!(
        s.packets_in,
        s.forwarded_packets + s.dropped_codel + s.dropped_queue
    );
}

#[test]
fn invalid_loss_rejected_or_clamped() {
    let cfg = PathConfig {
        loss: LossModel::Bernoulli { rate: 2.0 },
        ..PathConfig::default()
    };
    assert_eq!(
        cfg.validate(),
        Err(PathConfigError::Loss(LossError::Probability("rate", 2.0)))
    );
    assert!(Path::try_new(&cfg).is_err());
    // Clamped to 1: everything lost.
    let mut p = Path::new(&cfg);
    assert_eq!(
        p.send(Time(0), 1, &mut Rng::new(0)),
        Verdict::Drop(DropReason::RandomLoss)
    );
    let ge = PathConfig {
        loss: LossModel::GilbertElliott {
            mean_rate: 0.01,
            mean_burst: 0.0,
        },
        ..PathConfig::default()
    };
    assert!(ge.validate().is_err());
    // Clamped to burst 1; the first datagram is judged in Good: delivered.
    assert_eq!(
        Path::new(&ge).send(Time(0), 1, &mut Rng::new(0)),
        Verdict::Forward(Time(0))
    );
    assert!(PathConfig::default().validate().is_ok());
}

#[test]
fn duplicate_copy_arrives_extra_delay_after_original() {
    let cfg = PathConfig {
        duplicate: 1.0,
        duplicate_delay: Duration::from_millis(2),
        ..gbit_path(20, 1_000_000)
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(0);
    let first = 20_000_000 + SER_1500;
    assert_eq!(
        p.send(Time(0), 1500, &mut rng),
        Verdict::Forward(Time(first))
    );
    assert_eq!(p.take_duplicate(), Some(Time(first + 2_000_000)));
    assert_eq!(p.take_duplicate(), None);
    // A copy nobody collects is gone after the next send, and not counted.
    p.send(Time(0), 1500, &mut rng);
    p.send(Time(0), 1500, &mut rng);
    assert_eq!(
        p.take_duplicate(),
        Some(Time(20_000_000 + 3 * SER_1500 + 2_000_000))
    );
    let s = p.stats();
    assert_eq!((s.packets_in, s.forwarded_packets, s.duplicated), (3, 3, 2));
    // The copy takes no link time.
    assert_eq!(s.busy_time, Duration::from_nanos(3 * SER_1500));
}

#[test]
fn dropped_datagram_has_no_duplicate() {
    let cfg = PathConfig {
        duplicate: 1.0,
        loss: LossModel::Bernoulli { rate: 1.0 },
        ..PathConfig::default()
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(0);
    assert_eq!(
        p.send(Time(0), 1, &mut rng),
        Verdict::Drop(DropReason::RandomLoss)
    );
    assert_eq!(p.take_duplicate(), None);
    assert_eq!(p.stats().duplicated, 0);
}

#[test]
fn duplicate_probability_validated() {
    for bad in [-0.1, 1.01, f64::NAN] {
        let cfg = PathConfig {
            duplicate: bad,
            ..PathConfig::default()
        };
        assert!(matches!(cfg.validate(), Err(PathConfigError::Duplicate(_))));
        assert!(Path::try_new(&cfg).is_err());
    }
    for ok in [0.0, 0.05, 1.0] {
        let cfg = PathConfig {
            duplicate: ok,
            ..PathConfig::default()
        };
        assert!(cfg.validate().is_ok());
    }
}

#[test]
fn reordered_counted_in_stats() {
    let cfg = PathConfig {
        jitter: Duration::from_millis(1),
        jitter_reorders: true,
        ..PathConfig::default()
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(1);
    for i in 0..1000u64 {
        p.send(Time(i * 10_000), 1200, &mut rng);
    }
    let r = p.stats().reordered;
    assert_eq!(r, p.jitter().map_or(0, Jitter::reordered));
    assert!(r > 0);
}

/// A path using every element, fingerprinted over 20,000 datagrams.
fn fingerprint(seed: u64) -> (Vec<Verdict>, u64, PathStats) {
    let cfg = PathConfig {
        rate_bps: Some(50_000_000),
        queue_bytes: 60_000,
        overhead_bytes: 80,
        codel: true,
        delay: Duration::from_millis(10),
        loss: LossModel::GilbertElliott {
            mean_rate: 0.02,
            mean_burst: 3.0,
        },
        jitter: Duration::from_micros(500),
        jitter_reorders: true,
        ..PathConfig::default()
    };
    let mut p = Path::new(&cfg);
    let mut rng = Rng::new(seed);
    let mut h = EventHash::new();
    let mut verdicts = Vec::with_capacity(20_000);
    let mut now = Time::ZERO;
    for i in 0..20_000u64 {
        // Bursty sender averaging ~1.2x the link rate.
        now += Duration::from_nanos(rng.below(400_000));
        let size = 1200 + u32::try_from(i % 300).unwrap();
        let v = p.send(now, size, &mut rng);
        match v {
            Verdict::Forward(t) => h.mix(t.as_nanos()),
            Verdict::Drop(r) => h.mix(u64::MAX - r as u64),
        }
        verdicts.push(v);
    }
    (verdicts, h.value(), p.stats())
}

#[test]
fn same_seed_identical_verdicts() {
    let (v1, h1, s1) = fingerprint(42);
    let (v2, h2, s2) = fingerprint(42);
    assert_eq!(v1, v2);
    assert_eq!(h1, h2);
    assert_eq!(s1, s2);
    let (v3, h3, _) = fingerprint(43);
    assert_ne!(v1, v3);
    assert_ne!(h1, h3);
    // Jitter reordered some deliveries.
    let times: Vec<Time> = v1
        .iter()
        .filter_map(|v| match v {
            Verdict::Forward(t) => Some(*t),
            Verdict::Drop(_) => None,
        })
        .collect();
    assert!(times.windows(2).any(|w| w[1] < w[0]));
    // Every kind of drop happened, and the books balance.
    assert!(s1.dropped_loss > 0 && s1.dropped_queue + s1.dropped_codel > 0);
    assert_eq!(
        s1.packets_in,
        s1.forwarded_packets + s1.dropped_queue + s1.dropped_loss + s1.dropped_codel
    );
}
