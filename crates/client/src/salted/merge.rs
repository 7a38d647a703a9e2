//! The k-way merge of per-bucket row streams, by logical key, with a tree of losers.
//!
//! Each source's next row (its *head*) waits in a slot beside the tree. The tree's
//! internal nodes hold the source that lost the match played there, and its root the
//! overall winner: the next row to emit. When the winner's row leaves, its source's
//! next row takes the vacated slot and replays the matches on the path from its leaf to
//! the root: `ceil(log2 k)` key comparisons and no moves of rows inside the tree (it
//! holds source indices only). Nothing is allocated per row. Most comparisons are one
//! integer comparison: each head's first eight logical-key bytes are kept as a
//! big-endian `u64` (inverted when descending) beside the tree, and only heads whose
//! prefixes are equal compare their whole keys.
//!
//! Order: ascending or descending by logical key; equal keys leave in source order
//! (lower index first) in both directions.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

use super::source::LogicalOffset;
use crate::error::Result;
use crate::row::Row;

/// A row leaving the merge: where its logical key starts in `row.key()` (after the
/// salt), the index of the stream it came from, and the row.
pub(crate) struct Head {
    pub(crate) offset: usize,
    pub(crate) source: usize,
    pub(crate) row: Row,
}

/// One source's next row, with where its logical key starts.
struct Slot {
    offset: usize,
    row: Row,
}

impl Slot {
    fn logical(&self) -> &[u8] {
        self.row.key().get(self.offset..).unwrap_or_default()
    }
}

/// Merges `n` ordered streams of rows into one ordered stream. Every source must be
/// sorted in the merge's direction by logical key (HBase guarantees it within one
/// salt prefix). `logical` says where a stored key's logical part starts (the salt's
/// length), knowing the source it came from.
pub(crate) struct Merge<S, F> {
    sources: Vec<Option<S>>,
    /// The next row of each source; `None` once the source has ended (or while its
    /// next row is being fetched, see `refill`).
    slots: Vec<Option<Slot>>,
    /// Each source's head prefix in merge order (see [`order_prefix`]); `u64::MAX`
    /// once the source has ended.
    prefixes: Vec<u64>,
    /// `tree[0]`: the winner; `tree[1..k]`: the loser of the match at that node. Leaf
    /// of source `s` is node `k + s`; node `n`'s parent is `n / 2`.
    tree: Vec<usize>,
    /// Before the tree is built: sources whose first row has not arrived yet.
    waiting: Vec<usize>,
    built: bool,
    /// The source whose row was emitted last: its next row must arrive (or it must
    /// end) before the next winner is known.
    refill: Option<usize>,
    descending: bool,
    logical: F,
}

impl<S, F> Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: LogicalOffset + Unpin,
{
    pub(crate) fn new(sources: Vec<S>, descending: bool, logical: F) -> Self {
        let k = sources.len();
        Merge {
            slots: (0..k).map(|_| None).collect(),
            prefixes: vec![u64::MAX; k],
            tree: vec![0; k],
            waiting: (0..k).collect(),
            built: false,
            refill: None,
            sources: sources.into_iter().map(Some).collect(),
            descending,
            logical,
        }
    }

    /// Closes every source (dropping them stops their scans); the merge then ends.
    pub(crate) fn close_all(&mut self) {
        self.sources.clear();
        self.slots.clear();
        self.prefixes.clear();
        self.tree.clear();
        self.waiting.clear();
        self.refill = None;
        self.built = true;
    }

    /// Whether source `a`'s head leaves before source `b`'s. An ended source loses to
    /// every other; ties go to the lower index.
    #[inline]
    fn beats(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (self.prefixes[a], self.prefixes[b]);
        if pa != pb {
            return pa < pb;
        }
        self.beats_by_whole_key(a, b)
    }

    /// [`Merge::beats`] when the prefixes are equal: the whole logical keys decide.
    #[inline(never)]
    fn beats_by_whole_key(&self, a: usize, b: usize) -> bool {
        match (&self.slots[a], &self.slots[b]) {
            (Some(x), Some(y)) => {
                let order = x.logical().cmp(y.logical());
                let order = if self.descending { order.reverse() } else { order };
                order.then(a.cmp(&b)).is_lt()
            }
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => a < b,
        }
    }

    /// Builds the tree once every source has offered its first row or ended.
    fn build(&mut self) {
        let k = self.slots.len();
        self.built = true;
        if k == 0 {
            return;
        }
        let mut winners = vec![0usize; 2 * k];
        for s in 0..k {
            winners[k + s] = s;
        }
        for node in (1..k).rev() {
            let (a, b) = (winners[2 * node], winners[2 * node + 1]);
            let (win, lose) = if self.beats(a, b) { (a, b) } else { (b, a) };
            winners[node] = win;
            self.tree[node] = lose;
        }
        self.tree[0] = if k == 1 { 0 } else { winners[1] };
    }

    /// Source `s` has a new head (or ended): replay its matches up to the root.
    #[inline]
    fn replay(&mut self, s: usize) {
        let mut winner = s;
        let mut node = (self.tree.len() + s) / 2;
        while node > 0 {
            let other = self.tree[node];
            if self.beats(other, winner) {
                self.tree[node] = winner;
                winner = other;
            }
            node /= 2;
        }
        self.tree[0] = winner;
    }

    /// Polls source `s` once for its next head: `Ready(Ok(()))` when the slot is filled
    /// or the source ended.
    fn poll_source(&mut self, s: usize, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let Some(source) = self.sources.get_mut(s).and_then(Option::as_mut) else {
            return Poll::Ready(Ok(()));
        };
        match Pin::new(source).poll_next(cx) {
            Poll::Ready(Some(Ok(row))) => {
                let offset = self.logical.offset(s, row.key())?;
                let slot = Slot { offset, row };
                self.prefixes[s] = order_prefix(slot.logical(), self.descending);
                self.slots[s] = Some(slot);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Err(e)),
            Poll::Ready(None) => {
                self.sources[s] = None;
                self.slots[s] = None;
                self.prefixes[s] = u64::MAX;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The first eight bytes of `key` (zero-padded) as a big-endian integer, inverted when
/// `descending`: if two keys' prefixes differ, the smaller prefix leaves first (a key's
/// zero padding only ties with a longer key's bytes, never reorders them).
#[inline]
fn order_prefix(key: &[u8], descending: bool) -> u64 {
    let mut bytes = [0u8; 8];
    let n = key.len().min(8);
    bytes[..n].copy_from_slice(&key[..n]);
    let prefix = u64::from_be_bytes(bytes);
    if descending {
        !prefix
    } else {
        prefix
    }
}

impl<S, F> Stream for Merge<S, F>
where
    S: Stream<Item = Result<Row>> + Unpin,
    F: LogicalOffset + Unpin,
{
    type Item = Result<Head>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if !this.built {
            // Every source must offer its first row (or end) before the smallest row
            // is known. Poll each waiting one; those still pending keep their waker.
            let mut i = 0;
            while i < this.waiting.len() {
                let s = this.waiting[i];
                match this.poll_source(s, cx) {
                    Poll::Ready(Ok(())) => {
                        this.waiting.swap_remove(i);
                    }
                    Poll::Ready(Err(e)) => {
                        this.close_all();
                        return Poll::Ready(Some(Err(e)));
                    }
                    Poll::Pending => i += 1,
                }
            }
            if !this.waiting.is_empty() {
                return Poll::Pending;
            }
            this.build();
        }
        if let Some(s) = this.refill {
            match this.poll_source(s, cx) {
                Poll::Ready(Ok(())) => {
                    this.refill = None;
                    this.replay(s);
                }
                Poll::Ready(Err(e)) => {
                    this.close_all();
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        let Some(&winner) = this.tree.first() else {
            return Poll::Ready(None);
        };
        match this.slots[winner].take() {
            Some(Slot { offset, row }) => {
                this.refill = Some(winner);
                Poll::Ready(Some(Ok(Head { offset, source: winner, row })))
            }
            // The winner has ended, so every source has.
            None => Poll::Ready(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::salted::source::SameForEvery;
    use bytes::Bytes;
    use futures::{stream, StreamExt};

    fn source(keys: &[&str]) -> stream::Iter<std::vec::IntoIter<Result<Row>>> {
        let rows: Vec<Result<Row>> = keys.iter().map(|k| Ok(Row::new(Bytes::from(k.to_string()), []))).collect();
        stream::iter(rows)
    }

    fn strip(_key: &[u8]) -> Result<usize> {
        Ok(2)
    }

    async fn merged(sources: Vec<stream::Iter<std::vec::IntoIter<Result<Row>>>>, descending: bool) -> Vec<String> {
        Merge::new(sources, descending, SameForEvery(strip))
            .map(|h| String::from_utf8_lossy(h.unwrap().row.key()).into_owned())
            .collect()
            .await
    }

    #[tokio::test]
    async fn merges_ascending_and_descending_with_stable_ties() {
        let up = vec![source(&["0_a", "0_d", "0_x"]), source(&[]), source(&["2_b", "2_d", "2_y", "2_z"])];
        assert_eq!(merged(up, false).await, ["0_a", "2_b", "0_d", "2_d", "0_x", "2_y", "2_z"]);
        let down = vec![source(&["0_x", "0_d", "0_a"]), source(&["1_z", "1_d"])];
        assert_eq!(merged(down, true).await, ["1_z", "0_x", "0_d", "1_d", "0_a"]);
    }

    #[tokio::test]
    async fn no_sources_one_source_and_all_empty() {
        assert!(merged(Vec::new(), false).await.is_empty());
        assert_eq!(merged(vec![source(&["0_a", "0_b"])], true).await, ["0_a", "0_b"]);
        assert!(merged(vec![source(&[]), source(&[]), source(&[])], false).await.is_empty());
    }

    /// Against a plain sort, for every k from 1 to 19 (powers of two and not), both
    /// directions, with many equal keys across sources.
    #[tokio::test]
    async fn equals_a_stable_sort_for_any_number_of_sources() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for k in 1..20usize {
            for descending in [false, true] {
                let mut per_source: Vec<Vec<String>> = Vec::new();
                let mut expected: Vec<(String, usize, String)> = Vec::new();
                for s in 0..k {
                    let mut keys: Vec<String> = (0..(s * 7) % 23)
                        .map(|_| {
                            state ^= state << 13;
                            state ^= state >> 7;
                            state ^= state << 17;
                            format!("{:02}{:03}", s, state % 40)
                        })
                        .collect();
                    keys.sort_by(|a, b| if descending { b[2..].cmp(&a[2..]) } else { a[2..].cmp(&b[2..]) });
                    expected.extend(keys.iter().map(|key| (key[2..].to_owned(), s, key.clone())));
                    per_source.push(keys);
                }
                expected.sort_by(|a, b| {
                    let by_key = if descending { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) };
                    by_key.then(a.1.cmp(&b.1))
                });
                let sources = per_source
                    .iter()
                    .map(|keys| source(&keys.iter().map(String::as_str).collect::<Vec<_>>()))
                    .collect();
                let want: Vec<String> = expected.into_iter().map(|(_, _, key)| key).collect();
                assert_eq!(merged(sources, descending).await, want, "k={k} descending={descending}");
            }
        }
    }

    /// Keys made of 0x00, 0x01 and 0xff, 0 to 11 bytes long (prefixes of each other,
    /// zero bytes against padding, equal first eight bytes): the prefix shortcut must
    /// agree with a plain byte-wise sort, both directions.
    #[tokio::test]
    async fn prefix_shortcut_agrees_with_bytewise_order() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for descending in [false, true] {
            let mut per_source: Vec<Vec<Vec<u8>>> = Vec::new();
            for s in 0..7u8 {
                let mut keys: Vec<Vec<u8>> = (0..60)
                    .map(|_| {
                        let len = (next() % 12) as usize;
                        let mut key = vec![s];
                        key.extend((0..len).map(|_| [0x00, 0x01, 0xff][(next() % 3) as usize]));
                        key
                    })
                    .collect();
                keys.sort_by(|a, b| if descending { b[1..].cmp(&a[1..]) } else { a[1..].cmp(&b[1..]) });
                per_source.push(keys);
            }
            let mut expected: Vec<Vec<u8>> = per_source.concat();
            expected.sort_by(|a, b| {
                let by_key = if descending { b[1..].cmp(&a[1..]) } else { a[1..].cmp(&b[1..]) };
                by_key.then(a[0].cmp(&b[0]))
            });
            let sources: Vec<stream::Iter<std::vec::IntoIter<Result<Row>>>> = per_source
                .into_iter()
                .map(|keys| {
                    let rows: Vec<Result<Row>> = keys.into_iter().map(|k| Ok(Row::new(Bytes::from(k), []))).collect();
                    stream::iter(rows)
                })
                .collect();
            let got: Vec<Vec<u8>> = Merge::new(sources, descending, SameForEvery(|_: &[u8]| Ok(1)))
                .map(|h| h.unwrap().row.key().to_vec())
                .collect()
                .await;
            assert_eq!(got, expected, "descending={descending}");
        }
    }

    /// Sources that are not ready yet keep the merge pending; rows arriving later in
    /// any order still leave in key order.
    #[tokio::test]
    async fn pending_sources_are_waited_for() {
        let (tx_a, rx_a) = futures::channel::mpsc::unbounded::<Result<Row>>();
        let (tx_b, rx_b) = futures::channel::mpsc::unbounded::<Result<Row>>();
        let row = |k: &'static str| Ok(Row::new(Bytes::from(k), []));
        let mut merge = Merge::new(vec![rx_a, rx_b], false, SameForEvery(strip));
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut merge).poll_next(&mut cx).is_pending());
        tx_b.unbounded_send(row("1_b")).unwrap();
        assert!(Pin::new(&mut merge).poll_next(&mut cx).is_pending(), "source 0 has not spoken");
        tx_a.unbounded_send(row("0_c")).unwrap();
        assert_eq!(merge.next().await.unwrap().unwrap().row.key(), b"1_b");
        assert!(Pin::new(&mut merge).poll_next(&mut cx).is_pending(), "source 1 must refill first");
        tx_b.unbounded_send(row("1_d")).unwrap();
        drop(tx_b);
        assert_eq!(merge.next().await.unwrap().unwrap().row.key(), b"0_c");
        drop(tx_a);
        assert_eq!(merge.next().await.unwrap().unwrap().row.key(), b"1_d");
        assert!(merge.next().await.is_none());
    }

    #[tokio::test]
    async fn an_error_ends_the_merge() {
        let failing: stream::Iter<std::vec::IntoIter<Result<Row>>> = stream::iter(vec![
            Ok(Row::new(Bytes::from("1_b"), [])),
            Err(crate::error::InvalidInput::Option("boom".into()).into()),
        ]);
        let mut merge = Merge::new(vec![source(&["0_a", "0_c"]), failing], false, SameForEvery(strip));
        assert_eq!(merge.next().await.unwrap().unwrap().row.key(), b"0_a");
        assert_eq!(merge.next().await.unwrap().unwrap().row.key(), b"1_b");
        assert!(merge.next().await.unwrap().is_err());
        assert!(merge.next().await.is_none());
    }
}
