//! The daytona runtime (`computer.md` §1): sandboxes hosted by daytona,
//! made, stopped and started through its API (polled until `started`) and
//! worked in through the sandbox's toolbox, all with the key as a bearer
//! token and through the outbound policy's client. A command runs as
//! `timeout -k 5 {s} bash -c` of its script sent in base64, so the
//! wrapper ends it at its timeout; daytona answers its output when it
//! ends. Sandboxes carry the labels `confer_install` and
//! `confer_instance`, by which a stopped one is found again.

mod sandbox;

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};

use super::config::{NetworkMode, SizeClass};
use super::hosted::{self, Answer, HostedControl};
use super::instances::InstanceId;
use super::runtime::{RunningSandbox, RuntimeFuture, RuntimeKind, SandboxRuntime, StartSpec};
use crate::outbound::Outbound;
pub use sandbox::DaytonaSandbox;

/// A sandbox's creation or start, polled for at most.
const START_WITHIN: Duration = Duration::from_secs(60);
/// Between two looks at a starting sandbox.
const POLL_EVERY: Duration = Duration::from_millis(500);
/// Any other call, at most.
const CALL_WITHIN: Duration = Duration::from_secs(30);

/// Where daytona is and who Confer is to it.
#[derive(Clone)]
pub struct DaytonaSettings {
    /// The API (`DAYTONA_API_URL`).
    pub api_url: String,
    pub api_key: SecretString,
    /// This installation's label on its sandboxes.
    pub install: String,
}

/// The daytona runtime.
pub struct DaytonaRuntime {
    api: Arc<DaytonaApi>,
}

/// The API's client.
pub(crate) struct DaytonaApi {
    outbound: Outbound,
    settings: DaytonaSettings,
}

impl DaytonaApi {
    /// A call to `url` (the API's or a toolbox's) with the bearer key.
    async fn call_url(
        &self,
        method: reqwest::Method,
        url: &str,
        build: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
        within: Duration,
    ) -> Result<Answer, String> {
        let request = self
            .outbound
            .request(method, url)
            .map_err(|e| e.to_string())?
            .bearer_auth(self.settings.api_key.expose_secret());
        hosted::call(&self.outbound, build(request), within).await
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Answer, String> {
        let url = format!("{}{path}", self.settings.api_url.trim_end_matches('/'));
        let within = if body.is_some() {
            START_WITHIN
        } else {
            CALL_WITHIN
        };
        self.call_url(
            method,
            &url,
            |r| match body {
                Some(body) => r.json(&body),
                None => r,
            },
            within,
        )
        .await
    }

    /// The vendor's reason for a failed call, without anything it echoed.
    fn failed(what: &str, answer: &Answer) -> String {
        match answer.status {
            401 | 403 => format!(
                "daytona refused the API key ({what}: http {})",
                answer.status
            ),
            status => format!("daytona {what} failed: http {status}"),
        }
    }

    /// The sandboxes labelled `tag = value`: their ids and the instance
    /// each names.
    async fn labelled(
        &self,
        tag: &str,
        value: &str,
    ) -> Result<Vec<(String, Option<String>)>, String> {
        let labels = json!({ tag: value });
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("labels", &labels.to_string())
            .finish();
        let answer = self
            .call(reqwest::Method::GET, &format!("/sandbox?{query}"), None)
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
                let id = s["id"].as_str()?.to_owned();
                let instance = s["labels"]["confer_instance"].as_str().map(str::to_owned);
                Some((id, instance))
            })
            .collect())
    }

    /// Polls sandbox `id` until it is `started`; its toolbox's URL.
    async fn started(&self, id: &str) -> Result<String, String> {
        let began = Instant::now();
        loop {
            let answer = self
                .call(reqwest::Method::GET, &format!("/sandbox/{id}"), None)
                .await?;
            if answer.status != 200 {
                return Err(Self::failed("reading a sandbox", &answer));
            }
            match answer.body["state"].as_str() {
                Some("started") => {
                    return answer.body["toolboxProxyUrl"]
                        .as_str()
                        .map(|u| u.trim_end_matches('/').to_owned())
                        .ok_or_else(|| "daytona named no toolbox for the sandbox".to_string());
                }
                Some("error" | "build_failed" | "destroyed") => {
                    return Err(format!(
                        "the daytona sandbox is {}",
                        answer.body["state"].as_str().unwrap_or_default()
                    ));
                }
                _ if began.elapsed() >= START_WITHIN => {
                    return Err("the daytona sandbox did not start within 60 s".into());
                }
                _ => tokio::time::sleep(POLL_EVERY).await,
            }
        }
    }

    /// Stops sandbox `id` (stopped already is fine); a failure is logged.
    async fn stop_sandbox(&self, id: &str) {
        let stopped = self
            .call(reqwest::Method::POST, &format!("/sandbox/{id}/stop"), None)
            .await;
        match stopped {
            Ok(answer) if matches!(answer.status, 200 | 204 | 409) => {}
            Ok(answer) => tracing::warn!(
                reason = %Self::failed("stopping a sandbox", &answer),
                "a daytona sandbox was not stopped"
            ),
            Err(reason) => tracing::warn!(%reason, "a daytona sandbox was not stopped"),
        }
    }

    /// Deletes sandbox `id` (gone already is fine).
    async fn delete_sandbox(&self, id: &str) -> Result<(), String> {
        let answer = self
            .call(reqwest::Method::DELETE, &format!("/sandbox/{id}"), None)
            .await?;
        match answer.status {
            200 | 204 | 404 => Ok(()),
            _ => Err(Self::failed("deleting a sandbox", &answer)),
        }
    }
}

impl DaytonaRuntime {
    /// The runtime of `settings`, called through `outbound`.
    pub fn new(settings: DaytonaSettings, outbound: Outbound) -> Self {
        Self {
            api: Arc::new(DaytonaApi { outbound, settings }),
        }
    }

    async fn create(&self, spec: StartSpec) -> Result<Box<dyn RunningSandbox>, String> {
        let class = match spec.size {
            SizeClass::Small => "small",
            SizeClass::Medium => "medium",
            SizeClass::Large => "large",
        };
        let mut body = json!({
            "class": class,
            "env": {},
            "labels": {
                "confer_install": self.api.settings.install,
                "confer_instance": spec.instance.to_string(),
            },
            "public": false,
            "networkBlockAll": true,
        });
        if spec.network.mode == NetworkMode::Allowlist {
            // daytona takes CIDR blocks only: names are dropped, so the
            // list fails closed.
            let cidrs: Vec<&String> = spec
                .network
                .allow
                .iter()
                .filter(|a| a.parse::<ipnet::IpNet>().is_ok())
                .collect();
            body["networkBlockAll"] = json!(false);
            body["networkAllowList"] = json!(
                cidrs
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
        }
        let answer = self
            .api
            .call(reqwest::Method::POST, "/sandbox", Some(body))
            .await?;
        if !matches!(answer.status, 200 | 201) {
            return Err(DaytonaApi::failed("creating a sandbox", &answer));
        }
        let Some(id) = answer.body["id"].as_str().map(str::to_owned) else {
            return Err("daytona answered without a sandbox id".into());
        };
        let toolbox = self.api.started(&id).await?;
        let sandbox = DaytonaSandbox::new(Arc::clone(&self.api), id, toolbox);
        hosted::make_workspace(&sandbox, "/home/daytona").await?;
        Ok(Box::new(sandbox))
    }

    async fn restart(&self, spec: StartSpec) -> Result<Box<dyn RunningSandbox>, String> {
        let Some(id) = hosted::find(&*self.api, spec.instance).await? else {
            return Err("daytona keeps no sandbox for this instance".into());
        };
        let answer = self
            .api
            .call(reqwest::Method::POST, &format!("/sandbox/{id}/start"), None)
            .await?;
        if !matches!(answer.status, 200 | 201 | 204) {
            return Err(DaytonaApi::failed("starting a sandbox", &answer));
        }
        let toolbox = self.api.started(&id).await?;
        Ok(Box::new(DaytonaSandbox::new(
            Arc::clone(&self.api),
            id,
            toolbox,
        )))
    }
}

impl SandboxRuntime for DaytonaRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Daytona
    }

    fn probe(&self) -> RuntimeFuture<'_, Result<(), String>> {
        // A key is configured; whether daytona takes it shows at the
        // first start, as an error result and a `failed` instance.
        Box::pin(async { Ok(()) })
    }

    fn start(&self, spec: StartSpec) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(self.create(spec))
    }

    fn resume(
        &self,
        spec: StartSpec,
    ) -> RuntimeFuture<'_, Result<Box<dyn RunningSandbox>, String>> {
        Box::pin(self.restart(spec))
    }

    fn stop(&self, sandbox: Box<dyn RunningSandbox>) -> RuntimeFuture<'_, ()> {
        Box::pin(async move {
            if let Some(id) = sandbox.vendor_id() {
                self.api.stop_sandbox(&id).await;
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

impl HostedControl for DaytonaApi {
    fn install(&self) -> &str {
        &self.settings.install
    }

    fn tagged(
        &self,
        tag: &str,
        value: &str,
    ) -> impl Future<Output = Result<Vec<(String, Option<String>)>, String>> + Send {
        self.labelled(tag, value)
    }

    fn halt(&self, id: &str) -> impl Future<Output = ()> + Send {
        self.stop_sandbox(id)
    }

    fn delete(&self, id: &str) -> impl Future<Output = Result<(), String>> + Send {
        self.delete_sandbox(id)
    }
}
