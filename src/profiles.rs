//! Built-in network paths ([`PROFILES`]: the ones rust-yamux benchmarks
//! with, from its `constrained-connection` crate, REFERENCES.md, then the paths this
//! project's questions need) and the resolved path a run uses ([`PathSpec`]).

use std::time::Duration;

use neqo_fc_sim::{
    net::{EcnRewrite, LossModel, PathConfig, bdp_bytes},
    scenario::CrossTraffic,
};

use crate::units::QueueSpec;

/// A named network path.
///
/// Invariants: `rate_bps > 0`, `rtt > 0`, `loss` in [0, 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// Name used on the command line.
    pub name: &'static str,
    /// One line on what the path stands for.
    pub description: &'static str,
    /// Bottleneck rate, bit/s (both directions).
    pub rate_bps: u64,
    /// Round-trip propagation delay (each direction carries half).
    pub rtt: Duration,
    /// Bottleneck queue capacity.
    pub queue: QueueSpec,
    /// Per-datagram link overhead on top of the UDP payload; `None` = the
    /// simulator's default (28 B: IPv4 + UDP).
    pub overhead_bytes: Option<u32>,
    /// Random loss probability on the data direction, in [0, 1).
    pub loss: f64,
    /// Largest extra random delay on the data direction.
    pub jitter: Duration,
    /// Whether that jitter may reorder datagrams.
    pub jitter_reorders: bool,
}

/// A profile with a one-BDP queue and no loss, jitter or extra overhead.
pub(crate) const fn profile(
    name: &'static str,
    description: &'static str,
    rate_bps: u64,
    rtt: Duration,
) -> Profile {
    Profile {
        name,
        description,
        rate_bps,
        rtt,
        queue: QueueSpec::ONE_BDP,
        overhead_bytes: None,
        loss: 0.0,
        jitter: Duration::ZERO,
        jitter_reorders: false,
    }
}

/// Every built-in profile, in the order `fc-lab profiles` lists them.
pub const PROFILES: &[Profile] = &[
    profile(
        "satellite",
        "geostationary satellite link (a rust-yamux benchmark path)",
        512_000,
        Duration::from_millis(900),
    ),
    profile(
        "residential-dsl",
        "DSL line (a rust-yamux benchmark path)",
        2_000_000,
        Duration::from_millis(50),
    ),
    profile(
        "mobile-hsdpa",
        "3G mobile (a rust-yamux benchmark path)",
        6_000_000,
        Duration::from_millis(100),
    ),
    profile(
        "residential-adsl2+",
        "ADSL2+ line (a rust-yamux benchmark path)",
        20_000_000,
        Duration::from_millis(50),
    ),
    profile(
        "residential-cable",
        "cable line (a rust-yamux benchmark path)",
        200_000_000,
        Duration::from_millis(20),
    ),
    profile(
        "gbit-lan",
        "gigabit LAN (a rust-yamux benchmark path)",
        1_000_000_000,
        Duration::from_micros(100),
    ),
    profile(
        "high-speed-terrestrial",
        "gigabit metro link (a rust-yamux benchmark path)",
        1_000_000_000,
        Duration::from_millis(1),
    ),
    profile(
        "gbit-50ms",
        "the mission's headline path: 1 Gbit/s at 50 ms",
        1_000_000_000,
        Duration::from_millis(50),
    ),
    Profile {
        queue: QueueSpec::Bytes(500_000),
        overhead_bytes: Some(80),
        ..profile(
            "neqo-bench",
            "neqo's gigabit bench: 500,000 B queue (4 ms), 80 B overhead",
            1_000_000_000,
            Duration::from_millis(40),
        )
    },
    profile(
        "long-fat",
        "long fat pipe: 10 Gbit/s at 100 ms (125 MB BDP)",
        10_000_000_000,
        Duration::from_millis(100),
    ),
    Profile {
        loss: 0.01,
        ..profile(
            "lossy",
            "1 % random loss on the data direction",
            100_000_000,
            Duration::from_millis(40),
        )
    },
    Profile {
        queue: QueueSpec::Drain(Duration::from_secs(1)),
        ..profile(
            "bufferbloat",
            "a 1-second queue (50 BDP)",
            50_000_000,
            Duration::from_millis(20),
        )
    },
    Profile {
        jitter: Duration::from_millis(5),
        jitter_reorders: true,
        ..profile(
            "reorder",
            "up to 5 ms of jitter that reorders datagrams",
            100_000_000,
            Duration::from_millis(30),
        )
    },
];

/// The profile called `name`, if there is one.
#[must_use]
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// All profile names, comma-separated (for error messages and help).
#[must_use]
pub fn names() -> String {
    PROFILES
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Profile {
    /// True if runs on this path depend on the PRNG seed (random loss or
    /// jitter): one seed is one draw of the loss pattern.
    #[must_use]
    pub fn is_random(&self) -> bool {
        self.loss > 0.0 || self.jitter > Duration::ZERO
    }

    /// The path this profile describes, ready to run.
    #[must_use]
    pub fn path(&self) -> PathSpec {
        let bdp = bdp_bytes(self.rate_bps, self.rtt);
        PathSpec {
            name: self.name.to_owned(),
            rate_bps: self.rate_bps,
            rtt: self.rtt,
            queue_bytes: self.queue.bytes(bdp, self.rate_bps),
            overhead_bytes: self
                .overhead_bytes
                .unwrap_or(neqo_fc_sim::net::DEFAULT_OVERHEAD_BYTES),
            loss: self.loss,
            jitter: self.jitter,
            jitter_reorders: self.jitter_reorders,
            reverse_rate_bps: None,
            reverse_loss: 0.0,
            codel: false,
            ecn_rewrite: EcnRewrite::Keep,
            cross: None,
        }
    }
}

/// A concrete path for one run: a profile, possibly with flags overriding
/// some of its values, or a custom path.
///
/// Invariants (checked by the CLI before a run): `rate_bps > 0`,
/// `rtt > 0`, `loss` in [0, 1). Delay is split evenly: each direction has
/// a one-way delay of `rtt / 2`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// Profile name, or `custom` / `<profile>-custom` when flags changed it.
    pub name: String,
    /// Bottleneck rate in bit/s (both directions).
    pub rate_bps: u64,
    /// Round-trip propagation delay.
    pub rtt: Duration,
    /// Bottleneck queue capacity in bytes.
    pub queue_bytes: u64,
    /// Per-datagram link overhead in bytes.
    pub overhead_bytes: u32,
    /// Random loss probability on the data direction.
    pub loss: f64,
    /// Largest jitter on the data direction.
    pub jitter: Duration,
    /// Whether the jitter may reorder.
    pub jitter_reorders: bool,
    /// Rate of the reverse (client → server: ACKs, MAX_*) direction, when
    /// it differs (`None`: the same as `rate_bps`, e.g. a DSL uplink).
    pub reverse_rate_bps: Option<u64>,
    /// Random loss on the reverse direction (ACKs and MAX_* frames).
    pub reverse_loss: f64,
    /// CoDel (RFC 8289 defaults) at both bottlenecks: it drops Not-ECT
    /// datagrams and marks ECN-capable ones CE.
    pub codel: bool,
    /// What a middlebox does to the ECN field, both directions (the
    /// faults ECN validation catches).
    pub ecn_rewrite: EcnRewrite,
    /// A second connection sharing the path (`--cross`), `None`: ours alone.
    pub cross: Option<CrossTraffic>,
}

impl PathSpec {
    /// Bandwidth-delay product in bytes (`rate × rtt / 8`).
    #[must_use]
    pub fn bdp_bytes(&self) -> u64 {
        bdp_bytes(self.rate_bps, self.rtt)
    }

    /// The reverse direction (client → server): the data direction's delay
    /// and overhead, its own rate (`reverse_rate_bps`, with a queue of the
    /// same drain time) and loss, no jitter. Without those set, exactly
    /// what `Scenario::new` mirrors.
    #[must_use]
    pub fn reverse(&self) -> PathConfig {
        let forward = self.forward();
        let rate = self.reverse_rate_bps.unwrap_or(self.rate_bps);
        let queue_bytes = if rate == self.rate_bps {
            self.queue_bytes
        } else {
            // The same drain time as the forward queue, at least one datagram.
            crate::units::mul_div(self.queue_bytes, rate, self.rate_bps).max(1_600)
        };
        PathConfig {
            rate_bps: Some(rate),
            queue_bytes,
            loss: if self.reverse_loss > 0.0 {
                LossModel::Bernoulli {
                    rate: self.reverse_loss,
                }
            } else {
                LossModel::None
            },
            jitter: Duration::ZERO,
            ..forward
        }
    }

    /// The data direction (server → client) for the simulator.
    #[must_use]
    pub fn forward(&self) -> PathConfig {
        PathConfig {
            rate_bps: Some(self.rate_bps),
            queue_bytes: self.queue_bytes,
            overhead_bytes: self.overhead_bytes,
            codel: self.codel,
            ecn_rewrite: self.ecn_rewrite,
            delay: self.rtt / 2,
            loss: if self.loss > 0.0 {
                LossModel::Bernoulli { rate: self.loss }
            } else {
                LossModel::None
            },
            jitter: self.jitter,
            jitter_reorders: self.jitter_reorders,
            ..PathConfig::default()
        }
    }

    /// One line: `1 Gbit/s, RTT 50 ms, queue 5.96 MiB, BDP 5.96 MiB`, plus
    /// loss, jitter and overhead when set.
    #[must_use]
    pub fn summary(&self) -> String {
        use crate::format;
        #[allow(clippy::cast_precision_loss)]
        let mut s = format!(
            "{}, RTT {}, queue {}, BDP {}",
            format::rate(self.rate_bps as f64),
            format::duration(self.rtt),
            format::bytes(self.queue_bytes),
            format::bytes(self.bdp_bytes()),
        );
        if self.loss > 0.0 {
            s.push_str(&format!(", loss {}%", self.loss * 100.0));
        }
        if !self.jitter.is_zero() {
            s.push_str(&format!(", jitter {}", format::duration(self.jitter)));
            if self.jitter_reorders {
                s.push_str(" (reorders)");
            }
        }
        if self.overhead_bytes != neqo_fc_sim::net::DEFAULT_OVERHEAD_BYTES {
            s.push_str(&format!(", overhead {} B", self.overhead_bytes));
        }
        if self.codel {
            s.push_str(", CoDel");
        }
        match self.ecn_rewrite {
            EcnRewrite::Keep => {}
            EcnRewrite::Clear => s.push_str(", a middlebox clears ECN"),
            EcnRewrite::Ect1 => s.push_str(", a middlebox rewrites ECT(0) to ECT(1)"),
        }
        match self.cross {
            None => {}
            Some(CrossTraffic::First { lead }) => s.push_str(&format!(
                ", a bulk connection {} ahead of ours",
                format::duration(lead)
            )),
            Some(CrossTraffic::Second { after }) => s.push_str(&format!(
                ", a bulk connection from {} after ours",
                format::duration(after)
            )),
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_exact_and_unique() {
        let names: Vec<_> = PROFILES.iter().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "satellite",
                "residential-dsl",
                "mobile-hsdpa",
                "residential-adsl2+",
                "residential-cable",
                "gbit-lan",
                "high-speed-terrestrial",
                "gbit-50ms",
                "neqo-bench",
                "long-fat",
                "lossy",
                "bufferbloat",
                "reorder",
            ]
        );
        assert!(find("gbit-50ms").is_some());
        assert!(find("gbit").is_none());
    }

    #[test]
    fn paths_resolve() {
        let p = find("gbit-50ms").unwrap().path();
        assert_eq!(p.bdp_bytes(), 6_250_000);
        assert_eq!(p.queue_bytes, 6_250_000);
        let f = p.forward();
        assert_eq!(f.delay, Duration::from_millis(25));
        assert_eq!(f.rate_bps, Some(1_000_000_000));
        assert_eq!(f.loss, LossModel::None);

        let neqo = find("neqo-bench").unwrap().path();
        assert_eq!(neqo.queue_bytes, 500_000);
        assert_eq!(neqo.overhead_bytes, 80);
        assert_eq!(neqo.forward().delay, Duration::from_millis(20));

        let sat = find("satellite").unwrap().path();
        assert_eq!(sat.bdp_bytes(), 57_600);
        assert_eq!(sat.forward().delay, Duration::from_millis(450));

        let lan = find("gbit-lan").unwrap().path();
        assert_eq!(lan.bdp_bytes(), 12_500);
        assert_eq!(lan.forward().delay, Duration::from_micros(50));

        // 1 s at 50 Mbit/s = 6.25 MB = 50 BDP of 125 kB.
        let bloat = find("bufferbloat").unwrap().path();
        assert_eq!(bloat.queue_bytes, 6_250_000);
        assert_eq!(bloat.bdp_bytes(), 125_000);

        let lossy = find("lossy").unwrap().path();
        assert_eq!(lossy.forward().loss, LossModel::Bernoulli { rate: 0.01 });

        let reorder = find("reorder").unwrap().path().forward();
        assert_eq!(reorder.jitter, Duration::from_millis(5));
        assert!(reorder.jitter_reorders);

        assert_eq!(find("long-fat").unwrap().path().bdp_bytes(), 125_000_000);
    }

    #[test]
    fn every_profile_is_valid() {
        for p in PROFILES {
            assert!(p.rate_bps > 0 && !p.rtt.is_zero(), "{}", p.name);
            assert!((0.0..1.0).contains(&p.loss), "{}", p.name);
            assert_eq!(p.path().forward().validate(), Ok(()), "{}", p.name);
        }
    }
}
