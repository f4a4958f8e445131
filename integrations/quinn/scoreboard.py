"""The quinn scoreboard (`run.sh --scoreboard`): every row at every RTT of
the sweep, every variant; per row and variant the means over the RTTs,
and issue #44's targets checked on them. The rows and the JSON fields are
those of integrations/neqo/scoreboard.py, so both stacks read alike.

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
# With --quick (CI time) the rows where delay varies run at one RTT.
QUICK_VARYING_SWEEP = [60]

ROWS = [
    # (path, scenario: [req-|warm-]STREAMSxBYTES, h.parse_scenario's form)
    ("mission", "1x1GiB"),
    ("bench", "1x1GiB"),
    ("mission", "1x4096000"),
    ("mission", "1x10MiB"),
    ("mission", "10x409600"),
    ("mission", "req-10x409600"),
    ("mission", "req-20x1MiB"),
    ("mission", "req-100x1MiB"),
    ("cable", "1x4096000"),
    ("cable", "1x10MiB"),
    # A warm connection (a 64 MiB response read first), then requests on new
    # streams: what seeding new streams from the tuned ones buys (issue #44).
    ("mission", "warm-1x10MiB"),
    ("mission", "warm-4x8MiB"),
    # Delay that is not our own queue, and loss recovery (issue #42): the
    # mission path with up to 10 / 30 ms of extra one-way delay, order kept;
    # with a tail-drop queue of 0.1 and 0.5 BDP.
    ("jitter10", "1x1GiB"),
    ("jitter30", "1x1GiB"),
    ("shallow0.1", "1x1GiB"),
    ("shallow0.5", "1x1GiB"),
    # A standing queue that is not ours: from 2 s on another flow keeps 0.5 BDP
    # waiting in the bottleneck and takes what ours leaves.
    ("standing0.5", "1x1GiB"),
    # Our own queue, and nobody else's: 50 Mbit/s behind a 50-BDP queue. A window
    # that limits the sender holds that queue; the rule must not grow into it.
    ("bufferbloat", "1x1GiB"),
]
VARYING = ("jitter10", "jitter30", "shallow0.1", "shallow0.5", "standing0.5")
# Rows --quick runs at one RTT: the 1 GiB rows, most of its time.
ONE_QUICK_RTT = VARYING + ("bufferbloat",)
# quinn's Pair marks no ECN: neqo's `bench+ecn` row has no quinn twin.

DEFAULT_VARIANTS = "quinn-default,quinn-8MiB,unlimited,upstream-1,upstream-2,upstream-3,upstream-4,upstream-5,upstream-6,neqo-fc"
QUICK_VARIANTS = "quinn-default,unlimited,upstream-6"
# The variants the targets are checked for: the series' last step, and the
# full integration.
JUDGED = ("upstream-6", "neqo-fc")
GOODPUT_SHARE = 0.99
MAX_BULK_WINDOW_BDP = 1.6
MAX_CONN_WINDOW_BDP = 2.0
# The series' configured maximum stream window (harness-upstream/0001).
MAX_STREAM_WINDOW = 16 << 20
# Issue #42: rows where delay varies, goodput against unlimited windows.
VARYING_SHARE = 0.97


def row_name(path, scenario):
    return f"{path} {scenario}"


def row_of(run):
    return row_name(run["path"], run["scenario"])


def is_bulk(row):
    return row.endswith(" 1x1GiB")


def is_varying(row):
    return row.split(" ")[0] in VARYING


def is_multi(row):
    return not row.split(" ")[1].removeprefix("req-").removeprefix("warm-").startswith("1x")


def sweep_of(path, scenario, quick):
    if path == "cable":
        return QUICK_CABLE_SWEEP if quick else CABLE_SWEEP
    if path in ONE_QUICK_RTT or scenario == "1x1GiB":
        return QUICK_VARYING_SWEEP if quick else SWEEP
    return QUICK_SWEEP if quick else SWEEP


def plan(variants, quick, send_window=0):
    return [h.make_spec(path, scenario, v, rtt, 1 << 30, send_window)
            for path, scenario in ROWS for rtt in sweep_of(path, scenario, quick) for v in variants]


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def completed(r):
    return r is not None and "goodput_bps" in r


def summarise(runs, variants):
    """{row: {variant: means}} over the RTTs each completed; `failed` counts
    the runs quinn-proto ended."""
    by = {}
    for r in runs:
        by.setdefault(row_of(r), {}).setdefault(r["variant"], []).append(r)
    means = {}
    for row, by_variant in by.items():
        means[row] = {}
        for v in variants:
            all_ = by_variant.get(v)
            rs = [r for r in all_ or [] if completed(r)]
            if not rs:
                continue
            means[row][v] = {
                "rtts": len(rs),
                "failed": len(all_) - len(rs),
                "goodput_mbps": round(mean([r["goodput_bps"] for r in rs]) / h.MBIT, 2),
                "peak_stream_window_bytes": round(mean([r["peak_stream_window_bytes"] for r in rs])),
                "peak_conn_window_bytes": round(mean([r["peak_conn_window_bytes"] for r in rs])),
                "max_peak_stream_window_bdp": round(
                    max(r["peak_stream_window_bytes"] / r["bdp_bytes"] for r in rs), 3),
                "packets_lost": round(mean([r["packets_lost"] for r in rs]), 1),
            }
    return means


def per_rtt(runs, row, variant):
    return {r["rtt_s"]: r for r in runs if completed(r) and row_of(r) == row and r["variant"] == variant}


def share(runs, row, a, b):
    """Goodput of `a` over `b`, means over the RTTs both completed -> (share, RTTs) or None."""
    x, y = per_rtt(runs, row, a), per_rtt(runs, row, b)
    both = [k for k in x if k in y]
    if not both:
        return None
    return sum(x[k]["goodput_bps"] for k in both) / sum(y[k]["goodput_bps"] for k in both), len(both)


def targets(runs, judged):
    """Issue #44's targets (and #42's on the rows where delay varies) for one
    variant: a list of {target, measured, met}."""
    out = []
    rows = list(dict.fromkeys(row_of(r) for r in runs))
    mission = row_name("mission", "1x1GiB")

    def check(target, measured, met):
        out.append({"target": target, "measured": measured, "met": met})

    for base, which in (("quinn-default", lambda row: True),
                        ("quinn-8MiB", is_bulk), ("unlimited", is_bulk)):
        got = [(s[0], row, s[1]) for row in rows if which(row)
               for s in [share(runs, row, judged, base)] if s]
        if got:
            low, row, n = min(got)
            where = "every row" if base == "quinn-default" else "every bulk row"
            check(f"goodput >= {GOODPUT_SHARE} x {base} in {where} (means over the RTTs both completed)",
                  f"lowest {low:.3f} ({row}, {n} RTTs)", low >= GOODPUT_SHARE)
    a, b = per_rtt(runs, mission, judged), per_rtt(runs, mission, "unlimited")
    shares = sorted((a[k]["goodput_bps"] / b[k]["goodput_bps"], k) for k in a if k in b)
    if shares:
        low, at = shares[0]
        check(f"mission bulk, every RTT: goodput >= {GOODPUT_SHARE} x unlimited",
              f"lowest {low:.3f} (at {at * 1000:.0f} ms; {len(shares)} RTTs)", low >= GOODPUT_SHARE)
    if a:
        bdps = mean([r["peak_stream_window_bytes"] / r["bdp_bytes"] for r in a.values()])
        check(f"mission bulk: mean peak stream window <= {MAX_BULK_WINDOW_BDP} BDP",
              f"{bdps:.2f} BDP", bdps <= MAX_BULK_WINDOW_BDP)
        both = [k for k in a if k in b]
        lost = sum(a[k]["packets_lost"] for k in both)
        ref = sum(b[k]["packets_lost"] for k in both)
        check("mission bulk: no more packets lost than unlimited",
              f"{lost} against {ref} over {len(both)} RTTs", lost <= ref)
    worst, worst_run = None, None
    for row in rows:
        if not is_multi(row):
            continue
        rs = list(per_rtt(runs, row, judged).values())
        if not rs:
            continue
        unlimited = any(r["peak_conn_window_bytes"] >= h.UNLIMITED_WINDOW for r in rs)
        x = mean([r["peak_conn_window_bytes"] / r["bdp_bytes"] for r in rs])
        if worst is None or x > worst[0]:
            worst = (x, row, unlimited)
        for r in rs:
            y = r["peak_conn_window_bytes"] / r["bdp_bytes"]
            if worst_run is None or y > worst_run[0]:
                worst_run = (y, row, r["rtt_s"])
    if worst:
        shown = ("unlimited (quinn's receive_window default)" if worst[2] else
                 f"{worst[0]:.2f} BDP ({worst[1]}); highest single run {worst_run[0]:.2f} BDP "
                 f"({worst_run[1]} at {worst_run[2] * 1000:.0f} ms)")
        check(f"multi-stream rows: mean peak connection window <= {MAX_CONN_WINDOW_BDP} BDP (mean over RTTs)",
              f"highest row mean {shown}", worst[0] <= MAX_CONN_WINDOW_BDP)
    if judged.startswith("upstream"):
        top = max((r["peak_stream_window_bytes"] for r in runs if completed(r) and r["variant"] == judged),
                  default=None)
        if top is not None:
            check(f"peak stream window never above the configured maximum ({MAX_STREAM_WINDOW:,} B)",
                  f"largest {top:,} B", top <= MAX_STREAM_WINDOW)
    unl = {(row_of(r), r["rtt_s"]) for r in runs if completed(r) and r["variant"] == "unlimited"}
    mine = [r for r in runs if r is not None and r["variant"] == judged]
    closed = [r for r in mine if not completed(r) and (row_of(r), r["rtt_s"]) in unl]
    if unl:
        check("no run ended by quinn-proto where unlimited completes",
              f"{len(closed)} of {len(mine)}"
              + "".join(f"; {row_of(r)} at {r['rtt_s'] * 1000:.0f} ms" for r in closed[:3]),
              not closed)
    for row in rows:
        if not is_varying(row):
            continue
        s = share(runs, row, judged, "unlimited")
        if s:
            check(f"{row}: goodput >= {VARYING_SHARE} x unlimited", f"{s[0]:.3f} ({s[1]} RTTs)",
                  s[0] >= VARYING_SHARE)
        rs = list(per_rtt(runs, row, judged).values())
        if rs and (row.startswith("jitter") or row.startswith("standing")):
            path = row.split(" ")[0]

            def bound(r):
                # The mean extra delay: half the jitter's range, or the other flow's standing
                # bytes at the path's rate (0.5 BDP: half the RTT)
                extra_s = (h.JITTER_MS[path] / 2000 if path in h.JITTER_MS
                           else h.STANDING_BDP[path] * r["rtt_s"])
                return 2 * r["rate_bps"] / 8 * (r["rtt_s"] + extra_s)
            used = mean([r["peak_stream_window_bytes"] / bound(r) for r in rs])
            check(f"{row}: peak stream window <= 2 x rate x (RTT + mean extra delay) (mean over RTTs)",
                  f"{used:.2f} of the bound", used <= 1.0)
        elif rs:
            bdps = mean([r["peak_stream_window_bytes"] / r["bdp_bytes"] for r in rs])
            check(f"{row}: mean peak stream window <= 2 BDP", f"{bdps:.2f} BDP", bdps <= 2.0)
    own = row_name("bufferbloat", "1x1GiB")
    mine, fixed = per_rtt(runs, own, judged), per_rtt(runs, own, "quinn-default")
    both = [k for k in mine if k in fixed]
    if both:
        # quinn's fixed window (1.25 MB) is several BDPs at 50 Mbit/s: growing beyond the
        # larger of it and the mission path's bound is growing into our own queue.
        def over(k):
            r = mine[k]
            return r["peak_stream_window_bytes"] / max(MAX_BULK_WINDOW_BDP * r["bdp_bytes"],
                                                       fixed[k]["peak_stream_window_bytes"])
        worst = max(both, key=over)
        check(f"{own}: peak stream window <= the larger of {MAX_BULK_WINDOW_BDP} BDP and "
              "quinn-default's, at every RTT",
              f"highest {over(worst):.2f} of it (at {worst * 1000:.0f} ms; {len(both)} RTTs)",
              over(worst) <= 1.0)
    return out


def fmt_mb(n):
    return "max" if n >= h.UNLIMITED_WINDOW else f"{n / 1e6:.2f}"


def print_board(means, variants, judged_targets):
    for row, m in means.items():
        print(f"\n{row}  (mean over the RTTs each completed)")
        print(f"  {'variant':<14} {'RTTs':>4} {'closed':>6} {'Mbit/s':>8} {'/ default':>9} {'/ unlim.':>8}"
              f" {'stream win MB':>13} {'conn win MB':>11} {'max win/BDP':>11} {'lost':>8}")
        for v in variants:
            if v not in m:
                continue
            x = m[v]

            def ratio(base):
                return f"{x['goodput_mbps'] / m[base]['goodput_mbps']:.3f}" if base in m else "-"

            win = ("max" if x["peak_stream_window_bytes"] >= h.UNLIMITED_WINDOW
                   else f"{x['max_peak_stream_window_bdp']:.2f}")
            print(f"  {v:<14} {x['rtts']:>4} {x['failed']:>6} {x['goodput_mbps']:8.1f}"
                  f" {ratio('quinn-default'):>9} {ratio('unlimited'):>8}"
                  f" {fmt_mb(x['peak_stream_window_bytes']):>13} {fmt_mb(x['peak_conn_window_bytes']):>11}"
                  f" {win:>11} {x['packets_lost']:>8.1f}")
    for v, ts in judged_targets.items():
        print(f"\ntargets, {v}:")
        for t in ts:
            print(f"  {'met    ' if t['met'] else 'NOT MET'} {t['target']}: {t['measured']}")


def rescore(path):
    """Recomputes the means and targets of a scoreboard JSON from its runs
    (after this file's checks changed), prints the board, rewrites the file."""
    doc = json.loads(Path(path).read_text())
    runs = [r for r in doc["runs"] if r is not None]
    doc["means"] = summarise(runs, doc["variants"])
    doc["targets"] = {v: targets(runs, v) for v in JUDGED if v in doc["variants"]}
    print_board(doc["means"], doc["variants"], doc["targets"])
    h.write_json(path, doc)
    return 0


def scoreboard(a):
    variants = [v for v in (a.variants or (QUICK_VARIANTS if a.quick else DEFAULT_VARIANTS)).split(",") if v]
    for v in variants:
        if v not in h.VARIANTS:
            h.die(f"unknown variant {v} (known: {', '.join(h.VARIANTS)})")
    exes = dict(e.split("=", 1) for e in a.exe)
    skip_reasons = dict(e.split("=", 1) for e in a.skip_reason)
    runnable = [v for v in variants if exes.get(h.VARIANTS[v])]
    skipped = [v for v in variants if v not in runnable]
    specs = plan(runnable, a.quick, a.send_window)
    print(f"scoreboard: {len(ROWS)} rows, {len(runnable)} variants, {len(specs)} runs, {a.jobs} at a time"
          + (f"; skipped variants: {', '.join(skipped)}" if skipped else ""))
    t0 = time.monotonic()
    results, errors = h.run_all(specs, exes, a.jobs, a.seed)
    wall = time.monotonic() - t0
    runs = [r for r in results if r is not None]
    means = summarise(runs, runnable)
    judged_targets = {v: targets(runs, v) for v in JUDGED if v in runnable}
    print_board(means, runnable, judged_targets)
    print(f"\nscoreboard wall time: {wall:.0f} s ({len(specs)} runs, {a.jobs} at a time)")
    broken = [e for e in errors if not e.get("may_fail")]
    if a.json:
        doc = {"quinn_proto_version": a.quinn_proto_version, "quick": a.quick,
               "rtts_ms": QUICK_SWEEP if a.quick else SWEEP,
               "cable_rtts_ms": QUICK_CABLE_SWEEP if a.quick else CABLE_SWEEP,
               "varying_rtts_ms": QUICK_VARYING_SWEEP if a.quick else SWEEP,
               "rows": [row_name(*r) for r in ROWS], "variants": runnable,
               "variants_skipped": [{"variant": v, "reason": skip_reasons.get(h.VARIANTS[v], "tree not built")}
                                    for v in skipped],
               "send_window": a.send_window or "bdp+queue", "seed": a.seed}
        doc.update(h.tests_fields(a.tests_json))
        doc.update({"means": means, "targets": judged_targets, "scoreboard_wall_s": round(wall, 1),
                    "timings_s": json.loads(a.timings) if a.timings else None,
                    "command": a.command, "environment": a.env_info, "errors": errors, "runs": runs})
        h.write_json(a.json, doc)
    if errors:
        print(f"{len(errors)} run(s) failed, {len(broken)} of them unexpectedly", file=__import__("sys").stderr)
    return 1 if broken else 0
