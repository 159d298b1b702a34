//! The `kustom` executable.

/// A faster allocator for the many small allocations of JSON values.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(kustom::cli::main());
}
