//! Live counters of one scan.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Live counters of one scan, shared with the stream's owner.
#[derive(Debug, Default)]
pub struct ScanStats {
    pub(crate) rows: AtomicU64,
    pub(crate) pages: AtomicU64,
    pub(crate) reopens: AtomicU64,
    pub(crate) rejected_pages: AtomicU64,
    pub(crate) first_row_micros: AtomicU64,
    pub(crate) finished_micros: AtomicU64,
}

impl ScanStats {
    /// Rows delivered to the stream so far.
    pub fn rows(&self) -> u64 {
        self.rows.load(Ordering::Relaxed)
    }
    /// `getScannerRows` pages fetched.
    pub fn pages(&self) -> u64 {
        self.pages.load(Ordering::Relaxed)
    }
    /// Times the scanner was reopened after expiring or losing its connection.
    pub fn reopens(&self) -> u64 {
        self.reopens.load(Ordering::Relaxed)
    }
    /// Pages refused because a row was outside the scan's range or out of order (none
    /// of their rows was delivered; the scan reopened instead).
    pub fn rejected_pages(&self) -> u64 {
        self.rejected_pages.load(Ordering::Relaxed)
    }
    /// Time from the start until the scan finished (ended, failed or was dropped).
    pub fn finished_after(&self) -> Option<Duration> {
        match self.finished_micros.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }
    /// Time from the start to the first page with rows, if any arrived.
    pub fn time_to_first_row(&self) -> Option<Duration> {
        match self.first_row_micros.load(Ordering::Relaxed) {
            0 => None,
            us => Some(Duration::from_micros(us)),
        }
    }
}
