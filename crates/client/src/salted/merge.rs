//! The k-way merge of per-bucket row streams, by logical key, with a binary heap.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;

use crate::error::Result;
use crate::row::Row;

/// A row leaving the merge: where its logical key starts in `row.key` (after the
/// salt), the index of the stream it came from, and the row.
pub(crate) struct Head {
    pub(crate) offset: usize,
    pub(crate) source: usize,
    pub(crate) row: Row,
}

/// Heap order: the *next* row to emit is the greatest element. Ascending merges
/// invert the key order; ties go to the lower source index in both directions. The
/// rows themselves wait beside the heap (one per source), so sifting moves only keys.
/// The row's key is moved into the entry while it waits (no refcount traffic) and
/// moved back when the row leaves.
struct Entry {
    key: Bytes,
    offset: usize,
    source: usize,
    descending: bool,
}

impl Entry {
    fn logical(&self) -> &[u8] {
        self.key.get(self.offset..).unwrap_or_default()
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        let by_key = self.logical().cmp(other.logical());
        let by_key = if self.descending { by_key } else { by_key.reverse() };
        by_key.then_with(|| other.source.cmp(&self.source))
    }
}

/// Merges `n` ordered streams of rows into one ordered stream. Every source must be
/// sorted in the merge's direction by logical key (HBase guarantees it within one
/// salt prefix). `logical` says where a stored key's logical part starts (the salt's
/// length).
pub(crate) struct Merge<S, F> {
    sources: Vec<Option<S>>,
    /// Sources whose next row is not in the heap yet.
    waiting: Vec<usize>,
    heap: BinaryHeap<Entry>,
    /// The row of each source whose key is in the heap.
    heads: Vec<Option<Row>>,
    descending: bool,
    logical: F,
}

impl<S, F> Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: Fn(&Bytes) -> Result<usize> + Unpin,
{
    pub(crate) fn new(sources: Vec<S>, descending: bool, logical: F) -> Self {
        let waiting = (0..sources.len()).collect();
        Merge {
            heap: BinaryHeap::with_capacity(sources.len()),
            heads: (0..sources.len()).map(|_| None).collect(),
            sources: sources.into_iter().map(Some).collect(),
            waiting,
            descending,
            logical,
        }
    }

    /// Closes one source early (dropping it stops its scan).
    pub(crate) fn close_all(&mut self) {
        for source in &mut self.sources {
            *source = None;
        }
        self.waiting.clear();
        self.heap.clear();
        self.heads.clear();
    }
}

impl<S, F> Stream for Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: Fn(&Bytes) -> Result<usize> + Unpin,
{
    type Item = Result<Head>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        // Every source must have offered its next row (or ended) before the smallest
        // row is known. Poll each waiting one; those still pending keep their waker.
        // (In place: this runs once per row, so it must not allocate.)
        let mut i = 0;
        while i < this.waiting.len() {
            let index = this.waiting[i];
            let Some(source) = this.sources[index].as_mut() else {
                this.waiting.swap_remove(i);
                continue;
            };
            match Pin::new(source).poll_next(cx) {
                Poll::Ready(Some(Ok(mut row))) => match (this.logical)(&row.key) {
                    Ok(offset) => {
                        this.waiting.swap_remove(i);
                        let key = std::mem::take(&mut row.key);
                        this.heads[index] = Some(row);
                        this.heap.push(Entry { key, offset, source: index, descending: this.descending })
                    }
                    Err(e) => {
                        this.close_all();
                        return Poll::Ready(Some(Err(e)));
                    }
                },
                Poll::Ready(Some(Err(e))) => {
                    this.close_all();
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(None) => {
                    this.sources[index] = None;
                    this.waiting.swap_remove(i);
                }
                Poll::Pending => i += 1,
            }
        }
        if !this.waiting.is_empty() {
            return Poll::Pending;
        }
        match this.heap.pop() {
            Some(Entry { key, offset, source, .. }) => match this.heads[source].take() {
                Some(mut row) => {
                    row.key = key;
                    this.waiting.push(source);
                    Poll::Ready(Some(Ok(Head { offset, source, row })))
                }
                None => Poll::Ready(None),
            },
            None => Poll::Ready(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::{stream, StreamExt};

    fn source(keys: &[&str]) -> stream::Iter<std::vec::IntoIter<Result<Row>>> {
        let rows: Vec<Result<Row>> = keys
            .iter()
            .map(|k| Ok(Row { key: Bytes::from(k.to_string()), cells: Vec::new(), partial: false }))
            .collect();
        stream::iter(rows)
    }

    fn strip(_key: &Bytes) -> Result<usize> {
        Ok(2)
    }

    #[tokio::test]
    async fn merges_ascending_and_descending_with_stable_ties() {
        let up = vec![source(&["0_a", "0_d", "0_x"]), source(&[]), source(&["2_b", "2_d", "2_y", "2_z"])];
        let merged: Vec<String> = Merge::new(up, false, strip)
            .map(|h| String::from_utf8_lossy(&h.unwrap().row.key).into_owned())
            .collect()
            .await;
        assert_eq!(merged, ["0_a", "2_b", "0_d", "2_d", "0_x", "2_y", "2_z"]);
        let down = vec![source(&["0_x", "0_d", "0_a"]), source(&["1_z", "1_d"])];
        let merged: Vec<String> = Merge::new(down, true, strip)
            .map(|h| String::from_utf8_lossy(&h.unwrap().row.key).into_owned())
            .collect()
            .await;
        assert_eq!(merged, ["1_z", "0_x", "0_d", "1_d", "0_a"]);
    }
}
