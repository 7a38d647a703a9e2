//! Mangling one reply frame of a stream of length-prefixed frames (a 4-byte big-endian
//! length, then that many bytes: HBase's native RPC replies, Thrift's framed
//! transport), for the proxy's garble and shorten faults.

/// What is done to the mangled frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mangle {
    /// The length is kept and every byte of the body becomes `0xFF`: the frame can be
    /// skipped but not read.
    Garble,
    /// The frame is shortened to the first half of its body (its length says so), the
    /// rest is dropped: the stream stays in step, the frame's content ends early.
    Shorten,
}

/// Follows the frames of one direction and mangles the first frame that starts at or
/// after a byte position.
#[derive(Debug)]
pub(crate) struct FrameMangler {
    mangle: Mangle,
    /// Mangle the first frame starting at or after this position (1-based, as the
    /// proxy's fates count bytes).
    at: u64,
    header: [u8; 4],
    header_len: usize,
    /// Body bytes of the current frame still to come, and its whole length.
    body_left: u64,
    body_len: u64,
    /// Whether the current frame is the mangled one.
    mangling: bool,
    /// Whether a frame was mangled already (only one is).
    struck: bool,
}

impl FrameMangler {
    /// Mangles (`mangle`) the first frame starting at or after byte `at`.
    pub(crate) fn new(mangle: Mangle, at: u64) -> FrameMangler {
        FrameMangler {
            mangle,
            at,
            header: [0; 4],
            header_len: 0,
            body_left: 0,
            body_len: 0,
            mangling: false,
            struck: false,
        }
    }

    /// What is done to the mangled frame.
    pub(crate) fn kind(&self) -> Mangle {
        self.mangle
    }

    /// Passes `chunk`, whose first byte is at position `position + 1`, appending what
    /// to forward to `out`; returns whether the mangled frame started in this chunk.
    pub(crate) fn pass(&mut self, position: u64, chunk: &[u8], out: &mut Vec<u8>) -> bool {
        let mut struck_now = false;
        for (offset, &byte) in chunk.iter().enumerate() {
            if self.header_len < 4 {
                if self.header_len == 0 && !self.struck && position + offset as u64 + 1 >= self.at {
                    self.struck = true;
                    self.mangling = true;
                    struck_now = true;
                }
                if let Some(slot) = self.header.get_mut(self.header_len) {
                    *slot = byte;
                }
                self.header_len += 1;
                if self.header_len == 4 {
                    self.start_body(out);
                }
                continue;
            }
            self.body_byte(byte, out);
        }
        struck_now
    }

    /// The header is complete: forward it (or its shortened form).
    fn start_body(&mut self, out: &mut Vec<u8>) {
        self.body_len = u64::from(u32::from_be_bytes(self.header));
        self.body_left = self.body_len;
        match (self.mangling, self.mangle) {
            (true, Mangle::Shorten) => {
                let half = u32::try_from(self.body_len / 2).unwrap_or(u32::MAX);
                out.extend_from_slice(&half.to_be_bytes());
            }
            (true, Mangle::Garble) | (false, Mangle::Garble) | (false, Mangle::Shorten) => {
                out.extend_from_slice(&self.header);
            }
        }
        if self.body_left == 0 {
            self.end_frame();
        }
    }

    fn body_byte(&mut self, byte: u8, out: &mut Vec<u8>) {
        let index = self.body_len - self.body_left;
        match (self.mangling, self.mangle) {
            (false, Mangle::Garble) | (false, Mangle::Shorten) => out.push(byte),
            (true, Mangle::Garble) => out.push(0xFF),
            (true, Mangle::Shorten) => {
                if index < self.body_len / 2 {
                    out.push(byte);
                }
            }
        }
        self.body_left -= 1;
        if self.body_left == 0 {
            self.end_frame();
        }
    }

    fn end_frame(&mut self) {
        self.header_len = 0;
        self.mangling = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut f = (body.len() as u32).to_be_bytes().to_vec();
        f.extend_from_slice(body);
        f
    }

    /// Passes `stream` in chunks of `step` bytes.
    fn run(mangle: Mangle, at: u64, stream: &[u8], step: usize) -> (Vec<u8>, usize) {
        let mut m = FrameMangler::new(mangle, at);
        let mut out = Vec::new();
        let mut struck = 0;
        for (i, chunk) in stream.chunks(step).enumerate() {
            struck += usize::from(m.pass((i * step) as u64, chunk, &mut out));
        }
        (out, struck)
    }

    #[test]
    fn garbles_the_body_of_the_first_frame_after_the_position_only() {
        let stream = [frame(b"abcd"), frame(b"efghij"), frame(b"kl")].concat();
        for step in [1, 3, 7, 100] {
            // Byte 5 is inside the first frame: the second frame is the one.
            let (out, struck) = run(Mangle::Garble, 5, &stream, step);
            assert_eq!(struck, 1);
            assert_eq!(out, [frame(b"abcd"), frame(&[0xFF; 6]), frame(b"kl")].concat(), "step {step}");
        }
        let (out, _) = run(Mangle::Garble, 1, &stream, 4);
        assert_eq!(out, [frame(&[0xFF; 4]), frame(b"efghij"), frame(b"kl")].concat());
        let (out, struck) = run(Mangle::Garble, 1000, &stream, 4);
        assert_eq!((out, struck), (stream.clone(), 0), "past the end: untouched");
    }

    #[test]
    fn shortens_one_frame_and_keeps_the_stream_in_step() {
        let stream = [frame(b"abcd"), frame(b"efghij"), frame(b""), frame(b"kl")].concat();
        for step in [1, 2, 5, 100] {
            let (out, struck) = run(Mangle::Shorten, 9, &stream, step);
            assert_eq!(struck, 1);
            assert_eq!(out, [frame(b"abcd"), frame(b"efg"), frame(b""), frame(b"kl")].concat(), "step {step}");
        }
    }
}
