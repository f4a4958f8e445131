//! A packet in flight between the endpoints.

use crate::{
    net::Ecn,
    quic::frame::{Frame, decode_frames},
};

/// A datagram carrying one short-header packet.
///
/// Invariant: `size` = the sender's per-packet overhead (short header and
/// AEAD tag, [`super::PACKET_OVERHEAD`] by default) + Σ frame encoded lengths
/// (+ padding); in verify mode `wire` holds exactly the encoded frames.
#[derive(Clone, Debug)]
pub struct Packet {
    /// Packet number.
    pub pn: u64,
    /// UDP payload size in bytes.
    pub size: u32,
    /// Frames (virtual STREAM payloads unless verifying).
    pub frames: Vec<Frame>,
    /// Encoded frames, in verify mode.
    pub wire: Option<Vec<u8>>,
    /// The ECN codepoint of its IP header: set by the sender, changed to
    /// CE by a marking queue on the way.
    pub ecn: Ecn,
}

impl Packet {
    /// Builds a packet from frames, computing its size from the codec plus
    /// `overhead` bytes of header and AEAD tag; in verify mode the frames
    /// are encoded to bytes and travel as bytes.
    #[must_use]
    pub fn new(pn: u64, frames: Vec<Frame>, overhead: usize, verify: bool) -> Self {
        let payload: usize = frames.iter().map(Frame::encoded_len).sum();
        let size = u32::try_from(overhead + payload).unwrap_or(u32::MAX);
        if verify {
            let mut wire = Vec::with_capacity(payload);
            for f in &frames {
                f.encode(&mut wire);
            }
            debug_assert_eq!(wire.len(), payload);
            Self {
                pn,
                size,
                frames: Vec::new(),
                wire: Some(wire),
                ecn: Ecn::NotEct,
            }
        } else {
            Self {
                pn,
                size,
                frames,
                wire: None,
                ecn: Ecn::NotEct,
            }
        }
    }

    /// The frames as the receiver sees them: decoded from `wire` when
    /// present.
    ///
    /// # Errors
    /// The codec's error for malformed bytes.
    pub fn take_frames(&mut self) -> Result<Vec<Frame>, crate::quic::varint::DecodeError> {
        match self.wire.take() {
            Some(bytes) => decode_frames(&bytes),
            None => Ok(std::mem::take(&mut self.frames)),
        }
    }
}

/// The deterministic content of byte `offset` of stream `id` in verify
/// mode: depends on both, so misplaced or cross-stream bytes are caught.
#[must_use]
pub fn pattern_byte(id: u64, offset: u64) -> u8 {
    let x = offset
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(id.wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    // The top byte of the mixed value: truncation intended.
    #[allow(clippy::cast_possible_truncation)]
    let b = (x >> 56) as u8;
    b
}

/// Fills `len` bytes of stream `id` from `offset` with the pattern.
#[must_use]
pub fn pattern(id: u64, offset: u64, len: u64) -> Vec<u8> {
    (offset..offset + len)
        .map(|o| pattern_byte(id, o))
        .collect()
}
