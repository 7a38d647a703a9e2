//! Region locations.

use basalt_thrift::hbase::THRegionLocation;
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
    pub(crate) fn from_thrift(loc: THRegionLocation) -> RegionLocation {
        RegionLocation {
            start_key: Bytes::from(loc.region_info.start_key.unwrap_or_default()),
            end_key: Bytes::from(loc.region_info.end_key.unwrap_or_default()),
            region_id: loc.region_info.region_id,
            host: loc.server_name.host_name,
            port: loc.server_name.port,
        }
    }

    /// Whether `key` falls in this region.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= &self.start_key[..] && (self.end_key.is_empty() || key < &self.end_key[..])
    }
}

/// Cuts the key range `[start, stop)` (an empty `stop`: to the end of the table) at
/// every region boundary strictly inside it: one piece per region the range touches,
/// in key order. The one function that cuts ranges at regions: parallel and salted
/// scans use it, and so can a caller that spreads its own work over regions.
pub fn cut_at_regions(start: &Bytes, stop: &Bytes, regions: &[RegionLocation]) -> Vec<(Bytes, Bytes)> {
    cut_at_region_starts(start, stop, regions.iter().map(|r| &r.start_key))
}

/// [`cut_at_regions`] given the regions' start keys.
pub(crate) fn cut_at_region_starts<'a>(
    start: &Bytes,
    stop: &Bytes,
    region_starts: impl Iterator<Item = &'a Bytes>,
) -> Vec<(Bytes, Bytes)> {
    let mut cuts: Vec<Bytes> = region_starts
        .filter(|k| !k.is_empty() && k[..] > start[..] && (stop.is_empty() || k[..] < stop[..]))
        .cloned()
        .collect();
    cuts.sort();
    cuts.dedup();
    let mut pieces = Vec::with_capacity(cuts.len() + 1);
    let mut from = start.clone();
    for cut in cuts {
        pieces.push((from, cut.clone()));
        from = cut;
    }
    pieces.push((from, stop.clone()));
    pieces
}
