use super::*;
use pb::mutation_proto::{Durability, MutationType};
use proptest::prelude::*;

/// A region's name and its actions: index, and a write (`None`: a get).
type TestRegion<'a> = (Bytes, Vec<(u32, Option<MutationHead<'a>>)>);

/// The same request through prost's generated structs.
fn with_prost(regions: &[TestRegion<'_>], nonce_group: Option<u64>) -> Vec<u8> {
    let region_action = regions
        .iter()
        .filter(|(_, actions)| !actions.is_empty())
        .map(|(name, actions)| pb::RegionAction {
            region: pb::RegionSpecifier {
                r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                value: name.clone(),
            },
            atomic: None,
            action: actions
                .iter()
                .map(|(index, head)| match head {
                    Some(head) => pb::Action {
                        index: Some(*index),
                        mutation: Some(pb::MutationProto {
                            row: Some(Bytes::copy_from_slice(head.row)),
                            mutate_type: Some(head.mutate_type as i32),
                            timestamp: head.timestamp,
                            durability: head.durability.map(|d| d as i32),
                            associated_cell_count: head.associated_cell_count,
                            nonce: head.nonce,
                            ..Default::default()
                        }),
                        ..Default::default()
                    },
                    None => pb::Action { index: Some(*index), get: Some(get(*index)), ..Default::default() },
                })
                .collect(),
            condition: None,
        })
        .collect();
    pb::MultiRequest { region_action, nonce_group, ..Default::default() }.encode_to_vec()
}

fn get(index: u32) -> pb::Get {
    pb::Get { row: Bytes::from(format!("get{index}")), max_versions: Some(index), ..Default::default() }
}

fn with_writer(regions: &[TestRegion<'_>], nonce_group: Option<u64>) -> Vec<u8> {
    let mut writer = MultiWriter::new();
    for (name, actions) in regions {
        writer.region(name);
        for (index, head) in actions {
            match head {
                Some(head) => writer.mutation(*index, head),
                None => writer.get(*index, &get(*index)),
            }
        }
    }
    writer.finish(nonce_group).encode_to_vec()
}

/// Each region written by a writer of its own, the request sent in pieces.
fn in_pieces(regions: &[TestRegion<'_>], nonce_group: Option<u64>) -> Vec<u8> {
    let parts = regions
        .iter()
        .map(|(name, actions)| {
            let mut writer = MultiWriter::with_buffer(BytesMut::from(&b"left over"[..]));
            writer.region(name);
            for (index, head) in actions {
                match head {
                    Some(head) => writer.mutation(*index, head),
                    None => writer.get(*index, &get(*index)),
                }
            }
            writer
        })
        .collect();
    multi_in_pieces(parts, nonce_group).concat()
}

#[test]
fn writes_what_prost_writes() {
    let put = MutationHead {
        row: b"row-1",
        mutate_type: MutationType::Put,
        timestamp: None,
        durability: Some(Durability::UseDefault),
        associated_cell_count: Some(3),
        nonce: None,
    };
    let increment = MutationHead {
        row: &[0xff; 300],
        mutate_type: MutationType::Increment,
        timestamp: Some(u64::MAX),
        durability: Some(Durability::FsyncWal),
        associated_cell_count: Some(i32::MAX),
        nonce: Some(1 << 63),
    };
    let regions = vec![
        (Bytes::from_static(b"t,,1.abc."), vec![(0, Some(put)), (7, None), (300, Some(increment))]),
        (Bytes::from_static(b"empty"), vec![]),
        (Bytes::from(vec![b'r'; 200]), vec![(1, Some(put))]),
    ];
    for group in [None, Some(0), Some(u64::MAX)] {
        assert_eq!(with_writer(&regions, group), with_prost(&regions, group));
    }
    for group in [None, Some(5)] {
        assert_eq!(in_pieces(&regions, group), with_prost(&regions, group));
    }
    let decoded = pb::MultiRequest::decode(&with_writer(&regions, Some(5))[..]).unwrap();
    assert_eq!(decoded.region_action.len(), 2);
    assert_eq!(decoded.region_action[0].action[2].mutation.as_ref().unwrap().nonce, Some(1 << 63));
    assert_eq!(MultiWriter::new().finish(None).encoded_len(), 0);
}

#[test]
fn an_encoded_message_is_write_only() {
    let bytes = Bytes::from(pb::CellBlockMeta { length: Some(9) }.encode_to_vec());
    let message = EncodedMessage(bytes.clone());
    assert_eq!(message.encode_to_vec(), bytes);
    assert_eq!(message.encoded_len(), bytes.len());
    // Decoding skips what it reads and keeps nothing.
    assert_eq!(EncodedMessage::decode(&bytes[..]).unwrap(), EncodedMessage::default());
}

proptest! {
    #[test]
    fn any_batch_matches_prost(
        regions in proptest::collection::vec(
            (
                proptest::collection::vec(any::<u8>(), 0..40),
                proptest::collection::vec(
                    (
                        any::<u32>(),
                        proptest::collection::vec(any::<u8>(), 0..40),
                        0..5u8,
                        proptest::option::of(any::<u64>()),
                        proptest::option::of(0..5i32),
                        proptest::option::of(any::<i32>()),
                        proptest::option::of(any::<u64>()),
                    ),
                    0..6,
                ),
            ),
            0..4,
        ),
        nonce_group in proptest::option::of(any::<u64>()),
    ) {
        let types = [MutationType::Append, MutationType::Increment, MutationType::Put, MutationType::Delete];
        let durabilities = [
            Durability::UseDefault, Durability::SkipWal, Durability::AsyncWal, Durability::SyncWal, Durability::FsyncWal,
        ];
        let built: Vec<TestRegion<'_>> = regions
            .iter()
            .map(|(name, actions)| {
                let actions = actions
                    .iter()
                    .map(|(index, row, kind, timestamp, durability, count, nonce)| {
                        // Kind 4: a get.
                        let head = (*kind < 4).then(|| MutationHead {
                            row,
                            mutate_type: types[*kind as usize],
                            timestamp: *timestamp,
                            durability: durability.map(|d| durabilities[d as usize]),
                            associated_cell_count: *count,
                            nonce: *nonce,
                        });
                        (*index, head)
                    })
                    .collect();
                (Bytes::from(name.clone()), actions)
            })
            .collect();
        prop_assert_eq!(with_writer(&built, nonce_group), with_prost(&built, nonce_group));
    }
}
