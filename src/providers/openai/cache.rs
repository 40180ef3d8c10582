//! Prompt caching for vendor B (`vendor-options.md`, "Prompt caching"):
//! `prompt_cache_key` from the thread and `safety_identifier` from the org
//! and end user, both hashed so the vendor never learns Confer's ids; and the
//! servers that refuse the two fields, remembered until restart.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use confer_actors::{CallOrigin, OpenAiOptions};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The two optional fields, as the body names them.
const FIELDS: [&str; 2] = ["prompt_cache_key", "safety_identifier"];

fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Adds the cache key (the first 32 hex digits of SHA-256 of the thread id)
/// and the end user's identifier (hex SHA-256 of `{org}:{user}`) to `body`,
/// or those the send gave (`openaiOverrides`); none when it turned them off.
/// Returns whether it added any.
pub fn add_fields(body: &mut Value, origin: &CallOrigin, options: &OpenAiOptions) -> bool {
    if options.disabled {
        return false;
    }
    let key = options
        .prompt_cache_key
        .clone()
        .unwrap_or_else(|| sha256_hex(&origin.thread.to_string())[..32].to_owned());
    let user = options
        .safety_identifier
        .clone()
        .unwrap_or_else(|| sha256_hex(&format!("{}:{}", origin.org, origin.user)));
    body[FIELDS[0]] = Value::String(key);
    body[FIELDS[1]] = Value::String(user);
    true
}

/// Whether the provider's server refused the fields (a 400 naming one);
/// the requests after that leave them out. One per provider, and a
/// provider has one base URL: this is the "per base URL" memory.
#[derive(Clone, Default)]
pub struct RefusedFields(Arc<AtomicBool>);

impl RefusedFields {
    /// Whether the server refused them.
    pub fn refused(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Reads a 400's message: if it names one of the fields, remembers that
    /// the server refuses them and says so (the request is then sent again,
    /// once, without them).
    pub fn check(&self, message: &str) -> bool {
        let named = FIELDS.iter().any(|field| message.contains(field));
        if named && !self.0.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "the OpenAI-compatible server refuses prompt_cache_key / safety_identifier; \
                 they are left out until restart"
            );
        }
        named
    }

    /// `body` without the fields, if they were refused.
    pub fn strip(&self, body: &Value) -> Option<Value> {
        let mut body = body.clone();
        let object = body.as_object_mut()?;
        FIELDS.iter().for_each(|field| {
            object.remove(*field);
        });
        Some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_hashes_of_the_ids() {
        let origin = CallOrigin {
            org: confer_actors::OrgId::new(),
            thread: confer_actors::ThreadId::new(),
            user: "alice".into(),
        };
        let mut body = serde_json::json!({"model": "m"});
        assert!(add_fields(&mut body, &origin, &OpenAiOptions::default()));
        let key = body["prompt_cache_key"].as_str().unwrap();
        assert_eq!(key.len(), 32);
        assert!(sha256_hex(&origin.thread.to_string()).starts_with(key));
        assert_eq!(
            body["safety_identifier"],
            sha256_hex(&format!("{}:alice", origin.org))
        );
        assert!(!body.to_string().contains(&origin.thread.to_string()));

        let refused = RefusedFields::default();
        assert!(!refused.check("temperature must be at most 2"));
        assert!(!refused.refused());
        assert!(refused.check("Unrecognized request argument supplied: prompt_cache_key"));
        assert!(refused.refused());
        let stripped = refused.strip(&body).unwrap();
        assert_eq!(stripped, serde_json::json!({"model": "m"}));
    }

    #[test]
    fn a_send_may_give_the_fields_or_turn_them_off() {
        let origin = CallOrigin {
            org: confer_actors::OrgId::new(),
            thread: confer_actors::ThreadId::new(),
            user: "alice".into(),
        };
        let given = OpenAiOptions {
            prompt_cache_key: Some("tenant-7".into()),
            safety_identifier: Some("user-42".into()),
            ..OpenAiOptions::default()
        };
        let mut body = serde_json::json!({});
        add_fields(&mut body, &origin, &given);
        assert_eq!(
            body,
            serde_json::json!({"prompt_cache_key": "tenant-7", "safety_identifier": "user-42"})
        );
        let off = OpenAiOptions {
            disabled: true,
            ..given
        };
        let mut body = serde_json::json!({});
        assert!(!add_fields(&mut body, &origin, &off));
        assert_eq!(body, serde_json::json!({}));
    }
}
