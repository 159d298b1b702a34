//! What a build fetches and pins: remote bases and files (URL parsing, git,
//! http, the cache), Helm charts from repositories, and `kustom.lock`.

pub mod charts;
pub mod lock;
pub mod progress;
pub mod remote;
