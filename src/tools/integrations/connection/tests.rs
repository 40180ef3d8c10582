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
    ] {
        let error = parse(raw, &policy()).expect_err(raw);
        assert!(error.contains(why), "{raw}: {error}");
        assert!(!error.contains("10.0.0.5"), "{raw}: {error}");
    }
}
