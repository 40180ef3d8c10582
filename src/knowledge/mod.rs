//! Knowledge documents (`knowledge.md`): what an org uploads for its agents
//! to answer from. This part owns the documents' life: the upload's file
//! type ([`filetype`]), the parsers run in a child process ([`parse`]), the
//! chunks with their offsets, pages and heading breadcrumbs ([`chunk`]), the
//! stored files ([`files`]), the ingestion jobs' worker ([`ingest`]), the
//! tantivy index fed by the store's change log ([`index`]) and the
//! searches over it ([`search`]); and the agents' memories beside them
//! ([`memory`]: the records, [`memories`]: the service).
//! The records and their store layout are in `crate::store::knowledge`.

pub mod chunk;
pub mod collect;
pub mod document;
pub mod embed;
pub mod embedding_config;
pub mod files;
pub mod filetype;
pub mod index;
pub mod ingest;
pub mod memories;
pub mod memory;
pub mod parse;
pub mod search;
pub mod vector_cache;
pub mod vector_graph;
pub mod vectors;

use std::sync::Arc;

pub use document::{Chunk, Document, DocumentStatus, IngestJob, JobKind, Scope};

/// Knowledge's services, started: the search (its index and embedder),
/// the memories and the ingestion workers.
pub struct KnowledgeServices {
    pub search: Arc<search::KnowledgeSearch>,
    pub memories: Arc<memories::MemoryBook>,
    pub ingestion: Arc<ingest::Ingestion>,
}

impl KnowledgeServices {
    /// Opens the index, recovers the ingestion jobs a restart cut short,
    /// and starts every background task on the current runtime.
    pub fn start(
        store: &crate::store::Store,
        settings: &crate::settings::Settings,
        outbound: &crate::outbound::Outbound,
    ) -> anyhow::Result<Self> {
        use anyhow::Context;
        let search = search::KnowledgeSearch::from_settings(store, settings, outbound)
            .context("opening the knowledge index")?;
        let memories = memories::MemoryBook::start(store, &search, settings);
        let ingestion = ingest::Ingestion::from_settings(store, settings, &search)
            .context("starting the knowledge ingestion")?;
        Ok(Self {
            search,
            memories,
            ingestion,
        })
    }

    /// Starts auto-collect's collector, which calls the models as turns
    /// do (with their provider and credential resolver).
    pub fn start_collector(
        &self,
        store: &crate::store::Store,
        (provider, resolver): (
            &Arc<dyn confer_actors::ModelProvider>,
            &Arc<dyn confer_actors::CredentialResolver>,
        ),
        prices: &Arc<confer_actors::PriceTable>,
    ) -> Arc<collect::MemoryCollector> {
        collect::MemoryCollector::start(
            store.clone(),
            (
                Arc::clone(&self.memories),
                Arc::clone(self.search.embedder()),
            ),
            (Arc::clone(provider), Arc::clone(resolver)),
            Arc::clone(prices),
            self.memories.collections(),
        )
    }

    /// On PostgreSQL (`membership`: the node joined): the ingestion's
    /// workers and `collector` claim the jobs of the node's shards (the
    /// embedder embeds the orgs in them), woken
    /// by the doorbell when any node queues a job, and the index by it
    /// when any node logs a change.
    pub fn follow(
        &self,
        collector: &Arc<collect::MemoryCollector>,
        membership: Option<&Arc<crate::cluster::serving::Membership>>,
    ) {
        use crate::cluster::doorbell::{CHANGES, JOBS};
        self.ingestion.follow(membership);
        self.search.embedder().follow(membership);
        collector.follow(membership);
        let Some(doorbell) = membership.map(|m| m.doorbell()) else {
            return;
        };
        let (ingestion, index) = (Arc::clone(&self.ingestion), Arc::clone(self.search.index()));
        let embedder = Arc::clone(self.search.embedder());
        let collections = self.memories.collections();
        doorbell.on(JOBS, Box::new(move || ingestion.queued()));
        doorbell.on(JOBS, Box::new(move || collections.notify_one()));
        doorbell.on(CHANGES, Box::new(move || index.nudge()));
        // A document made searchable on any node may have chunks to embed.
        doorbell.on(CHANGES, Box::new(move || embedder.changed()));
    }
}
