//! Mergeable sketches for the per-day analytics (`observability.md`,
//! "Analytics"): a HyperLogLog of distinct values (users, threads) and a
//! DDSketch of response times at 1% relative error. Both merge by a
//! register- or bucket-wise operation, so a day's aggregate is updated by
//! sled's merge operator, never by a read-modify-write of the caller.
//!
//! Written here rather than taken from a crate: the aggregate is rewritten
//! on every turn's commit, so both encode to a few hundred raw bytes with
//! no serde pass (the crates' serde forms are JSON arrays ten times larger).

use sha2::{Digest, Sha256};

/// HyperLogLog precision: 2^10 one-byte registers (1 KiB), about 3.3%
/// standard error.
const HLL_BITS: u32 = 10;
/// Registers of a HyperLogLog.
pub const HLL_REGISTERS: usize = 1 << HLL_BITS;

/// A HyperLogLog counter of distinct values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hll {
    registers: Vec<u8>,
}

impl Default for Hll {
    fn default() -> Self {
        Self {
            registers: vec![0; HLL_REGISTERS],
        }
    }
}

impl Hll {
    /// A counter holding `value`.
    pub fn of(value: &[u8]) -> Self {
        let mut hll = Self::default();
        hll.insert(value);
        hll
    }

    /// Counts `value` (hashed with SHA-256, stable across versions).
    pub fn insert(&mut self, value: &[u8]) {
        let digest = Sha256::digest(value);
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        let hash = u64::from_be_bytes(first);
        let index = (hash >> (64 - HLL_BITS)) as usize;
        // The remaining bits, with a guard bit so the rank is bounded.
        let rest = (hash << HLL_BITS) | (1 << (HLL_BITS - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        if let Some(register) = self.registers.get_mut(index) {
            *register = (*register).max(rank);
        }
    }

    /// The union of `self` and `other`.
    pub fn merge(&mut self, other: &Hll) {
        for (mine, theirs) in self.registers.iter_mut().zip(&other.registers) {
            *mine = (*mine).max(*theirs);
        }
    }

    /// The estimated number of distinct values.
    pub fn count(&self) -> u64 {
        let m = HLL_REGISTERS as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self
            .registers
            .iter()
            .map(|&r| 2f64.powi(-i32::from(r)))
            .sum();
        let estimate = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        let estimate = if estimate <= 2.5 * m && zeros > 0 {
            // Linear counting for small sets: exact-ish where it matters.
            m * (m / zeros as f64).ln()
        } else {
            estimate
        };
        estimate.round() as u64
    }

    /// The registers, for encoding.
    pub fn bytes(&self) -> &[u8] {
        &self.registers
    }

    /// A counter from encoded registers.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        (bytes.len() == HLL_REGISTERS).then(|| Self {
            registers: bytes.to_vec(),
        })
    }
}

/// DDSketch relative accuracy.
pub const DD_ALPHA: f64 = 0.01;

/// A DDSketch of positive values (milliseconds): bucket `i` holds values in
/// (γ^(i-1), γ^i], γ = (1+α)/(1−α); values at or below 1 µs go to a zero
/// bucket.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DdSketch {
    /// (bucket index, count), sorted by index.
    buckets: Vec<(i32, u64)>,
    zeros: u64,
}

fn gamma() -> f64 {
    (1.0 + DD_ALPHA) / (1.0 - DD_ALPHA)
}

/// The smallest value given its own bucket.
const DD_MIN: f64 = 0.001;

impl DdSketch {
    /// A sketch holding `value`.
    pub fn of(value: f64) -> Self {
        let mut sketch = Self::default();
        sketch.add(value, 1);
        sketch
    }

    fn add(&mut self, value: f64, count: u64) {
        // NaN too goes to the zero bucket.
        if value.is_nan() || value <= DD_MIN {
            self.zeros += count;
            return;
        }
        let index = (value.ln() / gamma().ln()).ceil() as i32;
        self.add_bucket(index, count);
    }

    fn add_bucket(&mut self, index: i32, count: u64) {
        match self.buckets.binary_search_by_key(&index, |(i, _)| *i) {
            Ok(at) => self.buckets[at].1 += count,
            Err(at) => self.buckets.insert(at, (index, count)),
        }
    }

    /// Adds `other`'s values.
    pub fn merge(&mut self, other: &DdSketch) {
        self.zeros += other.zeros;
        for &(index, count) in &other.buckets {
            self.add_bucket(index, count);
        }
    }

    /// How many values it holds.
    pub fn count(&self) -> u64 {
        self.zeros + self.buckets.iter().map(|(_, c)| c).sum::<u64>()
    }

    /// The `q` quantile (0 ≤ q ≤ 1), within 1% of a true value; `None` when
    /// empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let total = self.count();
        if total == 0 {
            return None;
        }
        let rank = (q.clamp(0.0, 1.0) * (total - 1) as f64).floor() as u64;
        if rank < self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        let g = gamma();
        for &(index, count) in &self.buckets {
            seen += count;
            if seen > rank {
                return Some(2.0 * g.powi(index) / (g + 1.0));
            }
        }
        None
    }

    /// Encodes as `zeros u64, n u32, n × (index i32, count u64)`, little-endian.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.zeros.to_le_bytes());
        out.extend_from_slice(&(self.buckets.len() as u32).to_le_bytes());
        for (index, count) in &self.buckets {
            out.extend_from_slice(&index.to_le_bytes());
            out.extend_from_slice(&count.to_le_bytes());
        }
    }

    /// Decodes what [`DdSketch::encode`] wrote at the start of `bytes`;
    /// returns the sketch and the bytes it took.
    pub fn decode(bytes: &[u8]) -> Option<(Self, usize)> {
        let zeros = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let n = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?) as usize;
        let mut buckets = Vec::with_capacity(n.min(4096));
        let mut at = 12;
        for _ in 0..n {
            let index = i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?);
            let count = u64::from_le_bytes(bytes.get(at + 4..at + 12)?.try_into().ok()?);
            buckets.push((index, count));
            at += 12;
        }
        Some((Self { buckets, zeros }, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hll_counts_distinct_values_within_a_few_percent_and_merges() {
        let mut a = Hll::default();
        let mut b = Hll::default();
        for i in 0..5000u32 {
            a.insert(format!("user-{i}").as_bytes());
            b.insert(format!("user-{}", i + 2500).as_bytes());
        }
        let within = |got: u64, want: f64| (got as f64 - want).abs() / want < 0.08;
        assert!(within(a.count(), 5000.0), "{}", a.count());
        a.merge(&b);
        assert!(within(a.count(), 7500.0), "{}", a.count());
        let mut small = Hll::of(b"one");
        small.insert(b"one");
        small.insert(b"two");
        assert_eq!(small.count(), 2);
        assert_eq!(Hll::default().count(), 0);
        assert_eq!(Hll::from_bytes(small.bytes()), Some(small));
        assert_eq!(Hll::from_bytes(b"short"), None);
    }

    #[test]
    fn ddsketch_quantiles_are_within_one_percent_and_merge() {
        let mut sketch = DdSketch::default();
        for i in 1..=1000 {
            let mut one = DdSketch::of(f64::from(i));
            if i % 2 == 0 {
                one.merge(&DdSketch::default());
            }
            sketch.merge(&one);
        }
        assert_eq!(sketch.count(), 1000);
        for (q, want) in [(0.5, 500.0), (0.95, 950.0), (0.0, 1.0), (1.0, 1000.0)] {
            let got = sketch.quantile(q).unwrap_or(0.0);
            assert!((got - want).abs() / want <= 0.011, "q{q}: {got} vs {want}");
        }
        assert_eq!(DdSketch::default().quantile(0.5), None);
        let mut bytes = Vec::new();
        sketch.encode(&mut bytes);
        let (back, used) = DdSketch::decode(&bytes).unwrap();
        assert_eq!((back, used), (sketch, bytes.len()));
        assert!(DdSketch::decode(&bytes[..bytes.len() - 1]).is_none());
        assert_eq!(DdSketch::of(0.0).quantile(0.5), Some(0.0));
    }
}
