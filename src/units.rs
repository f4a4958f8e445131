//! Parsers for the quantities typed on the command line (rates, sizes,
//! durations, queues, percentages, fractions, counts): exact (decimals are
//! scaled with integer arithmetic, so `0.1bdp` is one tenth), never
//! panicking, and failing with a [`UnitError`] that says what was expected.

use std::{fmt, time::Duration};

use neqo_fc::Fraction;

/// A value that does not parse as the quantity asked for.
///
/// Invariant: `expected` is a short phrase with examples ("a rate like
/// 1Gbit, 20Mbit or 512kbit"); `got` is the input verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitError {
    /// What was expected, with examples.
    pub expected: &'static str,
    /// What was given.
    pub got: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, got {:?}", self.expected, self.got)
    }
}

impl std::error::Error for UnitError {}

/// What `parse_rate` accepts.
pub const RATE_EXPECTED: &str = "a rate like 1Gbit, 20Mbit or 512kbit (bit/s; also 1Gbps)";
/// What `parse_size` accepts.
pub const SIZE_EXPECTED: &str = "a size like 1GiB, 500KB or 4096 (bytes; KB/MB/GB/TB/PB = 1000^n, KiB/MiB/GiB/TiB/PiB = 1024^n)";
/// What `parse_duration` accepts.
pub const DURATION_EXPECTED: &str = "a duration like 50ms, 100us or 1s (ns, us, ms, s)";
/// What `parse_queue` accepts.
pub const QUEUE_EXPECTED: &str =
    "a queue like 1bdp, 0.1bdp, a size like 500KB or 2MiB, or a drain time like 4ms";
/// What `parse_percent` accepts.
pub const PERCENT_EXPECTED: &str = "a percentage in [0, 100) like 1, 0.5 or 2%";
/// What `parse_fraction` accepts.
pub const FRACTION_EXPECTED: &str = "a fraction in (0, 1] like 1.0, 0.5, 0.25 or 1/3";
/// What `parse_count` accepts.
pub const COUNT_EXPECTED: &str = "a whole number like 1, 10 or 1000";

/// A decimal number as `mantissa / 10^scale`, parsed exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decimal {
    mantissa: u128,
    scale: u32,
}

impl Decimal {
    /// Parses `123`, `1.5`, `.25`, `2.` (no sign, no exponent, at most 18
    /// fractional digits, at most 30 digits in all).
    fn parse(s: &str) -> Option<Self> {
        let (int, frac) = match s.split_once('.') {
            Some((i, f)) => (i, f),
            None => (s, ""),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        if frac.len() > 18 || int.len() + frac.len() > 30 {
            return None;
        }
        let mut mantissa: u128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            mantissa = mantissa * 10 + u128::from(b - b'0');
        }
        Some(Self {
            mantissa,
            // frac.len() ≤ 18 was checked above.
            scale: u32::try_from(frac.len()).ok()?,
        })
    }

    /// `round(self × multiplier)`, or `None` if it does not fit in a `u64`.
    fn times(self, multiplier: u64) -> Option<u64> {
        let den = 10u128.pow(self.scale);
        let product = self.mantissa.checked_mul(u128::from(multiplier))?;
        u64::try_from((product + den / 2) / den).ok()
    }

    fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    #[allow(clippy::cast_precision_loss)]
    fn as_f64(self) -> f64 {
        self.mantissa as f64 / 10f64.powi(i32::try_from(self.scale).unwrap_or(0))
    }
}

/// Splits `"1.5 Gbit"` into `("1.5", "Gbit")`: the leading digits and dots,
/// then the rest with surrounding spaces removed.
fn split_number(s: &str) -> (&str, &str) {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    (&s[..end], s[end..].trim())
}

fn err(expected: &'static str, got: &str) -> UnitError {
    UnitError {
        expected,
        got: got.to_owned(),
    }
}

/// A bit rate in bit/s: `1Gbit`, `20Mbit`, `512kbit`, `1.5Gbit/s`, `100Mbps`,
/// or a plain number of bit/s. Prefixes are decimal (k = 1000) and
/// case-insensitive. Zero is rejected: a link must move data.
///
/// # Errors
/// [`UnitError`] for anything else, a zero rate, or one above 2^64 − 1.
pub fn parse_rate(s: &str) -> Result<u64, UnitError> {
    let (num, unit) = split_number(s);
    let e = || err(RATE_EXPECTED, s);
    let value = Decimal::parse(num).ok_or_else(e)?;
    let unit = unit.to_ascii_lowercase();
    let unit = unit.strip_suffix("/s").unwrap_or(&unit);
    let prefix = if let Some(p) = unit.strip_suffix("bps") {
        p
    } else if let Some(p) = unit.strip_suffix("bit") {
        p
    } else if unit.is_empty() {
        ""
    } else {
        return Err(e());
    };
    let multiplier = match prefix {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "t" => 1_000_000_000_000,
        _ => return Err(e()),
    };
    match value.times(multiplier) {
        Some(v) if v > 0 => Ok(v),
        _ => Err(e()),
    }
}

/// A byte count: `4096`, `500KB`, `2MiB`, `1GiB`, `1.5MB`, `10 bytes`.
/// KB … EB are powers of 1000, KiB … EiB powers of 1024; units
/// are case-insensitive.
///
/// # Errors
/// [`UnitError`] for anything else or a value above 2^64 − 1.
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    parse_size_as(s, SIZE_EXPECTED)
}

fn size_multiplier(unit: &str) -> Option<u64> {
    Some(match unit.to_ascii_lowercase().as_str() {
        "" | "b" | "byte" | "bytes" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "pb" => 1_000_000_000_000_000,
        "eb" => 1_000_000_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "pib" => 1 << 50,
        "eib" => 1 << 60,
        _ => return None,
    })
}

fn parse_size_as(s: &str, expected: &'static str) -> Result<u64, UnitError> {
    let (num, unit) = split_number(s);
    let value = Decimal::parse(num).ok_or_else(|| err(expected, s))?;
    let multiplier = size_multiplier(unit).ok_or_else(|| err(expected, s))?;
    value.times(multiplier).ok_or_else(|| err(expected, s))
}

/// True when `s` is a well-formed size whose value does not fit in 64
/// bits (`99999999999TiB`): too large rather than malformed.
#[must_use]
pub fn size_too_large(s: &str) -> bool {
    let (num, unit) = split_number(s);
    match (Decimal::parse(num), size_multiplier(unit)) {
        (Some(value), Some(multiplier)) => value.times(multiplier).is_none(),
        _ => false,
    }
}

fn duration_nanos_per_unit(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        _ => return None,
    })
}

/// A non-negative duration with a unit: `50ms`, `100us` (or `100µs`),
/// `1s`, `1.5s`, `250ns`. A unit is required: `50` alone is ambiguous.
///
/// # Errors
/// [`UnitError`] for anything else, negative values included.
pub fn parse_duration(s: &str) -> Result<Duration, UnitError> {
    parse_duration_as(s, DURATION_EXPECTED)
}

fn parse_duration_as(s: &str, expected: &'static str) -> Result<Duration, UnitError> {
    let (num, unit) = split_number(s);
    let value = Decimal::parse(num).ok_or_else(|| err(expected, s))?;
    let per = duration_nanos_per_unit(unit).ok_or_else(|| err(expected, s))?;
    let nanos = value.times(per).ok_or_else(|| err(expected, s))?;
    Ok(Duration::from_nanos(nanos))
}

/// A bottleneck queue capacity, resolved against a path's bandwidth-delay
/// product and rate once those are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueSpec {
    /// A multiple of the BDP, in millionths (`1bdp` = 1,000,000).
    BdpPpm(u64),
    /// A fixed number of bytes.
    Bytes(u64),
    /// Bytes the link drains in this time (`rate × time / 8`).
    Drain(Duration),
}

impl QueueSpec {
    /// One BDP: the default queue of every profile.
    pub const ONE_BDP: Self = Self::BdpPpm(1_000_000);

    /// The capacity in bytes on a path with this BDP and rate.
    #[must_use]
    pub fn bytes(self, bdp_bytes: u64, rate_bps: u64) -> u64 {
        match self {
            Self::BdpPpm(ppm) => mul_div(bdp_bytes, ppm, 1_000_000),
            Self::Bytes(b) => b,
            Self::Drain(d) => neqo_fc_sim::net::bdp_bytes(rate_bps, d),
        }
    }
}

impl fmt::Display for QueueSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::BdpPpm(ppm) => {
                #[allow(clippy::cast_precision_loss)]
                let x = ppm as f64 / 1e6;
                write!(f, "{x}bdp")
            }
            Self::Bytes(b) => f.write_str(&crate::format::bytes(b)),
            Self::Drain(d) => write!(f, "{}", crate::format::duration(d)),
        }
    }
}

/// A queue capacity: `1bdp`, `0.1bdp`, `2.5BDP`, a size (`500KB`, `2MiB`)
/// or a drain time at the link rate (`4ms`).
///
/// # Errors
/// [`UnitError`] for anything else.
pub fn parse_queue(s: &str) -> Result<QueueSpec, UnitError> {
    let (num, unit) = split_number(s);
    if unit.eq_ignore_ascii_case("bdp") {
        let value = Decimal::parse(num).ok_or_else(|| err(QUEUE_EXPECTED, s))?;
        let ppm = value
            .times(1_000_000)
            .ok_or_else(|| err(QUEUE_EXPECTED, s))?;
        return Ok(QueueSpec::BdpPpm(ppm));
    }
    if duration_nanos_per_unit(unit).is_some() {
        return parse_duration_as(s, QUEUE_EXPECTED).map(QueueSpec::Drain);
    }
    parse_size_as(s, QUEUE_EXPECTED).map(QueueSpec::Bytes)
}

/// A percentage in [0, 100): `1`, `0.5`, `2%`. Returned as a probability
/// in [0, 1).
///
/// # Errors
/// [`UnitError`] for anything else, including 100 and above.
pub fn parse_percent(s: &str) -> Result<f64, UnitError> {
    let t = s.trim();
    let t = t.strip_suffix('%').unwrap_or(t).trim_end();
    let value = Decimal::parse(t).ok_or_else(|| err(PERCENT_EXPECTED, s))?;
    if value.as_f64() >= 100.0 {
        return Err(err(PERCENT_EXPECTED, s));
    }
    // One division of the exact decimal: 0.999 % → 999 / 10^5.
    #[allow(clippy::cast_precision_loss)]
    let probability =
        value.mantissa as f64 / 10f64.powi(i32::try_from(value.scale).unwrap_or(0) + 2);
    Ok(probability)
}

/// A fraction in (0, 1]: a decimal (`1.0`, `0.5`, `0.25`) or `a/b`.
///
/// # Errors
/// [`UnitError`] for zero, values above one, or anything else.
pub fn parse_fraction(s: &str) -> Result<Fraction, UnitError> {
    let t = s.trim();
    let e = || err(FRACTION_EXPECTED, s);
    let fraction = if let Some((a, b)) = t.split_once('/') {
        let num: u32 = a.trim().parse().map_err(|_| e())?;
        let den: u32 = b.trim().parse().map_err(|_| e())?;
        Fraction::new(num, den).ok_or_else(e)?
    } else {
        let value = Decimal::parse(t).ok_or_else(e)?;
        if value.is_zero() {
            return Err(e());
        }
        // Exact for up to 9 decimal places; more are rounded to 2^-16.
        let exact = (value.scale <= 9)
            .then(|| {
                let num = u32::try_from(value.mantissa).ok()?;
                let den = 10u32.pow(value.scale);
                let g = gcd(num, den);
                Fraction::new(num / g, den / g)
            })
            .flatten();
        exact
            .or_else(|| sixteen_bit(value.as_f64()))
            .ok_or_else(e)?
    };
    if fraction.num() > 0 && fraction.num() <= fraction.den() {
        Ok(fraction)
    } else {
        Err(e())
    }
}

/// The nearest fraction with denominator 65,536 to `v` (0 ≤ v < 65,536).
fn sixteen_bit(v: f64) -> Option<Fraction> {
    if !v.is_finite() || !(0.0..65_536.0).contains(&v) {
        return None;
    }
    // In range by the check above; `as` cannot truncate here.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let num = (v * 65_536.0).round() as u64;
    Fraction::new(u32::try_from(num).ok()?, 65_536)
}

/// Greatest common divisor (Euclid); `gcd(0, d) = d`, never 0 for d ≥ 1.
fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// A whole number ≥ 0 (`1`, `1000`; `_` separators allowed: `1_000`).
///
/// # Errors
/// [`UnitError`] for signs, decimals or anything else.
pub fn parse_count(s: &str) -> Result<u64, UnitError> {
    let t: String = s.trim().chars().filter(|&c| c != '_').collect();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(err(COUNT_EXPECTED, s));
    }
    t.parse().map_err(|_| err(COUNT_EXPECTED, s))
}

/// `⌊a × b / c⌋` (a zero `c` taken as 1), saturating at `u64::MAX`.
#[must_use]
pub fn mul_div(a: u64, b: u64, c: u64) -> u64 {
    let q = u128::from(a) * u128::from(b) / u128::from(c.max(1));
    u64::try_from(q).unwrap_or(u64::MAX)
}

/// A duration in nanoseconds, saturating at `u64::MAX`.
#[must_use]
pub fn nanos(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("1Gbit"), Ok(1_000_000_000));
        assert_eq!(parse_rate("20Mbit"), Ok(20_000_000));
        assert_eq!(parse_rate("512kbit"), Ok(512_000));
        assert_eq!(parse_rate("1.5Gbit/s"), Ok(1_500_000_000));
        assert_eq!(parse_rate("100Mbps"), Ok(100_000_000));
        assert_eq!(parse_rate("10 gbit"), Ok(10_000_000_000));
        assert_eq!(parse_rate("64000"), Ok(64_000));
        assert_eq!(parse_rate("1bit"), Ok(1));
        assert_eq!(parse_rate("0.0005kbit"), Ok(1)); // 0.5 bit/s rounds up
        for bad in [
            "fast",
            "",
            "0",
            "0Mbit",
            "1Gbyte",
            "-1Gbit",
            "1Xbit",
            "1.2.3Mbit",
            "Mbit",
        ] {
            let e = parse_rate(bad).unwrap_err();
            assert_eq!(e.got, bad);
            assert_eq!(e.expected, RATE_EXPECTED);
        }
        assert_eq!(
            parse_rate("fast").unwrap_err().to_string(),
            format!("expected {RATE_EXPECTED}, got \"fast\"")
        );
        // 2^64 bit/s does not fit.
        assert!(parse_rate("18446744073709551616").is_err());
        assert_eq!(parse_rate("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("10 bytes"), Ok(10));
        assert_eq!(parse_size("7B"), Ok(7));
        assert_eq!(parse_size("500KB"), Ok(500_000));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("256kib"), Ok(262_144));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("2MiB"), Ok(2_097_152));
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("1GiB"), Ok(1_073_741_824));
        assert_eq!(parse_size("1.5MiB"), Ok(1_572_864));
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
        assert_eq!(parse_size("0"), Ok(0));
        for bad in ["x", "1 K", "1Mbit", "-5KB", "KB", "1e6", "1,000"] {
            assert_eq!(
                parse_size(bad).unwrap_err().expected,
                SIZE_EXPECTED,
                "{bad}"
            );
        }
        assert!(parse_size("16777216TiB").is_err()); // 2^64
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("50ms"), Ok(Duration::from_millis(50)));
        assert_eq!(parse_duration("100us"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("100µs"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0.1ms"), Ok(Duration::from_micros(100)));
        assert_eq!(parse_duration("250ns"), Ok(Duration::from_nanos(250)));
        assert_eq!(parse_duration("0ms"), Ok(Duration::ZERO));
        for bad in ["-5ms", "50", "5 min", "ms", "fast", "1h"] {
            assert_eq!(
                parse_duration(bad).unwrap_err().expected,
                DURATION_EXPECTED,
                "{bad}"
            );
        }
    }

    #[test]
    fn queues() {
        assert_eq!(parse_queue("1bdp"), Ok(QueueSpec::ONE_BDP));
        assert_eq!(parse_queue("0.1bdp"), Ok(QueueSpec::BdpPpm(100_000)));
        assert_eq!(parse_queue("2.5BDP"), Ok(QueueSpec::BdpPpm(2_500_000)));
        assert_eq!(parse_queue("500KB"), Ok(QueueSpec::Bytes(500_000)));
        assert_eq!(parse_queue("2MiB"), Ok(QueueSpec::Bytes(2 << 20)));
        assert_eq!(parse_queue("500000"), Ok(QueueSpec::Bytes(500_000)));
        assert_eq!(
            parse_queue("4ms"),
            Ok(QueueSpec::Drain(Duration::from_millis(4)))
        );
        for bad in ["x", "bdp", "-1bdp", "1 bdps", "1Mbit"] {
            assert_eq!(
                parse_queue(bad).unwrap_err().expected,
                QUEUE_EXPECTED,
                "{bad}"
            );
        }
        // Resolution against a path: 1 Gbit/s × 50 ms.
        let bdp = 6_250_000;
        assert_eq!(QueueSpec::ONE_BDP.bytes(bdp, 1_000_000_000), 6_250_000);
        assert_eq!(
            QueueSpec::BdpPpm(100_000).bytes(bdp, 1_000_000_000),
            625_000
        );
        assert_eq!(QueueSpec::Bytes(7).bytes(bdp, 1_000_000_000), 7);
        // neqo's bench: 500,000 B = 4 ms at 1 Gbit/s.
        assert_eq!(
            QueueSpec::Drain(Duration::from_millis(4)).bytes(bdp, 1_000_000_000),
            500_000
        );
    }

    #[test]
    fn percents() {
        assert_eq!(parse_percent("1"), Ok(0.01));
        assert_eq!(parse_percent("0.5%"), Ok(0.005));
        assert_eq!(parse_percent("0"), Ok(0.0));
        assert_eq!(parse_percent("99.9"), Ok(0.999));
        for bad in ["100", "150%", "-1", "x", "%"] {
            assert_eq!(parse_percent(bad).unwrap_err().expected, PERCENT_EXPECTED);
        }
    }

    #[test]
    fn fractions() {
        let f = parse_fraction("0.25").unwrap();
        assert_eq!(f.of(1 << 20), 1 << 18);
        assert_eq!(parse_fraction("1.0").unwrap().of(77), 77);
        assert_eq!(parse_fraction("1").unwrap().of(77), 77);
        assert_eq!(parse_fraction("0.5").unwrap().of(1000), 500);
        assert_eq!(parse_fraction("1/3").unwrap().of(3000), 1000);
        assert_eq!(parse_fraction("0.1").unwrap().of(1000), 100);
        assert_eq!(parse_fraction("1.0"), Ok(Fraction::ONE));
        assert_eq!(parse_fraction("0.50"), Ok(Fraction::HALF));
        assert_eq!(parse_fraction("0.25"), Ok(Fraction::QUARTER));
        // More than nine decimal places: rounded to a 2^-16 step.
        assert_eq!(parse_fraction("0.1234567891").unwrap().den(), 65_536);
        assert_eq!(sixteen_bit(0.25).unwrap().of(1 << 20), 1 << 18);
        assert!(sixteen_bit(-0.1).is_none() && sixteen_bit(f64::NAN).is_none());
        for bad in ["0", "0.0", "1.01", "2", "3/2", "1/0", "-0.5", "half", ""] {
            assert_eq!(
                parse_fraction(bad).unwrap_err().expected,
                FRACTION_EXPECTED,
                "{bad}"
            );
        }
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("10"), Ok(10));
        assert_eq!(parse_count("1_000"), Ok(1000));
        for bad in ["-1", "1.5", "", "ten", "99999999999999999999"] {
            assert_eq!(parse_count(bad).unwrap_err().expected, COUNT_EXPECTED);
        }
    }
}
