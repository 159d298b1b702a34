//! Standalone `kustom-builtin` executable: `kustom-builtin generate|transform`.

fn main() {
    std::process::exit(kustom_builtin::run(std::env::args().skip(1).collect()));
}
