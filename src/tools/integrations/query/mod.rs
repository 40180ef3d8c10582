//! The `query_{table}` and `count_{table}` tools (`tools.md` §7): their
//! definitions from a table's cached columns, the SQL built from a call's
//! arguments, and the rows mapped to JSON. Identifiers are quoted; every
//! value is bound as a text parameter and cast to its column's type, never
//! spliced into the statement; columns, operators and directions are
//! checked against fixed lists first. Pure: no database here.

use serde_json::{Map, Value, json};

use crate::store::integrations::{Column, Table};

/// Rows a query answers at most, and when the model names none.
pub const MAX_LIMIT: i64 = 200;
pub const DEFAULT_LIMIT: i64 = 50;
/// The largest `offset`.
pub const MAX_OFFSET: i64 = 10_000;
/// Filters of one call at most, and values of one `in`.
pub const MAX_FILTERS: usize = 20;
pub const MAX_IN_VALUES: usize = 100;
/// Characters of one field a row carries at most: a longer value is cut in
/// the statement itself, so the database never sends it whole.
pub const MAX_FIELD_CHARS: usize = 32 * 1024;
/// Bytes of one `bytea` field at most (base64 of it fits the same bound).
const MAX_FIELD_BYTES: usize = MAX_FIELD_CHARS / 4 * 3;

/// The largest integer a JSON number carries exactly.
const EXACT_INTEGER: i64 = 1 << 53;

const OPERATORS: [&str; 9] = [
    "eq", "ne", "lt", "lte", "gt", "gte", "like", "in", "is_null",
];

/// A statement and its text parameters.
#[derive(Debug, PartialEq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<String>,
}

/// An identifier, quoted.
pub fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn table_ref(table: &Table) -> String {
    format!("\"public\".{}", quoted(&table.name))
}

fn type_ref(column: &Column) -> String {
    format!(
        "{}.{}",
        quoted(&column.udt_schema),
        quoted(&column.udt_name)
    )
}

/// The definitions of the two tools of `table`, named `query` and `count`.
pub fn definitions(table: &Table) -> (Value, Value) {
    let columns: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
    let filters = json!({
        "type": "array",
        "maxItems": MAX_FILTERS,
        "description": "Conditions, all of which a row must meet.",
        "items": {
            "type": "object",
            "properties": {
                "column": {"type": "string", "enum": columns},
                "op": {"type": "string", "enum": OPERATORS},
                "value": {"description": "The value to compare with; for `in` an array of at most 100 values; for `is_null` true or false."},
            },
            "required": ["column", "op"],
        },
    });
    let query = json!({
        "type": "object",
        "properties": {
            "filters": filters,
            "columns": {"type": "array", "items": {"type": "string", "enum": columns},
                        "description": "The columns to answer (default: all)."},
            "orderBy": {"type": "string", "enum": columns},
            "direction": {"type": "string", "enum": ["asc", "desc"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
            "offset": {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
        },
    });
    let count = json!({
        "type": "object",
        "properties": {"filters": filters},
    });
    (query, count)
}

fn column<'a>(table: &'a Table, name: &Value, field: &str) -> Result<&'a Column, String> {
    let name = name
        .as_str()
        .ok_or_else(|| format!("`{field}` must be a column name"))?;
    table
        .columns
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| format!("`{field}`: `{name}` is not a column of {}", table.name))
}

/// A filter value as the text the database casts.
fn text_of(value: &Value, at: usize) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) => Ok(number.to_string()),
        Value::Bool(flag) => Ok(flag.to_string()),
        Value::Null => Err(format!(
            "filter {at}: a null value; use the `is_null` operator"
        )),
        // A JSON column compared with a JSON value.
        other => Ok(other.to_string()),
    }
}

/// The `WHERE` clause of `filters` (empty when none), its values appended
/// to `params`.
fn conditions(
    table: &Table,
    args: &Map<String, Value>,
    params: &mut Vec<String>,
) -> Result<String, String> {
    let Some(filters) = args.get("filters") else {
        return Ok(String::new());
    };
    let filters = filters
        .as_array()
        .ok_or_else(|| "`filters` must be an array".to_owned())?;
    if filters.len() > MAX_FILTERS {
        return Err(format!("at most {MAX_FILTERS} filters"));
    }
    let mut clauses = Vec::with_capacity(filters.len());
    for (at, filter) in filters.iter().enumerate() {
        let column = column(table, &filter["column"], &format!("filters[{at}].column"))?;
        let op = filter["op"].as_str().unwrap_or_default();
        let name = quoted(&column.name);
        let mut bind = |value: &Value| -> Result<String, String> {
            params.push(text_of(value, at)?);
            Ok(format!("CAST(${} AS {})", params.len(), type_ref(column)))
        };
        let clause = match op {
            "eq" | "ne" | "lt" | "lte" | "gt" | "gte" => {
                let symbol = match op {
                    "eq" => "=",
                    "ne" => "<>",
                    "lt" => "<",
                    "lte" => "<=",
                    "gt" => ">",
                    _ => ">=",
                };
                format!("{name} {symbol} {}", bind(&filter["value"])?)
            }
            "like" => {
                params.push(text_of(&filter["value"], at)?);
                format!("{name}::text LIKE ${}", params.len())
            }
            "in" => {
                let values = filter["value"]
                    .as_array()
                    .filter(|v| !v.is_empty() && v.len() <= MAX_IN_VALUES)
                    .ok_or_else(|| {
                        format!("filter {at}: `in` takes an array of 1 to {MAX_IN_VALUES} values")
                    })?;
                let bound = values
                    .iter()
                    .map(&mut bind)
                    .collect::<Result<Vec<_>, _>>()?;
                format!("{name} IN ({})", bound.join(", "))
            }
            "is_null" => match filter["value"].as_bool() {
                Some(true) => format!("{name} IS NULL"),
                Some(false) => format!("{name} IS NOT NULL"),
                None => return Err(format!("filter {at}: `is_null` takes true or false")),
            },
            _ => {
                return Err(format!(
                    "filter {at}: `op` must be one of {}",
                    OPERATORS.join(", ")
                ));
            }
        };
        clauses.push(clause);
    }
    Ok(if clauses.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", clauses.join(" AND "))
    })
}

fn object(args: &Value) -> Result<&Map<String, Value>, String> {
    args.as_object()
        .ok_or_else(|| "arguments are not a JSON object".to_owned())
}

fn only(args: &Map<String, Value>, known: &[&str]) -> Result<(), String> {
    match args.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!("unknown argument `{unknown}`")),
        None => Ok(()),
    }
}

fn integer(args: &Map<String, Value>, key: &str) -> Result<Option<i64>, String> {
    args.get(key)
        .map(|v| {
            v.as_i64()
                .ok_or_else(|| format!("`{key}` must be an integer"))
        })
        .transpose()
}

/// What a column is selected as, never longer than [`MAX_FIELD_CHARS`]:
/// bytea in base64 (of its first [`MAX_FIELD_BYTES`]), 64-bit and
/// arbitrary precision numbers as text (made numbers again when exact),
/// fixed-size types as PostgreSQL's JSON of them (ISO 8601 times), and
/// the rest (text, JSON, arrays, …) as their JSON when their text is
/// short enough, else the start of their text, as a string.
fn selected(column: &Column) -> String {
    let name = quoted(&column.name);
    match column.data_type.as_str() {
        "bytea" => format!("encode(substring({name} from 1 for {MAX_FIELD_BYTES}), 'base64')"),
        "bigint" | "numeric" => format!("left({name}::text, {MAX_FIELD_CHARS})"),
        "smallint" | "integer" | "real" | "double precision" | "boolean" | "date" | "uuid"
        | "money" => name,
        kind if kind.starts_with("timestamp") || kind.starts_with("time ") || kind == "time" => {
            name
        }
        _ => format!(
            "CASE WHEN length({name}::text) <= {MAX_FIELD_CHARS} THEN to_jsonb({name}) \
             ELSE to_jsonb(left({name}::text, {MAX_FIELD_CHARS})) END"
        ),
    }
}

/// The statement of a `query_{table}` call, and the columns it answers in
/// order.
pub fn query(table: &Table, args: &Value) -> Result<(Statement, Vec<Column>), String> {
    let args = object(args)?;
    only(
        args,
        &[
            "filters",
            "columns",
            "orderBy",
            "direction",
            "limit",
            "offset",
        ],
    )?;
    let columns: Vec<Column> = match args.get("columns") {
        None | Some(Value::Null) => table.columns.clone(),
        Some(Value::Array(names)) if !names.is_empty() => names
            .iter()
            .enumerate()
            .map(|(at, n)| column(table, n, &format!("columns[{at}]")).cloned())
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`columns` must be a non-empty array of column names".into()),
    };
    let mut params = Vec::new();
    let filter = conditions(table, args, &mut params)?;
    let order = match args.get("orderBy") {
        None | Some(Value::Null) => String::new(),
        Some(name) => {
            let column = column(table, name, "orderBy")?;
            let direction = match args.get("direction").and_then(Value::as_str) {
                None | Some("asc") => "ASC",
                Some("desc") => "DESC",
                Some(_) => return Err("`direction` must be `asc` or `desc`".into()),
            };
            format!(" ORDER BY {} {direction}", quoted(&column.name))
        }
    };
    let limit = integer(args, "limit")?.unwrap_or(DEFAULT_LIMIT);
    if limit < 1 {
        return Err("`limit` must be at least 1".into());
    }
    let offset = integer(args, "offset")?.unwrap_or(0);
    if !(0..=MAX_OFFSET).contains(&offset) {
        return Err(format!("`offset` must be between 0 and {MAX_OFFSET}"));
    }
    let fields: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(at, c)| format!("{} AS \"c{at}\"", selected(c)))
        .collect();
    let sql = format!(
        "SELECT row_to_json(r)::text FROM (SELECT {} FROM {}{filter}{order} LIMIT {} OFFSET {offset}) r",
        fields.join(", "),
        table_ref(table),
        limit.min(MAX_LIMIT),
    );
    Ok((Statement { sql, params }, columns))
}

/// The statement of a `count_{table}` call.
pub fn count(table: &Table, args: &Value) -> Result<Statement, String> {
    let args = object(args)?;
    only(args, &["filters"])?;
    let mut params = Vec::new();
    let filter = conditions(table, args, &mut params)?;
    Ok(Statement {
        sql: format!("SELECT count(*)::text FROM {}{filter}", table_ref(table)),
        params,
    })
}

/// A row as the model reads it, from the statement's `row_to_json` text.
pub fn row(json: &str, columns: &[Column]) -> Value {
    let parsed: Map<String, Value> = serde_json::from_str(json).unwrap_or_default();
    let mut row = Map::new();
    for (at, column) in columns.iter().enumerate() {
        let value = parsed
            .get(&format!("c{at}"))
            .cloned()
            .unwrap_or(Value::Null);
        let value = match (column.data_type.as_str(), value) {
            ("bigint" | "numeric", Value::String(text)) => exact_number(text),
            (_, value) => value,
        };
        row.insert(column.name.clone(), value);
    }
    Value::Object(row)
}

/// A number given as text: a JSON number when it is one exactly, else the
/// text (past ±2^53, or more digits than a double keeps).
fn exact_number(text: String) -> Value {
    if let Ok(integer) = text.parse::<i64>() {
        if integer.abs() <= EXACT_INTEGER {
            return Value::from(integer);
        }
        return Value::String(text);
    }
    let digits = text.chars().filter(char::is_ascii_digit).count();
    match text.parse::<f64>() {
        Ok(float) if digits <= 15 && float.is_finite() => Value::from(float),
        _ => Value::String(text),
    }
}

#[cfg(test)]
mod tests;
