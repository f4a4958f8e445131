#!/usr/bin/env python3
"""What held a sender back, read from its own qlog (issue #42, item 2).

Reads the *sending* endpoint's trace (qlog 0.3, JSON-SEQ, as neqo writes it
and as the quinn harness writes it) and splits the time from the first to
the last stream byte sent into:

  cwnd          bytes in flight + one packet > congestion window
  flow control  not cwnd, and every unfinished stream (or the connection)
                has sent up to within one packet of the limit its peer gave
  send buffer   neither, and every unfinished stream has sent all the
                application wrote (only in traces with
                `transport:data_moved` events: the quinn harness's; the
                application writes as soon as the send buffer has room)
  other         none of these: pacing, the ACK clock

With --rate BPS (the bottleneck's rate), the flow-control time is also
split: the part where bytes in flight were below rate x minimum RTT, so the
link itself can have run dry for want of credit ("starved"), and the rest,
where credit only kept a queue from growing.

It does so over the whole run and inside loss episodes: from each
`recovery:packet_lost` to one smoothed RTT later (the time a gap waits for
its retransmission and the receiver's credit for the bytes behind it to
come back), episodes that overlap merged.

    limits.py [--rate BPS] TRACE...  one line of figures per trace
    limits.py [--rate BPS] --json TRACE...   the same as JSON
    limits.py [--rate BPS] --table TRACE...  a Markdown table: per path and variant,
                                     the mean shares over the traces (RTTs)
                                     named PATH-VARIANT-RTTms-… (the file, or
                                     its folder for neqo's server-….sqlog);
                                     a FILE.json in place of traces is read
                                     as the output of --json
    limits.py --cut T0 T1 TRACE OUT  copy the header and the events with
                                     T0 <= time < T1 (ms) to OUT: a small
                                     trace of one episode that qvis opens

No dependency outside Python's standard library.
"""

import json
import os
import re
import sys

RS = "\x1e"
KINDS = ("cwnd", "flow control", "send buffer", "other")


def events(path):
    """The trace's header and its events, in file order."""
    header = None
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip().lstrip(RS)
            if not line:
                continue
            e = json.loads(line)
            if header is None and "qlog_version" in e:
                header = e
                continue
            out.append(e)
    if header is None:
        raise SystemExit(f"{path}: no qlog header")
    return header, out


def initial_stream_limit(params, stream_id):
    """The limit the peer's transport parameters give a stream we send on."""
    if stream_id & 2:  # unidirectional: opened by us, as a sender
        return params.get("initial_max_stream_data_uni", 0)
    if (stream_id & 1) == 0:  # client-initiated bidirectional: the peer is the client
        key = "initial_max_stream_data_bidi_local"
    else:
        key = "initial_max_stream_data_bidi_remote"
    return params.get(key, 0)


class Sender:
    """The sender's state, advanced one event at a time."""

    def __init__(self):
        self.params = {}
        self.max_data = 0
        self.stream_limit = {}  # id -> limit from MAX_STREAM_DATA
        self.sent = {}  # id -> highest offset sent
        self.written = None  # id -> offset the application wrote to, if traced
        self.fin = set()
        self.cwnd = None
        self.in_flight = 0
        self.srtt = None
        self.min_rtt = None
        self.mtu = 1200

    def limit(self, sid):
        return max(self.stream_limit.get(sid, 0), initial_stream_limit(self.params, sid))

    def apply(self, e):
        name = e.get("name")
        data = e.get("data") or {}
        if name == "transport:parameters_set" and data.get("owner") == "remote":
            self.params = data
            self.max_data = max(self.max_data, data.get("initial_max_data", 0))
        elif name == "recovery:metrics_updated":
            if "congestion_window" in data:
                self.cwnd = data["congestion_window"]
            if "bytes_in_flight" in data:
                self.in_flight = data["bytes_in_flight"]
            if "smoothed_rtt" in data:
                self.srtt = data["smoothed_rtt"]
            if "min_rtt" in data:
                self.min_rtt = data["min_rtt"]
        elif name == "transport:data_moved" and data.get("from") == "application":
            if self.written is None:
                self.written = {}
            sid = data["stream_id"]
            end = data.get("offset", 0) + data.get("length", 0)
            self.written[sid] = max(self.written.get(sid, 0), end)
        elif name == "transport:packet_sent":
            for fr in data.get("frames") or []:
                if fr.get("frame_type") == "stream":
                    sid = fr["stream_id"]
                    end = fr.get("offset", 0) + fr.get("length", 0)
                    self.sent[sid] = max(self.sent.get(sid, 0), end)
                    self.mtu = max(self.mtu, fr.get("length", 0))
                    if fr.get("fin"):
                        self.fin.add(sid)
        elif name == "transport:packet_received":
            for fr in data.get("frames") or []:
                kind = fr.get("frame_type")
                if kind == "max_data":
                    self.max_data = max(self.max_data, fr["maximum"])
                elif kind == "max_stream_data":
                    sid = fr["stream_id"]
                    self.stream_limit[sid] = max(self.stream_limit.get(sid, 0), fr["maximum"])

    def state(self):
        if self.cwnd is not None and self.in_flight + self.mtu > self.cwnd:
            return "cwnd"
        if sum(self.sent.values()) + self.mtu > self.max_data:
            return "flow control"
        open_streams = [s for s in self.sent if s not in self.fin]
        if open_streams and all(self.sent[s] + self.mtu > self.limit(s) for s in open_streams):
            return "flow control"
        if self.written is not None and all(self.sent[s] >= self.written.get(s, 0) for s in open_streams):
            return "send buffer"
        return "other"


def analyse(path, rate_bps=None):
    _, evs = events(path)
    sends = [e["time"] for e in evs if is_stream_send(e)]
    if not sends:
        raise SystemExit(f"{path}: no stream frame sent")
    first, last = sends[0], sends[-1]
    s = Sender()
    total = dict.fromkeys(KINDS, 0.0)
    in_loss = dict.fromkeys(KINDS, 0.0)
    starved = [0.0, 0.0]  # flow control with the pipe not full: all, in loss episodes
    prev_starved = False
    episodes = []  # merged [start, end) in ms
    losses = 0
    prev_t = prev_state = None
    for e in evs:
        t = e["time"]
        if prev_state is not None:
            # Only the time between the first and the last stream byte sent
            # is the sender's; the tail of ACKs after it is not.
            lo, hi = max(prev_t, first), min(t, last)
            if hi > lo:
                lost_part = overlap(episodes, lo, hi)
                total[prev_state] += hi - lo
                in_loss[prev_state] += lost_part
                if prev_starved:
                    starved[0] += hi - lo
                    starved[1] += lost_part
        s.apply(e)
        if e.get("name") == "recovery:packet_lost" and first <= t <= last:
            losses += 1
            end = t + (s.srtt or 0.0)
            if episodes and t <= episodes[-1][1]:
                episodes[-1][1] = max(episodes[-1][1], end)
            else:
                episodes.append([t, end])
        prev_t = t
        prev_state = s.state()
        prev_starved = (
            prev_state == "flow control"
            and rate_bps is not None
            and s.min_rtt is not None
            and s.in_flight < rate_bps / 8 * s.min_rtt / 1000
        )
    span = sum(total.values())
    loss_span = sum(in_loss.values())
    return {
        "trace": path,
        "seconds": span / 1000,
        "share": {k: v / span if span else 0.0 for k, v in total.items()},
        "send_buffer_traced": s.written is not None,
        "loss_episodes": len(episodes),
        "episodes_ms": [[round(a, 3), round(b, 3)] for a, b in episodes],
        "packets_lost": losses,
        "loss_seconds": loss_span / 1000,
        "loss_share": {k: v / loss_span if loss_span else 0.0 for k, v in in_loss.items()},
        "rate_bps": rate_bps,
        "starved_share": starved[0] / span if span and rate_bps else None,
        "loss_starved_share": starved[1] / loss_span if loss_span and rate_bps else None,
    }


def is_stream_send(e):
    if e.get("name") != "transport:packet_sent":
        return False
    return any(f.get("frame_type") == "stream" for f in (e.get("data") or {}).get("frames") or [])


def packet_number(e):
    return ((e.get("data") or {}).get("header") or {}).get("packet_number")


def overlap(episodes, a, b):
    got = 0.0
    for lo, hi in episodes:
        if hi <= a or lo >= b:
            continue
        got += min(hi, b) - max(lo, a)
    return got


def cut(t0, t1, src, dst):
    """Header, a restatement at T0 of the state the earlier events built (the
    limits received, what the application wrote, the recovery metrics; the
    header's description says so), then the events in [T0, T1)."""
    header, evs = events(src)
    s = Sender()
    bytes_before = 0  # the packets' sizes, as qvis adds them up for "data sent"
    for e in evs:
        if e["time"] >= t0:
            break
        s.apply(e)
        if e.get("name") == "transport:packet_sent":
            bytes_before += int(((e.get("data") or {}).get("raw") or {}).get("length") or 0)
    header = json.loads(json.dumps(header))
    # Time 0 of the cut is T0 of the run: the reference time moves by T0.
    common = header.setdefault("trace", {}).setdefault("common_fields", {})
    common["reference_time"] = float(common.get("reference_time", 0.0)) + t0
    header["description"] = (
        f"{header.get('description', '')} [cut to {t0:g}-{t1:g} ms of the run by integrations/limits.py, "
        f"time 0 here; the events at 0 restate the state the earlier events built, and one packet_sent "
        f"without frames stands for the {bytes_before} bytes of packets sent before]"
    ).strip()
    restated = []
    if s.params:
        restated.append({"time": t0, "name": "transport:parameters_set", "data": s.params})
    metrics = {"bytes_in_flight": s.in_flight}
    if s.cwnd is not None:
        metrics["congestion_window"] = s.cwnd
    if s.srtt is not None:
        metrics["smoothed_rtt"] = s.srtt
    if s.min_rtt is not None:
        metrics["min_rtt"] = s.min_rtt
    restated.append({"time": t0, "name": "recovery:metrics_updated", "data": metrics})
    frames = [{"frame_type": "max_data", "maximum": s.max_data}]
    frames += [
        {"frame_type": "max_stream_data", "stream_id": sid, "maximum": lim}
        for sid, lim in sorted(s.stream_limit.items())
    ]
    size = sum(1 + varint_len(f.get("stream_id", 0)) * ("stream_id" in f) + varint_len(f["maximum"]) for f in frames)
    restated.append(
        {
            "time": t0,
            "name": "transport:packet_received",
            "data": {"header": {"packet_type": "1RTT"}, "raw": {"length": size}, "frames": frames},
        }
    )
    for sid, end in sorted((s.written or {}).items()):
        restated.append(
            {
                "time": t0,
                "name": "transport:data_moved",
                "data": {"stream_id": sid, "offset": 0, "length": end, "from": "application", "to": "transport"},
            }
        )
    kept = [e for e in evs if t0 <= e["time"] < t1 and not e.get("name", "").endswith("parameters_set")]
    # A loss of a packet sent before T0 names a packet the cut trace lacks
    # (qvis logs an error for each): left out, and the description says how many.
    sent_pns = {packet_number(e) for e in kept if e.get("name") == "transport:packet_sent"}
    before = len(kept)
    kept = [e for e in kept if e.get("name") != "recovery:packet_lost" or packet_number(e) in sent_pns]
    dropped = before - len(kept)
    # ACKs of packets before T0 (ours in received ACKs, the peer's in ours)
    # name packets the cut trace lacks too: their ranges are clipped.
    received_pns = {packet_number(e) for e in kept if e.get("name") == "transport:packet_received"} - {None}
    first_sent = min(sent_pns - {None}, default=0)
    first_received = min(received_pns, default=0)
    kept = [clip_acks(e, first_sent, first_received) for e in kept]
    kept = [e for e in kept if e is not None]
    if bytes_before:
        restated.append(
            {
                "time": t0,
                "name": "transport:packet_sent",
                "data": {
                    "header": {"packet_type": "1RTT", "packet_number": max(first_sent - 1, 0)},
                    "raw": {"length": bytes_before},
                    "frames": [],
                },
            }
        )
    if dropped:
        header["description"] = header["description"][:-1] + (
            f"; {dropped} losses of packets sent before the cut left out]"
        )
    with open(dst, "w", encoding="utf-8") as f:
        for e in [header, *restated, *kept]:
            if "time" in e:
                e = dict(e, time=round(e["time"] - t0, 6))
            f.write(RS + json.dumps(e, separators=(",", ":")) + "\n")
    print(f"{dst}: {len(kept)} events from {src}, {t0:g}-{t1:g} ms")


def clip_acks(e, first_sent, first_received):
    """`e` with its acknowledgements of packets before the cut taken out: of
    ours below `first_sent` (in received ACKs and `packets_acked`), of the
    peer's below `first_received` (in the ACKs we sent). None if nothing of a
    `packets_acked` event is left."""
    name = e.get("name")
    data = e.get("data") or {}
    if name == "transport:packets_acked":
        pns = [pn for pn in data.get("packet_numbers", []) if pn >= first_sent]
        return dict(e, data=dict(data, packet_numbers=pns)) if pns else None
    if name in ("transport:packet_received", "transport:packet_sent") and data.get("frames"):
        first = first_sent if name == "transport:packet_received" else first_received
        frames = []
        for f in data["frames"]:
            if f.get("frame_type") == "ack":
                ranges = [[max(r[0], first), r[-1]] for r in f.get("acked_ranges", []) if r[-1] >= first]
                if not ranges:
                    continue
                f = dict(f, acked_ranges=ranges)
            frames.append(f)
        return dict(e, data=dict(data, frames=frames))
    return e


def varint_len(x):
    """Bytes of a QUIC variable-length integer (RFC 9000 §16)."""
    return 1 if x < 64 else 2 if x < 16384 else 4 if x < 1 << 30 else 8


def run_name(path):
    """(path, variant, rtt ms) from a trace's name, as run.sh --qlog names them."""
    name = os.path.basename(path)
    if name.startswith(("server-", "client-")):
        name = os.path.basename(os.path.dirname(path))
    m = re.match(r"^([^-]+)-(.+)-(\d+(?:\.\d+)?)ms(?:-|$)", name)
    if not m:
        raise SystemExit(f"{path}: not named PATH-VARIANT-RTTms-…")
    return m.group(1), m.group(2), float(m.group(3))


def table(results):
    groups = {}
    for r in results:
        path, variant, rtt = run_name(r["trace"])
        groups.setdefault(path, {}).setdefault(variant, []).append((rtt, r))
    variants = sorted({v for g in groups.values() for v in g})
    lines = [
        "| path | " + " | ".join(f"`{v}`" for v in variants) + " |",
        "|---|" + "---:|" * len(variants),
    ]
    for path in sorted(groups):
        cells = []
        for v in variants:
            runs = groups[path].get(v)
            if not runs:
                cells.append("")
                continue
            rs = [r for _, r in runs]
            loss = [r for r in rs if r["loss_seconds"] > 0]
            in_loss = fc_cell(loss, "loss_share", "loss_starved_share") if loss else "–"
            buffer = f"{mean(r['share']['send buffer'] for r in rs):.0%}"
            if not all(r.get("send_buffer_traced") for r in rs):
                buffer = "–"
            cells.append(
                f"{fc_cell(rs, 'share', 'starved_share')} / {mean(r['share']['cwnd'] for r in rs):.0%} / "
                f"{buffer} · {in_loss}"
            )
        rtts = sorted({rtt for g in groups[path].values() for rtt, _ in g})
        lines.append(f"| {path} ({', '.join(f'{x:g}' for x in rtts)} ms) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def mean(values):
    values = list(values)
    return sum(values) / len(values)


def fc_cell(rs, share, starved):
    """The flow-control share, with the starved share in brackets when known."""
    cell = f"{mean(r[share]['flow control'] for r in rs):.0%}"
    if all(r.get(starved) is not None for r in rs):
        cell += f" ({mean(r[starved] for r in rs):.0%})"
    return cell


def shares(d):
    return ", ".join(f"{k} {d[k]:.1%}" for k in KINDS)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if argv[0] == "--cut":
        if len(argv) != 5:
            print("--cut needs T0 T1 TRACE OUT", file=sys.stderr)
            return 2
        try:
            t0, t1 = float(argv[1]), float(argv[2])
        except ValueError:
            print("--cut: T0 and T1 are milliseconds", file=sys.stderr)
            return 2
        cut(t0, t1, argv[3], argv[4])
        return 0
    rate = None
    if argv[0] == "--rate":
        try:
            rate = float(argv[1])
        except (IndexError, ValueError):
            print("--rate needs the bottleneck's rate in bit/s", file=sys.stderr)
            return 2
        if not rate > 0:
            print("--rate needs a rate above 0 bit/s", file=sys.stderr)
            return 2
        argv = argv[2:]
        if not argv:
            print("--rate: no trace given", file=sys.stderr)
            return 2
    as_json = argv[0] == "--json"
    as_table = argv[0] == "--table"
    results = []
    for p in argv[1 if as_json or as_table else 0 :]:
        # A .json file holds results of an earlier --json run.
        results += json.load(open(p, encoding="utf-8")) if p.endswith(".json") else [analyse(p, rate)]
    if as_table:
        print(table(results))
        return 0
    if as_json:
        print(json.dumps(results, indent=1))
        return 0
    for r in results:
        sh, ls = r["share"], r["loss_share"]
        print(
            f"{r['trace']}: {r['seconds']:.3f} s sending: {shares(sh)}; "
            f"{r['loss_episodes']} loss episodes ({r['packets_lost']} packets, "
            f"{r['loss_seconds']:.3f} s): {shares(ls)}"
            + (f"; starved {r['starved_share']:.1%}" if r.get("starved_share") is not None else "")
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, KeyError, TypeError) as e:
        # A file that is missing or not a qlog trace: one line, not a traceback.
        print(f"limits.py: {e.__class__.__name__}: {e}", file=sys.stderr)
        sys.exit(1)
