//! An in-memory writer the qlog streamer can own while the caller keeps a
//! handle to the bytes (the streamer takes a `Box<dyn Write + Send + Sync>`
//! and never gives it back).

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// A cloneable byte buffer; every clone appends to the same bytes.
///
/// Invariant: the bytes are exactly what was written, in order, across all
/// clones.
#[derive(Clone, Debug, Default)]
pub struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl SharedBuf {
    /// A copy of everything written so far.
    ///
    /// # Errors
    /// If a writer panicked while holding the buffer.
    pub fn bytes(&self) -> io::Result<Vec<u8>> {
        self.0
            .lock()
            .map(|b| b.clone())
            .map_err(|_| io::Error::other("qlog buffer poisoned"))
    }
}

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| io::Error::other("qlog buffer poisoned"))?
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_bytes() {
        let buf = SharedBuf::default();
        let mut w = buf.clone();
        w.write_all(b"ab").unwrap();
        buf.clone().write_all(b"c").unwrap();
        w.flush().unwrap();
        assert_eq!(buf.bytes().unwrap(), b"abc");
    }
}
