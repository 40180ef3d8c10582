//! stdio MCP servers as a privilege boundary (issue 32, point 1): what a
//! child runs is decided by platform admins and the operator alone. An org
//! admin cannot change a stdio server's env (which could make the allowed
//! command load code of their choosing: `LD_PRELOAD`, `NODE_OPTIONS`, …),
//! a platform admin can set only the variable names the operator allowed,
//! and the child runs as another user, in a home outside the data
//! directory, which it cannot read.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;

use crate::common::eventually;
use crate::mcp::{confer, status_of};
use crate::mock::Mock;

/// A child that writes what it can see to `$PROBE_OUT`, then stays up.
const PROBE: &str = r#"#!/bin/sh
{
  echo "uid=$(id -u)"
  echo "home=$HOME"
  echo "cwd=$(pwd)"
  if ls "$PROBE_DATA" >/dev/null 2>&1; then echo "data=readable"; else echo "data=denied"; fi
  if [ -n "$LD_PRELOAD" ]; then echo "preload=$LD_PRELOAD"; fi
} > "$PROBE_OUT.tmp" && mv "$PROBE_OUT.tmp" "$PROBE_OUT"
exec sleep 60
"#;

fn running_as_root() -> bool {
    std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

#[tokio::test]
async fn a_stdio_servers_env_is_a_platform_admins_and_its_child_cannot_read_the_data_directory() {
    // Readable and traversable by the child's user: the script, its output
    // folder and the homes' parent.
    let scratch = tempfile::tempdir().unwrap();
    std::fs::set_permissions(scratch.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = scratch.path().join("probe.sh");
    std::fs::write(&script, PROBE).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out_dir = scratch.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::set_permissions(&out_dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let homes = scratch.path().join("homes");
    let script = script.display().to_string();
    let allow = json!([["/bin/sh", script]]).to_string();

    let vendor = Mock::start("/v1").await;
    let server = confer(
        &vendor,
        &[
            ("CONFER_MCP_STDIO_ALLOW", allow.as_str()),
            ("CONFER_MCP_STDIO_ENV_ALLOW", "PROBE_OUT,PROBE_DATA"),
            ("CONFER_MCP_STDIO_HOMES", homes.to_str().unwrap()),
        ],
    );
    let data_dir = server.data_dir().canonicalize().unwrap();
    let platform = server.admin();
    let org_admin_key = platform.new_key("admin").await;
    let org_admin = server.api(&org_admin_key);

    // A variable the operator did not allow is refused, naming the field.
    let preload = json!({"name": "probe", "transport": "stdio", "command": "/bin/sh",
                         "args": [script], "credentials": {"env": {"LD_PRELOAD": "/tmp/x.so"}}});
    let detail = platform
        .post("/api/mcps", preload)
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("credentials.env"), "{detail}");
    assert!(detail.contains("LD_PRELOAD"), "{detail}");

    let out = out_dir.join("seen");
    let env = json!({"PROBE_OUT": out.to_str().unwrap(),
                     "PROBE_DATA": data_dir.to_str().unwrap()});
    let made = platform
        .post(
            "/api/mcps",
            json!({"name": "probe", "transport": "stdio", "command": "/bin/sh",
                   "args": [script], "credentials": {"env": env}, "timeoutMs": 1000}),
        )
        .await
        .expect(201);
    let id = made["id"].as_str().unwrap().to_owned();

    // An org admin may rename it, but not change what it runs with.
    org_admin
        .patch(&format!("/api/mcps/{id}"), json!({"name": "renamed"}))
        .await
        .expect(200);
    org_admin
        .patch(
            &format!("/api/mcps/{id}"),
            json!({"credentials": {"env": {"PROBE_OUT": "/tmp/elsewhere"}}}),
        )
        .await
        .expect_error(403, "FORBIDDEN");
    org_admin
        .patch(&format!("/api/mcps/{id}"), json!({"credentials": null}))
        .await
        .expect_error(403, "FORBIDDEN");
    let detail = platform
        .patch(
            &format!("/api/mcps/{id}"),
            json!({"credentials": {"env": {"NODE_OPTIONS": "--require /tmp/x.js"}}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    assert!(detail.contains("NODE_OPTIONS"), "{detail}");

    // The child ran (its listing fails: it speaks no MCP) and told what it saw.
    let seen = eventually(Duration::from_secs(30), "the probe's report", async || {
        std::fs::read_to_string(&out).ok()
    })
    .await;
    let home = homes.canonicalize().unwrap().join(&id);
    assert!(seen.contains(&format!("home={}", home.display())), "{seen}");
    assert!(seen.contains(&format!("cwd={}", home.display())), "{seen}");
    assert!(!home.starts_with(&data_dir), "{}", home.display());
    assert!(!seen.contains("preload="), "{seen}");
    if running_as_root() {
        assert!(seen.contains("uid=65534"), "{seen}");
        assert!(seen.contains("data=denied"), "{seen}");
    } else {
        // Not root: the child keeps Confer's user (docs/operations.md).
        eprintln!("not root: the child's uid and the data directory are not checked");
    }
    status_of(&platform, &id, "down").await;

    // Deleting the server removes the child's home.
    platform
        .delete(&format!("/api/mcps/{id}"))
        .await
        .expect(200);
    eventually(Duration::from_secs(10), "the home removed", async || {
        (!home.exists()).then_some(())
    })
    .await;
}
