//! Test tools for Basalt's "hostile world" tests (issue 14).
//!
//! - [`Proxy`]: a fault-injecting TCP proxy on the loopback. It forwards each accepted
//!   connection to one of its upstreams (round-robin per connection, like a TCP load
//!   balancer) and, by the [`Faults`] in force when the connection was accepted, cuts it
//!   at a random byte, delays every chunk, stalls it, drops its replies, or garbles or
//!   shortens one reply frame (for length-prefixed replies); it can also
//!   kill every current connection on demand. Randomness is seeded, so a failing run
//!   can be repeated; [`ProxyStats`] counts what it did.
//! - [`HostileServer`]: a fake Thrift server that answers every call with bytes a test
//!   chose (framed or buffered), or never answers. It exists only to test Basalt's reply
//!   parser against hostile bytes; everything else is tested against the real HBase.
//! - [`BinaryWriter`]: builds Thrift binary-protocol bytes for those answers.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use basalt_chaos::{Faults, Proxy};
//! let echo = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let upstream = echo.local_addr()?.to_string();
//! let proxy = Proxy::start(vec![upstream], Faults::none(), 7).await?;
//! assert!(proxy.addr().starts_with("127.0.0.1:"));
//! # Ok(()) }
//! ```

mod frames;
mod hostile;
mod proxy;
mod rng;
mod writer;

pub use hostile::{Answer, HostileServer, Request, Transport};
pub use proxy::{Faults, Proxy, ProxyStats};
pub use rng::Rng;
pub use writer::{BinaryWriter, MessageType, TType};
