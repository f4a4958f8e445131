//! One recorded simulator event as one qlog 0.3 event: the `qlog` crate's
//! types where qlog 0.3 has the event, else a custom [`JsonEvent`]
//! ([`WINDOW_UPDATED`], [`ECN_STATE_UPDATED`]). Never a `generic:*` event:
//! the streamer panics on them.

use std::time::Duration;

use neqo_fc::{Subject, WindowChange};
use neqo_fc_sim::{
    quic::ecn_validation::{EcnFailure, EcnState},
    time::Time,
    trace::{Parameters, TraceEvent},
};
use qlog::events::{
    ConnectionErrorCode, Event, EventData, EventImportance, JsonEvent, RawInfo,
    connectivity::{ConnectionClosed, ConnectionClosedTrigger, TransportOwner},
    quic::{
        CongestionStateUpdated, CongestionStateUpdatedTrigger, MetricsUpdated, PacketHeader,
        PacketLost, PacketLostTrigger, PacketReceived, PacketSent, PacketType,
        TransportParametersSet,
    },
};
use serde_json::json;

use super::frames::quic_frame;

/// Name of the custom event written for every `neqo-fc` window change.
/// Its `data` holds `subject` ("connection" or "stream"), `stream_id` (streams
/// only), `old`, `new` (bytes), `reason`, `rtt` and `elapsed` (ms).
pub const WINDOW_UPDATED: &str = "flow_control:window_updated";

/// Name of the custom event written when the sender's ECN validation
/// changes state. Its `data` holds `old` and `new` (`testing`, `capable`,
/// `failed`) and, on failure, `trigger` (why).
pub const ECN_STATE_UPDATED: &str = "recovery:ecn_state_updated";

/// A qlog event ready for the streamer: standard or custom.
// Nearly every event is `Standard`: boxing it would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum QlogEvent {
    /// One of the crate's standard event types.
    Standard(Event),
    /// A custom event (name and free-form data).
    Custom(JsonEvent),
}

/// Simulated time as qlog's relative time in milliseconds (`f32`, as the
/// crate's events store it: ~7 significant digits). Monotone: a later
/// `Time` never maps to a smaller value (each conversion rounds to nearest,
/// which preserves order).
#[must_use]
pub fn time_ms(time: Time) -> f32 {
    (time.as_nanos() as f64 / 1e6) as f32
}

/// A duration in milliseconds (as qlog writes RTTs), within a nanosecond
/// for any duration below ~104 days (2^53 ns).
#[must_use]
pub fn duration_ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The qlog event for `event` at `time`.
#[must_use]
pub fn qlog_event(time: Time, event: &TraceEvent) -> QlogEvent {
    let t = time_ms(time);
    let data = match event {
        TraceEvent::ParametersSet { local, params } => parameters_set(*local, params),
        TraceEvent::PacketSent { pn, size, frames } => EventData::PacketSent(PacketSent {
            header: header(*pn),
            raw: Some(raw(*size)),
            frames: Some(frames.iter().map(quic_frame).collect()),
            ..Default::default()
        }),
        TraceEvent::PacketReceived { pn, size, frames } => {
            EventData::PacketReceived(PacketReceived {
                header: header(*pn),
                raw: Some(raw(*size)),
                frames: Some(frames.iter().map(quic_frame).collect()),
                ..Default::default()
            })
        }
        TraceEvent::MetricsUpdated {
            cwnd,
            bytes_in_flight,
            smoothed_rtt_us,
            min_rtt_us,
            latest_rtt_us,
            ssthresh,
        } => EventData::MetricsUpdated(MetricsUpdated {
            min_rtt: Some(micros_ms(*min_rtt_us)),
            smoothed_rtt: Some(micros_ms(*smoothed_rtt_us)),
            latest_rtt: Some(micros_ms(*latest_rtt_us)),
            congestion_window: Some(*cwnd),
            bytes_in_flight: Some(*bytes_in_flight),
            ssthresh: (*ssthresh != u64::MAX).then_some(*ssthresh),
            ..Default::default()
        }),
        TraceEvent::PacketLost { pn, trigger } => EventData::PacketLost(PacketLost {
            header: Some(header(*pn)),
            frames: None,
            trigger: lost_trigger(trigger),
        }),
        TraceEvent::CongestionStateUpdated { old, new, ecn } => {
            EventData::CongestionStateUpdated(CongestionStateUpdated {
                old: Some(old.as_str().to_owned()),
                new: new.as_str().to_owned(),
                trigger: ecn.then_some(CongestionStateUpdatedTrigger::Ecn),
            })
        }
        TraceEvent::WindowChanged(change) => return QlogEvent::Custom(window_updated(t, change)),
        TraceEvent::EcnStateUpdated { old, new } => {
            return QlogEvent::Custom(ecn_state_updated(t, *old, *new));
        }
        TraceEvent::ConnectionClosed { code, reason } => {
            EventData::ConnectionClosed(ConnectionClosed {
                owner: Some(TransportOwner::Local),
                connection_code: Some(ConnectionErrorCode::Value(*code)),
                application_code: None,
                internal_code: None,
                reason: Some(reason.clone()),
                trigger: Some(ConnectionClosedTrigger::Error),
            })
        }
    };
    QlogEvent::Standard(Event::with_time(t, data))
}

/// `transport:parameters_set`; the three `initial_max_stream_data_*` limits
/// are equal in the simulator.
fn parameters_set(local: bool, p: &Parameters) -> EventData {
    EventData::TransportParametersSet(TransportParametersSet {
        owner: Some(if local {
            TransportOwner::Local
        } else {
            TransportOwner::Remote
        }),
        max_udp_payload_size: Some(u32::try_from(p.max_udp_payload_size).unwrap_or(u32::MAX)),
        max_ack_delay: Some(u16::try_from(p.max_ack_delay_ms).unwrap_or(u16::MAX)),
        initial_max_data: Some(p.initial_max_data),
        initial_max_stream_data_bidi_local: Some(p.initial_max_stream_data),
        initial_max_stream_data_bidi_remote: Some(p.initial_max_stream_data),
        initial_max_stream_data_uni: Some(p.initial_max_stream_data),
        ..Default::default()
    })
}

/// A 1-RTT packet header with packet number `pn` (the simulator has no
/// handshake, so every packet is 1-RTT).
fn header(pn: u64) -> PacketHeader {
    PacketHeader::with_type(PacketType::OneRtt, Some(pn), None, None, None)
}

/// `raw` of a packet: `length` is the UDP payload size (qvis needs it
/// non-zero to draw the packet).
fn raw(size: u32) -> RawInfo {
    RawInfo {
        length: Some(u64::from(size)),
        payload_length: None,
        data: None,
    }
}

fn micros_ms(us: u64) -> f32 {
    (us as f64 / 1e3) as f32
}

fn lost_trigger(trigger: &str) -> Option<PacketLostTrigger> {
    match trigger {
        "reordering_threshold" => Some(PacketLostTrigger::ReorderingThreshold),
        "time_threshold" => Some(PacketLostTrigger::TimeThreshold),
        "pto_expired" => Some(PacketLostTrigger::PtoExpired),
        _ => None,
    }
}

/// The custom [`ECN_STATE_UPDATED`] event.
fn ecn_state_updated(time: f32, old: EcnState, new: EcnState) -> JsonEvent {
    let name = |s: EcnState| match s {
        EcnState::Off => "off",
        EcnState::Testing => "testing",
        EcnState::Capable => "capable",
        EcnState::Failed(_) => "failed",
    };
    let mut data = json!({ "old": name(old), "new": name(new) });
    if let EcnState::Failed(why) = new {
        data["trigger"] = json!(match why {
            EcnFailure::NoCounts => "no_ecn_counts",
            EcnFailure::CountsDecreased => "counts_decreased",
            EcnFailure::Ect1Reported => "ect1_reported",
            EcnFailure::MarksLost => "marks_lost",
            EcnFailure::MoreThanSent => "more_than_sent",
        });
    }
    JsonEvent {
        time,
        importance: EventImportance::Extra,
        name: ECN_STATE_UPDATED.to_owned(),
        data,
    }
}

/// The custom [`WINDOW_UPDATED`] event for one window change.
fn window_updated(time: f32, c: &WindowChange) -> JsonEvent {
    let mut data = json!({
        "subject": match c.subject {
            Subject::Connection => "connection",
            Subject::Stream(_) => "stream",
        },
        "old": c.old,
        "new": c.new,
        "reason": c.reason.as_str(),
    });
    if let Subject::Stream(id) = c.subject {
        data["stream_id"] = json!(id.0);
    }
    // The tuning step's inputs, where one made the change.
    if let (Some(rtt), Some(elapsed)) = (c.rtt, c.elapsed) {
        data["rtt"] = json!(duration_ms(rtt));
        data["elapsed"] = json!(duration_ms(elapsed));
    }
    JsonEvent {
        time,
        importance: EventImportance::Core,
        name: WINDOW_UPDATED.to_owned(),
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neqo_fc::{ChangeReason, StreamId};
    use neqo_fc_sim::quic::{cc::CcState, frame::Frame};

    fn standard(ev: QlogEvent) -> serde_json::Value {
        match ev {
            QlogEvent::Standard(e) => serde_json::to_value(e).unwrap(),
            QlogEvent::Custom(e) => panic!("expected a standard event, got {e:?}"),
        }
    }

    #[test]
    fn time_is_relative_ms_and_monotone() {
        assert_eq!(time_ms(Time::ZERO), 0.0);
        assert_eq!(time_ms(Time::from_micros(1_500)), 1.5);
        assert_eq!(time_ms(Time::from_secs(10)), 10_000.0);
        // Neighbouring nanoseconds late in a long run never go backwards.
        let base = Time::from_secs(3_000).as_nanos();
        let mut prev = time_ms(Time(base));
        for ns in base..base + 100_000 {
            let t = time_ms(Time(ns));
            assert!(t >= prev, "{ns}");
            prev = t;
        }
        assert_eq!(duration_ms(Duration::from_micros(25_500)), 25.5);
        assert_eq!(duration_ms(Duration::from_nanos(13_500_670)), 13.500_67);
    }

    #[test]
    fn packet_sent_has_header_raw_length_and_frames() {
        let ev = TraceEvent::PacketSent {
            pn: 42,
            size: 1_252,
            frames: vec![
                Frame::MaxStreamData {
                    stream_id: 0,
                    maximum: 1 << 20,
                },
                Frame::Padding { len: 2 },
            ],
        };
        let v = standard(qlog_event(Time::from_millis(3), &ev));
        assert_eq!(
            v,
            json!({
                "time": 3.0,
                "name": "transport:packet_sent",
                "data": {
                    "header": {"packet_type": "1RTT", "packet_number": 42},
                    "raw": {"length": 1252},
                    "frames": [
                        {"frame_type": "max_stream_data", "stream_id": 0, "maximum": 1_048_576},
                        {"frame_type": "padding", "length": 2, "payload_length": 2}
                    ]
                }
            })
        );
    }

    #[test]
    fn packet_received_name_and_fields() {
        let ev = TraceEvent::PacketReceived {
            pn: 0,
            size: 1,
            frames: vec![Frame::Ping],
        };
        let v = standard(qlog_event(Time::ZERO, &ev));
        assert_eq!(v["name"], "transport:packet_received");
        assert_eq!(v["data"]["raw"]["length"], 1);
        assert_eq!(v["data"]["header"]["packet_number"], 0);
        assert_eq!(v["data"]["frames"], json!([{"frame_type": "ping"}]));
    }

    #[test]
    fn parameters_set_owner_and_limits() {
        let params = Parameters {
            initial_max_data: 524_288,
            initial_max_stream_data: 262_144,
            max_ack_delay_ms: 25,
            max_udp_payload_size: 1_500,
        };
        for (local, owner) in [(true, "local"), (false, "remote")] {
            let v = standard(qlog_event(
                Time::ZERO,
                &TraceEvent::ParametersSet { local, params },
            ));
            assert_eq!(
                v,
                json!({
                    "time": 0.0,
                    "name": "transport:parameters_set",
                    "data": {
                        "owner": owner,
                        "max_udp_payload_size": 1500,
                        "max_ack_delay": 25,
                        "initial_max_data": 524_288,
                        "initial_max_stream_data_bidi_local": 262_144,
                        "initial_max_stream_data_bidi_remote": 262_144,
                        "initial_max_stream_data_uni": 262_144,
                        "unknown_parameters": []
                    }
                })
            );
        }
        // Out-of-range values saturate instead of failing.
        let huge = Parameters {
            max_ack_delay_ms: 1 << 20,
            max_udp_payload_size: 1 << 40,
            ..params
        };
        let v = standard(qlog_event(
            Time::ZERO,
            &TraceEvent::ParametersSet {
                local: true,
                params: huge,
            },
        ));
        assert_eq!(v["data"]["max_ack_delay"], u16::MAX);
        assert_eq!(v["data"]["max_udp_payload_size"], u32::MAX);
    }

    #[test]
    fn metrics_updated_in_ms_and_ssthresh_only_when_set() {
        let ev = TraceEvent::MetricsUpdated {
            cwnd: 14_720,
            bytes_in_flight: 3_000,
            smoothed_rtt_us: 50_250,
            min_rtt_us: 50_000,
            latest_rtt_us: 51_500,
            ssthresh: u64::MAX,
        };
        let v = standard(qlog_event(Time::from_millis(100), &ev));
        assert_eq!(
            v,
            json!({
                "time": 100.0,
                "name": "recovery:metrics_updated",
                "data": {
                    "min_rtt": 50.0,
                    "smoothed_rtt": 50.25,
                    "latest_rtt": 51.5,
                    "congestion_window": 14_720,
                    "bytes_in_flight": 3_000
                }
            })
        );
        let ev = TraceEvent::MetricsUpdated {
            cwnd: 1,
            bytes_in_flight: 0,
            smoothed_rtt_us: 0,
            min_rtt_us: 0,
            latest_rtt_us: 0,
            ssthresh: u64::MAX - 1,
        };
        let v = standard(qlog_event(Time::ZERO, &ev));
        assert_eq!(v["data"]["ssthresh"], u64::MAX - 1);
    }

    #[test]
    fn packet_lost_triggers() {
        for (trigger, expect) in [
            ("reordering_threshold", json!("reordering_threshold")),
            ("time_threshold", json!("time_threshold")),
            ("pto_expired", json!("pto_expired")),
            ("other", serde_json::Value::Null),
        ] {
            let v = standard(qlog_event(
                Time::ZERO,
                &TraceEvent::PacketLost { pn: 9, trigger },
            ));
            assert_eq!(v["name"], "recovery:packet_lost");
            assert_eq!(v["data"]["header"]["packet_number"], 9);
            assert_eq!(v["data"]["trigger"], expect);
        }
    }

    #[test]
    fn ecn_state_changes_are_custom_events_with_the_failure_as_trigger() {
        let event = |old, new| {
            let QlogEvent::Custom(e) =
                qlog_event(Time::ZERO, &TraceEvent::EcnStateUpdated { old, new })
            else {
                panic!("expected a custom event");
            };
            assert_eq!(e.name, ECN_STATE_UPDATED);
            e.data
        };
        assert_eq!(
            event(EcnState::Testing, EcnState::Capable),
            json!({"old": "testing", "new": "capable"})
        );
        assert_eq!(
            event(EcnState::Testing, EcnState::Failed(EcnFailure::NoCounts)),
            json!({"old": "testing", "new": "failed", "trigger": "no_ecn_counts"})
        );
        assert_eq!(
            event(
                EcnState::Capable,
                EcnState::Failed(EcnFailure::Ect1Reported)
            )["trigger"],
            "ect1_reported"
        );
    }

    #[test]
    fn congestion_state_and_close() {
        let v = standard(qlog_event(
            Time::ZERO,
            &TraceEvent::CongestionStateUpdated {
                old: CcState::SlowStart,
                new: CcState::Recovery,
                ecn: false,
            },
        ));
        assert_eq!(v["name"], "recovery:congestion_state_updated");
        assert_eq!(v["data"], json!({"old": "slow_start", "new": "recovery"}));
        let v = standard(qlog_event(
            Time::ZERO,
            &TraceEvent::CongestionStateUpdated {
                old: CcState::CongestionAvoidance,
                new: CcState::Recovery,
                ecn: true,
            },
        ));
        assert_eq!(
            v["data"],
            json!({"old": "congestion_avoidance", "new": "recovery", "trigger": "ecn"})
        );
        let v = standard(qlog_event(
            Time::ZERO,
            &TraceEvent::ConnectionClosed {
                code: 3,
                reason: "FLOW_CONTROL_ERROR".to_owned(),
            },
        ));
        assert_eq!(v["name"], "connectivity:connection_closed");
        assert_eq!(
            v["data"],
            json!({"owner": "local", "connection_code": 3, "reason": "FLOW_CONTROL_ERROR", "trigger": "error"})
        );
    }

    #[test]
    fn window_change_is_a_custom_event() {
        let change = WindowChange {
            subject: Subject::Stream(StreamId(4)),
            old: 262_144,
            new: 524_288,
            reason: ChangeReason::AutoTune,
            rtt: Some(Duration::from_micros(50_500)),
            elapsed: Some(Duration::from_millis(12)),
            now: None,
        };
        let QlogEvent::Custom(e) =
            qlog_event(Time::from_millis(7), &TraceEvent::WindowChanged(change))
        else {
            panic!("expected a custom event");
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({
                "time": 7.0,
                "name": WINDOW_UPDATED,
                "data": {
                    "subject": "stream", "stream_id": 4, "old": 262_144, "new": 524_288,
                    "reason": "auto_tune", "rtt": 50.5, "elapsed": 12.0
                }
            })
        );
        let conn = WindowChange {
            subject: Subject::Connection,
            reason: ChangeReason::ConnectionFloor,
            ..change
        };
        let QlogEvent::Custom(e) = qlog_event(Time::ZERO, &TraceEvent::WindowChanged(conn)) else {
            panic!("expected a custom event");
        };
        assert_eq!(e.data["subject"], "connection");
        assert_eq!(e.data["reason"], "connection_floor");
        assert!(e.data.get("stream_id").is_none());
    }
}
