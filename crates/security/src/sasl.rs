//! The SASL GSSAPI exchange (RFC 4752) without its framing: the steps every transport
//! takes, whatever bytes carry the tokens.
//!
//! 1. The client starts a GSSAPI context for the server's principal and sends its first
//!    token ([`SaslExchange::send_first`]; the transport adds what it opens with: the
//!    mechanism name, a connection preamble).
//! 2. The server's challenges are answered until the context is established; as HBase's
//!    Java clients do, the last one is answered with an empty token.
//! 3. The security layer: the server's wrapped offer (a bit mask of layers and its
//!    largest buffer, 4 bytes), the client's wrapped choice (the layer and its largest
//!    buffer). Then the transport checks the exchange ended as its protocol says
//!    ([`SaslExchange::finish`]).
//!
//! The GSSAPI calls, which may block on files or the KDC, run on tokio's blocking pool.
//! The result, [`Negotiated`], makes a [`SaslStream`](crate::SaslStream) for the layer.

use std::future::Future;

use crate::error::SecurityError;
use crate::gss::{GssContext, Purpose};
use crate::kerberos::{KerberosOptions, Qop, QopChoice};

/// Largest buffer this client says it can receive in one wrapped message (3 bytes).
const CLIENT_MAX_BUFFER: u32 = 0x00FF_FFFF;

/// How one transport carries the SASL exchange's tokens: its framing, and what it sends
/// and expects around them. The tokens are opaque here.
pub trait SaslExchange {
    /// Sends the client's first token, after whatever the protocol opens with.
    fn send_first(&mut self, token: &[u8]) -> impl Future<Output = Result<(), SecurityError>> + Send;

    /// Receives the server's next challenge while the context is being established.
    fn receive_challenge(&mut self) -> impl Future<Output = Result<Vec<u8>, SecurityError>> + Send;

    /// Sends the client's answer to a challenge (possibly empty).
    fn send_response(&mut self, token: &[u8]) -> impl Future<Output = Result<(), SecurityError>> + Send;

    /// Receives the server's wrapped security-layer offer.
    fn receive_offer(&mut self) -> impl Future<Output = Result<Vec<u8>, SecurityError>> + Send;

    /// Sends the client's wrapped security-layer choice.
    fn send_choice(&mut self, wrapped: &[u8]) -> impl Future<Output = Result<(), SecurityError>> + Send;

    /// Checks that the exchange ended as the protocol says (a last message, nothing
    /// left over).
    fn finish(&mut self) -> impl Future<Output = Result<(), SecurityError>> + Send;
}

/// The outcome of a SASL GSSAPI exchange: the established context and the layer
/// chosen. Only a successful exchange makes one.
pub struct Negotiated {
    pub(crate) ctx: GssContext,
    pub(crate) qop: Qop,
}

impl Negotiated {
    /// The quality of protection chosen.
    pub fn qop(&self) -> Qop {
        self.qop
    }
}

impl std::fmt::Debug for Negotiated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Negotiated").field("qop", &self.qop).finish_non_exhaustive()
    }
}

/// Runs `work` on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, SecurityError> + Send + 'static,
) -> Result<T, SecurityError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| SecurityError::Gssapi(format!("the GSSAPI task failed: {e}")))?
}

/// Runs the SASL GSSAPI exchange over `exchange` with the server whose principal's host
/// defaults to `host`, as `options` say. Without the cargo feature `kerberos`, fails
/// with [`SecurityError::KerberosNotBuilt`] before anything is sent.
pub async fn negotiate<E: SaslExchange + Send>(
    exchange: &mut E,
    host: &str,
    options: &KerberosOptions,
) -> Result<Negotiated, SecurityError> {
    let target = options.target(host);
    let (mut ctx, first) = {
        let (options, target) = (options.clone(), target.clone());
        blocking(move || {
            let mut ctx = GssContext::start(&options, &target, Purpose::Sasl)?;
            let first = ctx.step(None, &target)?;
            Ok((ctx, first))
        })
        .await?
    };
    exchange.send_first(&first.unwrap_or_default()).await?;
    while !ctx.is_complete() {
        let challenge = exchange.receive_challenge().await?;
        let target = target.clone();
        let answer;
        (ctx, answer) = blocking(move || {
            let answer = ctx.step(Some(&challenge), &target)?;
            Ok((ctx, answer))
        })
        .await?;
        // Sent even when empty: the server's GSSAPI waits for it before its offer.
        exchange.send_response(&answer.unwrap_or_default()).await?;
    }
    let offer = exchange.receive_offer().await?;
    let offer = ctx
        .unwrap(&offer)
        .map_err(|e| SecurityError::Sasl { detail: format!("cannot unwrap the security-layer offer: {e}") })?
        .message;
    let qop = choose_layer(&offer, options.choice())?;
    let choice = ctx
        .wrap(false, &layer_choice(qop))
        .map_err(|e| SecurityError::Sasl { detail: format!("cannot wrap the security-layer choice: {e}") })?;
    exchange.send_choice(&choice).await?;
    exchange.finish().await?;
    Ok(Negotiated { ctx, qop })
}

/// The layer chosen from the server's unwrapped offer (4 bytes: the layers' bit mask
/// and the server's largest buffer).
fn choose_layer(offer: &[u8], wanted: QopChoice) -> Result<Qop, SecurityError> {
    let [offered, _, _, _] = offer[..] else {
        return Err(SecurityError::Sasl { detail: format!("a security-layer offer of {} bytes, not 4", offer.len()) });
    };
    wanted.choose(offered).ok_or_else(|| SecurityError::QopMismatch { offered: Qop::describe_mask(offered), wanted })
}

/// The client's security-layer choice before wrapping: the layer's bit and the largest
/// buffer the client takes.
fn layer_choice(qop: Qop) -> [u8; 4] {
    let max = CLIENT_MAX_BUFFER.to_be_bytes();
    [qop.layer_bit(), max[1], max[2], max[3]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offer_is_four_bytes_and_the_choice_fits_it() {
        assert_eq!(choose_layer(&[7, 0, 1, 0], QopChoice::default()), Ok(Qop::AuthConf));
        assert_eq!(choose_layer(&[3, 0, 1, 0], QopChoice::Exactly(Qop::Auth)), Ok(Qop::Auth));
        let err = choose_layer(&[1, 0, 1, 0], QopChoice::AtLeast(Qop::AuthInt)).unwrap_err();
        assert_eq!(
            err,
            SecurityError::QopMismatch { offered: "auth".into(), wanted: QopChoice::AtLeast(Qop::AuthInt) }
        );
        for bad in [&[][..], &[7], &[7, 0, 0, 0, 0]] {
            let err = choose_layer(bad, QopChoice::default()).unwrap_err();
            assert!(matches!(&err, SecurityError::Sasl { detail } if detail.contains("not 4")), "{err}");
        }
        assert_eq!(layer_choice(Qop::AuthInt), [2, 0xFF, 0xFF, 0xFF]);
    }

    /// Records what is sent; never gets an answer.
    struct Silent(Vec<Vec<u8>>);

    impl SaslExchange for Silent {
        async fn send_first(&mut self, token: &[u8]) -> Result<(), SecurityError> {
            self.0.push(token.to_vec());
            Ok(())
        }
        async fn receive_challenge(&mut self) -> Result<Vec<u8>, SecurityError> {
            Err(SecurityError::Sasl { detail: "closed".into() })
        }
        async fn send_response(&mut self, token: &[u8]) -> Result<(), SecurityError> {
            self.0.push(token.to_vec());
            Ok(())
        }
        async fn receive_offer(&mut self) -> Result<Vec<u8>, SecurityError> {
            Err(SecurityError::Sasl { detail: "closed".into() })
        }
        async fn send_choice(&mut self, wrapped: &[u8]) -> Result<(), SecurityError> {
            self.0.push(wrapped.to_vec());
            Ok(())
        }
        async fn finish(&mut self) -> Result<(), SecurityError> {
            Ok(())
        }
    }

    /// Without credentials (or without the feature) the exchange fails before a byte
    /// is sent, with an error that says why.
    #[tokio::test]
    async fn nothing_is_sent_when_the_context_cannot_start() {
        let mut exchange = Silent(Vec::new());
        let options =
            KerberosOptions { principal: Some("nobody@NO.SUCH.REALM.BASALT".into()), ..KerberosOptions::default() };
        let err = negotiate(&mut exchange, "localhost", &options).await.unwrap_err();
        if crate::KERBEROS_SUPPORTED {
            assert!(
                matches!(err, SecurityError::NoTicket { .. } | SecurityError::GssapiLibraryMissing { .. }),
                "{err}"
            );
        } else {
            assert_eq!(err, SecurityError::KerberosNotBuilt);
        }
        assert!(exchange.0.is_empty());
    }
}
