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
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP server.
    Serve,
    /// Print the effective configuration (secrets redacted) and exit.
    Config,
}

fn main() -> ExitCode {
    confer::allocator::tune();
    let cli = Cli::parse();
    let settings = match confer::settings::Settings::load(cli.config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("confer: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Config => {
            println!("{settings:#?}");
            ExitCode::SUCCESS
        }
        Command::Serve => {
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
