//! A PostgreSQL connection string as Confer accepts it (`tools.md` §7):
//! the URL form (`postgres://user:pass@host:port/db?sslmode=require`) or
//! the key/value form (`host=… dbname=…`), one TCP host, options among
//! `dbname user password port sslmode application_name` only; no Unix
//! socket, no `hostaddr`, no second host. Its keys are scanned here; the
//! string itself is parsed by `tokio_postgres::Config`. A host the operator did not
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
/// Its keys are scanned first (only [`OPTIONS`], and `sslmode` taken out,
/// since `tokio_postgres` knows no `verify-ca`/`verify-full`); the rest is
/// parsed by [`tokio_postgres::Config`], as libpq would.
pub fn parse(raw: &str, policy: &OutboundPolicy) -> Result<Target, String> {
    let mut target = parse_unchecked(raw)?;
    let shown = if target.host.contains(':') {
        format!("[{}]", target.host)
    } else {
        target.host.clone()
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
    Ok(target)
}

/// Parses the operator's own connection string (the PostgreSQL store's,
/// `scale.md` §1): the same forms and options as [`parse`], but not under
/// the outbound policy, so any address and any `sslmode` may be used.
pub fn parse_operator(raw: &str) -> Result<Target, String> {
    let mut target = parse_unchecked(raw)?;
    target.allow_listed = true;
    Ok(target)
}

/// The string's forms and options checked, the outbound policy not yet.
fn parse_unchecked(raw: &str) -> Result<Target, String> {
    use tokio_postgres::config::Host;
    let raw = raw.trim();
    let (rest, sslmode) = if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
        prescan_url(raw)?
    } else {
        prescan_pairs(raw)?
    };
    let config: tokio_postgres::Config = rest
        .parse()
        .map_err(|_| "is neither a valid postgres:// URL nor valid key=value pairs".to_owned())?;
    let host = match config.get_hosts() {
        [] => return Err("names no host".into()),
        [Host::Tcp(host)] => host.clone(),
        [Host::Unix(_)] => return Err("a Unix-socket host is not accepted".into()),
        _ => return Err("names more than one host".into()),
    };
    if host.is_empty() || host.starts_with('/') || host.starts_with('@') {
        return Err("a Unix-socket host is not accepted".into());
    }
    let port = match config.get_ports() {
        [] => 5432,
        [port] => *port,
        _ => return Err("names more than one port".into()),
    };
    let password = config
        .get_password()
        .map(|p| String::from_utf8(p.to_vec()))
        .transpose()
        .map_err(|_| "`password` is not UTF-8".to_owned())?;
    Ok(Target {
        host,
        port,
        user: config.get_user().map(str::to_owned),
        password,
        dbname: config.get_dbname().map(str::to_owned),
        application_name: config.get_application_name().map(str::to_owned),
        tls: match sslmode.as_deref().unwrap_or("prefer") {
            "disable" | "allow" | "prefer" => Tls::Off,
            "require" => Tls::Require,
            "verify-ca" | "verify-full" => Tls::Verify,
            _ => return Err("`sslmode` is not a PostgreSQL sslmode".into()),
        },
        allow_listed: false,
    })
}

/// Refuses a key that is not an accepted option.
fn accepted(key: &str) -> Result<(), String> {
    match key {
        "hostaddr" => Err("`hostaddr` is not accepted".into()),
        key if OPTIONS.contains(&key) => Ok(()),
        other => Err(format!(
            "option `{other}` is not accepted (only {})",
            OPTIONS.join(", ")
        )),
    }
}

/// The URL form's query keys checked and `sslmode` taken out: the URL
/// without it, and its value. Host, user, password and dbname come from
/// the URL's other parts (a `host` in the query is refused).
fn prescan_url(raw: &str) -> Result<(String, Option<String>), String> {
    let Some((base, query)) = raw.split_once('?') else {
        return Ok((raw.to_owned(), None));
    };
    // Segments are kept as written: libpq decodes `%xx` but not `+`.
    let mut sslmode = None;
    let mut kept = Vec::new();
    for segment in query.split('&').filter(|s| !s.is_empty()) {
        let decoded = url::form_urlencoded::parse(segment.as_bytes()).next();
        let (key, value) = decoded.unwrap_or_default();
        if key == "host" {
            return Err("names more than one host (a `host` in the query)".into());
        }
        accepted(&key)?;
        if key == "sslmode" {
            sslmode = Some(value.into_owned());
        } else {
            kept.push(segment);
        }
    }
    if kept.is_empty() {
        Ok((base.to_owned(), sslmode))
    } else {
        Ok((format!("{base}?{}", kept.join("&")), sslmode))
    }
}

/// The key/value form's keys checked (one `host` at most) and `sslmode`
/// taken out: the other pairs, quoted, and its value.
fn prescan_pairs(raw: &str) -> Result<(String, Option<String>), String> {
    let mut sslmode = None;
    let mut hosts = 0;
    let mut kept = String::new();
    for (key, value) in key_value_pairs(raw)? {
        if key == "host" {
            hosts += 1;
            if hosts > 1 {
                return Err("names more than one host".into());
            }
        } else {
            accepted(&key)?;
        }
        if key == "sslmode" {
            sslmode = Some(value);
            continue;
        }
        let quoted = value.replace('\\', r"\\").replace('\'', r"\'");
        kept.push_str(&format!("{key}='{quoted}' "));
    }
    Ok((kept, sslmode))
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
    /// The channels of the notifications the connection `LISTEN`s to, as
    /// they come (at most [`NOTIFICATIONS`] waiting; more are dropped:
    /// a notification is only a doorbell). Closed with the connection.
    pub notifications: tokio::sync::mpsc::Receiver<String>,
    driver: tokio::task::JoinHandle<()>,
}

/// Notifications a connection holds for its reader.
pub const NOTIFICATIONS: usize = 64;

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
        let (ring, notifications) = tokio::sync::mpsc::channel(NOTIFICATIONS);
        let driver = tokio::spawn(async move {
            let mut connection = connection;
            // Driven by its messages (not as a future), so that the
            // server's notifications reach the reader.
            while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                match message {
                    Ok(tokio_postgres::AsyncMessage::Notification(note)) => {
                        let _ = ring.try_send(note.channel().to_owned());
                    }
                    Ok(_) => {}
                    Err(_) => return,
                }
            }
        });
        Self {
            client,
            notifications,
            driver,
        }
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
