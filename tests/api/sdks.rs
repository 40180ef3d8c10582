//! The SDKs (sdks.md "Acceptance"): each SDK's own suite (`npm test`,
//! `pytest`) runs against a real Confer started here, on `builtin/echo`
//! with 200 ms between tokens and aimock behind `CONFER_TOOL_MODEL`; the
//! Python SDK's hand-written modules pass `mypy --strict` and `ruff check`;
//! and `sdks/generate --check` fails when the committed SDKs are not the
//! generation of this API (`.ci/run` runs the clean check).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{BOOTSTRAP_KEY, Options, Server};
use crate::third_party::ThirdPartyMock;

fn sdks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sdks")
}

/// Runs `program` in `dir` and gives (what, output).
fn run(what: &str, dir: &Path, program: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    assert!(
        program.exists() || !program.is_absolute(),
        "{} is missing: run `tests/peers/install` first (the README's test command does)",
        program.display()
    );
    let mut command = Command::new(program);
    command.current_dir(dir).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"))
}

fn assert_passed(what: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test]
async fn both_sdks_pass_their_own_suites_against_a_real_server() {
    let mock = ThirdPartyMock::aimock("sdk-tools.json");
    let server = Server::start_with(
        Options::default()
            .env("CONFER_BUILTIN_DELAY_MS", "200")
            .env("ANTHROPIC_BASE_URL", &mock.base)
            .env("ANTHROPIC_API_KEY", "sk-aimock"),
    );
    let env = [
        ("CONFER_URL", server.base.as_str()),
        ("CONFER_API_KEY", BOOTSTRAP_KEY),
        ("CONFER_TOOL_MODEL", "claude-sonnet-4-6"),
    ];
    let typescript = sdks().join("typescript");
    let python = sdks().join("python");
    let venv = python.join(".venv/bin");
    // The suites share the server and run side by side: each makes its own
    // agents and threads.
    let results = std::thread::scope(|scope| {
        let npm = scope.spawn(|| {
            run(
                "npm test",
                &typescript,
                Path::new("npm"),
                &["test", "--silent"],
                &env,
            )
        });
        let pytest = scope.spawn(|| run("pytest", &python, &venv.join("pytest"), &["-q"], &env));
        let mypy = run("mypy --strict", &python, &venv.join("mypy"), &[], &[]);
        let ruff = run(
            "ruff check",
            &python,
            &venv.join("ruff"),
            &["check", "."],
            &[],
        );
        [
            ("npm test", npm.join().expect("npm test ran")),
            ("pytest", pytest.join().expect("pytest ran")),
            ("mypy --strict", mypy),
            ("ruff check", ruff),
        ]
    });
    for (what, output) in &results {
        assert_passed(what, output);
    }
    // Every test ran: none skipped (a missing variable skips nothing; it fails).
    let pytest = String::from_utf8_lossy(&results[1].1.stdout);
    assert!(
        pytest.contains(" passed") && !pytest.contains("skipped"),
        "{pytest}"
    );
}

/// A committed copy whose document lacks a field the API has: the check
/// names the file and exits 1.
#[tokio::test]
async fn the_generation_check_fails_when_the_committed_sdks_lag_the_api() {
    let copy = tempfile::tempdir().unwrap();
    let status = Command::new("sh")
        .arg("-c")
        .arg(
            "tar -C \"$1\" --exclude=node_modules --exclude=.venv --exclude=dist \
             --exclude=__pycache__ -cf - . | tar -C \"$2\" -xf -",
        )
        .args([
            "sh",
            sdks().to_str().unwrap(),
            copy.path().to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let document = copy.path().join("openapi.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&document).unwrap()).unwrap();
    let removed = doc["components"]["schemas"]["CreateAgent"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("description");
    assert!(removed.is_some(), "the committed document has the field");
    std::fs::write(&document, serde_json::to_string_pretty(&doc).unwrap()).unwrap();

    let output = run(
        "sdks/generate --check",
        &sdks(),
        &sdks().join("generate"),
        &["--check", copy.path().to_str().unwrap()],
        &[("CONFER_BIN", env!("CARGO_BIN_EXE_confer"))],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("openapi.json"), "{stderr}");
}

/// Both SDKs install from the repository with the registries' ordinary
/// clients, as their READMEs say: `pip install sdks/python` into a fresh
/// virtualenv, and the tarball `npm pack` makes installed into a new
/// package; each then imports and names its version.
#[tokio::test]
async fn both_sdks_install_from_the_repository_with_pip_and_npm() {
    let dir = tempfile::tempdir().unwrap();
    // pip builds in its source directory: a copy keeps the tree clean.
    let source = dir.path().join("python-sdk");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(sdks().join("python"))
        .arg(&source)
        .status()
        .unwrap();
    assert!(copied.success());
    let _ = std::fs::remove_dir_all(source.join(".venv"));
    let venv = dir.path().join("venv");
    let made = run(
        "venv",
        dir.path(),
        Path::new("python3"),
        &["-m", "venv", venv.to_str().unwrap()],
        &[],
    );
    assert_passed("python3 -m venv", &made);
    let pip = venv.join("bin/pip");
    let installed = run(
        "pip install",
        dir.path(),
        &pip,
        &["install", "--quiet", source.to_str().unwrap()],
        &[],
    );
    assert_passed("pip install sdks/python", &installed);
    let imported = run(
        "import confer",
        dir.path(),
        &venv.join("bin/python"),
        &[
            "-c",
            "import confer; print(confer.VERSION, confer.Confer.__name__)",
        ],
        &[],
    );
    assert_passed("import confer", &imported);
    assert!(String::from_utf8_lossy(&imported.stdout).contains("Confer"));

    let packed = run(
        "npm pack",
        &sdks().join("typescript"),
        Path::new("npm"),
        &[
            "pack",
            "--silent",
            "--pack-destination",
            dir.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_passed("npm pack", &packed);
    let tarball = String::from_utf8_lossy(&packed.stdout)
        .trim()
        .lines()
        .last()
        .unwrap()
        .to_owned();
    let app = dir.path().join("app");
    std::fs::create_dir(&app).unwrap();
    std::fs::write(
        app.join("package.json"),
        r#"{"name": "app", "private": true, "type": "module"}"#,
    )
    .unwrap();
    let added = run(
        "npm install",
        &app,
        Path::new("npm"),
        &[
            "install",
            "--silent",
            "--no-audit",
            "--no-fund",
            dir.path().join(&tarball).to_str().unwrap(),
        ],
        &[],
    );
    assert_passed("npm install confer-sdk", &added);
    let imported = run(
        "import confer-sdk",
        &app,
        Path::new("node"),
        &[
            "--input-type=module",
            "-e",
            "const m = await import('confer-sdk'); console.log(m.VERSION, typeof m.Confer, typeof m.agentsCreate)",
        ],
        &[],
    );
    assert_passed("import confer-sdk", &imported);
    assert!(
        String::from_utf8_lossy(&imported.stdout).contains("function function"),
        "{}",
        String::from_utf8_lossy(&imported.stdout)
    );
}
