//! Throughput of the YAML reader and writer on one core.
//!
//! `cargo run --release -p kustom-api --example yaml_speed -- [-n N] FILE...`
//! reads each file as a stream of documents (as `kustom build` loads
//! resources) N times, then prints all the documents (as `kustom build`
//! does) N times, and reports MB/s for each: parsing over the input's
//! size, printing over the output's.

use std::time::{Duration, Instant};

use kustom_api::yaml;
use kustom_api::Value;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut rounds = 10;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "-n" {
            rounds = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("-n takes a number");
        } else {
            files.push(a);
        }
    }
    if files.is_empty() {
        eprintln!("usage: yaml_speed [-n N] FILE...");
        std::process::exit(2);
    }
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect();
    let in_bytes: usize = texts.iter().map(String::len).sum();

    let mut docs: Vec<Value> = Vec::new();
    let mut parse_time = Duration::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut round = Vec::new();
        for (f, text) in files.iter().zip(&texts) {
            yaml::for_each_document_with_empty_nulls(text, |doc, _| {
                round.push(doc);
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        }
        parse_time = parse_time.min(start.elapsed());
        docs = round;
    }

    let mut out_bytes = 0;
    let mut print_time = Duration::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        let mut out = String::with_capacity(out_bytes);
        for (i, d) in docs.iter().enumerate() {
            if i > 0 {
                out.push_str("---\n");
            }
            yaml::write_yaml(&mut out, d);
        }
        print_time = print_time.min(start.elapsed());
        out_bytes = out.len();
    }

    let mbs = |bytes: usize, t: Duration| bytes as f64 / 1e6 / t.as_secs_f64();
    println!(
        "parse: {:.1} MB in {:.1} ms = {:.0} MB/s ({} documents)",
        in_bytes as f64 / 1e6,
        parse_time.as_secs_f64() * 1e3,
        mbs(in_bytes, parse_time),
        docs.len()
    );
    println!(
        "print: {:.1} MB in {:.1} ms = {:.0} MB/s",
        out_bytes as f64 / 1e6,
        print_time.as_secs_f64() * 1e3,
        mbs(out_bytes, print_time)
    );
}
