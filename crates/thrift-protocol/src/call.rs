//! A call as a value ([`Call`]), and the decoding of its reply by the generated code
//! through the one bounded reader ([`decode_reply`]).

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TInputProtocol, TMessageIdentifier, TMessageType, TOutputProtocol,
};

use crate::bounded_input::BoundedInput;
use crate::error::ReplyError;
use crate::framing::{Framing, Protocol, FRAME_HEADER_LEN};

/// One THBaseService request: its method name, how its argument struct is written and
/// how its reply's result struct is read. The request types are in
/// [`hbase::calls`](crate::hbase::calls); [`encode_call`](crate::encode_call) writes
/// one, [`decode_reply`] reads its reply.
pub trait Call {
    /// The value of a successful reply.
    type Reply;
    /// The method name on the wire (`getScannerRows`, ...).
    const METHOD: &'static str;
    /// In-memory bytes of one element of the reply's value when it is a list (bounds
    /// the memory decoding may reserve, see [`decode_reply`]).
    const TOP_ELEMENT: usize;
    /// Writes the argument struct.
    fn write_args(&self, out: &mut dyn TOutputProtocol) -> thrift::Result<()>;
    /// Reads the result struct and turns it into the reply's value or declared error.
    fn read_result(input: &mut dyn TInputProtocol) -> thrift::Result<Self::Reply>;
}

/// A call whose reply carries rows: besides [`decode_reply`] (generated `TResult`s), its
/// reply can be read without copying by [`RowReplyReader`](crate::RowReplyReader).
pub trait RowsCall: Call {}

/// Decodes the complete reply `reply` (one message, without a frame length) to call
/// `C` number `seq` with the generated code, in one bounded pass: every length and
/// count is checked against the bytes that remain before anything is allocated, and
/// the container memory the generated code would reserve is refused beyond a small
/// multiple of the reply's size. Declared exceptions become their [`ReplyError`]s.
pub fn decode_reply<C: Call + ?Sized>(protocol: Protocol, reply: &[u8], seq: i32) -> Result<C::Reply, ReplyError> {
    let method = C::METHOD;
    let mut input = BoundedInput::new(protocol, reply, C::TOP_ELEMENT);
    let ident = input.read_message_begin().map_err(ReplyError::from_decode)?;
    if ident.name != method || ident.sequence_number != seq {
        return Err(ReplyError::Malformed(format!(
            "reply {}#{} does not answer call {method}#{seq}",
            ident.name, ident.sequence_number
        )));
    }
    match ident.message_type {
        TMessageType::Reply => {
            let value = C::read_result(&mut input).map_err(ReplyError::from_thrift)?;
            input.read_message_end().map_err(ReplyError::from_decode)?;
            Ok(value)
        }
        TMessageType::Exception => {
            let app =
                thrift::Error::read_application_error_from_in_protocol(&mut input).map_err(ReplyError::from_decode)?;
            Err(ReplyError::Application { kind: format!("{:?}", app.kind), message: app.message })
        }
        other @ (TMessageType::Call | TMessageType::OneWay) => {
            Err(ReplyError::Malformed(format!("unexpected message type {other:?}")))
        }
    }
}

/// Encodes call `request` number `seq` into `out` (cleared first): the message, and
/// for [`Framing::Framed`] its length in front.
pub fn encode_call<C: Call + ?Sized>(
    protocol: Protocol,
    framing: Framing,
    request: &C,
    seq: i32,
    out: &mut Vec<u8>,
) -> Result<(), ReplyError> {
    out.clear();
    let framed = framing == Framing::Framed;
    if framed {
        out.extend_from_slice(&[0; FRAME_HEADER_LEN]);
    }
    let ident = TMessageIdentifier::new(C::METHOD, TMessageType::Call, seq);
    let written = match protocol {
        Protocol::Binary => write_message(&mut TBinaryOutputProtocol::new(&mut *out, true), &ident, request),
        Protocol::Compact => write_message(&mut TCompactOutputProtocol::new(&mut *out), &ident, request),
    };
    written.map_err(|e| ReplyError::Encode(e.to_string()))?;
    if framed {
        let len = u32::try_from(out.len() - FRAME_HEADER_LEN)
            .map_err(|_| ReplyError::Encode("request larger than 4 GiB".into()))?;
        out[..FRAME_HEADER_LEN].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

fn write_message<C: Call + ?Sized>(
    out: &mut dyn thrift::protocol::TOutputProtocol,
    ident: &TMessageIdentifier,
    request: &C,
) -> thrift::Result<()> {
    out.write_message_begin(ident)?;
    request.write_args(out)?;
    out.write_message_end()?;
    out.flush()
}
