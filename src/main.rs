//! The `confer` binary: parses the command line and runs [`confer::serve`].

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
    /// API keys, on a stopped store.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Organizations, on a stopped store.
    #[command(subcommand)]
    Orgs(OrgsCommand),
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
        #[arg(long)]
        org: Option<String>,
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

fn main() -> ExitCode {
    confer::allocator::tune();
    let cli = Cli::parse();
    let settings = match confer::settings::Settings::load(cli.config.as_deref()) {
        Ok(mut settings) => {
            if let Some(dir) = &cli.data_dir {
                settings.data_dir = dir.clone();
            }
            settings
        }
        Err(error) => {
            eprintln!("confer: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    let done = |result: Result<String, confer::cli::CliError>| match result {
        Ok(text) => {
            if !text.is_empty() {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("confer: {error}");
            match error {
                confer::cli::CliError::Failed(_) => ExitCode::FAILURE,
                _ => ExitCode::from(2),
            }
        }
    };
    match cli.command {
        Command::Keys(KeysCommand::Create { name, role, org }) => {
            let role = match role {
                Role::Admin => confer::store::records::KeyRole::Admin,
                Role::Member => confer::store::records::KeyRole::Member,
            };
            done(confer::cli::keys_create(
                &settings,
                &name,
                role,
                org.as_deref(),
            ))
        }
        Command::Keys(KeysCommand::List { org }) => {
            done(confer::cli::keys_list(&settings, org.as_deref()))
        }
        Command::Keys(KeysCommand::Revoke { id }) => done(confer::cli::keys_revoke(&settings, &id)),
        Command::Orgs(OrgsCommand::Create { name }) => {
            done(confer::cli::orgs_create(&settings, &name))
        }
        Command::Orgs(OrgsCommand::List) => done(confer::cli::orgs_list(&settings)),
        Command::Config => {
            match confer::settings::describe(cli.config.as_deref(), cli.data_dir.as_deref()) {
                Ok(text) => {
                    println!("{text}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("confer: invalid configuration: {error}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Serve { bind, port } => {
            let mut settings = settings;
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
    }
}
