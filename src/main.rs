//! The `kustom` executable.

/// A faster allocator for the many small allocations of JSON values.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs before `main` and before the first allocation: by default mimalloc
/// commits its arenas eagerly and returns freed pages to the OS only after
/// 100 ms, which doubles the resident memory of a build whose processes
/// live a fraction of a second (the core later keeps its own freed pages a
/// while: see `kustom::allocator`). Options must be set before the first
/// arena exists, hence a constructor rather than the start of `main`.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

#[cfg(target_os = "linux")]
extern "C" fn tune_allocator() {
    use kustom::allocator::{set_option, ARENA_EAGER_COMMIT, PURGE_DELAY};
    set_option(ARENA_EAGER_COMMIT, 0);
    set_option(PURGE_DELAY, 0);
}

fn main() {
    // A panic is reported by its hook and ends with 101 as usual, but only
    // once every child kustom started is ended and reaped.
    let code = std::panic::catch_unwind(kustom::commands::main).unwrap_or(101);
    kustom::processes::end_all();
    // What kustom owns was dropped when `commands::main` returned. `exit`
    // would still run the C library's exit handlers, mimalloc's among them,
    // which purges every page the core kept just before the kernel frees
    // them all (1.7 ms of argo's namespace-install, 0.7 of kube-prometheus).
    // It would also flush STDOUT, as this does; errors are ignored alike.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: ends the process; nothing runs after it.
    unsafe { libc::_exit(code) }
}
