//! Prepared statements kept by each pooled session. A statement given as
//! text costs the driver a round trip to prepare it before the one that
//! runs it, and the server a parse and a plan each time; a turn makes about
//! twenty. The store's sessions keep what they prepared, by its text, so a
//! statement after its session's first is one round trip, and the server
//! plans it once (a generic plan) unless its parameters change the plan.
//!
//! [`Db`] is a session or one of its transactions with that cache: the
//! methods the turn's statements use (`query`, `query_one`, `query_opt`,
//! `execute`), named as the driver's. A statement prepared inside a
//! transaction outlives its rollback (the protocol's named statements are
//! not transactional), so caching one there is safe.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use tokio_postgres::types::ToSql;
use tokio_postgres::{Error, GenericClient, Row, Statement, Transaction};

use crate::tools::integrations::connection::PgConnection;

/// How many statements one session keeps. The store's statements are
/// constants of this build or texts made of them, fewer than this; a text
/// past the bound is prepared each time rather than kept.
pub const MAX_STATEMENTS: usize = 512;

/// The statements one session prepared, by their text.
#[derive(Default)]
pub struct Statements {
    prepared: Mutex<HashMap<Box<str>, Statement>>,
}

impl Statements {
    /// `sql` prepared on `client` (this session's), from the cache when it
    /// was before.
    async fn get(&self, client: &impl GenericClient, sql: &str) -> Result<Statement, Error> {
        if let Some(statement) = self.lock().get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql).await?;
        let mut prepared = self.lock();
        if prepared.len() < MAX_STATEMENTS {
            prepared.insert(sql.into(), statement.clone());
        }
        Ok(statement)
    }

    /// How many statements are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is kept yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Statement>> {
        // A panic while the map is held cannot leave it half-changed (one
        // insert or one read), so a poisoned lock's map is still good.
        self.prepared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A pooled session: its connection and the statements it prepared.
/// Dereferences to the connection for what runs its statements as text.
pub struct StoreSession {
    connection: PgConnection,
    statements: Statements,
}

impl StoreSession {
    /// A session on `connection`, nothing prepared yet.
    pub fn new(connection: PgConnection) -> Self {
        Self {
            connection,
            statements: Statements::default(),
        }
    }

    /// The session with its prepared statements.
    pub fn db(&self) -> Db<'_, tokio_postgres::Client> {
        Db {
            client: &self.connection.client,
            statements: &self.statements,
        }
    }

    /// A transaction of the session, with the session's statements.
    pub async fn transaction(&mut self) -> Result<Tx<'_>, Error> {
        let transaction = self.connection.client.transaction().await?;
        Ok(Tx {
            transaction,
            statements: &self.statements,
        })
    }

    /// The statements this session keeps.
    pub fn statements(&self) -> &Statements {
        &self.statements
    }
}

impl Deref for StoreSession {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        &self.connection
    }
}

impl DerefMut for StoreSession {
    fn deref_mut(&mut self) -> &mut PgConnection {
        &mut self.connection
    }
}

/// A transaction of a [`StoreSession`]; rolled back when dropped
/// uncommitted, as the driver's.
pub struct Tx<'a> {
    transaction: Transaction<'a>,
    statements: &'a Statements,
}

impl<'a> Tx<'a> {
    /// The transaction with its session's prepared statements.
    pub fn db(&self) -> Db<'_, Transaction<'a>> {
        Db {
            client: &self.transaction,
            statements: self.statements,
        }
    }

    /// Commits the transaction.
    pub async fn commit(self) -> Result<(), Error> {
        self.transaction.commit().await
    }
}

impl<'a> Deref for Tx<'a> {
    type Target = Transaction<'a>;

    fn deref(&self) -> &Transaction<'a> {
        &self.transaction
    }
}

/// A session or a transaction, running statements prepared once per session.
pub struct Db<'a, C> {
    client: &'a C,
    statements: &'a Statements,
}

impl<C> Clone for Db<'_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Db<'_, C> {}

impl<C: GenericClient> Db<'_, C> {
    /// The rows of `sql`.
    pub async fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Error> {
        let statement = self.statements.get(self.client, sql).await?;
        self.client.query(&statement, params).await
    }

    /// The one row of `sql`; an error when there is none or several.
    pub async fn query_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, Error> {
        let statement = self.statements.get(self.client, sql).await?;
        self.client.query_one(&statement, params).await
    }

    /// The row of `sql`, if any; an error when there are several.
    pub async fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, Error> {
        let statement = self.statements.get(self.client, sql).await?;
        self.client.query_opt(&statement, params).await
    }

    /// How many rows `sql` changed.
    pub async fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, Error> {
        let statement = self.statements.get(self.client, sql).await?;
        self.client.execute(&statement, params).await
    }
}
