//! The allocator's tuning: mimalloc's options (`mi_option_e` in the
//! mimalloc.h of libmimalloc-sys 0.1.49, mimalloc v3).
//!
//! `main.rs` sets them before the first allocation: arenas committed as
//! they are used, and freed pages returned to the OS at once. A build's
//! processes live a fraction of a second and their peak memory is the
//! user's (and the benchmark's) measure, so returning at once is the rule
//! for the fork server and the builtin processes it starts. The core, the
//! one process that parses and encodes the whole tree, keeps the pages it
//! frees for a while instead ([`keep_freed_pages`]): parsing the next file
//! reuses them rather than faulting fresh ones, and no return makes the
//! kernel flush the other core's TLB. Measured against returning at once:
//! kserve's tree 89.3 -> 77.0 ms, argo's 81.7 -> 76.0, `--n 300` 235 ->
//! 217 ms at the same peak (55.8 MiB: a call's input is freed once written,
//! see `plugin_host::exec::pump`).

/// `mi_option_arena_eager_commit`.
pub const ARENA_EAGER_COMMIT: i32 = 4;
/// `mi_option_purge_delay` (milliseconds; arenas wait ten times as long).
pub const PURGE_DELAY: i32 = 15;

/// The core's purge delay: arenas keep freed pages 200 ms, longer than
/// most builds take.
const CORE_PURGE_DELAY: std::ffi::c_long = 20;

/// Set a mimalloc option.
pub fn set_option(option: i32, value: std::ffi::c_long) {
    // SAFETY: a plain setter of one of mimalloc's global options.
    unsafe { libmimalloc_sys::mi_option_set(option, value) };
}

/// Keep freed pages for a while: the core, once the fork server was forked
/// (which keeps returning them at once) and before it starts a thread.
pub fn keep_freed_pages() {
    set_option(PURGE_DELAY, CORE_PURGE_DELAY);
}
