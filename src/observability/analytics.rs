//! `GET /api/analytics`'s answer (`observability.md`, "Analytics"), made
//! from day aggregates: the stored ones of an org (admins and members) or
//! ones made from a user's own traces (an end user). Sums are exact;
//! `unique_users`, `total_threads` and the percentiles come from the
//! merged sketches.

use std::collections::HashMap;

use chrono::{DateTime, Days, NaiveDate, Utc};
use confer_actors::AgentId;
use serde::Serialize;

use super::aggregate::{DayAggregate, ToolTally};
use crate::store::keys::day_number;

/// Tools listed in `top_tools`.
pub const TOP_TOOLS: usize = 20;

/// Days the per-day aggregates are kept, whatever the trace retention.
pub const AGGREGATE_DAYS: u32 = 400;

/// One aggregate of a period: its day, agent and model.
pub type DayEntry = (u32, AgentId, String, DayAggregate);

/// The period asked for: N UTC calendar days ending today.
#[derive(Clone, Copy, Debug)]
pub struct Period {
    pub days: u32,
    pub last: u32,
}

impl Period {
    /// `7d`, `30d` or `90d`, ending on the day of `now`.
    pub fn parse(name: &str, now: DateTime<Utc>) -> Option<Self> {
        let days = match name {
            "7d" => 7,
            "30d" => 30,
            "90d" => 90,
            _ => return None,
        };
        Some(Self {
            days,
            last: day_number(now),
        })
    }

    /// The first day's number.
    pub fn first(&self) -> u32 {
        self.last.saturating_sub(self.days - 1)
    }

    /// The start of the first day.
    pub fn start(&self) -> DateTime<Utc> {
        day_date(self.first())
            .and_hms_opt(0, 0, 0)
            .map_or(DateTime::<Utc>::MIN_UTC, |t| t.and_utc())
    }
}

fn day_date(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1)
        .and_then(|epoch| epoch.checked_add_days(Days::new(u64::from(day))))
        .unwrap_or(NaiveDate::MIN)
}

fn usd(nanos: u64) -> f64 {
    nanos as f64 / confer_actors::prices::NANOS_PER_USD
}

fn ratio_ms(micros: u64, count: u64) -> Option<f64> {
    (count > 0).then(|| micros as f64 / count as f64 / 1000.0)
}

/// `period` of the answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct PeriodView {
    start: String,
    end: String,
    days: u32,
}

/// `summary` of the answer.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Summary {
    unique_users: u64,
    total_threads: u64,
    total_turns: u64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    tool_calls: u64,
    errors: u64,
    stopped: u64,
    estimated_cost_usd: f64,
    avg_response_time_ms: Option<f64>,
    p50_response_time_ms: Option<f64>,
    p95_response_time_ms: Option<f64>,
    avg_ttft_ms: Option<f64>,
}

/// One day of `daily`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct DailyView {
    day: String,
    unique_users: u64,
    total_threads: u64,
    total_turns: u64,
    input_tokens: u64,
    output_tokens: u64,
    tool_calls: u64,
    errors: u64,
    estimated_cost_usd: f64,
}

/// One agent of `by_agent`.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = AgentAnalytics)]
pub struct AgentView {
    agent_id: String,
    name: String,
    total_turns: u64,
    input_tokens: u64,
    output_tokens: u64,
    estimated_cost_usd: f64,
}

/// One model of `by_model`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ModelView {
    model: String,
    total_turns: u64,
    input_tokens: u64,
    output_tokens: u64,
    estimated_cost_usd: f64,
}

/// One tool of `top_tools`.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = ToolAnalytics)]
pub struct ToolView {
    tool_name: String,
    call_count: u64,
    error_count: u64,
    avg_duration_ms: Option<f64>,
}

/// The analytics of a period.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Analytics {
    period: PeriodView,
    summary: Summary,
    daily: Vec<DailyView>,
    by_agent: Vec<AgentView>,
    by_model: Vec<ModelView>,
    top_tools: Vec<ToolView>,
}

/// The analytics of `period` from its day aggregates; `name` gives an
/// agent's name (empty for one since deleted).
pub fn compute(
    period: Period,
    entries: Vec<DayEntry>,
    name: impl Fn(AgentId) -> String,
) -> Analytics {
    let mut total = DayAggregate::default();
    let mut days: HashMap<u32, DayAggregate> = HashMap::new();
    let mut agents: HashMap<AgentId, DayAggregate> = HashMap::new();
    let mut models: HashMap<String, DayAggregate> = HashMap::new();
    for (day, agent, model, aggregate) in entries {
        total.merge(&aggregate);
        days.entry(day).or_default().merge(&aggregate);
        add_sums(agents.entry(agent).or_default(), &aggregate);
        add_sums(models.entry(model).or_default(), &aggregate);
    }
    let daily = (period.first()..=period.last)
        .map(|day| {
            let a = days.remove(&day).unwrap_or_default();
            DailyView {
                day: day_date(day).format("%Y-%m-%d").to_string(),
                unique_users: a.users.count(),
                total_threads: a.threads.count(),
                total_turns: a.turns,
                input_tokens: a.input_tokens,
                output_tokens: a.output_tokens,
                tool_calls: a.tool_calls,
                errors: a.errors,
                estimated_cost_usd: usd(a.cost_nanos),
            }
        })
        .collect();
    let mut by_agent: Vec<AgentView> = agents
        .into_iter()
        .map(|(agent, a)| AgentView {
            agent_id: agent.to_string(),
            name: name(agent),
            total_turns: a.turns,
            input_tokens: a.input_tokens,
            output_tokens: a.output_tokens,
            estimated_cost_usd: usd(a.cost_nanos),
        })
        .collect();
    by_agent.sort_by(|a, b| (b.total_turns, &a.agent_id).cmp(&(a.total_turns, &b.agent_id)));
    let mut by_model: Vec<ModelView> = models
        .into_iter()
        .map(|(model, a)| ModelView {
            model,
            total_turns: a.turns,
            input_tokens: a.input_tokens,
            output_tokens: a.output_tokens,
            estimated_cost_usd: usd(a.cost_nanos),
        })
        .collect();
    by_model.sort_by(|a, b| (b.total_turns, &a.model).cmp(&(a.total_turns, &b.model)));
    let mut tools: Vec<ToolTally> = std::mem::take(&mut total.tools);
    tools.sort_by(|a, b| (b.calls, &a.name).cmp(&(a.calls, &b.name)));
    let top_tools = tools
        .into_iter()
        .take(TOP_TOOLS)
        .map(|t| ToolView {
            avg_duration_ms: ratio_ms(t.duration_us, t.calls),
            tool_name: t.name,
            call_count: t.calls,
            error_count: t.errors,
        })
        .collect();
    Analytics {
        period: PeriodView {
            start: day_date(period.first()).format("%Y-%m-%d").to_string(),
            end: day_date(period.last).format("%Y-%m-%d").to_string(),
            days: period.days,
        },
        summary: Summary {
            unique_users: total.users.count(),
            total_threads: total.threads.count(),
            total_turns: total.turns,
            input_tokens: total.input_tokens,
            output_tokens: total.output_tokens,
            cache_read_tokens: total.cache_read_tokens,
            cache_write_tokens: total.cache_write_tokens,
            tool_calls: total.tool_calls,
            errors: total.errors,
            stopped: total.stopped,
            estimated_cost_usd: usd(total.cost_nanos),
            avg_response_time_ms: ratio_ms(total.duration_us, total.turns),
            p50_response_time_ms: total.durations.quantile(0.5),
            p95_response_time_ms: total.durations.quantile(0.95),
            avg_ttft_ms: ratio_ms(total.ttft_us, total.ttft_count),
        },
        daily,
        by_agent,
        by_model,
        top_tools,
    }
}

/// Adds `b`'s sums (not its sketches, not needed per agent or model).
fn add_sums(a: &mut DayAggregate, b: &DayAggregate) {
    a.turns += b.turns;
    a.input_tokens += b.input_tokens;
    a.output_tokens += b.output_tokens;
    a.cost_nanos += b.cost_nanos;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observability::sketch::{DdSketch, Hll};

    #[test]
    fn a_period_has_one_entry_per_day_and_sorted_breakdowns() {
        let now = DateTime::parse_from_rfc3339("2026-03-10T15:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let period = Period::parse("7d", now).unwrap();
        assert!(Period::parse("8d", now).is_none());
        let (a, b) = (AgentId::new(), AgentId::new());
        let turn = |turns: u64, ms: f64| DayAggregate {
            turns,
            input_tokens: 10 * turns,
            output_tokens: turns,
            cost_nanos: 1_000_000_000 * turns,
            duration_us: (ms * 1000.0) as u64 * turns,
            users: Hll::of(b"u"),
            threads: Hll::of(format!("thread-{turns}").as_bytes()),
            durations: DdSketch::of(ms),
            ..DayAggregate::default()
        };
        let entries = vec![
            (period.last, a, "m1".to_owned(), turn(1, 100.0)),
            (period.first(), b, "m2".to_owned(), turn(3, 200.0)),
            (period.first(), a, "m2".to_owned(), turn(2, 300.0)),
        ];
        let out = compute(period, entries, |id| {
            if id == a { "A".into() } else { "B".into() }
        });
        assert_eq!(out.period.start, "2026-03-04");
        assert_eq!(out.period.end, "2026-03-10");
        assert_eq!(out.daily.len(), 7);
        assert_eq!(out.daily[0].total_turns, 5);
        assert_eq!(out.daily[6].total_turns, 1);
        assert_eq!(out.daily[3].total_turns, 0);
        assert_eq!(out.summary.total_turns, 6);
        assert_eq!(out.summary.input_tokens, 60);
        assert_eq!(out.summary.estimated_cost_usd, 6.0);
        assert_eq!(out.summary.unique_users, 1);
        assert_eq!(out.summary.total_threads, 3);
        assert_eq!(out.by_agent.len(), 2);
        assert!(out.by_agent.iter().all(|v| v.total_turns == 3));
        assert!(out.by_agent.iter().any(|v| v.name == "A"));
        assert_eq!(out.by_model[0].model, "m2");
        assert_eq!(out.by_model[0].total_turns, 5);
    }
}
