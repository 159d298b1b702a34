//! Helm charts from repositories (`helmCharts[].repo`), pulled by the core
//! into kustom's cache and handed to the builtin HelmChartInflationGenerator
//! as a local directory, so the confined builtin needs no network and the
//! user's tree is not written (kustomize runs `helm pull --untar` into the
//! kustomization's `charts/`).
//!
//! A chart repository is an `index.yaml` beside `.tgz` archives; an
//! `oci://` repository is an OCI registry holding the chart as a layer of
//! media type `application/vnd.cncf.helm.chart.content.v1.tar+gzip`. The
//! version is chosen as `helm pull --version` chooses it: an exact match
//! first, else the highest version the range admits, else (no version) the
//! highest release.
//!
//! ```text
//! $XDG_CACHE_HOME/kustom/charts/
//!   archives/<sha256>.tgz              chart archives, by content
//!   pulled/<key>.json                  what (repo, chart, version) resolved to
//!   http/…                             repository indexes, revalidated (remote::cache)
//! ```
//!
//! An exact version, once pulled, costs no request (a chart version is
//! published once); a range or no version revalidates the index. The lock
//! pins the exact version, the archive's URL and its sha256: a locked build
//! makes no request when the archive is cached and refuses an archive whose
//! bytes changed under the same version, naming both digests. `kustom lock`
//! downloads what it pins. Archives are re-hashed on every use, and
//! unpacked afresh for every build into a private directory removed after
//! it, so nothing a build reads can have been changed in place.

use crate::fetch::lock::{sha256_hex, ChartPin, LockMode, LockState};
use crate::fetch::progress;
use crate::fetch::remote::cache::{Cache, FileMeta, FileState};
use crate::fetch::remote::http;
use kustom_api::{yaml, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub use kustom_api::protocol::chart_key;

/// One chart as a kustomization names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChartRef {
    /// `helmCharts[].repo`: an http(s) chart repository or `oci://…`.
    pub repo: String,
    /// `helmCharts[].name`.
    pub name: String,
    /// `helmCharts[].version` (may be empty, or a range).
    pub version: String,
}

impl std::fmt::Display for ChartRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = if self.version.is_empty() {
            "(latest)"
        } else {
            &self.version
        };
        write!(f, "chart {} {v} from {}", self.name, self.repo)
    }
}

/// What `(repo, chart, version)` resolved to, kept in `pulled/`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Pulled {
    resolved: String,
    url: String,
    sha256: String,
}

type Memo = Arc<OnceLock<Result<PathBuf, String>>>;

/// The charts of one build.
#[derive(Debug)]
pub struct Charts {
    root: PathBuf,
    offline: bool,
    lock: Arc<LockState>,
    memo: Mutex<HashMap<ChartRef, Memo>>,
    /// chart key → unpacked chart directory, handed to the builtin.
    handed: Mutex<BTreeMap<String, PathBuf>>,
    /// This build's unpacked charts (removed when the build ends).
    unpacked: Mutex<Vec<crate::fetch::remote::cache::Scratch>>,
}

impl Charts {
    /// Charts cached under `cache_root/charts`.
    pub fn new(cache_root: &Path, offline: bool, lock: Arc<LockState>) -> Charts {
        Charts {
            root: cache_root.join("charts"),
            offline,
            lock,
            memo: Mutex::new(HashMap::new()),
            handed: Mutex::new(BTreeMap::new()),
            unpacked: Mutex::new(Vec::new()),
        }
    }

    /// chart key → local chart directory of every chart pulled so far.
    pub fn handed(&self) -> BTreeMap<String, PathBuf> {
        self.handed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The chart's directory (unpacked from a verified archive), pulling
    /// it into the cache first when needed; once per build.
    pub fn pull(&self, chart: &ChartRef) -> Result<PathBuf, String> {
        let memo = self
            .memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(chart.clone())
            .or_default()
            .clone();
        let dir = memo.get_or_init(|| self.pull_once(chart)).clone()?;
        self.handed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                chart_key(&chart.repo, &chart.name, &chart.version),
                dir.clone(),
            );
        Ok(dir)
    }

    fn pin(&self, chart: &ChartRef) -> Option<ChartPin> {
        match self.lock.mode {
            LockMode::Enforce | LockMode::Locked => self
                .lock
                .pinned
                .chart(&chart.repo, &chart.name, &chart.version)
                .cloned(),
            LockMode::Unlocked | LockMode::Record => None,
        }
    }

    fn pull_once(&self, chart: &ChartRef) -> Result<PathBuf, String> {
        if let Some(e) = self.lock.missing_file_error(&chart.to_string()) {
            return Err(e);
        }
        let pin = self.pin(chart);
        if pin.is_none() && self.lock.mode == LockMode::Locked {
            return Err(format!(
                "{chart} is not in {} and --locked forbids adding it; run `kustom lock` to record it",
                self.lock
                    .path
                    .as_ref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| crate::fetch::lock::LOCK_FILE.into())
            ));
        }
        let pulled = match &pin {
            Some(pin) => self.pinned(chart, pin)?,
            None => self.resolve_and_fetch(chart)?,
        };
        if self.lock.mode != LockMode::Unlocked {
            self.lock.record_chart(ChartPin {
                repo: chart.repo.clone(),
                chart: chart.name.clone(),
                version: chart.version.clone(),
                resolved: pulled.resolved.clone(),
                url: pulled.url.clone(),
                sha256: pulled.sha256.clone(),
            });
        }
        self.unpack(chart, &pulled.sha256)
    }

    /// A pinned chart: the cached archive with the pinned digest (no
    /// request), else a download of the pinned URL that must match.
    fn pinned(&self, chart: &ChartRef, pin: &ChartPin) -> Result<Pulled, String> {
        let pulled = Pulled {
            resolved: pin.resolved.clone(),
            url: pin.url.clone(),
            sha256: pin.sha256.clone(),
        };
        if self.archive_ok(&pin.sha256) {
            return Ok(pulled);
        }
        if self.offline {
            return Err(format!(
                "--offline: {chart} (version {}, sha256 {}) is not in the cache ({}); build once online",
                pin.resolved,
                pin.sha256,
                self.root.display()
            ));
        }
        let body = match self.download_archive(chart, &pin.url) {
            Ok(b) => b,
            Err(e) => match chart.repo.strip_prefix("oci://") {
                // The pinned (content-addressed) blob is gone: say what the
                // tag holds now.
                Some(reg) => {
                    let tag = ChartRef {
                        version: pin.resolved.clone(),
                        ..chart.clone()
                    };
                    match self.resolve_oci(&tag, reg) {
                        Ok((now, _)) if now.sha256 != pin.sha256 => {
                            return Err(format!(
                                "{chart}: version {} now has sha256 {}, but kustom.lock pins sha256 {} (no longer served: {e}): the chart changed under the same version; review it and run `kustom lock` to accept it",
                                pin.resolved, now.sha256, pin.sha256
                            ))
                        }
                        _ => return Err(e),
                    }
                }
                None => return Err(e),
            },
        };
        let got = sha256_hex(&body);
        if got != pin.sha256 {
            return Err(format!(
                "{chart}: the archive of version {} at {} has sha256 {got}, but kustom.lock pins sha256 {}: the chart changed under the same version; review it and run `kustom lock` to accept it",
                pin.resolved, pin.url, pin.sha256
            ));
        }
        self.store_archive(&got, &body)?;
        Ok(pulled)
    }

    fn resolve_and_fetch(&self, chart: &ChartRef) -> Result<Pulled, String> {
        let record = self.lock.mode == LockMode::Record;
        let known = self.read_pulled(chart);
        // A published chart version does not change: an exact version
        // pulled before costs nothing (`kustom lock` downloads anyway).
        if let Some(p) = &known {
            if (is_exact(&chart.version) || self.offline) && !record && self.archive_ok(&p.sha256) {
                return Ok(p.clone());
            }
        }
        if self.offline {
            let why = match &known {
                Some(p) if self.archive_path(&p.sha256).exists() => format!(
                    "its cached archive {} is damaged (it no longer matches sha256 {})",
                    self.archive_path(&p.sha256).display(),
                    p.sha256
                ),
                _ => format!("it is not in the cache ({})", self.root.display()),
            };
            return Err(format!("--offline: {chart}: {why}; build once online"));
        }
        let _announce = progress::announce_if_slow(chart.to_string());
        let pulled = if let Some(reg) = chart.repo.strip_prefix("oci://") {
            self.resolve_oci(chart, reg)?
        } else {
            self.resolve_index(chart)?
        };
        let (pulled, body) = pulled;
        let body = match body {
            Some(b) => b,
            None if !record && self.archive_ok(&pulled.sha256) => {
                self.write_pulled(chart, &pulled)?;
                return Ok(pulled);
            }
            None => self.download_archive(chart, &pulled.url)?,
        };
        let got = sha256_hex(&body);
        if !pulled.sha256.is_empty() && got != pulled.sha256 {
            return Err(format!(
                "{chart}: the archive at {} has sha256 {got}, but the repository says sha256 {}; the repository is inconsistent",
                pulled.url, pulled.sha256
            ));
        }
        let pulled = Pulled {
            sha256: got.clone(),
            ..pulled
        };
        self.store_archive(&got, &body)?;
        self.write_pulled(chart, &pulled)?;
        Ok(pulled)
    }

    /// An http(s) chart repository: its `index.yaml` (revalidated), the
    /// entry helm would choose. The archive is downloaded by the caller.
    fn resolve_index(&self, chart: &ChartRef) -> Result<(Pulled, Option<Vec<u8>>), String> {
        let base = chart.repo.trim_end_matches('/');
        let index_url = format!("{base}/index.yaml");
        let cache = Cache::new(self.root.clone());
        let cached = match cache.file_state(&index_url) {
            FileState::Ok(p, m) if self.lock.mode != LockMode::Record => Some((p, m)),
            _ => None,
        };
        let validators = cached
            .as_ref()
            .map(|(_, m)| m.validators())
            .unwrap_or_default();
        let text = match http::get(&index_url, &validators)
            .map_err(|e| format!("{chart}: GET {index_url}: {e}"))?
        {
            http::Response::NotModified => match &cached {
                Some((p, _)) => std::fs::read_to_string(p).map_err(|e| e.to_string())?,
                None => return Err(format!("{chart}: GET {index_url}: 304 without a cached copy")),
            },
            http::Response::Status(code, text) => {
                return Err(format!(
                    "{chart}: GET {index_url}: HTTP status code {code} ({text}); is {} a chart repository?",
                    chart.repo
                ))
            }
            http::Response::Ok {
                body,
                etag,
                last_modified,
            } => {
                let meta = FileMeta {
                    url: index_url.clone(),
                    sha256: sha256_hex(&body),
                    etag,
                    last_modified,
                };
                let _ = cache.store_file(&meta, &body);
                String::from_utf8(body)
                    .map_err(|_| format!("{chart}: {index_url} is not UTF-8 text"))?
            }
        };
        let index = yaml::parse_stream(&text)
            .map_err(|e| format!("{chart}: {index_url} is not a chart index: {e}"))?
            .into_iter()
            .next()
            .unwrap_or(Value::Null);
        let entries = index
            .get("entries")
            .and_then(|e| e.get(&chart.name))
            .and_then(Value::as_array)
            .ok_or_else(|| format!("{chart}: chart \"{}\" not found in {index_url}", chart.name))?;
        let versions: Vec<(&str, &Value)> = entries
            .iter()
            .filter_map(|e| Some((e.get("version")?.as_str()?, e)))
            .collect();
        let (version, entry) = choose(&versions, &chart.version).ok_or_else(|| {
            format!(
                "{chart}: no chart version found for {}-{} in {index_url}",
                chart.name, chart.version
            )
        })?;
        let url = entry
            .get("urls")
            .and_then(Value::as_array)
            .and_then(|u| u.first())
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{chart}: {index_url} lists no URL for version {version}"))?;
        let digest = entry
            .get("digest")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim_start_matches("sha256:")
            .to_string();
        Ok((
            Pulled {
                resolved: version.to_string(),
                url: resolve_url(base, url),
                sha256: digest,
            },
            None,
        ))
    }

    /// An OCI registry: the tag (the version, `+` as `_`; the highest
    /// release tag when no version is given), its manifest, the chart
    /// layer (content-addressed, so its digest is checked as it arrives).
    fn resolve_oci(
        &self,
        chart: &ChartRef,
        reg: &str,
    ) -> Result<(Pulled, Option<Vec<u8>>), String> {
        let (host, path) = reg
            .trim_end_matches('/')
            .split_once('/')
            .unwrap_or((reg, ""));
        let repo = if path.is_empty() {
            chart.name.clone()
        } else {
            format!("{path}/{}", chart.name)
        };
        let base = format!("https://{host}/v2/{repo}");
        let version = if is_exact(&chart.version) {
            chart.version.clone()
        } else {
            let tags = oci_get(&format!("{base}/tags/list"), "application/json")
                .map_err(|e| format!("{chart}: {e}"))?;
            let tags: Value = serde_json::from_slice(&tags)
                .map_err(|e| format!("{chart}: {base}/tags/list: {e}"))?;
            let names: Vec<String> = tags
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(Value::as_str)
                        .map(|t| t.replace('_', "+"))
                        .collect()
                })
                .unwrap_or_default();
            let with: Vec<(&str, &Value)> =
                names.iter().map(|n| (n.as_str(), &Value::Null)).collect();
            choose(&with, &chart.version)
                .map(|(v, _)| v.to_string())
                .ok_or_else(|| {
                    format!(
                        "{chart}: no chart version found for {}-{} in oci://{reg}",
                        chart.name, chart.version
                    )
                })?
        };
        let tag = version.replace('+', "_");
        let manifest_url = format!("{base}/manifests/{tag}");
        let manifest = oci_get(&manifest_url, "application/vnd.oci.image.manifest.v1+json")
            .map_err(|e| format!("{chart}: {e}"))?;
        let manifest: Value = serde_json::from_slice(&manifest)
            .map_err(|e| format!("{chart}: {manifest_url}: not an OCI manifest: {e}"))?;
        let layer = manifest
            .get("layers")
            .and_then(Value::as_array)
            .and_then(|ls| {
                ls.iter().find(|l| {
                    l.get("mediaType").and_then(Value::as_str)
                        == Some("application/vnd.cncf.helm.chart.content.v1.tar+gzip")
                })
            })
            .ok_or_else(|| format!("{chart}: {manifest_url} holds no Helm chart layer"))?;
        let digest = layer
            .get("digest")
            .and_then(Value::as_str)
            .and_then(|d| d.strip_prefix("sha256:"))
            .ok_or_else(|| {
                format!("{chart}: {manifest_url}: the chart layer has no sha256 digest")
            })?
            .to_string();
        let url = format!("oci://{reg}/{}:{tag}@sha256:{digest}", chart.name);
        let pulled = Pulled {
            resolved: version,
            url,
            sha256: digest.clone(),
        };
        if self.lock.mode != LockMode::Record && self.archive_ok(&digest) {
            return Ok((pulled, None));
        }
        let body = oci_get(&format!("{base}/blobs/sha256:{digest}"), "*/*")
            .map_err(|e| format!("{chart}: {e}"))?;
        Ok((pulled, Some(body)))
    }

    fn download_archive(&self, chart: &ChartRef, url: &str) -> Result<Vec<u8>, String> {
        if let Some(rest) = url.strip_prefix("oci://") {
            // oci://host/path/name:tag@sha256:digest
            let (name_tag, digest) = rest
                .rsplit_once("@sha256:")
                .ok_or_else(|| format!("{chart}: {url}: not a pinned OCI reference"))?;
            let (host, repo) = name_tag.split_once('/').unwrap_or((name_tag, ""));
            let repo = repo.rsplit_once(':').map(|(r, _)| r).unwrap_or(repo);
            let blob = format!("https://{host}/v2/{repo}/blobs/sha256:{digest}");
            return oci_get(&blob, "*/*").map_err(|e| format!("{chart}: {e}"));
        }
        match http::get(url, &http::Validators::default())
            .map_err(|e| format!("{chart}: GET {url}: {e}"))?
        {
            http::Response::Ok { body, .. } => Ok(body),
            http::Response::NotModified => Err(format!("{chart}: GET {url}: unexpected 304")),
            http::Response::Status(code, text) => Err(format!(
                "{chart}: GET {url}: HTTP status code {code} ({text})"
            )),
        }
    }

    fn archive_path(&self, sha: &str) -> PathBuf {
        self.root.join("archives").join(format!("{sha}.tgz"))
    }

    fn archive_ok(&self, sha: &str) -> bool {
        let p = self.archive_path(sha);
        match crate::fetch::lock::file_sha256(&p) {
            Ok(d) if d == sha => {
                crate::fetch::remote::cache::touch(&p);
                true
            }
            Ok(_) => {
                tracing::warn!(path = %p.display(), "cached chart archive does not match its digest; fetching it again");
                false
            }
            Err(_) => false,
        }
    }

    fn store_archive(&self, sha: &str, body: &[u8]) -> Result<(), String> {
        let p = self.archive_path(sha);
        let dir = p.parent().expect("inside archives/");
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        crate::fetch::lock::write_atomically(&p, body).map_err(|e| e.to_string())
    }

    fn pulled_path(&self, chart: &ChartRef) -> PathBuf {
        let key = sha256_hex(chart_key(&chart.repo, &chart.name, &chart.version).as_bytes());
        self.root
            .join("pulled")
            .join(format!("{}.json", &key[..32]))
    }

    fn read_pulled(&self, chart: &ChartRef) -> Option<Pulled> {
        serde_json::from_str(&std::fs::read_to_string(self.pulled_path(chart)).ok()?).ok()
    }

    fn write_pulled(&self, chart: &ChartRef, p: &Pulled) -> Result<(), String> {
        let path = self.pulled_path(chart);
        let dir = path.parent().expect("inside pulled/");
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let text = serde_json::to_string_pretty(p).expect("plain struct");
        crate::fetch::lock::write_atomically(&path, text.as_bytes()).map_err(|e| e.to_string())
    }

    /// Unpack the verified archive into a private directory of this build;
    /// returns the chart's directory in it.
    fn unpack(&self, chart: &ChartRef, sha: &str) -> Result<PathBuf, String> {
        let archive = self.archive_path(sha);
        let body = std::fs::read(&archive).map_err(|e| format!("{}: {e}", archive.display()))?;
        if sha256_hex(&body) != sha {
            return Err(format!(
                "{}: changed while in use (sha256 {sha} expected)",
                archive.display()
            ));
        }
        let dir = Cache::new(self.root.parent().unwrap_or(&self.root).to_path_buf())
            .scratch_named("chart-")
            .map_err(|e| e.to_string())?;
        let bad = |e: std::io::Error| {
            format!(
                "{chart}: {} is not a chart archive (.tgz): {e}",
                archive.display()
            )
        };
        let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(&body[..]));
        ar.set_preserve_permissions(false);
        for entry in ar.entries().map_err(bad)? {
            let mut entry = entry.map_err(bad)?;
            // `unpack_in` refuses paths that leave the directory; links
            // are not part of a chart.
            if !matches!(
                entry.header().entry_type(),
                tar::EntryType::Regular | tar::EntryType::Directory
            ) {
                continue;
            }
            entry.unpack_in(dir.path()).map_err(bad)?;
        }
        let top = dir.path().join(&chart.name);
        let chart_dir = if top.join("Chart.yaml").is_file() {
            top
        } else {
            // One top directory of another name.
            let tops: Vec<PathBuf> = std::fs::read_dir(dir.path())
                .map_err(|e| e.to_string())?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("Chart.yaml").is_file())
                .collect();
            match tops.as_slice() {
                [one] => one.clone(),
                _ => {
                    return Err(format!(
                        "{chart}: {} holds no chart directory (a directory with Chart.yaml)",
                        archive.display()
                    ))
                }
            }
        };
        self.unpacked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(dir);
        Ok(chart_dir)
    }
}

/// Whether a version names one version (not a range, not empty).
fn is_exact(v: &str) -> bool {
    !v.is_empty() && parse_version(v).is_some() && !v.starts_with(['^', '~', '=', '<', '>'])
}

/// A chart version as helm's semver reads it: `v` allowed, missing minor
/// or patch taken as 0.
fn parse_version(v: &str) -> Option<semver::Version> {
    let v = v.trim().trim_start_matches('v');
    if let Ok(s) = semver::Version::parse(v) {
        return Some(s);
    }
    let (core, rest) = match v.find(['-', '+']) {
        Some(i) => (&v[..i], &v[i..]),
        None => (v, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let padded = match parts.len() {
        1 => format!("{}.0.0{rest}", parts[0]),
        2 => format!("{}.{}.0{rest}", parts[0], parts[1]),
        _ => return None,
    };
    semver::Version::parse(&padded).ok()
}

/// helm's `IndexFile.Get`: an exact match of the version string first,
/// else the highest version the constraint admits (no constraint: the
/// highest release, prereleases excluded).
fn choose<'a, T>(versions: &[(&'a str, T)], wanted: &str) -> Option<(&'a str, T)>
where
    T: Copy,
{
    if !wanted.is_empty() {
        if let Some(&(v, e)) = versions.iter().find(|(v, _)| *v == wanted) {
            return Some((v, e));
        }
    }
    let reqs: Vec<semver::VersionReq> = if wanted.is_empty() || wanted == "*" {
        vec![semver::VersionReq::STAR]
    } else {
        wanted
            .split("||")
            .map(|alt| {
                // Masterminds separates ANDed comparators with spaces or commas.
                let mut parts: Vec<String> = Vec::new();
                for tok in alt.split([',', ' ']).filter(|t| !t.is_empty()) {
                    match parts.last_mut() {
                        Some(last) if last.chars().all(|c| "<>=~^!".contains(c)) => {
                            last.push_str(tok)
                        }
                        _ => parts.push(tok.to_string()),
                    }
                }
                semver::VersionReq::parse(&parts.join(", "))
            })
            .collect::<Result<_, _>>()
            .ok()?
    };
    versions
        .iter()
        .filter_map(|&(v, e)| Some((parse_version(v)?, v, e)))
        .filter(|(sv, _, _)| reqs.iter().any(|r| admits(r, sv)))
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, v, e)| (v, e))
}

/// Whether `req` admits `v` as helm's constraints (Masterminds semver)
/// do: a prerelease only passes comparators that name a prerelease
/// themselves, but then of any version (`>0.0.0-0`, what `helm pull
/// --devel` asks for, admits every prerelease); Rust's semver admits
/// prereleases of the comparator's own version only.
fn admits(req: &semver::VersionReq, v: &semver::Version) -> bool {
    use semver::Op;
    use std::cmp::Ordering::{Equal, Greater, Less};
    if v.pre.is_empty() || req.comparators.iter().all(|c| c.pre.is_empty()) {
        return req.matches(v);
    }
    req.comparators.iter().all(|c| {
        if c.pre.is_empty() {
            return false;
        }
        let bound = semver::Version {
            major: c.major,
            minor: c.minor.unwrap_or(0),
            patch: c.patch.unwrap_or(0),
            pre: c.pre.clone(),
            build: semver::BuildMetadata::EMPTY,
        };
        let order = v.cmp_precedence(&bound);
        match c.op {
            Op::Greater => order == Greater,
            Op::GreaterEq => order != Less,
            Op::Less => order == Less,
            Op::LessEq => order != Greater,
            Op::Exact => order == Equal,
            _ => c.matches(v),
        }
    })
}

/// helm's `ResolveReferenceURL`: an archive URL relative to the repository.
fn resolve_url(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    if let Some(path) = url.strip_prefix('/') {
        let (scheme, rest) = base.split_once("://").unwrap_or(("https", base));
        let host = rest.split('/').next().unwrap_or(rest);
        return format!("{scheme}://{host}/{path}");
    }
    format!("{base}/{url}")
}

/// GET from an OCI registry, answering a bearer-token challenge
/// anonymously (public charts), as helm's registry client does.
fn oci_get(url: &str, accept: &str) -> Result<Vec<u8>, String> {
    let headers = vec![("Accept", accept.to_string())];
    let (resp, challenge) = http::get_with(url, &headers).map_err(|e| format!("GET {url}: {e}"))?;
    let resp = match (resp, challenge) {
        (http::Response::Status(401, _), Some(ch)) if ch.starts_with("Bearer ") => {
            let params = parse_challenge(&ch["Bearer ".len()..]);
            let realm = params
                .get("realm")
                .ok_or_else(|| format!("GET {url}: 401 with a challenge naming no realm: {ch}"))?;
            let mut token_url = realm.clone();
            let query: Vec<String> = ["service", "scope"]
                .iter()
                .filter_map(|k| params.get(*k).map(|v| format!("{k}={}", encode(v))))
                .collect();
            if !query.is_empty() {
                token_url.push(if token_url.contains('?') { '&' } else { '?' });
                token_url.push_str(&query.join("&"));
            }
            let token = match http::get(&token_url, &http::Validators::default())
                .map_err(|e| format!("GET {token_url}: {e}"))?
            {
                http::Response::Ok { body, .. } => {
                    let v: Value = serde_json::from_slice(&body)
                        .map_err(|e| format!("GET {token_url}: {e}"))?;
                    v.get("token")
                        .or_else(|| v.get("access_token"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| format!("GET {token_url}: no token in the answer"))?
                }
                other => return Err(format!("GET {token_url}: {other:?}")),
            };
            let mut headers = headers.clone();
            headers.push(("Authorization", format!("Bearer {token}")));
            http::get_with(url, &headers)
                .map_err(|e| format!("GET {url}: {e}"))?
                .0
        }
        (r, _) => r,
    };
    match resp {
        http::Response::Ok { body, .. } => Ok(body),
        http::Response::NotModified => Err(format!("GET {url}: unexpected 304")),
        http::Response::Status(code, text) => Err(format!(
            "GET {url}: HTTP status code {code} ({text}) (kustom pulls public charts anonymously)"
        )),
    }
}

fn parse_challenge(s: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut rest = s.trim();
    while let Some((k, v)) = rest.split_once('=') {
        let k = k.trim().trim_start_matches(',').trim().to_string();
        let v = v.trim_start();
        let (val, tail) = match v.strip_prefix('"') {
            Some(q) => match q.find('"') {
                Some(i) => (&q[..i], &q[i + 1..]),
                None => (q, ""),
            },
            None => match v.find(',') {
                Some(i) => (&v[..i], &v[i..]),
                None => (v, ""),
            },
        };
        out.insert(k, val.to_string());
        rest = tail;
    }
    out
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_chosen_as_helm_does() {
        let vs = [
            ("1.2.0", ()),
            ("1.10.0", ()),
            ("2.0.0-rc.1", ()),
            ("v1.3", ()),
        ];
        assert_eq!(choose(&vs, "").map(|v| v.0), Some("1.10.0"));
        assert_eq!(choose(&vs, "1.2.0").map(|v| v.0), Some("1.2.0"));
        assert_eq!(choose(&vs, "~1.2").map(|v| v.0), Some("1.2.0"));
        assert_eq!(choose(&vs, ">= 1.2, < 1.5").map(|v| v.0), Some("v1.3"));
        assert_eq!(
            choose(&vs, "^1.0 || ^2.0.0-rc").map(|v| v.0),
            Some("2.0.0-rc.1")
        );
        assert_eq!(choose(&vs, "3.0.0"), None);
        // `helm pull --devel` without a version: prereleases of any version count.
        assert_eq!(
            choose(&vs, kustom_api::protocol::DEVEL_CHART_VERSION).map(|v| v.0),
            Some("2.0.0-rc.1")
        );
        assert_eq!(choose(&vs, ">=1.5.0-0").map(|v| v.0), Some("2.0.0-rc.1"));
        assert_eq!(choose(&vs, ">=1.11.0").map(|v| v.0), None);
        assert!(is_exact("1.2.3") && is_exact("v1.2") && !is_exact("^1.2") && !is_exact(""));
    }

    #[test]
    fn urls_and_challenges() {
        assert_eq!(
            resolve_url("https://h/charts", "app-1.0.0.tgz"),
            "https://h/charts/app-1.0.0.tgz"
        );
        assert_eq!(
            resolve_url("https://h/charts", "/x/a.tgz"),
            "https://h/x/a.tgz"
        );
        assert_eq!(
            resolve_url("https://h/c", "http://o/a.tgz"),
            "http://o/a.tgz"
        );
        let c = parse_challenge(
            r#"realm="https://auth/token",service="reg",scope="repository:a/b:pull""#,
        );
        assert_eq!(c["realm"], "https://auth/token");
        assert_eq!(c["scope"], "repository:a/b:pull");
    }
}
