//! Arbitrary bytes as what a region server sends on a connection, read the way a client
//! reads it: the reply decoder takes the bytes in chunks and yields whole replies; each
//! reply's exception is mapped, its response decoded as a `ScanResponse`, its cell block
//! decoded and split into results, and the cells read as an `hbase:meta` row. It must
//! never panic, and memory stays bounded (run with `-rss_limit_mb`).
//!
//! Input: byte 0 picks the cell codec (bit 0); byte 1 the read chunk size; the rest is
//! the byte stream.
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../harness.rs");

fuzz_target!(|input: &[u8]| run_input(input));
