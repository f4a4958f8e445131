//! ACK frames only when an acknowledgement is due
//! (`TransportOptions::acks_when_due`, on in `TransportOptions::neqo`): neqo never
//! acknowledges its peer's ACK-only packets on their own, so a sender
//! whose peer only acknowledges puts ACK frames in almost none of its data
//! packets, and with a send buffer nearly every data packet is full. Without it,
//! each data packet after a peer ACK carries an ACK frame, those packets
//! hold less stream data, and the bytes that no longer fit the freed send
//! buffer leave as tiny packets of their own.
//!
//! The path: 100 Mbit/s, 20 ms, a BDP of queue; 20 MB in one stream,
//! sent through a 256 KiB send buffer.

mod common;

use common::{RATE, RTT, traced_bulk};
use neqo_fc_sim::{
    net::bdp_bytes,
    quic::frame::Frame,
    scenario::TransportOptions,
    trace::{Endpoint, TraceEvent},
};

/// (server data packets, of them with an ACK frame, of them with under
/// 100 bytes of stream data) for a run on `transport`, and the goodput.
fn server_packets(transport: TransportOptions) -> (usize, usize, usize, f64) {
    let r = traced_bulk(bdp_bytes(RATE, RTT), transport);
    let (mut data, mut with_ack, mut tiny) = (0, 0, 0);
    for rec in &r.trace {
        if let (Endpoint::Server, TraceEvent::PacketSent { frames, .. }) =
            (&rec.endpoint, &rec.event)
        {
            let stream: u64 = frames
                .iter()
                .map(|f| match f {
                    Frame::Stream { length, .. } => *length,
                    _ => 0,
                })
                .sum();
            if stream > 0 {
                data += 1;
                with_ack += usize::from(frames.iter().any(|f| matches!(f, Frame::Ack { .. })));
                tiny += usize::from(stream < 100);
            }
        }
    }
    (data, with_ack, tiny, r.metrics.goodput_bps)
}

#[test]
fn data_packets_carry_acks_only_when_one_is_due() {
    // A send buffer of about a BDP, so that it, not the window, holds the
    // sender back (as neqo's 10 MiB one does at 1 Gbit/s and 48–88 ms).
    let traced = TransportOptions {
        send_buffer: Some(256 << 10),
        ..TransportOptions::neqo(RTT)
    };
    assert!(traced.acks_when_due);
    let (data, with_ack, tiny, due_goodput) = server_packets(traced);
    // Only the client's ack-eliciting packets (its request and its
    // flow-control updates) are acknowledged: under 1 % of data packets.
    assert!(
        with_ack * 100 < data,
        "{with_ack} of {data} data packets carried an ACK"
    );
    assert!(tiny * 100 < data, "{tiny} of {data} data packets were tiny");

    let bundling = TransportOptions {
        acks_when_due: false,
        ..traced
    };
    let (data2, with_ack2, tiny2, any_goodput) = server_packets(bundling);
    eprintln!(
        "when due: {data} data packets, {with_ack} with an ACK, {tiny} tiny, {due_goodput:.0} bit/s; \
         any: {data2}, {with_ack2}, {tiny2}, {any_goodput:.0} bit/s"
    );
    assert!(
        with_ack2 * 20 > data2,
        "{with_ack2} of {data2} carried an ACK"
    );
    assert!(tiny2 * 20 > data2, "{tiny2} of {data2} were tiny");
    assert!(
        data2 > data,
        "more packets for the same bytes: {data2} vs {data}"
    );
    assert!(due_goodput > any_goodput, "{due_goodput} vs {any_goodput}");
}
