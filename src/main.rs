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

/// Allocations of at least this size get pages of their own from the kernel.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD_BYTES: libc::c_int = 64 * 1024;

/// Pins glibc's mmap threshold. By default glibc raises the threshold to the
/// size of each large block freed, so after the first few long messages every
/// later one comes from the heap arenas, which a long-lived server cannot
/// give back: 150 abandoned turns of 250 KiB questions and 1 MiB answers left
/// RSS 118 MiB up with 34 MiB live; with the threshold pinned, 37 MiB up
/// (docs/performance.md).
#[allow(unsafe_code)]
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it runs before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
    }
}

fn main() -> ExitCode {
    tune_allocator();
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
