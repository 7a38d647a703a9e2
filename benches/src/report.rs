//! The figures of one run: a table for people, JSON for tools.

use std::fmt::Write as _;
use std::time::Duration;

/// Latency and throughput of one get run.
#[derive(Debug, Default, Clone)]
pub struct GetFigures {
    pub p50: Duration,
    pub p99: Duration,
    pub per_second: f64,
}

impl GetFigures {
    pub fn new(mut latencies: Vec<Duration>, wall: Duration) -> GetFigures {
        latencies.sort_unstable();
        let at = |q: usize| latencies.get((latencies.len() * q / 100).min(latencies.len().saturating_sub(1)));
        GetFigures {
            p50: at(50).copied().unwrap_or_default(),
            p99: at(99).copied().unwrap_or_default(),
            per_second: latencies.len() as f64 / wall.as_secs_f64(),
        }
    }
}

/// Everything one run measured.
#[derive(Debug, Default)]
pub struct Report {
    rows: usize,
    value_bytes: usize,
    gets: usize,
    addr: String,
    hbase_ready: Option<Duration>,
    pub put_sync: f64,
    pub put_basalt: f64,
    pub put_basalt_4: f64,
    pub get_sync: GetFigures,
    pub get_basalt_16: GetFigures,
    pub get_basalt_1: GetFigures,
    pub scan_sync: f64,
    pub scan_basalt: f64,
    pub scan_raw: f64,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

impl Report {
    pub fn new(rows: usize, value_bytes: usize, gets: usize, addr: String, hbase_ready: Option<Duration>) -> Report {
        Report { rows, value_bytes, gets, addr, hbase_ready, ..Report::default() }
    }

    /// (what, sync baseline, basalt, unit, basalt/sync ratio); for latencies a ratio
    /// below 1 is better, for rates above 1.
    fn lines(&self) -> Vec<(String, f64, f64, &'static str)> {
        let (gs, g16, g1) = (&self.get_sync, &self.get_basalt_16, &self.get_basalt_1);
        vec![
            ("put, batches of 1000, 1 task".into(), self.put_sync, self.put_basalt, "rows/s"),
            ("put, batches of 1000, 4 tasks".into(), self.put_sync, self.put_basalt_4, "rows/s"),
            ("get p50, 16 tasks (sync: sequential)".into(), ms(gs.p50), ms(g16.p50), "ms"),
            ("get p99, 16 tasks (sync: sequential)".into(), ms(gs.p99), ms(g16.p99), "ms"),
            ("get throughput, 16 tasks".into(), gs.per_second, g16.per_second, "gets/s"),
            ("get p50, 1 task".into(), ms(gs.p50), ms(g1.p50), "ms"),
            ("get p99, 1 task".into(), ms(gs.p99), ms(g1.p99), "ms"),
            ("get throughput, 1 task".into(), gs.per_second, g1.per_second, "gets/s"),
            ("scan, caching 1000".into(), self.scan_sync, self.scan_basalt, "rows/s"),
            ("scan, raw async Connection (no Client)".into(), self.scan_sync, self.scan_raw, "rows/s"),
        ]
    }

    /// A plain-text table of absolute figures and ratios.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let ready = self.hbase_ready.map(|d| format!(", launched in {:.1} s", d.as_secs_f64())).unwrap_or_default();
        let _ = writeln!(
            out,
            "\nbasalt vs the sync Thrift client (1 connection, sequential): {} rows of {} B, {} gets; HBase at {}{ready}\n",
            self.rows, self.value_bytes, self.gets, self.addr
        );
        let _ = writeln!(
            out,
            "| {:<38} | {:>14} | {:>14} | {:<7} | {:>13} |",
            "measure", "sync", "basalt", "unit", "basalt/sync"
        );
        let _ = writeln!(out, "|{:-<40}|{:->16}|{:->16}|{:-<9}|{:->15}|", "", "", "", "", "");
        for (what, sync, basalt, unit) in self.lines() {
            let decimals = if unit == "ms" { 3 } else { 0 };
            let _ = writeln!(
                out,
                "| {what:<38} | {sync:>14.decimals$} | {basalt:>14.decimals$} | {unit:<7} | {:>12.2}x |",
                basalt / sync
            );
        }
        out.push_str("\n(ratios: above 1 is better for rates, below 1 is better for latencies)\n");
        out
    }

    /// The same figures as a JSON object.
    pub fn json(&self) -> String {
        let get = |g: &GetFigures| {
            format!("{{\"p50_ms\":{:.4},\"p99_ms\":{:.4},\"per_second\":{:.1}}}", ms(g.p50), ms(g.p99), g.per_second)
        };
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let ready = self.hbase_ready.map(|d| format!("{:.3}", d.as_secs_f64())).unwrap_or_else(|| "null".into());
        format!(
            concat!(
                "{{\"rows\":{},\"value_bytes\":{},\"gets\":{},\"hbase\":{{\"addr\":\"{}\",\"ready_s\":{}}},\n",
                " \"put\":{{\"unit\":\"rows/s\",\"sync\":{:.1},\"basalt_1_task\":{:.1},\"basalt_4_tasks\":{:.1},",
                "\"ratio_1_task\":{:.3},\"ratio_4_tasks\":{:.3}}},\n",
                " \"get\":{{\"sync_sequential\":{},\"basalt_16_tasks\":{},\"basalt_1_task\":{},",
                "\"ratio_p50_16\":{:.3},\"ratio_p99_16\":{:.3},\"ratio_throughput_16\":{:.3},",
                "\"ratio_p50_1\":{:.3},\"ratio_throughput_1\":{:.3}}},\n",
                " \"scan\":{{\"unit\":\"rows/s\",\"sync\":{:.1},\"basalt\":{:.1},\"ratio\":{:.3},",
                "\"raw_connection\":{:.1},\"ratio_raw\":{:.3}}}}}\n"
            ),
            self.rows,
            self.value_bytes,
            self.gets,
            self.addr.replace(['"', '\\'], ""),
            ready,
            self.put_sync,
            self.put_basalt,
            self.put_basalt_4,
            ratio(self.put_basalt, self.put_sync),
            ratio(self.put_basalt_4, self.put_sync),
            get(&self.get_sync),
            get(&self.get_basalt_16),
            get(&self.get_basalt_1),
            ratio(self.get_basalt_16.p50.as_secs_f64(), self.get_sync.p50.as_secs_f64()),
            ratio(self.get_basalt_16.p99.as_secs_f64(), self.get_sync.p99.as_secs_f64()),
            ratio(self.get_basalt_16.per_second, self.get_sync.per_second),
            ratio(self.get_basalt_1.p50.as_secs_f64(), self.get_sync.p50.as_secs_f64()),
            ratio(self.get_basalt_1.per_second, self.get_sync.per_second),
            self.scan_sync,
            self.scan_basalt,
            ratio(self.scan_basalt, self.scan_sync),
            self.scan_raw,
            ratio(self.scan_raw, self.scan_sync),
        )
    }
}
