//! Store microbenchmarks: one durable write (write + group-commit flush) alone
//! and with 32 concurrent writers sharing fsyncs, and a history page read.

// A benchmark aborts on setup failure: there is nothing to measure then.
#![allow(clippy::expect_used)]

use std::hint::black_box;

use chrono::Utc;
use confer::store::Store;
use confer_actors::{Message, MessageId, Role, ThreadAppend, ThreadId, ThreadStore};
use criterion::{Criterion, criterion_group, criterion_main};

fn message(thread: ThreadId, text: &str) -> Message {
    Message {
        id: MessageId::new(),
        thread_id: thread,
        seq: 0,
        role: Role::User,
        content: text.to_owned(),
        sender_name: None,
        sender_id: None,
        created_at: Utc::now(),
    }
}

/// A write of one listed message.
fn listed(message: Message) -> ThreadAppend {
    ThreadAppend {
        listed: Some(message),
        ..ThreadAppend::default()
    }
}

fn store_benches(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("store");
    let port = store.as_port();
    let thread = ThreadId::new();

    c.bench_function("append + flush (1 writer)", |b| {
        b.to_async(&runtime).iter(|| {
            let store = store.clone();
            async move {
                store
                    .write(move |s| s.append(thread, listed(message(thread, "hello there"))))
                    .await
                    .expect("write")
            }
        });
    });

    c.bench_function("append + flush (32 concurrent writers)", |b| {
        b.to_async(&runtime).iter(|| {
            let store = store.clone();
            async move {
                let writes = (0..32).map(|_| {
                    let store = store.clone();
                    let thread = ThreadId::new();
                    tokio::spawn(async move {
                        store
                            .write(move |s| s.append(thread, listed(message(thread, "hi"))))
                            .await
                    })
                });
                for write in futures_util::future::join_all(writes).await {
                    write.expect("join").expect("write");
                }
            }
        });
    });

    let long = ThreadId::new();
    for i in 0..10_000 {
        port.append(long, listed(message(long, &format!("message {i}"))))
            .expect("append");
    }
    c.bench_function("history page of 100 at offset 9900 (10k messages)", |b| {
        b.iter(|| black_box(port.messages(long, 9_900, 100).expect("page")));
    });
}

criterion_group!(benches, store_benches);
criterion_main!(benches);
