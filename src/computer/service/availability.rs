//! Which runtime an agent's instances run on (`computer.md` §1, the
//! effective runtime): its vendor when that vendor's key is set, else the
//! local runtime when the fallback allows it and its probe passes, else
//! none; `always` runs every agent locally.

use confer_actors::RuntimeProvider;

use super::super::runtime::RuntimeKind;
use super::ComputerService;

/// Where host execution falls back to without a vendor key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    Local,
    None,
    Always,
}

/// Whether the local runtime is used: `auto` (when its probe passes),
/// `on` (a failing probe stops start-up), `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LocalMode {
    Auto,
    On,
    Off,
}

/// Which runtime an agent's instances use, and whether it can.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Availability {
    pub runtime: Option<RuntimeKind>,
    pub reason: Option<String>,
}

impl Availability {
    pub fn available(&self) -> bool {
        self.runtime.is_some() && self.reason.is_none()
    }
}

impl ComputerService {
    /// The effective runtime of an agent whose `runtimeProvider` is
    /// `provider` (`computer.md` §1), and whether it can run here.
    pub async fn availability(&self, provider: RuntimeProvider) -> Availability {
        let vendor = match provider {
            RuntimeProvider::E2b if self.settings.e2b_key => Some(RuntimeKind::E2b),
            RuntimeProvider::Daytona if self.settings.daytona_key => Some(RuntimeKind::Daytona),
            _ => None,
        };
        let local = || async {
            match &self.local {
                None => Availability {
                    runtime: None,
                    reason: Some("the local sandbox is off (CONFER_SANDBOX_LOCAL=off)".into()),
                },
                Some(runtime) => Availability {
                    runtime: Some(RuntimeKind::Local),
                    reason: runtime.probe().await.err(),
                },
            }
        };
        match (self.settings.fallback, vendor) {
            (Fallback::Always, _) => local().await,
            (_, Some(kind)) => Availability {
                runtime: Some(kind),
                reason: self.runtime(kind).is_none().then(|| {
                    format!(
                        "the {} runtime is not supported by this build yet",
                        kind.name()
                    )
                }),
            },
            (Fallback::Local, None) => {
                let local = local().await;
                match local.reason {
                    Some(_) => Availability {
                        runtime: None,
                        reason: local.reason,
                    },
                    None => local,
                }
            }
            (Fallback::None, None) => Availability {
                runtime: None,
                reason: Some(
                    "no vendor key is set and host execution is off (CONFER_SANDBOX_FALLBACK=none)"
                        .into(),
                ),
            },
        }
    }
}
