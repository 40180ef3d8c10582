//! The statements Confer runs on an integration's database: its schema
//! read and its tools' calls. Each runs in a read-only transaction with a
//! 5 s statement timeout that is rolled back, within [`QUERY_DEADLINE`] on
//! Confer's side too (a server that stops answering is given up on, its
//! connection dropped). Rows are read one at a time and the reading stops
//! at the result cap; every column is cut in SQL to [`MAX_FIELD_CHARS`]
//! (`query`), so no single row is large either.

use std::time::Duration;

use futures_util::{StreamExt, pin_mut};
use serde_json::{Value, json};
use tokio_postgres::types::{ToSql, Type};

use super::connection::{self, Target};
use super::{DbFailure, IntegrationHub, SchemaError, query};
use crate::store::integrations::{Column, Integration, Table};
use crate::tools::webhook::RESULT_CAP;
use confer_actors::tools::ToolOutput;

/// How long Confer waits for one statement (its transaction's start, its
/// rows and its rollback), whatever the server's own timeout does.
pub const QUERY_DEADLINE: Duration = Duration::from_secs(10);
/// What a statement may take on the server.
const STATEMENT_TIMEOUT: &str = "SET LOCAL statement_timeout = '5s'";

/// The tables of `public` and their columns, views included.
const SCHEMA_SQL: &str = "SELECT c.table_name::text, c.column_name::text, c.data_type::text, \
     c.udt_schema::text, c.udt_name::text \
     FROM information_schema.columns c \
     JOIN information_schema.tables t \
       ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
     WHERE c.table_schema = 'public' \
     ORDER BY c.table_name, c.ordinal_position";

/// Runs `sql` in a read-only transaction, handing each row to `each` as
/// it arrives until `each` says stop; then rolls back. Whether it stopped
/// early (the transaction is then left to the connection's end: the
/// caller drops the connection).
async fn read_only(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[String],
    mut each: impl FnMut(tokio_postgres::Row) -> bool,
) -> Result<bool, tokio_postgres::Error> {
    client
        .batch_execute(&format!("BEGIN READ ONLY; {STATEMENT_TIMEOUT}"))
        .await?;
    let typed = params
        .iter()
        .map(|p| (p as &(dyn ToSql + Sync), Type::TEXT));
    let rows = client.query_typed_raw(sql, typed).await?;
    pin_mut!(rows);
    while let Some(row) = rows.next().await {
        if !each(row?) {
            return Ok(true);
        }
    }
    client.batch_execute("ROLLBACK").await?;
    Ok(false)
}

/// Column `at` of `row` as text ("" when null; every column Confer
/// selects is text).
fn text_at(row: &tokio_postgres::Row, at: usize) -> String {
    row.try_get::<_, Option<String>>(at)
        .ok()
        .flatten()
        .unwrap_or_default()
}

impl IntegrationHub {
    /// Connects to `target` and reads the tables of `public` (`tables`:
    /// only those; a listed table that is not there is an error naming it).
    pub async fn read_schema(
        &self,
        target: &Target,
        tables: Option<&[String]>,
    ) -> Result<Vec<Table>, SchemaError> {
        let connection = connection::connect(target, &self.tls)
            .await
            .map_err(SchemaError::Connect)?;
        let mut rows = Vec::new();
        tokio::time::timeout(
            QUERY_DEADLINE,
            read_only(&connection.client, SCHEMA_SQL, &[], |row| {
                rows.push(row);
                true
            }),
        )
        .await
        .map_err(|_| SchemaError::Connect("the database did not answer in time".into()))?
        .map_err(|e| SchemaError::Connect(DbFailure::of(&e).to_string()))?;
        let mut schema: Vec<Table> = Vec::new();
        for row in rows {
            let text = |at: usize| text_at(&row, at);
            let name = text(0);
            if tables.is_some_and(|listed| !listed.contains(&name)) {
                continue;
            }
            let column = Column {
                name: text(1),
                data_type: text(2),
                udt_schema: text(3),
                udt_name: text(4),
            };
            match schema.last_mut() {
                Some(table) if table.name == name => table.columns.push(column),
                _ => schema.push(Table {
                    name,
                    columns: vec![column],
                }),
            }
        }
        if let Some(listed) = tables
            && let Some(missing) = listed
                .iter()
                .find(|t| !schema.iter().any(|s| &s.name == *t))
        {
            return Err(SchemaError::UnknownTable(missing.clone()));
        }
        Ok(schema)
    }

    /// Runs one tool call of `table` of `integration`.
    pub async fn call(
        &self,
        integration: &Integration,
        table: &Table,
        count: bool,
        arguments: &Value,
    ) -> ToolOutput {
        let built = if count {
            query::count(table, arguments).map(|s| (s, Vec::new()))
        } else {
            query::query(table, arguments)
        };
        let (statement, columns) = match built {
            Ok(built) => built,
            Err(why) => return ToolOutput::error(why),
        };
        let pooled = match self.connection(integration).await {
            Ok(pooled) => pooled,
            Err(failure) => return failure.output(),
        };
        let mut answered: Vec<Value> = Vec::new();
        let mut counted = None;
        let mut size = 32;
        let read = tokio::time::timeout(
            QUERY_DEADLINE,
            read_only(&pooled.client, &statement.sql, &statement.params, |row| {
                let text = text_at(&row, 0);
                if count {
                    counted = text.parse::<i64>().ok();
                    return true;
                }
                let value = query::row(&text, &columns);
                size += value.to_string().len() + 1;
                if size > RESULT_CAP {
                    return false;
                }
                answered.push(value);
                true
            }),
        )
        .await;
        let stopped = match read {
            Ok(Ok(read)) => read,
            Ok(Err(error)) => {
                // A failed statement leaves the transaction aborted.
                drop(deadpool::managed::Object::take(pooled));
                return DbFailure::of(&error).output();
            }
            Err(_) => {
                drop(deadpool::managed::Object::take(pooled));
                return ToolOutput::error(format!(
                    "{} {} ms",
                    confer_actors::tools::TIMEOUT_PREFIX,
                    QUERY_DEADLINE.as_millis()
                ));
            }
        };
        if stopped {
            // Rows still coming: the connection is closed, not reused.
            drop(deadpool::managed::Object::take(pooled));
        }
        if count {
            return ToolOutput {
                result: json!({ "count": counted.unwrap_or_default() }),
                is_error: false,
            };
        }
        ToolOutput {
            result: json!({ "rows": answered, "truncated": stopped }),
            is_error: false,
        }
    }
}
