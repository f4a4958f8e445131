//! A strategy with the connection memory budget on or off: what `--tuner`
//! names (`neqo`, `neqo+budget`, `default-budget`). Only `default` has the
//! budget by itself; a suffix that restates a strategy's own setting is
//! accepted and dropped from the canonical name.

use neqo_fc::{Budget, ConfigError, Fraction, MAX_VARINT};

use super::strategy::{Overrides, TunerSpec, Tuning, finish};

/// Suffix that turns the memory budget on.
pub const BUDGET_ON: &str = "+budget";
/// Suffix that turns the memory budget off.
pub const BUDGET_OFF: &str = "-budget";

/// A receive-window strategy and whether its receiver bounds the credit
/// outstanding over all streams with [`Budget::default`].
///
/// Invariant (checked by [`TunerChoice::build`], enforced by
/// [`TunerChoice::parse`]): `unlimited` never has the budget, its windows
/// being 2^62 − 1 by definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TunerChoice {
    /// The strategy.
    pub base: TunerSpec,
    /// Whether the memory budget is on.
    pub budget: bool,
}

impl From<TunerSpec> for TunerChoice {
    /// The strategy with its own budget setting (on for `default` only).
    fn from(base: TunerSpec) -> Self {
        Self::new(base)
    }
}

impl TunerChoice {
    /// The six strategies of the many-streams section: each of `default`,
    /// `neqo` and `double` with and without the budget.
    pub const MANY_STREAMS: [Self; 6] = [
        Self::new(TunerSpec::Default),
        Self::with_budget(TunerSpec::Default, false),
        Self::new(TunerSpec::Neqo),
        Self::with_budget(TunerSpec::Neqo, true),
        Self::new(TunerSpec::Double),
        Self::with_budget(TunerSpec::Double, true),
    ];

    /// `base` with its own budget setting.
    #[must_use]
    pub const fn new(base: TunerSpec) -> Self {
        Self {
            base,
            budget: base.has_budget(),
        }
    }

    /// `base` with the budget switched on or off.
    #[must_use]
    pub const fn with_budget(base: TunerSpec, budget: bool) -> Self {
        Self { base, budget }
    }

    /// Parses a [`TunerSpec`] name optionally followed by `+budget` or
    /// `-budget` (`fixed:1MiB+budget`).
    ///
    /// # Errors
    /// One line (without the flag name) saying what is accepted, echoing `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        let (rest, budget) = if let Some(rest) = s.strip_suffix(BUDGET_ON) {
            (rest, Some(true))
        } else if let Some(rest) = s.strip_suffix(BUDGET_OFF) {
            (rest, Some(false))
        } else {
            (s, None)
        };
        let base = TunerSpec::parse_shown(rest, s)?;
        if base == TunerSpec::Unlimited && budget == Some(true) {
            return Err(format!(
                "the unlimited tuner takes no budget (its windows are 2^62 - 1), got {s:?}"
            ));
        }
        Ok(budget.map_or_else(|| Self::new(base), |b| Self::with_budget(base, b)))
    }

    /// The canonical name, which [`TunerChoice::parse`] reads back: the
    /// strategy's name, with `+budget` / `-budget` only where the budget
    /// differs from the strategy's own setting.
    #[must_use]
    pub fn name(&self) -> String {
        let mut name = self.base.name();
        match (self.budget, self.base.has_budget()) {
            (true, false) => name.push_str(BUDGET_ON),
            (false, true) => name.push_str(BUDGET_OFF),
            _ => {}
        }
        name
    }

    /// The tuner and settings (see [`TunerSpec::build`]) with the budget
    /// set as chosen.
    ///
    /// # Errors
    /// As [`TunerSpec::build`]; also `unlimited` with the budget.
    pub fn build(&self, overrides: &Overrides, streams: u32) -> Result<Tuning, ConfigError> {
        if self.budget && self.base == TunerSpec::Unlimited {
            return Err(ConfigError("the unlimited tuner takes no budget"));
        }
        let mut tuning = self.base.build(overrides, streams)?;
        tuning.config.budget = self.budget.then(|| {
            let mut budget = Budget::default();
            if let Some(w) = overrides.max_window {
                budget.ceiling = budget.ceiling.max(w.saturating_mul(2).min(MAX_VARINT));
            }
            budget
        });
        // The budget shares what it measures through the connection
        // floor: a peer without one (`neqo`) gets the smallest, 1.
        if self.budget && tuning.config.connection_floor.num() == 0 {
            tuning.config.connection_floor = Fraction::ONE;
        }
        finish(tuning.tuner, tuning.config)
    }
}

impl std::fmt::Display for TunerChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use neqo_fc::Config;

    use super::*;

    #[test]
    fn suffixes_parse_and_round_trip() {
        for (s, base, budget) in [
            ("default", TunerSpec::Default, true),
            ("default-budget", TunerSpec::Default, false),
            ("neqo", TunerSpec::Neqo, false),
            ("neqo+budget", TunerSpec::Neqo, true),
            ("double+budget", TunerSpec::Double, true),
            ("fixed:1MiB+budget", TunerSpec::Fixed(1 << 20), true),
            ("unlimited", TunerSpec::Unlimited, false),
        ] {
            let c = TunerChoice::parse(s).unwrap();
            assert_eq!(c, TunerChoice::with_budget(base, budget), "{s}");
            assert_eq!(c.name(), s);
            assert_eq!(TunerChoice::parse(&c.name()), Ok(c));
        }
        // A suffix that restates the strategy's own setting is dropped.
        assert_eq!(
            TunerChoice::parse("default+budget").unwrap().name(),
            "default"
        );
        assert_eq!(TunerChoice::parse("neqo-budget").unwrap().name(), "neqo");
        assert_eq!(
            TunerChoice::parse("unlimited-budget").unwrap().name(),
            "unlimited"
        );
        assert_eq!(
            TunerChoice::parse("fixed:1MiB+budget"),
            Ok(TunerChoice::with_budget(TunerSpec::Fixed(1 << 20), true))
        );
        assert!(
            TunerChoice::parse("fixed+budget").is_err(),
            "a bare fixed has no size"
        );
        assert_eq!(
            TunerChoice::MANY_STREAMS.map(|t| t.name()),
            [
                "default",
                "default-budget",
                "neqo",
                "neqo+budget",
                "double",
                "double+budget"
            ]
        );
    }

    #[test]
    fn parse_errors_echo_the_whole_value() {
        for bad in [
            "+budget",
            "-budget",
            "neqo+",
            "neqo+Budget",
            "neqo budget",
            "neqo+budget+budget",
            "neqo-budget+budget",
            "fixed:0+budget",
            "unlimited+budget",
            "magic-budget",
        ] {
            let e = TunerChoice::parse(bad).unwrap_err();
            assert!(e.ends_with(&format!("got {bad:?}")), "{bad}: {e}");
            assert!(!e.contains('\n'), "{bad}: {e}");
        }
        assert!(
            TunerChoice::parse("magic-budget")
                .unwrap_err()
                .starts_with("expected default, min-rtt, neqo, double")
        );
    }

    #[test]
    fn budget_reaches_the_config() {
        let none = Overrides::default();
        let build = |s: &str| TunerChoice::parse(s).unwrap().build(&none, 100).unwrap();
        assert_eq!(build("default").config, Config::default());
        assert_eq!(build("default").config.budget, Some(Budget::default()));
        let off = build("default-budget").config;
        assert_eq!(off.budget, None);
        assert_eq!(
            off,
            Config {
                budget: None,
                ..Config::default()
            }
        );
        let neqo = build("neqo").config;
        let neqo_b = build("neqo+budget").config;
        assert_eq!(neqo.budget, None);
        assert_eq!(neqo_b.budget, Some(Budget::default()));
        // neqo has no connection floor; the budget needs one (1).
        assert_eq!(neqo.connection_floor, Fraction::ZERO);
        assert_eq!(neqo_b.connection_floor, Fraction::ONE);
        assert_eq!(
            Config {
                budget: None,
                connection_floor: Fraction::ZERO,
                ..neqo_b
            },
            neqo,
            "only the budget and the floor it needs differ"
        );
        assert_eq!(
            build("double+budget").config.budget,
            Some(Budget::default())
        );
        assert!(
            TunerChoice::with_budget(TunerSpec::Unlimited, true)
                .build(&none, 1)
                .is_err()
        );
    }
}
