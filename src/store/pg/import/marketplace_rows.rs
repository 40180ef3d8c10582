//! The rows of the marketplace in a sled store (profiles, avatars, and
//! `use`'s keyed answers), and the split of sled's `idempotency` tree,
//! which keeps keyed sends, keyed thread creations and keyed adoptions
//! side by side.

use serde_json::Value;

use super::lines::{avatar_line, keyed_adoption_line};
use super::source::{Row, Rows, SledSource, cell, codec, record, tree_rows, uuid_at, with_body};
use crate::marketplace::profile::Profile;
use crate::store::engine;
use crate::store::marketplace::{KeyedAdoption, index_entry};
use crate::store::pg::records::micro;

/// What a record of sled's `idempotency` tree is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Keyed {
    /// A keyed send (its body has `turn`).
    Send,
    /// A keyed thread creation.
    Thread,
    /// A keyed marketplace `use` (its body has `answer`).
    Adoption,
}

/// The entries of sled's `idempotency` tree of `kind`, as rows.
pub(super) fn keyed_rows<'a>(
    tree: &'a sled::Tree,
    kind: Keyed,
    mut row: impl FnMut(&[u8], &[u8]) -> Result<Row, confer_actors::StoreError> + 'a,
) -> Rows<'a> {
    Box::new(tree.iter().filter_map(move |entry| {
        let (key, value) = match entry.map_err(engine) {
            Ok(entry) => entry,
            Err(e) => return Some(Err(e)),
        };
        let found = match record::<Value>("a keyed record", &value) {
            Ok((_, body)) if body.get("turn").is_some() => Keyed::Send,
            Ok((_, body)) if body.get("answer").is_some() => Keyed::Adoption,
            Ok(_) => Keyed::Thread,
            Err(e) => return Some(Err(e)),
        };
        (found == kind).then(|| row(&key, &value))
    }))
}

impl<'a> SledSource<'a> {
    /// The rows of `table` when it is one of the marketplace's kinds.
    pub(super) fn marketplace_rows(&self, table: &str) -> Option<Rows<'a>> {
        let s = self.store;
        Some(match table {
            "marketplace_profiles" => tree_rows(&s.marketplace.profiles, |_, v| {
                let (profile, body) = record::<Profile>("a marketplace profile", v)?;
                let listed = index_entry(&profile).map(|key| key.to_vec());
                let cells = vec![
                    cell(profile.agent_id.0),
                    cell(profile.org_id.0),
                    cell(listed),
                ];
                with_body(cells, body)
            }),
            "marketplace_avatars" => tree_rows(&s.marketplace.avatars, |k, v| {
                let agent = uuid_at(k, 0)?;
                Ok(Row {
                    line: avatar_line(agent, v),
                    cells: vec![cell(agent), cell(v.to_vec())],
                })
            }),
            "keyed_adoptions" => keyed_rows(&s.idempotency, Keyed::Adoption, |k, v| {
                let (keyed, _) = record::<KeyedAdoption>("a keyed adoption", v)?;
                let org = uuid_at(k, 0)?;
                let hash = k
                    .get(16..)
                    .ok_or_else(|| codec("a keyed adoption", "key"))?;
                let created_at = micro(keyed.created_at);
                Ok(Row {
                    line: keyed_adoption_line(org, hash, &keyed.request, &keyed.answer, created_at),
                    cells: vec![
                        cell(org),
                        cell(hash.to_vec()),
                        cell(keyed.request),
                        cell(keyed.answer),
                        cell(created_at),
                    ],
                })
            }),
            _ => return None,
        })
    }
}
