//! The receive-window strategies `fc-lab` compares, each a (tuner,
//! [`neqo_fc::Config`]) pair built from the published rules of the stack it
//! stands for (REFERENCES.md):
//!
//! | name | stands for | windows (stream / conn) | update at |
//! |---|---|---|---|
//! | `default` | this project (`Config::default()`) | 64 KiB / 1 MiB, first stream seeded to 512 KiB, tuned to 32 / 48 MiB, memory budget | ¼ |
//! | `neqo` | neqo main | 1 / 2 MiB, tuned to 10 / 20 MiB | ¼ |
//! | `double` | quiche, Chromium, ngtcp2 | 1 / 1.5 MiB, doubled to 16 / 24 MiB | ½ |
//! | `fixed:SIZE` | neqo before tuning (1 MiB), yamux (256 KiB) | SIZE / 1.5 × SIZE × streams | ½ |
//! | `unlimited` | the upper bound | 2^62 − 1 | — |
//!
//! Only `default` has the connection memory budget; a `+budget` / `-budget`
//! suffix switches it for any strategy but `unlimited` ([`TunerChoice`]).

mod caps;
mod choice;
mod doubling;
mod neqo;
mod strategy;

pub use self::{
    caps::WindowCaps,
    choice::{BUDGET_OFF, BUDGET_ON, TunerChoice},
    doubling::DoublingTuner,
    neqo::NeqoTuner,
    strategy::{Overrides, SharedTuner, TUNER_EXPECTED, TunerSpec, Tuning},
};
