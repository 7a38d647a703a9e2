//! The `Scan` message a scanner opens with: bounds, read options, and what Java's
//! `Scan` carries beyond them (raw, per-family window, partial results, result size).

use bytes::Bytes;

use super::{Position, ScanSpec};
use crate::pb;

/// The `Scan` message of an open at `position`.
pub(super) fn scan_message(spec: &ScanSpec, position: &Position) -> pb::Scan {
    let read = &spec.read;
    pb::Scan {
        column: read.column_proto(),
        start_row: Some(position.row.clone()),
        include_start_row: Some(position.inclusive),
        stop_row: Some(spec.stop.clone()),
        include_stop_row: Some(spec.include_stop),
        reversed: Some(spec.reversed),
        caching: Some(spec.rows_per_page),
        max_result_size: spec.max_result_size,
        filter: read.filter.clone(),
        time_range: read.time_range_proto(),
        cf_time_range: read.family_time_ranges_proto(),
        max_versions: read.max_versions,
        cache_blocks: read.cache_blocks,
        batch_size: spec.batch,
        allow_partial_results: Some(spec.allow_partial),
        consistency: read.consistency_proto(),
        load_column_families_on_demand: spec.on_demand,
        store_limit: read.store_limit,
        store_offset: read.store_offset,
        attribute: raw_attribute(spec.raw),
        ..Default::default()
    }
}

/// HBase's scan attribute of a raw scan: Java's `Scan.setRaw(true)` sets `_raw_` to
/// `Bytes.toBytes(true)`.
fn raw_attribute(raw: bool) -> Vec<pb::NameBytesPair> {
    match raw {
        true => vec![pb::NameBytesPair { name: "_raw_".into(), value: Some(Bytes::from_static(&[0xff])) }],
        false => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_windows_and_partial_results_reach_the_open_request() {
        let at = Position { row: Bytes::from_static(b"a"), inclusive: true };
        let plain = scan_message(&ScanSpec::new(), &at);
        assert!(plain.attribute.is_empty());
        assert_eq!((plain.store_limit, plain.store_offset, plain.allow_partial_results), (None, None, Some(false)));
        let spec = ScanSpec::new()
            .raw(true)
            .max_results_per_family(3)
            .row_offset_per_family(2)
            .allow_partial_results(true)
            .max_result_size(100);
        let scan = scan_message(&spec, &at);
        assert_eq!(scan.attribute.len(), 1);
        assert_eq!((scan.attribute[0].name.as_str(), scan.attribute[0].value.as_deref()), ("_raw_", Some(&[0xff][..])));
        assert_eq!((scan.store_limit, scan.store_offset), (Some(3), Some(2)));
        assert_eq!((scan.allow_partial_results, scan.max_result_size), (Some(true), Some(100)));
        // An offset of 0 is not sent, as Java's client does not send it.
        assert_eq!(scan_message(&ScanSpec::new().row_offset_per_family(0), &at).store_offset, None);
        assert!(spec.in_pieces() && !ScanSpec::new().in_pieces() && ScanSpec::new().batch(2).in_pieces());
    }
}
