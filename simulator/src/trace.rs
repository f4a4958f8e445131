//! Events recorded during a run for qlog traces (fc-lab turns them into
//! qlog 0.3 JSON-SEQ). Recording is off unless the scenario asks for it.

use neqo_fc::WindowChange;

use crate::{
    quic::{cc::CcState, ecn_validation::EcnState, frame::Frame},
    time::Time,
};

/// Which end of the connection an event belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Endpoint {
    /// The endpoint that reads the data: it opens the request streams,
    /// sends a small request on each and reads the responses.
    Client,
    /// The endpoint that sends the data: it answers each request on its
    /// stream.
    Server,
}

impl Endpoint {
    /// "client" or "server".
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Client => "client",
            Self::Server => "server",
        }
    }
}

/// Flow-control limits one side announces in its transport parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameters {
    /// `initial_max_data`.
    pub initial_max_data: u64,
    /// `initial_max_stream_data_bidi_local`/`_remote`/`_uni` (all equal here).
    pub initial_max_stream_data: u64,
    /// `max_ack_delay` in milliseconds.
    pub max_ack_delay_ms: u64,
    /// `max_udp_payload_size`.
    pub max_udp_payload_size: u64,
}

/// One recorded event; `time` is the simulated time it happened at.
#[derive(Clone, Debug)]
pub enum TraceEvent {
    /// Transport parameters of `owner` (local = this endpoint's own).
    ParametersSet {
        /// Whose parameters: true when they are the endpoint's own.
        local: bool,
        /// The values.
        params: Parameters,
    },
    /// A packet left this endpoint.
    PacketSent {
        /// Packet number.
        pn: u64,
        /// UDP payload bytes.
        size: u32,
        /// Its frames (STREAM frames carry no payload in traces).
        frames: Vec<Frame>,
    },
    /// A packet arrived at this endpoint.
    PacketReceived {
        /// Packet number.
        pn: u64,
        /// UDP payload bytes.
        size: u32,
        /// Its frames.
        frames: Vec<Frame>,
    },
    /// Recovery state after an ACK or a send.
    MetricsUpdated {
        /// Congestion window, bytes.
        cwnd: u64,
        /// Bytes in flight.
        bytes_in_flight: u64,
        /// Smoothed RTT, µs.
        smoothed_rtt_us: u64,
        /// Minimum RTT, µs.
        min_rtt_us: u64,
        /// Latest RTT, µs.
        latest_rtt_us: u64,
        /// Slow-start threshold, bytes (`u64::MAX` before the first loss).
        ssthresh: u64,
    },
    /// A packet was declared lost.
    PacketLost {
        /// Packet number.
        pn: u64,
        /// "reordering_threshold", "time_threshold" or "pto_expired".
        trigger: &'static str,
    },
    /// The congestion controller changed state.
    CongestionStateUpdated {
        /// Old state.
        old: CcState,
        /// New state.
        new: CcState,
        /// The change is a congestion event an ECN-CE report started.
        ecn: bool,
    },
    /// The sender's ECN validation (RFC 9000 §13.4.2) changed state.
    EcnStateUpdated {
        /// Old state.
        old: EcnState,
        /// New state.
        new: EcnState,
    },
    /// A neqo-fc receive window changed.
    WindowChanged(WindowChange),
    /// The connection was closed with a transport error.
    ConnectionClosed {
        /// QUIC error code.
        code: u64,
        /// Human-readable reason.
        reason: String,
    },
}

/// A time-stamped event at one endpoint.
#[derive(Clone, Debug)]
pub struct TraceRecord {
    /// Simulated time.
    pub time: Time,
    /// Where it happened.
    pub endpoint: Endpoint,
    /// What happened.
    pub event: TraceEvent,
}

/// How much to record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TraceLevel {
    /// Nothing (fastest).
    #[default]
    Off,
    /// Flow-control and recovery events, the packets carrying flow-control
    /// frames (MAX_*, *_BLOCKED) and a sixteenth of the others (64 of
    /// every 1,024 packet numbers), every lost packet, and ACK frames
    /// listing only the packets recorded: small, and whole for qvis.
    Core,
    /// Every packet and event.
    Full,
}
