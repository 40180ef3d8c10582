//! The `confer` binary: parses the command line (`operations.md`) and runs
//! [`confer::serve`] or one of the operator's commands in [`confer::cli`].

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand};
use confer::cli::remote::Remote;
use confer::cli::{CliError, data, keys};
use confer::settings::Settings;
use confer::store::records::KeyRole;
use secrecy::SecretString;

/// Confer: a self-hosted agent conversation service.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// A TOML file layered over the compiled-in defaults (environment wins over both).
    #[arg(long, global = true, env = "CONFER_CONFIG")]
    config: Option<PathBuf>,
    /// The data directory (wins over `CONFER_DATA_DIR` and the file).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// A running server to work through instead of the data directory.
#[derive(Args)]
struct RemoteArgs {
    /// The running server's base URL (e.g. http://127.0.0.1:8080).
    #[arg(long)]
    url: Option<String>,
    /// The admin key to call it with (platform admin for backup, export, check).
    #[arg(
        long,
        env = "CONFER_ADMIN_KEY",
        hide_env_values = true,
        requires = "url"
    )]
    key: Option<String>,
}

impl RemoteArgs {
    fn remote(self) -> Result<Option<Remote>, CliError> {
        match (self.url, self.key) {
            (None, _) => Ok(None),
            (Some(_), None) => Err(CliError::Usage(
                "--url needs an admin key: --key or CONFER_ADMIN_KEY".into(),
            )),
            (Some(url), Some(key)) => Ok(Some(Remote {
                url,
                key: SecretString::from(key),
            })),
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server.
    Serve {
        /// The address to listen on, `HOST:PORT` (wins over `CONFER_BIND`).
        #[arg(long)]
        bind: Option<String>,
        /// The port to listen on, on the configured host.
        #[arg(long)]
        port: Option<u16>,
    },
    /// Print the effective settings as TOML with their sources (secrets redacted).
    Config,
    /// API keys (on a stopped store, or `--url` for `create`).
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Organizations, on a stopped store.
    #[command(subcommand)]
    Orgs(OrgsCommand),
    /// A consistent snapshot as one tar + zstd file with a checksummed manifest.
    Backup {
        #[arg(long)]
        out: PathBuf,
        /// Put the secret key in the backup (then keep it as safe as the data).
        #[arg(long)]
        include_secret_key: bool,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// Restore a backup into the (empty) data directory, verified first.
    Restore {
        #[arg(long)]
        from: PathBuf,
    },
    /// The store as JSON Lines (agents, threads, messages, usage), no secrets.
    Export {
        /// The file to write (`-`: standard output).
        #[arg(long)]
        out: PathBuf,
        /// One org, by name or id.
        #[arg(long)]
        org: Option<String>,
        /// Records created or changed at or after this instant (RFC 3339).
        #[arg(long)]
        since: Option<DateTime<Utc>>,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// Verify indexes, records and secrets; print counts and the manifest;
    /// exit 1 on a problem.
    Check {
        #[command(flatten)]
        remote: RemoteArgs,
        /// A PostgreSQL store to check (beside its live nodes) instead of
        /// the data directory; `CONFER_STORE` when set.
        #[arg(long, conflicts_with = "url")]
        store: Option<String>,
    },
    /// Copy a stopped sled store into an empty PostgreSQL database.
    Migrate {
        /// The sled store's data directory.
        #[arg(long)]
        from: PathBuf,
        /// The PostgreSQL database (`postgres://…`).
        #[arg(long)]
        to: String,
        /// Empty the database first (refused while a node serves it).
        #[arg(long)]
        replace: bool,
    },
    /// Print the API description (OpenAPI 3.1 JSON) without a store or a server.
    Openapi {
        /// The file to write (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// (Internal) parse one knowledge file in this child process, under a
    /// memory limit; the server runs it and reads `--out`.
    #[command(hide = true)]
    KnowledgeParse {
        #[arg(long)]
        kind: String,
        #[arg(long)]
        max_text_bytes: usize,
        #[arg(long)]
        out: PathBuf,
        input: PathBuf,
    },
    /// (Internal) the helper inside a local computer sandbox: requests on
    /// standard input, replies on standard output (`computer.md` §1).
    #[command(hide = true)]
    SandboxAgent,
}

#[derive(Subcommand)]
enum KeysCommand {
    /// Create a key and print its secret once.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_enum, default_value = "admin")]
        role: Role,
        /// The org's name or id (default: `default`, else the oldest org).
        #[arg(long, conflicts_with = "url")]
        org: Option<String>,
        #[command(flatten)]
        remote: RemoteArgs,
    },
    /// List an org's keys (never their secrets).
    List {
        #[arg(long)]
        org: Option<String>,
    },
    /// Revoke a key: it is refused from then on.
    Revoke { id: String },
}

#[derive(Subcommand)]
enum OrgsCommand {
    /// Create an organization.
    Create { name: String },
    /// List the organizations, oldest first.
    List,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Role {
    Admin,
    Member,
}

impl From<Role> for KeyRole {
    fn from(role: Role) -> Self {
        match role {
            Role::Admin => KeyRole::Admin,
            Role::Member => KeyRole::Member,
        }
    }
}

/// Prints a command's outcome and gives its exit code (2: usage or a store
/// in use, 1: anything else).
fn finish(result: Result<String, CliError>) -> ExitCode {
    match result {
        Ok(text) => {
            if !text.is_empty() {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("confer: {error}");
            match error {
                CliError::Failed(_) => ExitCode::FAILURE,
                _ => ExitCode::from(2),
            }
        }
    }
}

fn run(command: Command, settings: Settings) -> Result<String, CliError> {
    match command {
        Command::Keys(KeysCommand::Create {
            name,
            role,
            org,
            remote,
        }) => match remote.remote()? {
            Some(remote) => {
                confer::cli::remote::keys_create(&settings, &remote, &name, role.into())
            }
            None => keys::keys_create(&settings, &name, role.into(), org.as_deref()),
        },
        Command::Keys(KeysCommand::List { org }) => keys::keys_list(&settings, org.as_deref()),
        Command::Keys(KeysCommand::Revoke { id }) => keys::keys_revoke(&settings, &id),
        Command::Orgs(OrgsCommand::Create { name }) => keys::orgs_create(&settings, &name),
        Command::Orgs(OrgsCommand::List) => keys::orgs_list(&settings),
        Command::Backup {
            out,
            include_secret_key,
            remote,
        } => data::backup(
            &settings,
            &out,
            include_secret_key,
            remote.remote()?.as_ref(),
        ),
        Command::Restore { from } => data::restore(&settings, &from),
        Command::Export {
            out,
            org,
            since,
            remote,
        } => data::export(
            &settings,
            &out,
            org.as_deref(),
            since,
            remote.remote()?.as_ref(),
        ),
        Command::Check { remote, store } => {
            data::check(&settings, remote.remote()?.as_ref(), store.as_deref())
        }
        Command::Migrate { from, to, replace } => {
            confer::cli::cluster::migrate(&settings, &from, &to, replace)
        }
        Command::Serve { .. }
        | Command::Config
        | Command::KnowledgeParse { .. }
        | Command::SandboxAgent
        | Command::Openapi { .. } => Ok(String::new()),
    }
}

fn serve(mut settings: Settings, bind: Option<String>, port: Option<u16>) -> ExitCode {
    if let Some(bind) = bind {
        settings.bind = bind;
    }
    if let Some(port) = port {
        settings.bind = confer::with_port(&settings.bind, port);
    }
    confer::telemetry::init(&settings);
    let listener = match confer::bind(&settings) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("confer: {error:#}");
            return ExitCode::from(2);
        }
    };
    let result = actix_web::rt::System::new().block_on(confer::serve(settings, listener));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(error = format!("{error:#}"), "confer stopped");
            eprintln!("confer: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    confer::allocator::tune();
    let cli = Cli::parse();
    // The sandbox's helper reads no settings: inside, none exist.
    if let Command::SandboxAgent = &cli.command {
        return ExitCode::from(u8::try_from(confer::computer::agent::run()).unwrap_or(2));
    }
    // The parser child needs no settings: it must start even when the
    // service's configuration is being changed under it.
    if let Command::KnowledgeParse {
        kind,
        max_text_bytes,
        out,
        input,
    } = &cli.command
    {
        return knowledge_parse(kind, *max_text_bytes, out, input);
    }
    // The description needs no settings either: SDK generation runs it on
    // a machine that has never configured a server.
    if let Command::Openapi { out } = &cli.command {
        return finish(openapi(out.as_deref()));
    }
    let mut settings = match Settings::load(cli.config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("confer: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &cli.data_dir {
        settings.data_dir = dir.clone();
    }
    match cli.command {
        Command::Serve { bind, port } => serve(settings, bind, port),
        Command::Config => finish(
            confer::settings::describe(cli.config.as_deref(), cli.data_dir.as_deref())
                .map_err(|e| CliError::Usage(format!("invalid configuration: {e}"))),
        ),
        command => finish(run(command, settings)),
    }
}

/// `confer openapi`: the document as pretty JSON, to `out` or standard output.
fn openapi(out: Option<&Path>) -> Result<String, CliError> {
    let json = confer::api::openapi::document()
        .and_then(|doc| serde_json::to_string_pretty(&doc).map_err(|e| e.to_string()))
        .map_err(|e| CliError::Failed(anyhow::anyhow!("the API description: {e}")))?;
    match out {
        None => Ok(json),
        Some(path) => std::fs::write(path, json + "\n")
            .map(|()| String::new())
            .map_err(|e| CliError::Failed(anyhow::anyhow!("{}: {e}", path.display()))),
    }
}

/// `confer knowledge-parse`: exit 0 with an answer in `out`, 2 on bad use.
fn knowledge_parse(kind: &str, max_text_bytes: usize, out: &Path, input: &Path) -> ExitCode {
    let Ok(kind) = serde_json::from_value(serde_json::Value::String(kind.to_owned())) else {
        eprintln!("confer knowledge-parse: unknown kind {kind}");
        return ExitCode::from(2);
    };
    match confer::knowledge::parse::child_main(kind, input, out, max_text_bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("confer knowledge-parse: {error}");
            ExitCode::from(1)
        }
    }
}
