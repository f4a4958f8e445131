//! `fc-lab profiles`: the built-in network paths as a table or JSON.

use super::{
    args::ProfilesArgs,
    output::{json_line, print},
};
use crate::{
    error::LabError,
    format,
    profiles::PROFILES,
    table::{Align, Table},
};

/// The `profiles` table.
#[must_use]
#[allow(clippy::cast_precision_loss)]
pub fn profiles_table() -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("rate", Align::Right),
        ("RTT", Align::Right),
        ("queue", Align::Right),
        ("BDP", Align::Right),
        ("notes", Align::Left),
    ]);
    for p in PROFILES {
        let path = p.path();
        let bdp = path.bdp_bytes();
        t.push(vec![
            p.name.to_owned(),
            format::rate(p.rate_bps as f64),
            format::duration(p.rtt),
            format!(
                "{} ({} BDP)",
                format::bytes(path.queue_bytes),
                format::ratio(path.queue_bytes as f64 / bdp as f64)
            ),
            format::bytes(bdp),
            p.description.to_owned(),
        ]);
    }
    let own = [("name", "what --profile takes".to_owned())];
    let legend = crate::legend::render(&crate::legend::of(&t, &own), "");
    t.render("") + &legend
}

#[derive(serde::Serialize)]
struct ProfileJson {
    name: &'static str,
    description: &'static str,
    rate_bps: u64,
    rtt_s: f64,
    queue_bytes: u64,
    bdp_bytes: u64,
    overhead_bytes: u32,
    loss_rate: f64,
    jitter_s: f64,
    jitter_reorders: bool,
}

pub(super) fn cmd_profiles(a: &ProfilesArgs) -> Result<i32, LabError> {
    if a.json {
        let list: Vec<ProfileJson> = PROFILES
            .iter()
            .map(|p| {
                let path = p.path();
                ProfileJson {
                    name: p.name,
                    description: p.description,
                    rate_bps: p.rate_bps,
                    rtt_s: p.rtt.as_secs_f64(),
                    queue_bytes: path.queue_bytes,
                    bdp_bytes: path.bdp_bytes(),
                    overhead_bytes: path.overhead_bytes,
                    loss_rate: path.loss,
                    jitter_s: path.jitter.as_secs_f64(),
                    jitter_reorders: path.jitter_reorders,
                }
            })
            .collect();
        print(&json_line(&list)?);
    } else {
        print(&profiles_table());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_table_lists_all() {
        let t = profiles_table();
        let legend = t.lines().position(|l| l.starts_with("legend: ")).unwrap();
        assert_eq!(legend, PROFILES.len() + 2);
        let line = t.lines().find(|l| l.starts_with("neqo-bench")).unwrap();
        assert!(
            line.contains("1 Gbit/s") && line.contains("40 ms"),
            "{line}"
        );
        assert!(
            line.contains("488 KiB (0.10 BDP)") && line.contains("80 B overhead"),
            "{line}"
        );
    }
}
