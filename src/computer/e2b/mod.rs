//! The e2b runtime (`computer.md` §1): sandboxes hosted by e2b, made and
//! paused through its control API (`X-API-Key`) and worked in through the
//! sandbox's own daemon, envd ([`envd`]). Every call goes through the
//! outbound policy's client. A sandbox carries the metadata
//! `confer_install` and `confer_instance`, so a paused one is found again
//! by its instance after Confer restarts, without keeping the vendor's id.

mod connect;
mod envd;

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use super::config::{NetworkMode, SizeClass};
use super::hosted::{self, Answer, HostedControl};
use super::instances::InstanceId;
use super::runtime::{RunningSandbox, RuntimeFuture, RuntimeKind, SandboxRuntime, StartSpec};
use crate::outbound::Outbound;
pub use envd::E2bSandbox;

/// A sandbox's creation, at most.
const CREATE_WITHIN: Duration = Duration::from_secs(60);
/// Any other control call, at most.
const CALL_WITHIN: Duration = Duration::from_secs(30);

/// Where e2b is and who Confer is to it.
#[derive(Clone)]
pub struct E2bSettings {
    /// The control API (`E2B_API_URL`).
    pub api_url: String,
    /// The sandboxes' daemon, routed by headers (`E2B_SANDBOX_URL`).
    pub sandbox_url: String,
    pub api_key: SecretString,
    /// The templates of the small, medium and large classes.
    pub templates: [String; 3],
    /// This installation's tag on its sandboxes.
    pub install: String,
}

/// The e2b runtime.
pub struct E2bRuntime {
    api: Arc<E2bApi>,
}

/// The control API's client.
pub(crate) struct E2bApi {
    outbound: Outbound,
    settings: E2bSettings,
}

impl E2bApi {
    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
        within: Duration,
    ) -> Result<Answer, String> {
        let url = format!("{}{path}", self.settings.api_url.trim_end_matches('/'));
        let mut request = self
            .outbound
            .request(method, &url)
            .map_err(|e| e.to_string())?
            .header("X-API-Key", self.settings.api_key.expose_secret());
        if let Some(body) = body {
            request = request.json(&body);
        }
        hosted::call(&self.outbound, request, within).await
    }

    /// The vendor's reason for a failed call, without anything it echoed.
    fn failed(what: &str, answer: &Answer) -> String {
        match answer.status {
            401 | 403 => format!("e2b refused the API key ({what}: http {})", answer.status),
            status => format!("e2b {what} failed: http {status}"),
        }
    }

    /// The sandboxes, running or paused, whose metadata has `tag =
    /// value`: their ids and the instance each names.
    async fn with_metadata(
        &self,
        tag: &str,
        value: &str,
    ) -> Result<Vec<(String, Option<String>)>, String> {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("metadata", &format!("{tag}={value}"))
            .append_pair("state", "running")
            .append_pair("state", "paused")
            .finish();
        let answer = self
            .call(
                reqwest::Method::GET,
                &format!("/v2/sandboxes?{query}"),
                None,
                CALL_WITHIN,
            )
            .await?;
        if answer.status != 200 {
            return Err(Self::failed("listing sandboxes", &answer));
        }
        let listed = answer
            .body
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        Ok(listed
            .iter()
            .filter_map(|s| {
                let id = s["sandboxID"].as_str()?.to_owned();
                let instance = s["metadata"]["confer_instance"].as_str().map(str::to_owned);
                Some((id, instance))
            })
            .collect())
    }

    /// Pauses sandbox `id` (paused already is fine); a failure is logged.
    async fn pause_sandbox(&self, id: &str) {
        let paused = self
            .call(
                reqwest::Method::POST,
                &format!("/sandboxes/{id}/pause"),
                None,
                CALL_WITHIN,
            )
            .await;
        match paused {
            // 409: already paused.
            Ok(answer) if matches!(answer.status, 200 | 204 | 409) => {}
            Ok(answer) => tracing::warn!(
                reason = %Self::failed("pausing a sandbox", &answer),
                "an e2b sandbox was not paused"
            ),
            Err(reason) => tracing::warn!(%reason, "an e2b sandbox was not paused"),
        }
    }

    /// Deletes sandbox `id` (gone already is fine).
    async fn delete_sandbox(&self, id: &str) -> Result<(), String> {
        let answer = self
            .call(
                reqwest::Method::DELETE,
                &format!("/sandboxes/{id}"),
                None,
                CALL_WITHIN,
            )
            .await?;
        match answer.status {
            200 | 204 | 404 => Ok(()),
            _ => Err(Self::failed("deleting a sandbox", &answer)),
        }
    }

    /// The running sandbox of an answer naming it and its envd token.
    fn opened(self: &Arc<Self>, answer: &Answer, ttl: u64) -> Result<E2bSandbox, String> {
        let id = answer.body["sandboxID"].as_str();
        let token = answer.body["envdAccessToken"].as_str();
        match (id, token) {
            (Some(id), Some(token)) => Ok(E2bSandbox::new(
                Arc::clone(self),
                id.to_owned(),
                SecretString::from(token.to_owned()),
                ttl,
            )),
            _ => Err("e2b answered without a sandbox id and access token".into()),
        }
    }
}

impl E2bRuntime {
    /// The runtime of `settings`, called through `outbound`.
    pub fn new(settings: E2bSettings, outbound: Outbound) -> Self {
        Self {
            api: Arc::new(E2bApi { outbound, settings }),
        }
    }

    fn template(&self, size: SizeClass) -> &str {
        let [small, medium, large] = &self.api.settings.templates;
        match size {
            SizeClass::Small => small,
            SizeClass::Medium => medium,
            SizeClass::Large => large,
        }
    }

    async fn create(&self, spec: StartSpec) -> Result<Box<dyn RunningSandbox>, String> {
        let ttl = spec.ttl_secs;
        let mut body = json!({
            "templateID": self.template(spec.size),
            "timeout": ttl,
            "secure": true,
            "allow_internet_access": false,
            "metadata": {
                "confer_install": self.api.settings.install,
                "confer_instance": spec.instance.to_string(),
            },
            "envVars": {},
        });
        if spec.network.mode == NetworkMode::Allowlist {
            body["allow_internet_access"] = json!(true);
            body["network"] = json!({"allowOut": spec.network.allow, "denyOut": ["0.0.0.0/0"]});
        }
        let answer = self
            .api
            .call(
                reqwest::Method::POST,
                "/sandboxes",
                Some(body),
                CREATE_WITHIN,
            )
            .await?;
        if answer.status != 201 && answer.status != 200 {
            return Err(E2bApi::failed("creating a sandbox", &answer));
        }
        let sandbox = self.api.opened(&answer, ttl)?;
        hosted::make_workspace(&sandbox, "/home/user").await?;
        Ok(Box::new(sandbox))
    }

    async fn reconnect(&self, spec: StartSpec) -> Result<Box<dyn RunningSandbox>, String> {
        let Some(id) = hosted::find(&*self.api, spec.instance).await? else {
            return Err("e2b keeps no sandbox for this instance".into());
        };
        let answer = self
            .api
            .call(
                reqwest::Method::POST,
                &format!("/sandboxes/{id}/connect"),
                Some(json!({"timeout": spec.ttl_secs})),
                CREATE_WITHIN,
            )
            .await?;
        if answer.status != 200 && answer.status != 201 {
            return Err(E2bApi::failed("resuming a sandbox", &answer));
        }
        Ok(Box::new(self.api.opened(&answer, spec.ttl_secs)?))
    }
}

impl SandboxRuntime for E2bRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::E2b
    }

    fn probe(&self) -> RuntimeFuture<'_, Result<(), String>> {
        // A key is configured; whether e2b takes it shows at the first
        // start, as an error result and a `failed` instance.
        Box::pin(async { Ok(()) })
    }

    fn start(&self, spec: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(self.create(spec))
    }

    fn resume(
        &self,
        spec: StartSpec,
    ) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(self.reconnect(spec))
    }

    fn stop(&self, sandbox: Box<dyn RunningSandbox>) -> RuntimeFuture<'_, ()> {
        Box::pin(async move {
            if let Some(id) = sandbox.vendor_id() {
                self.api.pause_sandbox(&id).await;
            }
        })
    }

    fn stop_left(&self, instance: InstanceId) -> RuntimeFuture<'_, ()> {
        Box::pin(hosted::stop_left(&*self.api, instance))
    }

    fn destroy(&self, instance: InstanceId) -> RuntimeFuture<'_, Result<(), String>> {
        Box::pin(hosted::destroy(&*self.api, instance))
    }

    fn sweep_orphans<'a>(
        &'a self,
        named: &'a HashSet<InstanceId>,
    ) -> RuntimeFuture<'a, Result<usize, String>> {
        Box::pin(hosted::sweep_orphans(&*self.api, named))
    }
}

impl HostedControl for E2bApi {
    fn install(&self) -> &str {
        &self.settings.install
    }

    fn tagged(
        &self,
        tag: &str,
        value: &str,
    ) -> impl Future<Output = Result<Vec<(String, Option<String>)>, String>> + Send {
        self.with_metadata(tag, value)
    }

    fn halt(&self, id: &str) -> impl Future<Output = ()> + Send {
        self.pause_sandbox(id)
    }

    fn delete(&self, id: &str) -> impl Future<Output = Result<(), String>> + Send {
        self.delete_sandbox(id)
    }
}
