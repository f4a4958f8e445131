//! Two choices in the update rule where stacks differ: how a *_BLOCKED
//! from the peer is answered ([`BlockedResponse`]) and which intervals a
//! tuning step judges ([`TuningInterval`]). The defaults are neqo-fc's
//! guarded rule; the alternatives reproduce neqo 0.30's `fc.rs`, so a
//! stack (or a simulator) can run neqo's controller with this crate.

/// How a DATA_BLOCKED / STREAM_DATA_BLOCKED (RFC 9000 §19.12–13) makes an
/// update due.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockedResponse {
    /// The claim counts once the data received reaches the limit it names,
    /// and then only when the limit can grow by an eighth of the update
    /// threshold: a peer that sends *_BLOCKED in every packet gets
    /// updates no sooner than an honest one. Once the stack has written an
    /// update a whole threshold late (it rations its updates), claims no
    /// longer bring one forward at all
    /// ([`crate::ReceiverFlowControl::update_due`]).
    #[default]
    BorneOut,
    /// neqo 0.30 (`send_flowc_update`): if anything was retired since the
    /// limit was set, an update is due at once, whatever the data received;
    /// otherwise the frame changes nothing.
    AtOnce,
}

/// Which intervals a tuning step judges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TuningInterval {
    /// Only an interval in which at least a whole update quantum was read;
    /// shorter ones carry over. The tuner is shown the bytes that both
    /// arrived and were read in it.
    #[default]
    WholeQuantum,
    /// neqo 0.30 (`auto_tune` before every MAX_* frame): every update
    /// runs a step over the time since the previous one, however short,
    /// and the tuner is shown the bytes retired in it.
    EveryUpdate,
}
