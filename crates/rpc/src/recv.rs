//! A connection's receive buffer: reply frames are read into buffers that are used
//! again once the replies cut from them are dropped.
//!
//! A reply handed to its call is a slice of the buffer it was read into (its rows view
//! it, nothing is copied), so the buffer cannot take the next frame while that reply
//! lives. Allocating a fresh buffer per frame costs more than the copy it avoids: every
//! page of a new multi-megabyte allocation is faulted in and zeroed by the kernel as
//! the socket's bytes land in it, which took close to half of a full scan's client CPU.
//! Here a buffer given up while its replies live is kept (a few, within a byte budget)
//! and taken back once they are all dropped; only then is a new one allocated.

use basalt_rpc_protocol::reply::ReplyDecoder;
use bytes::BytesMut;

/// The room kept free to read into when the next frame's length is not known yet.
const MIN_SPARE: usize = 64 << 10;
/// The smallest buffer allocated.
const MIN_CAPACITY: usize = 64 << 10;
/// At most this many bytes are made room for ahead of a frame's arrival on the word of
/// its length prefix alone; a longer frame gets the rest as its bytes arrive.
const MAX_AHEAD: usize = 4 << 20;
/// Buffers kept for reuse, and the bytes they may hold in all (beyond the buffer in
/// use; a kept buffer's memory is partly its live replies' until they are dropped).
const MAX_KEPT: usize = 3;
const MAX_KEPT_BYTES: usize = 8 << 20;

/// A buffer and the size of the memory it was allocated with.
struct Held {
    bytes: BytesMut,
    size: usize,
}

impl Held {
    /// A new buffer of at least `needed` bytes, with a quarter more so that it fits a
    /// somewhat larger frame next time.
    fn allocate(needed: usize) -> Held {
        let size = needed.saturating_add(needed / 4).max(MIN_CAPACITY);
        Held { bytes: BytesMut::with_capacity(size), size }
    }
}

/// The buffer a connection's reader reads into, and those it may use again.
pub(crate) struct ReceiveBuffer {
    current: Held,
    /// Buffers whose last bytes were handed out in replies: each may be used again
    /// once those replies are dropped (it is then the only owner of its memory).
    kept: Vec<Held>,
}

impl ReceiveBuffer {
    /// An empty buffer.
    pub(crate) fn new() -> ReceiveBuffer {
        ReceiveBuffer { current: Held::allocate(MIN_CAPACITY), kept: Vec::new() }
    }

    /// The bytes received and not yet taken as frames.
    pub(crate) fn bytes(&mut self) -> &mut BytesMut {
        &mut self.current.bytes
    }

    /// Makes room to read into: the rest of the frame the buffer starts with (up to
    /// [`MAX_AHEAD`] at a time), or [`MIN_SPARE`] bytes while its length is unknown.
    /// The unread bytes move only when the current buffer cannot hold that much; they
    /// then go to a kept buffer whose replies are gone, else to a new one.
    pub(crate) fn make_room(&mut self, decoder: &ReplyDecoder) {
        let len = self.current.bytes.len();
        let rest_of_frame = match decoder.frame_len(&self.current.bytes) {
            // The decoder refuses an over-long frame when it next looks at the buffer.
            Ok(Some(frame)) => (4 + frame).saturating_sub(len),
            Ok(None) | Err(_) => 0,
        };
        let wanted = rest_of_frame.clamp(MIN_SPARE, MAX_AHEAD);
        if self.current.bytes.try_reclaim(wanted) {
            return;
        }
        let needed = len + wanted;
        let next = match self.kept.iter_mut().position(|kept| kept.bytes.try_reclaim(needed)) {
            Some(at) => self.kept.swap_remove(at),
            None => Held::allocate(needed),
        };
        let mut old = std::mem::replace(&mut self.current, next);
        self.current.bytes.extend_from_slice(&old.bytes);
        old.bytes.clear();
        self.keep(old);
    }

    /// Keeps `old` for reuse if the budget allows, dropping the oldest kept first.
    fn keep(&mut self, old: Held) {
        self.kept.push(old);
        while self.kept.len() > MAX_KEPT || self.kept_bytes() > MAX_KEPT_BYTES {
            self.kept.remove(0);
        }
    }

    /// The memory of the kept buffers.
    fn kept_bytes(&self) -> usize {
        self.kept.iter().map(|kept| kept.size).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BufMut;

    /// A frame's bytes: its length prefix and `body_len` bytes of `fill`.
    fn frame(body_len: usize, fill: u8) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + body_len);
        out.put_u32(body_len as u32);
        out.resize(4 + body_len, fill);
        out
    }

    #[test]
    fn a_frame_gets_room_for_its_rest_and_memory_is_used_again_once_its_reply_is_dropped() {
        let decoder = ReplyDecoder::new();
        let mut buffer = ReceiveBuffer::new();
        let big = frame(1 << 20, 7);
        // The first bytes of the frame arrive: room is made for the rest of it.
        buffer.bytes().extend_from_slice(&big[..100]);
        buffer.make_room(&decoder);
        assert!(buffer.bytes().capacity() - buffer.bytes().len() >= big.len() - 100);
        buffer.bytes().extend_from_slice(&big[100..]);
        let first_memory = buffer.bytes().as_ptr() as usize..buffer.bytes().as_ptr() as usize + buffer.current.size;
        // The frame is handed out as a reply, which lives on.
        let reply = buffer.bytes().split_to(big.len()).freeze();
        // The next frame does not fit the rest: a new buffer, the old one kept.
        buffer.bytes().extend_from_slice(&big[..100]);
        buffer.make_room(&decoder);
        assert!(!first_memory.contains(&(buffer.bytes().as_ptr() as usize)));
        assert_eq!(&buffer.bytes()[..], &big[..100], "the unread bytes moved with the buffer");
        buffer.bytes().extend_from_slice(&big[100..]);
        let second = buffer.bytes().split_to(big.len()).freeze();
        // Once the first reply is dropped, its memory takes the frame after.
        drop(reply);
        buffer.bytes().extend_from_slice(&big[..10]);
        buffer.make_room(&decoder);
        assert!(first_memory.contains(&(buffer.bytes().as_ptr() as usize)));
        assert_eq!(&buffer.bytes()[..], &big[..10]);
        assert_eq!(&second[..], &big[..]);
    }

    #[test]
    fn unknown_lengths_get_a_little_room_and_claims_are_capped() {
        let decoder = ReplyDecoder::new();
        let mut buffer = ReceiveBuffer::new();
        buffer.bytes().extend_from_slice(&[0, 0]);
        buffer.make_room(&decoder);
        assert!(buffer.bytes().capacity() - 2 >= MIN_SPARE);
        // A frame claiming the decoder's limit gets MAX_AHEAD, not its claim.
        buffer.bytes().clear();
        buffer.bytes().put_u32((200 << 20) as u32);
        buffer.make_room(&decoder);
        let room = buffer.bytes().capacity() - 4;
        assert!((MAX_AHEAD..2 * MAX_AHEAD).contains(&room), "{room}");
        // A length past the limit (or negative) is left to the decoder to refuse.
        buffer.bytes().clear();
        buffer.bytes().put_i32(-1);
        buffer.make_room(&decoder);
        assert!(decoder.decode(buffer.bytes()).is_err());
    }

    #[test]
    fn kept_buffers_stay_within_their_budget() {
        let mut buffer = ReceiveBuffer::new();
        let mut replies = Vec::new();
        let decoder = ReplyDecoder::new();
        for _ in 0..10 {
            let big = frame(3 << 20, 1);
            buffer.bytes().extend_from_slice(&big[..4]);
            buffer.make_room(&decoder);
            buffer.bytes().extend_from_slice(&big[4..]);
            replies.push(buffer.bytes().split_to(big.len()).freeze());
        }
        assert!(buffer.kept.len() <= MAX_KEPT);
        assert!(buffer.kept_bytes() <= MAX_KEPT_BYTES);
    }
}
