//! What an endpoint sends: the packets it may write at a given moment,
//! each built from ACKs, control frames (flow-control updates first),
//! retransmissions and new stream data within the congestion window,
//! flow control and pacing, and its CONNECTION_CLOSE once closed.

use super::*;

impl Connection {
    /// Writes every packet this endpoint may send at `now` into `out`.
    /// `pool` supplies empty frame vectors to reuse.
    pub fn output(&mut self, now: Time, out: &mut Vec<Packet>, pool: &mut Vec<Vec<Frame>>) {
        if self.closed.is_some() {
            self.send_close(now, out, pool);
            return;
        }
        let unpaced = self
            .hostile
            .as_ref()
            .is_some_and(|h| h.mode().ignores_pacing());
        self.note_reductions();
        loop {
            let mds = u64::from(self.cfg.transport.max_datagram_size);
            let cwnd_ok = self.recovery.cwnd_room() >= mds || self.probes > 0;
            let paced_ok = unpaced || self.recovery.pacing_time(now, mds) <= now || self.probes > 0;
            let data = cwnd_ok && paced_ok && self.send.has_sendable_data();
            let control_paced =
                unpaced || self.probes > 0 || self.recovery.control_pacing_time(now, mds) <= now;
            let control = cwnd_ok && control_paced && self.control_due();
            let ack = self.acks.ack_now(now)
                || self
                    .hostile
                    .as_ref()
                    .and_then(HostileSender::next_ack_release)
                    .is_some_and(|t| t <= now);
            if !(data || control || ack || self.probes > 0) {
                break;
            }
            if !self.build_packet(now, data, control_paced, out, pool) {
                break;
            }
        }
        let cwnd_open = self.cwnd_open();
        if let Some(spell) = self.send.track_blocked(now, cwnd_open) {
            self.stats.fc_blocked += spell;
        }
    }

    /// Sends one packet with our CONNECTION_CLOSE (RFC 9000 §10.2), once,
    /// after we closed the connection for a local error.
    fn send_close(&mut self, now: Time, out: &mut Vec<Packet>, pool: &mut Vec<Vec<Frame>>) {
        if !self.close_pending {
            return;
        }
        self.close_pending = false;
        let Some((code, reason)) = self.closed.clone() else {
            return;
        };
        let mut frames = pool.pop().unwrap_or_default();
        let mut reason = reason.into_bytes();
        reason.truncate(64);
        frames.push(Frame::ConnectionClose {
            error_code: code,
            frame_type: 0,
            reason,
        });
        out.push(self.seal(now, frames));
    }

    /// The packet carrying `frames`: the next packet number, recorded in
    /// the trace, encoded in verify mode.
    fn seal(&mut self, now: Time, frames: Vec<Frame>) -> Packet {
        let pn = self.next_pn;
        self.next_pn += 1;
        let traced = self.tracer.sent_frames(pn, &frames);
        let mut pkt = Packet::new(
            pn,
            frames,
            self.cfg.transport.packet_overhead as usize,
            self.cfg.verify,
        );
        if self.recovery.mark_next_ect() {
            pkt.ecn = Ecn::Ect0;
        }
        if let Some(frames) = traced {
            let size = pkt.size;
            self.tracer
                .record(now, TraceEvent::PacketSent { pn, size, frames });
        }
        pkt
    }

    fn build_packet(
        &mut self,
        now: Time,
        with_data: bool,
        with_control: bool,
        out: &mut Vec<Packet>,
        pool: &mut Vec<Vec<Frame>>,
    ) -> bool {
        let mut space = (self.cfg.transport.max_datagram_size as usize)
            .saturating_sub(self.cfg.transport.packet_overhead as usize);
        let mut frames = pool.pop().unwrap_or_default();
        let mut sent = SentFrames::new();
        if self.acks.has_new()
            && (!self.cfg.transport.acks_when_due || self.acks.ack_now(now))
            && let Some(ack) = self.acks.make_ack(now)
        {
            // A hostile peer may hold the ACK back and send an older one.
            let ack = match &mut self.hostile {
                None => Some(ack),
                Some(h) => h.hold_ack(now, ack).or_else(|| h.release_ack(now)),
            };
            if let Some(ack) = ack {
                space = space.saturating_sub(ack.encoded_len());
                frames.push(ack);
            }
        } else if let Some(ack) = self.hostile.as_mut().and_then(|h| h.release_ack(now)) {
            space = space.saturating_sub(ack.encoded_len());
            frames.push(ack);
        }
        if with_control {
            if let Some(frame) = self
                .ack_frequency
                .as_mut()
                .and_then(AckFrequencySender::frame_to_send)
            {
                if let Frame::AckFrequency {
                    sequence,
                    packet_tolerance,
                    max_ack_delay_us,
                    ..
                } = frame
                {
                    sent.push(SentFrame::AckFrequency {
                        sequence,
                        packet_tolerance,
                        max_ack_delay_us,
                    });
                }
                space = space.saturating_sub(frame.encoded_len());
                frames.push(frame);
            }
            self.write_control(now, &mut space, &mut frames, &mut sent);
        }
        if let Some(h) = &mut self.hostile {
            let limit = self.send.conn_limit();
            let initial = self.cfg.fc.initial_connection_window;
            let verify = self.cfg.verify;
            let streams = self.send.streams();
            self.stats.blocked_frames_sent +=
                h.add_frames(streams, limit, initial, verify, &mut space, &mut frames);
        }
        if with_data {
            self.stats.retransmitted_bytes +=
                self.send
                    .write_data(self.cfg.verify, &mut space, &mut frames, &mut sent);
        }
        let mut eliciting = frames.iter().any(Frame::is_ack_eliciting);
        if self.probes > 0 {
            self.probes -= 1;
            if !eliciting {
                frames.push(Frame::Ping);
                eliciting = true;
            }
        }
        if frames.is_empty() {
            pool.push(frames);
            return false;
        }
        let pkt = self.seal(now, frames);
        let pn = pkt.pn;
        let in_flight = eliciting;
        let cwnd_limited = in_flight
            && self.recovery.uses_window(
                u64::from(pkt.size),
                u64::from(self.cfg.transport.max_datagram_size),
            );
        self.recovery.on_packet_sent(
            now,
            SentPacket {
                pn,
                time_sent: now,
                size: pkt.size,
                ack_eliciting: eliciting,
                in_flight,
                cwnd_limited,
                ect: pkt.ecn == Ecn::Ect0,
                frames: sent,
            },
        );
        out.push(pkt);
        true
    }

    /// MAX_DATA / MAX_STREAM_DATA due, then *_BLOCKED owed, while `space`
    /// allows.
    fn write_control(
        &mut self,
        now: Time,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) {
        let rtt = self.rtt();
        while *space >= CONTROL_ROOM {
            let Some((f, sf)) = self.recv.next_update(now, rtt) else {
                break;
            };
            *space = space.saturating_sub(f.encoded_len());
            frames.push(f);
            sent.push(sf);
            self.stats.window_updates_sent += 1;
        }
        self.take_changes(now);
        self.note_credit();
        self.stats.blocked_frames_sent += self.send.write_blocked(space, frames, sent);
    }
}
