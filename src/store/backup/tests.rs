//! Backup, restore and check on a real store in a temporary directory.
#![allow(clippy::unwrap_used)]

use chrono::Utc;
use confer_actors::{
    AgentId, ContextMessage, ContextRole, CredentialConfig, Message, MessageId, OrgId, Role,
    ThreadAppend, ThreadId,
};

use std::path::Path;

use super::restore::is_empty_dir;
use super::*;
use crate::store::keys;
use crate::store::{Store, test_secrets};

/// A store with a thread of `messages` messages (the last one large, so it
/// has a value file) and a sealed signing secret.
fn filled(dir: &Path, messages: usize) -> (Store, ThreadId) {
    let store = Store::open_with(dir, test_secrets(dir)).unwrap();
    let (org, agent) = (OrgId::new(), AgentId::new());
    let thread = crate::store::test_thread(org, agent, "alice");
    store
        .with_inner(|s| {
            s.create_thread(&thread, None).unwrap();
            s.put_credentials(
                org,
                agent,
                &CredentialConfig {
                    enabled: true,
                    resolver_url: "https://resolver.example/k".into(),
                    timeout_ms: 1000,
                    signing_secret: Some("the-signing-secret".into()),
                },
            )
            .unwrap();
            for n in 0..messages {
                let content = if n + 1 == messages {
                    "x".repeat(40 * 1024)
                } else {
                    format!("m{n}")
                };
                s.append(thread.id, message(thread.id, content)).unwrap();
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    store.flush_now().unwrap();
    (store, thread.id)
}

/// Opens a store just restored (its lock may be held a moment longer;
/// `Store::open` waits for it).
fn open_restored(dir: &Path) -> Store {
    Store::open(dir).unwrap()
}

fn backup_of(store: &Store, file: &Path, with_key: bool) -> Manifest {
    let out = std::fs::File::create(file).unwrap();
    store.with_inner(|s| s.write_backup(out, with_key)).unwrap()
}

#[test]
fn a_backup_restores_to_the_same_store_and_checks_clean() {
    let source = tempfile::tempdir().unwrap();
    let (store, thread) = filled(source.path(), 30);
    assert!(store.with_inner(|s| s.check()).unwrap().problems.is_empty());
    let file = source.path().join("backup.tar.zst");
    let manifest = backup_of(&store, &file, true);
    assert_eq!(manifest.counts["messages"], 30);
    assert_eq!(
        manifest.value_files, 2,
        "the large message and its context entry"
    );
    assert!(manifest.secret_key);
    assert_eq!(verify(&file).unwrap(), manifest);

    let target = tempfile::tempdir().unwrap();
    let restored_dir = target.path().join("restored");
    restore(&file, &restored_dir).unwrap();
    let restored = open_restored(&restored_dir);
    let report = restored.with_inner(|s| s.check()).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.counts["messages"], 30);
    let (messages, total) = restored.with_inner(|s| s.messages(thread, 0, 100)).unwrap();
    assert_eq!(total, 30);
    assert_eq!(messages[29].content.len(), 40 * 1024);
    let (original, _) = store.with_inner(|s| s.messages(thread, 0, 100)).unwrap();
    assert_eq!(messages, original);
}

#[test]
fn a_changed_archive_does_not_verify_and_restores_nothing() {
    let source = tempfile::tempdir().unwrap();
    let (store, _) = filled(source.path(), 5);
    let file = source.path().join("backup.tar.zst");
    backup_of(&store, &file, false);
    // Cut short: the manifest, last, is gone.
    let bytes = std::fs::read(&file).unwrap();
    let cut = source.path().join("cut.tar.zst");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let target = tempfile::tempdir().unwrap();
    let error = restore(&cut, target.path()).unwrap_err();
    assert!(matches!(error, BackupError::Corrupt(_)), "{error}");
    assert!(is_empty_dir(target.path()).unwrap());

    // A record changed inside a valid archive: its hash no longer matches.
    let mut tar = Vec::new();
    zstd::stream::copy_decode(&bytes[..], &mut tar).unwrap();
    let at = tar.windows(2).position(|w| w == b"m3").unwrap();
    tar[at + 1] = b'4';
    let changed = source.path().join("changed.tar.zst");
    std::fs::write(&changed, zstd::encode_all(&tar[..], 3).unwrap()).unwrap();
    let error = verify(&changed).unwrap_err().to_string();
    assert!(error.contains("does not match the manifest"), "{error}");
}

#[test]
fn a_restore_refuses_a_directory_that_holds_something() {
    let source = tempfile::tempdir().unwrap();
    let (store, _) = filled(source.path(), 2);
    let file = source.path().join("backup.tar.zst");
    backup_of(&store, &file, false);
    let target = tempfile::tempdir().unwrap();
    std::fs::write(target.path().join("keep.txt"), "mine").unwrap();
    let error = restore(&file, target.path()).unwrap_err();
    assert!(matches!(error, BackupError::NotEmpty(_)), "{error}");
    assert_eq!(
        std::fs::read_to_string(target.path().join("keep.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn check_finds_an_index_entry_without_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let (store, thread) = filled(dir.path(), 3);
    store
        .with_inner(|s| {
            s.threads_by_user
                .insert(
                    keys::timeline(&[7u8; 48], 1, thread.as_bytes()).as_slice(),
                    &[],
                )
                .unwrap();
            s.threads_by_agent
                .insert(keys::timeline(&[9u8; 32], 1, &[1u8; 16]).as_slice(), &[])
                .unwrap();
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let report = store.with_inner(|s| s.check()).unwrap();
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(report.problems[0].contains("names a thread that does not exist"));
}

#[test]
fn a_backup_without_the_key_leaves_secrets_unopenable_under_another_key() {
    let source = tempfile::tempdir().unwrap();
    let (store, _) = filled(source.path(), 1);
    let file = source.path().join("backup.tar.zst");
    let manifest = backup_of(&store, &file, false);
    assert!(!manifest.secret_key);
    let target = tempfile::tempdir().unwrap();
    restore(&file, target.path()).unwrap();
    // No key in the archive: opening makes a new key, which opens nothing.
    let restored = open_restored(target.path());
    let problems = restored.with_inner(|s| s.unopenable_secrets()).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("does not open with the secret key"));
}

#[test]
fn archives_left_by_a_stopped_server_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let partial = dir
        .path()
        .join(format!("{PARTIAL_PREFIX}abc{PARTIAL_SUFFIX}"));
    std::fs::write(&partial, b"half").unwrap();
    std::fs::write(dir.path().join("keep.partial"), b"mine").unwrap();
    assert_eq!(remove_partial_archives(dir.path()), 1);
    assert!(!partial.exists());
    assert!(dir.path().join("keep.partial").exists());
}

/// An archive of `entries` (in order) and a manifest that vouches for
/// `manifest_entries`.
fn crafted(file: &Path, entries: &[(&str, Vec<u8>)], manifest_entries: &[(&str, &[u8])]) {
    let hash = |data: &[u8]| hex::encode(Sha256::digest(data));
    let listed: BTreeMap<String, String> = manifest_entries
        .iter()
        .map(|(path, data)| ((*path).to_owned(), hash(data)))
        .collect();
    let manifest = Manifest {
        format: ARCHIVE_FORMAT.into(),
        version: ARCHIVE_VERSION,
        store_format: crate::store::format::STORE_FORMAT,
        confer_version: "test".into(),
        created_at: Utc::now(),
        counts: BTreeMap::new(),
        value_files: 0,
        trace_files: 0,
        knowledge_files: 0,
        code_archive_files: 0,
        secret_key: false,
        checksum: checksum(&listed),
        entries: listed,
    };
    let encoder = zstd::Encoder::new(std::fs::File::create(file).unwrap(), 3).unwrap();
    let mut tar = tar::Builder::new(encoder);
    let manifest = serde_json::to_vec(&manifest).unwrap();
    for (path, data) in entries
        .iter()
        .map(|(p, d)| (*p, d.as_slice()))
        .chain([(MANIFEST, manifest.as_slice())])
    {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o600);
        tar.append_data(&mut header, path, data).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
}

#[test]
fn a_duplicated_entry_or_an_oversized_chunk_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    // The first copy would be restored unchecked: the manifest vouches for
    // the second.
    let duplicated = dir.path().join("twice.tar.zst");
    let name = "trees/agents/000000";
    crafted(
        &duplicated,
        &[(name, b"smuggled".to_vec()), (name, b"vouched".to_vec())],
        &[(name, b"vouched")],
    );
    let error = verify(&duplicated).unwrap_err().to_string();
    assert!(error.contains("appears twice"), "{error}");
    // A chunk past the bound is refused from its header, unread.
    let big = vec![0u8; usize::try_from(restore::MAX_CHUNK_READ).unwrap() + 1];
    let oversized = dir.path().join("big.tar.zst");
    crafted(&oversized, &[(name, big.clone())], &[(name, &big)]);
    let target = tempfile::tempdir().unwrap();
    let error = restore(&oversized, target.path()).unwrap_err().to_string();
    assert!(error.contains("at most"), "{error}");
    assert!(is_empty_dir(target.path()).unwrap());
}

/// A backup's destination as slow as a busy disk.
struct SlowDisk(std::fs::File);

impl Write for SlowDisk {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(std::time::Duration::from_millis(60));
        self.0.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn message(thread: ThreadId, content: String) -> ThreadAppend {
    ThreadAppend {
        listed: Some(Message {
            id: MessageId::new(),
            thread_id: thread,
            seq: 0,
            role: Role::User,
            content: content.clone(),
            sender_name: None,
            sender_id: None,
            created_at: Utc::now(),
            citations: Vec::new(),
        }),
        context: vec![ContextMessage::text(ContextRole::User, content)],
        ..ThreadAppend::default()
    }
}

#[test]
fn writes_go_on_while_the_value_files_are_copied() {
    let dir = tempfile::tempdir().unwrap();
    let (store, thread) = filled(dir.path(), 3);
    // 2 values of 512 KiB that compress poorly: a while to copy to a
    // slow disk.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    store
        .with_inner(|s| {
            for _ in 0..2 {
                let text: String = (0..512 * 1024)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        char::from(b'!' + (seed % 90) as u8)
                    })
                    .collect();
                s.append(thread, message(thread, text)).unwrap();
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
    store.flush_now().unwrap();
    let file = dir.path().join("slow.tar.zst");
    let began = std::time::Instant::now();
    let backing_up = {
        let (store, file) = (store.clone(), file.clone());
        std::thread::spawn(move || {
            let out = SlowDisk(std::fs::File::create(file).unwrap());
            let manifest = store.with_inner(|s| s.write_backup(out, false)).unwrap();
            (manifest, began.elapsed())
        })
    };
    // The trees are read in a moment; the values then take a while.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let asked = std::time::Instant::now();
    store
        .with_inner(|s| s.append(thread, message(thread, "during".into())))
        .unwrap();
    let waited = asked.elapsed();
    let (manifest, took) = backing_up.join().unwrap();
    // Held back by the whole backup, the write would wait nearly all of it.
    assert!(took > std::time::Duration::from_millis(500), "{took:?}");
    assert!(
        waited * 4 < took,
        "a write waited {waited:?} of the backup's {took:?}"
    );
    assert!(manifest.value_files >= 3, "{}", manifest.value_files);
    // The archive is whole, and holds the store as it was before the write.
    verify(&file).unwrap();
    let target = tempfile::tempdir().unwrap();
    restore(&file, target.path()).unwrap();
    let restored = open_restored(target.path());
    let (messages, _) = restored.with_inner(|s| s.messages(thread, 0, 100)).unwrap();
    assert_eq!(messages.len(), 3 + 2);
}
