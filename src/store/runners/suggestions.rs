//! Runners' suggestions: `runner_suggestions`, org ++ runner →
//! `RunnerSuggestions` (see `crate::runners::suggestions`).

use confer_actors::{OrgId, RunnerId, StoreError};

use crate::runners::suggestions::RunnerSuggestions;
use crate::store::codec::encode;
use crate::store::{SledStore, engine, keys};

impl SledStore {
    /// The runner's suggestions (none set: an empty list).
    pub fn runner_suggestions(
        &self,
        org: OrgId,
        runner: RunnerId,
    ) -> Result<RunnerSuggestions, StoreError> {
        let key = keys::pair(org.as_bytes(), runner.as_bytes());
        Ok(Self::get(&self.runners.suggestions, &key)?
            .unwrap_or_else(|| RunnerSuggestions::none(runner)))
    }

    /// Replaces the runner's suggestions.
    pub fn put_runner_suggestions(
        &self,
        org: OrgId,
        suggestions: &RunnerSuggestions,
    ) -> Result<(), StoreError> {
        let _writing = self.gate.writing();
        let key = keys::pair(org.as_bytes(), suggestions.runner_id.as_bytes());
        self.runners
            .suggestions
            .insert(key, encode(suggestions)?)
            .map_err(engine)?;
        Ok(())
    }
}
