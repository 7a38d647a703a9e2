//! CLI tests against a real HBase (written next).
fn main() {}
