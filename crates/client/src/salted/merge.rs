//! The k-way merge of per-bucket row streams, by logical key, with a binary heap.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;

use crate::error::Result;
use crate::row::Row;

/// One row waiting in the heap: its logical key (the stored key without the salt,
/// a zero-copy slice), the index of the stream it came from, and the row.
pub(crate) struct Head {
    pub(crate) logical: Bytes,
    pub(crate) source: usize,
    pub(crate) row: Row,
}

/// Heap order: the *next* row to emit is the greatest element. Ascending merges
/// invert the key order; ties go to the lower source index in both directions.
struct Entry {
    head: Head,
    descending: bool,
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
        let by_key = self.head.logical.cmp(&other.head.logical);
        let by_key = if self.descending { by_key } else { by_key.reverse() };
        by_key.then_with(|| other.head.source.cmp(&self.head.source))
    }
}

/// Merges `n` ordered streams of rows into one ordered stream. Every source must be
/// sorted in the merge's direction by logical key (HBase guarantees it within one
/// salt prefix). `logical` maps a stored key to its logical part.
pub(crate) struct Merge<S, F> {
    sources: Vec<Option<S>>,
    /// Sources whose next row is not in the heap yet.
    waiting: Vec<usize>,
    heap: BinaryHeap<Entry>,
    descending: bool,
    logical: F,
}

impl<S, F> Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: Fn(&Bytes) -> Result<Bytes> + Unpin,
{
    pub(crate) fn new(sources: Vec<S>, descending: bool, logical: F) -> Self {
        let waiting = (0..sources.len()).collect();
        Merge {
            heap: BinaryHeap::with_capacity(sources.len()),
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
    }
}

impl<S, F> Stream for Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: Fn(&Bytes) -> Result<Bytes> + Unpin,
{
    type Item = Result<Head>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        // Every source must have offered its next row (or ended) before the smallest
        // row is known. Poll each waiting one; those still pending keep their waker.
        let mut still_waiting = Vec::new();
        for index in std::mem::take(&mut this.waiting) {
            let Some(source) = this.sources[index].as_mut() else {
                continue;
            };
            match Pin::new(source).poll_next(cx) {
                Poll::Ready(Some(Ok(row))) => match (this.logical)(&row.key) {
                    Ok(logical) => this
                        .heap
                        .push(Entry { head: Head { logical, source: index, row }, descending: this.descending }),
                    Err(e) => {
                        this.close_all();
                        return Poll::Ready(Some(Err(e)));
                    }
                },
                Poll::Ready(Some(Err(e))) => {
                    this.close_all();
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(None) => this.sources[index] = None,
                Poll::Pending => still_waiting.push(index),
            }
        }
        this.waiting = still_waiting;
        if !this.waiting.is_empty() {
            return Poll::Pending;
        }
        match this.heap.pop() {
            Some(Entry { head, .. }) => {
                this.waiting.push(head.source);
                Poll::Ready(Some(Ok(head)))
            }
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

    fn strip(key: &Bytes) -> Result<Bytes> {
        Ok(key.slice(2..))
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
