//! The pacing mock vendor: OpenAI or Anthropic streaming, each token
//! stamped with its send time.

use super::*;

/// Serves `POST .../chat/completions` and `.../v1/messages`. The model name
/// says what to do: `paced:T:I` streams T tokens I ms apart, each token's
/// text being `{request received µs}:{sent µs} `; `hold` sends the headers
/// and nothing more until the client leaves.
pub(crate) async fn mock_vendor() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let _ = socket.set_nodelay(true);
            tokio::spawn(serve_vendor(socket));
        }
    });
    format!("http://{address}")
}

pub(crate) async fn read_request(socket: &mut TcpStream) -> Option<(String, Value)> {
    let (path, body) = support::read_http_request(socket).await?;
    Some((path, serde_json::from_slice(&body).ok()?))
}

pub(crate) fn vendor_frame(anthropic: bool, text: &str) -> String {
    if anthropic {
        let data = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}});
        format!("event: content_block_delta\ndata: {data}\n\n")
    } else {
        let data =
            json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
        format!("data: {data}\n\n")
    }
}

pub(crate) fn vendor_end(anthropic: bool, tokens: usize) -> String {
    if anthropic {
        format!(
            "event: message_delta\ndata: {}\n\nevent: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": tokens}})
        )
    } else {
        let finish = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
        let usage =
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": tokens}});
        format!("data: {finish}\n\ndata: {usage}\n\ndata: [DONE]\n\n")
    }
}

pub(crate) async fn serve_vendor(mut socket: TcpStream) {
    let Some((path, body)) = read_request(&mut socket).await else {
        return;
    };
    let received = now_us();
    let anthropic = path.ends_with("/v1/messages");
    let model = body["model"].as_str().unwrap_or_default().to_owned();
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    if anthropic {
        let start = format!(
            "event: message_start\ndata: {}\n\n",
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}})
        );
        let _ = socket.write_all(start.as_bytes()).await;
    }
    if model == "hold" {
        let mut byte = [0u8; 1];
        let _ = socket.read(&mut byte).await;
        return;
    }
    let mut parts = model.split(':').skip(1);
    let tokens: usize = parts.next().and_then(|t| t.parse().ok()).unwrap_or(50);
    let interval = Duration::from_millis(parts.next().and_then(|t| t.parse().ok()).unwrap_or(20));
    let start = tokio::time::Instant::now();
    for i in 0..tokens {
        tokio::time::sleep_until(start + interval * i as u32).await;
        let frame = vendor_frame(anthropic, &format!("{received}:{} ", now_us()));
        if socket.write_all(frame.as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = socket
        .write_all(vendor_end(anthropic, tokens).as_bytes())
        .await;
    let _ = socket.shutdown().await;
}
