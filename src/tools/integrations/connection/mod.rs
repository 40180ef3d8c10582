//! A PostgreSQL connection string as Confer accepts it (`tools.md` §7):
//! the URL form (`postgres://user:pass@host:port/db?sslmode=require`) or
//! the key/value form (`host=… dbname=…`), one TCP host, options among
//! `dbname user password port sslmode application_name` only; no Unix
//! socket, no `hostaddr`, no second host. A host the operator did not
//! allow-list needs `sslmode` `require` or stricter. Each connection
//! resolves the host itself, refuses addresses that are not global (unless
//! allow-listed), and connects to the checked address, the name kept for
//! TLS.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use tokio_postgres::config::SslMode;

use crate::outbound::{OutboundPolicy, canonical, is_global};

/// The options a connection string may carry.
const OPTIONS: [&str; 6] = [
    "dbname",
    "user",
    "password",
    "port",
    "sslmode",
    "application_name",
];

/// How long a connection may take to open, whole: name resolution, TCP,
/// TLS and PostgreSQL's start-up (a server that accepts TCP and then says
/// nothing is given up on after it).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How much TLS a connection uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tls {
    /// `disable`, `allow`, `prefer`: plain (only for allow-listed hosts).
    Off,
    /// `require`: encrypted, the certificate not checked (as libpq does).
    Require,
    /// `verify-ca`, `verify-full`: encrypted, the certificate verified.
    Verify,
}

/// A checked connection string.
#[derive(Clone)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub user: Option<String>,
    pub password: Option<String>,
    pub dbname: Option<String>,
    pub application_name: Option<String>,
    pub tls: Tls,
    /// The host is on `CONFER_OUTBOUND_ALLOW`.
    pub allow_listed: bool,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &crate::secrets::redacted(&self.password))
            .field("dbname", &self.dbname)
            .field("application_name", &self.application_name)
            .field("tls", &self.tls)
            .field("allow_listed", &self.allow_listed)
            .finish()
    }
}

/// Parses and checks `raw`; the error names the rule (never the string).
pub fn parse(raw: &str, policy: &OutboundPolicy) -> Result<Target, String> {
    let raw = raw.trim();
    let pairs = if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
        url_pairs(raw)?
    } else {
        key_value_pairs(raw)?
    };
    let mut host = None;
    let mut target = Target {
        host: String::new(),
        port: 5432,
        user: None,
        password: None,
        dbname: None,
        application_name: None,
        tls: Tls::Off,
        allow_listed: false,
    };
    let mut sslmode = "prefer".to_owned();
    for (key, value) in pairs {
        match key.as_str() {
            "host" => {
                if host.replace(value).is_some() {
                    return Err("names more than one host".into());
                }
            }
            "hostaddr" => return Err("`hostaddr` is not accepted".into()),
            "port" => {
                target.port = value
                    .parse()
                    .map_err(|_| "`port` is not a port number".to_owned())?;
            }
            "user" => target.user = Some(value),
            "password" => target.password = Some(value),
            "dbname" => target.dbname = Some(value),
            "application_name" => target.application_name = Some(value),
            "sslmode" => sslmode = value,
            other if OPTIONS.contains(&other) => {}
            other => {
                return Err(format!(
                    "option `{other}` is not accepted (only {})",
                    OPTIONS.join(", ")
                ));
            }
        }
    }
    let host = host.ok_or_else(|| "names no host".to_owned())?;
    if host.is_empty() || host.starts_with('/') || host.starts_with('@') {
        return Err("a Unix-socket host is not accepted".into());
    }
    if host.contains(',') {
        return Err("names more than one host".into());
    }
    target.tls = match sslmode.as_str() {
        "disable" | "allow" | "prefer" => Tls::Off,
        "require" => Tls::Require,
        "verify-ca" | "verify-full" => Tls::Verify,
        _ => return Err("`sslmode` is not a PostgreSQL sslmode".into()),
    };
    let shown = if host.contains(':') {
        format!("[{host}]")
    } else {
        host.clone()
    };
    let checked = policy.check_url(&format!("https://{shown}:{}/", target.port));
    target.allow_listed = checked.as_ref().is_ok_and(|c| c.allow_listed);
    if !target.allow_listed {
        checked.map_err(|why| format!("the host: {why}"))?;
        if target.tls == Tls::Off {
            return Err(
                "a host not on CONFER_OUTBOUND_ALLOW needs `sslmode=require` or stricter".into(),
            );
        }
    }
    target.host = host;
    Ok(target)
}

/// The pairs of the URL form: host and port from the authority, user and
/// password from the userinfo, dbname from the path, options from the query.
fn url_pairs(raw: &str) -> Result<Vec<(String, String)>, String> {
    // `url` treats `postgres:` as an opaque scheme; its authority still
    // parses. A second host (`h1,h2`) or an empty one (a socket) is refused
    // below.
    let url = url::Url::parse(raw).map_err(|_| "is not a valid postgres:// URL".to_owned())?;
    let decode = |text: &str| {
        percent_decode(text).ok_or_else(|| "has an invalid percent-encoding".to_owned())
    };
    let mut pairs = vec![(
        "host".to_owned(),
        decode(url.host_str().unwrap_or_default())?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned(),
    )];
    if let Some(port) = url.port() {
        pairs.push(("port".into(), port.to_string()));
    }
    if !url.username().is_empty() {
        pairs.push(("user".into(), decode(url.username())?));
    }
    if let Some(password) = url.password() {
        pairs.push(("password".into(), decode(password)?));
    }
    let path = url.path().trim_start_matches('/');
    if !path.is_empty() {
        pairs.push(("dbname".into(), decode(path)?));
    }
    for (key, value) in url.query_pairs() {
        pairs.push((key.into_owned(), value.into_owned()));
    }
    Ok(pairs)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The pairs of the key/value form: `key=value` separated by spaces, a
/// value optionally in single quotes with `\'` and `\\` escapes.
fn key_value_pairs(raw: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    let mut chars = raw.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(c) = chars.next_if(|c| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('=') {
            return Err("is neither a postgres:// URL nor key=value pairs".into());
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let mut value = String::new();
        if chars.next_if_eq(&'\'').is_some() {
            loop {
                match chars.next() {
                    Some('\\') => value.push(chars.next().ok_or("has an unfinished quote")?),
                    Some('\'') => break,
                    Some(c) => value.push(c),
                    None => return Err("has an unfinished quote".into()),
                }
            }
        } else {
            while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
                value.push(c);
            }
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// Why a connection did not open, in words without the string's secrets.
fn refused(why: impl std::fmt::Display) -> String {
    why.to_string()
}

/// An open connection: the client, and the task that drives its socket,
/// which ends with it (a connection given up on closes its socket even if
/// the server says nothing more).
pub struct PgConnection {
    pub client: tokio_postgres::Client,
    driver: tokio::task::JoinHandle<()>,
}

impl Drop for PgConnection {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl PgConnection {
    fn driven<S, T>(
        client: tokio_postgres::Client,
        connection: tokio_postgres::Connection<S, T>,
    ) -> Self
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
        T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        Self { client, driver }
    }
}

/// Opens a connection to `target` within [`CONNECT_TIMEOUT`]: resolves its
/// host, keeps the first address the policy allows, connects to it (TLS
/// as its `sslmode` says).
pub async fn connect(target: &Target, tls: &TlsSettings) -> Result<PgConnection, String> {
    tokio::time::timeout(CONNECT_TIMEOUT, connect_now(target, tls))
        .await
        .map_err(|_| refused("the database did not answer in time"))?
}

async fn connect_now(target: &Target, tls: &TlsSettings) -> Result<PgConnection, String> {
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((target.host.as_str(), target.port))
        .await
        .map_err(|_| refused("the host did not resolve"))?
        .collect();
    let address: IpAddr = addresses
        .iter()
        .map(|a| canonical(a.ip()))
        .find(|ip| target.allow_listed || is_global(*ip))
        .ok_or_else(|| refused("address refused by outbound policy"))?;
    let mut config = tokio_postgres::Config::new();
    config
        .host(&target.host)
        .hostaddr(address)
        .port(target.port)
        .connect_timeout(CONNECT_TIMEOUT)
        .application_name(target.application_name.as_deref().unwrap_or("confer"));
    if let Some(user) = &target.user {
        config.user(user);
    }
    if let Some(password) = &target.password {
        config.password(password);
    }
    if let Some(dbname) = &target.dbname {
        config.dbname(dbname);
    }
    let describe = |error: tokio_postgres::Error| match error.as_db_error() {
        Some(db) => format!("the database refused: SQLSTATE {}", db.code().code()),
        None => "cannot connect".to_owned(),
    };
    match target.tls {
        Tls::Off => {
            config.ssl_mode(SslMode::Disable);
            let (client, connection) = config
                .connect(tokio_postgres::NoTls)
                .await
                .map_err(describe)?;
            Ok(PgConnection::driven(client, connection))
        }
        Tls::Require | Tls::Verify => {
            config.ssl_mode(SslMode::Require);
            let rustls = if target.tls == Tls::Verify {
                &tls.verified
            } else {
                &tls.unverified
            };
            let connector = tokio_postgres_rustls::MakeRustlsConnect::new((**rustls).clone());
            let (client, connection) = config.connect(connector).await.map_err(describe)?;
            Ok(PgConnection::driven(client, connection))
        }
    }
}

mod tls;

pub use self::tls::TlsSettings;

#[cfg(test)]
mod tests;
