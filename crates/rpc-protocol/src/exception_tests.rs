use super::*;
use proptest::prelude::*;

fn response(class: &str, stack: &str, do_not_retry: bool) -> pb::ExceptionResponse {
    pb::ExceptionResponse {
        exception_class_name: Some(class.to_owned()),
        stack_trace: Some(stack.to_owned()),
        hostname: None,
        port: None,
        do_not_retry: Some(do_not_retry),
        server_overloaded: None,
    }
}

/// The exception as a region server sends it: the class, and `stringifyException`'s text.
fn remote(class: &str, message: &str, do_not_retry: bool) -> RemoteException {
    let stack = format!("{class}: {message}\n\tat org.apache.hadoop.hbase.regionserver.X.y(X.java:1)\n");
    RemoteException::from_pb(&response(class, &stack, do_not_retry))
}

#[test]
fn region_moved_message_gives_the_new_location() {
    let message =
        "Region moved to: hostname=rs2.example.com port=16020 startCode=1700000000123. As of locationSeqNum=42.";
    let exception = remote("org.apache.hadoop.hbase.exceptions.RegionMovedException", message, false);
    assert_eq!(
        exception.kind,
        RemoteExceptionKind::RegionMoved(Some(MovedTo {
            host: "rs2.example.com".into(),
            port: 16020,
            start_code: Some(1_700_000_000_123),
            location_seq_num: Some(42),
        }))
    );
    assert!(exception.invalidates_location());
    assert!(exception.is_retryable());
    assert_eq!(exception.message, message);
}

#[test]
fn region_moved_falls_back_to_the_header_host_and_port() {
    let mut with_host = response("org.apache.hadoop.hbase.exceptions.RegionMovedException", "garbled", false);
    with_host.hostname = Some("rs3".into());
    with_host.port = Some(16021);
    let exception = RemoteException::from_pb(&with_host);
    assert_eq!(
        exception.kind,
        RemoteExceptionKind::RegionMoved(Some(MovedTo {
            host: "rs3".into(),
            port: 16021,
            start_code: None,
            location_seq_num: None,
        }))
    );
    let without = RemoteException::from_pb(&response(
        "org.apache.hadoop.hbase.exceptions.RegionMovedException",
        "garbled",
        false,
    ));
    assert_eq!(without.kind, RemoteExceptionKind::RegionMoved(None));
}

#[test]
fn each_class_maps_to_its_kind_and_advice() {
    use RemoteExceptionKind as K;
    // (class, do_not_retry as the server sets it, kind, invalidates, retryable, reopen scanner)
    let cases: &[(&str, bool, K, bool, bool, bool)] = &[
        ("org.apache.hadoop.hbase.NotServingRegionException", false, K::NotServingRegion, true, true, true),
        ("org.apache.hadoop.hbase.exceptions.RegionOpeningException", false, K::RegionOpening, true, true, true),
        (
            "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException",
            false,
            K::RegionServerStopped,
            true,
            true,
            true,
        ),
        (
            "org.apache.hadoop.hbase.regionserver.RegionServerAbortedException",
            false,
            K::RegionServerStopped,
            true,
            true,
            true,
        ),
        ("org.apache.hadoop.hbase.ipc.ServerNotRunningYetException", false, K::ServerNotRunningYet, true, true, true),
        ("org.apache.hadoop.hbase.RegionTooBusyException", false, K::RegionTooBusy, false, true, false),
        ("org.apache.hadoop.hbase.CallQueueTooBigException", false, K::CallQueueTooBig, false, true, false),
        ("org.apache.hadoop.hbase.CallDroppedException", false, K::CallDropped, false, true, false),
        ("org.apache.hadoop.hbase.MultiActionResultTooLarge", false, K::RetryImmediately, false, true, false),
        ("org.apache.hadoop.hbase.exceptions.ScannerResetException", true, K::ScannerReset, true, false, true),
        ("org.apache.hadoop.hbase.UnknownScannerException", true, K::UnknownScanner, false, false, true),
        (
            "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException",
            true,
            K::OutOfOrderScannerNext,
            false,
            false,
            true,
        ),
        ("org.apache.hadoop.hbase.TableNotFoundException", true, K::TableNotFound, true, false, false),
        (
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            true,
            K::NoSuchColumnFamily,
            false,
            false,
            false,
        ),
        ("org.apache.hadoop.hbase.quotas.RpcThrottlingException", false, K::Throttled, false, true, false),
        ("org.apache.hadoop.hbase.NamespaceNotFoundException", true, K::NamespaceNotFound, false, false, false),
        ("org.apache.hadoop.hbase.TableExistsException", true, K::TableExists, false, false, false),
        ("org.apache.hadoop.hbase.NamespaceExistException", true, K::NamespaceExists, false, false, false),
        ("org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException", false, K::FatalConnection, false, false, false),
        ("org.apache.hadoop.hbase.exceptions.FailedSanityCheckException", true, K::DoNotRetry, false, false, false),
        ("java.io.IOException", false, K::Other, true, true, false),
    ];
    for (class, do_not_retry, kind, invalidates, retryable, reopen) in cases {
        let exception = remote(class, "boom", *do_not_retry);
        assert_eq!(&exception.kind, kind, "{class}");
        assert_eq!(exception.invalidates_location(), *invalidates, "{class}");
        assert_eq!(exception.is_retryable(), *retryable, "{class}");
        let advice = if *reopen { ScannerAdvice::Reopen } else { ScannerAdvice::Continue };
        assert_eq!(exception.scanner_advice(), advice, "{class}");
        assert_eq!(exception.class_name, *class);
        assert_eq!(exception.message, "boom");
    }
    assert!(remote("org.apache.hadoop.hbase.ipc.BadAuthException", "", false).closes_connection());
    assert!(remote("org.apache.hadoop.hbase.RegionTooBusyException", "", false).wants_backoff());
    assert!(!remote("org.apache.hadoop.hbase.NotServingRegionException", "", false).wants_backoff());
}

#[test]
fn unknown_exception_honours_do_not_retry() {
    let exception = remote("com.example.CoprocessorException", "nope", true);
    assert_eq!(exception.kind, RemoteExceptionKind::DoNotRetry);
    assert!(!exception.is_retryable());
    assert_eq!(exception.to_string(), "com.example.CoprocessorException: nope");
}

#[test]
fn empty_exception_response_is_other() {
    let exception = RemoteException::from_pb(&pb::ExceptionResponse::default());
    assert_eq!(exception.kind, RemoteExceptionKind::Other);
    assert_eq!(exception.message, "");
}

proptest! {
    #[test]
    fn region_moved_parser_never_panics(message in ".{0,120}") {
        let _ = parse_region_moved(&message);
    }

    #[test]
    fn region_moved_round_trips(host in "[a-z0-9.-]{1,30}", port in 1u16.., start in 0i64.., seq in 0i64..) {
        let message = format!("Region moved to: hostname={host} port={port} startCode={start}. As of locationSeqNum={seq}.");
        prop_assert_eq!(parse_region_moved(&message), Some(MovedTo { host, port, start_code: Some(start), location_seq_num: Some(seq) }));
    }
}

#[test]
fn final_classes_are_final_without_the_flag() {
    // A multi's per-action exception names its class only (no `do_not_retry`): an
    // oversized cell's `DoNotRetryIOException` must not be retried to the deadline.
    for class in [
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        "org.apache.hadoop.hbase.exceptions.FailedSanityCheckException",
        "org.apache.hadoop.hbase.security.AccessDeniedException",
        "org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException",
        "java.lang.IllegalArgumentException",
    ] {
        let exception = remote(class, "Cell with size 11534336 exceeds limit of 10485760 bytes", false);
        assert_eq!(exception.kind, RemoteExceptionKind::DoNotRetry, "{class}");
        assert!(!exception.is_retryable(), "{class}");
    }
    // An I/O exception the crate does not know stays retryable, as in HBase's client.
    for class in ["java.io.IOException", "org.apache.hadoop.hbase.exceptions.TimeoutIOException"] {
        assert!(remote(class, "", false).is_retryable(), "{class}");
    }
}

#[test]
fn throttling_names_its_wait_and_retry_immediately_goes_at_once() {
    use std::time::Duration;
    let class = "org.apache.hadoop.hbase.quotas.RpcThrottlingException";
    let throttled = remote(class, "number of requests exceeded - wait 1sec, 20ms", false);
    assert_eq!(throttled.retry_hint(), RetryHint::After(Duration::from_millis(1_020)));
    let long = remote(class, "request size limit exceeded - wait 2hrs, 3mins, 4sec, 5ms", false);
    assert_eq!(long.retry_hint(), RetryHint::After(Duration::from_millis(2 * 3_600_000 + 3 * 60_000 + 4_005)));
    // No readable interval: the client's back-off.
    assert_eq!(remote(class, "throttled", false).retry_hint(), RetryHint::Backoff);
    assert_eq!(throttle_wait("- wait 99999999999999999999ms"), None);
    assert_eq!(throttle_wait("- wait xms"), None);
    for class in
        ["org.apache.hadoop.hbase.RetryImmediatelyException", "org.apache.hadoop.hbase.MultiActionResultTooLarge"]
    {
        assert_eq!(remote(class, "", false).retry_hint(), RetryHint::Immediately);
    }
    assert_eq!(remote("org.apache.hadoop.hbase.RegionTooBusyException", "", false).retry_hint(), RetryHint::Backoff);
}
