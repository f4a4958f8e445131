//! Whole traces from hand-made run results: record framing, header,
//! per-endpoint split, time order, files on disk.

use std::time::Duration;

use neqo_fc::{ChangeReason, StreamId, Subject, WindowChange};
use neqo_fc_sim::{
    metrics::Metrics,
    net::PathConfig,
    quic::frame::Frame,
    scenario::{RunResult, Scenario, Workload},
    time::Time,
    trace::{Endpoint, Parameters, TraceEvent, TraceRecord},
};
use serde_json::Value;

use super::*;

const RS: u8 = 0x1e;

fn scenario() -> Scenario {
    let path = PathConfig {
        rate_bps: Some(1_000_000_000),
        delay: Duration::from_millis(25),
        ..PathConfig::default()
    };
    Scenario::new(path, Workload::bulk(1 << 20))
}

fn rec(ms: u64, endpoint: Endpoint, event: TraceEvent) -> TraceRecord {
    TraceRecord {
        time: Time::from_millis(ms),
        endpoint,
        event,
    }
}

const PARAMS: Parameters = Parameters {
    initial_max_data: 524_288,
    initial_max_stream_data: 262_144,
    max_ack_delay_ms: 25,
    max_udp_payload_size: 1_500,
};

/// A tiny run: parameters, one data packet, one window update, an
/// out-of-order client record (recorded at 5 ms after the 10 ms ones).
fn result() -> RunResult {
    use Endpoint::{Client, Server};
    let change = WindowChange {
        subject: Subject::Stream(StreamId(0)),
        old: 262_144,
        new: 524_288,
        reason: ChangeReason::AutoTune,
        rtt: Some(Duration::from_millis(50)),
        elapsed: Some(Duration::from_millis(10)),
        now: None,
    };
    let trace = vec![
        rec(
            0,
            Client,
            TraceEvent::ParametersSet {
                local: true,
                params: PARAMS,
            },
        ),
        rec(
            0,
            Server,
            TraceEvent::ParametersSet {
                local: false,
                params: PARAMS,
            },
        ),
        rec(
            0,
            Server,
            TraceEvent::PacketSent {
                pn: 0,
                size: 1_252,
                frames: vec![Frame::Stream {
                    stream_id: 0,
                    offset: 0,
                    length: 1_200,
                    fin: false,
                    data: None,
                }],
            },
        ),
        rec(10, Client, TraceEvent::WindowChanged(change)),
        rec(
            10,
            Client,
            TraceEvent::PacketSent {
                pn: 0,
                size: 40,
                frames: vec![Frame::MaxStreamData {
                    stream_id: 0,
                    maximum: 524_288,
                }],
            },
        ),
        rec(
            5,
            Client,
            TraceEvent::PacketReceived {
                pn: 0,
                size: 1_252,
                frames: vec![Frame::Stream {
                    stream_id: 0,
                    offset: 0,
                    length: 1_200,
                    fin: false,
                    data: None,
                }],
            },
        ),
        rec(
            35,
            Server,
            TraceEvent::PacketReceived {
                pn: 0,
                size: 40,
                frames: vec![Frame::MaxStreamData {
                    stream_id: 0,
                    maximum: 524_288,
                }],
            },
        ),
    ];
    RunResult {
        metrics: Metrics::default(),
        series: Vec::new(),
        trace,
    }
}

/// Splits JSON-SEQ bytes into parsed records; each record must start with
/// the record separator and end with a newline.
fn records(bytes: &[u8]) -> Vec<Value> {
    assert_eq!(bytes.first(), Some(&RS));
    bytes[1..]
        .split(|&b| b == RS)
        .map(|r| {
            assert_eq!(r.last(), Some(&b'\n'));
            serde_json::from_slice(r).unwrap()
        })
        .collect()
}

fn names_and_times(events: &[Value]) -> Vec<(String, f64)> {
    events
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["time"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn client_trace_header_and_sorted_events() {
    let bytes = trace_to_bytes(Endpoint::Client, "p-t-1", &result(), &scenario()).unwrap();
    let recs = records(&bytes);
    let header = &recs[0];
    assert_eq!(header["qlog_version"], "0.3");
    assert_eq!(header["qlog_format"], "JSON-SEQ");
    assert_eq!(header["title"], "p-t-1 client");
    let trace = &header["trace"];
    assert_eq!(trace["vantage_point"]["type"], "client");
    assert_eq!(trace["common_fields"]["group_id"], "p-t-1");
    assert_eq!(trace["common_fields"]["time_format"], "relative");
    assert_eq!(trace["configuration"]["time_offset"], 0.0);
    // A real reference time (qvis shifts traces that have 0).
    assert_eq!(
        trace["common_fields"]["reference_time"],
        1_735_689_600_000.0
    );
    let events = &recs[1..];
    assert_eq!(
        names_and_times(events),
        [
            ("transport:parameters_set".to_owned(), 0.0),
            ("transport:packet_received".to_owned(), 5.0),
            (WINDOW_UPDATED.to_owned(), 10.0),
            ("transport:packet_sent".to_owned(), 10.0),
        ]
    );
    assert_eq!(events[0]["data"]["owner"], "local");
    assert_eq!(events[3]["data"]["raw"]["length"], 40);
    assert_eq!(
        events[3]["data"]["frames"][0]["frame_type"],
        "max_stream_data"
    );
    assert_eq!(events[2]["data"]["new"], 524_288);
}

#[test]
fn server_trace_has_only_server_events() {
    let bytes = trace_to_bytes(Endpoint::Server, "x", &result(), &scenario()).unwrap();
    let recs = records(&bytes);
    assert_eq!(recs[0]["trace"]["vantage_point"]["type"], "server");
    // The same reference time, and an offset qvis takes as "aligned".
    let trace = &recs[0]["trace"];
    assert_eq!(
        trace["common_fields"]["reference_time"],
        1_735_689_600_000.0
    );
    assert_eq!(trace["configuration"]["time_offset"], 0.001);
    assert_eq!(
        names_and_times(&recs[1..]),
        [
            ("transport:parameters_set".to_owned(), 0.0),
            ("transport:packet_sent".to_owned(), 0.0),
            ("transport:packet_received".to_owned(), 35.0),
        ]
    );
    assert_eq!(recs[1]["data"]["owner"], "remote");
    assert_eq!(recs[2]["data"]["frames"][0]["length"], 1_200);
    assert_eq!(recs[3]["data"]["frames"][0]["maximum"], 524_288);
}

#[test]
fn empty_trace_is_header_only() {
    let empty = RunResult {
        trace: Vec::new(),
        ..result()
    };
    let bytes = trace_to_bytes(Endpoint::Client, "e", &empty, &scenario()).unwrap();
    let recs = records(&bytes);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["qlog_format"], "JSON-SEQ");
}

#[test]
fn files_named_by_prefix_and_equal_to_bytes() {
    let dir = std::env::temp_dir().join(format!("fc-lab-qlog-unit-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let (r, s) = (result(), scenario());
    let paths = write_traces(&dir.join("nested"), "gbit-50ms-default-1", &r, &s).unwrap();
    assert_eq!(
        paths,
        [
            dir.join("nested/gbit-50ms-default-1-client.sqlog"),
            dir.join("nested/gbit-50ms-default-1-server.sqlog"),
        ]
    );
    for (path, endpoint) in paths.iter().zip(ENDPOINTS) {
        let on_disk = fs::read(path).unwrap();
        let in_memory = trace_to_bytes(endpoint, "gbit-50ms-default-1", &r, &s).unwrap();
        assert_eq!(on_disk, in_memory);
    }
    // A file where the directory should be is an error, not a panic.
    let blocker = dir.join("file");
    fs::write(&blocker, b"x").unwrap();
    assert!(write_traces(&blocker, "p", &r, &s).is_err());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_names_are_one_portable_component() {
    assert_eq!(
        trace_file_name("gbit-50ms-default-1", Endpoint::Client),
        "gbit-50ms-default-1-client.sqlog"
    );
    assert_eq!(
        trace_file_name("gbit-50ms-fixed:1MiB-7", Endpoint::Server),
        "gbit-50ms-fixed-1MiB-7-server.sqlog"
    );
    assert_eq!(
        trace_file_name("../a b/é_v1.2", Endpoint::Client),
        "..-a-b--_v1.2-client.sqlog"
    );
    // The title keeps the name as given.
    let bytes = trace_to_bytes(Endpoint::Server, "p-fixed:1MiB-1", &result(), &scenario()).unwrap();
    assert_eq!(records(&bytes)[0]["title"], "p-fixed:1MiB-1 server");
}
