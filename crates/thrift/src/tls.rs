//! TLS connections as a [`ConnectionStream`]; the TLS settings and handshake are
//! `basalt-security`'s ([`TlsOptions`](crate::TlsOptions)), shared with the native
//! transport.

use std::task::{Context, Poll, Waker};

use basalt_security::TlsStream;
use tokio::net::TcpStream;

use crate::stream::ConnectionStream;

impl ConnectionStream for TlsStream<TcpStream> {
    /// Looks at the socket without reading: closed, or bytes nobody asked for (after a
    /// complete reply, that is an alert or garbage), make the connection unusable.
    fn closed_or_unsolicited(&self) -> bool {
        let mut probe = [0u8; 1];
        let mut buf = tokio::io::ReadBuf::new(&mut probe);
        let mut cx = Context::from_waker(Waker::noop());
        match self.get_ref().0.poll_peek(&mut cx, &mut buf) {
            Poll::Pending => false,
            Poll::Ready(Ok(_)) => true,
            Poll::Ready(Err(_)) => true,
        }
    }
}
