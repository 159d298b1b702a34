//! Plugins: finding the executable for a config object and running it.
//!
//! Four kinds of plugin are found, in this order (docs/plugins.md):
//! a KEP plugin for the object's API group, a KRM exec function named by the
//! object's `config.kubernetes.io/function` annotation, a legacy kustomize
//! exec plugin under the plugin home, and the shipped builtin. KEP plugins
//! speak `generate` / `transform` ([`kep`]; identity across a call is
//! kept with the `config.k8s.io/id` annotation); the other protocols live
//! in [`legacy`], [`krm`] and [`container`] (a function annotation naming
//! an image, checked before the exec path, as kustomize does) and behave as
//! kustomize runs them. Transform calls to the shipped builtin send each
//! resource only in the part the call can touch ([`partial`]).

pub mod audit;
mod call;
pub mod container;
pub mod container_settings;
mod encode;
pub mod exchange;
pub mod exec;
pub mod helm_overrides;
mod kep;
pub mod krm;
pub mod legacy;
pub mod legacy_args;
mod lookup;
mod partial;
pub mod pem;
mod plan;
pub mod sandbox;
mod settings;
mod site;

pub use lookup::{group_of, is_executable, plugin_name, Location};
pub use settings::{Settings, BUILTIN_GROUP, CALLS, EXIT_UNSUPPORTED};
pub use site::Site;
