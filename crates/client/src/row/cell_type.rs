//! What a cell is: a value or a delete marker.

/// What a cell is: a value, or one of HBase's delete markers. Reads return only values;
/// a raw scan ([`Scan::raw`](crate::Scan::raw)) also returns the markers, as HBase's
/// Java client shows them (`Cell.getType()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CellType {
    /// A value (type byte 4).
    #[default]
    Put,
    /// Deletes one version of a column (Java's `Delete.addColumn`; type byte 8).
    Delete,
    /// Deletes a column's versions up to its timestamp (`addColumns`; type byte 12).
    DeleteColumn,
    /// Deletes a family's columns up to its timestamp (`addFamily`; type byte 14).
    DeleteFamily,
    /// Deletes one version of every column of a family (`addFamilyVersion`; type byte 10).
    DeleteFamilyVersion,
    /// A type byte HBase does not store in cells, as the server sent it.
    Unknown(u8),
}

impl CellType {
    /// The type of HBase's type byte.
    pub fn from_code(code: u8) -> CellType {
        match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            other => CellType::Unknown(other),
        }
    }

    /// HBase's type byte.
    pub fn code(self) -> u8 {
        match self {
            CellType::Put => 4,
            CellType::Delete => 8,
            CellType::DeleteFamilyVersion => 10,
            CellType::DeleteColumn => 12,
            CellType::DeleteFamily => 14,
            CellType::Unknown(code) => code,
        }
    }

    /// Whether the cell is a delete marker.
    pub fn is_delete(self) -> bool {
        match self {
            CellType::Delete | CellType::DeleteColumn | CellType::DeleteFamily | CellType::DeleteFamilyVersion => true,
            CellType::Put | CellType::Unknown(_) => false,
        }
    }
}
