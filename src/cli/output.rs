//! Writing to the terminal: stdout that a closed pipe cannot turn into a
//! panic, and JSON lines.

use std::io::Write;

use crate::error::LabError;

/// Writes to stdout; a closed pipe is not an error worth a panic.
pub fn print(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(s.as_bytes()).and_then(|()| out.flush());
}

/// `value` as one line of JSON, newline included.
pub fn json_line<T: serde::Serialize>(value: &T) -> Result<String, LabError> {
    serde_json::to_string(value)
        .map(|s| s + "\n")
        .map_err(|e| LabError::Simulator(format!("JSON encoding failed: {e}")))
}
