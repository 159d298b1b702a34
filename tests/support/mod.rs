//! Shared by the integration tests: skip notices that stay visible.

use std::io::Write;

/// Say that part of a test was skipped and why. Written to the process's
/// STDERR directly rather than with `eprintln!`, which the test harness
/// captures and hides for passing tests: a skipped check must show in
/// `cargo test`'s output.
pub fn skip(message: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
}

/// A Deployment `web` (two containers: nginx:1.25 and redis) for edit tests.
#[allow(dead_code)] // not every test crate uses the fixtures
pub const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
      - name: cache
        image: redis
";

/// A Service `web` selecting `app: web`.
#[allow(dead_code)]
pub const SVC: &str = "apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
";
