//! Puts and deletes applied to one row atomically, optionally under a condition: one
//! atomic region action in a `Multi` call, as HBase's `RowMutations` and
//! `checkAndMutate(RowMutations)` send them.

use crate::batch::remote_error;
use crate::client::{validate_row, RpcClient};
use crate::error::RpcError;
use crate::mutation::{Check, Mutation};
use crate::pb;

impl RpcClient {
    /// Applies `mutations` (puts and deletes of one row) atomically.
    pub async fn mutate_row(&self, table: &str, mutations: &[Mutation]) -> Result<(), RpcError> {
        self.atomic_row(table, None, mutations).await.map(|_| ())
    }

    /// Applies `mutations` (puts and deletes of the checked row) atomically if `check`
    /// holds; returns whether they were applied.
    pub async fn check_and_mutate_row(
        &self,
        table: &str,
        check: &Check,
        mutations: &[Mutation],
    ) -> Result<bool, RpcError> {
        self.atomic_row(table, Some(check), mutations).await
    }

    async fn atomic_row(&self, table: &str, check: Option<&Check>, mutations: &[Mutation]) -> Result<bool, RpcError> {
        let Some(first) = mutations.first() else {
            return Err(RpcError::InvalidArgument("row mutations need at least one put or delete".into()));
        };
        let row = first.row().clone();
        validate_row(&row)?;
        if mutations.iter().any(|m| m.row() != &row || !m.is_put_or_delete()) {
            return Err(RpcError::InvalidArgument("row mutations are puts and deletes of one row".into()));
        }
        if check.is_some_and(|check| check.row != row) {
            return Err(RpcError::InvalidArgument("check-and-mutate checks the mutations' own row".into()));
        }
        let actions: Vec<pb::Action> = mutations
            .iter()
            .enumerate()
            .map(|(index, m)| pb::Action {
                index: Some(index as u32),
                mutation: Some(m.to_proto(None)),
                ..Default::default()
            })
            .collect();
        let condition = check.map(Check::to_proto);
        // Conditional writes are not retried after an unknown outcome (a retry could
        // see its own write and answer false); plain row mutations are, unless one
        // deletes a column's newest version (a retry would delete one more).
        let resendable = check.is_none() && mutations.iter().all(Mutation::is_idempotent);
        self.with_region(table, &row, resendable, |region| {
            let request = pb::MultiRequest {
                region_action: vec![pb::RegionAction {
                    region: region.specifier(),
                    atomic: Some(true),
                    action: actions.clone(),
                    condition: condition.clone(),
                }],
                ..Default::default()
            };
            async move {
                let reply = self.call(&region.server, "Multi", &request, None).await?;
                let response: pb::MultiResponse = reply.decode(&region.server)?;
                let Some(result) = response.region_action_result.first() else {
                    return Err(RpcError::Protocol {
                        addr: region.server.clone(),
                        reason: "no region result for an atomic row mutation".into(),
                    });
                };
                if let Some(exception) = &result.exception {
                    return Err(remote_error(&region.server, exception));
                }
                if let Some(exception) = result.result_or_exception.iter().find_map(|r| r.exception.as_ref()) {
                    return Err(remote_error(&region.server, exception));
                }
                Ok(result.processed.unwrap_or(true))
            }
        })
        .await
    }
}
