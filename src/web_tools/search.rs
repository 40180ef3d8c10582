//! `web_search {query, maxResults?}` (`agent-extras.md` §4) through the
//! agent's backend: SearXNG's JSON API, Brave's web search
//! (`X-Subscription-Token`) or Tavily's (`Authorization: Bearer`), each
//! call under the ordinary outbound policy, the answer at most 1 MiB.
//! Results the agent's domain lists refuse are dropped.

use std::time::Duration;

use serde_json::{Value, json};

use super::config::{Backend, WebConfig};
use crate::outbound::{Outbound, OutboundError, read_capped};

/// The largest answer read.
const MAX_ANSWER: usize = 1024 * 1024;
/// The longest snippet, in characters.
const MAX_SNIPPET: usize = 500;

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// `(title, url, snippet)` of each result in a backend's answer.
fn results(backend: Backend, answer: &Value) -> Option<Vec<(String, String, String)>> {
    let (list, snippet) = match backend {
        Backend::Searxng => (answer.get("results")?, "content"),
        Backend::Brave => (answer.get("web")?.get("results")?, "description"),
        Backend::Tavily => (answer.get("results")?, "content"),
    };
    Some(
        list.as_array()?
            .iter()
            .map(|r| (text(&r["title"]), text(&r["url"]), text(&r[snippet])))
            .collect(),
    )
}

/// Runs a search: `{results: [{title, url, snippet}]}` or the error
/// result's reason. `api_key` is the backend's key, opened.
pub async fn web_search(
    outbound: &Outbound,
    config: &WebConfig,
    api_key: Option<&str>,
    query: &str,
    max_results: usize,
) -> Result<Value, String> {
    let search = &config.search;
    let backend = search.backend.ok_or("no search backend")?;
    let base = search.url.clone().ok_or("no search backend")?;
    let timeout_ms = search.timeout_ms;
    let refused = |e: OutboundError| match e {
        OutboundError::TimedOut => format!("timeout after {timeout_ms} ms"),
        OutboundError::Refused(_) => "address refused by outbound policy".into(),
        _ => "search backend unreachable".into(),
    };
    let with_query = |base: &str, pairs: &[(&str, &str)]| -> Result<String, String> {
        let mut url = url::Url::parse(base).map_err(|_| "no search backend".to_owned())?;
        url.query_pairs_mut().extend_pairs(pairs);
        Ok(url.into())
    };
    let request = match backend {
        Backend::Searxng => {
            let url = format!("{}/search", base.trim_end_matches('/'));
            let url = with_query(&url, &[("q", query), ("format", "json")])?;
            outbound
                .request(reqwest::Method::GET, &url)
                .map_err(refused)?
        }
        Backend::Brave => {
            let url = with_query(&base, &[("q", query), ("count", &max_results.to_string())])?;
            outbound
                .request(reqwest::Method::GET, &url)
                .map_err(refused)?
                .header("X-Subscription-Token", api_key.unwrap_or_default())
        }
        Backend::Tavily => outbound
            .request(reqwest::Method::POST, &base)
            .map_err(refused)?
            .bearer_auth(api_key.unwrap_or_default())
            .json(&json!({"query": query, "max_results": max_results})),
    };
    let request = request
        .header(reqwest::header::ACCEPT, "application/json")
        .timeout(Duration::from_millis(timeout_ms));
    let response = outbound.send(request).await.map_err(refused)?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("search backend error: http {}", status.as_u16()));
    }
    let body = read_capped(response, MAX_ANSWER)
        .await
        .map_err(|e| match e {
            OutboundError::TooLarge(_) => "invalid answer from search backend".to_owned(),
            other => refused(other),
        })?;
    let answer: Value = serde_json::from_slice(&body)
        .map_err(|_| "invalid answer from search backend".to_owned())?;
    let found = results(backend, &answer).ok_or("invalid answer from search backend")?;
    let kept: Vec<Value> = found
        .into_iter()
        .filter(|(_, url, _)| {
            url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| config.admits(h)))
                .unwrap_or(false)
        })
        .take(max_results)
        .map(|(title, url, snippet)| {
            let snippet: String = snippet.chars().take(MAX_SNIPPET).collect();
            json!({"title": title, "url": url, "snippet": snippet})
        })
        .collect();
    Ok(json!({"results": kept}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_backend_answer_is_read() {
        let searx =
            json!({"results": [{"title": "A", "url": "https://a.example", "content": "a"}]});
        assert_eq!(
            results(Backend::Searxng, &searx).unwrap()[0].1,
            "https://a.example"
        );
        let brave = json!({"web": {"results": [{"title": "B", "url": "https://b.example", "description": "b"}]}});
        assert_eq!(results(Backend::Brave, &brave).unwrap()[0].2, "b");
        assert!(results(Backend::Tavily, &json!({"nope": 1})).is_none());
    }
}
