//! Test-only: replies written by the generated code's writer, for the in-crate tests of
//! the guard and the zero-copy decoder.

use thrift::protocol::{
    TBinaryOutputProtocol, TCompactOutputProtocol, TFieldIdentifier, TListIdentifier, TMessageIdentifier, TMessageType,
    TOutputProtocol, TSerializable, TStructIdentifier, TType,
};

use crate::hbase::TResult;
use crate::Protocol;

/// A `method#seq` reply whose result is the list `results`, as the server writes it.
pub(crate) fn result_list_reply(protocol: Protocol, method: &str, seq: i32, results: &[TResult]) -> Vec<u8> {
    let mut buf = Vec::new();
    {
        let mut out: Box<dyn TOutputProtocol + '_> = match protocol {
            Protocol::Binary => Box::new(TBinaryOutputProtocol::new(&mut buf, true)),
            Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut buf)),
        };
        out.write_message_begin(&TMessageIdentifier::new(method, TMessageType::Reply, seq)).unwrap();
        out.write_struct_begin(&TStructIdentifier::new("r")).unwrap();
        out.write_field_begin(&TFieldIdentifier::new("success", TType::List, 0)).unwrap();
        out.write_list_begin(&TListIdentifier::new(TType::Struct, results.len() as i32)).unwrap();
        for r in results {
            r.write_to_out_protocol(out.as_mut()).unwrap();
        }
        out.write_list_end().unwrap();
        out.write_field_end().unwrap();
        out.write_field_stop().unwrap();
        out.write_struct_end().unwrap();
        out.flush().unwrap();
    }
    buf
}
