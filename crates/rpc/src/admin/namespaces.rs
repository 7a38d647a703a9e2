//! Namespaces: create, modify, delete, describe, list (`CreateNamespace`,
//! `ModifyNamespace`, `DeleteNamespace`, `GetNamespaceDescriptor`, `ListNamespaces`,
//! `ListNamespaceDescriptors`).

use std::collections::BTreeMap;

use bytes::Bytes;

use super::names::validate_namespace;
use super::schema::name_strings;
use super::{missing, Repeat, RpcAdmin};
use crate::error::RpcError;
use crate::pb;

/// The most configuration entries sent with a namespace (a sanity bound).
const MAX_CONFIGURATION: usize = 10_000;

/// A namespace's name and configuration (quotas such as `hbase.namespace.quota.maxtables`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    /// The namespace's name.
    pub name: String,
    /// Its configuration.
    pub configuration: BTreeMap<String, String>,
}

impl NamespaceDescriptor {
    fn to_proto(&self) -> Result<pb::NamespaceDescriptor, RpcError> {
        validate_namespace(&self.name)?;
        if self.configuration.len() > MAX_CONFIGURATION {
            return Err(RpcError::InvalidArgument(format!("more than {MAX_CONFIGURATION} configuration entries")));
        }
        Ok(pb::NamespaceDescriptor {
            name: Bytes::from(self.name.clone().into_bytes()),
            configuration: name_strings(&self.configuration),
        })
    }

    fn from_proto(proto: pb::NamespaceDescriptor) -> NamespaceDescriptor {
        NamespaceDescriptor {
            name: String::from_utf8_lossy(&proto.name).into_owned(),
            configuration: proto.configuration.into_iter().map(|p| (p.name, p.value)).collect(),
        }
    }
}

impl RpcAdmin {
    /// Creates namespace `name` with `configuration`; `NamespaceExistException` if it exists.
    pub async fn create_namespace(&self, name: &str, configuration: BTreeMap<String, String>) -> Result<(), RpcError> {
        let descriptor = NamespaceDescriptor { name: name.to_owned(), configuration }.to_proto()?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::CreateNamespaceRequest { namespace_descriptor: descriptor, nonce_group, nonce };
        let response: pb::CreateNamespaceResponse =
            self.master_call_until("CreateNamespace", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("create namespace {name}"), deadline).await
    }

    /// Replaces namespace `name`'s configuration.
    pub async fn modify_namespace(&self, name: &str, configuration: BTreeMap<String, String>) -> Result<(), RpcError> {
        let descriptor = NamespaceDescriptor { name: name.to_owned(), configuration }.to_proto()?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::ModifyNamespaceRequest { namespace_descriptor: descriptor, nonce_group, nonce };
        let response: pb::ModifyNamespaceResponse =
            self.master_call_until("ModifyNamespace", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("modify namespace {name}"), deadline).await
    }

    /// Deletes namespace `name`, which must hold no table (`ConstraintException`
    /// otherwise); `default` and `hbase` cannot be deleted.
    pub async fn delete_namespace(&self, name: &str) -> Result<(), RpcError> {
        validate_namespace(name)?;
        let deadline = self.deadline();
        let (nonce_group, nonce) = self.nonce();
        let request = pb::DeleteNamespaceRequest { namespace_name: name.to_owned(), nonce_group, nonce };
        let response: pb::DeleteNamespaceResponse =
            self.master_call_until("DeleteNamespace", &request, Repeat::Safe, deadline).await?;
        self.wait_optional(response.proc_id, &format!("delete namespace {name}"), deadline).await
    }

    /// Namespace `name`'s descriptor; `NamespaceNotFoundException` if it does not exist.
    pub async fn describe_namespace(&self, name: &str) -> Result<NamespaceDescriptor, RpcError> {
        validate_namespace(name)?;
        let request = pb::GetNamespaceDescriptorRequest { namespace_name: name.to_owned() };
        let response: pb::GetNamespaceDescriptorResponse =
            self.master_call("GetNamespaceDescriptor", &request, Repeat::Safe).await?;
        Ok(NamespaceDescriptor::from_proto(response.namespace_descriptor))
    }

    /// The names of every namespace.
    pub async fn list_namespaces(&self) -> Result<Vec<String>, RpcError> {
        let request = pb::ListNamespacesRequest::default();
        let response: pb::ListNamespacesResponse = self.master_call("ListNamespaces", &request, Repeat::Safe).await?;
        Ok(response.namespace_name)
    }

    /// Every namespace's descriptor.
    pub async fn list_namespace_descriptors(&self) -> Result<Vec<NamespaceDescriptor>, RpcError> {
        let request = pb::ListNamespaceDescriptorsRequest {};
        let response: pb::ListNamespaceDescriptorsResponse =
            self.master_call("ListNamespaceDescriptors", &request, Repeat::Safe).await?;
        let master = self.master().unwrap_or_default();
        if response.namespace_descriptor.iter().any(|d| d.name.is_empty()) {
            return Err(missing(&master, "namespace name"));
        }
        Ok(response.namespace_descriptor.into_iter().map(NamespaceDescriptor::from_proto).collect())
    }
}
