//! A short, deterministic fuzzing run that CI can afford: every fuzz target
//! (`kustom::fuzz_targets`) over its checked-in seeds (`fuzz/seeds/`), the
//! inputs that once crashed it (`fuzz/regressions/`), and a few seconds of
//! byte-level mutations of the seeds. A panic fails the test and prints the
//! input. The real fuzzers are in `fuzz/` (cargo-fuzz; see docs/robustness.md).

use std::path::Path;
use std::time::{Duration, Instant};

/// How long each target is mutated for (`KUSTOM_FUZZ_SMOKE_SECS` overrides).
fn budget() -> Duration {
    let secs = std::env::var("KUSTOM_FUZZ_SMOKE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn inputs(dir: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok())
        .collect()
}

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to YAML, to mutate with.
const TOKENS: &[&[u8]] = &[
    b"\n",
    b": ",
    b"- ",
    b"---\n",
    b"&a ",
    b"*a",
    b"<<: ",
    b"{",
    b"}",
    b"[",
    b"]",
    b"'",
    b"\"",
    b"|",
    b">",
    b"#",
    b"!!str ",
    b"~",
    b"null",
    b"\t",
    b"  ",
    b"0x1F",
    b"1e400",
    b".inf",
    b"\xff",
    b"\r\n",
    b"%YAML 1.1\n",
    b"? ",
    b",",
];

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            1 if at < v.len() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            2 if at < v.len() => v[at] = rng.next() as u8,
            3 => {
                // Duplicate a slice (repeats keys, nests blocks).
                let len = rng.below(64).min(v.len() - at.min(v.len()));
                let piece: Vec<u8> = v[at..at + len].to_vec();
                v.splice(at..at, piece);
            }
            _ => v.truncate(at),
        }
    }
    v
}

fn smoke(target: fn(&[u8]), name: &str) {
    let seeds = inputs(&format!("fuzz/seeds/{name}"));
    let regressions = inputs(&format!("fuzz/regressions/{name}"));
    assert!(
        !regressions.is_empty() || !seeds.is_empty(),
        "no inputs for fuzz target {name}"
    );
    let run = |input: &[u8]| {
        let result = std::panic::catch_unwind(|| target(input));
        if result.is_err() {
            panic!(
                "fuzz target {name} panicked on input {:?}",
                String::from_utf8_lossy(input)
            );
        }
    };
    for input in seeds.iter().chain(&regressions) {
        run(input);
    }
    let pool: Vec<&Vec<u8>> = seeds.iter().chain(&regressions).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let started = Instant::now();
    let mut runs = 0u64;
    while started.elapsed() < budget() {
        let seed = pool[rng.below(pool.len())];
        run(&mutate(&mut rng, seed));
        runs += 1;
    }
    eprintln!(
        "fuzz smoke {name}: {} seeds, {} regressions, {runs} mutations",
        seeds.len(),
        regressions.len()
    );
}

#[test]
fn yaml_roundtrip() {
    smoke(kustom::fuzz_targets::yaml_roundtrip, "yaml_roundtrip");
}

#[test]
fn kustomization() {
    smoke(kustom::fuzz_targets::kustomization, "kustomization");
}
