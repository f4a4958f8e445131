//! qlog traces of a simulated run, in the format qvis reads: qlog 0.3,
//! JSON-SEQ, written by the `qlog` crate (=0.16.0) streamer.
//!
//! One trace per endpoint ([`Endpoint::Client`] reads the data and sends
//! MAX_DATA / MAX_STREAM_DATA; [`Endpoint::Server`] sends the data and runs
//! congestion control). Events: `transport:parameters_set`,
//! `transport:packet_sent` / `transport:packet_received` with every frame and
//! the datagram size as `raw.length`, `recovery:metrics_updated`,
//! `recovery:packet_lost`, `recovery:congestion_state_updated`,
//! `connectivity:connection_closed`, and the custom
//! [`WINDOW_UPDATED`] event for each `neqo-fc` window change. Times are the
//! simulated milliseconds since the start of the run and never decrease.
//!
//! What gets recorded (every packet, or only flow-control packets plus a
//! sample) is the scenario's `TraceLevel`; this module writes what it gets.

mod events;
mod frames;
mod sink;
mod writer;

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use neqo_fc_sim::{
    scenario::{RunResult, Scenario},
    trace::Endpoint,
};

pub use events::{QlogEvent, WINDOW_UPDATED, duration_ms, qlog_event, time_ms};
pub use frames::{ACK_DELAY_EXPONENT, ack_delay_ms, quic_frame};
pub use sink::SharedBuf;
pub use writer::{REFERENCE_TIME_MS, SERVER_TIME_OFFSET_MS, write_trace};

/// Both endpoints, in the order traces are written.
pub const ENDPOINTS: [Endpoint; 2] = [Endpoint::Client, Endpoint::Server];

/// The file name of one endpoint's trace: `<name_prefix>-<endpoint>.sqlog`,
/// with every character of `name_prefix` outside `[A-Za-z0-9._-]` replaced
/// by `-` (so `gbit-50ms-fixed:1MiB-1` gives `gbit-50ms-fixed-1MiB-1-…`: the
/// name stays one path component, portable to every file system, and
/// usable in a URL without escaping). qvis picks the JSON-SEQ reader from
/// the `.sqlog` extension.
#[must_use]
pub fn trace_file_name(name_prefix: &str, endpoint: Endpoint) -> String {
    let safe: String = name_prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("{safe}-{}.sqlog", endpoint.as_str())
}

/// Writes `<dir>/<name_prefix>-client.sqlog` and
/// `<dir>/<name_prefix>-server.sqlog` (names as [`trace_file_name`] makes
/// them; `dir` is created if needed) and returns their paths, client first.
/// Existing files are replaced. The traces' title and `group_id` keep
/// `name_prefix` unchanged.
///
/// # Errors
/// Any error creating the directory or writing a file.
pub fn write_traces(
    dir: &Path,
    name_prefix: &str,
    result: &RunResult,
    scenario: &Scenario,
) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut paths = Vec::with_capacity(ENDPOINTS.len());
    for endpoint in ENDPOINTS {
        let path = dir.join(trace_file_name(name_prefix, endpoint));
        let file = BufWriter::new(File::create(&path)?);
        write_trace(file, endpoint, name_prefix, result, scenario)?;
        paths.push(path);
    }
    Ok(paths)
}

/// The trace of `endpoint` as bytes (what [`write_traces`] puts in its file).
///
/// # Errors
/// A serialisation failure of the streamer.
pub fn trace_to_bytes(
    endpoint: Endpoint,
    name: &str,
    result: &RunResult,
    scenario: &Scenario,
) -> io::Result<Vec<u8>> {
    let buf = SharedBuf::default();
    write_trace(buf.clone(), endpoint, name, result, scenario)?;
    buf.bytes()
}

#[cfg(test)]
mod tests;
