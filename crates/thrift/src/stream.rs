//! The byte stream a [`Connection`](crate::Connection) runs over.
//!
//! TCP is built in ([`Connection::connect`](crate::Connection::connect)); any other
//! already-connected stream (TLS, a SASL-wrapped stream, an in-memory pipe in tests)
//! can be handed to [`Connection::from_stream`](crate::Connection::from_stream) by
//! implementing [`ConnectionStream`].

use std::fmt::Debug;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// An already-connected, bidirectional byte stream carrying Thrift messages.
pub trait ConnectionStream: AsyncRead + AsyncWrite + Unpin + Send + Sync + Debug + 'static {
    /// Whether the peer has closed the stream or sent bytes nobody asked for, checked
    /// without blocking (an idle connection must have nothing to read). The default
    /// cannot tell and answers `false`; streams over a socket should look at it.
    fn closed_or_unsolicited(&self) -> bool {
        false
    }
}

impl ConnectionStream for TcpStream {
    fn closed_or_unsolicited(&self) -> bool {
        let mut probe = [0u8; 1];
        match self.try_read(&mut probe) {
            // Closed by the peer (0), or bytes nobody asked for: either way, unusable.
            Ok(_) => true,
            Err(e) => e.kind() != std::io::ErrorKind::WouldBlock,
        }
    }
}

impl ConnectionStream for tokio::io::DuplexStream {}

/// A stream chosen at run time (the secured streams: TLS, SASL, HTTP).
impl ConnectionStream for Box<dyn ConnectionStream> {
    fn closed_or_unsolicited(&self) -> bool {
        (**self).closed_or_unsolicited()
    }
}
