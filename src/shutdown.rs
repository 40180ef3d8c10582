//! The signals that stop the server gracefully.

/// SIGTERM and SIGINT, listened for from the moment this is made: a
/// signal that arrives before anyone waits is kept, not left to the default
/// action (which would end the process without a graceful shutdown).
pub struct ShutdownSignals(Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>);

impl ShutdownSignals {
    /// Installs the handlers (inside the runtime).
    pub fn install() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(term), Ok(int)) => Self(Some((term, int))),
            _ => {
                tracing::error!("cannot listen for signals; stop Confer with SIGKILL");
                Self(None)
            }
        }
    }

    /// Waits for the next SIGINT or SIGTERM; both stop the server the same
    /// graceful way.
    pub async fn next(&mut self) -> &'static str {
        let Some((term, int)) = &mut self.0 else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    }
}
