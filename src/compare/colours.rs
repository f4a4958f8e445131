//! One colour per strategy, the same in every chart of a report (and in
//! every report): the matrix's strategies have fixed colours, `+budget` /
//! `-budget` variants a lighter or darker shade of their base, and any other
//! name a colour picked from its text (the same name, the same colour).

/// An RGB colour.
pub type Rgb = (u8, u8, u8);

/// Fixed colours of the named strategies ("tab10").
const NAMED: [(&str, Rgb); 6] = [
    ("default", (31, 119, 180)),
    ("neqo", (255, 127, 14)),
    ("double", (44, 160, 44)),
    ("fixed:1MiB", (214, 39, 40)),
    ("fixed:256KiB", (148, 103, 189)),
    ("unlimited", (127, 127, 127)),
];

/// Colours for other names, picked by a hash of the name.
const OTHERS: [Rgb; 4] = [
    (140, 86, 75),
    (227, 119, 194),
    (188, 189, 34),
    (23, 190, 207),
];

/// Mixes `c` with white (`toward > 0`) or black (`toward < 0`) by
/// `|toward|` (0..=1).
fn shade(c: Rgb, toward: f64) -> Rgb {
    let target = if toward > 0.0 { 255.0 } else { 0.0 };
    let k = toward.abs().clamp(0.0, 1.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mix = |v: u8| (f64::from(v) + (target - f64::from(v)) * k).round() as u8;
    (mix(c.0), mix(c.1), mix(c.2))
}

/// The colour of strategy `name` (`default`, `neqo+budget`, `fixed:64KiB`).
#[must_use]
pub fn colour(name: &str) -> Rgb {
    if let Some(&(_, c)) = NAMED.iter().find(|(n, _)| *n == name) {
        return c;
    }
    if let Some(base) = name.strip_suffix("+budget") {
        return shade(colour(base), 0.45);
    }
    if let Some(base) = name.strip_suffix("-budget") {
        return shade(colour(base), -0.4);
    }
    // FNV-1a of the name: stable across runs and platforms.
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    OTHERS[usize::try_from(h % OTHERS.len() as u64).unwrap_or(0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_strategy_keeps_its_colour() {
        assert_eq!(colour("default"), (31, 119, 180));
        assert_eq!(colour("unlimited"), (127, 127, 127));
        assert_ne!(colour("neqo+budget"), colour("neqo"));
        assert_ne!(colour("default-budget"), colour("default"));
        assert_eq!(colour("fixed:64KiB"), colour("fixed:64KiB"));
        // Every named colour differs.
        for (i, (_, a)) in NAMED.iter().enumerate() {
            for (_, b) in &NAMED[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
