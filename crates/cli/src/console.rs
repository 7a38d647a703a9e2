//! Lines for standard output that never panic. When the reader goes away
//! (`basalt ns list | head -1`), the rest of the output is dropped quietly and the
//! command ends as it would have (the demo still stops its HBase). Any other write
//! error is kept, and the command fails with it when it ends.

use std::fmt;
use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Set once standard output is closed or failed: later output is dropped.
static STOPPED: AtomicBool = AtomicBool::new(false);
/// The first write error that was not a closed pipe.
static FAILURE: Mutex<Option<String>> = Mutex::new(None);

/// Writes `args` to standard output, flushed, unless output has already stopped.
pub fn write(args: fmt::Arguments<'_>) {
    if STOPPED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        STOPPED.store(true, Ordering::Relaxed);
        if e.kind() != ErrorKind::BrokenPipe {
            let mut failure = FAILURE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            failure.get_or_insert_with(|| format!("writing output: {e}"));
        }
    }
}

/// The write error to report when the command ends, if output failed other than by
/// its reader going away.
pub fn failure() -> Option<String> {
    FAILURE.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
}

/// `print!` to standard output through [`write`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::console::write(format_args!($($arg)*)) };
}

/// `println!` to standard output through [`write`].
macro_rules! outln {
    () => { $crate::console::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::console::write(format_args!("{}\n", format_args!($($arg)*))) };
}
