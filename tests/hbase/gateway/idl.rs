//! Our IDL against the one inside the resolved `hbase-thrift` jar.

use basalt_thrift::idl;

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![
        #[same_on_every_route("reads the jar's IDL and ours; no HBase is used")]
        our_idl_matches_the_jar
    ]
}

async fn our_idl_matches_the_jar(_env: Env) -> TestResult {
    let upstream_text = tokio::task::spawn_blocking(basalt_testkit::upstream_idl).await??;
    let upstream = idl::parse(&upstream_text)?;
    let ours = idl::parse(include_str!("../../../thrift-idl/hbase.thrift"))?;
    // Sanity: both sides were read in full.
    assert!(upstream.methods.len() >= 50, "upstream has {} methods", upstream.methods.len());
    assert!(ours.methods.len() >= 45, "ours has {} methods", ours.methods.len());
    let diffs = idl::differences(&ours, &upstream);
    assert!(diffs.is_empty(), "thrift-idl/hbase.thrift disagrees with the jar:\n{}", diffs.join("\n"));
    Ok(())
}
