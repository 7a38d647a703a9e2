//! Replays what the fuzzer found (`crates/thrift/fuzz/regressions/`) and its seeds
//! through the fuzz harness itself, each input in a child process whose address space
//! is capped at 1 GiB: an input that makes the reader reserve gigabytes (even
//! untouched, which peak RSS would not show) aborts the child and fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

include!("../fuzz/harness.rs");

const INPUT_ENV: &str = "BASALT_FUZZ_REPLAY_INPUT";

fn inputs() -> Vec<PathBuf> {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["regressions", "seeds"] {
        for entry in std::fs::read_dir(fuzz.join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.sort();
    files
}

/// The child's side: reads the one input named in the environment (nothing when run
/// without it, as part of the whole suite).
#[test]
fn replay_child_entry() {
    if let Ok(path) = std::env::var(INPUT_ENV) {
        let input = std::fs::read(path).unwrap();
        run_input(&input);
    }
}

#[test]
fn fuzz_findings_replay_without_panic_or_huge_reservations() {
    let inputs = inputs();
    assert!(inputs.iter().any(|p| p.to_string_lossy().contains("regressions")), "no regression inputs found");
    let exe = std::env::current_exe().unwrap();
    for input in inputs {
        let status = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" --exact replay_child_entry --test-threads 1 -q")
            .arg(&exe)
            .env(INPUT_ENV, &input)
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "{}: the reader failed ({status})", input.display());
    }
}
