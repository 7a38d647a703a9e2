//! The async transport against the real server.

use crate::support::{Env, Test, TestResult};
use crate::tests;

pub fn trials() -> Vec<Test> {
    tests![abandoned_call_poisons_the_connection, reply_over_the_limit_is_refused]
}

async fn abandoned_call_poisons_the_connection(env: Env) -> TestResult {
    let mut conn = env.connect().await?;
    // Drop a call's future before it can complete: the reply is left on the socket.
    {
        let call = conn.list_namespaces();
        let _ = tokio::time::timeout(std::time::Duration::from_nanos(1), call).await;
    }
    assert!(!conn.is_reusable(), "a connection with an abandoned call must not be reused");
    assert!(matches!(conn.list_namespaces().await, Err(basalt_thrift::CallError::ConnectionUnusable)));
    Ok(())
}

async fn reply_over_the_limit_is_refused(env: Env) -> TestResult {
    let options = basalt_thrift::ConnectionOptions { max_response_bytes: 16, ..env.options() };
    let mut conn = basalt_thrift::Connection::connect(env.addr(), options).await?;
    match conn.list_namespaces().await {
        Err(basalt_thrift::CallError::ResponseTooLarge { limit: 16, .. }) => {}
        other => panic!("expected ResponseTooLarge, got {other:?}"),
    }
    assert!(!conn.is_reusable());
    Ok(())
}
