//! The `kustom` executable.

fn main() {
    std::process::exit(kustom::cli::main());
}
