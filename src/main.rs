//! The `kustom` executable.

/// A faster allocator for the many small allocations of JSON values.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc v3 options (`mi_option_e` in mimalloc.h of libmimalloc-sys 0.1.49).
const MI_OPTION_ARENA_EAGER_COMMIT: i32 = 4;
const MI_OPTION_PURGE_DELAY: i32 = 15;

/// Runs before `main` and before the first allocation: by default mimalloc
/// commits its arenas eagerly and returns freed pages to the OS only after
/// 100 ms, which doubles the resident memory of a build whose processes
/// live a fraction of a second. Options must be set before the first arena
/// exists, hence a constructor rather than the start of `main`.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

#[cfg(target_os = "linux")]
extern "C" fn tune_allocator() {
    // SAFETY: plain setters of mimalloc's global options, called once at load.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
}

fn main() {
    std::process::exit(kustom::commands::main());
}
