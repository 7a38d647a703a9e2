//! Thrift over HTTP and HTTPS (HBase's Thrift server with
//! `hbase.regionserver.thrift.http`), with hyper's HTTP/1.1 client connection.
//!
//! One call is one `POST` (`Content-Type: application/x-thrift`) whose body is the
//! encoded call and whose response body is the reply; the connection is kept alive
//! between calls. [`HttpStream`] presents this as a byte stream to the
//! [`Connection`](crate::Connection): what is written until a flush is the request
//! body; the flush sends it; reads return the response body. The reply-size limit is
//! the connection's (a declared `Content-Length` over it fails at once). With Kerberos,
//! each request carries a fresh SPNEGO token (`Authorization: Negotiate ...`), as HBase's
//! servlet authenticates every request.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{ready, Context, Poll};

use basalt_security::{spnego_header, KerberosOptions};
use bytes::{Buf, Bytes};
use http_body_util::Full;
use hyper::body::{Body, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderName, HeaderValue, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HOST, WWW_AUTHENTICATE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::task::JoinHandle;

use crate::stream::ConnectionStream;
use crate::SecureError;

/// Settings of Thrift over HTTP(S).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Request path. Default: `/`.
    pub path: String,
    /// More request headers (e.g. for a proxy in front of the gateway).
    pub headers: Vec<(String, String)>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions { path: "/".to_owned(), headers: Vec::new() }
    }
}

type ResponseFuture = Pin<Box<dyn Future<Output = hyper::Result<Response<Incoming>>> + Send>>;

enum State {
    /// Collecting the next request body.
    Idle,
    /// The request is on its way; waiting for the response head.
    Sending(ResponseFuture),
    /// Handing out the response body.
    Body { body: Incoming, chunk: Bytes },
}

struct Inner {
    sender: SendRequest<Full<Bytes>>,
    driver: JoinHandle<()>,
    authority: HeaderValue,
    path: String,
    headers: Vec<(HeaderName, HeaderValue)>,
    spnego: Option<(KerberosOptions, String)>,
    max_body: usize,
    request: Vec<u8>,
    state: State,
}

/// A Thrift connection over HTTP/1.1 keep-alive, as a byte stream: see the module doc.
pub struct HttpStream {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for HttpStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpStream").finish_non_exhaustive()
    }
}

impl Drop for HttpStream {
    fn drop(&mut self) {
        if let Ok(inner) = self.inner.get_mut() {
            inner.driver.abort();
        }
    }
}

/// Opens the HTTP/1.1 connection over `io` (TCP or TLS). `authority` is `host:port`.
/// With Kerberos, a first SPNEGO token is made here (off the async threads: it may ask
/// the KDC for a service ticket), so a missing ticket fails the connect.
pub(crate) async fn open<S>(
    io: S,
    authority: &str,
    host: &str,
    options: &HttpOptions,
    kerberos: Option<&KerberosOptions>,
    max_body: usize,
) -> Result<HttpStream, SecureError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let http_err = |e: &dyn std::fmt::Display| SecureError::Http { detail: e.to_string() };
    let authority_value = HeaderValue::from_str(authority).map_err(|e| http_err(&e))?;
    let mut headers = Vec::with_capacity(options.headers.len());
    for (name, value) in &options.headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|e| http_err(&format!("header '{name}': {e}")))?;
        let value = HeaderValue::from_str(value).map_err(|e| http_err(&format!("header value for {name}: {e}")))?;
        headers.push((name, value));
    }
    let spnego = match kerberos {
        None => None,
        Some(k) => {
            let mut k = k.clone();
            if k.service == "hbase" {
                k.service = "HTTP".to_owned();
            }
            let target = k.target(host);
            let (k2, t2) = (k.clone(), target.clone());
            tokio::task::spawn_blocking(move || spnego_header(&k2, &t2))
                .await
                .map_err(|e| SecureError::Gssapi(format!("GSSAPI task failed: {e}")))??;
            Some((k, target))
        }
    };
    let (sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(io)).await.map_err(|e| http_err(&e))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let path = if options.path.starts_with('/') { options.path.clone() } else { format!("/{}", options.path) };
    Ok(HttpStream {
        inner: Mutex::new(Inner {
            sender,
            driver,
            authority: authority_value,
            path,
            headers,
            spnego,
            max_body,
            request: Vec::new(),
            state: State::Idle,
        }),
    })
}

fn http_io(e: SecureError) -> io::Error {
    io::Error::other(e)
}

impl Inner {
    fn request(&mut self) -> Result<Request<Full<Bytes>>, SecureError> {
        let body = Bytes::from(std::mem::take(&mut self.request));
        let mut builder = Request::post(self.path.as_str())
            .header(HOST, self.authority.clone())
            .header(CONTENT_TYPE, "application/x-thrift")
            .header("Accept", "application/x-thrift");
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        if let Some((options, target)) = &self.spnego {
            builder = builder.header(AUTHORIZATION, spnego_header(options, target)?);
        }
        builder.body(Full::new(body)).map_err(|e| SecureError::Http { detail: e.to_string() })
    }

    /// Turns the response head into the body to read, or an error that says why not.
    fn accept(&self, response: Response<Incoming>) -> Result<Incoming, SecureError> {
        let status = response.status();
        if status == StatusCode::UNAUTHORIZED {
            let negotiate = response
                .headers()
                .get(WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("Negotiate"));
            return Err(if self.spnego.is_some() {
                SecureError::HttpStatus {
                    status: 401,
                    detail: "the server rejected the Kerberos (SPNEGO) token".into(),
                }
            } else if negotiate {
                SecureError::HttpStatus {
                    status: 401,
                    detail: "the server requires Kerberos (SPNEGO); this connection has none configured".into(),
                }
            } else {
                SecureError::HttpStatus { status: 401, detail: "unauthorized".into() }
            });
        }
        if status != StatusCode::OK {
            return Err(SecureError::HttpStatus {
                status: status.as_u16(),
                detail: status.canonical_reason().unwrap_or("unexpected status").to_owned(),
            });
        }
        let declared = response.headers().get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if let Some(len) = declared {
            if len > self.max_body as u64 {
                return Err(SecureError::Http {
                    detail: format!("reply of {len} bytes exceeds the limit of {} bytes", self.max_body),
                });
            }
        }
        Ok(response.into_body())
    }
}

impl AsyncWrite for HttpStream {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let inner = self.get_mut().inner.get_mut().map_err(|_| io::Error::other("HTTP stream poisoned"))?;
        if matches!(inner.state, State::Sending(_)) {
            return Poll::Ready(Err(io::Error::other("HTTP stream: a request is still in flight")));
        }
        inner.request.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let inner = self.get_mut().inner.get_mut().map_err(|_| io::Error::other("HTTP stream poisoned"))?;
        loop {
            match &mut inner.state {
                State::Idle => {
                    if inner.request.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    ready!(inner.sender.poll_ready(cx))
                        .map_err(|e| http_io(SecureError::Http { detail: format!("connection lost: {e}") }))?;
                    let request = inner.request().map_err(http_io)?;
                    inner.state = State::Sending(Box::pin(inner.sender.send_request(request)));
                }
                State::Sending(future) => {
                    let response = ready!(future.as_mut().poll(cx));
                    inner.state = State::Idle;
                    let response = response.map_err(|e| http_io(SecureError::Http { detail: e.to_string() }))?;
                    let body = inner.accept(response).map_err(http_io)?;
                    inner.state = State::Body { body, chunk: Bytes::new() };
                    return Poll::Ready(Ok(()));
                }
                State::Body { body, .. } => {
                    if inner.request.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    // A new call: read the previous response to its end (its bytes
                    // are all there), so that the connection can be kept alive.
                    match ready!(Pin::new(&mut *body).poll_frame(cx)) {
                        Some(Ok(_)) => {}
                        Some(Err(e)) => return Poll::Ready(Err(http_io(SecureError::Http { detail: e.to_string() }))),
                        None => inner.state = State::Idle,
                    }
                }
            }
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for HttpStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let inner = self.get_mut().inner.get_mut().map_err(|_| io::Error::other("HTTP stream poisoned"))?;
        let State::Body { body, chunk } = &mut inner.state else {
            // Nothing was asked: end of stream.
            return Poll::Ready(Ok(()));
        };
        while chunk.is_empty() {
            match ready!(Pin::new(&mut *body).poll_frame(cx)) {
                None => return Poll::Ready(Ok(())),
                Some(Err(e)) => return Poll::Ready(Err(http_io(SecureError::Http { detail: e.to_string() }))),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        *chunk = data;
                    }
                }
            }
        }
        let n = chunk.len().min(buf.remaining());
        buf.put_slice(&chunk[..n]);
        chunk.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl ConnectionStream for HttpStream {
    fn closed_or_unsolicited(&self) -> bool {
        match self.inner.lock() {
            Ok(inner) => inner.sender.is_closed() || inner.driver.is_finished(),
            Err(_) => true,
        }
    }
}
