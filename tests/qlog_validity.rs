//! qlog traces of real simulated runs are what qvis reads: qlog 0.3
//! JSON-SEQ, ordered timestamps, sized packets, every frame, and the events
//! the congestion, sequence and stats views need.
//!
//! Run with `cargo test --test qlog_validity`.

use std::collections::BTreeMap;
use std::time::Duration;

use fc_lab::qlog::{WINDOW_UPDATED, trace_to_bytes, write_traces};
use neqo_fc_sim::{
    net::{LossModel, PathConfig},
    run,
    scenario::{RunResult, Scenario, Workload},
    trace::{Endpoint, TraceLevel},
};
use serde_json::Value;

const MB: u64 = 1_000_000;

/// A path with `rate_bps`, round-trip propagation `rtt` (half each way)
/// and random loss `loss` on the data direction.
fn path(rate_bps: u64, rtt: Duration, loss: f64) -> PathConfig {
    PathConfig {
        rate_bps: Some(rate_bps),
        delay: rtt / 2,
        loss: if loss > 0.0 {
            LossModel::Bernoulli { rate: loss }
        } else {
            LossModel::None
        },
        ..PathConfig::default()
    }
}

fn scenario(forward: PathConfig, bytes: u64, level: TraceLevel) -> Scenario {
    let mut s = Scenario::new(forward, Workload::bulk(bytes));
    s.trace = level;
    s.time_limit = Duration::from_secs(120);
    s
}

/// 20 MB over 1 Gbit/s, 50 ms RTT.
fn gbit_50ms(level: TraceLevel) -> Scenario {
    scenario(
        path(1_000_000_000, Duration::from_millis(50), 0.0),
        20 * MB,
        level,
    )
}

/// 5 MB over 100 Mbit/s, 40 ms RTT, 1 % loss.
fn lossy(level: TraceLevel) -> Scenario {
    scenario(
        path(100_000_000, Duration::from_millis(40), 0.01),
        5 * MB,
        level,
    )
}

/// One parsed trace: the header record and the events.
struct Trace {
    header: Value,
    events: Vec<Value>,
}

impl Trace {
    /// Parses JSON-SEQ (RFC 7464): every record is 0x1E, JSON, newline.
    fn parse(bytes: &[u8]) -> Trace {
        assert_eq!(bytes.first(), Some(&0x1e), "JSON-SEQ starts with RS");
        let mut records = bytes[1..].split(|&b| b == 0x1e).map(|r| {
            assert_eq!(r.last(), Some(&b'\n'), "record ends with a newline");
            serde_json::from_slice::<Value>(r).expect("record is JSON")
        });
        let header = records.next().expect("header record");
        Trace {
            header,
            events: records.collect(),
        }
    }

    fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.events.iter().filter(move |e| e["name"] == name)
    }

    fn count(&self, name: &str) -> usize {
        self.named(name).count()
    }

    /// Frames of every `name` packet event.
    fn frames<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.named(name)
            .flat_map(|e| e["data"]["frames"].as_array().expect("frames").iter())
    }

    /// `(packet_number, raw.length)` of every `name` packet event.
    fn packets(&self, name: &str) -> BTreeMap<u64, u64> {
        self.named(name)
            .map(|e| {
                let d = &e["data"];
                (
                    d["header"]["packet_number"].as_u64().expect("pn"),
                    d["raw"]["length"].as_u64().expect("raw.length"),
                )
            })
            .collect()
    }
}

/// The trace's description: what was simulated, in words, not Rust's
/// debug output.
fn described(t: &Trace) -> String {
    let description = t.header["description"].as_str().expect("description");
    for debug in ["None", "Some(", "{", "Bulk", "Cubic"] {
        assert!(!description.contains(debug), "{description}");
    }
    assert!(description.contains("one-way delay"), "{description}");
    description.to_owned()
}

/// Checks everything qvis relies on for any trace of `endpoint`.
fn check_common(t: &Trace, endpoint: Endpoint) {
    assert_eq!(t.header["qlog_version"], "0.3");
    assert_eq!(t.header["qlog_format"], "JSON-SEQ");
    let trace = t.header["trace"].as_object().expect("trace object");
    assert_eq!(trace["vantage_point"]["type"], endpoint.as_str());

    assert!(!t.events.is_empty());
    let mut prev = 0.0;
    for e in &t.events {
        let time = e["time"].as_f64().expect("numeric time");
        assert!(time >= prev, "time went back: {prev} -> {time} at {e}");
        prev = time;
        let name = e["name"].as_str().expect("name");
        assert!(name.contains(':'), "{name} has a category");
        assert!(e["data"].is_object(), "{e}");
        if name == "transport:packet_sent" || name == "transport:packet_received" {
            assert!(e["data"]["raw"]["length"].as_u64().unwrap_or(0) > 0, "{e}");
            assert_eq!(e["data"]["header"]["packet_type"], "1RTT");
            assert!(!e["data"]["frames"].as_array().expect("frames").is_empty());
        }
    }
    for name in ["transport:packet_sent", "transport:packet_received"] {
        for f in t.frames(name) {
            match f["frame_type"].as_str().expect("frame_type") {
                "stream" => {
                    assert!(f["length"].as_u64().is_some() && f["offset"].as_u64().is_some());
                    assert!(f["fin"].is_boolean());
                }
                "ack" => {
                    let ranges = f["acked_ranges"].as_array().expect("acked_ranges");
                    assert!(!ranges.is_empty());
                    for r in ranges {
                        let (lo, hi) = (r[0].as_u64().unwrap(), r[1].as_u64().unwrap());
                        assert!(lo <= hi, "{f}");
                    }
                    assert!(f["ack_delay"].as_f64().expect("ack_delay") >= 0.0);
                }
                _ => {}
            }
        }
    }
    // The peer's initial limits (qvis draws them from owner "remote").
    let remote = t
        .named("transport:parameters_set")
        .find(|e| e["data"]["owner"] == "remote")
        .expect("remote parameters");
    assert!(remote["data"]["initial_max_data"].as_u64().unwrap() > 0);
    assert!(
        remote["data"]["initial_max_stream_data_bidi_remote"]
            .as_u64()
            .unwrap()
            > 0
    );
}

fn has_frame(t: &Trace, event: &str, frame_type: &str) -> bool {
    t.frames(event).any(|f| f["frame_type"] == frame_type)
}

/// The client (the data receiver) sends MAX_STREAM_DATA and the server
/// receives it.
fn assert_max_stream_data_flows(client: &Trace, server: &Trace) {
    assert!(has_frame(
        client,
        "transport:packet_sent",
        "max_stream_data"
    ));
    assert!(has_frame(
        server,
        "transport:packet_received",
        "max_stream_data"
    ));
}

/// Runs `s` and returns the result with both parsed traces (written to
/// files under a fresh temporary directory, then read back).
fn traces(s: &Scenario, tag: &str) -> (RunResult, Trace, Trace) {
    let result = run(s);
    assert!(result.metrics.completed, "{tag}: {:?}", result.metrics);
    let dir = std::env::temp_dir().join(format!("fc-lab-qlog-{tag}-{}", std::process::id()));
    let paths = write_traces(&dir, tag, &result, s).expect("write traces");
    assert_eq!(
        paths,
        [
            dir.join(format!("{tag}-client.sqlog")),
            dir.join(format!("{tag}-server.sqlog"))
        ]
    );
    let client = Trace::parse(&std::fs::read(&paths[0]).unwrap());
    let server = Trace::parse(&std::fs::read(&paths[1]).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    check_common(&client, Endpoint::Client);
    check_common(&server, Endpoint::Server);
    (result, client, server)
}

#[test]
fn gigabit_full_trace_is_valid_for_qvis() {
    let (result, client, server) = traces(&gbit_50ms(TraceLevel::Full), "gbit-full");
    let description = described(&client);
    assert!(
        description.contains("1 Gbit/s") && description.contains("no loss"),
        "{description}"
    );

    // The client is the data receiver: it sends its request and
    // MAX_STREAM_DATA, the server receives them; the server sends the
    // response's STREAM frames, the client receives them.
    assert_max_stream_data_flows(&client, &server);
    assert!(has_frame(&server, "transport:packet_sent", "stream"));
    assert!(has_frame(&client, "transport:packet_received", "stream"));
    assert!(has_frame(&server, "transport:packet_received", "ack"));
    // HTTP/3-like: the request and the response share stream 0, a
    // client-initiated bidirectional stream (the ones qvis's multiplexing
    // view draws); the request is a few dozen bytes with FIN.
    let request: Vec<&Value> = client
        .frames("transport:packet_sent")
        .filter(|f| f["frame_type"] == "stream")
        .collect();
    assert_eq!(request.len(), 1, "{request:?}");
    assert_eq!(request[0]["stream_id"], 0);
    assert_eq!(request[0]["offset"], 0);
    assert_eq!(request[0]["fin"], true);
    assert!(
        client
            .frames("transport:packet_received")
            .filter(|f| f["frame_type"] == "stream")
            .all(|f| f["stream_id"] == 0)
    );

    // Window changes from neqo-fc, as the custom event.
    let changes: Vec<&Value> = client.named(WINDOW_UPDATED).collect();
    assert!(!changes.is_empty());
    for c in &changes {
        let d = &c["data"];
        assert!(
            d["subject"] == "stream" || d["subject"] == "connection",
            "{c}"
        );
        assert_ne!(d["old"], d["new"]);
        assert!(d["reason"].is_string(), "{c}");
        // A tuning step's inputs, on its changes only.
        let tuned = d["reason"] == "auto_tune" || d["reason"] == "budget";
        assert_eq!(d["rtt"].is_number(), d["elapsed"].is_number(), "{c}");
        assert!(tuned || d["rtt"].is_null(), "{c}");
    }
    assert!(changes.iter().any(|c| c["data"]["rtt"].is_number()));
    // The largest stream window in the trace is the run's peak.
    let peak = changes
        .iter()
        .filter(|c| c["data"]["subject"] == "stream")
        .filter_map(|c| c["data"]["new"].as_u64())
        .max();
    assert_eq!(peak, Some(result.metrics.peak_stream_window));

    // Recovery at the sender.
    assert!(server.count("recovery:metrics_updated") > 0);
    let m = server.named("recovery:metrics_updated").last().unwrap();
    assert!(m["data"]["congestion_window"].as_u64().unwrap() > 0);
    assert!(m["data"]["smoothed_rtt"].as_f64().unwrap() >= 50.0);
    assert!(server.count("recovery:congestion_state_updated") > 0);

    // Full level: every packet the client received was sent by the server,
    // with the same size, and vice versa for the window updates.
    let sent = server.packets("transport:packet_sent");
    let received = client.packets("transport:packet_received");
    assert!(received.len() > 10_000, "{} packets", received.len());
    for (pn, len) in &received {
        assert_eq!(sent.get(pn), Some(len), "pn {pn}");
    }
    let sent = client.packets("transport:packet_sent");
    for (pn, len) in &server.packets("transport:packet_received") {
        assert_eq!(sent.get(pn), Some(len), "pn {pn}");
    }
    // Stream bytes the client saw cover the whole transfer.
    let stream_end = client
        .frames("transport:packet_received")
        .filter(|f| f["frame_type"] == "stream")
        .map(|f| f["offset"].as_u64().unwrap() + f["length"].as_u64().unwrap())
        .max();
    assert_eq!(stream_end, Some(20 * MB));
}

#[test]
fn lossy_trace_has_losses() {
    let (result, _client, server) = traces(&lossy(TraceLevel::Full), "lossy");
    assert!(described(&server).contains("random loss"));
    let lost = server.count("recovery:packet_lost");
    assert!(lost > 0);
    assert_eq!(lost as u64, result.metrics.packets_lost);
    for e in server.named("recovery:packet_lost") {
        assert!(e["data"]["header"]["packet_number"].is_u64(), "{e}");
    }
    // Each lost packet had been sent.
    let sent = server.packets("transport:packet_sent");
    for e in server.named("recovery:packet_lost") {
        let pn = e["data"]["header"]["packet_number"].as_u64().unwrap();
        assert!(sent.contains_key(&pn), "lost pn {pn} never sent");
    }
    assert!(
        server
            .named("recovery:congestion_state_updated")
            .any(|e| e["data"]["new"] == "recovery")
    );
}

#[test]
fn core_level_is_smaller_and_keeps_flow_control() {
    let (_, client, server) = traces(&gbit_50ms(TraceLevel::Core), "gbit-core");
    assert_max_stream_data_flows(&client, &server);
    assert!(client.count(WINDOW_UPDATED) > 0);
    assert!(server.count("recovery:metrics_updated") > 0);
    let (_, full_client, _) = traces(&gbit_50ms(TraceLevel::Full), "gbit-full2");
    assert!(
        client.count("transport:packet_received") * 4
            < full_client.count("transport:packet_received")
    );
}

/// What qvis looks up, for one trace: every packet number an ACK frame
/// names is a packet of the other side this trace received (ACKs it
/// sent) or a packet it sent (ACKs it received), and every lost packet
/// was sent. qvis logs one console error per miss.
fn assert_whole_for_qvis(t: &Trace, tag: &str) {
    let sent = t.packets("transport:packet_sent");
    let received = t.packets("transport:packet_received");
    let acked = |event: &str| -> Vec<u64> {
        t.frames(event)
            .filter(|f| f["frame_type"] == "ack")
            .flat_map(|f| f["acked_ranges"].as_array().expect("ranges").clone())
            .flat_map(|r| {
                let r = r.as_array().expect("range");
                let lo = r[0].as_u64().unwrap();
                let hi = r.get(1).map_or(lo, |v| v.as_u64().unwrap());
                lo..=hi
            })
            .collect()
    };
    for pn in acked("transport:packet_sent") {
        assert!(
            received.contains_key(&pn),
            "{tag}: our ACK names {pn}, not received here"
        );
    }
    for pn in acked("transport:packet_received") {
        assert!(
            sent.contains_key(&pn),
            "{tag}: a received ACK names {pn}, not sent here"
        );
    }
    for e in t.named("recovery:packet_lost") {
        let pn = e["data"]["header"]["packet_number"].as_u64().unwrap();
        assert!(sent.contains_key(&pn), "{tag}: lost {pn} never sent here");
    }
}

#[test]
fn every_packet_an_event_names_is_in_the_trace() {
    for (s, tag) in [
        (gbit_50ms(TraceLevel::Core), "gbit-core-whole"),
        (lossy(TraceLevel::Core), "lossy-core-whole"),
        (lossy(TraceLevel::Full), "lossy-full-whole"),
    ] {
        let (result, client, server) = traces(&s, tag);
        assert_whole_for_qvis(&client, &format!("{tag} client"));
        assert_whole_for_qvis(&server, &format!("{tag} server"));
        // Every loss is recorded, at every level.
        assert_eq!(
            server.count("recovery:packet_lost") as u64,
            result.metrics.packets_lost,
            "{tag}"
        );
    }
}

#[test]
fn same_seed_same_bytes() {
    let s = lossy(TraceLevel::Full);
    let a = run(&s);
    let b = run(&s);
    for endpoint in [Endpoint::Client, Endpoint::Server] {
        let x = trace_to_bytes(endpoint, "det", &a, &s).unwrap();
        let y = trace_to_bytes(endpoint, "det", &b, &s).unwrap();
        assert!(x == y, "{endpoint:?} trace differs between identical runs");
    }
}

/// The sample traces committed in `qlog-traces/` stay small and valid.
#[test]
fn committed_samples_are_valid() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("qlog-traces");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("qlog-traces/") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let endpoint = if name.ends_with("-client.sqlog") {
            Endpoint::Client
        } else if name.ends_with("-server.sqlog") {
            Endpoint::Server
        } else {
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() <= 5_000_000, "{name} is {} bytes", bytes.len());
        check_common(&Trace::parse(&bytes), endpoint);
        checked += 1;
    }
    assert!(
        checked >= 6,
        "only {checked} sample traces in {}",
        dir.display()
    );
}
