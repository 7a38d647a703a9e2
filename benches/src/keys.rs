//! The data every client of the peer bench writes and reads, defined by formulas the
//! Python and Java workers repeat (`benches/peers/`): row `i` has key
//! `salt day seq` (decimal text) and a 200-byte value.

/// Days the rows are spread over: a query for one day reads 1% of the rows.
pub const DAYS: u64 = 100;
/// The column family.
pub const FAMILY: &[u8] = b"d";
/// The one qualifier.
pub const QUALIFIER: &[u8] = b"v";
/// Bytes per value.
pub const VALUE_BYTES: usize = 200;

/// A pseudo-random, unique sequence number per row: the first output of SplitMix64
/// seeded with `i` (a bijection of `i`).
pub fn seq(i: u64) -> u64 {
    basalt_rowkey::hotspot::SampleRng::new(i).next_u64()
}

/// Width of the decimal salt for `salts` buckets (as `basalt_rowkey::Salt::modulo`).
pub fn salt_width(salts: u32) -> usize {
    salts.saturating_sub(1).max(1).to_string().len()
}

/// Row `i`'s key: `seq % salts` in [`salt_width`] digits, the day in 2 digits, `seq`
/// in 20 digits.
pub fn row_key(i: u64, salts: u32) -> Vec<u8> {
    let s = seq(i);
    let w = salt_width(salts);
    format!("{:0w$}{:02}{:020}", s % u64::from(salts.max(1)), i % DAYS, s).into_bytes()
}

/// Row `i`'s value: letters `a..z` cycling from `(7 i) % 26`.
pub fn row_value(i: u64) -> Vec<u8> {
    let first = (i % 26) * 7 % 26;
    (0..VALUE_BYTES as u64).map(|j| b'a' + ((first + j) % 26) as u8).collect()
}

/// This process's CPU time so far (user + system, every thread), from `/proc/self/stat`.
pub fn cpu_seconds() -> Result<f64, String> {
    let stat = std::fs::read_to_string("/proc/self/stat").map_err(|e| format!("/proc/self/stat: {e}"))?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map(|(_, rest)| rest).ok_or("/proc/self/stat: no ')'")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12th and 13th after ')'.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).ok_or("/proc/self/stat: bad line");
    // USER_HZ is 100 on every Linux architecture the bench runs on.
    Ok((ticks(11)? + ticks(12)?) as f64 / 100.0)
}
