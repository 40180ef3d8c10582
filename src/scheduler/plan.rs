//! Which slots of a due schedule fire (`runners.md` Scheduling §4): the
//! slots within the grace always; of the older (missed) ones, none
//! (`skip`), the newest (`run_once`) or the newest `catch_up_max`
//! (`catch_up`); the rest are counted as one `missed` entry. Pure, so
//! the policies are tested without a clock.

use chrono::{DateTime, Utc};

use super::Missed;
use super::cron::CronSchedule;

/// Due slots looked at, newest first; older ones are not counted.
pub const MAX_SLOTS_COUNTED: usize = 10_000;

/// What one firing does.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// Slots to fire, oldest first.
    pub fire: Vec<DateTime<Utc>>,
    /// Missed slots not fired (at most [`MAX_SLOTS_COUNTED`]).
    pub missed: u64,
    /// The newest of them.
    pub missed_newest: Option<DateTime<Utc>>,
    /// The first slot after `now`.
    pub next: Option<DateTime<Utc>>,
}

/// The policy fields a plan needs.
pub struct Policy {
    pub missed: Missed,
    pub catch_up_max: u32,
    /// `None`: half the gap to the next slot, 5 s to 1 h.
    pub grace_secs: Option<u64>,
}

/// The plan of a schedule whose first unfired slot is `due`, at `now`.
pub fn plan(
    schedule: &CronSchedule,
    due: DateTime<Utc>,
    now: DateTime<Utc>,
    policy: &Policy,
) -> Plan {
    let mut in_grace = Vec::new();
    let mut missed = Vec::new();
    let mut slot = schedule.latest_at_or_before(now);
    let mut seen = 0;
    while let Some(at) = slot.filter(|at| *at >= due) {
        seen += 1;
        if seen > MAX_SLOTS_COUNTED {
            break;
        }
        let grace = policy
            .grace_secs
            .unwrap_or_else(|| schedule.default_grace_secs(at));
        if (now - at).num_milliseconds() <= (grace as i64) * 1_000 {
            in_grace.push(at);
        } else {
            missed.push(at);
        }
        slot = schedule.latest_before(at);
    }
    // Both lists are newest first.
    let kept = match policy.missed {
        Missed::Skip => 0,
        Missed::RunOnce => 1,
        Missed::CatchUp => policy.catch_up_max as usize,
    }
    .min(missed.len());
    let mut fire: Vec<_> = missed[..kept].iter().chain(&in_grace).copied().collect();
    fire.sort();
    Plan {
        fire,
        missed: (missed.len() - kept) as u64,
        missed_newest: missed.get(kept).copied(),
        next: schedule.next_after(now),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn every_second() -> CronSchedule {
        CronSchedule::parse("* * * * * *", "UTC").unwrap()
    }

    fn policy(missed: Missed, catch_up_max: u32) -> Policy {
        Policy {
            missed,
            catch_up_max,
            grace_secs: None,
        }
    }

    /// 20 s down: slots 12:00:01 to 12:00:20 are due at 12:00:20.5.
    fn after_twenty_seconds_down(policy: &Policy) -> Plan {
        plan(
            &every_second(),
            utc("2026-01-01T12:00:01Z"),
            utc("2026-01-01T12:00:20.500Z"),
            policy,
        )
    }

    fn seconds(plan: &Plan) -> Vec<u32> {
        use chrono::Timelike;
        plan.fire.iter().map(|t| t.second()).collect()
    }

    #[test]
    fn on_time_a_slot_fires_alone() {
        let plan = plan(
            &every_second(),
            utc("2026-01-01T12:00:01Z"),
            utc("2026-01-01T12:00:01.010Z"),
            &policy(Missed::Skip, 10),
        );
        assert_eq!(plan.fire, [utc("2026-01-01T12:00:01Z")]);
        assert_eq!(plan.missed, 0);
        assert_eq!(plan.next, Some(utc("2026-01-01T12:00:02Z")));
    }

    #[test]
    fn skip_fires_only_the_slots_inside_the_grace() {
        // The grace of a per-second pattern is the 5 s floor.
        let plan = after_twenty_seconds_down(&policy(Missed::Skip, 10));
        assert_eq!(seconds(&plan), [16, 17, 18, 19, 20]);
        assert_eq!(plan.missed, 15);
        assert_eq!(plan.next, Some(utc("2026-01-01T12:00:21Z")));
    }

    #[test]
    fn run_once_adds_the_newest_missed_slot() {
        let plan = after_twenty_seconds_down(&policy(Missed::RunOnce, 10));
        assert_eq!(seconds(&plan), [15, 16, 17, 18, 19, 20]);
        assert_eq!(plan.missed, 14);
    }

    #[test]
    fn catch_up_adds_the_newest_missed_slots_oldest_first() {
        let plan = after_twenty_seconds_down(&policy(Missed::CatchUp, 3));
        assert_eq!(seconds(&plan), [13, 14, 15, 16, 17, 18, 19, 20]);
        assert_eq!(plan.missed, 12);
    }

    #[test]
    fn an_hourly_task_down_for_a_day_fires_by_policy() {
        let hourly = CronSchedule::parse("0 * * * *", "UTC").unwrap();
        let (due, now) = (utc("2026-01-01T01:00:00Z"), utc("2026-01-02T00:10:00Z"));
        let skip = plan(&hourly, due, now, &policy(Missed::Skip, 10));
        // 00:00 is 10 minutes late, inside the half-hour grace.
        assert_eq!(skip.fire, [utc("2026-01-02T00:00:00Z")]);
        assert_eq!(skip.missed, 23);
        let once = plan(&hourly, due, now, &policy(Missed::RunOnce, 10));
        assert_eq!(
            once.fire,
            [utc("2026-01-01T23:00:00Z"), utc("2026-01-02T00:00:00Z")]
        );
        let strict = Policy {
            grace_secs: Some(60),
            ..policy(Missed::Skip, 10)
        };
        let late = plan(&hourly, due, now, &strict);
        assert!(late.fire.is_empty());
        assert_eq!(late.missed, 24);
    }

    #[test]
    fn a_long_outage_counts_at_most_the_cap() {
        let plan = plan(
            &every_second(),
            utc("2025-01-01T00:00:00Z"),
            utc("2026-01-01T00:00:00Z"),
            &policy(Missed::CatchUp, 100),
        );
        assert_eq!(plan.fire.len(), 100 + 6);
        assert_eq!(plan.missed as usize, MAX_SLOTS_COUNTED - 106);
    }

    #[test]
    fn nothing_is_due_before_the_first_slot() {
        let plan = plan(
            &every_second(),
            utc("2026-01-01T12:00:05Z"),
            utc("2026-01-01T12:00:04.500Z"),
            &policy(Missed::Skip, 10),
        );
        assert!(plan.fire.is_empty());
        assert_eq!(plan.missed, 0);
    }
}
