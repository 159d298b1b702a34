//! The kustomization loader (see `kustom::fuzz_targets::kustomization`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kustom::fuzz_targets::kustomization(data));
