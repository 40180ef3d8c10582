//! What a turn's statements cost PostgreSQL beyond their rows: each is
//! prepared once per session and then runs on one generic plan. A read
//! given as text was prepared and planned at every call, and the access
//! check's guards on its parameters made the server plan it anew each
//! time; planning cost it more than running (`docs/performance.md`).

use confer::store::pg::{Database, PgSettings, PgStore, meta};
use confer::store::port::{SkillRecords, ThreadRecords};
use confer::tools::integrations::connection::{self, TlsSettings};
use confer_actors::{OrgId, ThreadId};

use crate::postgres::Postgres;
use crate::store_conformance::secrets;

/// More calls than the server plans a statement for before it weighs a
/// generic plan (five).
const CALLS: usize = 12;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_check_and_skills_read_are_planned_once_per_session() {
    let postgres = Postgres::start().await;
    let url = postgres.database("statements").await;
    // One session, so every call below is on it, and so is the last read.
    let settings = PgSettings {
        target: connection::parse_operator(&url).unwrap(),
        pool_size: 1,
    };
    let database = Database::open(&settings, TlsSettings::new(None).unwrap())
        .await
        .unwrap();
    let secrets = secrets();
    meta::prepare(&database, &secrets).await.unwrap();
    let store = PgStore::new(database.clone(), secrets);
    let org = OrgId::new();
    for _ in 0..CALLS {
        for (user, with_agent) in [(None, true), (Some("u-1".to_owned()), true)] {
            store
                .thread_access(org, ThreadId::new(), user, with_agent)
                .await
                .unwrap();
        }
        store
            .skill_attachments(org, uuid::Uuid::now_v7())
            .await
            .unwrap();
    }
    let session = database.session().await.unwrap();
    let rows = session
        .db()
        .query(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements
             WHERE (statement LIKE '%participant%' OR statement LIKE '%skill_attachments%')
               AND statement NOT LIKE '%pg_prepared_statements%'",
            &[],
        )
        .await
        .unwrap();
    let plans: Vec<(String, i64, i64)> = rows
        .iter()
        .map(|row| (row.get(0), row.get(1), row.get(2)))
        .collect();
    assert_eq!(plans.len(), 3, "kept by the session: {plans:?}");
    for (statement, generic, custom) in &plans {
        assert!(
            *custom <= 5 && *generic >= 1,
            "planned at each call ({custom} custom plans, {generic} generic): {statement}"
        );
    }
}
