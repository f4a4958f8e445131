use super::*;
use crate::{cli::parse, tuners::TunerSpec};

fn run_args(args: &[&str]) -> Box<RunArgs> {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    match parse(&all).unwrap().command {
        Command::Run(a) => a,
        _ => unreachable!("run"),
    }
}

#[test]
fn paths_resolve_with_overrides() {
    let a = run_args(&["--profile", "gbit-50ms"]);
    let p = a.path.resolve().unwrap();
    assert_eq!(p.name, "gbit-50ms");
    assert_eq!(p.queue_bytes, 6_250_000);

    let a = run_args(&["--profile", "gbit-50ms", "--rtt", "100ms"]);
    let p = a.path.resolve().unwrap();
    assert_eq!(p.name, "gbit-50ms-custom");
    assert_eq!(p.queue_bytes, 12_500_000, "1 BDP follows the new RTT");

    let a = run_args(&[
        "--rate", "20Mbit", "--rtt", "50ms", "--queue", "0.5bdp", "--loss", "1", "--jitter", "5ms",
    ]);
    let p = a.path.resolve().unwrap();
    assert_eq!(p.name, "custom");
    assert_eq!(p.queue_bytes, 62_500);
    assert_eq!(p.loss, 0.01);
    assert!(p.jitter_reorders);

    let a = run_args(&["--rate", "20Mbit"]);
    let e = a.path.resolve().unwrap_err().to_string();
    assert!(e.starts_with("--rtt: required for a custom path"), "{e}");
}

#[test]
fn reverse_path_flags() {
    let plain = run_args(&["--profile", "gbit-50ms"])
        .path
        .resolve()
        .unwrap();
    assert_eq!(plain.reverse().rate_bps, Some(1_000_000_000));
    assert_eq!(plain.reverse().queue_bytes, plain.queue_bytes);
    let a = run_args(&[
        "--profile",
        "gbit-50ms",
        "--reverse-rate",
        "10Mbit",
        "--reverse-loss",
        "2",
    ]);
    let p = a.path.resolve().unwrap();
    assert_eq!(p.name, "gbit-50ms-custom");
    let r = p.reverse();
    assert_eq!(r.rate_bps, Some(10_000_000));
    assert_eq!(
        r.queue_bytes, 62_500,
        "the same 50 ms of queue at 10 Mbit/s"
    );
    assert_eq!(r.delay, p.forward().delay);
    assert!(matches!(
        r.loss,
        neqo_fc_sim::net::LossModel::Bernoulli { rate } if rate == 0.02
    ));
    assert_eq!(p.forward().rate_bps, Some(1_000_000_000));
}

#[test]
fn workloads_from_flags() {
    let path = profiles::find("gbit-50ms").unwrap().path();
    let a = run_args(&["--size", "1GiB", "--streams", "3"]);
    let w = a.workload(&path);
    assert_eq!(w.kind, WorkloadKind::Bulk { bytes: 1 << 30 });
    assert_eq!(w.streams, 3);
    let a = run_args(&[
        "--messages",
        "1000",
        "--message-size",
        "4KiB",
        "--reader-rate",
        "10Mbit",
    ]);
    let w = a.workload(&path);
    assert_eq!(
        w.kind,
        WorkloadKind::Messages {
            count: 1000,
            size: 4096
        }
    );
    assert_eq!(w.reader, ReaderSpeed::Rate(10_000_000));
    let a = run_args(&[]);
    assert_eq!(
        a.workload(&path).kind,
        WorkloadKind::Bulk { bytes: 239 << 20 }
    );
    assert!(parse(&["run", "--messages", "10"]).is_err());
    assert!(parse(&["run", "--size", "1MB", "--workload", "bulk"]).is_err());
}

#[test]
fn many_streams_flags() {
    let path = profiles::find("gbit-50ms").unwrap().path();
    // The brief's first workload: 100 concurrent streams of 1 MiB.
    let w = run_args(&["--streams", "100", "--size", "1MiB"]).workload(&path);
    assert_eq!(w.kind, WorkloadKind::Bulk { bytes: 1 << 20 });
    assert_eq!((w.streams, w.stall), (100, None));
    assert_eq!(w, MatrixWorkload::Many100.on(&path, false).renamed("bulk"));

    let a = run_args(&[
        "--streams",
        "51",
        "--size",
        "1MiB",
        "--bulk-plus",
        "477MiB",
        "--stall-readers",
        "50:2s",
    ]);
    let w = a.workload(&path);
    assert_eq!(
        w,
        MatrixWorkload::StallMix
            .on(&path, false)
            .renamed("bulk-plus")
    );
    let w = run_args(&["--workload", "stop-reading"]).workload(&path);
    assert_eq!(w.streams, 10);
    let stall = w.stall.unwrap();
    assert!(stall.permanent());
    let w =
        run_args(&["--workload", "many-100", "--stall-readers", "1:forever@2s"]).workload(&path);
    assert_eq!(w.stall.unwrap().start, Duration::from_secs(2));

    let a = run_args(&["--tuner", "neqo+budget"]);
    assert_eq!(a.tuner, TunerChoice::with_budget(TunerSpec::Neqo, true));
    let a = run_args(&["--tuner", "default-budget"]);
    assert_eq!(a.tuner.name(), "default-budget");

    // More stalled readers than streams: one line naming the flag.
    let a = run_args(&[
        "--profile",
        "gbit-50ms",
        "--streams",
        "2",
        "--stall-readers",
        "3:1s",
    ]);
    assert_eq!(
        a.spec().unwrap_err().to_string(),
        "--stall-readers: expected at most as many stalled readers as streams (2), got 3"
    );
    for (args, want) in [
        (
            &["run", "--stall-readers", "50"][..],
            "error: --stall-readers: expected N:DURATION[@START]",
        ),
        (
            &["run", "--stall-readers", "0:2s"],
            "error: --stall-readers: expected N:DURATION[@START]",
        ),
        (
            &["run", "--bulk-plus", "1MiB"],
            "error: the following required arguments were not provided: --size",
        ),
        (
            &["run", "--bulk-plus", "0", "--size", "1MiB"],
            "error: --bulk-plus: expected a positive size",
        ),
        (
            &["run", "--tuner", "neqo+budgets"],
            "error: --tuner: expected default, min-rtt, neqo",
        ),
        (
            &["run", "--tuner", "unlimited+budget"],
            "error: --tuner: the unlimited tuner takes no budget",
        ),
        (
            &["compare", "--tuner", "default,double+"],
            "error: --tuner: expected default, min-rtt, neqo",
        ),
        (
            &[
                "run",
                "--workload",
                "stall-mix",
                "--bulk-plus",
                "1MiB",
                "--size",
                "1MiB",
            ],
            "error: the argument '--workload <NAME>' cannot be used with",
        ),
    ] {
        let e = parse(args).unwrap_err();
        assert!(e.starts_with(want), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{args:?}: {e}");
    }
}

#[test]
fn run_spec_from_flags() {
    let a = run_args(&[
        "--profile",
        "residential-adsl2+",
        "--tuner",
        "fixed:256KiB",
        "--update-fraction",
        "1.0",
        "--seed",
        "9",
        "--cc",
        "newreno",
        "--qlog",
        "/tmp/x",
        "--qlog-level",
        "full",
    ]);
    let s = a.spec().unwrap();
    assert_eq!(s.tuner, TunerSpec::Fixed(256 << 10).into());
    assert_eq!(s.overrides.update_fraction, Some(Fraction::ONE));
    assert_eq!(s.seed, 9);
    assert_eq!(s.cc, CcAlgorithm::NewReno);
    assert_eq!(s.trace, TraceLevel::Full);
}

#[test]
fn traced_behaviours_can_be_overridden_one_by_one() {
    let a = run_args(&[
        "--profile",
        "gbit-50ms",
        "--transport",
        "neqo",
        "--blocked",
        "on-send",
        "--app-limit",
        "per-packet",
    ]);
    let t = a.spec().unwrap().transport;
    assert_eq!(t.blocked, Some(BlockedArg::OnSend));
    assert_eq!(t.app_limit, Some(AppLimitArg::PerPacket));
    assert_eq!(t.name(), "neqo,blocked=on-send,app-limit=per-packet");
    // The former name still selects it.
    let t = run_args(&["--profile", "gbit-50ms", "--transport", "neqo-traced"])
        .spec()
        .unwrap()
        .transport;
    assert_eq!((t.blocked, t.app_limit), (None, None));
    assert_eq!(t.name(), "neqo");
}
