//! The demo's data: deterministic call records and log events, their key
//! schemas, and what each query must return (computed here, checked against HBase).

use std::collections::HashSet;

use basalt::Put;
use basalt_rowkey::hotspot::SampleRng;
use basalt_rowkey::{FieldType, Pad, Salt, Schema, TimeUnit, TsFormat, Value, Width};
use bytes::Bytes;

use crate::analyze::yyyymmddhhmmss;
use crate::error::{CliError, CliResult};

/// 2021-07-01T00:00:00Z: calls span July to December 2021.
const CALLS_FROM: i64 = 1_625_097_600;
/// 184 days: July 1st to December 31st.
const CALLS_SPAN: i64 = 184 * 86_400;
/// 2021-12-01T00:00:00Z in ms: logs start here, one event about every 50 ms.
pub const LOGS_FROM_MS: i64 = 1_638_316_800_000;
/// Buckets of the logs' `ts % N` salt.
pub const LOG_BUCKETS: u32 = 8;

const KINDS: [&str; 3] = ["in", "out", "sms"];
const EVENTS: [&str; 4] = ["login", "request", "error", "logout"];

/// One call record.
#[derive(Debug, Clone)]
pub struct Call {
    /// The phone, 11 digits.
    pub phone: String,
    /// `yyyyMMddHHmmss`.
    pub time: u64,
    /// `in`, `out` or `sms`.
    pub kind: &'static str,
    /// Duration in seconds.
    pub dur: u32,
}

/// One log event.
#[derive(Debug, Clone)]
pub struct Log {
    /// Milliseconds since the epoch.
    pub ts: i64,
    /// Host name.
    pub host: String,
    /// Event name.
    pub event: &'static str,
}

/// Salted call records: `XX_phone_yyyyMMddHHmmss`, XX from the phone and the month, `regions` buckets.
pub fn calls_schema(regions: u32) -> CliResult<Schema> {
    calls_builder().salt(Salt::call_record("phone", "calltime", regions)).build().map_err(schema_err)
}

/// The same key without the salt: the hotspot-prone design.
pub fn plain_schema() -> CliResult<Schema> {
    calls_builder().build().map_err(schema_err)
}

fn calls_builder() -> basalt_rowkey::SchemaBuilder {
    Schema::builder()
        .field("phone", FieldType::Str(Width::Fixed { len: 11, pad: Pad::Right(b' ') }))
        .literal("_")
        .field("calltime", FieldType::Decimal { digits: 14 })
}

/// Bucketed logs, when time is the only dimension: `[ts % 8][ts][host][event]`.
pub fn logs_schema() -> CliResult<Schema> {
    Schema::builder()
        .field("ts", FieldType::Timestamp { unit: TimeUnit::Millis, format: TsFormat::Binary })
        .field("host", FieldType::Str(Width::Variable))
        .field("event", FieldType::Str(Width::Variable))
        .salt(Salt::modulo("ts", LOG_BUCKETS))
        .build()
        .map_err(schema_err)
}

fn schema_err(e: basalt_rowkey::SchemaError) -> CliError {
    CliError::failed(format!("demo schema: {e}"))
}

fn phone(rng: &mut SampleRng) -> String {
    format!("1{}{:09}", 3 + rng.below(7), rng.below(1_000_000_000))
}

/// `n` distinct call records; every 40th is `hero`'s.
pub fn calls(n: usize, hero: &str, seed: u64) -> Vec<Call> {
    let mut rng = SampleRng::new(seed);
    let phones: Vec<String> = (0..500).map(|_| phone(&mut rng)).collect();
    let mut seen = HashSet::with_capacity(n);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let who = if out.len() % 40 == 0 { hero.to_owned() } else { phones[rng.below(500) as usize].clone() };
        let time = yyyymmddhhmmss(CALLS_FROM + rng.below(CALLS_SPAN as u64) as i64);
        if seen.insert((who.clone(), time)) {
            let kind = KINDS[rng.below(3) as usize];
            out.push(Call { phone: who, time, kind, dur: 1 + rng.below(3600) as u32 });
        }
    }
    out
}

/// `n` log events in time order, about 50 ms apart, from 20 hosts.
pub fn logs(n: usize, seed: u64) -> Vec<Log> {
    let mut rng = SampleRng::new(seed ^ 0x5eed);
    let mut ts = LOGS_FROM_MS;
    (0..n)
        .map(|_| {
            ts += 1 + rng.below(100) as i64;
            Log { ts, host: format!("web{:02}", rng.below(20)), event: EVENTS[rng.below(4) as usize] }
        })
        .collect()
}

/// The values of a call's key fields.
pub fn call_values(c: &Call) -> [Value; 2] {
    [Value::str(c.phone.clone()), Value::UInt(c.time)]
}

/// The put of a call under `schema`.
pub fn call_put(schema: &Schema, c: &Call) -> CliResult<Put> {
    let key = schema.encode(&call_values(c))?;
    Ok(Put::new(key).cell("d", "type", c.kind).cell("d", "dur", format!("{:05}", c.dur)).cell(
        "d",
        "peer",
        "13900000000",
    ))
}

/// The put of a log event.
pub fn log_put(schema: &Schema, l: &Log) -> CliResult<Put> {
    let key = schema.encode(&[Value::Timestamp(l.ts), Value::str(l.host.clone()), Value::str(l.event)])?;
    let level = if l.event == "error" { "ERROR" } else { "INFO" };
    Ok(Put::new(key).cell("d", "level", level).cell("d", "msg", format!("{} on {}", l.event, l.host)))
}

/// The logical keys (unsalted) `schema` gives `calls` that pass `keep`, sorted.
pub fn expected_calls(schema: &Schema, calls: &[Call], keep: impl Fn(&Call) -> bool) -> CliResult<Vec<Bytes>> {
    let mut out = calls
        .iter()
        .filter(|c| keep(c))
        .map(|c| schema.encode_logical(&call_values(c)))
        .collect::<Result<Vec<_>, _>>()?;
    out.sort();
    Ok(out)
}

/// The stored keys of every call under `schema`.
pub fn stored_keys(schema: &Schema, calls: &[Call]) -> CliResult<Vec<Bytes>> {
    Ok(calls.iter().map(|c| schema.encode(&call_values(c))).collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_is_distinct_and_deterministic() {
        let a = calls(2000, "13812345678", 1);
        let b = calls(2000, "13812345678", 1);
        assert_eq!(a.len(), 2000);
        assert_eq!(a.iter().map(|c| c.time).collect::<Vec<_>>(), b.iter().map(|c| c.time).collect::<Vec<_>>());
        assert_eq!(a.iter().filter(|c| c.phone == "13812345678").count(), 50);
        assert!(a.iter().all(|c| (20210701000000..20220101000000).contains(&c.time) && c.phone.len() == 11));
        let s = calls_schema(6).unwrap();
        let keys = stored_keys(&s, &a).unwrap();
        assert!(keys.iter().all(|k| s.decode(k).is_ok()));
        let l = logs(100, 1);
        assert!(l.windows(2).all(|w| w[0].ts < w[1].ts));
        assert!(log_put(&logs_schema().unwrap(), &l[0]).is_ok());
    }
}
