//! The send side of one endpoint: its outgoing streams ([`SendStream`]),
//! the order in which they fill packets (round robin, or by stream ID as
//! neqo serves streams without fairness), the connection's
//! send credit (`neqo-fc`'s [`SenderFlowControl`]) and the *_BLOCKED frames
//! it owes. Every call into the send half of `neqo-fc` is here or in
//! `send_stream.rs`.
//!
//! It decides which stream bytes and *_BLOCKED frames go into the room a
//! packet has; it never decides when a packet leaves (congestion control
//! and pacing do, in the endpoint).

use std::{
    collections::{BTreeSet, VecDeque},
    time::Duration,
};

use neqo_fc::{Connection as ConnSubject, SenderFlowControl};

use super::{
    StreamKind,
    packet::pattern,
    send_stream::SendStream,
    sent::{SentFrame, SentFrames},
};
use crate::{quic::frame::Frame, time::Time};

/// Room a control frame needs: 1 type byte + two 8-byte varints, plus
/// slack. Below it no more control frames go into a packet.
pub const CONTROL_ROOM: usize = 24;

/// The send side of one endpoint.
///
/// Invariants: `active` holds each stream index at most once, exactly those
/// with `in_active` set, never a `waiting` one, in ascending order when
/// `in_stream_order`; `new_left` = Σ
/// `SendStream::new_left` over streams not `waiting`;
/// `blocked_streams` holds streams that owe a STREAM_DATA_BLOCKED;
/// `blocked_since` is set while the sender has new data and congestion
/// window but no flow-control credit.
#[derive(Debug)]
pub struct SendStreams {
    kind: StreamKind,
    streams: Vec<SendStream>,
    /// Streams whose data may not go before the peer asks for it (a
    /// response before its request arrived).
    waiting: Vec<bool>,
    /// The line of streams that may have something to send.
    active: VecDeque<usize>,
    /// Serve streams by stream ID, the lowest with data and credit first,
    /// instead of round robin
    /// ([`crate::scenario::TransportOptions::streams_in_order`]).
    in_stream_order: bool,
    in_active: Vec<bool>,
    conn: SenderFlowControl<ConnSubject>,
    blocked_streams: BTreeSet<usize>,
    new_left: u64,
    blocked_since: Option<Time>,
    /// Report *_BLOCKED once the application's writes reach a limit
    /// ([`crate::scenario::TransportOptions::blocked_on_write`]).
    blocked_on_write: bool,
}

impl SendStreams {
    /// Streams of `kind` carrying `bytes[i]` bytes each, under the peer's
    /// initial limits, each holding at most `send_buffer` bytes
    /// ([`SendStream::new`]). With `on_request` every stream waits until
    /// [`SendStreams::open`] (the peer's request arrived); otherwise all
    /// may send at once. With `blocked_on_write`, *_BLOCKED is reported
    /// when the application's writes reach a limit rather than when the
    /// credit is all sent.
    #[must_use]
    pub fn new(
        kind: StreamKind,
        bytes: &[u64],
        on_request: bool,
        initial_stream_window: u64,
        initial_connection_window: u64,
        send_buffer: Option<u64>,
        blocked_on_write: bool,
    ) -> Self {
        let streams: Vec<SendStream> = bytes
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                SendStream::new(kind.id(i as u64), n, initial_stream_window, send_buffer)
            })
            .collect();
        Self {
            kind,
            active: if on_request {
                VecDeque::new()
            } else {
                (0..streams.len()).collect()
            },
            in_active: vec![!on_request; streams.len()],
            waiting: vec![on_request; streams.len()],
            streams,
            conn: SenderFlowControl::new(ConnSubject, initial_connection_window),
            blocked_streams: BTreeSet::new(),
            new_left: if on_request { 0 } else { bytes.iter().sum() },
            blocked_since: None,
            blocked_on_write,
            in_stream_order: false,
        }
    }

    /// Serves streams by stream ID (`true`: the lowest with data and credit
    /// fills a packet first, as neqo 0.30 serves streams that have no
    /// fairness set, its default) instead of round robin (`false`, the
    /// default).
    #[must_use]
    pub fn in_stream_order(mut self, on: bool) -> Self {
        self.in_stream_order = on;
        self.active.make_contiguous().sort_unstable();
        self
    }

    /// Puts stream `i` (not in the line) back in line: at the back (round
    /// robin) or at its place by stream ID.
    fn enqueue(&mut self, i: usize) {
        if self.in_stream_order {
            let at = self.active.partition_point(|&j| j < i);
            self.active.insert(at, i);
        } else {
            self.active.push_back(i);
        }
    }

    /// Stream `index` may send: the peer asked for it. Nothing for a stream
    /// that does not exist or is open already.
    pub fn open(&mut self, index: u64) {
        let Some(i) = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.streams.len())
        else {
            return;
        };
        if std::mem::take(&mut self.waiting[i]) {
            self.new_left += self.streams[i].new_left();
            self.activate(i);
        }
    }

    /// The streams, in index order.
    #[must_use]
    pub fn streams(&self) -> &[SendStream] {
        &self.streams
    }

    /// The peer's current MAX_DATA.
    #[must_use]
    pub fn conn_limit(&self) -> u64 {
        self.conn.limit()
    }

    fn index(&self, id: u64) -> Option<usize> {
        let i = usize::try_from(self.kind.index(id)?).ok()?;
        (i < self.streams.len()).then_some(i)
    }

    fn activate(&mut self, i: usize) {
        if !self.in_active[i] && !self.waiting[i] {
            self.in_active[i] = true;
            self.enqueue(i);
        }
    }

    /// True if some stream could put bytes in a packet now.
    #[must_use]
    pub fn has_sendable_data(&self) -> bool {
        let conn_avail = self.conn.available();
        self.active
            .iter()
            .any(|&i| self.streams[i].sendable(conn_avail))
    }

    /// True when a DATA_BLOCKED or STREAM_DATA_BLOCKED is owed.
    #[must_use]
    pub fn blocked_due(&self) -> bool {
        self.conn.blocked_needed().is_some() || !self.blocked_streams.is_empty()
    }

    // ---------------------------------------------------------------
    // Frames from the peer.

    /// A MAX_DATA.
    pub fn on_max_data(&mut self, maximum: u64) {
        self.conn.update(maximum);
    }

    /// A MAX_STREAM_DATA: a stream it unblocks gets back in line.
    pub fn on_max_stream_data(&mut self, id: u64, maximum: u64) {
        if let Some(i) = self.index(id)
            && self.streams[i].fc.update(maximum)
        {
            self.blocked_streams.remove(&i);
            self.activate(i);
        }
    }

    // ---------------------------------------------------------------
    // Filling a packet.

    /// Adds the *_BLOCKED frames owed while `space` allows. Returns how
    /// many it added.
    pub fn write_blocked(
        &mut self,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) -> u64 {
        let mut added = 0;
        // DATA_BLOCKED is not charged to `space` (unlike every other
        // frame here).
        if *space >= CONTROL_ROOM
            && let Some(limit) = self.conn.blocked_needed()
        {
            self.conn.blocked_sent();
            frames.push(Frame::DataBlocked { limit });
            sent.push(SentFrame::DataBlocked(limit));
            added += 1;
        }
        while *space >= CONTROL_ROOM {
            let Some(i) = self.blocked_streams.pop_first() else {
                break;
            };
            let s = &mut self.streams[i];
            if let Some(limit) = s.fc.blocked_needed() {
                s.fc.blocked_sent();
                let f = Frame::StreamDataBlocked {
                    stream_id: s.id,
                    limit,
                };
                *space = space.saturating_sub(f.encoded_len());
                frames.push(f);
                sent.push(SentFrame::StreamDataBlocked { id: s.id, limit });
                added += 1;
            }
        }
        added
    }

    /// Fills `space` with STREAM frames, stream after stream in line
    /// (round robin or by stream ID): retransmissions of a stream first,
    /// then its new data within stream and connection credit. With `verify` the frames carry their payload. Returns the
    /// bytes sent again.
    pub fn write_data(
        &mut self,
        verify: bool,
        space: &mut usize,
        frames: &mut Vec<Frame>,
        sent: &mut SentFrames,
    ) -> u64 {
        // Smallest useful STREAM frame; the header is at most
        // 1 (type) + 8 (id) + 8 (offset) + 2 (length) bytes.
        const HEADER: usize = 1 + 8 + 8 + 2;
        const MIN_FRAME: usize = HEADER + 13;
        let mut retransmitted = 0;
        let mut tried = 0;
        // By stream ID, streams that cannot send now (connection credit,
        // send buffer) leave the line for this pass, or the first of them
        // would be tried again and again while the others wait.
        let mut passed_over = Vec::new();
        let frames_before = frames.len();
        while *space > MIN_FRAME && tried < self.active.len() {
            let Some(i) = self.active.pop_front() else {
                break;
            };
            let conn_avail = self.conn.available();
            let s = &mut self.streams[i];
            let Some(chunk) = s.next_chunk((*space - HEADER) as u64, conn_avail) else {
                if s.stream_blocked() {
                    if s.fc.blocked() {
                        self.blocked_streams.insert(i);
                    }
                    self.in_active[i] = false;
                } else if s.new_left() > 0 {
                    // Connection-blocked (or held by its send buffer):
                    // stays in line for MAX_DATA.
                    if self.in_stream_order {
                        passed_over.push(i);
                    } else {
                        self.active.push_back(i);
                        tried += 1;
                    }
                } else {
                    self.in_active[i] = false;
                }
                continue;
            };
            tried = 0;
            if chunk.retransmission {
                retransmitted += chunk.len;
            } else {
                self.conn.consume(chunk.len);
                self.new_left -= chunk.len;
            }
            // The application's writes reached the stream limit, and the
            // connection credit left let them (else the connection is the
            // one blocked, below).
            if self.blocked_on_write
                && s.written_to_limit()
                && s.fc.available() <= self.conn.available()
                && s.fc.blocked_by_writes()
            {
                self.blocked_streams.insert(i);
            }
            let data = verify.then(|| pattern(s.id, chunk.offset, chunk.len));
            let f = Frame::Stream {
                stream_id: s.id,
                offset: chunk.offset,
                length: chunk.len,
                fin: chunk.fin,
                data,
            };
            *space = space.saturating_sub(f.encoded_len());
            frames.push(f);
            sent.push(SentFrame::Stream {
                id: s.id,
                offset: chunk.offset,
                len: chunk.len,
                fin: chunk.fin,
            });
            // A stream with more to send goes back in line: to the back
            // (round robin) or first again (by stream ID).
            if s.has_retransmit() || (s.new_left() > 0 && s.fc.available() > 0) {
                self.enqueue(i);
            } else {
                if s.stream_blocked() && s.fc.blocked() {
                    self.blocked_streams.insert(i);
                }
                self.in_active[i] = false;
            }
        }
        for i in passed_over {
            self.enqueue(i);
        }
        if self.conn.available() == 0 && self.new_left > 0 {
            self.conn.blocked();
        } else if self.blocked_on_write && frames_before < frames.len() {
            self.conn_blocked_by_writes();
        }
        retransmitted
    }

    /// After STREAM frames were sent: the connection is reported blocked
    /// when the application's writes, within each stream's limit and
    /// send buffer, reach the connection limit and it has more to write
    /// (neqo counts connection credit as the application writes).
    fn conn_blocked_by_writes(&mut self) {
        let available = self.conn.available();
        if self.new_left <= available {
            return;
        }
        let mut written_unsent = 0u64;
        for (i, s) in self.streams.iter().enumerate() {
            if !self.waiting[i] {
                written_unsent = written_unsent.saturating_add(s.written_end() - s.fc.used());
                if written_unsent >= available {
                    self.conn.blocked_by_writes();
                    return;
                }
            }
        }
    }

    // ---------------------------------------------------------------
    // Loss recovery.

    /// Stream bytes `[offset, offset + len)` of stream `id` were
    /// acknowledged.
    pub fn on_acked(&mut self, id: u64, offset: u64, len: u64) {
        if let Some(i) = self.index(id) {
            self.streams[i].on_acked(offset, len);
        }
    }

    /// Stream bytes `[offset, offset + len)` of stream `id` were lost (or
    /// are probed again): they go back in line.
    pub fn on_lost(&mut self, id: u64, offset: u64, len: u64) {
        if let Some(i) = self.index(id) {
            self.streams[i].on_lost(offset, len);
            self.activate(i);
        }
    }

    /// A DATA_BLOCKED (`stream` = `None`) or STREAM_DATA_BLOCKED with
    /// `limit` was lost.
    pub fn on_blocked_lost(&mut self, stream: Option<u64>, limit: u64) {
        match stream {
            None => self.conn.blocked_lost(limit),
            Some(id) => {
                if let Some(i) = self.index(id) {
                    self.streams[i].fc.blocked_lost(limit);
                    self.blocked_streams.insert(i);
                }
            }
        }
    }

    // ---------------------------------------------------------------
    // Time blocked by flow control.

    /// Notes whether flow control is what holds the sender back at `now`
    /// (`cwnd_open`: congestion control would let a packet go). Returns
    /// the length of a blocked spell that ends now.
    pub fn track_blocked(&mut self, now: Time, cwnd_open: bool) -> Option<Duration> {
        let blocked = self.new_left > 0 && cwnd_open && !self.has_sendable_data();
        match (blocked, self.blocked_since) {
            (true, None) => {
                self.blocked_since = Some(now);
                None
            }
            (false, Some(since)) => {
                self.blocked_since = None;
                Some(now - since)
            }
            _ => None,
        }
    }

    /// True while flow control holds the sender back (as of the last
    /// [`SendStreams::track_blocked`]).
    #[must_use]
    pub fn blocked(&self) -> bool {
        self.blocked_since.is_some()
    }

    /// Ends the blocked-time accounting at the end of a run: the length of
    /// the spell still open.
    pub fn finish(&mut self, now: Time) -> Option<Duration> {
        self.blocked_since.take().map(|since| now - since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One packet's worth of STREAM frames: the *_BLOCKED frames owed
    /// after it, as `(connection, streams)` limits.
    fn send_one(s: &mut SendStreams) -> (Option<u64>, Vec<u64>) {
        let (mut frames, mut sent) = (Vec::new(), SentFrames::new());
        s.write_data(false, &mut 1200, &mut frames, &mut sent);
        assert!(!frames.is_empty(), "something was sent");
        let (mut blocked, mut blocked_sent) = (Vec::new(), SentFrames::new());
        s.write_blocked(&mut 1200, &mut blocked, &mut blocked_sent);
        let mut conn = None;
        let mut streams = Vec::new();
        for f in blocked {
            match f {
                Frame::DataBlocked { limit } => conn = Some(limit),
                Frame::StreamDataBlocked { limit, .. } => streams.push(limit),
                f => panic!("unexpected {f:?}"),
            }
        }
        (conn, streams)
    }

    /// 100 kB to send on a 10 kB stream limit (connection credit to
    /// spare): reported blocked with the first packet when credit is
    /// counted as the application writes, only with the last one
    /// otherwise; once per limit either way.
    #[test]
    fn a_stream_is_reported_blocked_when_writes_reach_its_limit() {
        for on_write in [false, true] {
            let mut s = SendStreams::new(
                StreamKind::Request,
                &[100_000],
                false,
                10_000,
                1 << 20,
                None,
                on_write,
            );
            let mut reports = Vec::new();
            for packet in 0.. {
                if s.streams()[0].fc.available() == 0 {
                    break;
                }
                let (conn, streams) = send_one(&mut s);
                assert_eq!(conn, None);
                reports.extend(streams.iter().map(|&l| (packet, l)));
            }
            // 1,181 bytes per packet (1,200 less a 19-byte STREAM
            // header): the 9th packet sends the last of the credit.
            let want = if on_write { 0 } else { 8 };
            assert_eq!(reports, [(want, 10_000)], "on_write {on_write}");
            // A raise: the next limit is reported once too.
            s.on_max_stream_data(0, 20_000);
            let (_, streams) = send_one(&mut s);
            assert_eq!(streams, if on_write { vec![20_000] } else { vec![] });
        }
    }

    /// The connection limit binds first: the connection is reported
    /// blocked as the writes reach it, and the stream is not (its own
    /// limit is not what stops the application).
    #[test]
    fn the_connection_is_reported_when_its_limit_stops_the_writes() {
        let mut s = SendStreams::new(
            StreamKind::Request,
            &[100_000],
            false,
            50_000,
            5_000,
            None,
            true,
        );
        assert_eq!(send_one(&mut s), (Some(5_000), vec![]));
        assert_eq!(send_one(&mut s), (None, vec![]), "once per limit");
        // A send buffer smaller than both limits stops the writes first:
        // nothing is owed.
        let mut s = SendStreams::new(
            StreamKind::Request,
            &[100_000],
            false,
            50_000,
            60_000,
            Some(3_000),
            true,
        );
        assert_eq!(send_one(&mut s), (None, vec![]));
    }

    /// The stream IDs of the STREAM frames in the next `packets` packets.
    fn ids_sent(s: &mut SendStreams, packets: usize) -> Vec<u64> {
        let mut ids = Vec::new();
        for _ in 0..packets {
            let (mut frames, mut sent) = (Vec::new(), SentFrames::new());
            s.write_data(false, &mut 1200, &mut frames, &mut sent);
            ids.extend(frames.iter().filter_map(|f| match f {
                Frame::Stream { stream_id, .. } => Some(*stream_id),
                _ => None,
            }));
        }
        ids
    }

    /// Three streams with 3 kB each: round robin takes a packet from each
    /// in turn; by stream ID the lowest goes first until its data, or its
    /// credit, runs out, and the next one fills the rest of that packet.
    #[test]
    fn streams_fill_packets_round_robin_or_by_stream_id() {
        let kind = StreamKind::Request;
        let new = || SendStreams::new(kind, &[3_000; 3], false, 1 << 20, 1 << 20, None, false);
        let (a, b, c) = (kind.id(0), kind.id(1), kind.id(2));
        assert_eq!(ids_sent(&mut new(), 3), [a, b, c]);
        // 1,181 bytes of data per packet: 3,000 bytes take 2.5 packets,
        // and the next stream starts in the third.
        let mut in_order = new().in_stream_order(true);
        assert_eq!(ids_sent(&mut in_order, 3), [a, a, a, b]);
        assert_eq!(ids_sent(&mut in_order, 5), [b, b, b, c, c, c]);
        // A stream held by its limit is passed over, and served again,
        // first, once the limit rises.
        let mut held = SendStreams::new(kind, &[3_000; 2], false, 1_000, 1 << 20, None, false)
            .in_stream_order(true);
        assert_eq!(ids_sent(&mut held, 1), [a, b]);
        held.on_max_stream_data(0, 3_000);
        assert_eq!(ids_sent(&mut held, 1), [a]);
        // A stream its send buffer holds (nothing acknowledged yet) is
        // passed over too: the next one fills the packets meanwhile.
        let mut buffered = SendStreams::new(
            kind,
            &[3_000; 2],
            false,
            1 << 20,
            1 << 20,
            Some(1_000),
            false,
        )
        .in_stream_order(true);
        assert_eq!(ids_sent(&mut buffered, 2), [a, b, b]);
    }
}
