//! ACK_FREQUENCY as neqo 0.30 runs it (`TransportOptions::neqo`):
//! a receiver acknowledges every second packet until its peer's first
//! congestion event, and about one packet in cwnd/20 after it; the request
//! travels in an ACK_FREQUENCY frame and changes only when a congestion
//! event reduced the sender's window.
//!
//! The path: 100 Mbit/s, 20 ms; 20 MB in one stream. A queue of a tenth of
//! the BDP makes slow start end in a loss; one of four BDPs never loses.

mod common;

use common::{RATE, RTT, traced_bulk};
use neqo_fc_sim::{
    net::bdp_bytes,
    quic::frame::Frame,
    scenario::TransportOptions,
    time::Time,
    trace::{Endpoint, TraceEvent, TraceRecord},
};

fn scenario(queue_bdp_tenths: u64, transport: TransportOptions) -> Vec<TraceRecord> {
    traced_bulk(bdp_bytes(RATE, RTT) * queue_bdp_tenths / 10, transport).trace
}

/// The client's view: (time, packet tolerance) of every ACK_FREQUENCY it
/// received, and the times of its ACK-only and data-carrying packets.
struct ClientView {
    requests: Vec<(Time, u64)>,
    ack_only_sent: Vec<Time>,
    data_received: Vec<Time>,
    first_server_loss: Option<Time>,
}

fn client_view(trace: &[TraceRecord]) -> ClientView {
    let mut v = ClientView {
        requests: Vec::new(),
        ack_only_sent: Vec::new(),
        data_received: Vec::new(),
        first_server_loss: None,
    };
    for r in trace {
        match (&r.endpoint, &r.event) {
            (Endpoint::Client, TraceEvent::PacketReceived { frames, .. }) => {
                for f in frames {
                    match f {
                        Frame::AckFrequency {
                            packet_tolerance, ..
                        } => v.requests.push((r.time, *packet_tolerance)),
                        Frame::Stream { .. } => {
                            v.data_received.push(r.time);
                            break;
                        }
                        _ => {}
                    }
                }
            }
            (Endpoint::Client, TraceEvent::PacketSent { frames, .. })
                if frames.iter().all(|f| matches!(f, Frame::Ack { .. })) =>
            {
                v.ack_only_sent.push(r.time);
            }
            (Endpoint::Server, TraceEvent::PacketLost { .. }) => {
                v.first_server_loss.get_or_insert(r.time);
            }
            _ => {}
        }
    }
    v
}

/// ACK-only packets the client sent per data packet it received in
/// `[from, to)`.
fn acks_per_packet(v: &ClientView, from: Time, to: Time) -> f64 {
    let inside = |t: &&Time| **t >= from && **t < to;
    let acks = v.ack_only_sent.iter().filter(inside).count();
    let data = v.data_received.iter().filter(inside).count();
    assert!(data > 200, "too few packets in the span: {data}");
    acks as f64 / data as f64
}

#[test]
fn every_second_packet_until_the_first_loss_then_one_per_twentieth_of_cwnd() {
    let trace = scenario(1, TransportOptions::neqo(RTT));
    let v = client_view(&trace);
    let loss = v.first_server_loss.expect("slow start ends in a loss");
    // The first request repeats neqo's default tolerance of 2 (it changes
    // the delay to RTT/20); it arrives before any loss.
    let (first_at, first) = v.requests[0];
    assert_eq!(first, 2);
    assert!(first_at < loss);
    // After the loss the sender asks for cwnd/20 of data per ACK.
    let &(later_at, later) = v
        .requests
        .iter()
        .find(|(t, _)| *t > loss)
        .expect("a new request after the congestion event");
    assert!(later > 2, "{:?}", v.requests);
    // Before the loss: an ACK every second packet.
    let before = acks_per_packet(&v, Time::ZERO, loss);
    assert!((0.45..=0.55).contains(&before), "{before}");
    // Once the new request is in force: under half as many (ACKs still go
    // at once for packets out of order, and after RTT/20 = 1 ms, which is
    // 8 packets at this rate).
    let end = *v.data_received.last().unwrap();
    let after = acks_per_packet(&v, later_at, end);
    assert!(
        after < before / 2.0,
        "{after} ACKs per packet with tolerance {later}"
    );
}

#[test]
fn without_a_congestion_event_the_rate_never_changes() {
    let trace = scenario(40, TransportOptions::neqo(RTT));
    let v = client_view(&trace);
    assert_eq!(v.first_server_loss, None);
    let tolerances: Vec<u64> = v.requests.iter().map(|r| r.1).collect();
    assert_eq!(tolerances, vec![2], "one request, at the handshake");
    let end = *v.data_received.last().unwrap();
    let rate = acks_per_packet(&v, Time::ZERO, end);
    assert!((0.45..=0.55).contains(&rate), "{rate}");
}

#[test]
fn the_fitted_neqo_model_sends_no_ack_frequency() {
    let trace = scenario(1, TransportOptions::neqo_fitted(RTT));
    let v = client_view(&trace);
    assert!(v.requests.is_empty());
    assert!(v.first_server_loss.is_some());
}
