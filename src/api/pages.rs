//! The web face's pages (`publishing.md` "Pages", "Console", "Build"): the
//! public chat page `/c/{slug}`, its launcher `/c/{slug}/embed.js`, the
//! operator console `/console`, and the hashed assets `/assets/{name}` the
//! pages load with Subresource Integrity. The
//! files are `web/dist/`, built from `web/src/` by `node web/build.mjs` and
//! embedded in the binary; no credential, no CORS headers.
//!
//! The chat page names who may frame it: `frame-ancestors 'self'` and the
//! publication's effective embed domains, so the browser enforces the
//! allow-list; it gets no `X-Frame-Options` (see `frame_policy`). Its
//! policy allows only its own scripts and styles and makes every HTML sink
//! throw (Trusted Types).

use std::collections::HashMap;
use std::io::Write;
use std::sync::{LazyLock, Mutex, PoisonError};

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;

use super::openapi::accepts_gzip;
use crate::error::ApiError;
use crate::publishing::Publication;
use crate::state::AppState;

/// `web/dist/`, in the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "web/dist/"]
struct WebDist;

/// The chat page's policy, before `img-src`'s avatar origin and the
/// framers are added.
fn chat_policy(publication: &Publication, framers: &[String]) -> String {
    let avatar = publication
        .avatar_url
        .as_deref()
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| u.origin().ascii_serialization())
        .filter(|origin| origin.starts_with("https://"));
    let mut img = "img-src 'self' data:".to_owned();
    if let Some(origin) = avatar {
        img.push(' ');
        img.push_str(&origin);
    }
    let mut ancestors = "frame-ancestors 'self'".to_owned();
    for framer in framers {
        ancestors.push(' ');
        ancestors.push_str(framer);
    }
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; {img}; connect-src 'self'; \
         base-uri 'none'; form-action 'none'; {ancestors}; require-trusted-types-for 'script'; \
         trusted-types 'none'"
    )
}

/// The publication of `slug` with its effective embed domains, if it is
/// published (its agent not deleted).
async fn published(
    state: &AppState,
    slug: String,
) -> Result<Option<(Publication, Vec<String>)>, ApiError> {
    let records = state.store.publications();
    let Some(publication) = records.publication_by_slug(slug, true).await? else {
        return Ok(None);
    };
    let org = records.org_settings(publication.org_id).await?.origins();
    let framers = publication
        .effective_domains(&org)
        .iter()
        .map(ToString::to_string)
        .collect();
    Ok(Some((publication, framers)))
}

/// The 404 of an unknown chat: a page a person reads, framed by no one.
fn no_such_chat() -> HttpResponse {
    not_found_page("There is no chat here.")
}

/// A 404 page a person reads saying `what`, framed by no one.
pub(crate) fn not_found_page(what: &'static str) -> HttpResponse {
    HttpResponse::NotFound()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, "default-src 'none'"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .body(format!(
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Not found</title>\
             <p>{what}</p></html>"
        ))
}

/// A public page (`name` of `web/dist/`) with its policy: no referrer,
/// revalidated on every load.
pub(crate) fn page(name: &str, policy: String) -> Result<HttpResponse, ApiError> {
    page_with(policy, file(name)?)
}

/// A public page of `body` with its policy.
pub(crate) fn page_with(policy: String, body: Bytes) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, policy))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(body))
}

/// `embed.js`, the launcher both a chat and a runner's button load
/// (publishing.md page rules 8–9): other sites load it.
pub(crate) fn embed_script() -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=300"))
        .insert_header(("cross-origin-resource-policy", "cross-origin"))
        .body(file("embed.js")?))
}

/// A file of `web/dist/`.
pub(crate) fn file(name: &str) -> Result<Bytes, ApiError> {
    WebDist::get(name)
        .map(|f| Bytes::from(f.data.into_owned()))
        .ok_or_else(|| ApiError::Internal(format!("web/dist/{name} is not in the build")))
}

/// `GET /c/{slug}`: the chat page (`?embed=1`: the framed layout, chosen
/// by the page). A paused chat answers 200; the page shows a notice.
#[utoipa::path(get, path = "/c/{slug}", tag = "pages", operation_id = "page_chat", params(("slug" = String, Path, description = "The publication's slug")), responses((status = 200, description = "The public chat page", content_type = "text/html"), (status = 404, description = "No such chat (an HTML page)", content_type = "text/html")))]
pub async fn chat(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Some((publication, framers)) = published(&state, path.into_inner()).await? else {
        return Ok(no_such_chat());
    };
    page("chat.html", chat_policy(&publication, &framers))
}

/// `GET /c/{slug}/embed.js`: the launcher, the same bytes for every chat
/// (it reads its slug from its own `src`); 404 for an unknown one.
#[utoipa::path(get, path = "/c/{slug}/embed.js", tag = "pages", operation_id = "page_embed", params(("slug" = String, Path, description = "The publication's slug")), responses((status = 200, description = "The embed launcher", content_type = "text/javascript"), (status = 404, description = "No such chat", body = crate::error::ErrorBody<'static>)))]
pub async fn embed(
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    if published(&state, path.into_inner()).await?.is_none() {
        return Err(ApiError::NotFound("no such chat".into()));
    }
    embed_script()
}

/// The console's policy: the chat page's, but images only from Confer
/// (and `data:`) and frames only of Confer's own pages (a published chat's
/// preview); the framing middleware adds `frame-ancestors 'none'` and
/// `X-Frame-Options: DENY`, as for every page that names no framer.
const CONSOLE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; \
     form-action 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

/// `GET /console`: the operator console (`publishing.md` "Console"); 404
/// when `console` is off. No credential: the page asks for an API key and
/// keeps it in the tab's sessionStorage.
#[utoipa::path(get, path = "/console", tag = "pages", operation_id = "page_console", responses((status = 200, description = "The operator console", content_type = "text/html"), (status = 404, description = "The console is turned off (`CONFER_CONSOLE=false`)", body = crate::error::ErrorBody<'static>)))]
pub async fn console(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    if !state.settings.console {
        return Err(ApiError::NotFound("no such route".into()));
    }
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_SECURITY_POLICY, CONSOLE_POLICY))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("cross-origin-opener-policy", "same-origin"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(file("console.html")?))
}

/// Whether `name` is a hashed asset: `{stem}.{10 hex}.{ext}`.
fn is_hashed(name: &str) -> bool {
    let mut parts = name.split('.');
    let (Some(stem), Some(hash), Some(ext), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    !stem.is_empty()
        && hash.len() == 10
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
        && matches!(ext, "js" | "css")
}

/// Gzipped assets, made once each (the set is the build's, so bounded).
static GZIPPED: LazyLock<Mutex<HashMap<String, Bytes>>> = LazyLock::new(Default::default);

fn gzipped(name: &str, bytes: &[u8]) -> Result<Bytes, ApiError> {
    let mut made = GZIPPED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(kept) = made.get(name) {
        return Ok(kept.clone());
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder
        .write_all(bytes)
        .map_err(|e| ApiError::Internal(format!("gzipping {name}: {e}")))?;
    let zipped = Bytes::from(
        encoder
            .finish()
            .map_err(|e| ApiError::Internal(format!("gzipping {name}: {e}")))?,
    );
    made.insert(name.to_owned(), zipped.clone());
    Ok(zipped)
}

/// `GET /assets/{name}`: a hashed script or style of the pages, cached for
/// a year (its name changes with its content), gzipped when accepted.
#[utoipa::path(get, path = "/assets/{name}", tag = "pages", operation_id = "page_asset", params(("name" = String, Path, description = "`{stem}.{10 hex}.{js|css}`")), responses((status = 200, description = "The asset"), (status = 404, description = "No such asset", body = crate::error::ErrorBody<'static>)))]
pub async fn asset(
    path: web::Path<String>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let found = is_hashed(&name)
        .then(|| WebDist::get(&name))
        .flatten()
        .ok_or_else(|| ApiError::NotFound("no such asset".into()))?;
    let kind = if name.ends_with(".js") {
        "text/javascript; charset=utf-8"
    } else {
        "text/css; charset=utf-8"
    };
    let mut response = HttpResponse::Ok();
    response
        .content_type(kind)
        .insert_header((header::CACHE_CONTROL, "public, max-age=31536000, immutable"))
        .insert_header((header::VARY, "Accept-Encoding"));
    if accepts_gzip(&request) {
        response.insert_header((header::CONTENT_ENCODING, "gzip"));
        return Ok(response.body(gzipped(&name, &found.data)?));
    }
    Ok(response.body(Bytes::from(found.data.into_owned())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use confer_actors::{AgentId, OrgId};

    #[test]
    fn the_chat_policy_names_its_framers_and_avatar() {
        let mut publication = Publication::new(OrgId::new(), AgentId::new(), "help".into());
        publication.avatar_url = Some("https://cdn.example.com/a/me.png".into());
        let policy = chat_policy(&publication, &["https://shop.example.com".to_owned()]);
        assert!(
            policy.contains("img-src 'self' data: https://cdn.example.com;"),
            "{policy}"
        );
        assert!(
            policy.contains("frame-ancestors 'self' https://shop.example.com;"),
            "{policy}"
        );
        assert!(policy.ends_with("require-trusted-types-for 'script'; trusted-types 'none'"));
    }

    #[test]
    fn only_hashed_scripts_and_styles_are_assets() {
        assert!(is_hashed("chat.0123456789.js"));
        assert!(is_hashed("chat.abcdef0123.css"));
        for name in [
            "chat.html",
            "embed.js",
            "chat.012345678.js",
            "x.0123456789.map",
            "../x",
        ] {
            assert!(!is_hashed(name), "{name}");
        }
        // Every hashed file of the build is one.
        let built: Vec<String> = WebDist::iter().map(|n| n.into_owned()).collect();
        assert!(
            built.iter().filter(|n| is_hashed(n)).count() >= 2,
            "{built:?}"
        );
    }
}
