//! Coalescing of concurrent single-row gets.
//!
//! Each call costs far more than the row it carries: two system calls and a task
//! wake-up on each side, a handler on the server (and a gateway thread through
//! Thrift2). On a busy client most of a get's CPU is that per-call cost. So gets pass
//! a gate with one lane per server: at most `limit` single-row gets of a lane are sent
//! at once; a get that arrives while that many are in flight waits, and when one
//! finishes, the oldest waiting get of that lane leads: it sends itself and every get
//! waiting in the lane for the same table (up to [`MAX_COALESCED`]) as one multi-get
//! and hands each waiter its row. Nothing waits that would not have waited anyway: a
//! get is only queued when its lane already has `limit` calls out, and there is no
//! timer window.
//!
//! The lane is the server the transport says will answer the row
//! ([`Transport::get_route`](crate::transport::Transport::get_route): over native RPC
//! the region server of the cached region; through the gateway one lane for all). So a
//! coalesced call goes to one region server and never waits for a slower one, and a
//! busy server does not hold up gets of an idle one.
//!
//! Errors stay per get: a shared `getMultiple` is tried once, and if it fails in any
//! way (a bad family in one get fails the whole call on the server; a transport error
//! is retried by each get as usual), every get in it runs alone through the ordinary
//! call path, with its own retries and its own error. A waiter whose future is dropped
//! is skipped; a leader dropped mid-call leaves its waiters to run alone.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::attempt::{Attempts, Idempotence};
use crate::error::Result;
use crate::ops::Get;
use crate::row::Row;
use crate::transport::Operation;

/// Most gets sent in one coalesced `getMultiple`.
pub(crate) const MAX_COALESCED: usize = 128;

/// The gate all single-row gets of one client pass (see the module documentation).
pub(crate) struct GetCoalescer {
    /// Most single-row get calls in flight at once per lane; 0 turns coalescing off.
    limit: usize,
    /// Longest wait for a turn; a get that waited this long runs alone (so a gate
    /// held by calls stuck in an outage delays a get no more than a pool checkout).
    max_wait: Duration,
    state: Mutex<State>,
    /// `getMultiple` calls that carried coalesced gets, and the gets they answered.
    coalesced_calls: AtomicU64,
    coalesced_gets: AtomicU64,
}

/// A get's lane: the server the transport expects to answer it (`None`: not known,
/// or one path for every row).
type Route = Option<u64>;

#[derive(Default)]
struct State {
    /// The lanes with calls out or gets waiting (an idle lane is removed).
    lanes: HashMap<Route, Lane>,
}

#[derive(Default)]
struct Lane {
    in_flight: usize,
    waiting: VecDeque<Waiter>,
}

/// A get waiting for its turn.
struct Waiter {
    table: Arc<str>,
    get: Get,
    turn: oneshot::Sender<Turn>,
}

/// What a waiting get is told when its turn comes.
enum Turn {
    /// Lead: send your get followed by these (same table and lane) as one call, in
    /// `slot`.
    Lead { own: Box<Get>, others: Vec<Waiter>, slot: Slot },
    /// Your row, from another get's call.
    Row(Row),
    /// The shared call failed: run alone.
    Alone,
}

/// A slot of a lane; handed to the lane's next waiter (or freed) on drop, wherever it
/// is dropped (a leader's turn dropped unread frees it too).
struct Slot {
    gate: Option<Arc<GetCoalescer>>,
    route: Route,
}

impl Slot {
    /// Forgets the slot without releasing it (its holder keeps counting it).
    fn disarm(mut self) {
        self.gate = None;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            gate.release(self.route);
        }
    }
}

impl GetCoalescer {
    /// A gate letting `limit` get calls per lane out at once (0: no gate, no
    /// coalescing).
    pub(crate) fn new(limit: usize, max_wait: Duration) -> GetCoalescer {
        GetCoalescer {
            limit,
            max_wait,
            state: Mutex::new(State::default()),
            coalesced_calls: AtomicU64::new(0),
            coalesced_gets: AtomicU64::new(0),
        }
    }

    /// Most single-row get calls in flight at once per lane.
    #[cfg(test)]
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// `(calls, gets)`: coalesced multi-get calls that succeeded, and the gets they
    /// answered.
    pub(crate) fn counts(&self) -> (u64, u64) {
        (self.coalesced_calls.load(Ordering::Relaxed), self.coalesced_gets.load(Ordering::Relaxed))
    }

    /// Reads one row of `table` through the gate.
    pub(crate) async fn get(self: &Arc<Self>, attempts: &Attempts, table: &Arc<str>, get: &Get) -> Result<Row> {
        if self.limit == 0 {
            return get_alone(attempts, table, get).await;
        }
        let route = attempts.transport.get_route(table, get.row());
        let queued = {
            let mut state = self.lock();
            let lane = state.lanes.entry(route).or_default();
            if lane.in_flight < self.limit {
                lane.in_flight += 1;
                Err(())
            } else {
                let (turn, receiver) = oneshot::channel();
                lane.waiting.push_back(Waiter { table: Arc::clone(table), get: get.clone(), turn });
                Ok(receiver)
            }
        };
        let receiver = match queued {
            Ok(receiver) => receiver,
            // A free slot: go now.
            Err(()) => {
                let _slot = Slot { gate: Some(Arc::clone(self)), route };
                return get_alone(attempts, table, get).await;
            }
        };
        let turn = match tokio::time::timeout(self.max_wait, receiver).await {
            Ok(turn) => turn,
            // Waited too long: run alone (the abandoned entry is skipped later).
            Err(_) => return get_alone(attempts, table, get).await,
        };
        match turn {
            Ok(Turn::Row(row)) => Ok(row),
            Ok(Turn::Lead { own, others, slot }) => {
                if others.is_empty() {
                    return get_alone(attempts, table, &own).await;
                }
                match self.lead(attempts, table, *own, others).await {
                    Some(row) => Ok(row),
                    None => {
                        drop(slot);
                        get_alone(attempts, table, get).await
                    }
                }
            }
            // The shared call failed, or its leader was dropped mid-call.
            Ok(Turn::Alone) | Err(_) => get_alone(attempts, table, get).await,
        }
    }

    /// Sends `own` and `others` as one `getMultiple`, once. On success hands each
    /// waiter its row and returns the leader's; on any failure tells every waiter to
    /// run alone and returns `None`.
    async fn lead(&self, attempts: &Attempts, table: &Arc<str>, own: Get, others: Vec<Waiter>) -> Option<Row> {
        let mut gets = Vec::with_capacity(others.len() + 1);
        gets.push(own);
        let mut turns = Vec::with_capacity(others.len());
        for waiter in others {
            gets.push(waiter.get);
            turns.push(waiter.turn);
        }
        let wanted = gets.len();
        // Tried once: on failure each get runs alone with its own retries.
        let batch = attempts.once_as(Operation::MultiGet, attempts.transport.get_many(table, &gets)).await.ok();
        match batch.filter(|batch| batch.len() == wanted) {
            Some(batch) => {
                self.coalesced_calls.fetch_add(1, Ordering::Relaxed);
                self.coalesced_gets.fetch_add(wanted as u64, Ordering::Relaxed);
                // Every row a view of the one reply (no copy per waiter).
                let mut rows = batch.into_iter();
                let own = rows.next().unwrap_or_default();
                for (turn, row) in turns.into_iter().zip(rows) {
                    // A waiter that went away no longer wants its row.
                    let _ = turn.send(Turn::Row(row));
                }
                Some(own)
            }
            None => {
                for turn in turns {
                    let _ = turn.send(Turn::Alone);
                }
                None
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A slot of lane `route` was freed: hand it to the lane's oldest live waiter, with
    /// every other waiter of the lane for the same table, or free it (and drop the lane
    /// when it has nothing left).
    fn release(self: &Arc<Self>, route: Route) {
        let mut state = self.lock();
        let Some(lane) = state.lanes.get_mut(&route) else { return };
        if self.hand_over(lane, route) {
            return;
        }
        lane.in_flight = lane.in_flight.saturating_sub(1);
        if lane.in_flight == 0 && lane.waiting.is_empty() {
            state.lanes.remove(&route);
        }
    }

    /// Hands a freed slot of `lane` to its oldest live waiter; false when none waits.
    fn hand_over(self: &Arc<Self>, lane: &mut Lane, route: Route) -> bool {
        loop {
            let Some(leader) = lane.waiting.pop_front() else { return false };
            if leader.turn.is_closed() {
                continue;
            }
            let mut others = Vec::new();
            let mut kept = VecDeque::with_capacity(lane.waiting.len());
            for waiter in lane.waiting.drain(..) {
                if waiter.turn.is_closed() {
                    continue;
                }
                if others.len() + 1 < MAX_COALESCED && waiter.table == leader.table {
                    others.push(waiter);
                } else {
                    kept.push_back(waiter);
                }
            }
            lane.waiting = kept;
            let Waiter { get, turn, .. } = leader;
            let slot = Slot { gate: Some(Arc::clone(self)), route };
            match turn.send(Turn::Lead { own: Box::new(get), others, slot }) {
                Ok(()) => return true,
                // The leader went away just now: give its company back and try the next
                // (the slot stays counted and goes to the next leader).
                Err(Turn::Lead { others, slot, .. }) => {
                    slot.disarm();
                    for waiter in others.into_iter().rev() {
                        lane.waiting.push_front(waiter);
                    }
                }
                Err(_) => {}
            }
        }
    }
}

/// One get on its own: the ordinary call path (pool, timeout, retries).
async fn get_alone(attempts: &Attempts, table: &str, get: &Get) -> Result<Row> {
    attempts.run(Operation::Get, Some(table), Idempotence::Idempotent, |t| t.get(table, get)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(row: &str) -> Get {
        Get::new(row.to_owned())
    }

    /// A gate whose one slot is taken, with waiters queued for `tables` (in order), all
    /// in the lane of unknown servers.
    fn full_gate(tables: &[&str]) -> (Arc<GetCoalescer>, Vec<oneshot::Receiver<Turn>>) {
        let gate = Arc::new(GetCoalescer::new(1, Duration::from_secs(60)));
        let receivers = fill_lane(&gate, None, tables);
        (gate, receivers)
    }

    /// Takes lane `route`'s one slot and queues waiters for `tables` in it.
    fn fill_lane(gate: &GetCoalescer, route: Route, tables: &[&str]) -> Vec<oneshot::Receiver<Turn>> {
        let mut receivers = Vec::new();
        let mut state = gate.state.lock().unwrap();
        let lane = state.lanes.entry(route).or_default();
        lane.in_flight = 1;
        for (i, table) in tables.iter().enumerate() {
            let (turn, receiver) = oneshot::channel();
            lane.waiting.push_back(Waiter { table: Arc::from(*table), get: get(&format!("r{i}")), turn });
            receivers.push(receiver);
        }
        receivers
    }

    fn in_flight(gate: &GetCoalescer) -> usize {
        gate.state.lock().unwrap().lanes.values().map(|lane| lane.in_flight).sum()
    }

    #[test]
    fn a_freed_slot_goes_to_the_oldest_live_waiter_with_its_tables_company() {
        let (gate, mut receivers) = full_gate(&["gone", "a", "b", "a", "a"]);
        drop(receivers.remove(0)); // the first waiter went away
        gate.release(None);
        let Ok(Turn::Lead { own, others, slot }) = receivers[0].try_recv() else { panic!("waiter 1 should lead") };
        assert_eq!(&own.row()[..], b"r1");
        let rows: Vec<Vec<u8>> = others.iter().map(|w| w.get.row().to_vec()).collect();
        assert_eq!(rows, [b"r3".to_vec(), b"r4".to_vec()]);
        assert_eq!(in_flight(&gate), 1, "the slot was handed over, not freed");
        // Table b's waiter leads next, alone.
        drop(slot);
        let Ok(Turn::Lead { others, slot, .. }) = receivers[1].try_recv() else { panic!("waiter 2 should lead") };
        assert!(others.is_empty());
        drop(others);
        drop(slot);
        assert_eq!(in_flight(&gate), 0, "nobody waits: the slot is free");
    }

    #[test]
    fn a_turn_to_lead_dropped_unread_frees_its_slot() {
        let (gate, receivers) = full_gate(&["a", "b"]);
        gate.release(None);
        let mut receivers = receivers.into_iter();
        // The leader's task is cancelled with its turn unread: the slot moves on.
        drop(receivers.next());
        let Ok(Turn::Lead { slot, .. }) = receivers.next().unwrap().try_recv() else { panic!("b should lead") };
        drop(slot);
        assert_eq!(in_flight(&gate), 0);
    }

    #[test]
    fn a_coalesced_call_stops_at_its_maximum() {
        let tables = vec!["a"; MAX_COALESCED + 5];
        let (gate, mut receivers) = full_gate(&tables);
        gate.release(None);
        let Ok(Turn::Lead { others, slot: _slot, .. }) = receivers[0].try_recv() else { panic!("first should lead") };
        assert_eq!(others.len() + 1, MAX_COALESCED);
        assert_eq!(gate.state.lock().unwrap().lanes[&None].waiting.len(), 5);
    }

    #[test]
    fn each_server_has_its_own_lane() {
        let gate = Arc::new(GetCoalescer::new(1, Duration::from_secs(60)));
        let mut one = fill_lane(&gate, Some(1), &["a", "a"]);
        let mut two = fill_lane(&gate, Some(2), &["a"]);
        // A slot freed on server 1 goes to server 1's waiters only, together.
        gate.release(Some(1));
        let Ok(Turn::Lead { others, slot, .. }) = one[0].try_recv() else { panic!("server 1's waiter should lead") };
        assert_eq!(others.len(), 1, "the other get for server 1 joins the call");
        assert!(two[0].try_recv().is_err(), "server 2's waiter still waits for server 2");
        drop(others);
        drop(slot);
        drop(one.remove(1));
        assert!(!gate.state.lock().unwrap().lanes.contains_key(&Some(1)), "an idle lane is dropped");
        gate.release(Some(2));
        let Ok(Turn::Lead { others, slot, .. }) = two[0].try_recv() else { panic!("server 2's waiter should lead") };
        assert!(others.is_empty());
        drop(slot);
        assert_eq!(in_flight(&gate), 0);
        assert!(gate.state.lock().unwrap().lanes.is_empty());
    }
}
