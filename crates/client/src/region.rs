//! Region locations: where each region of a table lives and which keys it holds
//! (ranges are cut at them in [`crate::scan`]).

use bytes::Bytes;

/// Where one region of a table lives and which keys it holds: `[start_key, end_key)`,
/// an empty `end_key` meaning "to the end of the table".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLocation {
    /// First key of the region (empty for the first region).
    pub start_key: Bytes,
    /// First key after the region (empty for the last region).
    pub end_key: Bytes,
    /// The region's id.
    pub region_id: i64,
    /// The region server's host.
    pub host: String,
    /// The region server's port.
    pub port: Option<i32>,
}

impl RegionLocation {
    /// Whether `key` falls in this region.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= &self.start_key[..] && (self.end_key.is_empty() || key < &self.end_key[..])
    }
}
