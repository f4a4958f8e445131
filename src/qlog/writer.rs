//! One endpoint's recorded events as a qlog 0.3 JSON-SEQ trace.

use std::io::{self, Write};

use neqo_fc_sim::{
    scenario::{RunResult, Scenario},
    trace::Endpoint,
};
use qlog::{
    CommonFields, Configuration, QLOG_VERSION, TraceSeq, VantagePoint, VantagePointType,
    events::EventImportance, streamer::QlogStreamer,
};

use super::events::{QlogEvent, qlog_event};
use crate::format;

/// `common_fields.reference_time` of every trace, ms since the Unix epoch:
/// simulated time zero at 2025-01-01 00:00:00 UTC. Fixed, so traces are
/// byte-identical run to run; not 0, which qvis takes for "missing" and
/// then shifts the two traces apart.
pub const REFERENCE_TIME_MS: f64 = 1_735_689_600_000.0;

/// `configuration.time_offset` of the server's trace, ms. Both traces share
/// one clock, but qvis takes a zero offset for "unknown" and shifts the
/// server's trace by half an RTT (packets then arrive before they leave);
/// one microsecond, below the traces' resolution, says they are aligned.
pub const SERVER_TIME_OFFSET_MS: f64 = 0.001;

/// Writes the trace of `endpoint` to `writer`: the JSON-SEQ header, then
/// the endpoint's events stably sorted by simulated time. `name` titles the
/// trace and groups the two endpoints' traces.
///
/// # Errors
/// Any I/O error of `writer`, or a serialisation failure of the streamer.
pub fn write_trace<W: Write + Send + Sync + 'static>(
    writer: W,
    endpoint: Endpoint,
    name: &str,
    result: &RunResult,
    scenario: &Scenario,
) -> io::Result<()> {
    let mut streamer = QlogStreamer::new(
        QLOG_VERSION.to_owned(),
        Some(format!("{name} {}", endpoint.as_str())),
        Some(description(scenario)),
        None,
        // Read only by the `*_now` / `*_with_instant` methods, never called:
        // every event carries its simulated time.
        std::time::Instant::now(),
        trace_seq(endpoint, name),
        EventImportance::Extra,
        Box::new(writer),
    );
    streamer.start_log().map_err(to_io)?;
    let trace = &result.trace;
    let mut records: Vec<_> = trace.iter().filter(|r| r.endpoint == endpoint).collect();
    // Stable: equal times keep their recorded order.
    records.sort_by_key(|r| r.time);
    for record in records {
        let added = match qlog_event(record.time, &record.event) {
            QlogEvent::Standard(e) => streamer.add_event(e),
            QlogEvent::Custom(e) => streamer.add_event(e),
        };
        added.map_err(to_io)?;
    }
    streamer.finish_log().map_err(to_io)
}

fn trace_seq(endpoint: Endpoint, name: &str) -> TraceSeq {
    let (ty, time_offset) = match endpoint {
        Endpoint::Client => (VantagePointType::Client, 0.0),
        Endpoint::Server => (VantagePointType::Server, SERVER_TIME_OFFSET_MS),
    };
    TraceSeq::new(
        VantagePoint {
            name: Some(format!("fc-lab {}", endpoint.as_str())),
            ty,
            flow: None,
        },
        Some(format!("{name} {}", endpoint.as_str())),
        None,
        Some(Configuration {
            time_offset: Some(time_offset),
            original_uris: None,
        }),
        Some(CommonFields {
            group_id: Some(name.to_owned()),
            protocol_type: Some(vec!["QUIC".to_owned()]),
            reference_time: Some(REFERENCE_TIME_MS),
            time_format: Some("relative".to_owned()),
        }),
    )
}

/// One readable line on what was simulated (qvis shows it with the trace).
fn description(s: &Scenario) -> String {
    use neqo_fc_sim::{net::LossModel, quic::cc::CcAlgorithm, scenario::ReaderSpeed};
    let f = &s.forward;
    let rate = f
        .rate_bps
        .map_or_else(|| "unlimited".to_owned(), |r| format::rate(r as f64));
    let loss = match f.loss {
        LossModel::None => "no loss".to_owned(),
        LossModel::Bernoulli { rate } => format!("random loss {:.3} %", rate * 100.0),
        LossModel::GilbertElliott {
            mean_rate,
            mean_burst,
        } => format!(
            "bursty loss {:.3} % (bursts of {mean_burst:.1} packets on average)",
            mean_rate * 100.0
        ),
    };
    let jitter = if f.jitter.is_zero() {
        "no jitter".to_owned()
    } else {
        format!("jitter up to {}", format::duration(f.jitter))
    };
    let workload = crate::workloads::kind_words(&s.workload.kind);
    let reader = match s.workload.reader {
        ReaderSpeed::Unlimited => "reads at once".to_owned(),
        ReaderSpeed::Rate(bps) => format!("reads at {}", format::rate(bps as f64)),
        ReaderSpeed::Periodic { bps, period } => format!(
            "reads up to {} every {}",
            format::rate(bps as f64),
            format::duration(period)
        ),
    };
    let cc = match s.cc {
        CcAlgorithm::Cubic => "CUBIC",
        CcAlgorithm::NewReno => "NewReno",
    };
    format!(
        "neqo-fc-sim run; times are simulated ms. Data path: {rate}, one-way delay {}, \
         queue {}, {loss}, {jitter}. Workload: {workload} on {} stream(s); the application \
         {reader}. Congestion control {cc}. Seed {}.",
        format::duration(f.delay),
        format::bytes(f.queue_bytes),
        s.workload.streams,
        s.seed
    )
}

fn to_io(e: qlog::Error) -> io::Error {
    match e {
        qlog::Error::IoError(e) => e,
        other => io::Error::other(format!("qlog streamer: {other}")),
    }
}
