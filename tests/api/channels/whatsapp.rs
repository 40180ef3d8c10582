//! WhatsApp: the subscription handshake, signatures, and the `wa.me` QR
//! code decoded by zxing-cpp (PNG, and SVG through rsvg-convert).

use std::process::Command;
use std::time::Duration;

use hmac::{KeyInit, Mac};
use serde_json::json;

use super::{Vendors, contacts, deliver};
use crate::common::{Server, eventually, peers_dir};

fn whatsapp_signature(secret: &str, body: &str) -> String {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Decodes a QR code image file with zxing-cpp.
fn decode_qr(file: &std::path::Path) -> String {
    let peers = peers_dir("playwright-core");
    let out = Command::new(peers.join(".venv/bin/python"))
        .args([
            "-c",
            "import sys, zxingcpp; from PIL import Image; \
             r = zxingcpp.read_barcodes(Image.open(sys.argv[1])); print(r[0].text if r else '')",
        ])
        .arg(file)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test]
async fn whatsapp_verifies_subscriptions_and_signatures_and_draws_its_link() {
    let vendors = Vendors::start();
    let server = Server::start_with(vendors.options());
    let admin = server.admin();
    let agent = admin.agent("Wa").await;
    let path = format!("/api/agents/{agent}/channels");
    admin
        .post(
            &path,
            json!({"kind": "whatsapp", "credentials": {"accessToken": "EAAG-bad", "appSecret": "s"},
                            "settings": {"phoneNumberId": "1098765"}}),
        )
        .await
        .expect_error(422, "VALIDATION_ERROR");
    let made = admin
        .post(&path, json!({"kind": "whatsapp", "credentials": {"accessToken": "EAAG-good", "appSecret": "app-secret"},
                            "settings": {"phoneNumberId": "1098765"}}))
        .await
        .expect(201);
    let channel = made["id"].as_str().unwrap().to_owned();
    let token = made["verify_token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("cwv_") && token.len() == 36, "{token}");
    assert_eq!(made["settings"]["business_number"], "15550100200");
    let listed = admin.get(&path).await.expect(200);
    assert!(listed[0].get("verify_token").is_none(), "shown once");

    let subscribe = |token: &str| {
        format!(
            "{}/api/channels/{channel}/webhook?hub.mode=subscribe&hub.verify_token={token}&hub.challenge=1158201444",
            server.base
        )
    };
    let ok = reqwest::get(subscribe(&token)).await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "1158201444");
    assert_eq!(
        reqwest::get(subscribe("cwv_wrong")).await.unwrap().status(),
        403
    );

    let note = json!({"object": "whatsapp_business_account", "entry": [{"id": "WABA", "changes": [{
        "field": "messages", "value": {"messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15550100200", "phone_number_id": "1098765"},
            "contacts": [{"profile": {"name": "Grace"}, "wa_id": "447700900123"}],
            "messages": [{"from": "447700900123", "id": "wamid.ABC", "timestamp": "1700000000",
                          "type": "text", "text": {"body": "hello world"}}]}}]}]})
    .to_string();
    let (status, _) = deliver(
        &server,
        &channel,
        &note,
        &[("x-hub-signature-256", "sha256=00")],
    )
    .await;
    assert_eq!(status, 401);
    let signed = whatsapp_signature("app-secret", &note);
    for _ in 0..3 {
        let (status, _) = deliver(
            &server,
            &channel,
            &note,
            &[("x-hub-signature-256", &signed)],
        )
        .await;
        assert_eq!(status, 200);
    }
    let sent = eventually(Duration::from_secs(20), "the reply", async || {
        let sent = vendors.to("/1098765/messages").await;
        (!sent.is_empty()).then_some(sent)
    })
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(vendors.to("/1098765/messages").await.len(), 1);
    assert_eq!(sent[0]["body"]["to"], "447700900123");
    assert_eq!(sent[0]["body"]["text"]["body"], "hello world");
    let people = contacts(&admin, &agent, &channel).await;
    assert_eq!(people[0]["display_name"], "Grace");

    // The QR code: PNG and SVG both decode to the link.
    let qr = admin
        .get(&format!("{path}/whatsapp/qr?text=Hi%20there"))
        .await
        .expect(200);
    let link = "https://wa.me/15550100200?text=Hi%20there";
    assert_eq!(qr["link"], link);
    let dir = tempfile::tempdir().unwrap();
    let png = reqwest::Client::new()
        .get(format!(
            "{}{path}/whatsapp/qr?format=png&size=256&text=Hi%20there",
            server.base
        ))
        .bearer_auth(crate::common::BOOTSTRAP_KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(png.headers()["content-type"], "image/png");
    let png_file = dir.path().join("qr.png");
    std::fs::write(&png_file, png.bytes().await.unwrap()).unwrap();
    assert_eq!(decode_qr(&png_file), link);
    let svg_file = dir.path().join("qr.svg");
    std::fs::write(&svg_file, qr["svg"].as_str().unwrap()).unwrap();
    let raster = dir.path().join("svg.png");
    let converted = Command::new("rsvg-convert")
        .args(["-w", "400", "-b", "white", "-o"])
        .arg(&raster)
        .arg(&svg_file)
        .status()
        .expect("rsvg-convert runs (librsvg2-bin)");
    assert!(converted.success());
    assert_eq!(decode_qr(&raster), link);
    assert!(
        qr["png"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
    admin
        .get(&format!("{path}/whatsapp/qr?size=9"))
        .await
        .expect_error(400, "BAD_REQUEST");
    admin
        .get(&format!("{path}/whatsapp/qr?format=gif"))
        .await
        .expect_error(400, "BAD_REQUEST");
    // A member reads; the secrets are in no answer.
    let member = server.api(&admin.new_key("member").await);
    let seen = member.get(&path).await.expect(200).to_string();
    assert!(
        !seen.contains("app-secret") && !seen.contains("EAAG"),
        "{seen}"
    );
}
