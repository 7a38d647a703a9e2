//! A bounded walk of a complete reply before the generated code decodes it.
//!
//! The `thrift` crate's generated readers trust the peer: a string length becomes
//! `vec![0; len]` and a list size becomes `Vec::with_capacity(size)` before a single
//! element is read, so 40 bytes declaring 10^9 elements abort the process. This walk
//! checks every length and count against the bytes that remain, rejects what the
//! generated code would panic on (negative sizes, field ids that overflow, nesting
//! too deep), and adds up the memory the generated code would reserve for containers
//! (count x a per-element cost bound) so that a reply of many tiny elements (an empty
//! struct is 1 byte on the wire, up to 176 bytes in memory) cannot make it reserve
//! more than [`MEMORY_RATIO`] times the reply's size.

use crate::error::CallError;
use crate::hbase::{TColumnFamilyDescriptor, THRegionLocation};
use crate::wire::{malformed, ContainerHeader, FieldHeader, Reader, WireError, WireResult, WireType, MAX_DEPTH};
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

/// Cost bound of one element of wire type `ty` in a generated container.
fn element_cost(ty: WireType) -> usize {
    match ty {
        WireType::Struct => STRUCT_COST,
        WireType::Binary | WireType::List | WireType::Set | WireType::Map => 24,
        _ => 8,
    }
}

struct Walk<'a> {
    reader: Reader<'a>,
    memory: usize,
    top_element: usize,
}

/// Checks a complete reply (strict binary or compact) before generated code reads it.
/// `top_element` is the in-memory size of one element of the result's field 0 when
/// that is a list.
pub(crate) fn check_reply(protocol: Protocol, reply: &[u8], top_element: usize) -> Result<(), CallError> {
    let mut walk = Walk { reader: Reader::new(protocol, reply, 0, reply.len()), memory: 0, top_element };
    let allowed = reply.len().saturating_mul(MEMORY_RATIO).saturating_add(MEMORY_FLOOR);
    let walked = walk.message(allowed);
    match walked {
        Ok(()) => Ok(()),
        Err(WireError::Truncated) => Err(CallError::Protocol("reply ends early, inside a value".into())),
        Err(WireError::TooLarge) => {
            Err(CallError::Protocol("reply declares a length or element count larger than the reply".into()))
        }
        Err(WireError::Malformed(what)) => Err(CallError::Protocol(what)),
    }
}

impl Walk<'_> {
    fn message(&mut self, allowed: usize) -> WireResult<()> {
        self.reader.message_begin()?;
        let mut last_id = 0;
        while let Some(field) = self.reader.field(&mut last_id)? {
            let top = if field.id == 0 { self.top_element } else { element_cost(WireType::Struct) };
            self.value(field.ty, Some(&field), 1, top, allowed)?;
        }
        Ok(())
    }

    fn account(&mut self, header: &ContainerHeader, cost: usize, allowed: usize) -> WireResult<()> {
        self.memory = self.memory.saturating_add(header.count.saturating_mul(cost));
        if self.memory > allowed {
            return malformed(format!(
                "decoding this reply would reserve over {} MiB for its {} elements, more than {MEMORY_RATIO}x its size: refused",
                self.memory >> 20,
                header.count
            ));
        }
        Ok(())
    }

    /// Walks one value; `list_cost` is the per-element cost if this value is a list.
    fn value(
        &mut self,
        ty: WireType,
        field: Option<&FieldHeader>,
        depth: usize,
        list_cost: usize,
        allowed: usize,
    ) -> WireResult<()> {
        if depth >= MAX_DEPTH {
            return malformed("nesting too deep");
        }
        match ty {
            WireType::Struct => {
                let mut last_id = 0;
                while let Some(f) = self.reader.field(&mut last_id)? {
                    self.value(f.ty, Some(&f), depth + 1, element_cost(WireType::Struct), allowed)?;
                }
                Ok(())
            }
            WireType::List | WireType::Set => {
                let header = self.reader.list_begin()?;
                let cost = match (ty, header.elem) {
                    (WireType::List, WireType::Struct) => list_cost,
                    (WireType::List, elem) => element_cost(elem),
                    // Sets are B-trees: no reservation, but a node share per element.
                    (_, elem) => element_cost(elem) + 16,
                };
                self.account(&header, cost, allowed)?;
                for _ in 0..header.count {
                    self.value(header.elem, None, depth + 1, element_cost(WireType::Struct), allowed)?;
                }
                Ok(())
            }
            WireType::Map => {
                let header = self.reader.map_begin()?;
                self.account(&header, element_cost(header.key) + element_cost(header.elem) + 16, allowed)?;
                for _ in 0..header.count {
                    self.value(header.key, None, depth + 1, element_cost(WireType::Struct), allowed)?;
                    self.value(header.elem, None, depth + 1, element_cost(WireType::Struct), allowed)?;
                }
                Ok(())
            }
            _ => self.reader.skip(ty, field, depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hbase::{TColumnValue, TResult};

    fn reply(protocol: Protocol, results: &[TResult]) -> Vec<u8> {
        crate::test_replies::reply(protocol, "getMultiple", 1, crate::test_replies::Success::Many(results))
    }

    const TRESULT: usize = <Vec<TResult> as ResultCost>::TOP_ELEMENT;

    #[test]
    fn valid_replies_pass_even_when_made_of_small_elements() {
        let missing = TResult::new(None, Vec::new(), None, None);
        let tiny = TResult::new(
            b"r".to_vec(),
            vec![TColumnValue::new(b"d".to_vec(), Vec::new(), Vec::new(), None, None, None); 20],
            None,
            None,
        );
        for protocol in [Protocol::Binary, Protocol::Compact] {
            // 30k missing rows of a getMultiple: 3 bytes each in compact.
            check_reply(protocol, &reply(protocol, &vec![missing.clone(); 30_000]), TRESULT).unwrap();
            check_reply(protocol, &reply(protocol, &vec![tiny.clone(); 5_000]), TRESULT).unwrap();
        }
    }

    #[test]
    fn floods_of_empty_structs_are_refused() {
        // 2M empty structs (one stop byte each) in a compact list<TResult>.
        let n = 2usize << 20;
        let mut msg = reply(Protocol::Compact, &[]);
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
        let err = check_reply(Protocol::Compact, &msg, TRESULT).unwrap_err();
        assert!(matches!(&err, CallError::Protocol(m) if m.contains("refused")), "{err:?}");
    }

    #[test]
    fn what_the_generated_code_would_panic_on_is_refused() {
        let mut msg = reply(Protocol::Binary, &[]);
        let list_size_at = msg.len() - 6;
        msg[list_size_at..list_size_at + 4].copy_from_slice(&(-5i32).to_be_bytes());
        assert!(check_reply(Protocol::Binary, &msg, TRESULT).is_err(), "negative list size");
        // Compact field-id deltas that overflow i16: 2,200 fields of delta 15.
        let mut msg = reply(Protocol::Compact, &[]);
        msg.truncate(msg.len() - 4); // back to the end of the message header
        msg.extend(std::iter::repeat_n([0xf3u8, 0x00], 2200).flatten());
        assert!(check_reply(Protocol::Compact, &msg, TRESULT).is_err(), "field id overflow");
    }
}
