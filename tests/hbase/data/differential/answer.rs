//! Answers as both clients give them, compared byte for byte, and the report of a
//! difference in its smallest form: the operation, where the answers part, both sides.

use std::fmt::Write as _;

/// Timestamps at or above this were assigned by the server's clock (explicit ones are
/// small): between the two tables, written at different moments, only these may differ.
pub const SERVER_TS_FLOOR: i64 = 1_000_000_000_000;

/// One cell of an answer: `(family, qualifier, timestamp, value)`.
pub type AnswerCell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

/// One item of a read's answer: a row (or a part of one, with `batch`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The row key (empty for an empty get result).
    pub row: Vec<u8>,
    /// `(family, qualifier, timestamp, value)` in the order given.
    pub cells: Vec<AnswerCell>,
    /// Each cell's type byte (4: a value; delete markers in raw scans), in `cells`'
    /// order.
    pub types: Vec<u8>,
}

impl Item {
    /// A row as an answer item (an empty get result has no row key, as in Java).
    pub fn of_row(row: &basalt::Row) -> Item {
        let cells: Vec<_> = row
            .cells()
            .map(|c| (c.family().to_vec(), c.qualifier().to_vec(), c.timestamp(), c.value().to_vec()))
            .collect();
        let types = row.cells().map(|c| c.cell_type().code()).collect();
        Item { row: if cells.is_empty() { Vec::new() } else { row.key().to_vec() }, cells, types }
    }
}

/// What one operation answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A write that returns nothing.
    Done,
    /// `exists`, or whether a conditional write was applied.
    Bool(bool),
    Bools(Vec<bool>),
    /// Rows of a scan, results of gets, the row an increment or append returns.
    Rows(Vec<Item>),
    /// The request failed or was refused (both sides refusing agree, whatever the words).
    Err(String),
    /// One answer per part: a batch's actions, or a check-and-mutate's verdict and row.
    Each(Vec<Answer>),
}

impl Answer {
    /// Cells in the answer.
    pub fn cells(&self) -> usize {
        match self {
            Answer::Rows(items) => items.iter().map(|i| i.cells.len()).sum(),
            Answer::Each(parts) => parts.iter().map(Answer::cells).sum(),
            Answer::Done | Answer::Bool(_) | Answer::Bools(_) | Answer::Err(_) => 0,
        }
    }

    /// The answer with server-assigned timestamps blanked (for comparing the two tables).
    pub fn masked(&self) -> Answer {
        match self {
            Answer::Rows(items) => Answer::Rows(
                items
                    .iter()
                    .map(|i| Item {
                        row: i.row.clone(),
                        cells: i
                            .cells
                            .iter()
                            .map(|(f, q, ts, v)| {
                                (f.clone(), q.clone(), if *ts >= SERVER_TS_FLOOR { -1 } else { *ts }, v.clone())
                            })
                            .collect(),
                        types: i.types.clone(),
                    })
                    .collect(),
            ),
            Answer::Each(parts) => Answer::Each(parts.iter().map(Answer::masked).collect()),
            other => other.clone(),
        }
    }
}

impl Answer {
    /// The answer without the items of these rows (rows whose stored cells differ
    /// between the two tables by design, where a read shows stored cells).
    pub fn without_rows(&self, rows: &[&[u8]]) -> Answer {
        match self {
            Answer::Rows(items) => {
                Answer::Rows(items.iter().filter(|i| !rows.contains(&i.row.as_slice())).cloned().collect())
            }
            other => other.clone(),
        }
    }
}

/// Whether two answers agree: equal, or both failures.
pub fn agree(a: &Answer, b: &Answer) -> bool {
    match (a, b) {
        (Answer::Err(_), Answer::Err(_)) => true,
        (Answer::Each(x), Answer::Each(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| agree(p, q)),
        _ => a == b,
    }
}

/// Printable bytes: text as is, other bytes as `\xNN`.
pub fn show(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        if c.is_ascii_graphic() && c != b'\\' {
            s.push(char::from(c));
        } else {
            let _ = write!(s, "\\x{c:02x}");
        }
    }
    s
}

fn show_item(item: &Item) -> String {
    let mut s = format!("{} [", show(&item.row));
    for (i, (f, q, ts, v)) in item.cells.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let ts = if *ts == -1 { "server".to_owned() } else { ts.to_string() };
        let _ = write!(s, "{}:{}@{}={}", show(f), show(q), ts, show(v));
        match item.types.get(i) {
            Some(4) => {}
            Some(t) => {
                let _ = write!(s, " (type {t})");
            }
            None => s.push_str(" (no type)"),
        }
    }
    s.push(']');
    s
}

/// A short form of an answer (at most `max` items).
pub fn show_answer(a: &Answer, max: usize) -> String {
    match a {
        Answer::Rows(items) => {
            let mut s = format!("{} item(s), {} cell(s):", items.len(), a.cells());
            for item in items.iter().take(max) {
                let _ = write!(s, "\n      {}", show_item(item));
            }
            if items.len() > max {
                let _ = write!(s, "\n      ... {} more", items.len() - max);
            }
            s
        }
        other => format!("{other:?}"),
    }
}

/// Where two answers part: a description of the first difference.
pub fn first_difference(a: &Answer, b: &Answer) -> String {
    match (a, b) {
        (Answer::Rows(x), Answer::Rows(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if p != q {
                    return format!("item {i}: {} vs {}", show_item(p), show_item(q));
                }
            }
            match x.len().cmp(&y.len()) {
                std::cmp::Ordering::Less => {
                    format!("the first has {} item(s), the second also {}", x.len(), show_item(&y[x.len()]))
                }
                std::cmp::Ordering::Greater => {
                    format!("the second has {} item(s), the first also {}", y.len(), show_item(&x[y.len()]))
                }
                std::cmp::Ordering::Equal => "equal".into(),
            }
        }
        _ => format!("{} vs {}", show_answer(a, 3), show_answer(b, 3)),
    }
}

/// One disagreement, ready to print.
pub struct Mismatch {
    pub what: String,
    pub left: (String, Answer),
    pub right: (String, Answer),
}

impl Mismatch {
    /// The report: the operation, where the answers part, both answers (shortened).
    pub fn report(&self) -> String {
        format!(
            "  {}\n    first difference: {}\n    {}: {}\n    {}: {}",
            self.what,
            first_difference(&self.left.1, &self.right.1),
            self.left.0,
            show_answer(&self.left.1, 6),
            self.right.0,
            show_answer(&self.right.1, 6)
        )
    }
}
