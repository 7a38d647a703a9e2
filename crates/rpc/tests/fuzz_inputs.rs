//! Replays the SASL fuzz target's seeds (`fuzz/seeds/`) and anything it found
//! (`fuzz/regressions/`, when present) through the fuzz harness itself: each seed must
//! read at least one reply or frame, and no input may panic.

use std::path::{Path, PathBuf};

include!("../fuzz/harness.rs");

fn inputs(dir: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut inputs: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|entry| {
            let path = entry.expect("a readable directory entry").path();
            let bytes = std::fs::read(&path).expect("a readable input");
            (path, bytes)
        })
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn every_seed_reads_and_no_finding_panics() {
    let seeds = inputs("seeds");
    assert!(seeds.len() >= 5, "the seeds are missing: {seeds:?}");
    for (path, bytes) in &seeds {
        assert!(run_input(bytes) >= 1, "{} reads nothing", path.display());
    }
    for (_, bytes) in inputs("regressions") {
        run_input(&bytes);
    }
}

#[test]
fn hostile_lengths_in_every_chunking_stop_the_reader() {
    // A token and a wrapped frame announced at 2 GiB - 1, read one byte at a time.
    let mut token = vec![0, 1];
    token.extend_from_slice(&0i32.to_be_bytes());
    token.extend_from_slice(&i32::MAX.to_be_bytes());
    token.extend_from_slice(&[0u8; 64]);
    assert_eq!(run_input(&token), 0);
    let mut frame = vec![1, 1];
    frame.extend_from_slice(&i32::MAX.to_be_bytes());
    frame.extend_from_slice(&[0u8; 64]);
    assert_eq!(run_input(&frame), 0);
}
