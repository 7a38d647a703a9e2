// The fuzz harness, shared by the fuzz target (`fuzz_targets/sasl.rs`) and the test that
// replays its seeds and findings (`crates/rpc/tests/fuzz_inputs.rs`). See the target for
// the input layout.

use basalt_rpc::sasl_frame::{decode_reply, take_wrapped_frame, SaslReply, MAX_SASL_MESSAGE};
use bytes::BytesMut;

/// The wrapped-frame limit the harness runs with.
const FUZZ_MAX_FRAME: usize = 1 << 16;

/// Reads one input; returns how many replies or frames were read (for the replay test).
#[allow(dead_code)]
fn run_input(input: &[u8]) -> usize {
    let (Some(&mode), Some(&chunk)) = (input.first(), input.get(1)) else {
        return 0;
    };
    let chunk = usize::from(chunk).max(1);
    let mut buf = BytesMut::new();
    let mut read = 0;
    for piece in input[2..].chunks(chunk) {
        buf.extend_from_slice(piece);
        loop {
            let before = buf.len();
            if mode & 1 == 0 {
                match decode_reply(&mut buf) {
                    Ok(Some(reply)) => {
                        assert!(buf.len() < before, "a reply consumed nothing");
                        if let SaslReply::Token(token) = &reply {
                            assert!(token.len() <= MAX_SASL_MESSAGE);
                        }
                        read += 1;
                    }
                    Ok(None) => {
                        assert_eq!(buf.len(), before, "an incomplete reply consumed bytes");
                        break;
                    }
                    Err(_) => return read,
                }
            } else {
                match take_wrapped_frame(&mut buf, FUZZ_MAX_FRAME) {
                    Ok(Some(frame)) => {
                        assert!(frame.len() <= FUZZ_MAX_FRAME);
                        assert_eq!(before - buf.len(), frame.len() + 4, "a frame took other bytes");
                        read += 1;
                    }
                    Ok(None) => {
                        assert_eq!(buf.len(), before, "an incomplete frame consumed bytes");
                        break;
                    }
                    Err(_) => return read,
                }
            }
        }
    }
    read
}
