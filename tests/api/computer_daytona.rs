//! The daytona runtime (`computer.md` Acceptance 7) against
//! `tests/peers/daytona_mock.py`: a sandbox made with the instance's labels
//! and polled until started, commands as `timeout -k 5` of their base64,
//! the editor's files, stop and start again with the files kept, the sweep
//! of labelled sandboxes no instance names at start, the delete with the
//! thread, and a refused key.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::eventually;
use crate::computer::{call, run};
use crate::computer_hosted::{Hosted, coder};
use crate::mock::Mock;

#[tokio::test]
async fn an_agent_works_in_a_daytona_sandbox_that_stops_and_starts_again() {
    let daytona = Hosted::start("daytona_mock.py");
    let vendor = Mock::start("/v1").await;
    let key = ("DAYTONA_API_KEY", "daytona-good");
    let server = daytona.server(&vendor, key, &["DAYTONA_API_URL"]);
    let api = server.admin();
    let agent = coder(&api, "daytona").await;
    let thread = api.thread(&agent, json!({})).await;

    let ran = run(
        &api,
        &vendor,
        &thread,
        "echo \"$GREETING\" > note.txt; cat note.txt; pwd; exit 3",
    )
    .await;
    assert_eq!(ran["exit_code"], 3, "{ran}");
    let stdout = ran["stdout"].as_str().unwrap();
    assert!(
        stdout.starts_with("hello\n") && stdout.ends_with("/home/daytona/workspace\n"),
        "{stdout}"
    );
    let instance = api
        .get(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200)["instance"]
        .clone();
    assert_eq!(instance["runtime"], "daytona");
    assert_eq!(instance["workspace_path"], "/home/daytona/workspace");
    let made: Vec<_> = daytona
        .calls("/sandbox")
        .await
        .into_iter()
        .filter(|c| c["method"] == "POST" && c["path"] == "/sandbox")
        .collect();
    assert_eq!(made[0]["body"]["networkBlockAll"], true);
    assert_eq!(made[0]["body"]["labels"]["confer_instance"], instance["id"]);

    call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "create", "path": "src/a.txt", "file_text": "one\n"}),
    )
    .await;
    let listed = call(
        &api,
        &vendor,
        &thread,
        "computer_edit",
        json!({"command": "view", "path": "."}),
    )
    .await;
    assert_eq!(listed["entries"], json!(["note.txt", "src/", "src/a.txt"]));
    let slow = call(
        &api,
        &vendor,
        &thread,
        "computer_run",
        json!({"command": "sleep 30", "timeout": 1}),
    )
    .await;
    assert_eq!(slow["error"], "timeout after 1 s", "{slow}");

    // Turned off: stopped; on again: started, files kept.
    let path = format!("/api/agents/{agent}/computer");
    api.put(&path, json!({"enabled": false})).await.expect(200);
    let states = daytona.record().await["sandboxes"].clone();
    assert_eq!(
        states.as_object().unwrap().values().collect::<Vec<_>>(),
        [&json!("stopped")]
    );
    api.put(&path, json!({"enabled": true})).await.expect(200);
    let again = run(&api, &vendor, &thread, "cat src/a.txt").await;
    assert_eq!(again["stdout"], "one\n", "{again}");
    // An orphan labelled with this installation goes at the next start;
    // the instance's own, left running by the kill, is stopped.
    let orphan: Value = reqwest::Client::new()
        .post(format!("{}/sandbox", daytona.base))
        .bearer_auth("daytona-good")
        .json(
            &json!({"class": "small", "env": {}, "public": false, "networkBlockAll": true,
            "labels": {"confer_install": made[0]["body"]["labels"]["confer_install"],
                       "confer_instance": "00000000-0000-4000-8000-000000000000"}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let orphan = orphan["id"].as_str().unwrap().to_owned();
    let server = server.kill_and_restart();
    let api = server.admin();
    let kept = eventually(Duration::from_secs(20), "the orphan gone", async || {
        let record = daytona.record().await;
        let kept = record["sandboxes"].as_object().unwrap().clone();
        (!kept.contains_key(&orphan)).then_some(kept)
    })
    .await;
    assert_eq!(kept.values().collect::<Vec<_>>(), [&json!("stopped")]);
    api.delete(&format!("/api/threads/{thread}/computer"))
        .await
        .expect(200);
    assert_eq!(daytona.record().await["sandboxes"], json!({}));
    drop(server);

    // A refused key: the error result, a failed instance.
    let server = daytona.server(
        &vendor,
        ("DAYTONA_API_KEY", "revoked"),
        &["DAYTONA_API_URL"],
    );
    let api = server.admin();
    let agent = coder(&api, "daytona").await;
    let thread = api.thread(&agent, json!({})).await;
    let refused = run(&api, &vendor, &thread, "true").await;
    let error = refused["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("computer failed to start: daytona refused the API key"),
        "{refused}"
    );
    daytona.record().await;
}
