//! Mutations (put, delete, increment, append) and the conditions of check-and-mutate,
//! as HBase's protobuf messages. Values travel inside the message, not in a cell block.

use bytes::Bytes;

use crate::pb;
use crate::pb::mutation_proto::{column_value::QualifierValue, ColumnValue, DeleteType, MutationType};

/// One row's change.
#[derive(Debug, Clone, PartialEq)]
pub struct Mutation {
    row: Bytes,
    kind: MutationType,
    columns: Vec<(Bytes, QualifierValue)>,
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
        Mutation { row: row.into(), kind, columns: Vec::new() }
    }

    /// The row.
    pub fn row(&self) -> &Bytes {
        &self.row
    }

    /// Whether the mutation may be applied twice without changing the outcome (puts
    /// and deletes); increments and appends are not retried after an unknown outcome.
    pub fn is_idempotent(&self) -> bool {
        matches!(self.kind, MutationType::Put | MutationType::Delete)
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

    /// The protobuf message, columns grouped by family in the order given.
    pub(crate) fn to_proto(&self) -> pb::MutationProto {
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
            compare_type: Some(pb::CompareType::Equal as i32),
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
        let proto = Mutation::put("r").column("f", "a", "1").column("g", "b", "2").column("f", "c", "3").to_proto();
        assert_eq!(proto.column_value.len(), 2);
        assert_eq!(proto.column_value[0].qualifier_value.len(), 2);
        assert_eq!(proto.mutate_type, Some(MutationType::Put as i32));
        let increment = Mutation::increment("r").add("f", "n", -2).to_proto();
        assert_eq!(increment.column_value[0].qualifier_value[0].value.as_deref(), Some(&(-2i64).to_be_bytes()[..]));
        let delete = Mutation::delete("r").family("f").to_proto();
        assert_eq!(delete.column_value[0].qualifier_value[0].delete_type, Some(DeleteType::DeleteFamily as i32));
        assert!(!Mutation::append("r").is_idempotent());
    }
}
