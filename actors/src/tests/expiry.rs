//! A finished turn's frames go `keep_finished` after the last turn ended,
//! from the actor's one expiry timer (it had one per finished turn).

use super::*;

#[actix_rt::test]
async fn the_last_turns_frames_expire_after_many_turns() {
    let provider = Arc::new(ScriptedProvider {
        delay: Duration::ZERO,
        contexts: Mutex::new(Vec::new()),
        threads: Mutex::new(Vec::new()),
    });
    let keep = Duration::from_millis(300);
    let limits = ThreadLimits {
        retention: crate::Retention {
            keep_finished: keep,
            ..crate::Retention::default()
        },
        ..ThreadLimits::default()
    };
    let fx = Fixture::with_limits(
        256 * 1024 * 1024,
        provider.clone(),
        provider,
        Arc::new(crate::tools::NoServerTools),
        limits,
    );
    let thread = fx.thread();
    // Each finished turn re-arms the timer; none of them may cancel the
    // expiry of the turn that finished last.
    for n in 0..20 {
        let (ok, _, _) = done(&drain(fx.send(thread, &format!("turn {n}")).await).await);
        assert!(ok);
    }
    let log = fx.runtime.frames(fx.org, thread).await.unwrap();
    assert!(
        log.bytes() > 0,
        "the last turn's frames are kept for a while"
    );
    let started = std::time::Instant::now();
    while log.bytes() > 0 {
        assert!(
            started.elapsed() < keep + Duration::from_secs(5),
            "the last turn's frames never expired"
        );
        actix_rt::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(started.elapsed() >= keep / 2, "expired too early");
}
