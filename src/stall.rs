//! Stalled readers as a person writes them: `--stall-readers
//! N:DURATION[@START]` (`50:2s`, `1:forever`, `50:2s@500ms`): the readers
//! of the last N streams stop reading at START (default 1 s) for DURATION,
//! or for good.

use std::time::Duration;

use neqo_fc_sim::scenario::Stall;

use crate::units::{UnitError, parse_count, parse_duration};

/// When a stall begins unless `@START` says otherwise: 1 s, after a
/// connection on the matrix's paths has left slow start.
pub const DEFAULT_STALL_START: Duration = Duration::from_secs(1);

/// The word for a stall that never ends.
pub const FOREVER: &str = "forever";

/// What [`parse_stall`] accepts.
pub const STALL_EXPECTED: &str = "N:DURATION[@START]: the last N streams (N >= 1) stop reading \
at START (default 1s) for DURATION or forever, e.g. 50:2s, 1:forever, 50:2s@500ms";

/// Parses `N:DURATION[@START]` ([`STALL_EXPECTED`]); `START` may be zero.
///
/// # Errors
/// [`UnitError`] naming [`STALL_EXPECTED`] and echoing `s`.
pub fn parse_stall(s: &str) -> Result<Stall, UnitError> {
    let e = || UnitError {
        expected: STALL_EXPECTED,
        got: s.to_owned(),
    };
    let (count, rest) = s.trim().split_once(':').ok_or_else(e)?;
    let (length, start) = match rest.split_once('@') {
        Some((l, st)) => (l, parse_duration(st).map_err(|_| e())?),
        None => (rest, DEFAULT_STALL_START),
    };
    let streams = parse_count(count)
        .ok()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= 1)
        .ok_or_else(e)?;
    let duration = if length.trim() == FOREVER {
        Duration::MAX
    } else {
        parse_duration(length)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(e)?
    };
    Ok(Stall {
        streams,
        start,
        duration,
    })
}

/// A duration in the shortest exact unit: `2s`, `500ms`, `250us`, `7ns`.
fn compact(d: Duration) -> String {
    let nanos = d.as_nanos();
    for (per, unit) in [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")] {
        if nanos.is_multiple_of(per) {
            return format!("{}{unit}", nanos / per);
        }
    }
    format!("{nanos}ns")
}

/// The canonical `N:DURATION@START` form, which [`parse_stall`] reads
/// back: `50:2s@1s`, `1:forever@1s`.
#[must_use]
pub fn stall_name(stall: &Stall) -> String {
    let length = if stall.permanent() {
        FOREVER.to_owned()
    } else {
        compact(stall.duration)
    };
    format!("{}:{length}@{}", stall.streams, compact(stall.start))
}

/// In words: `the last 50 streams stop reading at 1 s for 2 s`, `the last
/// stream stops reading at 1 s for good`.
#[must_use]
pub fn describe(stall: &Stall) -> String {
    let who = if stall.streams == 1 {
        "the last stream stops".to_owned()
    } else {
        format!("the last {} streams stop", stall.streams)
    };
    let how_long = if stall.permanent() {
        "for good".to_owned()
    } else {
        format!("for {}", crate::format::duration(stall.duration))
    };
    format!(
        "{who} reading at {} {how_long}",
        crate::format::duration(stall.start)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stall(streams: u32, start_ms: u64, duration: Duration) -> Stall {
        Stall {
            streams,
            start: Duration::from_millis(start_ms),
            duration,
        }
    }

    #[test]
    fn parses_the_documented_forms() {
        let two = Duration::from_secs(2);
        assert_eq!(parse_stall("50:2s"), Ok(stall(50, 1000, two)));
        assert_eq!(parse_stall("50:2s@1s"), Ok(stall(50, 1000, two)));
        assert_eq!(parse_stall("50:2s@0ms"), Ok(stall(50, 0, two)));
        assert_eq!(parse_stall("1:forever"), Ok(stall(1, 1000, Duration::MAX)));
        assert_eq!(
            parse_stall("3:forever@250ms"),
            Ok(stall(3, 250, Duration::MAX))
        );
        assert_eq!(
            parse_stall("2:1.5s@100us"),
            Ok(Stall {
                streams: 2,
                start: Duration::from_micros(100),
                duration: Duration::from_millis(1500),
            })
        );
    }

    #[test]
    fn rejects_with_one_line_echoing_the_value() {
        for bad in [
            "",
            "50",
            "50:",
            ":2s",
            "0:2s",
            "-1:2s",
            "x:2s",
            "50:0s",
            "50:2",
            "50:2s@",
            "50:2s@x",
            "50:2s@1s@1s",
            "50:never",
            "4294967296:1s",
            "50:-2s",
        ] {
            let e = parse_stall(bad).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("expected {STALL_EXPECTED}, got {bad:?}"),
                "{bad}"
            );
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn names_round_trip() {
        for s in ["50:2s@1s", "1:forever@1s", "3:1500ms@250us", "7:1ns@0s"] {
            let parsed = parse_stall(s).unwrap();
            assert_eq!(stall_name(&parsed), s);
        }
        assert_eq!(stall_name(&parse_stall("50:2s").unwrap()), "50:2s@1s");
    }

    #[test]
    fn descriptions() {
        assert_eq!(
            describe(&parse_stall("50:2s").unwrap()),
            "the last 50 streams stop reading at 1 s for 2 s"
        );
        assert_eq!(
            describe(&parse_stall("1:forever@500ms").unwrap()),
            "the last stream stops reading at 500 ms for good"
        );
    }
}
