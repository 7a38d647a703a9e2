//! The admin's retries, nonces and procedure waits against a scripted master on a
//! local socket: it answers the registry's bootstrap calls itself, then whatever the
//! test's script says per `MasterService` method.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{is_remote_class, FamilyDescriptor, TableSchema, PROCEDURE_TIMEOUT};
use crate::builder::RpcClient;
use crate::error::RpcError;
use crate::pb;

/// What the fake master answers: a response message, an exception (class, message),
/// or a dropped connection.
enum Answer {
    Reply(Vec<u8>),
    Throw(&'static str, &'static str),
    Disconnect,
}

type Script = Box<dyn Fn(&str, usize, &Bytes) -> Answer + Send + Sync>;

/// The requests the master received, per method.
#[derive(Default)]
struct Seen {
    calls: HashMap<String, Vec<Bytes>>,
}

struct FakeMaster {
    addr: String,
    seen: Arc<Mutex<Seen>>,
}

impl FakeMaster {
    async fn start(script: Script) -> FakeMaster {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let script = Arc::new(script);
        let (port, state) = (listener.local_addr().unwrap().port(), seen.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, port, state.clone(), script.clone()));
            }
        });
        FakeMaster { addr, seen }
    }

    fn calls(&self, method: &str) -> Vec<Bytes> {
        self.seen.lock().unwrap().calls.get(method).cloned().unwrap_or_default()
    }

    async fn client(&self) -> RpcClient {
        RpcClient::builder()
            .bootstrap_server(self.addr.clone())
            .retry_pause(Duration::from_millis(1))
            .rpc_timeout(Duration::from_secs(5))
            .operation_timeout(Duration::from_secs(5))
            .connect()
            .await
            .unwrap()
    }
}

fn server_name(port: u16) -> pb::ServerName {
    pb::ServerName { host_name: "127.0.0.1".into(), port: Some(u32::from(port)), start_code: Some(1) }
}

/// The registry's answers, so that the client bootstraps from the fake master.
fn registry_answer(method: &str, port: u16) -> Option<Vec<u8>> {
    Some(match method {
        "GetClusterId" => pb::GetClusterIdResponse { cluster_id: Some("fake".into()) }.encode_to_vec(),
        "GetActiveMaster" => pb::GetActiveMasterResponse { server_name: Some(server_name(port)) }.encode_to_vec(),
        "GetMetaRegionLocations" => pb::GetMetaRegionLocationsResponse {
            meta_locations: vec![pb::RegionLocation {
                region_info: pb::RegionInfo {
                    region_id: 1,
                    table_name: pb::TableName { namespace: Bytes::from("hbase"), qualifier: Bytes::from("meta") },
                    ..Default::default()
                },
                server_name: Some(server_name(port)),
                seq_num: 0,
            }],
        }
        .encode_to_vec(),
        _ => return None,
    })
}

async fn serve(mut stream: TcpStream, port: u16, seen: Arc<Mutex<Seen>>, script: Arc<Script>) {
    let mut preamble = [0u8; 6];
    if stream.read_exact(&mut preamble).await.is_err() {
        return;
    }
    let Ok(header_len) = stream.read_u32().await else { return };
    let mut header = vec![0u8; header_len as usize];
    if stream.read_exact(&mut header).await.is_err() {
        return;
    }
    loop {
        let Ok(len) = stream.read_u32().await else { return };
        let mut frame = vec![0u8; len as usize];
        if stream.read_exact(&mut frame).await.is_err() {
            return;
        }
        let mut frame = Bytes::from(frame);
        let request = pb::RequestHeader::decode_length_delimited(&mut frame).unwrap();
        let param_len = prost::encoding::decode_varint(&mut frame).unwrap() as usize;
        let param = frame.split_to(param_len);
        let method = request.method_name.clone().unwrap_or_default();
        let answer = match registry_answer(&method, port) {
            Some(reply) => Answer::Reply(reply),
            None => {
                let count = {
                    let mut seen = seen.lock().unwrap();
                    let calls = seen.calls.entry(method.clone()).or_default();
                    calls.push(param.clone());
                    calls.len()
                };
                script(&method, count, &param)
            }
        };
        let mut header = pb::ResponseHeader { call_id: request.call_id, ..Default::default() };
        let body = match answer {
            Answer::Reply(body) => Some(body),
            Answer::Throw(class, message) => {
                header.exception = Some(pb::ExceptionResponse {
                    exception_class_name: Some(class.into()),
                    stack_trace: Some(format!("{class}: {message}\n\tat somewhere")),
                    ..Default::default()
                });
                None
            }
            Answer::Disconnect => return,
        };
        let mut out = BytesMut::new();
        header.encode_length_delimited(&mut out).unwrap();
        if let Some(body) = body {
            prost::encoding::encode_varint(body.len() as u64, &mut out);
            out.extend_from_slice(&body);
        }
        let mut framed = BytesMut::new();
        framed.extend_from_slice(&(out.len() as u32).to_be_bytes());
        framed.extend_from_slice(&out);
        if stream.write_all(&framed).await.is_err() {
            return;
        }
    }
}

fn schema() -> TableSchema {
    TableSchema::new("t").family(FamilyDescriptor::new("d"))
}

fn procedure_result(state: pb::get_procedure_result_response::State) -> Vec<u8> {
    pb::GetProcedureResultResponse { state: state as i32, ..Default::default() }.encode_to_vec()
}

fn nonce_of(request: &Bytes) -> (Option<u64>, Option<u64>) {
    let request = pb::CreateTableRequest::decode(request.clone().chunk()).unwrap();
    (request.nonce_group, request.nonce)
}

#[tokio::test]
async fn a_master_that_holds_is_retried_with_the_same_nonce() {
    use pb::get_procedure_result_response::State;
    let master = FakeMaster::start(Box::new(|method, count, _| match (method, count) {
        ("CreateTable", 1) => Answer::Throw("org.apache.hadoop.hbase.PleaseHoldException", "Master is initializing"),
        ("CreateTable", 2) => Answer::Disconnect,
        ("CreateTable", _) => Answer::Reply(pb::CreateTableResponse { proc_id: Some(7) }.encode_to_vec()),
        ("getProcedureResult", 1) => Answer::Reply(procedure_result(State::Running)),
        ("getProcedureResult", _) => Answer::Reply(procedure_result(State::Finished)),
        _ => Answer::Throw("java.io.IOException", "unexpected"),
    }))
    .await;
    let admin = master.client().await.admin();
    admin.create_table(&schema(), &[]).await.unwrap();
    let creates = master.calls("CreateTable");
    assert_eq!(creates.len(), 3, "held, lost, answered");
    let nonce = nonce_of(&creates[0]);
    assert!(nonce.0.is_some() && nonce.1.is_some());
    assert!(creates.iter().all(|c| nonce_of(c) == nonce), "one nonce for every attempt");
    assert_eq!(master.calls("getProcedureResult").len(), 2);
    // The next operation has a nonce of its own.
    admin.create_table(&schema(), &[]).await.unwrap();
    assert_ne!(nonce_of(&master.calls("CreateTable")[3]), nonce);
}

#[tokio::test]
async fn a_failed_procedure_is_its_exception_and_a_lost_balance_is_not_resent() {
    let master = FakeMaster::start(Box::new(|method, _, _| match method {
        "DeleteTable" => Answer::Reply(pb::DeleteTableResponse { proc_id: Some(3) }.encode_to_vec()),
        "getProcedureResult" => Answer::Reply(
            pb::GetProcedureResultResponse {
                state: pb::get_procedure_result_response::State::Finished as i32,
                exception: Some(pb::ForeignExceptionMessage {
                    source: Some("master".into()),
                    generic_exception: Some(pb::GenericExceptionMessage {
                        class_name: Some("org.apache.hadoop.hbase.TableNotDisabledException".into()),
                        message: Some("t".into()),
                        ..Default::default()
                    }),
                }),
                ..Default::default()
            }
            .encode_to_vec(),
        ),
        "Balance" => Answer::Disconnect,
        "GetTableState" => Answer::Throw("org.apache.hadoop.hbase.TableNotFoundException", "t"),
        _ => Answer::Throw("java.io.IOException", "unexpected"),
    }))
    .await;
    let admin = master.client().await.admin();
    let error = admin.delete_table("t").await.unwrap_err();
    assert!(is_remote_class(&error, "TableNotDisabledException"), "{error:?}");
    // A balancer run whose answer was lost is not run again.
    assert!(matches!(admin.balance(false, false).await, Err(RpcError::ConnectionFailed { .. })));
    assert_eq!(master.calls("Balance").len(), 1);
    assert!(!admin.table_exists("t").await.unwrap());
    // Nothing is sent for a bad name.
    assert!(matches!(admin.delete_table("no such:table").await, Err(RpcError::InvalidArgument(_))));
    assert_eq!(master.calls("DeleteTable").len(), 1);
}

#[tokio::test]
async fn a_procedure_past_its_deadline_names_what_still_runs() {
    let master = FakeMaster::start(Box::new(|method, _, _| match method {
        "EnableTable" => Answer::Reply(pb::EnableTableResponse { proc_id: Some(40) }.encode_to_vec()),
        "getProcedureResult" => Answer::Reply(procedure_result(pb::get_procedure_result_response::State::Running)),
        "GetProcedures" => {
            let procedure = |id: u64, parent: Option<u64>, class: &str| pb::Procedure {
                class_name: class.into(),
                parent_id: parent,
                proc_id: id,
                state: pb::ProcedureState::Runnable as i32,
                ..Default::default()
            };
            let procedures = vec![
                procedure(40, None, "org.apache.hadoop.hbase.master.procedure.EnableTableProcedure"),
                procedure(41, Some(40), "org.apache.hadoop.hbase.master.assignment.TransitRegionStateProcedure"),
                procedure(99, None, "org.apache.hadoop.hbase.master.procedure.Unrelated"),
            ];
            Answer::Reply(pb::GetProceduresResponse { procedure: procedures }.encode_to_vec())
        }
        _ => Answer::Throw("java.io.IOException", "unexpected"),
    }))
    .await;
    let admin = master.client().await.admin().with_timeout(Duration::from_millis(200));
    let error = admin.enable_table("t").await.unwrap_err();
    let remote = error.remote().expect("a remote error");
    assert_eq!(remote.exception.class_name, PROCEDURE_TIMEOUT);
    let message = &remote.exception.message;
    assert!(message.contains("enable table t: procedure 40 still running"), "{message}");
    assert!(message.contains("40 EnableTableProcedure") && message.contains("41 TransitRegionStateProcedure"));
    assert!(!message.contains("Unrelated"), "{message}");
    assert!(master.calls("getProcedureResult").len() >= 2);
}

#[tokio::test]
async fn a_snapshot_without_a_procedure_is_polled_and_a_clone_never_restores() {
    let master = FakeMaster::start(Box::new(|method, count, _| match (method, count) {
        ("Snapshot", _) => {
            Answer::Reply(pb::SnapshotResponse { expected_timeout: 1000, proc_id: None }.encode_to_vec())
        }
        ("IsSnapshotDone", n) => {
            Answer::Reply(pb::IsSnapshotDoneResponse { done: Some(n >= 3), snapshot: None }.encode_to_vec())
        }
        ("GetTableState", _) => Answer::Reply(
            pb::GetTableStateResponse { table_state: pb::TableState { state: pb::table_state::State::Enabled as i32 } }
                .encode_to_vec(),
        ),
        _ => Answer::Throw("java.io.IOException", "unexpected"),
    }))
    .await;
    let admin = master.client().await.admin();
    admin.snapshot("s1", "default:t").await.unwrap();
    let sent = pb::SnapshotRequest::decode(master.calls("Snapshot")[0].clone()).unwrap();
    assert_eq!(sent.snapshot.table.as_deref(), Some("t"), "the table as HBase spells it");
    assert!(sent.nonce.is_some());
    assert_eq!(master.calls("IsSnapshotDone").len(), 3);
    // The table exists: the master would restore it, so nothing is sent.
    let error = admin.clone_snapshot("s1", "t").await.unwrap_err();
    assert!(is_remote_class(&error, "TableExistsException"), "{error:?}");
    assert!(master.calls("RestoreSnapshot").is_empty());
    assert!(matches!(admin.snapshot("bad name", "t").await, Err(RpcError::InvalidArgument(_))));
}
