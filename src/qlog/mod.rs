//! qlog traces of a simulated run as qvis reads them: qlog 0.3 JSON-SEQ
//! written by the `qlog` crate's streamer, one trace per endpoint (the
//! client reads and sends MAX_DATA / MAX_STREAM_DATA, the server sends and
//! runs congestion control). Times are simulated milliseconds since the
//! start of the run and never decrease; what is recorded is the scenario's
//! `TraceLevel`.

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

use crate::spec::sanitize;

/// Both endpoints, in the order traces are written.
pub const ENDPOINTS: [Endpoint; 2] = [Endpoint::Client, Endpoint::Server];

/// The file name of one endpoint's trace, `<name_prefix>-<endpoint>.sqlog`,
/// with `name_prefix` [`sanitize`]d so it stays one portable path component
/// (qvis picks its JSON-SEQ reader from the `.sqlog` extension).
#[must_use]
pub fn trace_file_name(name_prefix: &str, endpoint: Endpoint) -> String {
    format!("{}-{}.sqlog", sanitize(name_prefix), endpoint.as_str())
}

/// Writes both endpoints' traces into `dir` (created if needed; existing
/// files replaced) and returns their paths, client first. The traces' title
/// and `group_id` keep `name_prefix` unchanged.
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
