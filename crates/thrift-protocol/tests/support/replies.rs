//! Thrift replies written by the `thrift` crate's own writer (as an HBase gateway
//! writes them), and read back by the generated reader.
//!
//! One file for every test of the Thrift crates (`basalt-thrift-protocol` and
//! `basalt-thrift`): the integration tests and the benches
//! include it as a module, and the crate's unit tests too (through `#[path]`, with
//! `basalt_thrift_protocol` naming the crate itself), so it uses only the public API.
#![allow(dead_code)] // each user takes its own part

use basalt_thrift_protocol::hbase::TResult;
use basalt_thrift_protocol::Protocol;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol, TFieldIdentifier,
    TInputProtocol, TListIdentifier, TMessageIdentifier, TMessageType, TOutputProtocol, TSerializable,
    TStructIdentifier, TType,
};

/// What the success field of a reply holds.
pub enum Success<'a> {
    /// `get`: one `TResult`.
    One(&'a TResult),
    /// The list calls.
    Many(&'a [TResult]),
}

/// The `thrift` crate's writer of `protocol` (strict binary, or compact) into `buf`.
pub fn output<'a>(protocol: Protocol, buf: &'a mut Vec<u8>) -> Box<dyn TOutputProtocol + 'a> {
    match protocol {
        Protocol::Compact => Box::new(TCompactOutputProtocol::new(buf)),
        _ => Box::new(TBinaryOutputProtocol::new(buf, true)),
    }
}

/// The `thrift` crate's reader of `protocol` over `buf`.
pub fn input<'a>(protocol: Protocol, buf: &'a [u8]) -> Box<dyn TInputProtocol + 'a> {
    match protocol {
        Protocol::Compact => Box::new(TCompactInputProtocol::new(buf)),
        _ => Box::new(TBinaryInputProtocol::new(buf, true)),
    }
}

/// A `kind` message to `method` number `seq` whose body `body` writes.
fn message(
    protocol: Protocol,
    method: &str,
    seq: i32,
    kind: TMessageType,
    body: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    let mut buf = Vec::new();
    {
        let mut out = output(protocol, &mut buf);
        out.write_message_begin(&TMessageIdentifier::new(method, kind, seq)).unwrap();
        body(out.as_mut()).unwrap();
        out.write_message_end().unwrap();
        out.flush().unwrap();
    }
    buf
}

/// A reply whose result struct holds one field, `id` of wire type `ty`, written by
/// `value`.
fn result_reply(
    protocol: Protocol,
    (method, seq): (&str, i32),
    (id, ty): (i16, TType),
    value: impl FnOnce(&mut dyn TOutputProtocol) -> thrift::Result<()>,
) -> Vec<u8> {
    message(protocol, method, seq, TMessageType::Reply, |out| {
        out.write_struct_begin(&TStructIdentifier::new("result"))?;
        out.write_field_begin(&TFieldIdentifier::new(if id == 0 { "success" } else { "e" }, ty, id))?;
        value(out)?;
        out.write_field_end()?;
        out.write_field_stop()?;
        out.write_struct_end()
    })
}

/// A reply message to `method` number `seq` whose result struct holds `success`.
pub fn reply(protocol: Protocol, method: &str, seq: i32, success: Success<'_>) -> Vec<u8> {
    match success {
        Success::One(result) => {
            result_reply(protocol, (method, seq), (0, TType::Struct), |out| result.write_to_out_protocol(out))
        }
        Success::Many(results) => result_reply(protocol, (method, seq), (0, TType::List), |out| {
            out.write_list_begin(&TListIdentifier::new(TType::Struct, results.len() as i32))?;
            for r in results {
                r.write_to_out_protocol(out)?;
            }
            out.write_list_end()
        }),
    }
}

/// A reply whose result struct holds a declared exception in field `id` (1: TIOError,
/// 2: TIllegalArgument).
pub fn exception_reply(protocol: Protocol, method: &str, seq: i32, id: i16, exception: &impl TSerializable) -> Vec<u8> {
    result_reply(protocol, (method, seq), (id, TType::Struct), |out| exception.write_to_out_protocol(out))
}

/// A `TApplicationException` message.
pub fn application_exception(protocol: Protocol, method: &str, seq: i32, message_text: &str) -> Vec<u8> {
    let error = thrift::ApplicationError::new(thrift::ApplicationErrorKind::InternalError, message_text.to_owned());
    message(protocol, method, seq, TMessageType::Exception, |out| {
        thrift::Error::write_application_error_to_out_protocol(&error, out)
    })
}

/// The results in a reply, read by the generated code (`Success::Many` shape).
pub fn generated_rows(protocol: Protocol, bytes: &[u8]) -> Vec<TResult> {
    let mut input = input(protocol, bytes);
    input.read_message_begin().unwrap();
    input.read_struct_begin().unwrap();
    input.read_field_begin().unwrap();
    let list = input.read_list_begin().unwrap();
    (0..list.size).map(|_| TResult::read_from_in_protocol(input.as_mut()).unwrap()).collect()
}
