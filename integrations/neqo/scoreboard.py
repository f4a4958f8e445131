"""The real-neqo scoreboard (`run.sh --scoreboard`): every row at every RTT
of the sweep, every variant; 21-RTT means of goodput and peak windows per
row and variant, and the targets of the upstream series checked on them.

Called by harness.py (`harness.py scoreboard ...`); python3 standard
library only.
"""

import json
import time
from pathlib import Path

import harness as h

SWEEP = list(range(20, 101, 4))  # 21 RTTs, ms
CABLE_SWEEP = list(range(8, 49, 2))  # 21 RTTs on the 200 Mbit/s path
QUICK_SWEEP = [20, 60, 100]
QUICK_CABLE_SWEEP = [8, 28, 48]
# Rows where delay varies (issue #42): jitter and shallow queues. With
# --quick (CI time) only the 30 ms jitter one runs, at one RTT.
VARYING = ("jitter10", "jitter30", "shallow0.1", "shallow0.5")
QUICK_JITTER_SWEEP = [60]
QUICK_JITTER_PATHS = ("jitter30",)
# neqo's own `streams-flow-controlled` bench runs at 20 ms; --quick runs that.
QUICK_H3BENCH_SWEEP = [20]
# The 1 GiB rows are most of the quick board's time: with --quick (CI time)
# they run at 60 ms alone, the shorter rows at QUICK_SWEEP.
QUICK_BULK_SWEEP = [60]

ROWS = [
    # (path, ecn, bytes on each stream, streams, the client's requests)
    ("mission", False, 1 << 30, 1, False),
    ("bench", False, 1 << 30, 1, False),
    ("bench", True, 1 << 30, 1, False),
    ("mission", False, 4_096_000, 1, False),
    ("mission", False, 10 << 20, 1, False),
    ("mission", False, 409_600, 10, False),
    ("mission", False, 409_600, 10, True),
    ("mission", False, 1 << 20, 20, True),
    ("mission", False, 1 << 20, 100, True),
    ("cable", False, 4_096_000, 1, False),
    ("cable", False, 10 << 20, 1, False),
    # Delay that is not our own queue (issue #42): the mission path with up
    # to 10 / 30 ms of extra one-way delay, order kept.
    ("jitter10", False, 1 << 30, 1, False),
    ("jitter30", False, 1 << 30, 1, False),
    # Loss recovery (issue #42): the mission path with a tail-drop queue of
    # 0.1 and 0.5 BDP.
    ("shallow0.1", False, 1 << 30, 1, False),
    ("shallow0.5", False, 1 << 30, 1, False),
    # Our own queue and nobody else's (issue #42): 50 Mbit/s behind a 50-BDP
    # queue. A window that limits the sender holds that queue; the rule must
    # not grow into it. With --quick, at one RTT.
    ("bufferbloat", False, 1 << 30, 1, False),
    # neqo-http3's `streams-flow-controlled` bench cases (one request of
    # 4 MiB, ten of 1 MiB) on its link, as transport-level requests.
    ("h3bench", False, 4 << 20, 1, True),
    ("h3bench", False, 1 << 20, 10, True),
]

# The variants the targets are checked for, and what they are held against.
JUDGED = ("upstream-5", "neqo-fc+pacing")
GOODPUT_SHARE = 0.99
MAX_BULK_WINDOW_BDP = 1.6
# Issue #42, rows where delay varies: goodput against unlimited windows.
JITTER_SHARE = 0.97
# neqo's first stream window (INITIAL_LOCAL_MAX_STREAM_DATA): 3.4 BDP on the
# bufferbloat path at 50 ms.
INITIAL_STREAM_WINDOW = 1 << 20
# neqo's TxBuffer::MAX_SIZE on the main tree (MAX_LOCAL_MAX_STREAM_DATA).
SENDER_BUFFER = 10 << 20


def row_name(path, ecn, nbytes, streams, requests):
    return f"{path}{'+ecn' if ecn else ''} {h.scenario_name(nbytes, streams, requests)}"


def row_of(run):
    return row_name(run["path"], run["ecn"], run["bytes"], run["streams"], run["requests"])


def is_bulk(row):
    return row.endswith(" 1x1GiB")


def is_varying(row):
    return row.split(" ")[0] in VARYING


def is_multi(row):
    return not row.split(" ")[1].removeprefix("req-").startswith("1x")


def plan(variants, quick):
    specs = []
    for path, ecn, nbytes, streams, requests in ROWS:
        if path == "cable":
            rtts = QUICK_CABLE_SWEEP if quick else CABLE_SWEEP
        elif path == "bufferbloat":
            rtts = QUICK_JITTER_SWEEP if quick else SWEEP
        elif path in VARYING:
            if quick and path not in QUICK_JITTER_PATHS:
                continue
            rtts = QUICK_JITTER_SWEEP if quick else SWEEP
        elif path == "h3bench":
            rtts = QUICK_H3BENCH_SWEEP if quick else SWEEP
        elif nbytes == 1 << 30:
            rtts = QUICK_BULK_SWEEP if quick else SWEEP
        else:
            rtts = QUICK_SWEEP if quick else SWEEP
        # harness.plan runs every ECN setting of the path; a row has one.
        specs += [s for s in h.plan([path], variants, rtts, False, nbytes, streams, requests)
                  if s["ecn"] == ecn]
    return specs


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def summarise(runs, variants):
    """{row: {variant: means}} over the RTTs each ran at."""
    out = {}
    for r in runs:
        if "goodput_bps" not in r:
            continue
        out.setdefault(row_of(r), {}).setdefault(r["variant"], []).append(r)
    means = {}
    for row, by_variant in out.items():
        means[row] = {}
        for v in variants:
            rs = by_variant.get(v)
            if not rs:
                continue
            means[row][v] = {
                "rtts": len(rs),
                "goodput_mbps": round(mean([r["goodput_bps"] for r in rs]) / h.MBIT, 2),
                "peak_stream_window_bytes": round(mean([r["peak_stream_window_bytes"] for r in rs])),
                "peak_conn_window_bytes": round(mean([r["peak_conn_window_bytes"] for r in rs])),
                "max_peak_stream_window_bdp": round(
                    max(r["peak_stream_window_bytes"] / r["bdp_bytes"] for r in rs), 3),
                "packets_lost": round(mean([r["packets_lost"] for r in rs]), 1),
            }
    return means


def per_rtt(runs, row, variant):
    return {r["rtt_s"]: r for r in runs
            if "goodput_bps" in r and row_of(r) == row and r["variant"] == variant}


def targets(runs, means, judged):
    """The issue's targets for one variant: a list of {target, measured, met}."""
    out = []
    mission = row_name("mission", False, 1 << 30, 1, False)
    # RTTs per row: 21 on the full sweep, fewer with --quick.
    sweep = len(per_rtt(runs, mission, judged))

    def check(target, measured, met):
        out.append({"target": target, "measured": measured, "met": met})

    # Against neqo as it ships, as it would with the pacing fix alone, and as
    # Firefox configures it; Firefox's window also on the series' tree.
    pairs = [(judged, base) for base in ("neqo-main", "neqo-main+pacing", "neqo-firefox")]
    if judged.startswith("upstream-"):
        pairs.append((f"{judged}-firefox", "neqo-firefox"))
    for variant, base in pairs:
        worst = None
        for row, m in means.items():
            if variant in m and base in m:
                share = m[variant]["goodput_mbps"] / m[base]["goodput_mbps"]
                if worst is None or share < worst[1]:
                    worst = (row, share)
        if worst:
            who = "" if variant == judged else f"{variant}: "
            check(f"{who}goodput >= {GOODPUT_SHARE} x {base} in every row ({sweep}-RTT means)",
                  f"lowest {worst[1]:.3f} ({worst[0]})", worst[1] >= GOODPUT_SHARE)
    # Like with like on pacing: the judged variant against neqo main with the
    # pacing fix, and the series without it (steps 2-3) against neqo main as
    # it ships.
    for variant, base, what in (
            (judged, "neqo-main+pacing", "neqo-main+pacing's"),
            (f"{judged}-nopacing" if judged.startswith("upstream-") else None, "neqo-main",
             "neqo-main's, without the pacing patch")):
        worst = None
        for row, m in means.items():
            if variant and is_multi(row) and variant in m and base in m:
                share = m[variant]["peak_conn_window_bytes"] / m[base]["peak_conn_window_bytes"]
                if worst is None or share > worst[1]:
                    worst = (row, share)
        if worst:
            check(f"mean peak connection window <= {what} in every multi-stream row",
                  f"highest {worst[1]:.3f} x ({worst[0]})", worst[1] <= 1.0)
    own = row_name("bufferbloat", False, 1 << 30, 1, False)
    bulk = [r for r in runs if is_bulk(row_of(r)) and not is_varying(row_of(r))
            and row_of(r) != own and r["variant"] == judged and "goodput_bps" in r]
    if bulk:
        # The basis: each bulk row's 21-RTT mean of the peak stream
        # window over the BDP. Single runs are shown too (a ramp can overshoot).
        def bdps(r):
            return r["peak_stream_window_bytes"] / r["bdp_bytes"]
        rows = {}
        for r in bulk:
            rows.setdefault(row_of(r), []).append(bdps(r))
        worst_row, worst = max(((row, mean(xs)) for row, xs in rows.items()), key=lambda x: x[1])
        top = max(bulk, key=bdps)
        over = sum(1 for r in bulk if bdps(r) > MAX_BULK_WINDOW_BDP)
        check(f"peak stream window <= {MAX_BULK_WINDOW_BDP} BDP on the bulk rows ({sweep}-RTT means)",
              f"highest row mean {worst:.2f} BDP ({worst_row}); single runs: at most "
              f"{bdps(top):.2f} ({row_of(top)} at {top['rtt_s'] * 1000:.0f} ms), "
              f"{over} of {len(bulk)} above",
              worst <= MAX_BULK_WINDOW_BDP)
    # Rows with jitter (issue #42): goodput against unlimited windows, and
    # memory against twice the rate times the RTT plus the mean extra delay
    # (half the largest).
    # `unlimited` runs on the main tree, whose sender buffers at most
    # SENDER_BUFFER: the goodput share is taken only at the RTTs where that
    # covers rate x (RTT + the largest extra delay), so the buffer does not
    # cap the reference.
    # On the shallow-queue rows, the same share where the buffer covers the
    # BDP and the queue, and memory against 2 BDP.
    for row, m in means.items():
        if not is_varying(row) or judged not in m or "unlimited" not in m:
            continue
        jitter_s = h.JITTER_MS.get(row.split(" ")[0], 0) / 1000
        ours, ref = per_rtt(runs, row, judged), per_rtt(runs, row, "unlimited")
        fair = [k for k in ours if k in ref
                and ours[k]["rate_bps"] / 8 * (k + jitter_s) + ours[k]["queue_bytes"] * (not jitter_s)
                <= SENDER_BUFFER]
        if fair:
            share = (sum(ours[k]["goodput_bps"] for k in fair)
                     / sum(ref[k]["goodput_bps"] for k in fair))
            check(f"{row}: goodput >= {JITTER_SHARE} x unlimited (means over the {len(fair)} RTTs "
                  f"up to {max(fair) * 1000:.0f} ms, where unlimited's 10 MiB sender buffer "
                  f"covers the path)", f"{share:.3f}", share >= JITTER_SHARE)
        rs = [r for r in runs if row_of(r) == row and r["variant"] == judged and "goodput_bps" in r]
        if not jitter_s:
            bdps = mean([r["peak_stream_window_bytes"] / r["bdp_bytes"] for r in rs])
            check(f"{row}: mean peak stream window <= 2 BDP", f"{bdps:.2f} BDP", bdps <= 2.0)
            continue
        extra_s = jitter_s / 2

        def bound(r):
            return 2 * r["rate_bps"] / 8 * (r["rtt_s"] + extra_s)
        used = mean([r["peak_stream_window_bytes"] / bound(r) for r in rs])
        check(f"{row}: peak stream window <= 2 x rate x (RTT + mean extra delay) (mean over RTTs)",
              f"{used:.2f} of the bound", used <= 1.0)
    # Our own queue: the window may not grow beyond the larger of the mission
    # bound and neqo's first window.
    rs = per_rtt(runs, own, judged)
    if rs:
        def over(r):
            return r["peak_stream_window_bytes"] / max(MAX_BULK_WINDOW_BDP * r["bdp_bytes"],
                                                       INITIAL_STREAM_WINDOW)
        worst = max(rs, key=lambda k: over(rs[k]))
        check(f"{own}: peak stream window <= the larger of {MAX_BULK_WINDOW_BDP} BDP and neqo's "
              f"first window (1 MiB), at every RTT",
              f"highest {over(rs[worst]):.2f} of it (at {worst * 1000:.0f} ms; {len(rs)} RTTs)",
              over(rs[worst]) <= 1.0)
    # neqo's `min_bandwidth` bench: the bench path at 40 ms, ECN off and on.
    for ecn in (False, True):
        row = row_name("bench", ecn, 1 << 30, 1, False)
        a, b = per_rtt(runs, row, judged), per_rtt(runs, row, "neqo-main")
        if 0.04 in a and 0.04 in b:
            x, y = a[0.04]["goodput_bps"] / h.MBIT, b[0.04]["goodput_bps"] / h.MBIT
            check(f"neqo's min_bandwidth case ({row} at 40 ms): goodput >= neqo-main's",
                  f"{x:.1f} against {y:.1f} Mbit/s ({x / y:.3f} x)", x >= y)
    for variant, base, share, what in (
            (judged, "unlimited", GOODPUT_SHARE, f">= {GOODPUT_SHARE} x unlimited"),
            (f"{judged}-nopacing" if judged.startswith("upstream-") else None, "neqo-main", 1.0,
             "without the pacing patch >= neqo-main")):
        if variant is None:
            continue
        a, b = per_rtt(runs, mission, variant), per_rtt(runs, mission, base)
        shares = sorted((a[k]["goodput_bps"] / b[k]["goodput_bps"], k) for k in a if k in b)
        if shares:
            low, at = shares[0]
            check(f"mission bulk, every RTT: {what}",
                  f"lowest {low:.3f} (at {at * 1000:.0f} ms; {len(shares)} RTTs)", low >= share)
    return out


def print_board(means, variants, judged_targets):
    for row, m in means.items():
        print(f"\n{row}  (mean over {max(x['rtts'] for x in m.values())} RTTs)")
        print(f"  {'variant':<22} {'Mbit/s':>8} {'/ main+pacing':>13} {'/ firefox':>9}"
              f" {'stream win MB':>13} {'conn win MB':>11} {'max win/BDP':>11} {'lost':>8}")
        for v in variants:
            if v not in m:
                continue
            x = m[v]

            def share(base):
                return f"{x['goodput_mbps'] / m[base]['goodput_mbps']:.3f}" if base in m else "-"

            print(f"  {v:<22} {x['goodput_mbps']:8.1f} {share('neqo-main+pacing'):>13} {share('neqo-firefox'):>9}"
                  f" {fmt_mb(x['peak_stream_window_bytes']):>13} {fmt_mb(x['peak_conn_window_bytes']):>11}"
                  f" {fmt_bdp(x):>11} {x['packets_lost']:>8.1f}")
    for v, ts in judged_targets.items():
        print(f"\ntargets, {v}:")
        for t in ts:
            print(f"  {'met    ' if t['met'] else 'NOT MET'} {t['target']}: {t['measured']}")


def fmt_bdp(x):
    return "max" if x["peak_stream_window_bytes"] >= h.UNLIMITED_WINDOW else f"{x['max_peak_stream_window_bdp']:.2f}"


def fmt_mb(n):
    return "max" if n >= h.UNLIMITED_WINDOW else f"{n / 1e6:.2f}"


def rescore(path):
    """Recomputes the means and targets of a scoreboard JSON from its runs
    (after scoreboard.py's checks changed), prints the board, rewrites the file."""
    doc = json.loads(Path(path).read_text())
    runs = doc["runs"]
    variants = doc["variants"]
    aliased = [dict(r, variant=v, same_run_as=base)
               for v, base in doc.get("aliases", {}).items() for r in runs if r["variant"] == base]
    doc["means"] = summarise(runs + aliased, variants)
    doc["targets"] = {v: targets(runs + aliased, doc["means"], v) for v in JUDGED if v in variants}
    print_board(doc["means"], variants, doc["targets"])
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"rewrote {path}")
    return 0


def scoreboard(a):
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in h.VARIANTS:
            h.die(f"unknown variant {v} (known: {', '.join(h.VARIANTS)})")
    exes = dict(e.split("=", 1) for e in a.exe)
    skip_reasons = dict(e.split("=", 1) for e in a.skip_reason)
    runnable = [v for v in variants if exes.get(h.VARIANTS[v][0])]
    skipped = [v for v in variants if v not in runnable]
    # An alias runs only when what it repeats is not run anyway.
    to_run = [v for v in runnable if h.ALIASES.get(v) not in runnable]
    specs = plan(to_run, a.quick)
    print(f"scoreboard: {len(ROWS)} rows, {len(to_run)} variants, {len(specs)} runs, {a.jobs} at a time"
          + (f"; skipped variants: {', '.join(skipped)}" if skipped else ""))
    t0 = time.monotonic()
    results, errors = h.run_all(specs, exes, a.jobs)
    wall = time.monotonic() - t0
    runs = [r for r in results if r is not None]
    aliased = [dict(r, variant=v, same_run_as=h.ALIASES[v])
               for v in runnable if v not in to_run for r in runs if r["variant"] == h.ALIASES[v]]
    means = summarise(runs + aliased, runnable)
    judged_targets = {v: targets(runs + aliased, means, v) for v in JUDGED if v in runnable}
    print_board(means, runnable, judged_targets)
    print(f"\nscoreboard wall time: {wall:.0f} s ({len(specs)} runs, {a.jobs} at a time)")

    if a.json:
        tests = {}
        for e in a.tree_tests:
            tree, path = e.split("=", 1)
            t = json.loads(Path(path).read_text())
            tests[tree] = {k: t.get(k) for k in (
                "tests_passed", "tests_failed", "failed_tests_unpatched_too", "failed_tests_new")}
        doc = {
            "neqo_commit": a.neqo_commit,
            "quick": a.quick,
            "rtts_ms": QUICK_SWEEP if a.quick else SWEEP,
            "cable_rtts_ms": QUICK_CABLE_SWEEP if a.quick else CABLE_SWEEP,
            "rows": [row_name(*r) for r in ROWS],
            "variants": runnable,
            "aliases": {v: h.ALIASES[v] for v in runnable if v not in to_run},
            "variants_skipped": [{"variant": v, "reason": skip_reasons.get(h.VARIANTS[v][0], "not built")}
                                 for v in skipped],
            "tests": tests,
            "means": means,
            "targets": judged_targets,
            "scoreboard_wall_s": round(wall, 1),
            "command": a.command,
            "environment": a.env_info,
            "errors": errors,
            "runs": runs,
        }
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {a.json}")
    if errors:
        print(f"{len(errors)} run(s) failed", file=__import__("sys").stderr)
        return 1
    return 0
