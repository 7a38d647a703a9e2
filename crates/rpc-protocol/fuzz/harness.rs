// The fuzz harness, shared by the fuzz target (`fuzz_targets/reply.rs`) and the test
// that replays its seeds and findings (`crates/rpc-protocol/tests/fuzz_inputs.rs`). See
// the target for the input layout.

use basalt_rpc_protocol::cellblock::{split_results, CellBlockReader, CellCodec};
use basalt_rpc_protocol::meta::MetaRow;
use basalt_rpc_protocol::pb;
use basalt_rpc_protocol::reply::ReplyDecoder;
use basalt_rpc_protocol::FrameError;
use bytes::BytesMut;

/// The frame limit the harness runs with: large enough for every seed, small enough
/// that a hostile length cannot make the decoder reserve much.
const FUZZ_MAX_FRAME_LEN: usize = 1 << 20;

/// Reads one input; returns how many replies decoded (for the replay test).
#[allow(dead_code)]
fn run_input(input: &[u8]) -> usize {
    let (Some(&flags), Some(&chunk)) = (input.first(), input.get(1)) else {
        return 0;
    };
    let codec = if flags & 1 == 0 {
        CellCodec::KeyValue
    } else {
        CellCodec::KeyValueWithTags
    };
    let chunk = usize::from(chunk).max(1);
    let decoder = ReplyDecoder::with_max_frame_len(FUZZ_MAX_FRAME_LEN);
    let mut buf = BytesMut::new();
    let mut replies = 0;
    for piece in input[2..].chunks(chunk) {
        buf.extend_from_slice(piece);
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(reply)) => {
                    replies += 1;
                    if let Some(exception) = reply.exception() {
                        let _ = (
                            exception.invalidates_location(),
                            exception.is_retryable(),
                            exception.scanner_advice(),
                            exception.to_string(),
                        );
                        continue;
                    }
                    let cells: Vec<_> = CellBlockReader::new(reply.cell_block.clone(), codec)
                        .map_while(Result::ok)
                        .collect();
                    if let Ok(scan) = reply.decode_response::<pb::ScanResponse>() {
                        if let Ok(results) = split_results(&cells, &scan.cells_per_result) {
                            for result in results {
                                let _ = MetaRow::from_cells(result);
                            }
                        }
                    }
                    let _ = MetaRow::from_cells(&cells);
                }
                Ok(None) => break,
                // The stream cannot be resynchronised: a client closes the connection.
                Err(FrameError::FrameTooLarge { .. }) => return replies,
                // One bad frame, already consumed: the stream is still in step.
                Err(_) => {}
            }
        }
    }
    replies
}
