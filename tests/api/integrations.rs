//! Database integrations (`tools.md` §7) against a real PostgreSQL started
//! by the test: the create reads the live schema, a turn's `query_` and
//! `count_` tools answer rows, every argument's injection attempt is
//! refused or bound, the transaction is read-only, and connection strings
//! that reach a Unix socket, name `hostaddr` or leave TLS off for a host
//! not allow-listed are refused. The connection string never shows.

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, done_of, events_of};
use crate::mock::{Mock, Reply, openai_answer, openai_tool_call};
use crate::postgres::Postgres;

/// The reader role's password, inside the connection string.
pub(crate) const PASSWORD: &str = "reader-pw-7c1e";

pub(crate) async fn seed(postgres: &Postgres) {
    let admin = postgres.admin().await;
    // One statement each: CREATE DATABASE refuses a transaction block.
    admin.batch_execute("CREATE DATABASE shop").await.unwrap();
    admin
        .batch_execute(&format!("CREATE ROLE reader LOGIN PASSWORD '{PASSWORD}'"))
        .await
        .unwrap();
    let shop = shop(postgres).await;
    shop.batch_execute(
        "CREATE TABLE orders (
             id bigint PRIMARY KEY,
             customer text NOT NULL,
             total numeric(10, 2),
             paid boolean,
             placed_at timestamptz,
             details jsonb,
             receipt bytea
         );
         INSERT INTO orders VALUES
             (1, 'ada', 19.90, true, '2026-11-20T10:00:00Z', '{\"items\": 2}', '\\x0102'),
             (2, 'bob', 5.00, false, '2026-11-21T11:00:00Z', null, null),
             (3, 'ada', 7.25, true, '2026-11-22T12:00:00Z', '{\"items\": 1}', null),
             (9007199254740993, 'big', null, null, null, null, null);
         CREATE TABLE secrets (id int, value text);
         INSERT INTO secrets VALUES (1, 'hidden');
         CREATE VIEW paid_orders AS SELECT id, customer FROM orders WHERE paid;
         CREATE FUNCTION stamp() RETURNS int LANGUAGE sql AS
             'INSERT INTO secrets VALUES (2, ''written by a read'') RETURNING id';
         CREATE VIEW stamped AS SELECT stamp() AS n;
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;",
    )
    .await
    .unwrap();
}

/// The superuser on database `shop`, over the socket.
async fn shop(postgres: &Postgres) -> tokio_postgres::Client {
    let mut config = tokio_postgres::Config::new();
    config
        .host_path(postgres.socket_dir())
        .port(postgres.port)
        .user("confer")
        .dbname("shop");
    let (shop, connection) = config.connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    shop
}

/// The rows of `orders`, read by the superuser (to see nothing changed).
async fn order_count(postgres: &Postgres) -> i64 {
    let shop = shop(postgres).await;
    shop.query_one("SELECT count(*) FROM orders", &[])
        .await
        .unwrap()
        .get(0)
}

pub(crate) fn connection_string(postgres: &Postgres) -> String {
    format!(
        "postgres://reader:{PASSWORD}@127.0.0.1:{}/shop?application_name=confer-test",
        postgres.port
    )
}

/// One turn calling `tool` with `arguments`; the `tool_result`'s data.
async fn call(api: &Api, vendor: &Mock, thread: &str, tool: &str, arguments: Value) -> Value {
    vendor.push(Reply::stream(openai_tool_call("call_1", tool, &arguments)));
    vendor.push(Reply::stream(openai_answer("ok", 5)));
    let frames = api.say(thread, json!({"content": "go"})).await;
    assert_eq!(done_of(&frames)["ok"], true);
    let results = events_of(&frames, "tool_result");
    assert_eq!(results.len(), 1, "{frames:?}");
    results[0].clone()
}

#[tokio::test]
async fn a_turn_queries_a_real_postgres_and_no_argument_injects() {
    let postgres = Postgres::start().await;
    seed(&postgres).await;
    let vendor = Mock::start("/v1").await;
    let server = confer_on(&vendor, "trace");
    let api = server.admin();
    let made = api
        .post(
            "/api/integrations",
            json!({"name": "Shop DB", "kind": "postgres",
                   "connectionString": connection_string(&postgres),
                   "tables": ["orders", "paid_orders", "stamped"]}),
        )
        .await
        .expect(201);
    assert_eq!(made["slug"], "shop_db");
    assert_eq!(made["kind"], "postgres");
    assert_eq!(made["tables"], json!(["orders", "paid_orders", "stamped"]));
    assert!(!made.to_string().contains(PASSWORD));
    let id = made["id"].as_str().unwrap().to_owned();
    // A table that is not there, and a wrong password.
    let detail = api
        .post(
            "/api/integrations",
            json!({"name": "x", "kind": "postgres",
                   "connectionString": connection_string(&postgres), "tables": ["nope"]}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(
        detail.contains("tables") && detail.contains("nope"),
        "{detail}"
    );
    let wrong = connection_string(&postgres).replace(PASSWORD, "wrong-pw");
    let detail = api
        .post(
            "/api/integrations",
            json!({"name": "x", "kind": "postgres", "connectionString": wrong}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(
        detail.contains("connectionString: cannot connect"),
        "{detail}"
    );
    assert!(!detail.contains("wrong-pw"), "{detail}");

    let agent = api
        .agent_with(json!({"name": "Analyst", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": id, "allowedTables": ["secrets"]}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
    api.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": id}),
    )
    .await
    .expect(201);
    let attached = api
        .get(&format!("/api/agents/{agent}/integrations"))
        .await
        .expect(200);
    assert_eq!(attached["integrations"][0]["slug"], "shop_db");
    let thread = api.thread(&agent, json!({})).await;

    let result = call(
        &api,
        &vendor,
        &thread,
        "query_orders",
        json!({"filters": [{"column": "customer", "op": "eq", "value": "ada"}],
               "orderBy": "id", "direction": "asc"}),
    )
    .await;
    let offered: Vec<String> = vendor.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        offered,
        [
            "count_orders",
            "count_paid_orders",
            "count_stamped",
            "query_orders",
            "query_paid_orders",
            "query_stamped"
        ]
    );
    let rows = result["result"]["rows"].as_array().unwrap();
    assert_eq!(result["result"]["truncated"], false);
    assert_eq!(rows.len(), 2, "{result}");
    assert_eq!(
        rows[0],
        json!({"id": 1, "customer": "ada", "total": 19.9, "paid": true,
               "placed_at": "2026-11-20T10:00:00+00:00", "details": {"items": 2},
               "receipt": "AQI="})
    );
    let big = call(
        &api,
        &vendor,
        &thread,
        "query_orders",
        json!({"filters": [{"column": "customer", "op": "in", "value": ["big"]}],
               "columns": ["id"]}),
    )
    .await;
    assert_eq!(big["result"]["rows"], json!([{"id": "9007199254740993"}]));
    let counted = call(
        &api,
        &vendor,
        &thread,
        "count_orders",
        json!({"filters": [{"column": "paid", "op": "eq", "value": true}]}),
    )
    .await;
    assert_eq!(counted["result"], json!({"count": 2}));
    let view = call(
        &api,
        &vendor,
        &thread,
        "query_paid_orders",
        json!({"limit": 1}),
    )
    .await;
    assert_eq!(view["result"]["rows"].as_array().unwrap().len(), 1);

    // Injection attempts, one per argument: refused before any SQL, or a
    // bound value that matches nothing; the table is whole afterwards.
    for arguments in [
        json!({"filters": [{"column": "customer", "op": "eq", "value": "x' OR '1'='1"}]}),
        json!({"filters": [{"column": "customer", "op": "like", "value": "%'; DROP TABLE orders; --"}]}),
        json!({"filters": [{"column": "customer\"; DROP TABLE orders; --", "op": "eq", "value": 1}]}),
        json!({"filters": [{"column": "id", "op": "= 1 OR 1=1; --", "value": 1}]}),
        json!({"filters": [{"column": "id", "op": "in", "value": ["1); DROP TABLE orders; --"]}]}),
        json!({"columns": ["id, (SELECT value FROM secrets) AS leak"]}),
        json!({"orderBy": "id; DROP TABLE orders"}),
        json!({"orderBy": "id", "direction": "asc; DROP TABLE orders"}),
        json!({"limit": "1; DROP TABLE orders"}),
        json!({"offset": "0; DROP TABLE orders"}),
    ] {
        let result = call(&api, &vendor, &thread, "query_orders", arguments.clone()).await;
        let text = result["result"].to_string();
        assert!(!text.contains("hidden"), "{arguments}: {text}");
        let matched_nothing = result["result"]["rows"] == json!([]);
        assert!(
            result["isError"] == true || matched_nothing,
            "{arguments}: {result}"
        );
    }
    // A value that does not fit its column is the database's error, by
    // SQLSTATE; the transaction is read-only whatever the statement.
    let bad = call(
        &api,
        &vendor,
        &thread,
        "query_orders",
        json!({"filters": [{"column": "id", "op": "eq", "value": "not a number"}]}),
    )
    .await;
    assert_eq!(bad["isError"], true);
    assert_eq!(bad["result"]["error"], "database error: SQLSTATE 22P02");
    // A view whose function writes: the read-only transaction refuses it.
    let stamped = call(&api, &vendor, &thread, "query_stamped", json!({})).await;
    assert_eq!(
        stamped["result"]["error"], "database error: SQLSTATE 25006",
        "{stamped}"
    );
    assert_eq!(order_count(&postgres).await, 4);

    // The trace names the kind; the password shows nowhere.
    let logs = api
        .get(&format!("/api/logs?threadId={thread}"))
        .await
        .expect(200);
    let trace = logs["traces"][0]["id"].as_str().unwrap();
    let detail = api.get(&format!("/api/logs/{trace}")).await.expect(200);
    assert!(
        detail["spans"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["attributes"]["tool_kind"] == "integration"),
        "{detail}"
    );
    let listed = api.get("/api/integrations").await.expect(200);
    assert!(!listed.to_string().contains(PASSWORD));
    let log = server.logs();
    assert!(!log.contains(PASSWORD), "the password is not logged");

    api.delete(&format!("/api/integrations/{id}"))
        .await
        .expect(200);
    let attached = api
        .get(&format!("/api/agents/{agent}/integrations"))
        .await
        .expect(200);
    assert_eq!(attached["integrations"], json!([]), "detached everywhere");
}

#[tokio::test]
async fn connection_strings_that_escape_the_policy_are_refused() {
    let postgres = Postgres::start().await;
    let server = Server::start_with(Options::default().env("CONFER_OUTBOUND_ALLOW", "127.0.0.1"));
    let api = server.admin();
    let socket = postgres.socket_dir().display().to_string();
    for (connection, why) in [
        (
            format!(
                "host={socket} port={} dbname=postgres user=confer",
                postgres.port
            ),
            "Unix-socket",
        ),
        (
            format!(
                "postgres://confer@%2F{}:{}/postgres",
                socket.trim_start_matches('/').replace('/', "%2F"),
                postgres.port
            ),
            "Unix-socket",
        ),
        (
            format!(
                "postgres://confer@127.0.0.1:{}/postgres?host={socket}",
                postgres.port
            ),
            "more than one host",
        ),
        (
            format!(
                "host=db.example.com hostaddr=127.0.0.1 port={} dbname=postgres",
                postgres.port
            ),
            "hostaddr",
        ),
        (
            format!(
                "postgres://confer@127.0.0.1:{}/postgres?hostaddr=127.0.0.1",
                postgres.port
            ),
            "hostaddr",
        ),
        (
            "postgres://u:p@db.example.com/x".to_owned(),
            "sslmode=require",
        ),
        (
            "postgres://u:p@10.20.30.40/x?sslmode=require".to_owned(),
            "host",
        ),
        (
            format!(
                "postgres://confer@127.0.0.1:{}/postgres?options=-c%20role%3Dx",
                postgres.port
            ),
            "options",
        ),
    ] {
        let detail = api
            .post(
                "/api/integrations",
                json!({"name": "x", "kind": "postgres", "connectionString": connection}),
            )
            .await
            .expect_error(422, "VALIDATION_ERROR");
        assert!(
            detail.contains("connectionString") && detail.contains(why),
            "{connection}: {detail}"
        );
    }
    api.post(
        "/api/integrations",
        json!({"name": "x", "kind": "mysql", "connectionString": "host=127.0.0.1"}),
    )
    .await
    .expect_error(422, "VALIDATION_ERROR");
}

/// Confer on the mock `vendor`, allowed to reach local databases over
/// plain TCP, logging at `log`.
fn confer_on(vendor: &Mock, log: &str) -> Server {
    Server::start_with(
        Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-platform")
            .env("CONFER_OUTBOUND_ALLOW", "127.0.0.1")
            .env("CONFER_LOG", log),
    )
}

/// Confer on a mock vendor with an agent using an integration of
/// `connection` exposing `tables`; the server, its admin, the vendor and
/// a thread.
async fn agent_on(connection: &str, tables: Value) -> (Server, Api, Mock, String) {
    let vendor = Mock::start("/v1").await;
    let server = confer_on(&vendor, "info");
    let api = server.admin();
    let id = api
        .post(
            "/api/integrations",
            json!({"name": "Shop DB", "kind": "postgres", "connectionString": connection,
                   "tables": tables}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let agent = api
        .agent_with(json!({"name": "Clerk", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.post(
        &format!("/api/agents/{agent}/integrations"),
        json!({"integrationId": id}),
    )
    .await
    .expect(201);
    let thread = api.thread(&agent, json!({})).await;
    (server, api, vendor, thread)
}

#[tokio::test]
async fn a_database_that_stops_answering_ends_the_call_within_its_deadline() {
    let postgres = Postgres::start().await;
    seed(&postgres).await;
    let port = postgres.port;
    let (_server, api, vendor, thread) =
        agent_on(&connection_string(&postgres), json!(["orders"])).await;
    assert_eq!(
        call(&api, &vendor, &thread, "count_orders", json!({})).await["result"],
        json!({"count": 4})
    );
    // The database goes; in its place, something that accepts TCP and then
    // never says a word.
    drop(postgres);
    let silent = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let held = tokio::spawn(async move {
        let mut sockets = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            sockets.push(socket);
        }
    });
    let started = std::time::Instant::now();
    let result = call(&api, &vendor, &thread, "query_orders", json!({})).await;
    assert_eq!(
        result["result"]["error"], "database unavailable",
        "{result}"
    );
    // The connect deadline (5 s), not a turn held for ever.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    held.abort();
}

#[tokio::test]
async fn a_50_mb_column_is_cut_in_sql_and_the_server_stays_small() {
    use crate::common::status_kib;
    let postgres = Postgres::start().await;
    seed(&postgres).await;
    let shop = shop(&postgres).await;
    shop.batch_execute(
        "CREATE TABLE blobs (id int, body text, doc jsonb);
         INSERT INTO blobs VALUES
             (1, repeat('x', 50000000), jsonb_build_object('k', repeat('y', 50000000)));
         INSERT INTO blobs SELECT n, repeat('x', 100000), jsonb_build_object('k', repeat('y', 100000))
             FROM generate_series(2, 10) n;
         GRANT SELECT ON blobs TO reader;",
    )
    .await
    .unwrap();
    let (server, api, vendor, thread) =
        agent_on(&connection_string(&postgres), json!(["blobs"])).await;
    let start_kib = status_kib(server.pid(), "VmRSS");
    let result = call(
        &api,
        &vendor,
        &thread,
        "query_blobs",
        json!({"orderBy": "id"}),
    )
    .await;
    let rows = result["result"]["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{result}"));
    assert!(!rows.is_empty(), "{}", result.to_string().len());
    let body = rows[0]["body"].as_str().unwrap();
    assert_eq!(body.len(), 32 * 1024, "cut to the field bound");
    // A JSON value too long is its text's start, as a string.
    assert!(
        rows[0]["doc"]
            .as_str()
            .unwrap()
            .starts_with("{\"k\": \"yyy")
    );
    // Ten rows of 64 KiB are over the result cap: the reading stopped.
    assert_eq!(result["result"]["truncated"], true);
    assert!(rows.len() < 10, "{}", rows.len());
    let peak_kib = status_kib(server.pid(), "VmHWM");
    assert!(
        peak_kib < start_kib + 64 * 1024,
        "peak RSS {peak_kib} KiB from {start_kib} KiB"
    );
}
