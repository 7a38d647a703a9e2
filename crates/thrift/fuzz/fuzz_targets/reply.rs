//! Arbitrary bytes as the server's reply, read by a real `Connection` for every call
//! kind (the zero-copy row calls, and generated ones read through the bounded reader), in
//! every transport (buffered, framed) and protocol (binary, compact), delivered in
//! chunks of varying size. It must never panic, and memory stays bounded (run with
//! `-rss_limit_mb`).
//!
//! Input: byte 0 picks the mode (bits 0-1), whether a valid message header for the
//! call is prepended (bit 2) and the call (bits 3-7); byte 1 the read chunk size; the
//! rest is the reply (its frame length is written for it when a header is prepended).
#![no_main]

use libfuzzer_sys::fuzz_target;

include!("../harness.rs");

fuzz_target!(|input: &[u8]| run_input(input));
