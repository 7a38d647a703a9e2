//! Arbitrary bytes as what a server sends during and after HBase's SASL exchange, read
//! the way a client reads it, in chunks: the exchange's replies (status, token, the
//! fall-back marker, exceptions), or the length-prefixed wrapped frames that follow an
//! auth-int or auth-conf negotiation. It must never panic, nor allocate for a length
//! that the bytes present do not back (run with `-rss_limit_mb` and `-malloc_limit_mb`).
//!
//! Input: byte 0 picks the reader (bit 0: 0 replies, 1 wrapped frames); byte 1 the read
//! chunk size; the rest is the byte stream.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../harness.rs");

fuzz_target!(|input: &[u8]| {
    run_input(input);
});
