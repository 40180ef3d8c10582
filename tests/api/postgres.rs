//! A real PostgreSQL for the integration tests (the Debian package,
//! installed by `tests/peers/install`): a fresh cluster in a temporary
//! directory, listening on 127.0.0.1 on a free port and on a socket in that
//! directory, stopped and removed on drop. PostgreSQL refuses to run as
//! root, so as root the cluster is made and run by the `postgres` user.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::eventually;

/// A running cluster; its superuser is `confer`, reached over the socket
/// without a password, and over TCP with one.
pub struct Postgres {
    child: Child,
    dir: tempfile::TempDir,
    pub port: u16,
}

/// The directory of PostgreSQL's programs (`initdb`, `postgres`).
fn bin_dir() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path().join("bin"))
                .filter(|bin| bin.join("initdb").exists())
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions
        .pop()
        .expect("PostgreSQL is not installed (run `tests/peers/install`)")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program` run as the `postgres` user when we are root.
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

impl Postgres {
    /// Makes and starts a cluster without `fsync` (a test's data need not
    /// outlive a crash); returns once it answers.
    pub async fn start() -> Self {
        Self::start_with_fsync(false).await
    }

    /// Makes and starts a cluster, with `fsync` as given (on for a
    /// benchmark's figures); returns once it answers.
    pub async fn start_with_fsync(fsync: bool) -> Self {
        Self::start_with(fsync, &[]).await
    }

    /// Makes and starts a cluster, with `fsync` as given and the server
    /// settings `settings` (`name=value`); returns once it answers.
    pub async fn start_with(fsync: bool, settings: &[&str]) -> Self {
        let bin = bin_dir();
        let dir = tempfile::tempdir().unwrap();
        if is_root() {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(status.success(), "chown the cluster's directory");
        }
        let data = dir.path().join("data");
        let password_file = dir.path().join("pw");
        std::fs::write(&password_file, "superuser-pw-31\n").unwrap();
        if is_root() {
            Command::new("chown")
                .arg("postgres:postgres")
                .arg(&password_file)
                .status()
                .unwrap();
        }
        let output = as_owner(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "confer",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
            ])
            .arg(format!("--pwfile={}", password_file.display()))
            .args(["-E", "UTF8", "--no-sync"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let port = free_port();
        let child = as_owner(&bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-k"])
            .arg(dir.path())
            .args(["-c", "listen_addresses=127.0.0.1", "-c"])
            .arg(if fsync { "fsync=on" } else { "fsync=off" })
            .args(settings.iter().flat_map(|setting| ["-c", setting]))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let postgres = Self { child, dir, port };
        eventually(Duration::from_secs(30), "PostgreSQL answers", async || {
            postgres.try_admin().await
        })
        .await;
        postgres
    }

    async fn try_admin(&self) -> Option<tokio_postgres::Client> {
        self.try_connect("postgres").await
    }

    async fn try_connect(&self, database: &str) -> Option<tokio_postgres::Client> {
        let mut config = tokio_postgres::Config::new();
        config
            .host_path(self.dir.path())
            .port(self.port)
            .user("confer")
            .dbname(database);
        let (client, connection) = config.connect(tokio_postgres::NoTls).await.ok()?;
        tokio::spawn(connection);
        Some(client)
    }

    /// The superuser, over the socket.
    pub async fn admin(&self) -> tokio_postgres::Client {
        self.try_admin().await.expect("the superuser connects")
    }

    /// The superuser on database `name`, over the socket: to read what a
    /// store wrote as it lies in its tables.
    pub async fn admin_of(&self, name: &str) -> tokio_postgres::Client {
        self.try_connect(name)
            .await
            .expect("the superuser connects")
    }

    /// A new database `name`, and its `postgres://` URL over TCP with
    /// the superuser's password.
    pub async fn database(&self, name: &str) -> String {
        self.admin()
            .await
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        format!(
            "postgres://confer:superuser-pw-31@127.0.0.1:{}/{name}",
            self.port
        )
    }

    /// The socket directory (for a connection string a test must refuse).
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // `runuser` does not pass a kill on: the server is stopped by its
        // own tool, then the wrapper reaped.
        let _ = as_owner(&bin_dir().join("pg_ctl"))
            .arg("stop")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-s"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
