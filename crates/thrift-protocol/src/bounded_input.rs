//! A `TInputProtocol` for the generated code that cannot be made to over-allocate: the
//! one pass that both bounds and accounts a reply read by generated code.
//!
//! The `thrift` crate's generated readers trust the peer: a string length becomes
//! `vec![0; len]` and a list size becomes `Vec::with_capacity(size)` before a single
//! element is read, so 40 bytes declaring 10^9 elements abort the process. They also
//! ignore a field's wire type: a known field id is read as the IDL's type whatever the
//! wire says, so only the reads the generated code actually makes can be bounded
//! (found by fuzzing: an `i32` field 2 of a `TResult`, read as a list header, became
//! `Vec::with_capacity(758 million)`). This protocol is what the generated code reads
//! through: every length and count it hands out is checked against the bytes that
//! remain, the container memory the generated code will reserve (count x a per-element
//! bound; an empty struct is 1 byte on the wire, up to 176 bytes in memory) is added up
//! and refused beyond [`MEMORY_RATIO`] times the reply's size, and nothing panics
//! (compact field ids that overflow, negative sizes, deep nesting are errors).

use thrift::protocol::{
    TFieldIdentifier, TInputProtocol, TListIdentifier, TMapIdentifier, TMessageIdentifier, TMessageType,
    TSetIdentifier, TStructIdentifier, TType,
};
use thrift::{ProtocolError, ProtocolErrorKind};

use crate::hbase::{TColumnFamilyDescriptor, THRegionLocation};
use crate::wire::{ContainerHeader, Reader, WireError, WireType, MAX_DEPTH};
use crate::Protocol;

/// Container memory the generated code may reserve, as a multiple of the reply size.
pub(crate) const MEMORY_RATIO: usize = 32;
/// Container memory always allowed, whatever the reply's size.
pub(crate) const MEMORY_FLOOR: usize = 1 << 20;

/// In-memory size of the largest generated struct that appears inside a container
/// of any reply (`TColumnFamilyDescriptor`, `THRegionLocation`, ...).
pub(crate) const STRUCT_COST: usize =
    max(std::mem::size_of::<TColumnFamilyDescriptor>(), std::mem::size_of::<THRegionLocation>());

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The in-memory size of one element of a call's top-level result, when it is a list
/// (more precise than [`STRUCT_COST`] for the big lists, such as `Vec<TResult>`).
pub(crate) trait ResultCost {
    /// Bytes per element of the top-level list.
    const TOP_ELEMENT: usize = STRUCT_COST;
}

impl<T> ResultCost for Vec<T> {
    const TOP_ELEMENT: usize = std::mem::size_of::<T>();
}

macro_rules! default_cost {
    ($($t:ty),*) => { $(impl ResultCost for $t {})* };
}
default_cost!(
    (),
    bool,
    i32,
    String,
    crate::hbase::TResult,
    crate::hbase::THRegionLocation,
    crate::hbase::TTableDescriptor,
    crate::hbase::TNamespaceDescriptor,
    crate::hbase::TThriftServerType
);

/// Bytes per map entry the generated code may hold (a B-tree entry of the largest
/// key and value types of the IDL's maps, with node overhead).
const MAP_ENTRY_COST: usize = 96;

/// Reads one complete reply for the generated code, within bounds.
#[derive(Debug)]
pub(crate) struct BoundedInput<'a> {
    reader: Reader<'a>,
    last_id: i16,
    last_ids: Vec<i16>,
    pending_bool: Option<bool>,
    memory: usize,
    allowed: usize,
    top_element: usize,
}

impl<'a> BoundedInput<'a> {
    /// A reader of the complete reply `reply`; `top_element` is the in-memory size of
    /// one element of the result's field 0 when it is a list.
    pub(crate) fn new(protocol: Protocol, reply: &'a [u8], top_element: usize) -> Self {
        BoundedInput {
            reader: Reader::new(protocol, reply, 0, reply.len()),
            last_id: 0,
            last_ids: Vec::new(),
            pending_bool: None,
            memory: 0,
            allowed: reply.len().saturating_mul(MEMORY_RATIO).saturating_add(MEMORY_FLOOR),
            top_element,
        }
    }

    fn account(&mut self, header: &ContainerHeader, cost: usize) -> thrift::Result<()> {
        self.memory = self.memory.saturating_add(header.count.saturating_mul(cost));
        if self.memory > self.allowed {
            return Err(invalid(format!(
                "decoding this reply would reserve over {} MiB, more than {MEMORY_RATIO}x its size: refused",
                self.memory >> 20
            )));
        }
        Ok(())
    }

    fn size(count: usize) -> thrift::Result<i32> {
        i32::try_from(count).map_err(|_| invalid("container too large".into()))
    }
}

fn invalid(message: String) -> thrift::Error {
    thrift::Error::Protocol(ProtocolError { kind: ProtocolErrorKind::InvalidData, message })
}

fn wire_error(e: WireError) -> thrift::Error {
    match e {
        WireError::Truncated => invalid("reply ends early, inside a value".into()),
        WireError::TooLarge => thrift::Error::Protocol(ProtocolError {
            kind: ProtocolErrorKind::SizeLimit,
            message: "reply declares a length or element count larger than the reply".into(),
        }),
        WireError::Malformed(what) => invalid(what),
    }
}

fn ttype(ty: WireType) -> TType {
    match ty {
        WireType::Bool => TType::Bool,
        WireType::Byte => TType::I08,
        WireType::I16 => TType::I16,
        WireType::I32 => TType::I32,
        WireType::I64 => TType::I64,
        WireType::Double => TType::Double,
        WireType::Binary => TType::String,
        WireType::Struct => TType::Struct,
        WireType::Map => TType::Map,
        WireType::Set => TType::Set,
        WireType::List => TType::List,
    }
}

impl TInputProtocol for BoundedInput<'_> {
    fn read_message_begin(&mut self) -> thrift::Result<TMessageIdentifier> {
        let header = self.reader.message_begin().map_err(wire_error)?;
        let name = String::from_utf8(header.name.to_vec()).map_err(|_| invalid("method name is not UTF-8".into()))?;
        let kind = TMessageType::try_from(header.kind)?;
        self.last_id = 0;
        Ok(TMessageIdentifier::new(name, kind, header.seq))
    }

    fn read_message_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_struct_begin(&mut self) -> thrift::Result<Option<TStructIdentifier>> {
        if self.last_ids.len() >= MAX_DEPTH {
            return Err(invalid("nesting too deep".into()));
        }
        self.last_ids.push(self.last_id);
        self.last_id = 0;
        Ok(None)
    }

    fn read_struct_end(&mut self) -> thrift::Result<()> {
        self.last_id = self.last_ids.pop().unwrap_or(0);
        Ok(())
    }

    fn read_field_begin(&mut self) -> thrift::Result<TFieldIdentifier> {
        self.pending_bool = None;
        match self.reader.field(&mut self.last_id).map_err(wire_error)? {
            None => Ok(TFieldIdentifier { name: None, field_type: TType::Stop, id: None }),
            Some(field) => {
                self.pending_bool = field.inline_bool;
                Ok(TFieldIdentifier { name: None, field_type: ttype(field.ty), id: Some(field.id) })
            }
        }
    }

    fn read_field_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_bool(&mut self) -> thrift::Result<bool> {
        match self.pending_bool.take() {
            Some(value) => Ok(value),
            None => self.reader.bool(None).map_err(wire_error),
        }
    }

    fn read_bytes(&mut self) -> thrift::Result<Vec<u8>> {
        let (start, len) = self.reader.binary().map_err(wire_error)?;
        Ok(self.reader.slice(start, len).to_vec())
    }

    fn read_i8(&mut self) -> thrift::Result<i8> {
        self.reader.byte().map(|b| b as i8).map_err(wire_error)
    }

    fn read_i16(&mut self) -> thrift::Result<i16> {
        self.reader.i16().map_err(wire_error)
    }

    fn read_i32(&mut self) -> thrift::Result<i32> {
        self.reader.i32().map_err(wire_error)
    }

    fn read_i64(&mut self) -> thrift::Result<i64> {
        self.reader.i64().map_err(wire_error)
    }

    fn read_double(&mut self) -> thrift::Result<f64> {
        self.reader.double().map_err(wire_error)
    }

    fn read_string(&mut self) -> thrift::Result<String> {
        String::from_utf8(self.read_bytes()?).map_err(|_| invalid("a string is not UTF-8".into()))
    }

    fn read_list_begin(&mut self) -> thrift::Result<TListIdentifier> {
        let header = self.reader.list_begin().map_err(wire_error)?;
        // The result struct's field 0 has a known element type; elsewhere the element
        // may be any of the IDL's list element types, whatever the wire says.
        let cost = if self.last_ids.len() == 1 { self.top_element } else { STRUCT_COST };
        self.account(&header, cost)?;
        Ok(TListIdentifier::new(ttype(header.elem), Self::size(header.count)?))
    }

    fn read_list_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_set_begin(&mut self) -> thrift::Result<TSetIdentifier> {
        let header = self.reader.list_begin().map_err(wire_error)?;
        self.account(&header, STRUCT_COST)?;
        Ok(TSetIdentifier::new(ttype(header.elem), Self::size(header.count)?))
    }

    fn read_set_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_map_begin(&mut self) -> thrift::Result<TMapIdentifier> {
        let header = self.reader.map_begin().map_err(wire_error)?;
        self.account(&header, MAP_ENTRY_COST)?;
        Ok(TMapIdentifier::new(ttype(header.key), ttype(header.elem), Self::size(header.count)?))
    }

    fn read_map_end(&mut self) -> thrift::Result<()> {
        Ok(())
    }

    fn read_byte(&mut self) -> thrift::Result<u8> {
        self.reader.byte().map_err(wire_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::*;
    use std::collections::BTreeMap;
    use thrift::protocol::{TBinaryOutputProtocol, TCompactOutputProtocol, TOutputProtocol, TSerializable};

    fn family(i: i32) -> TColumnFamilyDescriptor {
        TColumnFamilyDescriptor {
            name: format!("f{i}").into_bytes(),
            attributes: Some(BTreeMap::from([(b"k".to_vec(), b"v".to_vec()), (Vec::new(), vec![0xff; 3])])),
            configuration: Some(BTreeMap::from([("hbase.x".to_owned(), "1".to_owned())])),
            block_size: Some(65536),
            bloomn_filter_type: Some(TBloomFilterType::ROWCOL),
            compression_type: Some(TCompressionAlgorithm::GZ),
            dfs_replication: Some(-3),
            data_block_encoding: Some(TDataBlockEncoding::FAST_DIFF),
            keep_deleted_cells: Some(TKeepDeletedCells::TTL),
            max_versions: Some(i32::MAX),
            min_versions: Some(i32::MIN),
            scope: Some(0),
            time_to_live: Some(-1),
            block_cache_enabled: Some(true),
            cache_blooms_on_write: Some(false),
            cache_data_on_write: None,
            cache_indexes_on_write: Some(true),
            compress_tags: Some(false),
            evict_blocks_on_close: Some(true),
            in_memory: Some(false),
        }
    }

    fn round_trip<T: TSerializable + PartialEq + std::fmt::Debug>(value: &T) {
        for protocol in [Protocol::Binary, Protocol::Compact] {
            let mut buf = Vec::new();
            {
                let mut out: Box<dyn TOutputProtocol + '_> = match protocol {
                    Protocol::Binary => Box::new(TBinaryOutputProtocol::new(&mut buf, true)),
                    Protocol::Compact => Box::new(TCompactOutputProtocol::new(&mut buf)),
                };
                value.write_to_out_protocol(out.as_mut()).unwrap();
                out.flush().unwrap();
            }
            let mut input = BoundedInput::new(protocol, &buf, STRUCT_COST);
            let read = T::read_from_in_protocol(&mut input).unwrap();
            assert_eq!(&read, value, "{protocol:?}");
            assert_eq!(input.reader.pos, buf.len(), "{protocol:?}: every byte read");
        }
    }

    #[test]
    fn reads_what_the_generated_writer_writes() {
        let table = TTableName::new(Some(b"ns".to_vec()), b"t".to_vec());
        round_trip(&TTableDescriptor::new(
            table.clone(),
            vec![family(1), family(2)],
            BTreeMap::from([(b"a".to_vec(), b"b".to_vec())]),
            TDurability::FSYNC_WAL,
        ));
        round_trip(&TNamespaceDescriptor::new("ns".to_owned(), BTreeMap::from([("k".to_owned(), "v".to_owned())])));
        round_trip(&TDelete::new(
            b"row".to_vec(),
            vec![TColumn::new(b"f".to_vec(), b"q".to_vec(), 5), TColumn::new(b"g".to_vec(), None, None)],
            i64::MIN,
            TDeleteType::DELETE_FAMILY_VERSION,
            BTreeMap::new(),
            None,
        ));
        round_trip(&THRegionLocation::new(
            TServerName::new("host-1".to_owned(), 16020, -7),
            THRegionInfo::new(i64::MAX, b"t".to_vec(), Some(Vec::new()), None, true, false, 2),
        ));
        round_trip(&TResult::new(
            None,
            vec![TColumnValue::new(b"f".to_vec(), Vec::new(), vec![1; 300], -1, b"tag".to_vec(), -4)],
            true,
            false,
        ));
    }

    const TRESULT: usize = <Vec<TResult> as ResultCost>::TOP_ELEMENT;

    fn get_multiple(protocol: Protocol, results: &[TResult]) -> Vec<u8> {
        crate::test_replies::reply(protocol, "getMultiple", 1, crate::test_replies::Success::Many(results))
    }

    fn decode(protocol: Protocol, msg: &[u8]) -> Result<Vec<TResult>, crate::ReplyError> {
        crate::decode_reply::<calls::GetMultiple>(protocol, msg, 1)
    }

    #[test]
    fn valid_replies_pass_even_when_made_of_small_elements() {
        assert_eq!(<calls::GetMultiple as crate::Call>::TOP_ELEMENT, TRESULT);
        let missing = TResult::new(None, Vec::new(), None, None);
        let tiny = TResult::new(
            b"r".to_vec(),
            vec![TColumnValue::new(b"d".to_vec(), Vec::new(), Vec::new(), None, None, None); 20],
            None,
            None,
        );
        for protocol in [Protocol::Binary, Protocol::Compact] {
            // 30k missing rows of a getMultiple: 3 bytes each in compact.
            let many = vec![missing.clone(); 30_000];
            assert_eq!(decode(protocol, &get_multiple(protocol, &many)).unwrap(), many);
            let tiny = vec![tiny.clone(); 5_000];
            assert_eq!(decode(protocol, &get_multiple(protocol, &tiny)).unwrap(), tiny);
        }
    }

    #[test]
    fn floods_of_empty_structs_are_refused() {
        // 2M empty structs (one stop byte each) in a compact list<TResult>.
        let n = 2usize << 20;
        let mut msg = get_multiple(Protocol::Compact, &[]);
        let header_end = msg.len() - 2; // drop the empty list header and the struct's stop
        msg.truncate(header_end);
        msg.push(0xfc);
        let mut count = n as u64;
        while count >= 0x80 {
            msg.push((count as u8) | 0x80);
            count >>= 7;
        }
        msg.push(count as u8);
        msg.extend(std::iter::repeat_n(0u8, n + 2));
        let err = decode(Protocol::Compact, &msg).unwrap_err();
        assert!(matches!(&err, crate::ReplyError::Malformed(m) if m.contains("refused")), "{err:?}");
    }

    #[test]
    fn what_the_generated_code_would_panic_on_is_refused() {
        let mut msg = get_multiple(Protocol::Binary, &[]);
        let list_size_at = msg.len() - 6;
        msg[list_size_at..list_size_at + 4].copy_from_slice(&(-5i32).to_be_bytes());
        assert!(decode(Protocol::Binary, &msg).is_err(), "negative list size");
        // Compact field-id deltas that overflow i16: 2,200 fields of delta 15.
        let mut msg = get_multiple(Protocol::Compact, &[]);
        msg.truncate(msg.len() - 4); // back to the end of the message header
        msg.extend(std::iter::repeat_n([0xf3u8, 0x00], 2200).flatten());
        assert!(decode(Protocol::Compact, &msg).is_err(), "field id overflow");
    }
}
