//! The statements built from calls: quoting, binding, refusals, rows.
use super::*;

fn column(name: &str, data_type: &str, udt: &str) -> Column {
    Column {
        name: name.into(),
        data_type: data_type.into(),
        udt_schema: "pg_catalog".into(),
        udt_name: udt.into(),
    }
}

fn orders() -> Table {
    Table {
        name: "orders".into(),
        columns: vec![
            column("id", "bigint", "int8"),
            column("customer", "text", "text"),
            column("total", "numeric", "numeric"),
            column("note \"x\"", "text", "text"),
        ],
    }
}

#[test]
fn a_query_binds_every_value_and_quotes_every_identifier() {
    let (statement, columns) = query(
        &orders(),
        &json!({"filters": [
            {"column": "customer", "op": "eq", "value": "x' OR '1'='1"},
            {"column": "id", "op": "in", "value": [1, 2]},
            {"column": "total", "op": "is_null", "value": false},
            {"column": "note \"x\"", "op": "like", "value": "%a%"},
        ], "columns": ["id", "customer"], "orderBy": "id", "direction": "desc",
           "limit": 500, "offset": 5}),
    )
    .unwrap();
    assert_eq!(
        statement.sql,
        "SELECT row_to_json(r)::text FROM (SELECT left(\"id\"::text, 32768) AS \"c0\", \
         CASE WHEN length(\"customer\"::text) <= 32768 THEN to_jsonb(\"customer\") \
         ELSE to_jsonb(left(\"customer\"::text, 32768)) END AS \"c1\" \
         FROM \"public\".\"orders\" WHERE \"customer\" = CAST($1 AS \"pg_catalog\".\"text\") \
         AND \"id\" IN (CAST($2 AS \"pg_catalog\".\"int8\"), CAST($3 AS \"pg_catalog\".\"int8\")) \
         AND \"total\" IS NOT NULL AND \"note \"\"x\"\"\"::text LIKE $4 \
         ORDER BY \"id\" DESC LIMIT 200 OFFSET 5) r"
    );
    assert_eq!(statement.params, ["x' OR '1'='1", "1", "2", "%a%"]);
    assert_eq!(columns.len(), 2);
}

#[test]
fn injections_in_every_argument_are_refused_before_any_sql() {
    let table = orders();
    for args in [
        json!({"columns": ["id; DROP TABLE orders"]}),
        json!({"orderBy": "id DESC; DROP TABLE orders"}),
        json!({"orderBy": "id", "direction": "desc; DROP TABLE orders"}),
        json!({"filters": [{"column": "id) OR (1=1", "op": "eq", "value": 1}]}),
        json!({"filters": [{"column": "id", "op": "= 1 OR 1=1 --", "value": 1}]}),
        json!({"limit": "1; DROP TABLE orders"}),
        json!({"offset": "0) r; DROP TABLE orders; --"}),
        json!({"offset": 20_000}),
        json!({"limit": 0}),
        json!({"filters": "1=1"}),
        json!({"filters": [{"column": "id", "op": "in", "value": "1,2"}]}),
        json!({"filters": [{"column": "id", "op": "eq", "value": null}]}),
        json!({"filters": [{"column": "id", "op": "is_null", "value": "yes"}]}),
        json!({"sql": "DROP TABLE orders"}),
        json!("SELECT 1"),
    ] {
        assert!(query(&table, &args).is_err(), "{args}");
    }
    assert!(count(&table, &json!({"limit": 5})).is_err());
}

#[test]
fn rows_keep_exact_numbers_and_column_names() {
    let columns = vec![
        column("id", "bigint", "int8"),
        column("big", "bigint", "int8"),
        column("price", "numeric", "numeric"),
        column("long", "numeric", "numeric"),
        column("at", "timestamp with time zone", "timestamptz"),
    ];
    let row = row(
        r#"{"c0":"42","c1":"9007199254740993","c2":"19.90","c3":"1234567890.1234567890","c4":"2026-11-25T10:00:00+00:00"}"#,
        &columns,
    );
    assert_eq!(
        row,
        json!({"id": 42, "big": "9007199254740993", "price": 19.9,
               "long": "1234567890.1234567890", "at": "2026-11-25T10:00:00+00:00"})
    );
}
