//! A runner's button (`runners.md` "Button page and embed.js"): a public
//! page with a form built from the input schema, which starts runs
//! without a credential under the button's own limits. This module owns
//! the trigger's record, its field rules, its view tokens and the page's
//! framing policy; the store keeps one per runner
//! (`crate::store::runners::buttons`), the routes are
//! `crate::api::runners::button`.

use chrono::{DateTime, Duration, Utc};
use confer_actors::{OrgId, RunnerId, TriggerId};
use serde::{Deserialize, Serialize};

use super::TriggerKind;
use crate::error::ApiError;
use crate::publishing::domains::{self, EmbedOrigin};

/// The prefix of a run's view token.
pub const VIEW_TOKEN_PREFIX: &str = "rvt_";
/// How long a view token outlives its run.
pub const VIEW_TOKEN_AFTER_END: Duration = Duration::hours(1);
/// Runs a button may start a UTC day, at most.
pub const MAX_DAILY_RUNS: u32 = 100_000;
/// Public tools a button may offer, at most.
pub const MAX_PUBLIC_TOOLS: usize = 64;
const MAX_TITLE_CHARS: usize = 100;

/// A button's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ButtonSettings {
    /// The page's heading and the launcher's name.
    pub title: String,
    /// Who may frame the page; `null`: the org's `allowedEmbedDomains`.
    /// Either way only entries the org's list covers count.
    pub allowed_origins: Option<Vec<String>>,
    /// The only server-side tools a button run is offered.
    pub public_tools: Vec<String>,
    /// Runs a minute per client address.
    pub rate_limit_per_min: u32,
    /// Runs a UTC day, all addresses together.
    pub daily_runs: u32,
}

/// A runner's button as stored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Button {
    pub id: TriggerId,
    pub runner_id: RunnerId,
    pub org_id: OrgId,
    pub enabled: bool,
    pub settings: ButtonSettings,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A button trigger as answered and listed.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct ButtonTrigger {
    #[schema(value_type = uuid::Uuid)]
    pub id: TriggerId,
    #[schema(value_type = uuid::Uuid)]
    pub runner_id: RunnerId,
    #[schema(value_type = uuid::Uuid)]
    pub org_id: OrgId,
    /// `button`.
    pub kind: TriggerKind,
    pub enabled: bool,
    #[serde(flatten)]
    pub settings: ButtonSettings,
    /// `<script async src="{public_url}/api/runners/{id}/embed.js"></script>`.
    pub embed_snippet: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Button {
    /// The trigger as answered, its snippet on `public_url`.
    pub fn answer(&self, public_url: &str) -> ButtonTrigger {
        ButtonTrigger {
            id: self.id,
            runner_id: self.runner_id,
            org_id: self.org_id,
            kind: TriggerKind::Button,
            enabled: self.enabled,
            settings: self.settings.clone(),
            embed_snippet: format!(
                "<script async src=\"{}/api/runners/{}/embed.js\"></script>",
                public_url.trim_end_matches('/'),
                self.runner_id
            ),
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }

    /// The origins that may frame the page (and post to it): its own list
    /// or the org's, each covered by the org's list as it is now.
    pub fn framers(&self, org: &[EmbedOrigin]) -> Vec<EmbedOrigin> {
        let own = self
            .settings
            .allowed_origins
            .as_deref()
            .map(crate::publishing::parsed);
        domains::effective(own.as_deref(), org)
    }
}

/// A button's fields in a create or PATCH body; `None`: absent
/// (`allowed_origins: Some(None)`: null, the org's list).
#[derive(Clone, Debug, Default)]
pub struct ButtonDraft {
    pub title: Option<String>,
    pub allowed_origins: Option<Option<Vec<String>>>,
    pub public_tools: Option<Vec<String>>,
    pub rate_limit_per_min: Option<u32>,
    pub daily_runs: Option<u32>,
}

impl ButtonDraft {
    /// Whether no button field is given.
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.allowed_origins.is_none()
            && self.public_tools.is_none()
            && self.rate_limit_per_min.is_none()
            && self.daily_runs.is_none()
    }

    /// `self` over `base` (a new button's: [`ButtonSettings::new`]), each
    /// allowed origin covered by `org`'s list.
    pub fn apply(
        self,
        mut base: ButtonSettings,
        org: &[EmbedOrigin],
    ) -> Result<ButtonSettings, ApiError> {
        if let Some(title) = self.title {
            let chars = title.trim().chars().count();
            if !(1..=MAX_TITLE_CHARS).contains(&chars) || title.chars().any(char::is_control) {
                return Err(ApiError::invalid(
                    "title",
                    format!("1 to {MAX_TITLE_CHARS} characters, no control characters"),
                ));
            }
            base.title = title.trim().to_owned();
        }
        match self.allowed_origins {
            None => {}
            Some(None) => base.allowed_origins = None,
            Some(Some(list)) => {
                base.allowed_origins = Some(domains::parse_covered("allowedOrigins", &list, org)?);
            }
        }
        if let Some(tools) = self.public_tools {
            if tools.len() > MAX_PUBLIC_TOOLS {
                return Err(ApiError::invalid(
                    "publicTools",
                    format!("at most {MAX_PUBLIC_TOOLS} names"),
                ));
            }
            if let Some(i) = tools
                .iter()
                .position(|t| t.is_empty() || t.len() > 128 || t.chars().any(char::is_whitespace))
            {
                return Err(ApiError::invalid(
                    &format!("publicTools[{i}]"),
                    "a tool name: 1 to 128 characters, no spaces",
                ));
            }
            base.public_tools = tools;
        }
        if let Some(rate) = self.rate_limit_per_min {
            if !(1..=100_000).contains(&rate) {
                return Err(ApiError::invalid("rateLimitPerMin", "1 to 100000"));
            }
            base.rate_limit_per_min = rate;
        }
        if let Some(daily) = self.daily_runs {
            if !(1..=MAX_DAILY_RUNS).contains(&daily) {
                return Err(ApiError::invalid(
                    "dailyRuns",
                    format!("1 to {MAX_DAILY_RUNS}"),
                ));
            }
            base.daily_runs = daily;
        }
        Ok(base)
    }
}

impl ButtonSettings {
    /// A new button's defaults, titled `title` (the runner's name).
    pub fn new(title: &str) -> Self {
        Self {
            title: title.chars().take(MAX_TITLE_CHARS).collect(),
            allowed_origins: None,
            public_tools: Vec::new(),
            rate_limit_per_min: 6,
            daily_runs: 200,
        }
    }
}

/// The button page's `Content-Security-Policy` (publishing.md page rule
/// 1, no avatar): its own scripts and styles only, framed by Confer and
/// `framers`.
pub fn page_policy(framers: &[EmbedOrigin]) -> String {
    let mut ancestors = "frame-ancestors 'self'".to_owned();
    for framer in framers {
        ancestors.push(' ');
        ancestors.push_str(&framer.to_string());
    }
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
         connect-src 'self'; base-uri 'none'; form-action 'none'; {ancestors}; \
         require-trusted-types-for 'script'; trusted-types 'none'"
    )
}

/// Whether a POST's `Origin` may start a run: Confer's own (`self_origin`,
/// the page itself) or one a framer covers. A request without one (no
/// browser sent it) is left to the limits.
pub fn origin_allowed(origin: Option<&str>, self_origin: &str, framers: &[EmbedOrigin]) -> bool {
    let Some(origin) = origin else { return true };
    if origin.eq_ignore_ascii_case(self_origin) {
        return true;
    }
    EmbedOrigin::parse(origin).is_ok_and(|o| framers.iter().any(|f| f.covers(&o)))
}

/// Seconds from `now` to the next UTC midnight (at least 1).
pub fn secs_to_midnight(now: DateTime<Utc>) -> u64 {
    let tomorrow = now.date_naive().succ_opt().unwrap_or(now.date_naive());
    let midnight = tomorrow.and_hms_opt(0, 0, 0).map(|t| t.and_utc());
    midnight.map_or(1, |m| (m - now).num_seconds().max(1) as u64)
}

/// What a run's turns may do as a button run (`runners.md` "Button
/// page"): a public turn, offered only the button's `public_tools` as they
/// are now (none once the button is gone) and no client tool; `None` for
/// a run another trigger started.
pub async fn public_turn(
    store: &crate::store::Store,
    run: &super::RunRecord,
) -> Result<Option<std::sync::Arc<confer_actors::PublicTurn>>, confer_actors::StoreError> {
    if run.trigger.kind != TriggerKind::Button {
        return Ok(None);
    }
    let (org, runner) = (run.org_id, run.runner_id);
    let button = store.run(move |s| s.org_button(org, runner, None)).await?;
    Ok(Some(std::sync::Arc::new(confer_actors::PublicTurn {
        publication: None,
        tools: button.map(|b| b.settings.public_tools).unwrap_or_default(),
        hold: Box::new(()),
    })))
}

/// A new view token: `rvt_` and 32 hex digits.
pub fn new_view_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
    Ok(format!("{VIEW_TOKEN_PREFIX}{}", hex::encode(bytes)))
}

/// Whether a run that ended at `ended_at` (none: still going) may still
/// be watched through its view token at `now`.
pub fn view_open(ended_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
    ended_at.is_none_or(|end| now < end + VIEW_TOKEN_AFTER_END)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn origins(list: &[&str]) -> Vec<EmbedOrigin> {
        list.iter()
            .map(|o| EmbedOrigin::parse(o).unwrap())
            .collect()
    }

    #[test]
    fn drafts_keep_each_field_in_its_range_and_origins_under_the_org_list() {
        let org = origins(&["https://*.example.com"]);
        let base = ButtonSettings::new("Summarize");
        let ok = ButtonDraft {
            allowed_origins: Some(Some(vec!["https://app.example.com".into()])),
            daily_runs: Some(5),
            ..Default::default()
        }
        .apply(base.clone(), &org)
        .unwrap();
        assert_eq!(ok.daily_runs, 5);
        assert_eq!(ok.rate_limit_per_min, 6);
        for (draft, field) in [
            (
                ButtonDraft {
                    allowed_origins: Some(Some(vec!["https://other.org".into()])),
                    ..Default::default()
                },
                "allowedOrigins[0]",
            ),
            (
                ButtonDraft {
                    daily_runs: Some(0),
                    ..Default::default()
                },
                "dailyRuns",
            ),
            (
                ButtonDraft {
                    title: Some(" ".into()),
                    ..Default::default()
                },
                "title",
            ),
            (
                ButtonDraft {
                    public_tools: Some(vec!["a b".into()]),
                    ..Default::default()
                },
                "publicTools[0]",
            ),
        ] {
            let refused = draft.apply(base.clone(), &org).unwrap_err().to_string();
            assert!(refused.contains(field), "{refused}");
        }
    }

    #[test]
    fn the_framers_are_the_own_list_under_the_org_list_as_it_is_now() {
        let now = Utc::now();
        let mut button = Button {
            id: TriggerId::new(),
            runner_id: RunnerId::new(),
            org_id: OrgId::new(),
            enabled: true,
            settings: ButtonSettings::new("t"),
            created_at: now,
            updated_at: now,
        };
        let org = origins(&["https://a.example.com", "https://b.example.com"]);
        assert_eq!(button.framers(&org).len(), 2);
        button.settings.allowed_origins = Some(vec![
            "https://a.example.com".into(),
            "https://gone.example.com".into(),
        ]);
        let framers = button.framers(&org);
        assert_eq!(framers, origins(&["https://a.example.com"]));
        let policy = page_policy(&framers);
        assert!(policy.contains("frame-ancestors 'self' https://a.example.com;"));
        let own = "http://127.0.0.1:8080";
        assert!(origin_allowed(Some(own), own, &framers));
        assert!(origin_allowed(Some("https://a.example.com"), own, &framers));
        assert!(!origin_allowed(
            Some("https://b.example.com"),
            own,
            &framers
        ));
        assert!(!origin_allowed(Some("null"), own, &framers));
        assert!(origin_allowed(None, own, &framers));
    }

    #[test]
    fn a_view_token_lives_an_hour_past_its_run() {
        let end = Utc::now();
        assert!(view_open(None, end));
        assert!(view_open(Some(end), end + Duration::minutes(59)));
        assert!(!view_open(Some(end), end + Duration::minutes(61)));
        let token = new_view_token().unwrap();
        assert_eq!(token.len(), 4 + 32);
        assert!(token.starts_with(VIEW_TOKEN_PREFIX));
    }

    #[test]
    fn midnight_is_counted_in_utc() {
        let now = "2026-11-27T23:59:30Z".parse::<DateTime<Utc>>().unwrap();
        assert_eq!(secs_to_midnight(now), 30);
    }
}
