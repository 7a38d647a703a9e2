//! Waiting on the master's procedures: the id a create, delete, enable, ... returns is
//! polled with `GetProcedureResult` until it finishes or the deadline passes; then
//! `GetProcedures` tells what of it is still running.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{remote, Repeat, RpcAdmin};
use crate::error::RpcError;
use crate::pb;
use crate::pb::get_procedure_result_response::State;

/// The class of the error a procedure wait returns when its deadline passes (as an
/// [`RpcError::Remote`] from the master, marked not to retry): HBase's own
/// `TimeoutIOException`. Its message names the procedure, its state and the
/// sub-procedures still running; the procedure itself goes on in the master.
pub const PROCEDURE_TIMEOUT: &str = "org.apache.hadoop.hbase.exceptions.TimeoutIOException";

/// The longest pause between two polls of a running procedure.
const MAX_POLL_PAUSE: Duration = Duration::from_millis(500);
/// The first pause between polls.
const FIRST_POLL_PAUSE: Duration = Duration::from_millis(20);
/// How many running procedures a timeout's message names at most.
const MAX_REPORTED: usize = 8;

/// Where a procedure is, as `GetProcedureResult` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcedureState {
    /// Still running.
    Running,
    /// Finished successfully; the result bytes, if the procedure has one.
    Finished(Option<bytes::Bytes>),
    /// Finished with an exception (class, message).
    Failed {
        /// The Java class of the exception.
        class_name: String,
        /// Its message.
        message: String,
    },
    /// The master does not know the id: never submitted, or finished long enough ago
    /// that its result was evicted (HBase's `hbase.procedure.cleaner.evict.ttl`, 15 min
    /// by default), or lost in a master restart.
    NotFound,
}

impl RpcAdmin {
    /// Asks the master once where procedure `proc_id` is.
    pub async fn procedure_state(&self, proc_id: u64) -> Result<ProcedureState, RpcError> {
        self.procedure_state_until(proc_id, self.deadline()).await
    }

    async fn procedure_state_until(&self, proc_id: u64, deadline: Instant) -> Result<ProcedureState, RpcError> {
        let request = pb::GetProcedureResultRequest { proc_id };
        let response: pb::GetProcedureResultResponse =
            self.master_call_until("getProcedureResult", &request, Repeat::Safe, deadline).await?;
        Ok(match response.state() {
            State::Running => ProcedureState::Running,
            State::NotFound => ProcedureState::NotFound,
            State::Finished => match response.exception {
                Some(exception) => {
                    let (class_name, message) = foreign_exception(&exception);
                    ProcedureState::Failed { class_name, message }
                }
                None => ProcedureState::Finished(response.result),
            },
        })
    }

    /// Waits for procedure `proc_id` to finish, until this admin's deadline (see
    /// [`with_timeout`](Self::with_timeout)). A failed procedure is its exception as an
    /// [`RpcError::Remote`]; a procedure the master no longer knows counts as finished
    /// (as in HBase's Java admin). When the deadline passes: a [`PROCEDURE_TIMEOUT`]
    /// error naming what is still running.
    pub async fn wait_procedure(&self, proc_id: u64) -> Result<(), RpcError> {
        self.wait_procedure_until(proc_id, "procedure", self.deadline()).await
    }

    /// [`wait_procedure`](Self::wait_procedure) for `what` (such as `create table t`)
    /// with the operation's deadline.
    pub(crate) async fn wait_procedure_until(
        &self,
        proc_id: u64,
        what: &str,
        deadline: Instant,
    ) -> Result<(), RpcError> {
        let started = Instant::now();
        let mut pause = FIRST_POLL_PAUSE;
        loop {
            let state = self.procedure_state_until(proc_id, deadline).await?;
            match state {
                ProcedureState::Finished(_) | ProcedureState::NotFound => return Ok(()),
                ProcedureState::Failed { class_name, message } => {
                    return Err(remote(&self.master().unwrap_or_default(), &class_name, message))
                }
                ProcedureState::Running => {}
            }
            let now = Instant::now();
            if now >= deadline {
                let running = self.describe_running(proc_id).await;
                let message = format!(
                    "{what}: procedure {proc_id} still running after {:.1?}{running}",
                    now.duration_since(started)
                );
                return Err(remote(&self.master().unwrap_or_default(), PROCEDURE_TIMEOUT, message));
            }
            tokio::time::sleep(pause.min(deadline.saturating_duration_since(now))).await;
            pause = (pause * 2).min(MAX_POLL_PAUSE);
        }
    }

    /// Waits for the procedure of a reply that may carry one (`None`: the master ran
    /// the operation in the call itself).
    pub(crate) async fn wait_optional(
        &self,
        proc_id: Option<u64>,
        what: &str,
        deadline: Instant,
    ) -> Result<(), RpcError> {
        match proc_id {
            Some(proc_id) => self.wait_procedure_until(proc_id, what, deadline).await,
            None => Ok(()),
        }
    }

    /// `: ` and the procedure and its descendants still running (class, state, age),
    /// from `GetProcedures`; empty when the master cannot say in a few seconds.
    async fn describe_running(&self, proc_id: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(5);
        let response: Result<pb::GetProceduresResponse, _> =
            self.master_call_until("GetProcedures", &pb::GetProceduresRequest {}, Repeat::Safe, deadline).await;
        let Ok(response) = response else { return String::new() };
        let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        // The procedure and its descendants (a parent precedes its children's search).
        let mut family = vec![proc_id];
        let mut index = 0;
        while index < family.len() && family.len() < 1000 {
            let parent = family[index];
            family.extend(response.procedure.iter().filter(|p| p.parent_id == Some(parent)).map(|p| p.proc_id));
            index += 1;
        }
        let unfinished: Vec<&pb::Procedure> = response
            .procedure
            .iter()
            .filter(|p| family.contains(&p.proc_id))
            .filter(|p| {
                !matches!(
                    p.state(),
                    pb::ProcedureState::Success | pb::ProcedureState::Failed | pb::ProcedureState::Rolledback
                )
            })
            .collect();
        let mut running: Vec<String> = unfinished
            .iter()
            .take(MAX_REPORTED)
            .map(|p| {
                let class = p.class_name.rsplit('.').next().unwrap_or(&p.class_name);
                let age = now_ms.saturating_sub(p.submitted_time) as f64 / 1000.0;
                format!("{} {class} {:?} for {age:.1}s", p.proc_id, p.state())
            })
            .collect();
        if unfinished.len() > MAX_REPORTED {
            running.push(format!("{} more", unfinished.len() - MAX_REPORTED));
        }
        if running.is_empty() {
            String::new()
        } else {
            format!("; still running: {}", running.join(", "))
        }
    }
}

/// The class and message of a procedure's exception.
fn foreign_exception(exception: &pb::ForeignExceptionMessage) -> (String, String) {
    let generic = exception.generic_exception.as_ref();
    let class_name = generic.and_then(|g| g.class_name.clone()).unwrap_or_else(|| "java.io.IOException".to_owned());
    let message = generic.and_then(|g| g.message.clone()).unwrap_or_default();
    // The master wraps the cause: "org.apache...TableExistsException: t" in the message.
    (class_name, message)
}
