//! The zero-copy row decoder against the generated one: any valid reply written by the
//! `thrift` crate's writer gives the same rows, in both protocols; declared exceptions
//! give the same errors; cut or corrupted replies give typed errors, never a panic.

mod support;

use basalt_thrift_protocol::hbase::{TColumnValue, TIOError, TIllegalArgument, TResult};
use basalt_thrift_protocol::{decode_row_reply, Protocol, ReplyError};
use bytes::Bytes;
use proptest::prelude::*;
use support::{expected, expected_row, generated_rows, reply, Success};

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..=max)
}

fn cell() -> impl Strategy<Value = TColumnValue> {
    (bytes(4), bytes(8), bytes(64), any::<Option<i64>>(), proptest::option::of(bytes(6)), any::<Option<i8>>()).prop_map(
        |(family, qualifier, value, timestamp, tags, type_)| TColumnValue {
            family,
            qualifier,
            value,
            timestamp,
            tags,
            type_,
        },
    )
}

fn result() -> impl Strategy<Value = TResult> {
    (
        proptest::option::of(bytes(24)),
        proptest::collection::vec(cell(), 0..6),
        any::<Option<bool>>(),
        any::<Option<bool>>(),
    )
        .prop_map(|(row, column_values, stale, partial)| TResult { row, column_values, stale, partial })
}

fn protocol() -> impl Strategy<Value = Protocol> {
    prop_oneof![Just(Protocol::Binary), Just(Protocol::Compact)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn list_replies_decode_like_the_generated_code(
        protocol in protocol(),
        results in proptest::collection::vec(result(), 0..24),
        method in prop_oneof![Just("getMultiple"), Just("getScannerRows"), Just("getScannerResults")],
        seq in any::<i32>(),
    ) {
        let wire = reply(protocol, method, seq, Success::Many(&results));
        let generated = generated_rows(protocol, &wire);
        prop_assert_eq!(&generated, &results);
        let batch = decode_row_reply(protocol, method, seq, Bytes::from(wire)).unwrap();
        prop_assert_eq!(batch.to_rows(), expected(&generated));
        // The borrowed views agree with the owned form.
        prop_assert_eq!(batch.len(), results.len());
        prop_assert_eq!(batch.cell_count(), results.iter().map(|r| r.column_values.len()).sum::<usize>());
        for (row, r) in batch.iter().zip(&results) {
            prop_assert_eq!(row.key(), r.row.as_deref().unwrap_or_default());
            prop_assert_eq!(row.has_key(), r.row.is_some());
            for (cell, c) in row.cells().zip(&r.column_values) {
                prop_assert_eq!(cell.family(), &c.family[..]);
                prop_assert_eq!(cell.qualifier(), &c.qualifier[..]);
                prop_assert_eq!(cell.value(), &c.value[..]);
                prop_assert_eq!(cell.timestamp(), c.timestamp);
                prop_assert_eq!(cell.tags(), c.tags.as_deref());
                prop_assert_eq!(cell.cell_type(), c.type_);
            }
        }
    }

    #[test]
    fn get_replies_decode_like_the_generated_code(protocol in protocol(), r in result(), seq in any::<i32>()) {
        let wire = reply(protocol, "get", seq, Success::One(&r));
        let batch = decode_row_reply(protocol, "get", seq, Bytes::from(wire)).unwrap();
        prop_assert_eq!(batch.len(), 1);
        prop_assert_eq!(batch.row(0).unwrap().to_row_data(), expected_row(&r));
    }

    #[test]
    fn every_cut_of_a_reply_is_a_protocol_error(
        protocol in protocol(),
        results in proptest::collection::vec(result(), 0..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let wire = reply(protocol, "getScannerRows", 3, Success::Many(&results));
        let at = cut.index(wire.len());
        let err = decode_row_reply(protocol, "getScannerRows", 3, Bytes::copy_from_slice(&wire[..at])).unwrap_err();
        prop_assert!(matches!(err, ReplyError::Malformed(_)), "{err:?}");
    }

    #[test]
    fn corrupted_replies_never_panic(
        protocol in protocol(),
        results in proptest::collection::vec(result(), 1..6),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut wire = reply(protocol, "getMultiple", 9, Success::Many(&results));
        for (at, byte) in flips {
            let i = at.index(wire.len());
            wire[i] = byte;
        }
        if let Ok(batch) = decode_row_reply(protocol, "getMultiple", 9, Bytes::from(wire)) {
            // Whatever decoded must be readable without panicking.
            for row in &batch {
                let _ = row.to_row_data();
            }
        }
    }
}

#[test]
fn declared_exceptions_map_like_the_generated_calls() {
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let io = TIOError::new("table not found".to_owned(), false);
        let wire = support::exception_reply(protocol, "getMultiple", 1, 1, &io);
        let err = decode_row_reply(protocol, "getMultiple", 1, Bytes::from(wire)).unwrap_err();
        assert!(
            matches!(&err, ReplyError::Server { message, can_retry: Some(false) } if message == "table not found"),
            "{err:?}"
        );

        let ia = TIllegalArgument::new("Invalid scanner Id".to_owned());
        let wire = support::exception_reply(protocol, "getScannerRows", 4, 2, &ia);
        let err = decode_row_reply(protocol, "getScannerRows", 4, Bytes::from(wire)).unwrap_err();
        assert!(matches!(&err, ReplyError::IllegalArgument { message } if message == "Invalid scanner Id"), "{err:?}");

        let wire = support::application_exception(protocol, "get", 2, "Internal error processing get");
        let err = decode_row_reply(protocol, "get", 2, Bytes::from(wire)).unwrap_err();
        assert!(
            matches!(&err, ReplyError::Application { kind, message }
                if kind == "InternalError" && message == "Internal error processing get"),
            "{err:?}"
        );
    }
}

#[test]
fn a_reply_to_another_call_is_refused() {
    let wire = reply(Protocol::Binary, "getMultiple", 5, Success::Many(&[]));
    let err = decode_row_reply(Protocol::Binary, "getMultiple", 6, Bytes::from(wire.clone())).unwrap_err();
    assert!(matches!(&err, ReplyError::Malformed(m) if m.contains("does not answer")), "{err:?}");
    let err = decode_row_reply(Protocol::Binary, "getScannerRows", 5, Bytes::from(wire)).unwrap_err();
    assert!(matches!(&err, ReplyError::Malformed(_)), "{err:?}");
}

#[test]
fn values_are_slices_of_the_reply() {
    let r = TResult::new(
        b"row-1".to_vec(),
        vec![TColumnValue::new(b"d".to_vec(), b"q".to_vec(), vec![7; 1000], Some(5), None, None)],
        None,
        None,
    );
    let wire = Bytes::from(reply(Protocol::Compact, "getMultiple", 1, Success::Many(&[r])));
    let batch = decode_row_reply(Protocol::Compact, "getMultiple", 1, wire.clone()).unwrap();
    let value = batch.row(0).unwrap().cells().next().unwrap().value_bytes();
    let range = wire.as_ptr() as usize..wire.as_ptr() as usize + wire.len();
    assert!(range.contains(&(value.as_ptr() as usize)), "the value points into the reply");
    assert_eq!(value.len(), 1000);
}
