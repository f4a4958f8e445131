//! Human-readable numbers with three significant digits: bytes in binary
//! units (windows are powers of two), rates in decimal bit/s (links are
//! sold that way), durations in the largest unit that keeps a leading digit.

use std::time::Duration;

/// `value` with three significant digits (at most two decimals), trailing
/// zeros and a trailing dot removed.
fn sig3(value: f64) -> String {
    let decimals = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    let s = format!("{value:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// `1234567` → `1,234,567`.
#[must_use]
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 MiB`, `57.6 KiB`, `812 B`: binary prefixes, three significant digits.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    scaled(n as f64 / 1024.0, 1024.0, &units)
}

/// `value` in the first of `units` (each `step` times the one before) that
/// keeps it below `step`, with three significant digits.
fn scaled(mut value: f64, step: f64, units: &[&str]) -> String {
    let mut unit = 0;
    while value.abs() >= step && unit + 1 < units.len() {
        value /= step;
        unit += 1;
    }
    // 1023.99 KiB would print as "1024 KiB"; move it up a unit.
    if sig3(value) == sig3(step) && unit + 1 < units.len() {
        value /= step;
        unit += 1;
    }
    format!("{} {}", sig3(value), units[unit])
}

/// `1 Gbit/s`, `512 kbit/s`, `6.5 Mbit/s`: decimal prefixes.
#[must_use]
pub fn rate(bps: f64) -> String {
    if !bps.is_finite() {
        return "-".to_owned();
    }
    let units = ["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"];
    scaled(bps, 1000.0, &units)
}

/// `50 ms`, `100 us`, `1.23 s`, `0 s`.
#[must_use]
pub fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if d.is_zero() {
        "0 s".to_owned()
    } else if secs >= 1.0 {
        format!("{} s", sig3(secs))
    } else if secs >= 1e-3 {
        format!("{} ms", sig3(secs * 1e3))
    } else if secs >= 1e-6 {
        format!("{} us", sig3(secs * 1e6))
    } else {
        format!("{} ns", d.as_nanos())
    }
}

/// Seconds with millisecond resolution for tables: `1.234 s`.
#[must_use]
pub fn seconds(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

/// Windows and credit at or above this many bytes (1 PiB, more than any run
/// moves) are flow control switched off: the `unlimited` tuner's 2^62 − 1.
pub const UNLIMITED_BYTES: u64 = 1 << 50;

/// A window or credit: `∞` when it is [`UNLIMITED_BYTES`] or more (flow
/// control off), else as [`bytes`].
#[must_use]
pub fn window(n: u64) -> String {
    if n >= UNLIMITED_BYTES {
        "∞".to_owned()
    } else {
        bytes(n)
    }
}

/// A ratio such as `1.34` (two decimals), `∞` for an infinite one (an
/// unlimited window over the BDP), `-` for NaN.
#[must_use]
pub fn ratio(x: f64) -> String {
    if x.is_nan() {
        "-".to_owned()
    } else if x.is_infinite() {
        "∞".to_owned()
    } else if x >= 1000.0 {
        format!("{x:.2e}")
    } else {
        format!("{x:.2}")
    }
}

/// A size in the shortest exact unit for names: `1MiB`, `256KiB`, `1MB`,
/// `1500` — what `units::parse_size` reads back to the same value.
#[must_use]
pub fn size_name(n: u64) -> String {
    const UNITS: [(u64, &str); 8] = [
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "KB"),
    ];
    match UNITS.iter().find(|(unit, _)| n.is_multiple_of(*unit)) {
        Some((unit, name)) if n > 0 => format!("{}{name}", n / unit),
        _ => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_formats() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1024), "1 KiB");
        assert_eq!(bytes(1 << 20), "1 MiB");
        assert_eq!(bytes(6_250_000), "5.96 MiB");
        assert_eq!(bytes(57_600), "56.2 KiB");
        assert_eq!(bytes((1 << 20) - 1), "1 MiB");
        assert_eq!(bytes(u64::MAX), "16 EiB");
    }

    #[test]
    fn rate_formats() {
        assert_eq!(rate(1e9), "1 Gbit/s");
        assert_eq!(rate(512_000.0), "512 kbit/s");
        assert_eq!(rate(6_543_210.0), "6.54 Mbit/s");
        assert_eq!(rate(999_999.0), "1 Mbit/s");
        assert_eq!(rate(12.0), "12 bit/s");
        assert_eq!(rate(f64::NAN), "-");
    }

    #[test]
    fn duration_formats() {
        assert_eq!(duration(Duration::from_millis(50)), "50 ms");
        assert_eq!(duration(Duration::from_micros(100)), "100 us");
        assert_eq!(duration(Duration::from_millis(1234)), "1.23 s");
        assert_eq!(duration(Duration::ZERO), "0 s");
        assert_eq!(duration(Duration::from_nanos(5)), "5 ns");
        assert_eq!(seconds(Duration::from_millis(1234)), "1.234 s");
    }

    #[test]
    fn size_names_round_trip() {
        for n in [1 << 20, 256 << 10, 1_000_000, 1500, 3 << 30, 0, 1024 * 1000] {
            assert_eq!(crate::units::parse_size(&size_name(n)), Ok(n));
        }
        assert_eq!(size_name(1 << 20), "1MiB");
        assert_eq!(size_name(256 << 10), "256KiB");
        assert_eq!(size_name(1_000_000), "1MB");
        assert_eq!(size_name(1500), "1500");
    }

    #[test]
    fn ratios() {
        assert_eq!(ratio(1.0), "1.00");
        assert_eq!(ratio(1.344), "1.34");
        assert_eq!(ratio(f64::INFINITY), "∞");
        assert_eq!(window(1 << 62), "∞");
        assert_eq!(window(1 << 20), "1 MiB");
        assert_eq!(ratio(f64::NAN), "-");
        assert_eq!(ratio(7.4e17), "7.40e17");
    }
}
