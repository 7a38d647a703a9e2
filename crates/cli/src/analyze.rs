//! Sample keys for a schema, region distribution tables and an SVG bar chart.

use std::fmt::Write as _;

use basalt_rowkey::hotspot::{HotspotReport, SampleRng};
use basalt_rowkey::{FieldType, Schema, TimeUnit, Value, Width};
use bytes::Bytes;

use crate::keyfmt::{escape, thousands};

/// Seconds of 2021-01-01T00:00:00Z: where sample time fields start.
pub const SAMPLE_EPOCH: i64 = 1_609_459_200;
/// Sample time fields span one year.
const SAMPLE_SPAN: i64 = 365 * 86_400;

/// UTC civil date-time of `secs` since the epoch: (year, month, day, hour, min, sec).
pub fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

/// `yyyyMMddHHmmss` of `secs` as a number.
pub fn yyyymmddhhmmss(secs: i64) -> u64 {
    let (y, mo, d, h, mi, s) = civil(secs);
    let date = (y.max(0) as u64) * 10_000 + u64::from(mo) * 100 + u64::from(d);
    date * 1_000_000 + u64::from(h) * 10_000 + u64::from(mi) * 100 + u64::from(s)
}

fn digits(rng: &mut SampleRng, len: usize) -> String {
    (0..len).map(|_| char::from(b'0' + rng.below(10) as u8)).collect()
}

/// Sample value `i` of `n` for one field: time-like fields increase with `i` over one
/// year (the order writes arrive in), other fields are random.
fn sample_value(ty: &FieldType, i: u64, n: u64, rng: &mut SampleRng) -> Value {
    let t = SAMPLE_EPOCH + (i as i64).saturating_mul(SAMPLE_SPAN) / (n.max(1) as i64);
    let str_of = |w: &Width, rng: &mut SampleRng| match w {
        Width::Fixed { len, .. } => digits(rng, (*len).min(64)),
        _ => format!("host{:03}", rng.below(100)),
    };
    match ty {
        FieldType::U8 => Value::UInt(rng.below(256)),
        FieldType::U16 => Value::UInt(rng.below(1 << 16)),
        FieldType::U32 => Value::UInt(rng.below(1 << 32)),
        FieldType::U64 => Value::UInt(rng.next_u64()),
        FieldType::I8 => Value::Int(rng.below(256) as i64 - 128),
        FieldType::I16 => Value::Int(rng.below(1 << 16) as i64 - (1 << 15)),
        FieldType::I32 => Value::Int(rng.below(1 << 32) as i64 - (1 << 31)),
        FieldType::I64 => Value::Int(rng.next_u64() as i64),
        FieldType::F32 => Value::F32(rng.below(1_000_000) as f32 / 100.0),
        FieldType::F64 => Value::F64(rng.below(1_000_000) as f64 / 100.0),
        FieldType::Bool => Value::Bool(rng.below(2) == 1),
        FieldType::Bytes(w) => Value::Bytes(str_of(w, rng).into_bytes()),
        FieldType::Str(w) | FieldType::ReversedStr(w) => Value::Str(str_of(w, rng)),
        FieldType::Decimal { digits: 14 } => Value::UInt(yyyymmddhhmmss(t)),
        FieldType::Decimal { digits: 8 } => Value::UInt(yyyymmddhhmmss(t) / 1_000_000),
        FieldType::Decimal { digits: d } => Value::UInt(rng.below(10u64.saturating_pow(u32::from(*d)))),
        FieldType::Timestamp { unit, .. } | FieldType::Cyclic { unit, .. } => {
            Value::Timestamp(if *unit == TimeUnit::Millis { t * 1000 } else { t })
        }
        FieldType::Enum(codes) => {
            let names: Vec<&str> = codes.pairs().map(|(n, _)| n).collect();
            Value::str(names.get(rng.below(names.len() as u64) as usize).copied().unwrap_or_default())
        }
        // Literals take no value; never asked for.
        _ => Value::Bytes(Vec::new()),
    }
}

/// `n` sample keys of `schema`, in write order.
pub fn sample_keys(schema: &Schema, n: u64, seed: u64) -> Result<Vec<Bytes>, basalt_rowkey::KeyError> {
    let mut rng = SampleRng::new(seed);
    let types: Vec<FieldType> = schema.value_fields().map(|f| f.ty().clone()).collect();
    (0..n)
        .map(|i| {
            let values: Vec<Value> = types.iter().map(|t| sample_value(t, i, n, &mut rng)).collect();
            schema.encode(&values)
        })
        .collect()
}

/// Split keys at the quantiles of `keys` (what pre-splitting on early data gives).
pub fn quantile_splits(keys: &[Bytes], regions: u32) -> Vec<Bytes> {
    let mut sorted: Vec<&Bytes> = keys.iter().collect();
    sorted.sort();
    let mut out: Vec<Bytes> = (1..regions.max(1) as usize)
        .filter_map(|i| sorted.get(i * sorted.len() / regions as usize))
        .map(|k| (*k).clone())
        .collect();
    out.dedup();
    out
}

fn bar(count: u64, max: u64, width: usize) -> String {
    let n = if max == 0 { 0 } else { ((count as f64 / max as f64) * width as f64).round() as usize };
    "#".repeat(n)
}

fn short(key: &[u8]) -> String {
    let e = escape(key);
    if e.chars().count() > 22 {
        format!("{}..", e.chars().take(20).collect::<String>())
    } else {
        e
    }
}

/// A text table of regions with one or more count columns (e.g. salted vs unsalted).
pub fn region_table(splits: &[Bytes], columns: &[(&str, &HotspotReport)]) -> String {
    let max = columns.iter().map(|(_, r)| r.max).max().unwrap_or(0);
    let mut out = format!("{:>6}  {:<24}", "region", "start key");
    for (name, _) in columns {
        let _ = write!(out, "  {name:>10}  {:<20}", "");
    }
    out.push('\n');
    for i in 0..=splits.len() {
        let start = if i == 0 { "(first)".to_owned() } else { short(&splits[i - 1]) };
        let _ = write!(out, "{i:>6}  {start:<24}");
        for (_, r) in columns {
            let c = r.counts.get(i).copied().unwrap_or(0);
            let _ = write!(out, "  {:>10}  {:<20}", thousands(c), bar(c, max, 20));
        }
        out.push('\n');
    }
    for (name, r) in columns {
        let _ = writeln!(out, "{name}: {r}");
    }
    out
}

fn xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A grouped bar chart of rows per region, one colour per series.
pub fn svg(title: &str, splits: &[Bytes], series: &[(&str, &HotspotReport)]) -> String {
    const COLOURS: [&str; 4] = ["#3b7dd8", "#e4572e", "#29a36a", "#8e6bbf"];
    let regions = splits.len() + 1;
    let (left, top, plot_h) = (70.0, 50.0, 260.0);
    let group_w = (640.0 / regions as f64).clamp(24.0, 80.0);
    let width = left + group_w * regions as f64 + 40.0;
    let max = series.iter().map(|(_, r)| r.max).max().unwrap_or(0).max(1) as f64;
    let bar_w = (group_w - 6.0) / series.len().max(1) as f64;
    let mut s = String::new();
    let h = top + plot_h + 90.0;
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{h:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{left}" y="22" font-size="15">{}</text>"#, xml(title));
    let base = top + plot_h;
    let _ = writeln!(s, r#"<line x1="{left}" y1="{base}" x2="{:.0}" y2="{base}" stroke="black"/>"#, width - 30.0);
    let _ = writeln!(s, r#"<text x="{:.0}" y="{top}" text-anchor="end">{}</text>"#, left - 6.0, thousands(max as u64));
    let _ = writeln!(s, r#"<text x="{:.0}" y="{base}" text-anchor="end">0</text>"#, left - 6.0);
    for i in 0..regions {
        let gx = left + group_w * i as f64 + 3.0;
        for (j, (_, r)) in series.iter().enumerate() {
            let c = r.counts.get(i).copied().unwrap_or(0) as f64;
            let bh = c / max * plot_h;
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" fill="{}"><title>region {i}: {c}</title></rect>"#,
                gx + bar_w * j as f64,
                base - bh,
                bar_w.max(1.0),
                COLOURS[j % COLOURS.len()]
            );
        }
        let label = if i == 0 { String::from("start") } else { short(&splits[i - 1]) };
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" transform="rotate(45 {:.1} {:.1})">{}</text>"#,
            gx,
            base + 14.0,
            gx,
            base + 14.0,
            xml(&label)
        );
    }
    for (j, (name, r)) in series.iter().enumerate() {
        let y = h - 30.0 + 14.0 * j as f64 - 14.0 * (series.len() as f64 - 1.0);
        let _ =
            writeln!(s, r#"<rect x="{left}" y="{:.0}" width="10" height="10" fill="{}"/>"#, y - 9.0, COLOURS[j % 4]);
        let _ = writeln!(s, r#"<text x="{:.0}" y="{y:.0}">{}: skew {:.2}</text>"#, left + 14.0, xml(name), r.skew);
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(yyyymmddhhmmss(SAMPLE_EPOCH + 86_400 * 59 + 3723), 20210301010203);
        assert_eq!(civil(951_782_400), (2000, 2, 29, 0, 0, 0));
    }

    #[test]
    fn samples_follow_the_schema() {
        let s = Schema::from_toml_str(
            "[salt]\nstrategy = \"call_record\"\nbuckets = 6\ninputs = [\"phone\", \"t\"]\n\
             [[fields]]\nname = \"phone\"\ntype = \"string\"\nwidth = 11\n\
             [[fields]]\ntype = \"literal\"\nvalue = \"_\"\n\
             [[fields]]\nname = \"t\"\ntype = \"decimal\"\ndigits = 14\n",
        )
        .unwrap();
        let keys = sample_keys(&s, 100, 7).unwrap();
        assert_eq!(keys.len(), 100);
        assert!(keys.iter().all(|k| s.decode(k).is_ok()));
        let splits = quantile_splits(&keys, 4);
        assert_eq!(splits.len(), 3);
        let r = basalt_rowkey::hotspot::analyze(&keys, &splits);
        let text = region_table(&splits, &[("sample", &r)]);
        assert!(text.contains("100 keys"));
        assert!(svg("t<", &splits, &[("a", &r)]).contains("t&lt;"));
    }
}
