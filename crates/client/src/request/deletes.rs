//! The cells of a delete as HBase's Java `Delete` holds them.

use std::collections::BTreeMap;

use bytes::Bytes;

/// What a delete removes; every variant says exactly which versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DeleteSpec {
    /// The newest version of a column (or the version at exactly `ts`).
    ColumnVersion(Bytes, Bytes, Option<i64>),
    /// Every version of a column (or those at or before `ts`).
    ColumnAllVersions(Bytes, Bytes, Option<i64>),
    /// Every column of a family (versions at or before `ts`).
    Family(Bytes, Option<i64>),
    /// Every column of a family, only the versions at exactly `ts`.
    FamilyVersion(Bytes, i64),
}

fn family_of(spec: &DeleteSpec) -> &Bytes {
    match spec {
        DeleteSpec::ColumnVersion(family, _, _)
        | DeleteSpec::ColumnAllVersions(family, _, _)
        | DeleteSpec::Family(family, _)
        | DeleteSpec::FamilyVersion(family, _) => family,
    }
}

/// The farther reach of two family deletes (`None`: every version, the farthest).
fn farther(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (None, _) | (_, None) => None,
    }
}

/// A delete's parts (in call order) as the cells of one HBase delete, in the order
/// Java's `Delete` lists them: by family in byte order (its tree map), each family's
/// cells in call order, where a family delete first drops the cells given before it for
/// its family (Java's `addFamily` clears the family's list) and the others append
/// (`addColumn`, `addColumns`, `addFamilyVersion`).
///
/// One deliberate difference, documented on [`Delete::family_until`](crate::Delete::family_until):
/// the family delete that remains reaches as far as the farthest family delete given
/// for the family (their union), where Java keeps the last one's timestamp.
///
/// HBase's server rebuilds its `Delete` by replaying a request's cells through the same
/// calls (`ProtobufUtil.toDelete`), or takes cell-block cells as they come; either way
/// these cells in one mutation are what Java's client sends. In one mutation the server
/// also counts a column's repeated latest-version deletes (each removes one more
/// version, `HRegion.prepareDeleteTimestamps`), which separate mutations would not.
pub(crate) fn delete_cells(specs: &[DeleteSpec]) -> Vec<DeleteSpec> {
    let mut families: BTreeMap<&Bytes, Vec<DeleteSpec>> = BTreeMap::new();
    for spec in specs {
        let cells = families.entry(family_of(spec)).or_default();
        match spec {
            DeleteSpec::Family(family, ts) => {
                // After a clear, a family delete can only be the first cell.
                let earlier = match cells.first() {
                    Some(DeleteSpec::Family(_, earlier)) => Some(*earlier),
                    Some(
                        DeleteSpec::ColumnVersion(..)
                        | DeleteSpec::ColumnAllVersions(..)
                        | DeleteSpec::FamilyVersion(..),
                    )
                    | None => None,
                };
                let reach = match earlier {
                    Some(earlier) => farther(earlier, *ts),
                    None => *ts,
                };
                cells.clear();
                cells.push(DeleteSpec::Family(family.clone(), reach));
            }
            DeleteSpec::ColumnVersion(..) | DeleteSpec::ColumnAllVersions(..) | DeleteSpec::FamilyVersion(..) => {
                cells.push(spec.clone())
            }
        }
    }
    families.into_values().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes::copy_from_slice(s.as_bytes())
    }

    fn latest(f: &str, q: &str) -> DeleteSpec {
        DeleteSpec::ColumnVersion(b(f), b(q), None)
    }

    fn family(f: &str, ts: Option<i64>) -> DeleteSpec {
        DeleteSpec::Family(b(f), ts)
    }

    #[test]
    fn a_latest_version_named_twice_stays_twice() {
        let specs = [latest("a", "x"), latest("a", "x")];
        assert_eq!(delete_cells(&specs), specs.to_vec());
    }

    #[test]
    fn a_family_delete_drops_its_familys_earlier_cells_only() {
        let specs = [
            latest("a", "x"),
            DeleteSpec::ColumnAllVersions(b("a"), b("y"), Some(4)),
            latest("b", "x"),
            DeleteSpec::FamilyVersion(b("a"), 7),
            family("a", Some(9)),
            latest("a", "z"),
            DeleteSpec::FamilyVersion(b("a"), 3),
        ];
        assert_eq!(
            delete_cells(&specs),
            vec![family("a", Some(9)), latest("a", "z"), DeleteSpec::FamilyVersion(b("a"), 3), latest("b", "x")]
        );
    }

    #[test]
    fn families_come_in_byte_order_each_in_call_order() {
        let specs = [latest("c", "2"), latest("a", "9"), latest("c", "1"), latest("a", "0")];
        assert_eq!(delete_cells(&specs), vec![latest("a", "9"), latest("a", "0"), latest("c", "2"), latest("c", "1")]);
    }

    #[test]
    fn repeated_family_deletes_keep_the_farthest_reach() {
        assert_eq!(delete_cells(&[family("a", None), family("a", Some(100))]), vec![family("a", None)]);
        assert_eq!(delete_cells(&[family("a", Some(100)), family("a", None)]), vec![family("a", None)]);
        assert_eq!(
            delete_cells(&[family("a", Some(60)), latest("a", "q"), family("a", Some(20))]),
            vec![family("a", Some(60))]
        );
        assert_eq!(
            delete_cells(&[family("a", Some(20)), latest("a", "q"), family("a", Some(60)), latest("a", "q")]),
            vec![family("a", Some(60)), latest("a", "q")]
        );
    }

    #[test]
    fn normalizing_twice_changes_nothing() {
        let specs = [
            latest("b", "x"),
            family("a", Some(5)),
            latest("a", "x"),
            family("b", None),
            latest("a", "x"),
            DeleteSpec::ColumnVersion(b("b"), b("y"), Some(2)),
        ];
        let once = delete_cells(&specs);
        assert_eq!(delete_cells(&once), once);
        assert!(delete_cells(&[]).is_empty());
    }
}
