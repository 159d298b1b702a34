//! kustom: `kustomize build` as an exec-plugin host.
//!
//! Layers, each a folder; imports only run downwards:
//! [`commands`] (the command line, one module per command) →
//! [`operations`] (the build pipeline) → [`plugin_host`] (finding, running
//! and confining plugins) → [`fetch`] (remote resources, the cache and
//! `kustom.lock`). Below them the shared `kustom_api` crate,
//! [`processes`], which registers, ends and reaps every child process and
//! temporary file, and [`allocator`], the allocator's tuning; any layer may
//! use those.

pub mod allocator;
pub mod commands;
pub mod fetch;
pub mod fuzz_targets;
pub mod operations;
pub mod plugin_host;
pub mod processes;
