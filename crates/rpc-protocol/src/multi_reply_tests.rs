use super::*;
use proptest::prelude::*;

fn exception(name: &str) -> pb::NameBytesPair {
    pb::NameBytesPair { name: name.to_owned(), value: Some(Bytes::from_static(b"why")) }
}

/// An action's answer as the generated message: an index, a result with `cells`
/// associated cells (`None`: no result), an exception; and load statistics, a field
/// the reader skips (deprecated, still sent by older servers).
fn answer(index: Option<u32>, cells: Option<i32>, failed: bool) -> pb::ResultOrException {
    answer_with_stats(index, cells, failed, true)
}

/// [`answer`], with load statistics or without (a write that succeeded, without them,
/// is the shape read by the short path).
#[allow(deprecated)]
fn answer_with_stats(index: Option<u32>, cells: Option<i32>, failed: bool, stats: bool) -> pb::ResultOrException {
    pb::ResultOrException {
        index,
        result: cells.map(|n| pb::Result { associated_cell_count: (n > 0).then_some(n), ..Default::default() }),
        exception: failed.then(|| exception("org.apache.hadoop.hbase.NotServingRegionException")),
        load_stats: stats.then(|| pb::RegionLoadStats { mem_store_load: Some(3), ..Default::default() }),
        ..Default::default()
    }
}

/// Per region: each action's (index, result, whether it failed), and whether the
/// region failed.
type Read = Vec<(Vec<(Option<u32>, Option<pb::Result>, bool)>, bool)>;

fn encoded(response: &pb::MultiResponse) -> Bytes {
    Bytes::from(response.encode_to_vec())
}

/// What the generated decoder reads, in this reader's shape.
fn read_with_prost(message: &Bytes) -> Read {
    let response = pb::MultiResponse::decode(message.clone()).unwrap();
    response
        .region_action_result
        .into_iter()
        .map(|region| {
            let actions = region.result_or_exception.into_iter().map(|a| (a.index, a.result, a.exception.is_some()));
            (actions.collect(), region.exception.is_some())
        })
        .collect()
}

fn read_here(message: &Bytes) -> Read {
    let reply = MultiReply::read(message.clone()).unwrap();
    reply
        .regions
        .iter()
        .map(|region| {
            let actions = region.actions.iter().map(|a| (a.index, reply.result(a).unwrap(), a.has_exception()));
            (actions.collect(), reply.region_exception(region).unwrap().is_some())
        })
        .collect()
}

#[test]
fn reads_what_the_server_sends_for_a_batch() {
    let response = pb::MultiResponse {
        region_action_result: vec![
            pb::RegionActionResult {
                result_or_exception: vec![answer(Some(0), Some(0), false), answer(Some(2), None, true)],
                exception: None,
                processed: Some(true),
            },
            pb::RegionActionResult {
                result_or_exception: Vec::new(),
                exception: Some(exception("org.apache.hadoop.hbase.RegionTooBusyException")),
                processed: None,
            },
        ],
        ..Default::default()
    };
    let message = encoded(&response);
    let reply = MultiReply::read(message.clone()).unwrap();
    assert_eq!(reply.regions.len(), 2);
    let first = &reply.regions[0];
    assert_eq!(first.actions.len(), 2);
    assert_eq!(first.actions[0].index, Some(0));
    assert!(!first.actions[0].has_result_fields(), "a write's empty result");
    assert_eq!(reply.result(&first.actions[0]).unwrap(), Some(pb::Result::default()));
    assert_eq!(reply.action_exception(&first.actions[0]).unwrap(), None);
    let failed = reply.action_exception(&first.actions[1]).unwrap().unwrap();
    assert_eq!(failed.name, "org.apache.hadoop.hbase.NotServingRegionException");
    assert_eq!(reply.result(&first.actions[1]).unwrap(), None);
    assert_eq!(reply.region_exception(first).unwrap(), None);
    let region_error = reply.region_exception(&reply.regions[1]).unwrap().unwrap();
    assert_eq!(region_error.name, "org.apache.hadoop.hbase.RegionTooBusyException");
    assert_eq!(read_here(&message), read_with_prost(&message));
}

#[test]
fn a_write_answered_in_the_usual_shape_is_read_as_any_other() {
    // Indexes of one to five varint bytes; then an answer that only looks like one.
    for index in [0, 1, 127, 128, 300, 16_383, 16_384, 2_000_000, u32::MAX] {
        let region = pb::RegionActionResult {
            result_or_exception: vec![answer_with_stats(Some(index), Some(0), false, false)],
            ..Default::default()
        };
        let message = encoded(&pb::MultiResponse { region_action_result: vec![region], ..Default::default() });
        let span = MultiReply::read(message.clone()).unwrap().regions[0].actions[0];
        assert_eq!(span.index, Some(index));
        assert!(!span.has_result_fields() && !span.has_exception());
        assert_eq!(read_here(&message), read_with_prost(&message));
    }
    // The short path itself: index 300 and an empty result.
    let usual = [0x08, 0xac, 0x02, 0x12, 0x00];
    let answer = write_answer(&usual, Span { start: 0, end: usual.len() }).unwrap();
    assert_eq!((answer.index, answer.has_result_fields(), answer.has_exception()), (Some(300), false, false));
    // A varint continued into the result's key, a result with a byte in it, an index
    // without its result: not the short path's, read field by field.
    for bytes in [&[0x08, 0x81, 0x12, 0x00][..], &[0x08, 0x05, 0x12, 0x01, 0x00], &[0x08, 0x05]] {
        assert_eq!(write_answer(bytes, Span { start: 0, end: bytes.len() }), None, "{bytes:?}");
    }
}

#[test]
fn an_empty_reply_has_no_regions() {
    assert!(MultiReply::read(Bytes::new()).unwrap().regions.is_empty());
}

#[test]
fn broken_replies_are_refused_without_panicking() {
    let good = encoded(&pb::MultiResponse {
        region_action_result: vec![pb::RegionActionResult {
            result_or_exception: vec![answer(Some(7), Some(2), false); 3],
            ..Default::default()
        }],
        ..Default::default()
    });
    // Every truncation of a good reply either reads or is refused.
    for end in 0..good.len() {
        let _ = MultiReply::read(good.slice(..end));
    }
    // A length past the end, a field number 0, a group wire type, a runaway varint.
    for bad in [
        &[0x0a, 0x05, 0x0a][..],
        &[0x02, 0x00],
        &[0x0b],
        &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
    ] {
        assert!(MultiReply::read(Bytes::copy_from_slice(bad)).is_err(), "{bad:?}");
    }
}

fn any_answer() -> impl Strategy<Value = pb::ResultOrException> {
    let index = prop_oneof![Just(None), (0..200u32).prop_map(Some), any::<u32>().prop_map(Some)];
    (index, proptest::option::of(0..5i32), any::<bool>(), any::<bool>())
        .prop_map(|(index, cells, failed, stats)| answer_with_stats(index, cells, failed, stats))
}

fn any_region() -> impl Strategy<Value = pb::RegionActionResult> {
    (proptest::collection::vec(any_answer(), 0..6), any::<bool>(), proptest::option::of(any::<bool>())).prop_map(
        |(result_or_exception, failed, processed)| pb::RegionActionResult {
            result_or_exception,
            exception: failed.then(|| exception("org.apache.hadoop.hbase.RegionTooBusyException")),
            processed,
        },
    )
}

proptest! {
    #[test]
    fn reads_as_the_generated_decoder_does(regions in proptest::collection::vec(any_region(), 0..5)) {
        let message = encoded(&pb::MultiResponse { region_action_result: regions, ..Default::default() });
        prop_assert_eq!(read_here(&message), read_with_prost(&message));
    }

    #[test]
    fn any_bytes_read_or_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let _ = MultiReply::read(Bytes::from(bytes));
    }
}
