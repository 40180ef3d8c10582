//! The per-day analytics aggregate of one (org, day, agent, model): exact
//! sums of the day's finished turns and their usage, and the sketches of
//! its users, threads and response times. A turn's commit merges its
//! trace's [`DayAggregate::of_trace`] into the day's record with sled's merge
//! operator ([`merge_operator`]); the analytics read the records of a period
//! and [`DayAggregate::merge`] them.

use confer_actors::{SpanKind, TraceRecord, TraceStatus};

use super::sketch::{DdSketch, HLL_REGISTERS, Hll};

/// The encoding's version byte.
const VERSION: u8 = 1;

/// Tools tracked per aggregate; calls of further tools count in
/// `tool_calls` only.
pub const MAX_TOOLS: usize = 64;

/// One tool's calls in an aggregate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolTally {
    pub name: String,
    pub calls: u64,
    pub errors: u64,
    /// Summed call durations, in microseconds.
    pub duration_us: u64,
}

/// A day's figures for one agent and model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DayAggregate {
    pub turns: u64,
    pub errors: u64,
    pub stopped: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// Estimated cost of the priced calls, in nano-USD.
    pub cost_nanos: u64,
    pub tool_calls: u64,
    /// Summed turn durations, in microseconds.
    pub duration_us: u64,
    /// Summed times to first token, in microseconds, of `ttft_count` turns.
    pub ttft_us: u64,
    pub ttft_count: u64,
    pub users: Hll,
    pub threads: Hll,
    /// Turn durations in milliseconds.
    pub durations: DdSketch,
    pub tools: Vec<ToolTally>,
}

fn micros(ms: f64) -> u64 {
    (ms * 1000.0).round().max(0.0) as u64
}

impl DayAggregate {
    /// One finished turn's contribution.
    pub fn of_trace(record: &TraceRecord) -> Self {
        let trace = &record.trace;
        let duration = trace.duration_ms.unwrap_or(0.0);
        let mut aggregate = Self {
            turns: 1,
            errors: u64::from(trace.status == TraceStatus::Error),
            stopped: u64::from(trace.status == TraceStatus::Stopped),
            input_tokens: trace.total_input_tokens,
            output_tokens: trace.total_output_tokens,
            cache_read_tokens: trace.cache_read_tokens,
            cache_write_tokens: trace.cache_write_tokens,
            cost_nanos: record.cost_nanos.unwrap_or(0),
            tool_calls: u64::from(trace.tool_call_count),
            duration_us: micros(duration),
            ttft_us: trace.ttft_ms.map_or(0, micros),
            ttft_count: u64::from(trace.ttft_ms.is_some()),
            users: Hll::of(trace.user_id.as_bytes()),
            threads: Hll::of(trace.thread_id.as_bytes()),
            durations: DdSketch::of(duration),
            tools: Vec::new(),
        };
        for span in record.spans.iter().filter(|s| s.kind == SpanKind::Tool) {
            aggregate.tally(ToolTally {
                name: span.name.clone(),
                calls: 1,
                errors: u64::from(span.attributes.is_error == Some(true)),
                duration_us: micros(span.duration_ms),
            });
        }
        aggregate
    }

    fn tally(&mut self, tally: ToolTally) {
        if let Some(known) = self.tools.iter_mut().find(|t| t.name == tally.name) {
            known.calls += tally.calls;
            known.errors += tally.errors;
            known.duration_us += tally.duration_us;
        } else if self.tools.len() < MAX_TOOLS {
            self.tools.push(tally);
        }
    }

    /// Adds `other`'s figures.
    pub fn merge(&mut self, other: &DayAggregate) {
        self.turns += other.turns;
        self.errors += other.errors;
        self.stopped += other.stopped;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.cost_nanos += other.cost_nanos;
        self.tool_calls += other.tool_calls;
        self.duration_us += other.duration_us;
        self.ttft_us += other.ttft_us;
        self.ttft_count += other.ttft_count;
        self.users.merge(&other.users);
        self.threads.merge(&other.threads);
        self.durations.merge(&other.durations);
        for tally in &other.tools {
            self.tally(tally.clone());
        }
    }

    /// The record's bytes: version, twelve u64 sums, two registers
    /// blocks, the sketch, then the tools (u16 count; each a u16-length
    /// name and three u64), integers little-endian.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + 12 * 8 + 2 * HLL_REGISTERS + 64);
        out.push(VERSION);
        for n in self.sums() {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(self.users.bytes());
        out.extend_from_slice(self.threads.bytes());
        self.durations.encode(&mut out);
        out.extend_from_slice(&(self.tools.len() as u16).to_le_bytes());
        for tool in &self.tools {
            let name = tool.name.as_bytes();
            let name = &name[..name.len().min(u16::MAX as usize)];
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name);
            for n in [tool.calls, tool.errors, tool.duration_us] {
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out
    }

    fn sums(&self) -> [u64; 12] {
        [
            self.turns,
            self.errors,
            self.stopped,
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.cost_nanos,
            self.tool_calls,
            self.duration_us,
            self.ttft_us,
            self.ttft_count,
        ]
    }

    /// Decodes [`DayAggregate::encode`]'s bytes; `None` if they are not.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(1)? != [VERSION] {
            return None;
        }
        let mut sums = [0u64; 12];
        for n in &mut sums {
            *n = reader.u64()?;
        }
        let users = Hll::from_bytes(reader.take(HLL_REGISTERS)?)?;
        let threads = Hll::from_bytes(reader.take(HLL_REGISTERS)?)?;
        let (durations, used) = DdSketch::decode(reader.rest())?;
        reader.take(used)?;
        let count = u16::from_le_bytes(reader.take(2)?.try_into().ok()?);
        let mut tools = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let len = u16::from_le_bytes(reader.take(2)?.try_into().ok()?);
            let name = String::from_utf8(reader.take(usize::from(len))?.to_vec()).ok()?;
            tools.push(ToolTally {
                name,
                calls: reader.u64()?,
                errors: reader.u64()?,
                duration_us: reader.u64()?,
            });
        }
        let [
            turns,
            errors,
            stopped,
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            cost_nanos,
            tool_calls,
            duration_us,
            ttft_us,
            ttft_count,
        ] = sums;
        Some(Self {
            turns,
            errors,
            stopped,
            input_tokens,
            output_tokens,
            cache_read_tokens,
            cache_write_tokens,
            cost_nanos,
            tool_calls,
            duration_us,
            ttft_us,
            ttft_count,
            users,
            threads,
            durations,
            tools,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.at..).unwrap_or_default()
    }
}

/// sled's merge operator of the `trace_days` tree: adds a turn's aggregate
/// to the day's. An operand that does not decode leaves the day as it was
/// (it is logged; nothing else is lost).
pub fn merge_operator(_key: &[u8], old: Option<&[u8]>, operand: &[u8]) -> Option<Vec<u8>> {
    let Some(delta) = DayAggregate::decode(operand) else {
        tracing::error!("an analytics aggregate operand does not decode; ignored");
        return old.map(<[u8]>::to_vec);
    };
    let mut day = match old.map(DayAggregate::decode) {
        None => DayAggregate::default(),
        Some(Some(day)) => day,
        Some(None) => {
            tracing::error!("a stored analytics aggregate does not decode; it starts again");
            DayAggregate::default()
        }
    };
    day.merge(&delta);
    Some(day.encode())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(turns: u64, tool: &str) -> DayAggregate {
        let mut day = DayAggregate {
            turns,
            errors: 1,
            input_tokens: 10,
            cost_nanos: 7,
            users: Hll::of(b"u"),
            durations: DdSketch::of(12.5),
            ..DayAggregate::default()
        };
        day.tally(ToolTally {
            name: tool.into(),
            calls: 2,
            errors: 1,
            duration_us: 30,
        });
        day
    }

    #[test]
    fn an_aggregate_round_trips_and_merges_through_the_operator() {
        let a = sample(1, "lookup");
        assert_eq!(DayAggregate::decode(&a.encode()), Some(a.clone()));
        assert_eq!(DayAggregate::decode(&a.encode()[1..]), None);
        let merged = merge_operator(b"k", None, &a.encode()).unwrap();
        let merged = merge_operator(b"k", Some(&merged), &sample(2, "search").encode()).unwrap();
        let day = DayAggregate::decode(&merged).unwrap();
        assert_eq!((day.turns, day.errors, day.input_tokens), (3, 2, 20));
        assert_eq!(day.cost_nanos, 14);
        assert_eq!(day.users.count(), 1);
        assert_eq!(day.durations.count(), 2);
        assert_eq!(day.tools.len(), 2);
        // A bad operand changes nothing.
        assert_eq!(
            merge_operator(b"k", Some(&merged), b"junk"),
            Some(merged.clone())
        );
    }

    #[test]
    fn tools_past_the_cap_are_not_tracked() {
        let mut day = DayAggregate::default();
        for i in 0..MAX_TOOLS + 5 {
            day.merge(&sample(1, &format!("tool-{i}")));
        }
        assert_eq!(day.tools.len(), MAX_TOOLS);
    }
}
