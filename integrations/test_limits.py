#!/usr/bin/env python3
"""Tests of limits.py on small hand-written traces: python3 integrations/test_limits.py"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import limits  # noqa: E402

HEADER = {"qlog_version": "0.3", "qlog_format": "JSON-SEQ", "trace": {"vantage_point": {"type": "server"}}}


def params(stream, conn):
    return {"time": 0.0, "name": "transport:parameters_set",
            "data": {"owner": "remote", "initial_max_data": conn, "initial_max_stream_data_uni": stream}}


def sent(t, offset, length, sid=3, fin=False):
    return {"time": t, "name": "transport:packet_sent",
            "data": {"header": {"packet_number": int(t)}, "raw": {"length": length},
                     "frames": [{"frame_type": "stream", "stream_id": sid, "offset": offset,
                                 "length": length, "fin": fin}]}}


def metrics(t, cwnd, in_flight, srtt=10.0, min_rtt=10.0):
    return {"time": t, "name": "recovery:metrics_updated",
            "data": {"congestion_window": cwnd, "bytes_in_flight": in_flight,
                     "smoothed_rtt": srtt, "min_rtt": min_rtt}}


def max_stream_data(t, maximum, sid=3):
    return {"time": t, "name": "transport:packet_received",
            "data": {"frames": [{"frame_type": "max_stream_data", "stream_id": sid, "maximum": maximum}]}}


def lost(t):
    return {"time": t, "name": "recovery:packet_lost", "data": {"header": {"packet_number": 0}}}


def moved(t, offset, length, sid=3):
    return {"time": t, "name": "transport:data_moved",
            "data": {"stream_id": sid, "offset": offset, "length": length, "from": "application",
                     "to": "transport"}}


class Limits(unittest.TestCase):
    def trace(self, evs):
        fd, path = tempfile.mkstemp(suffix=".sqlog")
        with os.fdopen(fd, "w") as f:
            for e in [HEADER, *evs]:
                f.write(limits.RS + json.dumps(e) + "\n")
        self.addCleanup(os.remove, path)
        return path

    def test_splits_time_between_cwnd_flow_control_and_other(self):
        # 0-10 ms: room in cwnd and in credit (other); 10-30 ms: the stream's
        # 4,800-byte limit is used up (flow control); 30-40 ms: credit again
        # but cwnd full; the last byte leaves at 40 ms.
        path = self.trace([
            params(4800, 1 << 20),
            metrics(0.0, 100_000, 0),
            sent(0.0, 0, 1200),
            sent(10.0, 1200, 3600),
            max_stream_data(30.0, 1 << 20),
            metrics(30.0, 6000, 5000),
            sent(40.0, 4800, 1200, fin=True),
        ])
        r = limits.analyse(path, rate_bps=8e6)  # 8 Mbit/s x 10 ms = 10,000 B
        self.assertAlmostEqual(r["seconds"], 0.040)
        self.assertAlmostEqual(r["share"]["other"], 0.25)
        self.assertAlmostEqual(r["share"]["flow control"], 0.50)
        self.assertAlmostEqual(r["share"]["cwnd"], 0.25)
        # In flight (0) stayed below rate x min RTT while credit was short.
        self.assertAlmostEqual(r["starved_share"], 0.50)
        self.assertEqual(r["loss_episodes"], 0)

    def test_loss_episode_lasts_one_smoothed_rtt(self):
        path = self.trace([
            params(1 << 20, 1 << 20),
            metrics(0.0, 100_000, 0, srtt=20.0),
            sent(0.0, 0, 1200),
            lost(10.0),
            lost(15.0),  # inside the first episode: merged, which then ends at 35
            sent(100.0, 1200, 1200),
        ])
        r = limits.analyse(path)
        self.assertEqual(r["loss_episodes"], 1)
        self.assertEqual(r["packets_lost"], 2)
        self.assertEqual(r["episodes_ms"], [[10.0, 35.0]])
        self.assertAlmostEqual(r["loss_seconds"], 0.025)
        self.assertIsNone(r["starved_share"])

    def test_send_buffer_only_where_application_writes_are_traced(self):
        evs = [
            params(1 << 20, 1 << 20),
            metrics(0.0, 100_000, 0),
            sent(0.0, 0, 1200),
            sent(10.0, 1200, 1200),
        ]
        self.assertAlmostEqual(limits.analyse(self.trace(evs))["share"]["other"], 1.0)
        # From 0 to 10 ms everything written is sent: the application's
        # buffer, not the network, held the sender back.
        r = limits.analyse(self.trace([*evs[:2], moved(0.0, 0, 1200), evs[2], moved(10.0, 1200, 1200), evs[3]]))
        self.assertAlmostEqual(r["share"]["send buffer"], 1.0)
        # Written but not yet sent: not the buffer.
        r = limits.analyse(self.trace([*evs[:2], moved(0.0, 0, 2400), *evs[2:]]))
        self.assertAlmostEqual(r["share"]["other"], 1.0)

    def test_cut_restates_state_and_keeps_the_window(self):
        src = self.trace([
            params(4800, 1 << 20),
            metrics(0.0, 100_000, 0),
            sent(0.0, 0, 1200),
            max_stream_data(5.0, 9600),
            sent(10.0, 1200, 8400),
            sent(20.0, 9600, 1200),
        ])
        fd, dst = tempfile.mkstemp(suffix=".sqlog")
        os.close(fd)
        self.addCleanup(os.remove, dst)
        sys.stdout = open(os.devnull, "w")
        self.addCleanup(setattr, sys, "stdout", sys.__stdout__)
        limits.cut(8.0, 15.0, src, dst)
        header, evs = limits.events(dst)
        self.assertIn("cut to 8-15 ms", header["description"])
        # Time 0 of the cut is 8 ms of the run.
        self.assertTrue(all(e["time"] >= 0.0 for e in evs))
        self.assertEqual(header["trace"]["common_fields"]["reference_time"], 8.0)
        frames = [f for e in evs if e["name"] == "transport:packet_received" for f in e["data"]["frames"]]
        self.assertIn({"frame_type": "max_stream_data", "stream_id": 3, "maximum": 9600}, frames)
        sent_evs = [e for e in evs if e["name"] == "transport:packet_sent"]
        # One frameless packet stands for the 1,200 bytes sent before; then the packet at 10 ms.
        self.assertEqual([(e["time"], e["data"]["raw"]["length"]) for e in sent_evs], [(0.0, 1200), (2.0, 8400)])
        self.assertEqual(sent_evs[0]["data"]["frames"], [])

    def test_bad_arguments_get_a_message(self):
        sys.stderr = open(os.devnull, "w")
        self.addCleanup(setattr, sys, "stderr", sys.__stderr__)
        self.assertEqual(limits.main(["--rate", "fast", "x.sqlog"]), 2)
        self.assertEqual(limits.main(["--rate", "0", "x.sqlog"]), 2)
        self.assertEqual(limits.main(["--cut", "1", "x"]), 2)


if __name__ == "__main__":
    unittest.main()
