//! The store's settings and migrations without a database (the rest runs
//! against a real PostgreSQL in `tests/api/cluster.rs`).

use super::migrate::MIGRATIONS;
use super::*;

fn settings(store: Option<&str>) -> Settings {
    let mut settings = Settings::load(None).unwrap();
    settings.store = store.map(|s| secrecy::SecretString::from(s.to_owned()));
    settings
}

#[test]
fn unset_is_sled_and_a_set_string_is_parsed_without_the_outbound_policy() {
    assert!(
        PgSettings::from_settings(&settings(None))
            .unwrap()
            .is_none()
    );
    // A private address and TLS off: the operator's database, not a
    // caller's, so the outbound policy does not refuse it.
    let pg = PgSettings::from_settings(&settings(Some(
        "postgres://confer:pw@10.1.2.3:6543/confer?sslmode=disable",
    )))
    .unwrap()
    .unwrap();
    assert_eq!(pg.target.host, "10.1.2.3");
    assert_eq!(pg.target.port, 6543);
    assert_eq!(pg.target.tls, Tls::Off);
    assert_eq!(pg.pool_size, 16);
}

#[test]
fn the_password_file_wins_and_errors_never_show_the_string() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pw");
    std::fs::write(&file, "from-file-77\n").unwrap();
    let mut with_file = settings(Some("host=db.internal user=confer password=in-string-55"));
    with_file.store_password_file = Some(file);
    let pg = PgSettings::from_settings(&with_file).unwrap().unwrap();
    assert_eq!(pg.target.password.as_deref(), Some("from-file-77"));
    assert!(!format!("{:?}", pg.target).contains("from-file-77"));

    let bad = PgSettings::from_settings(&settings(Some(
        "postgres://confer:hunter2-secret@db/x?bogus=1",
    )))
    .unwrap_err()
    .to_string();
    assert!(bad.starts_with("CONFER_STORE: "), "{bad}");
    assert!(!bad.contains("hunter2-secret"), "{bad}");
}

#[test]
fn migrations_are_numbered_in_order_from_one_and_named() {
    for (index, migration) in MIGRATIONS.iter().enumerate() {
        assert_eq!(migration.version, index as i32 + 1);
        assert!(!migration.name.is_empty());
        assert_eq!(migration.checksum().len(), 64);
    }
}
