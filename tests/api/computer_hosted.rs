//! The hosted runtimes (`computer.md` Acceptance 7) against
//! `tests/peers/e2b_mock.py` (here) and `daytona_mock.py`
//! (`computer_daytona.rs`), which record any request unlike the vendor's
//! documents as an error. At e2b: a sandbox made with the instance's metadata,
//! commands over Connect (SIGKILL on a timeout), the editor's files, the
//! pause when the computer is turned off and the resume found by metadata,
//! the delete with the thread, the sweep of sandboxes no instance names
//! at start, and a refused key as an error result and a
//! `failed` instance.

use std::process::Child;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Api, Options, Server, eventually, python_peer};
use crate::computer::{call, run};
use crate::mock::Mock;

/// A hosted vendor's mock, killed on drop.
pub(crate) struct Hosted {
    child: Child,
    pub(crate) base: String,
    port: u16,
}

impl Drop for Hosted {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Hosted {
    pub(crate) fn start(script: &str) -> Self {
        let (child, port) = python_peer(script);
        Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
        }
    }

    /// A server on the model mock and this vendor, with `key` and its
    /// URLs (`E2B_API_URL`…) pointing here.
    pub(crate) fn server(&self, vendor: &Mock, key: (&str, &str), urls: &[&str]) -> Server {
        let mut options = Options::default()
            .env("OPENAI_BASE_URL", &vendor.base)
            .env("OPENAI_API_KEY", "sk-openai")
            .env(key.0, key.1)
            .env("CONFER_OUTBOUND_ALLOW", &format!("127.0.0.1:{}", self.port));
        for url in urls {
            options = options.env(url, &self.base);
        }
        Server::start_with(options)
    }

    pub(crate) fn e2b(&self, vendor: &Mock, key: &str) -> Server {
        self.server(
            vendor,
            ("E2B_API_KEY", key),
            &["E2B_API_URL", "E2B_SANDBOX_URL"],
        )
    }

    /// The mock's record; its errors asserted empty.
    pub(crate) async fn record(&self) -> Value {
        let answer: Value = reqwest::get(format!("{}/_calls", self.base))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(answer["errors"], json!([]), "requests unlike e2b's");
        answer
    }

    /// The calls whose path starts with `prefix`.
    pub(crate) async fn calls(&self, prefix: &str) -> Vec<Value> {
        self.record().await["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["path"].as_str().unwrap().starts_with(prefix))
            .cloned()
            .collect()
    }
}

pub(crate) async fn coder(api: &Api, runtime: &str) -> String {
    let agent = api
        .agent_with(json!({"name": "Coder", "defaultModel": "openai/gpt-4.1"}))
        .await;
    api.patch(
        &format!("/api/agents/{agent}"),
        json!({"runtimeProvider": runtime}),
    )
    .await
    .expect(200);
    let config = api
        .put(
            &format!("/api/agents/{agent}/computer"),
            json!({"enabled": true, "env": {"GREETING": "hello"}}),
        )
        .await
        .expect(200);
    assert_eq!(config["effective_runtime"], runtime, "{config}");
    assert_eq!(config["available"], true, "{config}");
    agent
}

#[tokio::test]
async fn an_agent_works_in_an_e2b_sandbox_that_pauses_resumes_and_goes_with_its_thread() {
    let e2b = Hosted::start("e2b_mock.py");
    let vendor = Mock::start("/v1").await;
    let server = e2b.e2b(&vendor, "e2b-good");
    let api = server.admin();
    let agent = coder(&api, "e2b").await;
    let thread = api.thread(&agent, json!({})).await;

    let ran = run(
        &api,
        &vendor,
        &thread,
        "echo \"$GREETING\" > note.txt; cat note.txt; pwd; echo oops >&2; exit 3",
    )
    .await;
    assert_eq!(ran["exit_code"], 3, "{ran}");
    assert_eq!(ran["stderr"], "oops\n");
    let stdout = ran["stdout"].as_str().unwrap();
    assert!(
        stdout.starts_with("hello\n") && stdout.ends_with("/home/user/workspace\n"),
        "{stdout}"
    );
    let created = e2b.calls("/sandboxes").await;
    assert_eq!(created[0]["body"]["templateID"], "base");
    assert_eq!(created[0]["body"]["allow_internet_access"], false);
    let instance = api
        .get(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200)["instance"]
        .clone();
    assert_eq!(instance["runtime"], "e2b");
    assert_eq!(instance["limits_mode"], "vendor");
    assert_eq!(instance["workspace_path"], "/home/user/workspace");
    assert_eq!(
        created[0]["body"]["metadata"]["confer_instance"],
        instance["id"]
    );
    // The command's envs reached envd; the access token did not reach
    // the model.
    let started = e2b.calls("/process.Process/Start").await;
    assert_eq!(
        started.last().unwrap()["body"]["process"]["envs"]["GREETING"],
        "hello"
    );

    // The editor's files through envd's /files.
    let made = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "create", "path": "src/main.py", "file_text": "a = 1\nb = 2\n"}),
    )
    .await;
    assert_eq!(made, json!("created src/main.py (2 lines)"));
    let replaced = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "str_replace", "path": "src/main.py", "old_str": "b = 2", "new_str": "b = 40"}),
    )
    .await;
    assert!(replaced.to_string().contains("b = 40"), "{replaced}");
    let listed = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "view", "path": "."}),
    )
    .await;
    assert_eq!(
        listed["entries"],
        json!(["note.txt", "src/", "src/main.py"])
    );

    // A command past its timeout is killed with SIGKILL.
    let slow = call(
        &api,
        &vendor,
        &thread,
        "computer_run",
        json!({"command": "sleep 30", "timeout": 1}),
    )
    .await;
    assert_eq!(slow["error"], "timeout after 1 s", "{slow}");
    let killed = e2b.calls("/process.Process/SendSignal").await;
    assert_eq!(killed.len(), 1);
    assert_eq!(killed[0]["body"]["signal"], "SIGNAL_SIGKILL");

    // Turned off: paused; on again, the same sandbox is found by its
    // metadata and connected, with its files.
    let path = format!("/api/agents/{agent}/computer");
    api.put(&path, json!({"enabled": false})).await.expect(200);
    let sandbox = created[0]["body"]["metadata"]["confer_instance"].clone();
    assert_eq!(sandbox, instance["id"]);
    let record = e2b.record().await;
    let states: Vec<_> = record["sandboxes"].as_object().unwrap().values().collect();
    assert_eq!(states, [&json!("paused")]);
    api.put(&path, json!({"enabled": true})).await.expect(200);
    let again = run(&api, &vendor, &thread, "cat src/main.py").await;
    assert_eq!(again["stdout"], "a = 1\nb = 40\n", "{again}");
    let creations = e2b.calls("/sandboxes").await;
    let creations = creations.iter().filter(|c| c["path"] == "/sandboxes");
    assert_eq!(creations.count(), 1, "no second sandbox");
    assert!(
        !e2b.calls("/v2/sandboxes?metadata=confer_instance")
            .await
            .is_empty()
    );
    assert_eq!(
        e2b.calls("/sandboxes/")
            .await
            .iter()
            .filter(|c| c["path"].as_str().unwrap().ends_with("/connect"))
            .count(),
        1
    );

    // A sandbox tagged with this installation that no instance names (a
    // crash between e2b's create and the record) goes at the next start;
    // the instance's own stays.
    let orphan: Value = reqwest::Client::new()
        .post(format!("{}/sandboxes", e2b.base))
        .header("X-API-Key", "e2b-good")
        .json(&json!({"templateID": "base", "timeout": 60, "secure": true,
            "allow_internet_access": false, "envVars": {},
            "metadata": {"confer_install": created[0]["body"]["metadata"]["confer_install"],
                         "confer_instance": "00000000-0000-4000-8000-000000000000"}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let orphan = orphan["sandboxID"].as_str().unwrap().to_owned();
    let server = server.kill_and_restart();
    let api = server.admin();
    // The instance's own, left running by the kill, is paused.
    let kept = eventually(Duration::from_secs(20), "the orphan gone", async || {
        let record = e2b.record().await;
        let kept = record["sandboxes"].as_object().unwrap().clone();
        (!kept.contains_key(&orphan)).then_some(kept)
    })
    .await;
    assert_eq!(kept.values().collect::<Vec<_>>(), [&json!("paused")]);

    // Deleted with its thread.
    api.delete(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200);
    let record = e2b.record().await;
    assert_eq!(record["sandboxes"], json!({}));
}

#[tokio::test]
async fn a_refused_e2b_key_is_an_error_result_and_a_failed_instance() {
    let e2b = Hosted::start("e2b_mock.py");
    let vendor = Mock::start("/v1").await;
    let server = e2b.e2b(&vendor, "e2b-revoked");
    let api = server.admin();
    let agent = coder(&api, "e2b").await;
    let thread = api.thread(&agent, json!({})).await;
    let ran = run(&api, &vendor, &thread, "true").await;
    let error = ran["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("computer failed to start: e2b refused the API key"),
        "{ran}"
    );
    assert!(!error.contains("e2b-revoked"), "{error}");
    let instance = api
        .get(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200)["instance"]
        .clone();
    assert_eq!(instance["state"], "failed");
    e2b.record().await;
}
