//! `--stats`: a small in-process recorder for the client's metrics (see
//! `basalt::metrics`), printed to stderr when the command ends.
//!
//! Counters keep their value, gauges their value and the highest it reached (a pool's
//! connections are all closed by the time the command ends); histograms keep every sample (a command records
//! at most one sample per call or page, so this stays small) and print their count,
//! median, 99th percentile and maximum.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder, SharedString, Unit,
};

/// One metric's storage.
#[derive(Debug)]
enum Slot {
    Counter(Arc<Count>),
    Gauge(Arc<Level>),
    Histogram(Arc<Samples>),
}

/// A counter's value.
#[derive(Debug, Default)]
struct Count(AtomicU64);

impl CounterFn for Count {
    fn increment(&self, value: u64) {
        self.0.fetch_add(value, Ordering::Relaxed);
    }

    fn absolute(&self, value: u64) {
        self.0.fetch_max(value, Ordering::Relaxed);
    }
}

/// A gauge's value and the highest it reached.
#[derive(Debug, Default)]
struct Level(Mutex<(f64, f64)>);

impl Level {
    fn update(&self, f: impl FnOnce(&mut f64)) {
        let mut level = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut level.0);
        level.1 = level.1.max(level.0);
    }
}

impl GaugeFn for Level {
    fn increment(&self, value: f64) {
        self.update(|v| *v += value);
    }

    fn decrement(&self, value: f64) {
        self.update(|v| *v -= value);
    }

    fn set(&self, value: f64) {
        self.update(|v| *v = value);
    }
}

/// A histogram's samples.
#[derive(Debug, Default)]
struct Samples(Mutex<Vec<f64>>);

impl HistogramFn for Samples {
    fn record(&self, value: f64) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(value);
    }
}

/// The metrics recorded so far, by name and labels.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stats {
    slots: Arc<Mutex<BTreeMap<String, Slot>>>,
}

impl Stats {
    /// Installs a recorder as the process's global one and returns a handle to what it
    /// records. Fails if a recorder is already installed.
    pub(crate) fn install() -> Result<Stats, String> {
        let stats = Stats::default();
        metrics::set_global_recorder(stats.clone()).map_err(|e| format!("cannot record metrics: {e}"))?;
        Ok(stats)
    }

    /// The slot of `key`, made by `make` the first time.
    fn slot<T>(&self, key: &Key, make: impl FnOnce() -> Slot, pick: impl FnOnce(&Slot) -> Option<T>) -> Option<T> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = slots.entry(render_key(key)).or_insert_with(make);
        pick(slot)
    }

    /// The report: one line per metric, sorted by name and labels.
    pub(crate) fn report(&self) -> String {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let mut out = String::from("basalt: stats\n");
        if slots.is_empty() {
            out.push_str("  (nothing recorded)\n");
        }
        let width = slots.keys().map(String::len).max().unwrap_or(0);
        for (key, slot) in slots.iter() {
            let _ = match slot {
                Slot::Counter(c) => writeln!(out, "  {key:width$}  {}", c.0.load(Ordering::Relaxed)),
                Slot::Gauge(g) => {
                    let (now, max) = *g.0.lock().unwrap_or_else(PoisonError::into_inner);
                    writeln!(out, "  {key:width$}  {now} max={max}")
                }
                Slot::Histogram(h) => {
                    let mut samples = h.0.lock().unwrap_or_else(PoisonError::into_inner).clone();
                    writeln!(out, "  {key:width$}  {}", summary(key, &mut samples))
                }
            };
        }
        out
    }
}

/// `name{label=value,...}`, labels in the order recorded.
fn render_key(key: &Key) -> String {
    let labels: Vec<String> = key.labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
    if labels.is_empty() {
        key.name().to_owned()
    } else {
        format!("{}{{{}}}", key.name(), labels.join(","))
    }
}

/// Count, median, 99th percentile and maximum (nearest rank); durations in
/// milliseconds.
fn summary(key: &str, samples: &mut [f64]) -> String {
    samples.sort_by(f64::total_cmp);
    let Some(&max) = samples.last() else { return "count=0".to_owned() };
    let rank = |q: f64| {
        let i = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len()) - 1;
        samples[i]
    };
    let seconds = key.split('{').next().is_some_and(|name| name.ends_with("_seconds"));
    let show = |v: f64| if seconds { format!("{:.3}ms", v * 1000.0) } else { format!("{v}") };
    format!("count={} p50={} p99={} max={}", samples.len(), show(rank(0.5)), show(rank(0.99)), show(max))
}

impl Recorder for Stats {
    fn describe_counter(&self, _key: KeyName, _unit: Option<Unit>, _description: SharedString) {}

    fn describe_gauge(&self, _key: KeyName, _unit: Option<Unit>, _description: SharedString) {}

    fn describe_histogram(&self, _key: KeyName, _unit: Option<Unit>, _description: SharedString) {}

    fn register_counter(&self, key: &Key, _metadata: &Metadata<'_>) -> Counter {
        let found = self.slot(
            key,
            || Slot::Counter(Arc::default()),
            |slot| match slot {
                Slot::Counter(c) => Some(Arc::clone(c)),
                Slot::Gauge(_) | Slot::Histogram(_) => None,
            },
        );
        // A name recorded as two kinds is a bug of the recording side: drop the second.
        found.map_or_else(Counter::noop, Counter::from_arc)
    }

    fn register_gauge(&self, key: &Key, _metadata: &Metadata<'_>) -> Gauge {
        let found = self.slot(
            key,
            || Slot::Gauge(Arc::default()),
            |slot| match slot {
                Slot::Gauge(g) => Some(Arc::clone(g)),
                Slot::Counter(_) | Slot::Histogram(_) => None,
            },
        );
        found.map_or_else(Gauge::noop, Gauge::from_arc)
    }

    fn register_histogram(&self, key: &Key, _metadata: &Metadata<'_>) -> Histogram {
        let found = self.slot(
            key,
            || Slot::Histogram(Arc::default()),
            |slot| match slot {
                Slot::Histogram(h) => Some(Arc::clone(h)),
                Slot::Counter(_) | Slot::Gauge(_) => None,
            },
        );
        found.map_or_else(Histogram::noop, Histogram::from_arc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_summarises() {
        let stats = Stats::default();
        metrics::with_local_recorder(&stats, || {
            for _ in 0..3 {
                metrics::counter!("calls_total", "operation" => "get").increment(1);
            }
            metrics::gauge!("conns", "state" => "idle").increment(2.0);
            metrics::gauge!("conns", "state" => "idle").decrement(1.0);
            for v in 1..=100 {
                metrics::histogram!("page_rows").record(f64::from(v));
            }
            metrics::histogram!("call_seconds").record(0.25);
        });
        let report = stats.report();
        let line = |key: &str| -> Vec<String> {
            let found = report.lines().find(|l| l.split_whitespace().next() == Some(key));
            found.map(|l| l.split_whitespace().skip(1).map(str::to_owned).collect()).unwrap_or_default()
        };
        assert_eq!(line("calls_total{operation=get}"), ["3"], "{report}");
        assert_eq!(line("conns{state=idle}"), ["1", "max=2"], "{report}");
        assert_eq!(line("page_rows"), ["count=100", "p50=50", "p99=99", "max=100"], "{report}");
        assert_eq!(line("call_seconds"), ["count=1", "p50=250.000ms", "p99=250.000ms", "max=250.000ms"], "{report}");
    }

    #[test]
    fn says_when_nothing_was_recorded() {
        assert_eq!(Stats::default().report(), "basalt: stats\n  (nothing recorded)\n");
    }
}
