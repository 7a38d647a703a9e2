//! Mutations (put, delete, increment, append) and the conditions of check-and-mutate,
//! as HBase's protobuf messages. Values travel inside the message, not in a cell block.

use bytes::Bytes;

use crate::pb;
pub use crate::pb::mutation_proto::Durability;
use crate::pb::mutation_proto::{column_value::QualifierValue, ColumnValue, DeleteType, MutationType};

/// One row's change.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    row: Bytes,
    kind: MutationType,
    columns: Vec<(Bytes, QualifierValue)>,
    timestamp: Option<u64>,
    durability: Option<Durability>,
}

impl Mutation {
    /// Writes values into `row` (add them with [`Mutation::column`]).
    pub fn put(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Put)
    }

    /// Deletes the whole `row`, or only the columns and families added with
    /// [`Mutation::column`] / [`Mutation::family`].
    pub fn delete(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Delete)
    }

    /// Adds to 64-bit counters of `row` (add them with [`Mutation::add`]).
    pub fn increment(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Increment)
    }

    /// Appends bytes to values of `row` (add them with [`Mutation::column`]).
    pub fn append(row: impl Into<Bytes>) -> Mutation {
        Mutation::new(row, MutationType::Append)
    }

    fn new(row: impl Into<Bytes>, kind: MutationType) -> Mutation {
        Mutation { row: row.into(), kind, columns: Vec::new(), timestamp: None, durability: None }
    }

    /// The row.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Whether the mutation may be applied twice without changing the outcome (puts
    /// and deletes). Increments and appends carry a nonce instead: the server
    /// recognizes a retry of one it already applied and does not apply it again.
    pub fn is_idempotent(&self) -> bool {
        matches!(self.kind, MutationType::Put | MutationType::Delete)
    }

    /// Whether the mutation is sent with a nonce (increments and appends).
    pub(crate) fn needs_nonce(&self) -> bool {
        matches!(self.kind, MutationType::Increment | MutationType::Append)
    }

    /// How the write-ahead log treats the mutation (default: the table's setting).
    pub fn durability(mut self, durability: Durability) -> Mutation {
        self.durability = Some(durability);
        self
    }

    /// Whether this is a put or a delete (what an atomic row mutation may hold).
    pub(crate) fn is_put_or_delete(&self) -> bool {
        matches!(self.kind, MutationType::Put | MutationType::Delete)
    }

    /// The timestamp of every cell put without its own (default: the server's clock);
    /// for a delete of the whole row, deletes only versions at or before it.
    pub fn at(mut self, timestamp: u64) -> Mutation {
        self.timestamp = Some(timestamp);
        self
    }

    /// A column with its own timestamp (puts), or the deletion of the column's versions
    /// at or before `timestamp` (deletes).
    pub fn column_at(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
        timestamp: u64,
    ) -> Mutation {
        let mut mutation = self.column(family, qualifier, value);
        if let Some((_, last)) = mutation.columns.last_mut() {
            last.timestamp = Some(timestamp);
        }
        mutation
    }

    /// Deletes the newest version of a column (only for deletes).
    pub fn delete_latest_version(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteOneVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// Deletes exactly one version of a column: the one written at `timestamp` (only for
    /// deletes).
    pub fn delete_version(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: Some(timestamp),
                delete_type: Some(DeleteType::DeleteOneVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// Deletes the versions of a whole family at or before `timestamp` (only for
    /// deletes).
    pub fn family_at(mut self, family: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self = self.family(family);
        if let Some((_, last)) = self.columns.last_mut() {
            last.timestamp = Some(timestamp);
        }
        self
    }

    /// Deletes the cells of a family written exactly at `timestamp` (only for
    /// deletes).
    pub fn family_version(mut self, family: impl Into<Bytes>, timestamp: u64) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: None,
                value: None,
                timestamp: Some(timestamp),
                delete_type: Some(DeleteType::DeleteFamilyVersion as i32),
                tags: None,
            },
        ));
        self
    }

    /// A column: the value to put or append, or (for a delete) every version of the
    /// column is deleted and `value` is ignored.
    pub fn column(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Mutation {
        let qualifier_value = match self.kind {
            MutationType::Delete => QualifierValue {
                qualifier: Some(qualifier.into()),
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteMultipleVersions as i32),
                tags: None,
            },
            MutationType::Put | MutationType::Append | MutationType::Increment => QualifierValue {
                qualifier: Some(qualifier.into()),
                value: Some(value.into()),
                timestamp: None,
                delete_type: None,
                tags: None,
            },
        };
        self.columns.push((family.into(), qualifier_value));
        self
    }

    /// A whole family to delete (only for deletes).
    pub fn family(mut self, family: impl Into<Bytes>) -> Mutation {
        self.columns.push((
            family.into(),
            QualifierValue {
                qualifier: None,
                value: None,
                timestamp: None,
                delete_type: Some(DeleteType::DeleteFamily as i32),
                tags: None,
            },
        ));
        self
    }

    /// An amount to add to a counter (for increments).
    pub fn add(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>, amount: i64) -> Mutation {
        self.column(family, qualifier, Bytes::copy_from_slice(&amount.to_be_bytes()))
    }

    /// The protobuf message, columns grouped by family in the order given, with the
    /// nonce of this operation (increments and appends).
    pub(crate) fn to_proto(&self, nonce: Option<u64>) -> pb::MutationProto {
        let mut column_value: Vec<ColumnValue> = Vec::new();
        for (family, qualifier_value) in &self.columns {
            match column_value.iter_mut().find(|c| c.family == *family) {
                Some(column) => column.qualifier_value.push(qualifier_value.clone()),
                None => column_value
                    .push(ColumnValue { family: family.clone(), qualifier_value: vec![qualifier_value.clone()] }),
            }
        }
        pb::MutationProto {
            row: Some(self.row.clone()),
            mutate_type: Some(self.kind as i32),
            column_value,
            timestamp: self.timestamp,
            durability: self.durability.map(|d| d as i32),
            nonce: nonce.filter(|_| self.needs_nonce()),
            ..Default::default()
        }
    }
}

/// What check-and-mutate compares before mutating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The row checked (must be the mutation's row).
    pub row: Bytes,
    /// The column's family.
    pub family: Bytes,
    /// The column's qualifier.
    pub qualifier: Bytes,
    /// The expected value; `None`: the column must not exist.
    pub expected: Option<Bytes>,
    /// How the column's value compares to `expected` (HBase's order: the operator
    /// applies to `expected` against the stored value, as in the Java client).
    pub compare: pb::CompareType,
}

impl Check {
    /// The column must hold exactly `expected` (`None`: must not exist).
    pub fn equals(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        expected: Option<Bytes>,
    ) -> Check {
        Check {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            expected,
            compare: pb::CompareType::Equal,
        }
    }
}

impl Check {
    /// The protobuf condition: equal to the value (a `BinaryComparator`), or absent (a
    /// `NullComparator`).
    pub(crate) fn to_proto(&self) -> pb::Condition {
        use prost::Message;
        let comparator = match &self.expected {
            Some(value) => pb::Comparator {
                name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
                serialized_comparator: Some(Bytes::from(
                    pb::BinaryComparator { comparable: pb::ByteArrayComparable { value: Some(value.clone()) } }
                        .encode_to_vec(),
                )),
            },
            None => pb::Comparator {
                name: "org.apache.hadoop.hbase.filter.NullComparator".into(),
                serialized_comparator: Some(Bytes::from(pb::NullComparator {}.encode_to_vec())),
            },
        };
        pb::Condition {
            row: self.row.clone(),
            family: Some(self.family.clone()),
            qualifier: Some(self.qualifier.clone()),
            compare_type: Some(self.compare as i32),
            comparator: Some(comparator),
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_group_by_family() {
        let proto =
            Mutation::put("r").column("f", "a", "1").column("g", "b", "2").column("f", "c", "3").to_proto(Some(9));
        assert_eq!(proto.nonce, None, "puts carry no nonce");
        assert_eq!(proto.column_value.len(), 2);
        assert_eq!(proto.column_value[0].qualifier_value.len(), 2);
        assert_eq!(proto.mutate_type, Some(MutationType::Put as i32));
        let increment = Mutation::increment("r").add("f", "n", -2).to_proto(Some(9));
        assert_eq!(increment.nonce, Some(9));
        assert_eq!(increment.column_value[0].qualifier_value[0].value.as_deref(), Some(&(-2i64).to_be_bytes()[..]));
        let delete = Mutation::delete("r").family("f").to_proto(None);
        assert_eq!(delete.column_value[0].qualifier_value[0].delete_type, Some(DeleteType::DeleteFamily as i32));
        assert!(!Mutation::append("r").is_idempotent());
        let versions = Mutation::delete("r").delete_version("f", "q", 7).family_at("g", 8).to_proto(None);
        let first = &versions.column_value[0].qualifier_value[0];
        assert_eq!((first.delete_type, first.timestamp), (Some(DeleteType::DeleteOneVersion as i32), Some(7)));
        let second = &versions.column_value[1].qualifier_value[0];
        assert_eq!((second.delete_type, second.timestamp), (Some(DeleteType::DeleteFamily as i32), Some(8)));
        let put = Mutation::put("r").at(5).column_at("f", "q", "v", 6).to_proto(None);
        assert_eq!((put.timestamp, put.column_value[0].qualifier_value[0].timestamp), (Some(5), Some(6)));
    }
}
