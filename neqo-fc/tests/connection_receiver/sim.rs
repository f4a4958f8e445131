//! A small closed loop: a sender that spends every byte of credit over an
//! idealised path, readers at fixed rates, 1 ms ticks.

use std::collections::VecDeque;

use neqo_fc::{
    ChangeReason, Config, Connection, ConnectionReceiver, ExcessTuner, Rtt, SenderFlowControl,
    StreamId, Subject, UpdateFrame, WindowChange,
};

use super::{open, receiver, rtt, sid};
use crate::common::{self, at, fire_timer};

/// One stream as the sender and the reader see it.
pub struct Flow {
    pub id: StreamId,
    credit: SenderFlowControl<StreamId>,
    /// Bytes the application reads per tick (0: stopped).
    pub read_per_tick: u64,
    /// The application wakes every this many ticks and reads up to
    /// `read_per_tick` for each (1: every tick).
    pub wake_every: u64,
    /// Bytes read in the current tick window, for rate checks.
    read_log: Vec<u64>,
    /// MAX_STREAM_DATA frames the receiver wrote, by tick.
    pub update_ticks: Vec<u64>,
    /// The limits those frames carried, in order.
    pub update_limits: Vec<u64>,
    /// The sender has data for this stream.
    pub sending: bool,
}

/// A connection with several streams over an idealised path: the sender
/// always has data and spends every byte of credit (stream and
/// connection) at `link_per_tick`, round-robin; data and MAX_* frames take
/// RTT / 2; readers retire at fixed rates; once per 1 ms tick the receiver
/// fires the rebalancing timer if it is due and writes every update
/// `next_update` gives.
pub struct Loop {
    pub rx: ConnectionReceiver<ExcessTuner>,
    pub rtt: Option<Rtt>,
    one_way: u64,
    tick: u64,
    pub link_per_tick: u64,
    pub flows: Vec<Flow>,
    conn_credit: SenderFlowControl<Connection>,
    data: VecDeque<(u64, usize, u64)>,
    frames: VecDeque<(u64, UpdateFrame)>,
    pub changes: Vec<(u64, WindowChange)>,
    /// Ticks where a stream had credit but the connection had none left.
    pub connection_blocked: Vec<(u64, StreamId)>,
    /// Connection floor violations seen after a `next_update` call.
    floor_violations: Vec<String>,
    pub budget_violations: u64,
    /// The estimate before and after each tick's `next_update` calls.
    pub estimates: Vec<(u64, u64)>,
    /// Every flow's window at the end of each tick.
    pub windows: Vec<Vec<u64>>,
    /// Most bytes received and not read, all streams.
    pub max_buffered: u64,
    /// The sender reports STREAM_DATA_BLOCKED (at the limit it knows) when
    /// a stream's credit runs out, once per limit; it arrives RTT / 2 later.
    pub send_blocked: bool,
    blocked: VecDeque<(u64, StreamId, u64)>,
    /// Ticks at which the rebalancing timer fired (`on_timeout`).
    pub passes: Vec<u64>,
}

impl Loop {
    pub fn new(config: Config, rtt_ms: u64, link_per_tick: u64, readers: &[u64]) -> Self {
        let mut rx = receiver(config);
        let flows = readers
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let id = sid(i as u64);
                open(&mut rx, id, at(0));
                Flow {
                    id,
                    credit: SenderFlowControl::new(id, config.initial_stream_window),
                    read_per_tick: r,
                    wake_every: 1,
                    read_log: Vec::new(),
                    update_ticks: Vec::new(),
                    update_limits: Vec::new(),
                    sending: true,
                }
            })
            .collect();
        Self {
            conn_credit: SenderFlowControl::new(Connection, config.initial_connection_window),
            rx,
            rtt: rtt(rtt_ms),
            one_way: rtt_ms / 2,
            tick: 0,
            link_per_tick,
            flows,
            data: VecDeque::new(),
            frames: VecDeque::new(),
            changes: Vec::new(),
            connection_blocked: Vec::new(),
            floor_violations: Vec::new(),
            budget_violations: 0,
            estimates: Vec::new(),
            windows: Vec::new(),
            max_buffered: 0,
            send_blocked: false,
            blocked: VecDeque::new(),
            passes: Vec::new(),
        }
    }

    fn now(&self) -> std::time::Instant {
        at(self.tick)
    }

    /// The last pass at or before `tick`, and the first one after it.
    pub fn passes_around(&self, tick: u64) -> (u64, u64) {
        let before = *self.passes.iter().rfind(|&&t| t <= tick).unwrap();
        let after = *self.passes.iter().find(|&&t| t > tick).unwrap();
        (before, after)
    }

    pub fn window(&self, i: usize) -> u64 {
        self.rx.stream(self.flows[i].id).unwrap().window()
    }

    pub fn limit(&self, i: usize) -> u64 {
        self.rx.stream(self.flows[i].id).unwrap().limit()
    }

    fn check_after_next_update(&mut self) {
        let rx = &self.rx;
        let largest = self
            .flows
            .iter()
            .map(|f| rx.stream(f.id).unwrap().window())
            .max()
            .unwrap();
        let w = rx.flow().connection().window();
        let need = rx.flow().config().connection_floor.of_ceil(largest);
        if w < need {
            self.floor_violations.push(format!(
                "t={} ms: connection window {w} < ⌈1.5 × {largest}⌉ = {need}",
                self.tick
            ));
        }
        if rx.flow().committed() > rx.flow().budget() {
            self.budget_violations += 1;
        }
    }

    /// Neither the connection floor nor the budget was broken after any
    /// `next_update` call.
    pub fn assert_no_violations(&self) {
        assert!(
            self.floor_violations.is_empty(),
            "{:?}",
            self.floor_violations
        );
        assert_eq!(self.budget_violations, 0);
    }

    /// One millisecond.
    pub fn step(&mut self) {
        let now = self.now();
        while self.data.front().is_some_and(|d| d.0 <= self.tick) {
            let (_, i, end) = self.data.pop_front().unwrap();
            self.rx.on_data(self.flows[i].id, end, false).unwrap();
        }
        self.max_buffered = self
            .max_buffered
            .max(self.rx.flow().connection().unretired());
        while self.frames.front().is_some_and(|f| f.0 <= self.tick) {
            let (_, u) = self.frames.pop_front().unwrap();
            match u {
                UpdateFrame::MaxData(limit) => self.conn_credit.update(limit),
                UpdateFrame::MaxStreamData { id, limit } => {
                    let f = self.flows.iter_mut().find(|f| f.id == id).unwrap();
                    f.credit.update(limit)
                }
                UpdateFrame::MaxStreams { .. } => panic!("no stream closes here: {u:?}"),
            };
        }
        while self.blocked.front().is_some_and(|b| b.0 <= self.tick) {
            let (_, id, limit) = self.blocked.pop_front().unwrap();
            let _ = self.rx.stream_data_blocked_received(id, limit);
        }
        for f in &mut self.flows {
            let s = self.rx.stream(f.id).unwrap();
            let n = if self.tick.is_multiple_of(f.wake_every) {
                let to = s
                    .consumed()
                    .min(s.retired() + f.read_per_tick * f.wake_every);
                self.rx.retire_to(f.id, to).unwrap()
            } else {
                0
            };
            f.read_log.push(n);
        }
        let estimate = self.rx.flow().estimate();
        if fire_timer(&mut self.rx, now, self.rtt) {
            self.passes.push(self.tick);
        }
        while let Some(u) = self.rx.next_update(now, self.rtt) {
            self.check_after_next_update();
            if let UpdateFrame::MaxStreamData { id, limit } = u {
                let f = self.flows.iter_mut().find(|f| f.id == id).unwrap();
                f.update_ticks.push(self.tick);
                f.update_limits.push(limit);
            }
            self.frames.push_back((self.tick + self.one_way, u));
        }
        self.check_after_next_update();
        self.estimates.push((estimate, self.rx.flow().estimate()));
        let mut link = self.link_per_tick;
        let n_flows = self.flows.len();
        for k in 0..n_flows {
            let i = (self.tick as usize + k) % n_flows;
            let f = &mut self.flows[i];
            if !f.sending {
                continue;
            }
            let can = f.credit.available();
            let n = can.min(self.conn_credit.available()).min(link);
            if can > 0 && self.conn_credit.available() == 0 {
                self.connection_blocked.push((self.tick, f.id));
            }
            if n == 0 {
                continue;
            }
            f.credit.consume(n);
            self.conn_credit.consume(n);
            link -= n;
            self.data
                .push_back((self.tick + self.one_way, i, f.credit.used()));
            if self.send_blocked && f.credit.blocked() {
                let limit = f.credit.limit();
                f.credit.blocked_sent();
                self.blocked
                    .push_back((self.tick + self.one_way, f.id, limit));
            }
        }
        for c in self.rx.drain_changes() {
            self.changes.push((self.tick, c));
        }
        let windows = (0..n_flows).map(|i| self.window(i)).collect();
        self.windows.push(windows);
        self.tick += 1;
    }

    pub fn run_until(&mut self, tick: u64) {
        while self.tick < tick {
            self.step();
        }
    }

    /// Bytes flow `i` read over ticks `[from, to)`.
    pub fn read(&self, i: usize, from: u64, to: u64) -> u64 {
        self.flows[i].read_log[from as usize..to as usize]
            .iter()
            .sum()
    }

    pub fn changes_of(&self, i: usize, reason: ChangeReason) -> Vec<(u64, WindowChange)> {
        let s = Subject::Stream(self.flows[i].id);
        self.changes
            .iter()
            .filter(|(_, c)| c.subject == s && c.reason == reason)
            .copied()
            .collect()
    }
}

/// 50 ms RTT, 100 MB/s link; the reader wants 20 MB/s: R × RTT = 1 MB.
pub const RTT_MS: u64 = 50;
pub const LINK: u64 = 100_000;
pub const READ: u64 = 20_000;

/// `n` streams that together read `READ` per tick, in equal parts.
pub fn equal_readers(n: u64) -> Loop {
    Loop::new(
        common::config_512k(),
        RTT_MS,
        LINK,
        &vec![READ / n; n as usize],
    )
}
