//! An offline world for remote-resource tests: bare git repositories made
//! in a temp dir, public-looking URLs routed to them with
//! `url.<local>.insteadOf` (through `GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`),
//! a `git` shim on PATH that logs every invocation, and http/https servers
//! on 127.0.0.1 (a CA made for the test) that count requests.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

/// Files served under `/files/<name>`.
pub type Files = Arc<Mutex<HashMap<String, Vec<u8>>>>;

/// One request the server saw: path and status answered.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub status: u16,
}

/// A test http(s) server on 127.0.0.1.
pub struct Server {
    pub port: u16,
    pub files: Files,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    pub tls: bool,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://127.0.0.1:{}{path}", self.port)
    }
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
    pub fn clear(&self) {
        self.seen.lock().unwrap().clear();
    }
}

fn handle(mut stream: Box<dyn ReadWrite>, files: &Files, seen: &Arc<Mutex<Vec<Seen>>>) {
    let mut reader = BufReader::new(&mut stream);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut inm = None;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("if-none-match") {
                inm = Some(v.trim().to_string());
            }
        }
    }
    drop(reader);
    let mut clean = path.split('?').next().unwrap_or("").to_string();
    if let Some(name) = clean.strip_prefix("/slow/") {
        // A slow server: the file, a second and a half late.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        clean = format!("/files/{name}");
    }
    let (status, headers, body): (u16, Vec<String>, Vec<u8>) =
        if let Some(name) = clean.strip_prefix("/files/") {
            match files.lock().unwrap().get(name) {
                Some(b) => {
                    let etag = format!(
                        "\"{}\"",
                        b.len() * 31 + b.iter().map(|&x| x as usize).sum::<usize>()
                    );
                    if inm.as_deref() == Some(etag.as_str()) {
                        (304, vec![format!("ETag: {etag}")], Vec::new())
                    } else {
                        (200, vec![format!("ETag: {etag}")], b.clone())
                    }
                }
                None => (404, vec![], b"not found\n".to_vec()),
            }
        } else if let Some(name) = clean.strip_prefix("/redirect/") {
            (302, vec![format!("Location: /files/{name}")], Vec::new())
        } else if let Some(name) = clean.strip_prefix("/redirect2/") {
            (301, vec![format!("Location: /redirect/{name}")], Vec::new())
        } else if let Some(b) = files.lock().unwrap().get(clean.trim_start_matches('/')) {
            // Any other path held in the files map (an OCI registry's
            // `/v2/...` routes, say), as it is.
            (200, vec![], b.clone())
        } else if clean.starts_with("/hang/") {
            seen.lock().unwrap().push(Seen { path, status: 0 });
            std::thread::sleep(std::time::Duration::from_secs(20));
            return;
        } else {
            (404, vec![], b"not found\n".to_vec())
        };
    seen.lock().unwrap().push(Seen { path, status });
    let reason = match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        _ => "Not Found",
    };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\nConnection: close\r\n");
    for h in headers {
        head.push_str(&h);
        head.push_str("\r\n");
    }
    if status != 304 {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

trait ReadWrite: Read + Write + Send {}
impl<T: Read + Write + Send> ReadWrite for T {}

/// Start a server; `tls` with the certificate and key (DER).
pub fn serve(files: Files, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server = Server {
        port,
        files: files.clone(),
        seen: seen.clone(),
        tls: tls.is_some(),
    };
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let files = files.clone();
            let seen = seen.clone();
            let tls = tls.clone();
            std::thread::spawn(move || {
                let boxed: Box<dyn ReadWrite> = match tls {
                    Some(cfg) => {
                        let Ok(conn) = rustls::ServerConnection::new(cfg) else {
                            return;
                        };
                        Box::new(rustls::StreamOwned::new(conn, stream))
                    }
                    None => Box::new(stream) as Box<dyn ReadWrite>,
                };
                handle(boxed, &files, &seen);
            });
        }
    });
    server
}

/// A CA (PEM, for SSL_CERT_FILE) and a server config for 127.0.0.1.
pub fn test_tls() -> (String, Arc<rustls::ServerConfig>) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "kustom test CA");
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params =
        rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "127.0.0.1");
    let cert = params.signed_by(&key, &ca_cert, &ca_key).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap();
    (ca_cert.pem(), Arc::new(config))
}

/// Run a command, panicking with its output on failure.
pub fn sh(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(args[0])
        .args(&args[1..])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "protocol.file.allow")
        .env("GIT_CONFIG_VALUE_0", "always")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Write files under `dir`.
pub fn write(dir: &Path, files: &[(&str, &str)]) {
    for (p, c) in files {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }
}

/// The world: repositories, routing, servers, shim.
pub struct World {
    pub tmp: tempfile::TempDir,
    pub repos: PathBuf,
    pub cache: PathBuf,
    pub http: Server,
    pub https: Server,
    pub ca_file: PathBuf,
    pub shim_dir: PathBuf,
    pub git_log: PathBuf,
    /// Extra git config pairs (routing).
    pub routes: Vec<(String, String)>,
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let repos = tmp.path().join("repos");
        std::fs::create_dir_all(&repos).unwrap();
        let files: Files = Arc::new(Mutex::new(HashMap::new()));
        let (ca, tls) = test_tls();
        let ca_file = tmp.path().join("ca.pem");
        std::fs::write(&ca_file, ca).unwrap();
        let http = serve(files.clone(), None);
        let https = serve(files, Some(tls));
        // A git that logs its arguments, then runs the real one; with
        // KUSTOM_TEST_GIT_HANG set to a git subcommand, that git instead
        // touches $KUSTOM_TEST_GIT_HANG_MARK and sleeps (a fetch to kill).
        let shim_dir = tmp.path().join("shim");
        std::fs::create_dir_all(&shim_dir).unwrap();
        let git_log = tmp.path().join("git.log");
        let real_git = which("git");
        let shim = shim_dir.join("git");
        std::fs::write(
            &shim,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nif [ -n \"$KUSTOM_TEST_GIT_HANG\" ]; then case \" $* \" in *\" $KUSTOM_TEST_GIT_HANG \"*) touch \"$KUSTOM_TEST_GIT_HANG_MARK\"; exec sleep 3600 ;; esac; fi\nexec '{}' \"$@\"\n",
                git_log.display(),
                real_git.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        let r = format!("{}/", repos.display());
        let routes = vec![
            ("protocol.file.allow".to_string(), "always".to_string()),
            (
                format!("url.{r}.insteadOf"),
                "https://github.com/org/".into(),
            ),
            (format!("url.{r}.insteadOf"), "git@github.com:org/".into()),
            (
                format!("url.{r}.insteadOf"),
                "ssh://git@example.com/org/".into(),
            ),
            (
                format!("url.{r}.insteadOf"),
                "https://gitlab.example.com/group/sub/".into(),
            ),
            (
                format!("url.{r}.insteadOf"),
                "https://dev.azure.com/org/project/_git/".into(),
            ),
            (
                format!("url.http://127.0.0.1:{}/hang/.insteadOf", http.port),
                "https://slow.example.com/".into(),
            ),
        ];
        World {
            cache: tmp.path().join("cache"),
            tmp,
            repos,
            http,
            https,
            ca_file,
            shim_dir,
            git_log,
            routes,
        }
    }

    /// Make a bare repository `name` (also reachable as `name.git`) from
    /// a working tree built by `build` (which gets the working directory).
    pub fn repo(&self, name: &str, build: impl FnOnce(&Path)) -> PathBuf {
        let work = self.tmp.path().join("work").join(name);
        std::fs::create_dir_all(&work).unwrap();
        sh(&work, &["git", "init", "-q", "-b", "main"]);
        build(&work);
        let bare = self.repos.join(name);
        sh(
            self.tmp.path(),
            &[
                "git",
                "clone",
                "-q",
                "--bare",
                work.to_str().unwrap(),
                bare.to_str().unwrap(),
            ],
        );
        // Serve partial clones as GitHub and GitLab do, unless the run
        // asks for a server without them (KUSTOM_TEST_NO_FILTER).
        if std::env::var_os("KUSTOM_TEST_NO_FILTER").is_none() {
            sh(&bare, &["git", "config", "uploadpack.allowFilter", "true"]);
        }
        let alias = self.repos.join(format!("{name}.git"));
        let _ = std::os::unix::fs::symlink(&bare, alias);
        work
    }

    /// Push a working tree's refs to its bare repository again.
    pub fn push(&self, name: &str) {
        let work = self.tmp.path().join("work").join(name);
        let bare = self.repos.join(name);
        sh(
            &work,
            &[
                "git",
                "push",
                "-q",
                "--force",
                bare.to_str().unwrap(),
                "refs/heads/*:refs/heads/*",
                "refs/tags/*:refs/tags/*",
            ],
        );
    }

    /// The environment both tools run in.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![
            ("GIT_CONFIG_GLOBAL".to_string(), "/dev/null".to_string()),
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_COUNT".into(), self.routes.len().to_string()),
            ("XDG_CACHE_HOME".into(), self.cache.display().to_string()),
            ("SSL_CERT_FILE".into(), self.ca_file.display().to_string()),
            // Nothing may leave the machine: other hosts go to a closed port.
            ("HTTPS_PROXY".into(), "http://127.0.0.1:9".into()),
            ("HTTP_PROXY".into(), "http://127.0.0.1:9".into()),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
            (
                "PATH".into(),
                format!(
                    "{}:{}",
                    self.shim_dir.display(),
                    std::env::var("PATH").unwrap_or_default()
                ),
            ),
        ];
        for (i, (k, v)) in self.routes.iter().enumerate() {
            env.push((format!("GIT_CONFIG_KEY_{i}"), k.clone()));
            env.push((format!("GIT_CONFIG_VALUE_{i}"), v.clone()));
        }
        env
    }

    fn command(&self, program: &str, args: &[&str], dir: &Path) -> Output {
        self.prepared(program, args, dir).output().unwrap()
    }

    /// `kustom ARGS` in `dir` with `extra` environment, started, not waited for.
    pub fn kustom_started(
        &self,
        args: &[&str],
        dir: &Path,
        extra: &[(&str, &str)],
    ) -> std::process::Child {
        let mut cmd = self.prepared(env!("CARGO_BIN_EXE_kustom"), args, dir);
        cmd.envs(extra.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        cmd.spawn().unwrap()
    }

    fn prepared(&self, program: &str, args: &[&str], dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(dir);
        for k in [
            "https_proxy",
            "http_proxy",
            "no_proxy",
            "all_proxy",
            "ALL_PROXY",
        ] {
            cmd.env_remove(k);
        }
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        cmd
    }

    /// `kustom ARGS` in `dir`.
    pub fn kustom(&self, args: &[&str], dir: &Path) -> Output {
        self.command(env!("CARGO_BIN_EXE_kustom"), args, dir)
    }

    /// `kubectl kustomize ARGS` in `dir` (None when kubectl is absent).
    pub fn kubectl(&self, args: &[&str], dir: &Path) -> Option<Output> {
        if !kubectl_available() {
            return None;
        }
        let mut all = vec!["kustomize"];
        all.extend_from_slice(args);
        Some(self.command("kubectl", &all, dir))
    }

    /// git invocations logged since the last call, then cleared.
    pub fn take_git_log(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.git_log).unwrap_or_default();
        let _ = std::fs::remove_file(&self.git_log);
        text.lines().map(str::to_string).collect()
    }
}

pub fn kubectl_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new("kubectl")
            .args(["kustomize", "--help"])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    })
}

fn which(program: &str) -> PathBuf {
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        let p = dir.join(program);
        if p.is_file() {
            return p;
        }
    }
    panic!("{program} not found on PATH");
}
