//! A schedule's cron pattern in its time zone (`runners.md` Scheduling
//! §1): 5 fields, or 6 with seconds, parsed by `croner` (`L W #` too),
//! over an IANA zone of `chrono-tz`. croner applies the contract's DST
//! rules: a fixed time in a spring-forward gap fires once at the gap's
//! end, one repeated by a fall-back fires once (the first instant), and a
//! `*` or stepped hour field matches real instants only.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};

/// The longest pattern accepted.
pub const MAX_PATTERN_CHARS: usize = 100;
/// Slots looked at for the minimum interval.
const INTERVAL_SAMPLE: usize = 100;

/// A parsed pattern and its zone.
#[derive(Clone, Debug)]
pub struct CronSchedule {
    cron: Cron,
    zone: Tz,
}

impl CronSchedule {
    /// Parses `pattern` in `timezone`; the refusal names the field.
    pub fn parse(pattern: &str, timezone: &str) -> Result<Self, (&'static str, String)> {
        if pattern.chars().count() > MAX_PATTERN_CHARS {
            return Err(("cron", format!("over {MAX_PATTERN_CHARS} characters")));
        }
        let fields = pattern.split_whitespace().count();
        if !(fields == 5 || fields == 6) {
            return Err(("cron", "5 fields, or 6 with seconds first".into()));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Optional)
            .year(Year::Disallowed)
            .build()
            .parse(pattern)
            .map_err(|e| ("cron", e.to_string()))?;
        let zone: Tz = timezone
            .parse()
            .map_err(|_| ("timezone", format!("{timezone:?} is not an IANA time zone")))?;
        Ok(Self { cron, zone })
    }

    /// The first slot strictly after `after`, if any (a pattern such as
    /// `0 0 30 2 *` has none).
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = after.with_timezone(&self.zone);
        self.cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    /// The last slot at or before `at`, if any within croner's search.
    pub fn latest_at_or_before(&self, at: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = at.with_timezone(&self.zone);
        self.cron
            .find_previous_occurrence(&local, true)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    /// The last slot strictly before `before`.
    pub fn latest_before(&self, before: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = before.with_timezone(&self.zone);
        self.cron
            .find_previous_occurrence(&local, false)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    /// The shortest gap (seconds) between the next [`INTERVAL_SAMPLE`]
    /// slots after `from`; `None` with fewer than two.
    pub fn min_interval_secs(&self, from: DateTime<Utc>) -> Option<i64> {
        let mut previous = self.next_after(from)?;
        let mut shortest: Option<i64> = None;
        for _ in 1..INTERVAL_SAMPLE {
            let Some(next) = self.next_after(previous) else {
                break;
            };
            let gap = (next - previous).num_seconds();
            shortest = Some(shortest.map_or(gap, |s| s.min(gap)));
            previous = next;
        }
        shortest
    }

    /// The default grace of a slot (`runners.md` §4): half the gap to the
    /// next slot, 5 s to 1 h.
    pub fn default_grace_secs(&self, slot: DateTime<Utc>) -> u64 {
        let gap = self
            .next_after(slot)
            .map_or(7_200, |next| (next - slot).num_seconds().max(0) as u64);
        (gap / 2).clamp(5, 3_600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn new_york(pattern: &str) -> CronSchedule {
        CronSchedule::parse(pattern, "America/New_York").unwrap()
    }

    /// Slots after `from` until `until`, in New York's wall clock.
    fn slots(schedule: &CronSchedule, from: &str, until: &str) -> Vec<String> {
        let (mut at, until) = (utc(from), utc(until));
        let mut out = Vec::new();
        while let Some(next) = schedule.next_after(at) {
            if next > until {
                break;
            }
            out.push(
                next.with_timezone(&chrono_tz::America::New_York)
                    .to_rfc3339(),
            );
            at = next;
        }
        out
    }

    #[test]
    fn patterns_and_zones_are_checked_field_by_field() {
        assert!(CronSchedule::parse("*/5 * * * *", "UTC").is_ok());
        assert!(CronSchedule::parse("*/10 * * * * *", "Europe/Paris").is_ok());
        assert!(CronSchedule::parse("0 0 L * *", "UTC").is_ok());
        assert!(CronSchedule::parse("0 9 * * 1#2", "UTC").is_ok());
        assert_eq!(CronSchedule::parse("* * *", "UTC").unwrap_err().0, "cron");
        assert_eq!(
            CronSchedule::parse("0 0 0 1 1 * 2030", "UTC")
                .unwrap_err()
                .0,
            "cron"
        );
        assert_eq!(
            CronSchedule::parse("61 * * * *", "UTC").unwrap_err().0,
            "cron"
        );
        assert_eq!(
            CronSchedule::parse(&"1,".repeat(60), "UTC").unwrap_err().0,
            "cron"
        );
        assert_eq!(
            CronSchedule::parse("* * * * *", "Mars/Olympus")
                .unwrap_err()
                .0,
            "timezone"
        );
    }

    #[test]
    fn a_fixed_time_in_the_spring_forward_gap_fires_once_at_its_end() {
        // 2026-03-08: New York's clocks go from 02:00 EST to 03:00 EDT.
        let daily = new_york("30 2 * * *");
        assert_eq!(
            slots(&daily, "2026-03-07T12:00:00Z", "2026-03-09T05:00:00Z"),
            ["2026-03-08T03:00:00-04:00"]
        );
    }

    #[test]
    fn a_fixed_time_repeated_by_the_fall_back_fires_once_the_first() {
        // 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:30 happens twice.
        let daily = new_york("30 1 * * *");
        assert_eq!(
            slots(&daily, "2026-10-31T12:00:00Z", "2026-11-02T05:00:00Z"),
            ["2026-11-01T01:30:00-04:00"]
        );
    }

    #[test]
    fn an_hourly_pattern_matches_real_instants_only() {
        let hourly = new_york("0 * * * *");
        // Spring forward: 02:00 does not exist, so 01:00 is followed by 03:00.
        assert_eq!(
            slots(&hourly, "2026-03-08T05:30:00Z", "2026-03-08T08:30:00Z"),
            [
                "2026-03-08T01:00:00-05:00",
                "2026-03-08T03:00:00-04:00",
                "2026-03-08T04:00:00-04:00"
            ]
        );
        // Fall back: 01:00 is two real instants, an hour apart.
        assert_eq!(
            slots(&hourly, "2026-11-01T04:30:00Z", "2026-11-01T07:30:00Z"),
            [
                "2026-11-01T01:00:00-04:00",
                "2026-11-01T01:00:00-05:00",
                "2026-11-01T02:00:00-05:00"
            ]
        );
    }

    #[test]
    fn the_interval_and_the_grace_come_from_the_slots() {
        let from = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        assert_eq!(
            CronSchedule::parse("* * * * * *", "UTC")
                .unwrap()
                .min_interval_secs(from),
            Some(1)
        );
        let hourly = CronSchedule::parse("0 * * * *", "UTC").unwrap();
        assert_eq!(hourly.min_interval_secs(from), Some(3_600));
        assert_eq!(hourly.default_grace_secs(from), 1_800);
        let seconds = CronSchedule::parse("* * * * * *", "UTC").unwrap();
        assert_eq!(seconds.default_grace_secs(from), 5);
        let daily = CronSchedule::parse("0 9 * * *", "UTC").unwrap();
        assert_eq!(daily.default_grace_secs(from), 3_600);
        assert_eq!(
            daily.latest_at_or_before(utc("2026-01-02T09:00:00Z")),
            Some(utc("2026-01-02T09:00:00Z"))
        );
        assert_eq!(
            daily.latest_before(utc("2026-01-02T09:00:00Z")),
            Some(utc("2026-01-01T09:00:00Z"))
        );
    }
}
