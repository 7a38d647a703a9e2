//! Generates the Rust messages of HBase's protobuf protocol with prost-build.
//!
//! Usage: `basalt-rpc-protocol-codegen PROTO_DIR OUT_DIR FILE.proto...`. `protoc` comes
//! from `PATH` (Debian: `protobuf-compiler`) or `$PROTOC`. Every `bytes` field becomes
//! `bytes::Bytes`, so decoding from a `Bytes` buffer slices instead of copying;
//! `google.protobuf.Any` is the library's own `pb::Any`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(proto_dir), Some(out_dir)) = (args.next(), args.next()) else {
        eprintln!("usage: basalt-rpc-protocol-codegen PROTO_DIR OUT_DIR FILE.proto...");
        return ExitCode::from(2);
    };
    let proto_dir = PathBuf::from(proto_dir);
    let files: Vec<PathBuf> = args.map(|name| proto_dir.join(name)).collect();
    if files.is_empty() {
        eprintln!("basalt-rpc-protocol-codegen: no .proto file named");
        return ExitCode::from(2);
    }
    let mut config = prost_build::Config::new();
    config.out_dir(PathBuf::from(out_dir));
    config.bytes(["."]);
    // `Procedure.proto`'s `google.protobuf.Any`: a hand-written message in the library's
    // `pb` module, so the library needs no `prost-types`.
    config.extern_path(".google.protobuf.Any", "crate::pb::Any");
    match config.compile_protos(&files, &[proto_dir]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("basalt-rpc-protocol-codegen: {error}");
            ExitCode::FAILURE
        }
    }
}
