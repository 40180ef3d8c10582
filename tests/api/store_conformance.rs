//! One store test suite, run on a temporary sled store and on a temporary
//! PostgreSQL (`scale.md` §2): each case speaks only to the ports
//! (`ThreadStore`, `AgentRecords`, `ThreadRecords`), so a kind kept
//! differently by the two stores fails here. Each case gets a store of
//! its own: a fresh sled directory, or a fresh database of one cluster.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use confer::secrets::SecretBox;
use confer::store::Store;
use confer::store::pg::{Database, PgSettings, PgStore, meta};
use confer::store::port::{
    AgentConfigs, AgentRecords, DocumentRecords, EmbeddingRecords, IntegrationRecords,
    MarketplaceRecords, McpRecords, MemoryRecords, OrgRecords, PlanRecords, ProjectRecords,
    PublicationRecords, ScheduleRecords, SkillRecords, ThreadRecords, ToolRecords,
};
use confer::tools::integrations::connection::{self, TlsSettings};
use confer_actors::{
    Agent, AgentId, CredentialConfig, IdempotencyRecord, Message, MessageId, OrgId, Role, Thread,
    ThreadId, ThreadStore, UsageRecord,
};

use crate::postgres::Postgres;

/// The ports of one store under test.
pub(crate) struct Ports {
    pub(crate) turns: Arc<dyn ThreadStore>,
    pub(crate) agents: Arc<dyn AgentRecords>,
    pub(crate) configs: Arc<dyn AgentConfigs>,
    pub(crate) threads: Arc<dyn ThreadRecords>,
    pub(crate) orgs: Arc<dyn OrgRecords>,
    pub(crate) tools: Arc<dyn ToolRecords>,
    pub(crate) plans: Arc<dyn PlanRecords>,
    pub(crate) projects: Arc<dyn ProjectRecords>,
    pub(crate) schedules: Arc<dyn ScheduleRecords>,
    pub(crate) publications: Arc<dyn PublicationRecords>,
    pub(crate) skills: Arc<dyn SkillRecords>,
    pub(crate) mcps: Arc<dyn McpRecords>,
    pub(crate) integrations: Arc<dyn IntegrationRecords>,
    pub(crate) memories: Arc<dyn MemoryRecords>,
    pub(crate) documents: Arc<dyn DocumentRecords>,
    pub(crate) embeddings: Arc<dyn EmbeddingRecords>,
    pub(crate) marketplace: Arc<dyn MarketplaceRecords>,
}

impl Ports {
    /// Every port of `store`.
    pub(crate) fn of_postgres(store: &PgStore) -> Self {
        Self {
            turns: Arc::new(store.clone()),
            agents: Arc::new(store.clone()),
            configs: Arc::new(store.clone()),
            threads: Arc::new(store.clone()),
            orgs: Arc::new(store.clone()),
            tools: Arc::new(store.clone()),
            plans: Arc::new(store.clone()),
            projects: Arc::new(store.clone()),
            schedules: Arc::new(store.clone()),
            publications: Arc::new(store.clone()),
            skills: Arc::new(store.clone()),
            mcps: Arc::new(store.clone()),
            integrations: Arc::new(store.clone()),
            memories: Arc::new(store.clone()),
            documents: Arc::new(store.clone()),
            embeddings: Arc::new(store.clone()),
            marketplace: Arc::new(store.clone()),
        }
    }
}

/// A case of the suite.
type Case = fn(Ports) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Every case, by name.
fn cases() -> Vec<(&'static str, Case)> {
    use crate::store_cases::*;
    vec![
        ("records_stay_in_their_org", |p| {
            Box::pin(records_stay_in_their_org(p))
        }),
        ("appends_number_densely", |p| {
            Box::pin(appends_number_densely(p))
        }),
        ("text_with_nul_is_kept", |p| {
            Box::pin(text_with_nul_is_kept(p))
        }),
        ("turn_numbers_only_grow", |p| {
            Box::pin(turn_numbers_only_grow(p))
        }),
        ("keyed_sends_learn_their_answer", |p| {
            Box::pin(keyed_sends_learn_their_answer(p))
        }),
        ("context_tail_starts_at_the_last_answer", |p| {
            Box::pin(context_tail_starts_at_the_last_answer(p))
        }),
        ("usage_is_unique_in_time_and_linked", |p| {
            Box::pin(usage_is_unique_in_time_and_linked(p))
        }),
        ("orgs_and_keys_round_trip", |p| {
            Box::pin(crate::store_members::orgs_and_keys_round_trip(p))
        }),
        ("participants_and_listings", |p| {
            Box::pin(crate::store_members::participants_and_listings(p))
        }),
        ("plans_are_limited_swapped_and_deleted_at_a_version", |p| {
            Box::pin(crate::store_plans::plans_are_limited_swapped_and_deleted_at_a_version(p))
        }),
        ("tool_names_are_unique_and_secrets_sealed", |p| {
            Box::pin(crate::store_tools::tool_names_are_unique_and_secrets_sealed(p))
        }),
        ("projects_keep_slugs_roles_and_members", |p| {
            Box::pin(crate::store_projects::projects_keep_slugs_roles_and_members(p))
        }),
        ("project_members_are_bounded_under_a_race", |p| {
            Box::pin(crate::store_projects::project_members_are_bounded_under_a_race(p))
        }),
        ("a_deleted_project_detaches_its_records", |p| {
            Box::pin(crate::store_projects::a_deleted_project_detaches_its_records(p))
        }),
        ("thread_access_reads_its_facts_in_one_trip", |p| {
            Box::pin(crate::store_members::thread_access_reads_its_facts_in_one_trip(p))
        }),
        ("agent_changes_swap_and_never_undo_a_delete", |p| {
            Box::pin(crate::store_changes::agent_changes_swap_and_never_undo_a_delete(p))
        }),
        ("thread_changes_swap_and_move_between_projects", |p| {
            Box::pin(crate::store_changes::thread_changes_swap_and_move_between_projects(p))
        }),
        ("a_deleted_thread_is_gone_at_once", |p| {
            Box::pin(crate::store_changes::a_deleted_thread_is_gone_at_once(p))
        }),
        ("keyed_creations_make_one_thread", |p| {
            Box::pin(crate::store_changes::keyed_creations_make_one_thread(p))
        }),
        ("agent_configs_swap_from_their_default", |p| {
            Box::pin(crate::store_changes::agent_configs_swap_from_their_default(
                p,
            ))
        }),
        (
            "scheduled_tasks_are_replaced_whole_under_the_org_cap",
            |p| {
                Box::pin(
                    crate::store_schedules::scheduled_tasks_are_replaced_whole_under_the_org_cap(p),
                )
            },
        ),
        ("publications_keep_one_slug_and_swap", |p| {
            Box::pin(crate::store_publications::publications_keep_one_slug_and_swap(p))
        }),
        ("skills_keep_names_versions_and_attachment_caps", |p| {
            Box::pin(crate::store_skills::skills_keep_names_versions_and_attachment_caps(p))
        }),
        ("mcp_servers_keep_slugs_attachments_and_oauth_epochs", |p| {
            Box::pin(crate::store_mcps::mcp_servers_keep_slugs_attachments_and_oauth_epochs(p))
        }),
        ("integrations_keep_slugs_schemas_and_attachments", |p| {
            Box::pin(crate::store_integrations::integrations_keep_slugs_schemas_and_attachments(p))
        }),
        ("memories_keep_owners_bounds_and_forgets", |p| {
            Box::pin(crate::store_memories::memories_keep_owners_bounds_and_forgets(p))
        }),
        ("memory_writes_feed_the_index_in_order", |p| {
            Box::pin(crate::store_memories::memory_writes_feed_the_index_in_order(p))
        }),
        (
            "documents_keep_files_duplicates_generations_and_purges",
            |p| {
                Box::pin(
                    crate::store_documents::documents_keep_files_duplicates_generations_and_purges(
                        p,
                    ),
                )
            },
        ),
        (
            "embeddings_follow_the_model_and_go_with_their_chunks",
            |p| {
                Box::pin(
                    crate::store_embeddings::embeddings_follow_the_model_and_go_with_their_chunks(
                        p,
                    ),
                )
            },
        ),
        (
            "marketplace_keeps_profiles_the_catalogue_and_adoptions",
            |p| {
                Box::pin(crate::store_marketplace::marketplace_keeps_profiles_the_catalogue_and_adoptions(p))
            },
        ),
        ("a_visitor_keeps_its_threads_under_a_race", |p| {
            Box::pin(crate::store_publications::a_visitor_keeps_its_threads_under_a_race(p))
        }),
        ("creation_instants_are_unique_in_the_org", |p| {
            Box::pin(creation_instants_are_unique_in_the_org(p))
        }),
    ]
}

pub(crate) fn secrets() -> Arc<SecretBox> {
    use base64::Engine as _;
    let key =
        secrecy::SecretString::from(base64::engine::general_purpose::STANDARD.encode([7u8; 32]));
    let dir = tempfile::tempdir().unwrap();
    Arc::new(SecretBox::load(Some(&key), None, None, dir.path()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_passes_on_sled() {
    for (name, case) in cases() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_with(dir.path(), secrets()).unwrap();
        let records = Arc::new(store.records().unwrap());
        let ports = Ports {
            turns: store.as_port(),
            agents: records.clone(),
            configs: records.clone(),
            threads: records.clone(),
            orgs: records.clone(),
            tools: records.clone(),
            plans: records.clone(),
            projects: records.clone(),
            schedules: records.clone(),
            publications: records.clone(),
            skills: records.clone(),
            mcps: records.clone(),
            integrations: records.clone(),
            memories: records.clone(),
            documents: records.clone(),
            embeddings: records.clone(),
            marketplace: records,
        };
        eprintln!("sled: {name}");
        case(ports).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_suite_passes_on_postgres() {
    let postgres = Postgres::start().await;
    for (index, (name, case)) in cases().into_iter().enumerate() {
        let url = postgres.database(&format!("conformance_{index}")).await;
        let store = pg_store(&url).await;
        eprintln!("postgres: {name}");
        case(Ports::of_postgres(&store)).await;
    }
}

/// The store of a node's database, opened beside the node (its key
/// check and migrations are the node's; nothing here opens a secret).
pub(crate) async fn pg_store_of_node(url: &str) -> PgStore {
    let settings = PgSettings {
        target: connection::parse_operator(url).unwrap(),
        pool_size: 2,
    };
    let database = Database::open(&settings, TlsSettings::new(None).unwrap())
        .await
        .unwrap();
    PgStore::new(database, secrets())
}

pub(crate) async fn pg_store(url: &str) -> PgStore {
    let settings = PgSettings {
        target: connection::parse_operator(url).unwrap(),
        pool_size: 8,
    };
    let database = Database::open(&settings, TlsSettings::new(None).unwrap())
        .await
        .unwrap();
    let secrets = secrets();
    meta::prepare(&database, &secrets).await.unwrap();
    PgStore::new(database, secrets)
}

/// A secret sealed by the PostgreSQL store is not in its row in clear.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_secrets_sealed() {
    let postgres = Postgres::start().await;
    let url = postgres.database("sealed").await;
    let store = pg_store(&url).await;
    let org = OrgId::new();
    let agent = agent(org);
    store.put_agent(agent.clone()).await.unwrap();
    let config = CredentialConfig {
        enabled: true,
        resolver_url: "https://resolver.example/keys".into(),
        timeout_ms: 2_000,
        signing_secret: Some("signing-secret-that-must-not-show".into()),
    };
    store
        .put_credentials(org, agent.id, config.clone())
        .await
        .unwrap();
    let raw: String = postgres
        .admin_of("sealed")
        .await
        .query_one("SELECT body::text FROM agent_configs", &[])
        .await
        .unwrap()
        .get(0);
    assert!(!raw.contains("signing-secret-that-must-not-show"), "{raw}");
    assert_eq!(store.credentials(org, agent.id).await.unwrap(), config);
}

pub(crate) fn agent(org: OrgId) -> Agent {
    let now = Utc::now();
    Agent {
        id: AgentId::new(),
        org_id: org,
        name: "conformance".into(),
        description: String::new(),
        stable_preamble: "Answer.".into(),
        default_model: "builtin/echo".into(),
        tool_profiles: None,
        default_profile: None,
        runtime_provider: Default::default(),
        project_id: None,
        created_at: now,
        updated_at: now,
        deleted_at: None,
    }
}

pub(crate) fn thread(org: OrgId, agent: AgentId, at: DateTime<Utc>) -> Thread {
    Thread {
        id: ThreadId::new(),
        org_id: org,
        agent_id: agent,
        title: Some("a thread".into()),
        kind: Default::default(),
        active_profile: None,
        metadata: Default::default(),
        system_prompt_overlay: None,
        resource_bindings: Vec::new(),
        created_by: "user-1".into(),
        publication_id: None,
        invite_generation: 0,
        origin: None,
        delegation: None,
        project_id: None,
        created_at: at,
        updated_at: at,
    }
}

pub(crate) fn message(thread: ThreadId, role: Role, content: &str) -> Message {
    Message {
        id: MessageId::new(),
        thread_id: thread,
        seq: 0,
        role,
        content: content.into(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
        citations: Vec::new(),
    }
}

pub(crate) fn usage(
    org: OrgId,
    agent: AgentId,
    thread: ThreadId,
    at: DateTime<Utc>,
) -> UsageRecord {
    serde_json::from_value(serde_json::json!({
        "id": uuid::Uuid::new_v4(),
        "org_id": org,
        "agent_id": agent,
        "thread_id": thread,
        "message_id": null,
        "model": "builtin/echo",
        "provider": "builtin",
        "key_source": "platform",
        "input_tokens": 3,
        "output_tokens": 5,
        "metadata": {},
        "stopped": false,
        "created_at": at,
    }))
    .unwrap()
}

/// An org with an agent and a thread.
pub(crate) async fn seeded(ports: &Ports) -> (OrgId, Agent, Thread) {
    let org = OrgId::new();
    let agent = agent(org);
    ports.agents.put_agent(agent.clone()).await.unwrap();
    let thread = ports
        .threads
        .create_thread(thread(org, agent.id, Utc::now()))
        .await
        .unwrap();
    (org, agent, thread)
}

pub(crate) fn keyed_record(turn: u64) -> IdempotencyRecord {
    let now = Utc::now();
    IdempotencyRecord {
        request: "ab".repeat(32),
        turn,
        created_at: now,
        started_at: now,
        model: "builtin/echo".into(),
        user_message_id: None,
        outcome: None,
    }
}
