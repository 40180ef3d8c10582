use super::*;

#[test]
fn destinations_are_read_from_connect_and_absolute_form() {
    let (host, port, rewritten) =
        destination("CONNECT Example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n").unwrap();
    assert_eq!((host.as_str(), port, rewritten), ("example.com", 443, None));
    let (host, port, rewritten) = destination(
        "GET http://127.0.0.1:8080/repo.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    assert_eq!((host.as_str(), port), ("127.0.0.1", 8080));
    assert_eq!(
        rewritten.unwrap(),
        "GET /repo.git/info/refs?service=git-upload-pack HTTP/1.1\r\nHost: x\r\n\r\n"
    );
    assert!(destination("GET /origin-form HTTP/1.1\r\n\r\n").is_none());
    assert!(destination("GET ftp://x/ HTTP/1.1\r\n\r\n").is_none());
}

#[test]
fn allow_list_entries_admit_their_hosts_and_ports() {
    let rules = EgressRules {
        entries: vec![
            "api.example.com".into(),
            "git.example.com:8443".into(),
            "*.cdn.example".into(),
            "10.1.0.0/16".into(),
        ],
        ..EgressRules::default()
    };
    assert!(rules.admits("api.example.com", 443));
    assert!(rules.admits("api.example.com", 80));
    assert!(!rules.admits("api.example.com", 8080));
    assert!(rules.admits("git.example.com", 8443));
    assert!(!rules.admits("git.example.com", 443));
    assert!(rules.admits("a.cdn.example", 443));
    assert!(!rules.admits("cdn.example", 443));
    assert!(!rules.admits("evilcdn.example", 443));
    assert!(rules.admits("10.1.2.3", 443));
    assert!(!rules.admits("10.2.0.1", 443));
    assert!(!rules.admits("other.example", 443));
}

#[tokio::test]
async fn only_the_named_destination_at_an_allowed_address_is_reached() {
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = upstream.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = upstream.accept().await {
            let _ = socket.write_all(b"hello").await;
        }
    });
    let ask = |proxy: &EgressProxy, target: String| {
        let Listening::Tcp(address) = proxy.listening else {
            panic!("a TCP proxy")
        };
        async move {
            let mut stream = TcpStream::connect(address).await.unwrap();
            stream
                .write_all(format!("CONNECT {target} HTTP/1.1\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut answer = Vec::new();
            let _ =
                tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
            String::from_utf8_lossy(&answer).into_owned()
        }
    };
    let rules = EgressRules {
        destinations: vec![("127.0.0.1".into(), port)],
        ..EgressRules::default()
    };
    // Loopback is not global: refused unless allow-listed.
    let strict = Arc::new(OutboundPolicy::new("", None).unwrap());
    let proxy = EgressProxy::start(strict, rules.clone()).await.unwrap();
    assert!(
        ask(&proxy, format!("127.0.0.1:{port}"))
            .await
            .contains("403")
    );
    assert!(proxy.refused());
    let allowed = Arc::new(OutboundPolicy::new("127.0.0.1", None).unwrap());
    let proxy = EgressProxy::start(allowed, rules).await.unwrap();
    let answer = ask(&proxy, format!("127.0.0.1:{port}")).await;
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.ends_with("hello"),
        "{answer}"
    );
    assert!(ask(&proxy, "127.0.0.1:1".into()).await.contains("403"));
}
