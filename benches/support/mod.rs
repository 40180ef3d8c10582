//! What the benchmark binaries share: starting the real `confer` binary and
//! waiting for it to listen (its "confer listening on" line, never a sleep).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A `confer serve` command on port 0 and `data_dir`, ready for more settings.
pub fn confer_command(data_dir: &std::path::Path, key: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_confer"));
    command
        .arg("serve")
        .env("CONFER_BIND", "127.0.0.1:0")
        .env("CONFER_DATA_DIR", data_dir)
        .env("CONFER_BOOTSTRAP_API_KEY", key)
        .env("CONFER_LOG", "warn");
    command
}

/// Spawns `command`, returns the child and its base URL once it listens;
/// the rest of its standard output is drained so it never blocks.
pub fn spawn_listening(mut command: Command) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .expect("start confer");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let base = loop {
        let line = lines.next().expect("confer output").expect("line");
        if let Some(address) = line.strip_prefix("confer listening on ") {
            break address.to_owned();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, base)
}
