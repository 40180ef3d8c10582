//! The closures over sled that code of kinds not on a port yet runs
//! through the [`Store`] handle: on the blocking pool, a write resolved
//! once flushed; on PostgreSQL each runs nothing and answers
//! `StoreError::NotOnThisStore` (or its kind's default, where that is
//! the truth: a cluster keeps none of that kind).

use std::sync::Arc;

use confer_actors::StoreError;

use super::{SledStore, Store};

impl Store {
    /// Runs `f` on the blocking pool, off the async workers (a bounded number
    /// at a time, see `confer_actors::run_blocking`). On PostgreSQL it
    /// runs nothing: `StoreError::NotOnThisStore`.
    pub async fn run<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = Arc::clone(self.sled.as_ref().ok_or(StoreError::NotOnThisStore)?);
        confer_actors::run_blocking(move || f(&inner)).await
    }

    /// Runs a read of a kind PostgreSQL does not keep yet as [`Store::run`]
    /// does; on PostgreSQL, `T::default()` (none of that kind) instead of
    /// `NotOnThisStore`: for a read that only adds to an answer of ported
    /// kinds (an agent's publication in the agents' list).
    pub async fn run_or_default<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Default + Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        match self.is_postgres() {
            true => Ok(T::default()),
            false => self.run(f).await,
        }
    }

    /// Runs a write to a kind PostgreSQL does not keep yet as
    /// [`Store::write`] does; on PostgreSQL, where there is none of that
    /// kind to change, `T::default()`: for a cascade that follows a
    /// ported write (an agent's delete reaching its channels).
    pub async fn write_or_default<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Default + Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        match self.is_postgres() {
            true => Ok(T::default()),
            false => self.write(f).await,
        }
    }

    /// Runs a write on the blocking pool and resolves once it is durable.
    pub async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&SledStore) -> Result<T, StoreError> + Send + 'static,
    {
        let value = self.run(f).await?;
        if let Some(sled) = &self.sled {
            sled.commit.flush().await?;
        }
        Ok(value)
    }

    /// Runs `sweep` (given the time now) as a flushed write every hour,
    /// the first at once, on the current runtime (it ends with it); logs
    /// what a sweep did, unless nothing. Nothing on PostgreSQL, whose
    /// kinds have no such sweep yet.
    pub fn sweep_hourly<T, F>(&self, name: &'static str, sweep: F)
    where
        T: std::fmt::Debug + Default + PartialEq + Send + 'static,
        F: Fn(&SledStore, chrono::DateTime<chrono::Utc>) -> Result<T, StoreError>
            + Clone
            + Send
            + 'static,
    {
        if self.is_postgres() {
            return;
        }
        let store = self.clone();
        actix_web::rt::spawn(async move {
            let mut ticks = tokio::time::interval(std::time::Duration::from_secs(3600));
            loop {
                ticks.tick().await;
                let (sweep, now) = (sweep.clone(), chrono::Utc::now());
                match store.write(move |s| sweep(s, now)).await {
                    Ok(swept) if swept == T::default() => {}
                    Ok(swept) => tracing::info!(?swept, "{name}"),
                    Err(error) => tracing::warn!(%error, "{name} failed"),
                }
            }
        });
    }

    /// Runs `f` on the sled store on this thread (for the command-line
    /// tools, which have no async runtime, and the knowledge index's own
    /// threads); `StoreError::NotOnThisStore` on PostgreSQL.
    pub fn with_inner<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&SledStore) -> Result<T, E>,
    ) -> Result<T, E> {
        f(self.sled.as_ref().ok_or(StoreError::NotOnThisStore)?)
    }
}
