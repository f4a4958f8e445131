#!/usr/bin/env python3
"""Helpers for integrations/quinn/run.sh (python3 standard library only).

Subcommands:
  crate-dir NAME             read `cargo metadata --format-version 1` on stdin, print the
                             source folder of package NAME
  test-exe                   read cargo --message-format=json on stdin, print quinn-proto's
                             lib test executable
  tests LOG OUT.json         summarise a libtest log (passed, failed names, ignored)
  classify OUT.json MAIN.json [TREE=TREE.json ...]
                             the trees' test results, and which failures of the patched
                             trees fail on main too
  matrix ...                 run the fc_run matrix, print tables, write JSON
  scoreboard ...             every row of scoreboard.py at every RTT of its sweep, the
                             means and the targets (run.sh --scoreboard)
  rescore FILE               recompute a scoreboard JSON's means and targets from its runs
  loopback MAIN.jsonl TREE=TREE.jsonl... [--json FILE]
                             compare the real-socket runs of the patched trees with
                             main's (medians), print them, add them to FILE as "loopback"
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

MBIT = 1e6
# The repository (two folders up): results name paths relative to it.
REPO = Path(__file__).resolve().parent.parent.parent
GBIT_BPS = 1_000_000_000
# Windows at or above this print as unlimited (quinn's VarInt::MAX is 2^62 - 1).
UNLIMITED_WINDOW = 1 << 60
TEST_NAME = "tests::fc_harness::fc_run"


def die(msg):
    print(f"harness.py: {msg}", file=sys.stderr)
    sys.exit(1)


# ------------------------------------------------------------------ crate-dir


def crate_dir(name):
    meta = json.load(sys.stdin)
    for p in meta["packages"]:
        if p["name"] == name:
            print(Path(p["manifest_path"]).parent)
            return
    die(f"cargo metadata lists no package {name}")


# -------------------------------------------------------------------- test-exe


def test_exe():
    exe = None
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if (msg.get("reason") == "compiler-artifact" and msg.get("profile", {}).get("test")
                and msg.get("target", {}).get("name") == "quinn_proto"):
            exe = msg.get("executable") or exe
    if not exe:
        die("cargo did not report quinn-proto's lib test executable")
    print(exe)


# ----------------------------------------------------------------------- tests

RESULT = re.compile(r"^test (.+?)(?: - should panic)? \.\.\. (ok|FAILED|ignored)\b")
SUMMARY = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored")


def parse_tests(log):
    passed, failed, ignored = [], [], []
    totals = [0, 0, 0]
    for line in Path(log).read_text(errors="replace").splitlines():
        if m := RESULT.match(line):
            {"ok": passed, "FAILED": failed, "ignored": ignored}[m.group(2)].append(m.group(1))
        elif m := SUMMARY.match(line):
            totals = [t + int(x) for t, x in zip(totals, m.groups())]
    if totals != [len(passed), len(failed), len(ignored)]:
        print(f"   warning: libtest's summary says {totals[0]} passed, {totals[1]} failed, "
              f"{totals[2]} ignored; the per-test lines say {len(passed)}, {len(failed)}, {len(ignored)}")
    if not totals[0] and not passed:
        print("   warning: no test result in the log (did the test binary crash?)")
    return {"passed": len(passed), "failed": len(failed), "failed_tests": sorted(set(failed)),
            "ignored": len(ignored)}


def classify(out_json, main_json, others):
    """others: TREE=FILE, one per patched tree."""
    main = json.loads(Path(main_json).read_text())
    res = {"tests_passed": {"main": main["passed"]}, "tests_failed": {"main": main["failed"]},
           "failed_tests": {"main": main["failed_tests"]}, "tests_seconds": {"main": main.get("seconds")}}
    new, also_all = set(), set()
    new_by_tree = {}
    for spec in others:
        tree, path = spec.split("=", 1)
        t = json.loads(Path(path).read_text())
        also = sorted(set(t["failed_tests"]) & set(main["failed_tests"]))
        mine = sorted(set(t["failed_tests"]) - set(main["failed_tests"]))
        res["tests_passed"][tree] = t["passed"]
        res["tests_failed"][tree] = t["failed"]
        res["failed_tests"][tree] = t["failed_tests"]
        res["tests_seconds"][tree] = t.get("seconds")
        new_by_tree[tree] = mine
        new |= set(mine)
        also_all |= set(also)
        for name in also:
            print(f"   {tree} fails, main too (unpatched too): {name}")
        for name in mine:
            print(f"   FAILS ONLY ON THE {tree.upper()} TREE: {name}")
    if others:
        res["failed_tests_unpatched_too"] = sorted(also_all)
    # Names failing on some patched tree but not on main (by tree: failed_tests_new_by_tree).
    res["failed_tests_new"] = sorted(new)
    res["failed_tests_new_by_tree"] = new_by_tree
    Path(out_json).write_text(json.dumps(res, indent=1) + "\n")
    return 1 if new else 0


# ---------------------------------------------------------------------- matrix

FULL_RTTS = [20, 30, 40, 50, 60, 80, 100]
PATHS = {
    # name: (rate in bit/s, queue in bytes given rtt in ms and rate in bit/s)
    # 1 Gbit/s, tail-drop queue of one BDP: the simulator's PathConfig::tail_drop.
    "mission": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 8000)),
    # neqo's gigabit bench queue: 4 ms at 1 Gbit/s (500 kB), tail drop.
    "bench": (GBIT_BPS, lambda rtt_ms, rate: rate * 4 // 8000),
    # fc-lab's residential-cable profile: 200 Mbit/s, 1-BDP tail drop.
    "cable": (200_000_000, lambda rtt_ms, rate: int(rate * rtt_ms / 8000)),
    # The mission path with up to 10 / 30 ms of extra one-way delay on the data direction
    # (server to client), drawn uniformly per datagram, order kept (fc_run's FC_JITTER_MS,
    # OrderedJitter; fc-lab's --jitter J --no-reorder; the neqo harness's paths of the same
    # names): delay that is not our own queue (issue #42).
    "jitter10": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 8000)),
    "jitter30": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 8000)),
    # The mission path with a shallow tail-drop queue, 0.1 and 0.5 BDP: slow start and
    # every later probe overflow it, so loss recovery is part of the transfer (issue #42).
    "shallow0.1": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 80000)),
    "shallow0.5": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 16000)),
    # The mission path where, from 2 s on, another flow keeps 0.5 BDP waiting in the data
    # direction's queue and takes only the capacity ours leaves (fc_run's FC_STANDING_BYTES):
    # a standing queue that is not ours raises the RTT but not its minimum (issue #42).
    "standing0.5": (GBIT_BPS, lambda rtt_ms, rate: int(rate * rtt_ms / 8000)),
    # fc-lab's bufferbloat profile: 50 Mbit/s, a 50-BDP tail-drop queue, our flow alone. A
    # window that limits the sender holds a queue of its own making; a rule that sizes windows
    # for the delay it sees grows into it (issue #42).
    "bufferbloat": (50_000_000, lambda rtt_ms, rate: int(rate * rtt_ms / 8000 * 50)),
}
# Extra one-way delay of a path, ms (none where absent).
JITTER_MS = {"jitter10": 10, "jitter30": 30}
# Bytes another flow keeps waiting in the data direction's queue, in BDPs, from
# STANDING_FROM_S on (none where absent).
STANDING_BDP = {"standing0.5": 0.5}
STANDING_FROM_S = 2
# name: the tree it runs on (the client's windows are set in fc_harness.rs)
VARIANTS = {
    "quinn-default": "main",
    "quinn-8MiB": "main",
    "unlimited": "main",
    "neqo-fc": "fc",
    # patches/upstream/ step by step (+ patches/harness-upstream/, each from the step its
    # Applies-From line names, step 2 by default):
    # upstream-1 passes time and RTT to the MAX_STREAM_DATA writer and changes no
    # behaviour (quinn's defaults on its tree); upstream-2 tunes stream windows up to
    # 16 MiB; upstream-3 also scales the assembler's gap bound; upstream-4 also tunes
    # the connection window, from 2.5 MB up to 24 MiB; upstream-5 also starts new streams at
    # the largest window tuning found; upstream-6 also sizes windows for the minimum RTT plus
    # four times its variation where that is below the smoothed RTT.
    **{f"upstream-{n}": f"upstream-{n}" for n in range(1, 7)},
}
# The client's configuration (fc_harness.rs FC_VARIANT) where it is not the variant's name.
CONFIG = {
    "upstream-1": "quinn-default",
    "upstream-2": "upstream",
    "upstream-3": "upstream",
    "upstream-4": "upstream-conn",
    "upstream-5": "upstream-conn",
    "upstream-6": "upstream-conn",
}
# quinn-proto 0.11.19 closes the connection (INTERNAL_ERROR "too many gaps in stream
# buffer") when more than 1024 separate pieces of one stream wait for a retransmission;
# windows that let slow start overshoot a tail-drop queue get there. A failed transfer of
# these variants (quinn's assembler as released: the main tree, and upstream-2, tuned
# windows before 0003) is a result, not a broken harness (see README.md). The fc tree and
# upstream-3 on carry patches/neqo-fc/0002 (= patches/upstream/0003), which scales that
# bound with the data buffered, so any failure there fails the run.
MAY_FAIL = {"unlimited", "quinn-8MiB", "upstream-2"}
QUICK_BYTES = 256 << 20
# --quick: (scenario, path, RTTs); bulk uses QUICK_BYTES unless --bytes is given.
QUICK = [("bulk", "mission", [20, 50]), ("1x4096000", "mission", [50])]
SIZE = re.compile(r"^(\d+)(KiB|MiB|GiB)?$")
SCENARIO = re.compile(r"^(req-|warm-)?(\d+)x(.+)$")
# warm-KxSIZE: the client's K requests of SIZE, opened when the response to one request of
# WARM_BYTES, sent alone first, has been read (fc_run's FC_WARM_BYTES): a connection whose
# congestion and flow control have grown, then a burst of new streams.
WARM_BYTES = 64 << 20


def parse_size(s):
    m = SIZE.match(s)
    if not m:
        return None
    return int(m.group(1)) << {None: 0, "KiB": 10, "MiB": 20, "GiB": 30}[m.group(2)]


def parse_scenario(name, bulk_bytes):
    """-> (streams, bytes per stream, requests); warm-KxSIZE is requests too"""
    if name == "bulk":
        return 1, bulk_bytes, False
    m = SCENARIO.match(name)
    size = parse_size(m.group(3)) if m else None
    if not m or not size or int(m.group(2)) < 1:
        die(f"unknown scenario {name!r} (bulk, or [req-|warm-]KxSIZE such as 1x4096000, "
            "10x409600, req-100x1MiB, warm-4x8MiB)")
    return int(m.group(2)), size, bool(m.group(1))


def plan(a, variants):
    if a.scenarios:
        scen = [s for s in a.scenarios.split(",") if s]
    else:
        scen = None
    paths = [p for p in a.paths.split(",") if p] if a.paths else None
    rtts = [float(x) if "." in x else int(x) for x in a.rtts.split(",") if x] if a.rtts else None
    if a.quick and not (scen or paths or rtts):
        groups = QUICK
        bulk = a.bytes or QUICK_BYTES
    else:
        groups = [(s, p, rtts or FULL_RTTS) for s in (scen or ["bulk"])
                  for p in (paths or ["mission", "bench"])]
        bulk = a.bytes or (QUICK_BYTES if a.quick else 1 << 30)
    return [make_spec(p, s, v, rtt, bulk, a.send_window)
            for s, p, rs in groups for rtt in rs for v in variants]


def make_spec(path, scenario, variant, rtt, bulk, send_window):
    """One run: `scenario` on `path` at `rtt` ms; send_window 0: the path's
    capacity (BDP + queue)."""
    if path not in PATHS:
        die(f"unknown path {path} (known: {', '.join(PATHS)})")
    streams, nbytes, requests = parse_scenario(scenario, bulk)
    rate, queue = PATHS[path]
    q = queue(rtt, rate)
    return {"path": path, "scenario": scenario, "variant": variant, "rtt_ms": rtt,
            "rate_bps": rate, "queue_bytes": q, "jitter_ms": JITTER_MS.get(path, 0),
            "bytes": nbytes, "streams": streams, "requests": requests,
            "warm_bytes": WARM_BYTES if scenario.startswith("warm-") else 0,
            "standing_bytes": int(rate * rtt / 8000 * STANDING_BDP.get(path, 0)),
            "send_window": send_window or int(rate * rtt / 8000) + q}


def qlog_name(spec):
    """The file a run's server trace goes to under --qlog DIR."""
    return f"{spec['path']}-{spec['variant']}-{spec['rtt_ms']}ms-{spec['scenario']}-server.sqlog"


def run_one(spec, exe, seed, qlog_dir=""):
    env = dict(os.environ, FC_VARIANT=CONFIG.get(spec["variant"], spec["variant"]), FC_PATH=spec["path"],
               FC_SCENARIO=spec["scenario"], FC_RTT_MS=str(spec["rtt_ms"]),
               FC_RATE_BPS=str(spec["rate_bps"]), FC_QUEUE_BYTES=str(spec["queue_bytes"]),
               FC_JITTER_MS=str(spec["jitter_ms"]),
               FC_BYTES=str(spec["bytes"]), FC_STREAMS=str(spec["streams"]),
               FC_REQUESTS="1" if spec["requests"] else "0", FC_SEND_WINDOW=str(spec["send_window"]),
               FC_SEED=str(seed))
    if spec["warm_bytes"]:
        env["FC_WARM_BYTES"] = str(spec["warm_bytes"])
    if spec["standing_bytes"]:
        env["FC_STANDING_BYTES"] = str(spec["standing_bytes"])
        env["FC_STANDING_FROM_S"] = str(STANDING_FROM_S)
    if qlog_dir:
        env["FC_QLOG"] = os.path.join(qlog_dir, qlog_name(spec))
    cmd = [exe, TEST_NAME, "--exact", "--ignored", "--nocapture", "--test-threads=1"]
    # Paths relative to the repository, so results name no machine's folders.
    exe_shown = os.path.relpath(exe, REPO)
    shown = " ".join(f"{k}={env[k]}" for k in sorted(env) if k.startswith("FC_")) + " " + " ".join(
        [exe_shown] + cmd[1:])
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    for line in p.stdout.splitlines():
        if "FC_RESULT " in line:
            try:
                return json.loads(line.split("FC_RESULT ", 1)[1]), None, shown, wall
            except json.JSONDecodeError as e:
                return None, f"bad FC_RESULT line ({e}): {line[-200:]!r}", shown, wall
    return None, f"exit {p.returncode}, no FC_RESULT line: {(p.stderr or p.stdout).strip()[-400:]}", shown, wall


def fmt_window(peak, bdp):
    if peak >= UNLIMITED_WINDOW:
        return "∞"
    return f"{peak / bdp:.2f}"


def fmt_rate(rate):
    return f"{rate // GBIT_BPS} Gbit/s" if rate % GBIT_BPS == 0 else f"{rate // 1_000_000} Mbit/s"


def fmt_size(n):
    for shift, unit in ((30, "GiB"), (20, "MiB")):
        if n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


def group_key(r):
    return (r["path"], r["scenario"])


def mean_key(path, scenario, variant):
    return f"{path}/{variant}" if scenario == "bulk" else f"{path}/{scenario}/{variant}"


def print_tables(runs, variants):
    groups = []
    for r in runs:
        if group_key(r) not in groups:
            groups.append(group_key(r))
    means = {}
    cell_w = 38
    for path, scenario in groups:
        rows = [r for r in runs if group_key(r) == (path, scenario)]
        first = rows[0]
        q = ("queue = 1 BDP" if path in ("mission", "cable") or path in JITTER_MS or path in STANDING_BDP
             else f"queue = {first['queue_bytes']:,} B")
        if path in JITTER_MS:
            q += (f", tail drop, up to {JITTER_MS[path]} ms more one way server → client"
                  ", order kept")
        elif path in STANDING_BDP:
            q += (f", tail drop, {STANDING_BDP[path]} BDP of it held by another flow from "
                  f"{STANDING_FROM_S} s on")
        else:
            q += ", tail drop"
        k = first["streams"]
        shape = (f"{k} × {fmt_size(first['bytes'])}" + (", the client's requests" if first["requests"]
                                                         else ", server-opened streams" if k > 1 else ""))
        if first.get("warm_bytes"):
            shape += f", after a {fmt_size(first['warm_bytes'])} response read first"
        print(f"\n{path}, {scenario} ({fmt_rate(PATHS[path][0])}, {q}; {shape})")
        print("  goodput Mbit/s | peak stream / connection window ÷ BDP | packets lost | "
              "STREAM_DATA_BLOCKED/DATA_BLOCKED received")
        print(f"  {'RTT':>6}" + "".join(f" | {v:<{cell_w}}" for v in variants))
        print(f"  {'':>6}" + "".join(f" | {'Mbit/s':>7} {'swin':>6} {'cwin':>6} {'lost':>6} {'blocked':>9}"
                                      for _ in variants))
        by = {(r["rtt_ms"], r["variant"]): r for r in rows}
        for rtt in sorted({r["rtt_ms"] for r in rows}):
            line = f"  {str(rtt) + ' ms':>6}"
            for v in variants:
                r = by.get((rtt, v))
                if r is None:
                    line += f" | {'-':<{cell_w}}"
                elif "goodput_bps" not in r:
                    got = r.get("bytes_read")
                    what = "FAILED" if got is None else f"FAILED at {got / (r['bytes'] * r['streams']):.0%}"
                    line += f" | {what:<{cell_w}}"
                else:
                    blk = f"{r['stream_data_blocked']}/{r['data_blocked']}"
                    line += (f" | {r['goodput_bps'] / MBIT:7.1f}"
                             f" {fmt_window(r['peak_stream_window_bytes'], r['bdp_bytes']):>6}"
                             f" {fmt_window(r['peak_conn_window_bytes'], r['bdp_bytes']):>6}"
                             f" {r['packets_lost']:>6} {blk:>9}")
            print(line)
        line = f"  {'mean':>6}"
        for v in variants:
            mine = [r for r in rows if r["variant"] == v]
            g = [r["goodput_bps"] for r in mine if "goodput_bps" in r]
            if mine and len(g) == len(mine):
                m = sum(g) / len(g) / MBIT
                means[mean_key(path, scenario, v)] = round(m, 1)
                line += f" | {m:7.1f}{'':{cell_w - 7}}"
            else:
                if mine:
                    means[mean_key(path, scenario, v)] = None
                line += f" | {'-' if not mine else 'n/a (failed runs)':<{cell_w}}"
        print(line)
    return means


def matrix(a):
    variants = [v for v in a.variants.split(",") if v]
    for v in variants:
        if v not in VARIANTS:
            die(f"unknown variant {v} (known: {', '.join(VARIANTS)})")
    exes = dict(e.split("=", 1) for e in a.exe)
    skip_reasons = dict(e.split("=", 1) for e in a.skip_reason)
    runnable = [v for v in variants if exes.get(VARIANTS[v])]
    skipped = [v for v in variants if v not in runnable]
    specs = plan(a, runnable)

    sw = f"{a.send_window:,} B" if a.send_window else "BDP + queue (the path's capacity)"
    print(f"matrix: {len(specs)} runs, {a.jobs} at a time; server send_window {sw}; seed {a.seed}"
          + "".join(f"\n   variant {v} skipped: {skip_reasons.get(VARIANTS[v], 'tree not built')}"
                    for v in skipped))
    t0 = time.monotonic()
    if a.qlog:
        os.makedirs(a.qlog, exist_ok=True)
    results, errors = run_all(specs, exes, a.jobs, a.seed, a.qlog)
    wall = time.monotonic() - t0
    display = [dict(r, rtt_ms=s["rtt_ms"]) for r, s in zip(results, specs)]
    means = print_tables(display, runnable)
    print(f"\nmatrix wall time: {wall:.0f} s ({len(specs)} runs, {a.jobs} at a time)")
    broken = [e for e in errors if not e.get("may_fail")]

    if a.json:
        doc = {"quinn_proto_version": a.quinn_proto_version}
        doc.update(tests_fields(a.tests_json))
        doc.update({
            "quick": a.quick,
            "variants_skipped": [{"variant": v, "reason": skip_reasons.get(VARIANTS[v], "tree not built")}
                                 for v in skipped],
            "send_window": a.send_window or "bdp+queue",
            "seed": a.seed,
            "mean_goodput_mbps": means,
            "matrix_wall_s": round(wall, 1),
            "timings_s": json.loads(a.timings) if a.timings else None,
            "command": a.command,
            "environment": a.env_info,
            "errors": errors,
            "runs": results,
        })
        write_json(a.json, doc)
    if errors:
        print(f"{len(errors)} run(s) failed, {len(broken)} of them unexpectedly", file=sys.stderr)
    return 1 if broken else 0


def tests_fields(tests_json):
    """The test results run.sh's `classify` wrote, as the results' fields."""
    tests = json.loads(Path(tests_json).read_text()) if tests_json else {}
    return {k: tests.get(k) for k in ("tests_passed", "tests_failed", "failed_tests",
                                      "failed_tests_unpatched_too", "failed_tests_new",
                                      "failed_tests_new_by_tree", "tests_seconds")}


def write_json(path, doc):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    rel = os.path.relpath(path, REPO)
    print(f"wrote {path if rel.startswith('..') else rel}")


def run_all(specs, exes, jobs, seed, qlog_dir=""):
    """Runs every spec, `jobs` at a time, printing progress. -> (one record per
    spec in spec order, the failures); a failure of a variant outside MAY_FAIL
    has may_fail false."""
    results = [None] * len(specs)
    errors = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = {pool.submit(run_one, s, exes[VARIANTS[s["variant"]]], seed, qlog_dir): i
                for i, s in enumerate(specs)}
        for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            i = futs[fut]
            s = specs[i]
            out, err, cmd, wall = fut.result()
            tag = f"{s['path']} {s['scenario']} {s['rtt_ms']} ms {s['variant']}"
            if err:  # the harness broke: no result at all
                errors.append({"run": tag, "kind": "harness", "command": cmd, "error": err})
                print(f"  [{n}/{len(specs)}] {tag}: HARNESS ERROR {err}", flush=True)
                results[i] = {"engine": "quinn", **{k: s[k] for k in ("path", "variant", "scenario", "streams",
                                                                      "requests", "bytes", "rate_bps",
                                                                      "queue_bytes")},
                              "rtt_s": s["rtt_ms"] / 1000, "jitter_s": s["jitter_ms"] / 1000,
                              "error": err}
                continue
            # fc_run names the configuration it ran (FC_VARIANT); the record names the variant.
            out["variant"], out["tree"] = s["variant"], VARIANTS[s["variant"]]
            results[i] = out
            if "error" in out:  # quinn closed the connection, or the transfer stalled
                # Only variants with quinn's assembler as released may meet its gap
                # limit (MAY_FAIL, README).
                expected = s["variant"] in MAY_FAIL
                errors.append({"run": tag, "kind": "transfer", "may_fail": expected, "command": cmd,
                               "error": out["error"]})
                print(f"  [{n}/{len(specs)}] {tag}: FAILED {out['error']}"
                      f"{' (this variant may fail, see README)' if expected else ''}", flush=True)
                continue
            print(f"  [{n}/{len(specs)}] {tag}: {out['goodput_bps'] / MBIT:.1f} Mbit/s, "
                  f"{float(out['duration_s']):.3f} s simulated, {wall:.1f} s wall", flush=True)
    return results, errors


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2


def loopback(a):
    """a.main: the unpatched tree's runs; a.others: TREE=FILE per patched tree."""
    trees = {"main": a.main, **dict(o.split("=", 1) for o in a.others)}
    runs = {t: [json.loads(l) for l in Path(f).read_text().splitlines() if l.startswith("{")]
            for t, f in trees.items()}
    if not all(runs.values()):
        die("loopback: a tree has no runs")
    out = {"bytes": runs["main"][0]["bytes"], "runs_per_tree": len(runs["main"])}
    print(f"   {'tree':<11} {'median Gbit/s':>14} {'median CPU s':>13} {'CPU s per GiB':>14}   runs (Gbit/s)")
    for t, rs in runs.items():
        g = median([r["goodput_bps"] for r in rs]) / 1e9
        c = median([r["cpu_s"] for r in rs])
        per_gib = c / (rs[0]["bytes"] / (1 << 30))
        out[t] = {"median_goodput_gbps": round(g, 3), "median_cpu_s": round(c, 3),
                  "cpu_s_per_gib": round(per_gib, 3), "runs": rs}
        print(f"   {t:<11} {g:14.3f} {c:13.2f} {per_gib:14.3f}   "
              + ", ".join(f"{r['goodput_bps'] / 1e9:.2f}" for r in rs))
    for t in runs:
        if t == "main":
            continue
        # The fc tree's ratios keep their old names; other trees' carry theirs.
        key = "" if t == "fc" else f"_{t}"
        out[f"goodput_ratio{key}"] = round(out[t]["median_goodput_gbps"] / out["main"]["median_goodput_gbps"], 3)
        out[f"cpu_ratio{key}"] = round(out[t]["median_cpu_s"] / out["main"]["median_cpu_s"], 3)
        print(f"   {t} / unpatched: goodput {out[f'goodput_ratio{key}']:.3f}, CPU {out[f'cpu_ratio{key}']:.3f}")
    if a.json:
        doc = json.loads(Path(a.json).read_text()) if Path(a.json).exists() else {}
        doc["loopback"] = out
        Path(a.json).write_text(json.dumps(doc, indent=1) + "\n")


def runs_args(p, variants):
    """The flags `matrix` and `scoreboard` share: trees, variants, how runs
    are made, and what goes into the JSON."""
    p.add_argument("--exe", action="append", default=[], metavar="TREE=PATH")
    p.add_argument("--skip-reason", action="append", default=[], metavar="TREE=REASON")
    p.add_argument("--variants", default=variants)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--jobs", type=int, default=2)
    # 0: each run's path capacity, BDP + queue
    p.add_argument("--send-window", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default="")
    p.add_argument("--tests-json", default="")
    p.add_argument("--timings", default="")
    p.add_argument("--quinn-proto-version", default="unknown")
    p.add_argument("--command", default="")
    p.add_argument("--env-info", default="")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("crate-dir")
    p.add_argument("name")
    sub.add_parser("test-exe")
    p = sub.add_parser("tests")
    p.add_argument("log")
    p.add_argument("out")
    p.add_argument("--seconds", type=float)
    p = sub.add_parser("classify")
    p.add_argument("out")
    p.add_argument("main")
    p.add_argument("others", nargs="*", metavar="TREE=TREE.json")
    p = sub.add_parser("matrix")
    runs_args(p, "quinn-default,quinn-8MiB,unlimited,neqo-fc")
    p.add_argument("--paths", default="")
    p.add_argument("--rtts", default="")
    p.add_argument("--scenarios", default="")
    p.add_argument("--bytes", type=int, default=0)
    # the server's trace of every run, a file per run (fc_trace.rs); read by ../limits.py
    p.add_argument("--qlog", default="")
    # "": scoreboard.py's variants for --quick or not
    runs_args(sub.add_parser("scoreboard"), "")
    p = sub.add_parser("rescore")
    p.add_argument("file")
    p = sub.add_parser("loopback")
    p.add_argument("main")
    p.add_argument("others", nargs="+", metavar="TREE=FILE")
    p.add_argument("--json", default="")
    a = ap.parse_args()

    if a.cmd == "crate-dir":
        crate_dir(a.name)
    elif a.cmd == "test-exe":
        test_exe()
    elif a.cmd == "tests":
        res = parse_tests(a.log)
        res["seconds"] = a.seconds
        Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
        print(f"   {res['passed']} passed, {res['failed']} failed, {res['ignored']} ignored")
        for t in res["failed_tests"]:
            print(f"   FAILED {t}")
    elif a.cmd == "classify":
        sys.exit(classify(a.out, a.main, a.others))
    elif a.cmd == "matrix":
        sys.exit(matrix(a))
    elif a.cmd in ("scoreboard", "rescore"):
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import scoreboard
        sys.exit(scoreboard.scoreboard(a) if a.cmd == "scoreboard" else scoreboard.rescore(a.file))
    elif a.cmd == "loopback":
        loopback(a)


if __name__ == "__main__":
    main()
