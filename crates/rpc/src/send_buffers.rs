//! Cell-block buffers used again from one batch call to the next.
//!
//! A batch of writes encodes each region's cells into a buffer of its own (sixteen
//! regions: sixteen buffers per call). Allocated afresh per call, those buffers cost
//! more than the copies into them: freed together after the call, they return to the
//! allocator as one large block, which is handed back to the kernel and faulted in
//! again by the next call. An isolated test (500,000 cells of 250 bytes, calls of 1,000
//! cells over 16 regions) took 70 ms with fresh buffers and 39 ms with kept ones. Here a
//! call takes its buffers from the client's pool and gives them back once the request
//! is sent and no one else holds them.

use std::sync::Mutex;

use bytes::{Bytes, BytesMut};

/// Buffers kept, and the capacity they may hold in all.
const MAX_KEPT: usize = 256;
const MAX_KEPT_BYTES: usize = 32 << 20;
/// A buffer larger than this is not kept (one unusually large batch must not pin its
/// memory for the client's lifetime).
const MAX_BUFFER_BYTES: usize = 4 << 20;
/// Nor one smaller than this (a request's few bytes of framing between its regions: a
/// later call taking it would only have to grow it).
const MIN_BUFFER_BYTES: usize = 1 << 10;

/// The buffers a client's batch calls share.
#[derive(Debug, Default)]
pub(crate) struct SendBuffers {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    buffers: Vec<BytesMut>,
    bytes: usize,
}

impl SendBuffers {
    /// An empty buffer with room for at least `len` bytes: a kept one when there is one
    /// (none is taken for nothing: a batch of gets has no cells).
    pub(crate) fn take(&self, len: usize) -> BytesMut {
        if len == 0 {
            return BytesMut::new();
        }
        let kept = self.kept.lock().ok().and_then(|mut kept| {
            // The smallest kept buffer that holds `len`, else the largest (a call's
            // small buffers of actions and large ones of cells share the pool: taking
            // any would grow one, copying it).
            let fits = |b: &BytesMut| b.capacity() >= len;
            let best = kept.buffers.iter().enumerate().filter(|(_, b)| fits(b)).min_by_key(|(_, b)| b.capacity());
            let at = match best {
                Some((at, _)) => at,
                None => kept.buffers.iter().enumerate().max_by_key(|(_, b)| b.capacity())?.0,
            };
            let buffer = kept.buffers.swap_remove(at);
            kept.bytes = kept.bytes.saturating_sub(buffer.capacity());
            Some(buffer)
        });
        match kept {
            Some(mut buffer) => {
                buffer.reserve(len);
                buffer
            }
            None => BytesMut::with_capacity(len),
        }
    }

    /// Takes back the buffers of `sent` that no one else holds any more (the others are
    /// dropped as usual when their last holder lets go).
    pub(crate) fn give_back(&self, sent: Vec<Bytes>) {
        for bytes in sent {
            if let Ok(buffer) = bytes.try_into_mut() {
                self.keep(buffer);
            }
        }
    }

    /// Keeps `buffer` for a later call, within the pool's bounds.
    pub(crate) fn keep(&self, mut buffer: BytesMut) {
        let Ok(mut kept) = self.kept.lock() else { return };
        let capacity = buffer.capacity();
        if capacity < MIN_BUFFER_BYTES
            || kept.buffers.len() >= MAX_KEPT
            || capacity > MAX_BUFFER_BYTES
            || kept.bytes.saturating_add(capacity) > MAX_KEPT_BYTES
        {
            return;
        }
        buffer.clear();
        kept.bytes += capacity;
        kept.buffers.push(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sent_buffer_is_used_again_once_no_one_holds_it() {
        let buffers = SendBuffers::default();
        let mut first = buffers.take(4000);
        first.extend_from_slice(&[7; 4000]);
        let address = first.as_ptr();
        let sent = first.freeze();
        let still_held = sent.slice(10..20);
        buffers.give_back(vec![sent.clone()]);
        // Still held elsewhere: not taken back.
        assert_ne!(buffers.take(10).as_ptr(), address);
        drop(still_held);
        buffers.give_back(vec![sent]);
        let again = buffers.take(500);
        assert_eq!(again.as_ptr(), address);
        assert!(again.is_empty() && again.capacity() >= 4000);
    }

    #[test]
    fn a_buffer_is_taken_by_the_size_asked_for() {
        let buffers = SendBuffers::default();
        let sizes = [64 << 10, 4 << 10, 16 << 10];
        buffers.give_back(sizes.iter().map(|&size| BytesMut::with_capacity(size).freeze()).collect());
        // The smallest that holds it.
        assert_eq!(buffers.take(3 << 10).capacity(), 4 << 10);
        assert_eq!(buffers.take(5 << 10).capacity(), 16 << 10);
        // None holds it: the largest, grown.
        assert!(buffers.take(100 << 10).capacity() >= 100 << 10);
        assert_eq!(buffers.kept.lock().unwrap().buffers.len(), 0);
    }

    #[test]
    fn what_is_kept_is_bounded() {
        let buffers = SendBuffers::default();
        let large = BytesMut::with_capacity(MAX_BUFFER_BYTES + 1);
        buffers.give_back(vec![large.freeze()]);
        assert_eq!(buffers.kept.lock().unwrap().buffers.len(), 0, "an over-large buffer is dropped");
        let small = BytesMut::with_capacity(MIN_BUFFER_BYTES - 1);
        buffers.give_back(vec![small.freeze()]);
        assert_eq!(buffers.kept.lock().unwrap().buffers.len(), 0, "a small buffer is dropped");
        let many: Vec<Bytes> = (0..MAX_KEPT + 10).map(|_| BytesMut::with_capacity(MIN_BUFFER_BYTES).freeze()).collect();
        buffers.give_back(many);
        assert_eq!(buffers.kept.lock().unwrap().buffers.len(), MAX_KEPT);
        let big: Vec<Bytes> = (0..20).map(|_| BytesMut::with_capacity(MAX_BUFFER_BYTES).freeze()).collect();
        let fresh = SendBuffers::default();
        fresh.give_back(big);
        assert!(fresh.kept.lock().unwrap().bytes <= MAX_KEPT_BYTES);
    }
}
