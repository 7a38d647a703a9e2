//! What a read returns beyond its columns and versions, as HBase's Java client means it:
//! a window over each family's cells (`Get`/`Scan.setRowOffsetPerColumnFamily` and
//! `setMaxResultsPerColumnFamily`), raw scans (`Scan.setRaw`), and partial rows
//! (`Scan.setAllowPartialResults`, `Scan.setMaxResultSize`). Both transports read these
//! values; each either carries them or refuses them by name.

/// HBase's scan attribute that makes a scan raw (`Scan.setRaw` sets it).
pub(crate) const RAW_ATTRIBUTE: &str = "_raw_";
/// Its value for "raw": Java's `Bytes.toBytes(true)`.
pub(crate) const RAW_TRUE: [u8; 1] = [0xff];

/// In each family of each row: the first `offset` cells skipped (Java's
/// `setRowOffsetPerColumnFamily`), then at most `limit` returned
/// (`setMaxResultsPerColumnFamily`). Cells are counted after the columns, versions and
/// time range select them and before the filter sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FamilyWindow {
    /// At most this many cells per family (`None`: all).
    pub(crate) limit: Option<u32>,
    /// Cells skipped first in each family (`None`: none).
    pub(crate) offset: Option<u32>,
}

impl FamilyWindow {
    /// Whether the window leaves every cell (nothing to send).
    pub(crate) fn is_open(&self) -> bool {
        self.limit.is_none() && self.offset.is_none_or(|o| o == 0)
    }

    /// The limit as Java's `int` (the Thrift2 and protobuf fields' range).
    pub(crate) fn limit_i32(&self) -> Option<i32> {
        self.limit.map(|n| i32::try_from(n).unwrap_or(i32::MAX))
    }

    /// The offset as Java's `int`; 0 is not sent (Java's client does not send it).
    pub(crate) fn offset_i32(&self) -> Option<i32> {
        self.offset.filter(|o| *o > 0).map(|n| i32::try_from(n).unwrap_or(i32::MAX))
    }
}

/// The options a scan has beyond [`ReadOptions`](crate::ReadOptions): set on
/// [`Scan`](crate::Scan), sent with every request of the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ScanExtras {
    /// Delete markers and the cells they hide are returned (`Scan.setRaw`).
    pub(crate) raw: bool,
    /// The per-family window ([`FamilyWindow`]).
    pub(crate) window: FamilyWindow,
    /// Rows are handed out in the pieces the region server sends
    /// (`Scan.setAllowPartialResults`): never joined, never regrouped.
    pub(crate) allow_partial: bool,
    /// Bytes a region server returns per call at most (`Scan.setMaxResultSize`).
    pub(crate) max_result_size: Option<u64>,
}

impl ScanExtras {
    /// Whether the scan hands out parts of rows as they come (with `batch` or partial
    /// results allowed), so that rows are counted as the Java client counts parts.
    pub(crate) fn in_parts(&self, batch: Option<i32>) -> bool {
        self.allow_partial || batch.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_sends_only_what_java_sends() {
        assert!(FamilyWindow::default().is_open());
        let w = FamilyWindow { limit: None, offset: Some(0) };
        assert!(w.is_open() && w.offset_i32().is_none());
        let w = FamilyWindow { limit: Some(u32::MAX), offset: Some(3) };
        assert!(!w.is_open());
        assert_eq!((w.limit_i32(), w.offset_i32()), (Some(i32::MAX), Some(3)));
        let zero = FamilyWindow { limit: Some(0), offset: None };
        assert_eq!(zero.limit_i32(), Some(0), "a limit of 0 is sent: no cells");
    }

    #[test]
    fn parts_come_with_batch_or_partial_results() {
        let plain = ScanExtras::default();
        assert!(!plain.in_parts(None) && plain.in_parts(Some(2)));
        assert!(ScanExtras { allow_partial: true, ..plain }.in_parts(None));
    }
}
