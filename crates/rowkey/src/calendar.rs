//! Proleptic Gregorian calendar arithmetic in UTC (no time-zone database, no I/O).

/// A calendar unit used for time buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalendarUnit {
    /// `yyyy`.
    Year,
    /// `yyyyMM`.
    Month,
    /// `yyyyMMdd`.
    Day,
}

/// `(year, month 1..=12, day 1..=31)` of a day count since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    // m in 1..=12 and d in 1..=31 by construction.
    (y, m as u32, d as u32)
}

/// Day count since 1970-01-01 of a civil date.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Civil date of a timestamp given in `per_second` units per second.
pub(crate) fn date_of(ts: i64, per_second: i64) -> (i64, u32, u32) {
    let secs = ts.div_euclid(per_second.max(1));
    civil_from_days(secs.div_euclid(86_400))
}

/// Text of the calendar bucket holding `ts` (`yyyy`, `yyyyMM` or `yyyyMMdd`).
pub(crate) fn bucket_text(ts: i64, per_second: i64, unit: CalendarUnit) -> String {
    let (y, m, d) = date_of(ts, per_second);
    match unit {
        CalendarUnit::Year => format!("{y:04}"),
        CalendarUnit::Month => format!("{y:04}{m:02}"),
        CalendarUnit::Day => format!("{y:04}{m:02}{d:02}"),
    }
}

/// Start (inclusive) of the calendar bucket holding `ts`, and the start of the next one,
/// in the same units. `None` on arithmetic overflow.
pub(crate) fn bucket_bounds(ts: i64, per_second: i64, unit: CalendarUnit) -> Option<(i64, i64)> {
    let (y, m, d) = date_of(ts, per_second);
    let (start, next) = match unit {
        CalendarUnit::Year => (days_from_civil(y, 1, 1), days_from_civil(y + 1, 1, 1)),
        CalendarUnit::Month => {
            let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
            (days_from_civil(y, m, 1), days_from_civil(ny, nm, 1))
        }
        CalendarUnit::Day => {
            let s = days_from_civil(y, m, d);
            (s, s + 1)
        }
    };
    let k = 86_400i64.checked_mul(per_second)?;
    Some((start.checked_mul(k)?, next.checked_mul(k)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_days() {
        for z in [-800_000i64, -1, 0, 1, 59, 365, 18_000, 2_932_896] {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(18_885), (2021, 9, 15));
    }

    #[test]
    fn month_bounds() {
        // 2021-09-15T00:00:00Z in ms
        let ts = 1_631_664_000_000;
        assert_eq!(bucket_text(ts, 1000, CalendarUnit::Month), "202109");
        let (s, n) = bucket_bounds(ts, 1000, CalendarUnit::Month).unwrap_or((0, 0));
        assert_eq!(bucket_text(s, 1000, CalendarUnit::Day), "20210901");
        assert_eq!(bucket_text(n, 1000, CalendarUnit::Day), "20211001");
    }
}
