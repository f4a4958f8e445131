//! Which transport a run simulates ([`TransportChoice`]): the simulator's
//! own ([`Preset::Default`]) or its model of neqo ([`Preset::Neqo`]), with
//! single settings overridden from the command line.

use std::time::Duration;

use neqo_fc_sim::{
    quic::{AppLimit, Pacing},
    scenario::TransportOptions,
};

/// A named set of transport settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Preset {
    /// The simulator's own: 1,500-byte datagrams, an ACK every 2nd packet
    /// (≤ 25 ms), RFC 9002 pacing (1.25, 2 in slow start, bursts of 10),
    /// no send-buffer limit.
    #[default]
    Default,
    /// neqo 0.30.1 as its test-fixture simulator runs it, traced there:
    /// 1,232-byte datagrams and 19 bytes of header and tag, ACK_FREQUENCY
    /// (an ACK every 2nd packet until the sender's first congestion
    /// event, then one per cwnd/20), pacing at 2 × cwnd/srtt in bursts of
    /// 2 (ACK-only packets spending credit) that does not wait below
    /// 1 ms, *_BLOCKED once the writes reach a limit, neqo's app-limited
    /// rule, ACK frames only when due, 10 MiB send buffer per stream,
    /// streams served by stream ID (`TransportOptions::neqo`).
    /// `neqo-traced` is its former name.
    #[value(alias = "neqo-traced")]
    Neqo,
    /// The first model of neqo, fitted to the real runs before neqo was
    /// traced: 1,252-byte datagrams, an ACK every 10 packets, the same
    /// pacing and send buffer (`TransportOptions::neqo_fitted`). Kept to
    /// compare with.
    NeqoFitted,
}

impl Preset {
    /// A model of neqo (its pacing, its send buffer).
    #[must_use]
    pub const fn is_neqo(self) -> bool {
        matches!(self, Self::Neqo | Self::NeqoFitted)
    }
}

/// When a sender reports *_BLOCKED (`TransportOptions::blocked_on_write`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BlockedArg {
    /// Once the credit is all sent (RFC 9000 §4.1's reading).
    OnSend,
    /// Once the application's writes reach the limit, with the next
    /// packet (neqo: it counts credit as the application writes).
    OnWrite,
}

/// When a packet carries an ACK frame (`TransportOptions::acks_when_due`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AcksArg {
    /// Every packet acknowledges whatever arrived since the last ACK.
    Any,
    /// Only when an acknowledgement is due (neqo): ACK-only packets are
    /// never acknowledged on their own.
    Due,
}

/// The order a sender's streams fill packets in
/// (`TransportOptions::streams_in_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SendOrderArg {
    /// Stream after stream, each in turn (the `default` model).
    RoundRobin,
    /// By stream ID: the lowest with data and credit first (neqo 0.30
    /// for streams without fairness, its default; the `neqo` model).
    StreamId,
}

/// When the client opens its request streams' receive sides
/// (`TransportOptions::open_requests_at_request`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OpenRequestsArg {
    /// Each at its response's first frame, as a stream the peer opens
    /// (every model; the real-neqo harness's unidirectional streams).
    AtFirstFrame,
    /// All as the requests go out, as neqo's `stream_create` does: their
    /// seeds travel with the requests (the harness's `--requests`).
    AtRequest,
}

/// Which packets count as using the congestion window (`AppLimit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AppLimitArg {
    /// Each packet by itself: bytes in flight with it reach half the
    /// window.
    PerPacket,
    /// neqo 0.30: a packet sent with half the window in flight (slow
    /// start; two datagrams short of it after) makes every earlier one
    /// count, and an ACK grows the window by all it covers.
    Neqo,
}

impl AppLimitArg {
    /// The rule it names.
    #[must_use]
    pub const fn rule(self) -> AppLimit {
        match self {
            Self::PerPacket => AppLimit::PerPacket,
            Self::Neqo => AppLimit::Neqo,
        }
    }
}

/// How a sender paces, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PacingArg {
    /// RFC 9002: gain 1.25 (2 in slow start), bursts of 10.
    Rfc9002,
    /// neqo 0.30.1: gain 2, bursts of 2, control packets paced, and
    /// ACK-only packets spend credit (the pacing debt of a receive-mostly
    /// endpoint).
    Neqo,
    /// neqo with the neqo integration's pacing patch: ACK-only packets
    /// spend no credit.
    NeqoFixed,
}

impl PacingArg {
    /// The pacing it names.
    #[must_use]
    pub const fn pacing(self) -> Pacing {
        match self {
            Self::Rfc9002 => Pacing::RFC9002,
            Self::Neqo => Pacing::NEQO,
            Self::NeqoFixed => Pacing::NEQO_FIXED,
        }
    }
}

/// Whether a transport uses ECN, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EcnArg {
    /// Send ECT(0), report ECN counts, react to CE (only a CoDel queue
    /// marks).
    On,
    /// Not-ECT: a CoDel queue drops instead of marking.
    Off,
}

/// A preset plus overrides. `None` = the preset's value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransportChoice {
    /// The base settings.
    pub preset: Preset,
    /// Largest UDP payload (1200..=65527).
    pub datagram_size: Option<u32>,
    /// ACK every this many ack-eliciting packets.
    pub ack_ratio: Option<u32>,
    /// `max_ack_delay`.
    pub max_ack_delay: Option<Duration>,
    /// Pacing gain and burst.
    pub pacing: Option<PacingArg>,
    /// Send buffer per stream; `Some(None)` = no limit.
    pub send_buffer: Option<Option<u64>>,
    /// ECN on or off.
    pub ecn: Option<EcnArg>,
    /// When *_BLOCKED is reported.
    pub blocked: Option<BlockedArg>,
    /// Which packets grow the congestion window.
    pub app_limit: Option<AppLimitArg>,
    /// When packets carry ACK frames.
    pub acks: Option<AcksArg>,
    /// In which order streams fill packets.
    pub send_order: Option<SendOrderArg>,
    /// When the client opens its request streams' receive sides.
    pub open_requests: Option<OpenRequestsArg>,
}

impl TransportChoice {
    /// The preset alone.
    #[must_use]
    pub fn preset(preset: Preset) -> Self {
        Self {
            preset,
            ..Self::default()
        }
    }

    /// The settings for a path of round-trip time `rtt`.
    #[must_use]
    pub fn options(&self, rtt: Duration) -> TransportOptions {
        let mut o = match self.preset {
            Preset::Default => TransportOptions::DEFAULT,
            Preset::Neqo => TransportOptions::neqo(rtt),
            Preset::NeqoFitted => TransportOptions::neqo_fitted(rtt),
        };
        o.max_datagram_size = self.datagram_size.unwrap_or(o.max_datagram_size);
        // A fixed ACK rate asked for: no ACK_FREQUENCY changes it.
        if let Some(v) = self.ack_ratio {
            o.ack_ratio = v;
            o.ack_frequency = None;
        }
        if let Some(v) = self.max_ack_delay {
            o.max_ack_delay = v;
            o.ack_frequency = None;
        }
        if let Some(v) = self.pacing {
            // The preset's timer granularity stays.
            o.pacing = v.pacing().with_granularity(o.pacing.granularity());
        }
        o.send_buffer = self.send_buffer.unwrap_or(o.send_buffer);
        o.ecn = self.ecn.map_or(o.ecn, |v| v == EcnArg::On);
        if let Some(v) = self.blocked {
            o.blocked_on_write = v == BlockedArg::OnWrite;
        }
        o.app_limit = self.app_limit.map_or(o.app_limit, AppLimitArg::rule);
        o.acks_when_due = self.acks.map_or(o.acks_when_due, |v| v == AcksArg::Due);
        if let Some(v) = self.send_order {
            o.streams_in_order = v == SendOrderArg::StreamId;
        }
        if let Some(v) = self.open_requests {
            o.open_requests_at_request = v == OpenRequestsArg::AtRequest;
        }
        o
    }

    /// `default`, `neqo`, or the preset with what was overridden:
    /// `neqo,pacing=rfc9002,send-buffer=none`.
    #[must_use]
    pub fn name(&self) -> String {
        let send_buffer = self
            .send_buffer
            .map(|b| b.map_or_else(|| "none".to_owned(), |b| b.to_string()));
        let delay = self.max_ack_delay.map(|d| format!("{d:?}"));
        let overrides = [
            ("datagram-size", self.datagram_size.map(|v| v.to_string())),
            ("ack-ratio", self.ack_ratio.map(|v| v.to_string())),
            ("max-ack-delay", delay),
            ("pacing", self.pacing.map(value_name)),
            ("send-buffer", send_buffer),
            ("ecn", self.ecn.map(value_name)),
            ("blocked", self.blocked.map(value_name)),
            ("app-limit", self.app_limit.map(value_name)),
            ("acks", self.acks.map(value_name)),
            ("send-order", self.send_order.map(value_name)),
            ("open-requests", self.open_requests.map(value_name)),
        ];
        let mut s = value_name(self.preset);
        for (key, value) in overrides {
            if let Some(v) = value {
                s += &format!(",{key}={v}");
            }
        }
        s
    }
}

/// The command-line name of a value (`neqo-fitted`, `on-send`).
fn value_name(v: impl clap::ValueEnum) -> String {
    v.to_possible_value()
        .map_or_else(String::new, |p| p.get_name().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_and_overrides() {
        let rtt = Duration::from_millis(50);
        assert_eq!(
            TransportChoice::default().options(rtt),
            TransportOptions::DEFAULT
        );
        let neqo = TransportChoice::preset(Preset::NeqoFitted);
        let o = neqo.options(rtt);
        assert_eq!((o.max_datagram_size, o.ack_ratio), (1252, 10));
        assert_eq!(o.max_ack_delay, Duration::from_micros(2500));
        assert_eq!(o.send_buffer, Some(10 << 20));
        assert_eq!(neqo.name(), "neqo-fitted");
        let mixed = TransportChoice {
            pacing: Some(PacingArg::Rfc9002),
            send_buffer: Some(None),
            ..neqo
        };
        let o = mixed.options(rtt);
        assert_eq!((o.pacing, o.send_buffer), (Pacing::RFC9002, None));
        assert_eq!(mixed.name(), "neqo-fitted,pacing=rfc9002,send-buffer=none");
    }

    #[test]
    fn the_traced_model_and_its_overrides() {
        let rtt = Duration::from_millis(50);
        let traced = TransportChoice::preset(Preset::Neqo);
        let o = traced.options(rtt);
        assert_eq!((o.max_datagram_size, o.packet_overhead), (1232, 19));
        assert_eq!((o.ack_ratio, o.ack_frequency), (2, Some(200)));
        assert_eq!(o.pacing.granularity(), Duration::from_millis(1));
        assert_eq!(traced.name(), "neqo");
        assert!(Preset::Neqo.is_neqo() && !Preset::Default.is_neqo());
        // The pacing patch keeps the granularity.
        let fixed = TransportChoice {
            pacing: Some(PacingArg::NeqoFixed),
            ..traced
        };
        let o = fixed.options(rtt);
        assert!(!o.pacing.ack_only_debt());
        assert_eq!(o.pacing.granularity(), Duration::from_millis(1));
        // A fixed ACK rate turns ACK_FREQUENCY off.
        let every_4 = TransportChoice {
            ack_ratio: Some(4),
            ..traced
        };
        assert_eq!(every_4.options(rtt).ack_frequency, None);
        // The fitted model has none of these.
        let o = TransportChoice::preset(Preset::NeqoFitted).options(rtt);
        assert_eq!(
            (o.ack_frequency, o.pacing.granularity()),
            (None, Duration::ZERO)
        );
        assert_eq!(
            (o.blocked_on_write, o.app_limit),
            (false, AppLimit::PerPacket)
        );
        assert!(!o.acks_when_due);
        let o = traced.options(rtt);
        assert_eq!((o.blocked_on_write, o.app_limit), (true, AppLimit::Neqo));
        assert!(o.acks_when_due);
        let any = TransportChoice {
            acks: Some(AcksArg::Any),
            ..traced
        };
        assert!(!any.options(rtt).acks_when_due);
        assert_eq!(any.name(), "neqo,acks=any");
        // neqo serves streams by stream ID; the other models round robin.
        assert!(traced.options(rtt).streams_in_order);
        assert!(!TransportChoice::default().options(rtt).streams_in_order);
        let fair = TransportChoice {
            send_order: Some(SendOrderArg::RoundRobin),
            ..traced
        };
        assert!(!fair.options(rtt).streams_in_order);
        assert_eq!(fair.name(), "neqo,send-order=round-robin");
        // Every model opens request streams at the first frame unless told.
        assert!(!traced.options(rtt).open_requests_at_request);
        assert!(
            !TransportChoice::default()
                .options(rtt)
                .open_requests_at_request
        );
        let early = TransportChoice {
            open_requests: Some(OpenRequestsArg::AtRequest),
            ..traced
        };
        assert!(early.options(rtt).open_requests_at_request);
        assert_eq!(early.name(), "neqo,open-requests=at-request");
        // Each traced behaviour can be taken out alone, and named.
        let without = TransportChoice {
            blocked: Some(BlockedArg::OnSend),
            app_limit: Some(AppLimitArg::PerPacket),
            ..traced
        };
        let o = without.options(rtt);
        assert_eq!(
            (o.blocked_on_write, o.app_limit),
            (false, AppLimit::PerPacket)
        );
        assert_eq!(without.name(), "neqo,blocked=on-send,app-limit=per-packet");
        let o = TransportChoice {
            blocked: Some(BlockedArg::OnWrite),
            app_limit: Some(AppLimitArg::Neqo),
            ..TransportChoice::default()
        }
        .options(rtt);
        assert_eq!((o.blocked_on_write, o.app_limit), (true, AppLimit::Neqo));
    }
}
