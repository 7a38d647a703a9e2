use super::*;
use crate::exception::RemoteExceptionKind;
use bytes::BufMut;
use proptest::prelude::*;

fn header(call_id: u32, cell_block_len: Option<u32>) -> pb::ResponseHeader {
    pb::ResponseHeader {
        call_id: Some(call_id),
        exception: None,
        cell_block_meta: cell_block_len.map(|length| pb::CellBlockMeta { length: Some(length) }),
    }
}

fn frame(header: &pb::ResponseHeader, response: Option<&pb::GetResponse>, cells: &[u8]) -> BytesMut {
    let mut out = BytesMut::new();
    encode_reply(header, response, cells, &mut out).unwrap();
    out
}

fn get_response() -> pb::GetResponse {
    pb::GetResponse {
        result: Some(pb::Result {
            associated_cell_count: Some(2),
            exists: None,
            stale: Some(false),
            partial: None,
            cell: Vec::new(),
        }),
    }
}

#[test]
fn reads_a_hand_made_reply() {
    // Length 9: header (varint 2: field 1 = 7), response (varint 2: field 1 empty
    // message), 3 bytes of cells... built by hand, not by the encoder.
    let mut wire = BytesMut::new();
    let header_bytes = [0x08, 0x07, 0x1a, 0x02, 0x08, 0x03]; // call_id 7, cell_block_meta{length 3}
    let response_bytes = [0x0a, 0x00]; // GetResponse{result: Result{}}
    let total = 1 + header_bytes.len() + 1 + response_bytes.len() + 3;
    wire.put_u32(total as u32);
    wire.put_u8(header_bytes.len() as u8);
    wire.put_slice(&header_bytes);
    wire.put_u8(response_bytes.len() as u8);
    wire.put_slice(&response_bytes);
    wire.put_slice(b"abc");
    let reply = ReplyDecoder::new().decode(&mut wire).unwrap().unwrap();
    assert!(wire.is_empty());
    assert_eq!(reply.call_id, 7);
    assert_eq!(&reply.cell_block[..], b"abc");
    let response: pb::GetResponse = reply.decode_response().unwrap();
    assert_eq!(response.result, Some(pb::Result::default()));
    assert!(reply.exception().is_none());
}

#[test]
fn decoder_waits_for_the_whole_frame_and_keeps_the_next_one() {
    let mut stream = frame(&header(1, Some(4)), Some(&get_response()), b"cell");
    stream.extend_from_slice(&frame(&header(2, None), Some(&get_response()), b""));
    let decoder = ReplyDecoder::new();
    let mut buf = BytesMut::new();
    let mut replies = Vec::new();
    for byte in stream {
        buf.put_u8(byte);
        if let Some(reply) = decoder.decode(&mut buf).unwrap() {
            replies.push(reply);
        }
    }
    assert!(buf.is_empty());
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0].call_id, 1);
    assert_eq!(&replies[0].cell_block[..], b"cell");
    assert_eq!(replies[1].call_id, 2);
    assert!(replies[1].cell_block.is_empty());
    assert_eq!(replies[1].decode_response::<pb::GetResponse>().unwrap(), get_response());
}

#[test]
fn exception_reply_has_no_response() {
    let header = pb::ResponseHeader {
        call_id: Some(9),
        exception: Some(pb::ExceptionResponse {
            exception_class_name: Some("org.apache.hadoop.hbase.NotServingRegionException".into()),
            stack_trace: Some(
                "org.apache.hadoop.hbase.NotServingRegionException: t,,1 is not online on rs1\n\tat X".into(),
            ),
            hostname: None,
            port: None,
            do_not_retry: Some(false),
            server_overloaded: None,
        }),
        cell_block_meta: None,
    };
    let mut buf = frame(&header, None, b"");
    let reply = ReplyDecoder::new().decode(&mut buf).unwrap().unwrap();
    assert_eq!(reply.response, None);
    let exception = reply.exception().unwrap();
    assert_eq!(exception.kind, RemoteExceptionKind::NotServingRegion);
    assert_eq!(exception.message, "t,,1 is not online on rs1");
    assert!(matches!(reply.decode_response::<pb::GetResponse>(), Err(FrameError::IsException { call_id: 9, .. })));
}

#[test]
fn frame_over_the_limit_is_refused_before_buffering() {
    let decoder = ReplyDecoder::with_max_frame_len(100);
    let mut buf = BytesMut::from(&101u32.to_be_bytes()[..]);
    assert_eq!(decoder.decode(&mut buf), Err(FrameError::FrameTooLarge { length: 101, max: 100 }));
    assert!(buf.capacity() < 100);
    // Negative as a Java int.
    let mut negative = BytesMut::from(&(-1i32).to_be_bytes()[..]);
    assert!(matches!(ReplyDecoder::new().decode(&mut negative), Err(FrameError::FrameTooLarge { .. })));
}

#[test]
fn cell_block_longer_than_the_frame_is_truncated() {
    let mut buf = frame(&header(3, Some(50)), Some(&get_response()), b"short");
    assert!(matches!(ReplyDecoder::new().decode(&mut buf), Err(FrameError::Truncated { part: "cell block", .. })));
    // The frame was consumed: the stream stays in step.
    assert!(buf.is_empty());
}

#[test]
fn bytes_between_response_and_cell_block_are_refused() {
    let header_bytes = header(4, Some(2));
    let mut body = BytesMut::new();
    crate::varint::put_delimited(&header_bytes, "h", &mut body).unwrap();
    crate::varint::put_delimited(&get_response(), "r", &mut body).unwrap();
    body.put_slice(b"xx"); // stray bytes
    body.put_slice(b"cc"); // the cell block
    assert_eq!(parse_reply(body.freeze()), Err(FrameError::TrailingBytes { part: "response", extra: 2 }));
}

#[test]
fn header_without_call_id_is_refused() {
    let mut buf = frame(&pb::ResponseHeader::default(), None, b"");
    assert_eq!(ReplyDecoder::new().decode(&mut buf), Err(FrameError::MissingCallId));
}

#[test]
fn reply_without_message_says_so() {
    let mut buf = frame(&header(5, None), None, b"");
    let reply = ReplyDecoder::new().decode(&mut buf).unwrap().unwrap();
    assert_eq!(reply.decode_response::<pb::GetResponse>(), Err(FrameError::MissingResponse { call_id: 5 }));
}

proptest! {
    #[test]
    fn replies_round_trip_in_any_chunking(
        call_ids in proptest::collection::vec(any::<u32>(), 1..5),
        cells in proptest::collection::vec(any::<u8>(), 0..64),
        chunk in 1usize..40,
    ) {
        let mut stream = BytesMut::new();
        for &call_id in &call_ids {
            let cell_len = (!cells.is_empty()).then_some(cells.len() as u32);
            stream.extend_from_slice(&frame(&header(call_id, cell_len), Some(&get_response()), &cells));
        }
        let decoder = ReplyDecoder::new();
        let mut buf = BytesMut::new();
        let mut seen = Vec::new();
        for piece in stream.chunks(chunk) {
            buf.extend_from_slice(piece);
            while let Some(reply) = decoder.decode(&mut buf).unwrap() {
                prop_assert_eq!(&reply.cell_block[..], &cells[..]);
                prop_assert_eq!(reply.decode_response::<pb::GetResponse>().unwrap(), get_response());
                seen.push(reply.call_id);
            }
        }
        prop_assert_eq!(seen, call_ids);
        prop_assert!(buf.is_empty());
    }

    #[test]
    fn hostile_streams_never_panic(data in proptest::collection::vec(any::<u8>(), 0..300)) {
        let decoder = ReplyDecoder::with_max_frame_len(1 << 16);
        let mut buf = BytesMut::from(&data[..]);
        // Every Ok(Some) consumes a frame, so this ends.
        while let Ok(Some(reply)) = decoder.decode(&mut buf) {
            let _ = reply.exception();
            let _ = reply.decode_response::<pb::ScanResponse>();
        }
    }

    #[test]
    fn truncated_frame_bodies_are_errors_not_panics(cut in 0usize..200, cells in proptest::collection::vec(any::<u8>(), 0..50)) {
        let full = frame(&header(1, Some(cells.len() as u32)), Some(&get_response()), &cells);
        let body = full.freeze().slice(4..);
        let cut = cut.min(body.len());
        let result = parse_reply(body.slice(..cut));
        match result {
            // A body cut before its response message reads as a reply without one (the
            // format cannot tell), which decode_response reports as MissingResponse.
            Ok(reply) => prop_assert!(cut == body.len() || reply.response.is_none()),
            Err(_) => prop_assert!(cut < body.len()),
        }
    }
}
