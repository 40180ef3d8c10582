//! Vectors of knowledge chunks (`knowledge.md` §3): normalized, quantized
//! to i8 (a component times 127), stored with the model and dimensions
//! that made them; cosine as the dot product of two such; an org's vectors
//! packed for the exact scan; and the reciprocal-rank fusion of a BM25 and
//! a vector ranking.

use std::collections::HashMap;

use super::Scope;

/// A stored vector: its model, and the quantized components.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredVector {
    pub model: String,
    pub components: Vec<i8>,
}

/// The unit vector of `v`, quantized; `None` for a zero vector.
pub fn quantize(v: &[f32]) -> Option<Vec<i8>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return None;
    }
    Some(
        v.iter()
            .map(|x| (x / norm * 127.0).round().clamp(-127.0, 127.0) as i8)
            .collect(),
    )
}

/// The cosine of two quantized unit vectors of the same length.
pub fn cosine(a: &[i8], b: &[i8]) -> f32 {
    let dot: i32 = a
        .iter()
        .zip(b)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    dot as f32 / (127.0 * 127.0)
}

impl StoredVector {
    /// `[model length u8][model][components]`.
    pub fn encode(&self) -> Vec<u8> {
        let model = &self.model.as_bytes()[..self.model.len().min(255)];
        let mut bytes = Vec::with_capacity(1 + model.len() + self.components.len());
        bytes.push(model.len() as u8);
        bytes.extend_from_slice(model);
        bytes.extend(self.components.iter().map(|c| *c as u8));
        bytes
    }

    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let (&len, rest) = bytes.split_first()?;
        let model = std::str::from_utf8(rest.get(..len as usize)?).ok()?;
        let components = rest[len as usize..].iter().map(|b| *b as i8).collect();
        Some(Self {
            model: model.to_owned(),
            components,
        })
    }

    /// Whether the vector was made by `model` with `dims` components.
    pub fn is_of(&self, model: &str, dims: usize) -> bool {
        self.model == model && self.components.len() == dims
    }
}

/// An org's vectors of one model: chunk keys, scopes and components.
pub struct OrgVectors {
    pub model: String,
    pub dims: usize,
    keys: Vec<Vec<u8>>,
    scopes: Vec<Scope>,
    components: Vec<i8>,
}

impl OrgVectors {
    /// Packs `found` (chunk key, scope, components of `dims`).
    pub fn new(model: &str, dims: usize, found: Vec<(Vec<u8>, Scope, Vec<i8>)>) -> Self {
        let mut vectors = Self {
            model: model.to_owned(),
            dims,
            keys: Vec::with_capacity(found.len()),
            scopes: Vec::with_capacity(found.len()),
            components: Vec::with_capacity(found.len() * dims),
        };
        for (key, scope, components) in found {
            if components.len() == dims {
                vectors.keys.push(key);
                vectors.scopes.push(scope);
                vectors.components.extend_from_slice(&components);
            }
        }
        vectors
    }

    /// What the entry holds, in bytes.
    pub fn bytes(&self) -> usize {
        self.components.len() + self.keys.len() * (28 + std::mem::size_of::<Scope>() + 24)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The `i`th vector: its chunk key, scope and components.
    pub fn get(&self, i: usize) -> (&[u8], Scope, &[i8]) {
        (
            &self.keys[i],
            self.scopes[i],
            &self.components[i * self.dims..(i + 1) * self.dims],
        )
    }

    /// How many vectors `scopes` hold.
    pub fn count_in(&self, scopes: &[Scope]) -> usize {
        self.scopes.iter().filter(|s| scopes.contains(s)).count()
    }

    /// The best `limit` of `scopes` by cosine with `query` (at least
    /// `least`): (chunk key, cosine), best first.
    pub fn scan(
        &self,
        scopes: &[Scope],
        query: &[i8],
        least: Option<f32>,
        limit: usize,
    ) -> Vec<(Vec<u8>, f32)> {
        self.best(0..self.len(), scopes, query, least, limit)
    }

    /// [`OrgVectors::scan`] of the vectors at `indexes` only.
    pub fn scan_some(
        &self,
        indexes: &[usize],
        scopes: &[Scope],
        query: &[i8],
        least: Option<f32>,
        limit: usize,
    ) -> Vec<(Vec<u8>, f32)> {
        self.best(indexes.iter().copied(), scopes, query, least, limit)
    }

    fn best(
        &self,
        indexes: impl Iterator<Item = usize>,
        scopes: &[Scope],
        query: &[i8],
        least: Option<f32>,
        limit: usize,
    ) -> Vec<(Vec<u8>, f32)> {
        if query.len() != self.dims || self.dims == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = indexes
            .filter(|i| *i < self.len() && scopes.contains(&self.scopes[*i]))
            .map(|i| (i, cosine(self.get(i).2, query)))
            .filter(|(_, score)| least.is_none_or(|least| *score >= least))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| {
            b.1.total_cmp(&a.1)
                .then_with(|| self.keys[a.0].cmp(&self.keys[b.0]))
        };
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit, by_score);
            scored.truncate(limit);
        }
        scored.sort_by(by_score);
        scored
            .into_iter()
            .map(|(i, score)| (self.keys[i].clone(), score))
            .collect()
    }
}

/// The fusion's constant (`knowledge.md` §3).
const RRF_K: f64 = 60.0;

/// Reciprocal-rank fusion of two rankings (best first): each id's sum of
/// 1/(60 + rank) over the lists that hold it; ties by BM25 rank, then id.
/// Returns (id, fused score, BM25 rank, vector rank), best first.
pub fn fuse(
    bm25: &[String],
    vector: &[String],
) -> Vec<(String, f64, Option<usize>, Option<usize>)> {
    let mut fused: HashMap<&str, (f64, Option<usize>, Option<usize>)> = HashMap::new();
    for (i, id) in bm25.iter().enumerate() {
        let entry = fused.entry(id).or_default();
        entry.0 += 1.0 / (RRF_K + (i + 1) as f64);
        entry.1 = Some(i + 1);
    }
    for (i, id) in vector.iter().enumerate() {
        let entry = fused.entry(id).or_default();
        entry.0 += 1.0 / (RRF_K + (i + 1) as f64);
        entry.2 = Some(i + 1);
    }
    let mut ranked: Vec<_> = fused
        .into_iter()
        .map(|(id, (score, b, v))| (id.to_owned(), score, b, v))
        .collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(a.2.unwrap_or(usize::MAX).cmp(&b.2.unwrap_or(usize::MAX)))
            .then(a.0.cmp(&b.0))
    });
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_keeps_the_best_of_the_scopes() {
        let mut found: Vec<(Vec<u8>, Scope, Vec<i8>)> = vec![
            (vec![1; 28], Scope::Org, vec![127, 0]),
            (vec![2; 28], Scope::Org, vec![0, 127]),
            (
                vec![3; 28],
                Scope::Agent(confer_actors::AgentId::new()),
                vec![127, 0],
            ),
        ];
        found.push((vec![4; 28], Scope::Org, vec![90, 90]));
        let packed = OrgVectors::new("m", 2, found);
        let best = packed.scan(&[Scope::Org], &[127, 0], None, 2);
        assert_eq!(best.len(), 2);
        assert_eq!(best[0].0, vec![1; 28]);
        assert_eq!(best[1].0, vec![4; 28]);
        assert!(packed.scan(&[Scope::Org], &[127, 0], Some(0.99), 5).len() == 1);
    }

    #[test]
    fn quantized_unit_vectors_keep_their_cosine() {
        let a = quantize(&[3.0, 4.0]).unwrap();
        let b = quantize(&[4.0, 3.0]).unwrap();
        assert!((cosine(&a, &a) - 1.0).abs() < 0.02);
        assert!((cosine(&a, &b) - 0.96).abs() < 0.02);
        assert_eq!(quantize(&[0.0, 0.0]), None);
        let stored = StoredVector {
            model: "m".into(),
            components: a.clone(),
        };
        assert_eq!(StoredVector::decode(&stored.encode()), Some(stored.clone()));
        assert!(stored.is_of("m", 2) && !stored.is_of("m", 3) && !stored.is_of("n", 2));
    }

    #[test]
    fn fusion_sums_reciprocal_ranks_and_breaks_ties_by_bm25() {
        let ids = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let fused = fuse(&ids(&["a", "b", "c"]), &ids(&["c", "b", "d"]));
        let order: Vec<&str> = fused.iter().map(|f| f.0.as_str()).collect();
        // c: 1/63 + 1/61 (0.032266) just above b: 2/62 (0.032258); then
        // a: 1/61, d: 1/63.
        assert_eq!(order, ["c", "b", "a", "d"]);
        assert_eq!(fused[0].2, Some(3));
        assert_eq!(fused[0].3, Some(1));
        assert_eq!(fused[3].2, None);
        // Same sum: the better BM25 rank first.
        let tied = fuse(&ids(&["x", "y"]), &ids(&["y", "x"]));
        assert_eq!(tied[0].0, "x");
    }
}
