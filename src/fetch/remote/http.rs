//! http(s) GETs through ureq on rustls: trust roots from the system store
//! (`SSL_CERT_FILE` / `SSL_CERT_DIR` honoured), proxies from the
//! environment (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`),
//! redirects followed as Go's http client does (up to 10).

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// http requests made by this process (fetch counting).
pub static HTTP_REQUESTS: AtomicUsize = AtomicUsize::new(0);

/// The largest remote file accepted.
const MAX_BODY: u64 = 512 * 1024 * 1024;

/// What a GET returned.
#[derive(Debug)]
pub enum Response {
    /// 2xx with its body and validators.
    Ok {
        /// The body.
        body: Vec<u8>,
        /// `ETag`.
        etag: Option<String>,
        /// `Last-Modified`.
        last_modified: Option<String>,
    },
    /// 304 to a conditional request.
    NotModified,
    /// Any other status.
    Status(u16, String),
}

/// Conditional request validators from an earlier response.
#[derive(Debug, Default, Clone)]
pub struct Validators {
    /// Sent as `If-None-Match`.
    pub etag: Option<String>,
    /// Sent as `If-Modified-Since`.
    pub last_modified: Option<String>,
}

/// GET `url`; `Err` is a transport failure (DNS, connect, TLS, timeout).
pub fn get(url: &str, validators: &Validators) -> Result<Response, String> {
    let mut headers = Vec::new();
    if let Some(e) = &validators.etag {
        headers.push(("If-None-Match", e.clone()));
    }
    if let Some(m) = &validators.last_modified {
        headers.push(("If-Modified-Since", m.clone()));
    }
    get_with(url, &headers).map(|(r, _)| r)
}

/// GET `url` with extra request headers; also returns the response's
/// `WWW-Authenticate` header (for registries' token challenges).
pub fn get_with(
    url: &str,
    headers: &[(&str, String)],
) -> Result<(Response, Option<String>), String> {
    HTTP_REQUESTS.fetch_add(1, Ordering::Relaxed);
    tracing::debug!(%url, "http get");
    let agent = agent_for(url)?;
    let mut req = agent.get(url);
    for (k, v) in headers {
        req = req.set(k, v);
    }
    let resp = match req.call() {
        Ok(r) => r,
        Err(ureq::Error::Status(code, r)) => {
            if code == 304 {
                return Ok((Response::NotModified, None));
            }
            let challenge = r.header("WWW-Authenticate").map(str::to_string);
            return Ok((
                Response::Status(code, r.status_text().to_string()),
                challenge,
            ));
        }
        Err(ureq::Error::Transport(t)) => return Err(t.to_string()),
    };
    get_body(resp).map(|r| (r, None))
}

fn get_body(resp: ureq::Response) -> Result<Response, String> {
    if resp.status() == 304 {
        return Ok(Response::NotModified);
    }
    if !(200..300).contains(&resp.status()) {
        return Ok(Response::Status(
            resp.status(),
            resp.status_text().to_string(),
        ));
    }
    let etag = resp.header("ETag").map(str::to_string);
    let last_modified = resp.header("Last-Modified").map(str::to_string);
    let mut body = Vec::new();
    resp.into_reader()
        .take(MAX_BODY)
        .read_to_end(&mut body)
        .map_err(|e| format!("reading the response body: {e}"))?;
    Ok(Response::Ok {
        body,
        etag,
        last_modified,
    })
}

/// The agent for `url`: with the environment's proxy unless `NO_PROXY`
/// exempts the host.
fn agent_for(url: &str) -> Result<ureq::Agent, String> {
    static DIRECT: OnceLock<Result<ureq::Agent, String>> = OnceLock::new();
    static PROXIED: OnceLock<Result<ureq::Agent, String>> = OnceLock::new();
    let host = url_host(url).to_ascii_lowercase();
    let proxied = !no_proxy(&host);
    let cell = if proxied { &PROXIED } else { &DIRECT };
    cell.get_or_init(|| build_agent(proxied)).clone()
}

fn build_agent(proxied: bool) -> Result<ureq::Agent, String> {
    let mut b = ureq::AgentBuilder::new()
        .redirects(10)
        .timeout_connect(Duration::from_secs(30))
        .timeout(Duration::from_secs(300))
        .tls_config(tls_config()?)
        .user_agent(concat!("kustom/", env!("CARGO_PKG_VERSION")));
    if proxied {
        b = b.try_proxy_from_env(true);
    }
    Ok(b.build())
}

fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(format!(
            "no trusted CA certificates found (set SSL_CERT_FILE or SSL_CERT_DIR){}",
            found
                .errors
                .first()
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The host of a URL (`scheme://user@host:port/path`), without brackets
/// for IPv6: Go's `url.Hostname`.
pub fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit('@').next().unwrap_or("");
    match hostport.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => hostport.split(':').next().unwrap_or(""),
    }
}

/// Whether `NO_PROXY`/`no_proxy` exempts `host` (entries are host names,
/// domain suffixes with or without a leading dot, or `*`).
fn no_proxy(host: &str) -> bool {
    let list = std::env::var("NO_PROXY")
        .or_else(|_| std::env::var("no_proxy"))
        .unwrap_or_default();
    list.split(',')
        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
        .filter(|e| !e.is_empty())
        .any(|e| {
            let e = e.split(':').next().unwrap_or("").to_string();
            e == "*" || host == e || host.ends_with(&format!(".{e}"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert_eq!(url_host("https://u:p@Example.COM:8443/x?y"), "Example.COM");
        assert_eq!(url_host("http://[::1]:80/x"), "::1");
        assert_eq!(url_host("http://127.0.0.1/x"), "127.0.0.1");
    }
}
