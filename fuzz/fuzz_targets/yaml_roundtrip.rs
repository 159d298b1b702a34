//! The YAML reader/writer round trip (see `kustom::fuzz_targets::yaml_roundtrip`).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kustom::fuzz_targets::yaml_roundtrip(data));
