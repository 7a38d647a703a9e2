//! Which columns a read returns: the family map of HBase's Java `Get` and `Scan`.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use crate::options::ColumnSpec;

/// The columns of one family a read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FamilyColumns {
    /// Every column of the family.
    Whole,
    /// Only these qualifiers (in byte order, each once).
    Qualifiers(BTreeSet<Bytes>),
}

/// A read's columns by family, built from its calls in order as Java's `Get` and `Scan`
/// build their family map (a tree map, family to a tree set of qualifiers or to null
/// for the whole family): `family(f)` replaces whatever `f` had with the whole family
/// (so it widens earlier columns of `f`); `column(f, q)` adds `q` to `f`'s qualifiers,
/// starting a new set when `f` was whole (so it narrows an earlier `family(f)`).
/// Empty: every column of every family.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ColumnSelection {
    families: BTreeMap<Bytes, FamilyColumns>,
}

impl ColumnSelection {
    /// The selection `columns` (in call order) make.
    pub(crate) fn of(columns: &[ColumnSpec]) -> ColumnSelection {
        let mut families: BTreeMap<Bytes, FamilyColumns> = BTreeMap::new();
        for column in columns {
            match column {
                ColumnSpec::Family(family) => {
                    families.insert(family.clone(), FamilyColumns::Whole);
                }
                ColumnSpec::Column(family, qualifier) => {
                    let entry =
                        families.entry(family.clone()).or_insert_with(|| FamilyColumns::Qualifiers(BTreeSet::new()));
                    match entry {
                        FamilyColumns::Whole => *entry = FamilyColumns::Qualifiers(BTreeSet::from([qualifier.clone()])),
                        FamilyColumns::Qualifiers(qualifiers) => {
                            qualifiers.insert(qualifier.clone());
                        }
                    }
                }
            }
        }
        ColumnSelection { families }
    }

    /// Whether every column is read.
    pub(crate) fn is_empty(&self) -> bool {
        self.families.is_empty()
    }

    /// Whether some family is read by named qualifiers (not whole): HBase refuses that
    /// in a raw scan.
    pub(crate) fn names_qualifiers(&self) -> bool {
        self.families.values().any(|columns| match columns {
            FamilyColumns::Qualifiers(_) => true,
            FamilyColumns::Whole => false,
        })
    }

    /// The selection flattened, in family then qualifier byte order: `(family, None)`
    /// for a whole family, `(family, Some(qualifier))` for each qualifier. Replayed as
    /// `family`/`column` calls in this order, it builds the same selection again.
    pub(crate) fn columns(&self) -> impl Iterator<Item = (&Bytes, Option<&Bytes>)> + '_ {
        self.families.iter().flat_map(|(family, columns)| {
            let qualifiers: Vec<Option<&Bytes>> = match columns {
                FamilyColumns::Whole => vec![None],
                FamilyColumns::Qualifiers(qualifiers) => qualifiers.iter().map(Some).collect(),
            };
            qualifiers.into_iter().map(move |qualifier| (family, qualifier))
        })
    }

    /// The selection as [`ColumnSpec`]s (see [`ColumnSelection::columns`]).
    #[cfg(test)]
    pub(crate) fn specs(&self) -> Vec<ColumnSpec> {
        self.columns()
            .map(|(family, qualifier)| match qualifier {
                Some(qualifier) => ColumnSpec::Column(family.clone(), qualifier.clone()),
                None => ColumnSpec::Family(family.clone()),
            })
            .collect()
    }

    /// What the selection reads of `family` (`None`: nothing, unless the selection is
    /// empty).
    #[cfg(test)]
    pub(crate) fn family(&self, family: &[u8]) -> Option<&FamilyColumns> {
        self.families.get(family)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(f: &str) -> ColumnSpec {
        ColumnSpec::Family(Bytes::copy_from_slice(f.as_bytes()))
    }

    fn column(f: &str, q: &str) -> ColumnSpec {
        ColumnSpec::Column(Bytes::copy_from_slice(f.as_bytes()), Bytes::copy_from_slice(q.as_bytes()))
    }

    fn qualifiers(qs: &[&str]) -> FamilyColumns {
        FamilyColumns::Qualifiers(qs.iter().map(|q| Bytes::copy_from_slice(q.as_bytes())).collect())
    }

    #[test]
    fn a_family_after_columns_of_it_widens_to_the_whole_family() {
        // The get: [a:x, b:y, a:*] reads all of a and b:y.
        let selection = ColumnSelection::of(&[column("a", "x"), column("b", "y"), family("a")]);
        assert_eq!(selection.family(b"a"), Some(&FamilyColumns::Whole));
        assert_eq!(selection.family(b"b"), Some(&qualifiers(&["y"])));
        assert_eq!(selection.specs(), vec![family("a"), column("b", "y")]);
    }

    #[test]
    fn a_column_after_its_family_narrows_to_the_columns_named_after() {
        let selection = ColumnSelection::of(&[column("a", "z"), family("a"), column("a", "y"), column("a", "x")]);
        assert_eq!(selection.family(b"a"), Some(&qualifiers(&["x", "y"])));
        // Widened again by a later family.
        let again = ColumnSelection::of(&[family("a"), column("a", "y"), family("a")]);
        assert_eq!(again.specs(), vec![family("a")]);
    }

    #[test]
    fn repeats_count_once_and_families_and_qualifiers_sort_by_bytes() {
        let selection = ColumnSelection::of(&[
            column("c", "\u{7f}"),
            column("c", ""),
            column("c", ""),
            family("b"),
            family("b"),
            column("a", "q"),
        ]);
        assert_eq!(selection.specs(), vec![column("a", "q"), family("b"), column("c", ""), column("c", "\u{7f}")]);
        assert!(ColumnSelection::of(&[]).is_empty());
        assert!(!selection.is_empty());
    }

    #[test]
    fn qualifiers_are_named_unless_a_later_family_widens_them() {
        assert!(!ColumnSelection::of(&[]).names_qualifiers());
        assert!(!ColumnSelection::of(&[family("a"), family("b")]).names_qualifiers());
        assert!(ColumnSelection::of(&[family("a"), column("b", "q")]).names_qualifiers());
        assert!(!ColumnSelection::of(&[column("a", "q"), family("a")]).names_qualifiers());
    }

    #[test]
    fn the_flattened_selection_replays_to_itself() {
        let calls = [column("a", "x"), family("b"), column("a", "w"), family("c"), column("c", "q"), column("b", "")];
        let selection = ColumnSelection::of(&calls);
        assert_eq!(ColumnSelection::of(&selection.specs()), selection);
    }
}
