//! Connection-string rules: what is refused and why.
use super::*;

fn policy() -> OutboundPolicy {
    OutboundPolicy::new("127.0.0.1,db.internal", None).unwrap()
}

#[test]
fn both_forms_parse() {
    let url = parse(
        "postgres://app:p%40ss@127.0.0.1:5433/sales?application_name=c",
        &policy(),
    )
    .unwrap();
    assert_eq!(
        (
            url.host.as_str(),
            url.port,
            url.user.as_deref(),
            url.password.as_deref()
        ),
        ("127.0.0.1", 5433, Some("app"), Some("p@ss"))
    );
    assert_eq!(url.dbname.as_deref(), Some("sales"));
    assert!(url.allow_listed);
    let kv = parse(
        "host=db.internal port=6000 dbname=x user=u password='it''s' sslmode=disable",
        &policy(),
    );
    assert!(kv.is_err(), "a quote is escaped with a backslash");
    let kv = parse(
        r"host=db.internal port=6000 dbname=x user=u password='it\'s a pw'",
        &policy(),
    )
    .unwrap();
    assert_eq!(kv.password.as_deref(), Some("it's a pw"));
    assert_eq!(kv.port, 6000);
    let public = parse(
        "postgres://u@db.example.com/x?sslmode=verify-full",
        &policy(),
    )
    .unwrap();
    assert_eq!(public.tls, Tls::Verify);
    assert!(!public.allow_listed);
    // What the pre-scan takes out and puts back survives it.
    let kv = parse(
        r"host=db.internal sslmode=verify-ca password='a\\b\'c d' application_name=x",
        &policy(),
    )
    .unwrap();
    assert_eq!(kv.password.as_deref(), Some(r"a\b'c d"));
    assert_eq!(
        (kv.tls, kv.application_name.as_deref()),
        (Tls::Verify, Some("x"))
    );
    let v6 = parse(
        "postgresql://u@[2a00:1450::1]:6543/x?sslmode=require&application_name=a%20b",
        &policy(),
    )
    .unwrap();
    assert_eq!((v6.host.as_str(), v6.port), ("2a00:1450::1", 6543));
    assert_eq!(
        (v6.tls, v6.application_name.as_deref()),
        (Tls::Require, Some("a b"))
    );
}

#[test]
fn the_rules_refuse_what_they_must() {
    for (raw, why) in [
        ("host=/var/run/postgresql dbname=x", "Unix-socket"),
        ("postgres://%2Fvar%2Frun%2Fpostgresql/x", "Unix-socket"),
        ("postgres:///x?host=/tmp", "host"),
        ("host=127.0.0.1 hostaddr=10.0.0.5 dbname=x", "hostaddr"),
        ("postgres://127.0.0.1/x?hostaddr=10.0.0.5", "hostaddr"),
        ("host=127.0.0.1 host=db.internal", "more than one host"),
        ("postgres://127.0.0.1,db.internal/x", "host"),
        ("postgres://127.0.0.1/x?options=-c%20x", "option `options`"),
        (
            "host=127.0.0.1 connect_timeout=1",
            "option `connect_timeout`",
        ),
        ("postgres://u@db.example.com/x", "sslmode=require"),
        ("postgres://u@10.1.2.3/x?sslmode=require", "the host"),
        ("postgres://u@127.0.0.1/x?sslmode=sometimes", "sslmode"),
        ("dbname=x", "no host"),
        (
            "postgres://u@127.0.0.1:1,127.0.0.1:2/x",
            "more than one host",
        ),
        ("host=127.0.0.1 port=1,2", "port"),
    ] {
        let error = parse(raw, &policy()).expect_err(raw);
        assert!(error.contains(why), "{raw}: {error}");
        assert!(!error.contains("10.0.0.5"), "{raw}: {error}");
    }
}
