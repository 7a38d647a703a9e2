//! The Basalt side: each operation through a `basalt::Table` (any transport), answers
//! in the shape the Java tool gives them.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use basalt::{Row, ScanPaging, Table};

use super::answer::{Answer, Item};
use super::model::{basalt_mutations, CheckVia, Mutation, Read, Write};

fn rows(rows: &[Row]) -> Answer {
    Answer::Rows(rows.iter().map(Item::of_row).collect())
}

fn or_err<T>(r: basalt::Result<T>, f: impl FnOnce(T) -> Answer) -> Answer {
    match r {
        Ok(v) => f(v),
        Err(e) => Answer::Err(e.to_string()),
    }
}

fn now_ms() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}

/// Applies one write; afterwards waits for the clock's next millisecond, so that
/// server-assigned timestamps follow the order of the writes (DiffTool does the same).
pub async fn write(table: &Table, w: &Write) -> Answer {
    let answer = apply(table, w).await;
    let done = now_ms();
    while now_ms() <= done {
        tokio::time::sleep(Duration::from_micros(300)).await;
    }
    answer
}

async fn apply(table: &Table, w: &Write) -> Answer {
    match w {
        Write::Put(p) => or_err(table.put(p.basalt()).await, |()| Answer::Done),
        Write::PutMany(ps) => or_err(table.put_many(ps.iter().map(|p| p.basalt())).await, |_| Answer::Done),
        Write::Delete(d) | Write::DeleteAsUnion(d) => or_err(table.delete(d.basalt()).await, |()| Answer::Done),
        Write::DeleteMany(ds) => or_err(table.delete_many(ds.iter().map(|d| d.basalt())).await, |_| Answer::Done),
        Write::Increment(row, cols) => {
            let mut inc = basalt::Increment::new(row.clone());
            for (f, q, n) in cols {
                inc = inc.add(f.clone(), q.clone(), *n);
            }
            or_err(table.increment(inc).await, |r| rows(&[r]))
        }
        Write::Append(row, cols) => {
            let mut app = basalt::Append::new(row.clone());
            for (f, q, v) in cols {
                app = app.add(f.clone(), q.clone(), v.clone());
            }
            or_err(table.append(app).await, |r| rows(&[r]))
        }
        Write::MutateRow(row, muts) => or_err(table.mutate_row(basalt_mutations(row, muts)).await, |()| Answer::Done),
        Write::Check { row, family, qualifier, op, value, via, muts } => {
            let (f, q, v) = (family.clone(), qualifier.clone(), value.clone());
            let applied = match (via, muts.as_slice()) {
                (CheckVia::Put, [Mutation::Put(p)]) => table.check_and_put(f, q, v, p.basalt()).await,
                (CheckVia::Delete, [Mutation::Delete(d)]) => table.check_and_delete(f, q, v, d.basalt()).await,
                (CheckVia::Put | CheckVia::Delete | CheckVia::Mutate, _) => {
                    table.check_and_mutate(f, q, *op, v, basalt_mutations(row, muts)).await
                }
            };
            or_err(applied, Answer::Bool)
        }
        Write::MutateRowResults(..) | Write::CheckWith(_) | Write::Batch(_) | Write::GatewayRefuses(_) => {
            super::mutation_api::apply(table, w).await
        }
    }
}

/// Runs one read every way Basalt offers it; each answer is named by how it was asked.
pub async fn read(table: &Table, r: &Read) -> Vec<(&'static str, Answer)> {
    match r {
        Read::Get(g) => {
            let (one, many) = futures::join!(table.get(g.basalt()), table.get_many([g.basalt()]));
            vec![("get", or_err(one, |r| rows(&[r]))), ("get_many of one", or_err(many, |r| rows(&r)))]
        }
        Read::GetMany(gs) => {
            let many = table.get_many(gs.iter().map(|g| g.basalt())).await;
            // Concurrent single gets: coalesced by the client into shared calls.
            let singles = futures::future::join_all(gs.iter().map(|g| table.get(g.basalt()))).await;
            let singles: basalt::Result<Vec<Row>> = singles.into_iter().collect();
            vec![("get_many", or_err(many, |r| rows(&r))), ("concurrent gets", or_err(singles, |r| rows(&r)))]
        }
        Read::Exists(g) => vec![("exists", or_err(table.exists(g.basalt()).await, Answer::Bool))],
        Read::ExistsMany(gs) => {
            vec![("exists_many", or_err(table.exists_many(gs.iter().map(|g| g.basalt())).await, Answer::Bools))]
        }
        Read::Scan(s) => {
            let ways = [
                ("scan", ScanPaging::Scanner, 1),
                ("stateless scan", ScanPaging::Stateless, 1),
                ("parallel_regions(3) scan", ScanPaging::Scanner, 3),
            ];
            let mut out = Vec::new();
            for (name, paging, parallel) in ways {
                out.push((name, or_err(table.scan_all(s.basalt(paging, parallel)).await, |r| rows(&r))));
            }
            out
        }
    }
}
