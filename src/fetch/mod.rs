//! What a build fetches and pins: remote bases and files (URL parsing, git,
//! http, the cache) and `kustom.lock`.

pub mod lock;
pub mod progress;
pub mod remote;
