//! YAML reader producing the JSON value kustomize would see.
//!
//! kustomize reads a stream by (1) turning CRLF into LF, (2) cutting it at
//! every line that starts with `---`, (3) decoding the first YAML document of
//! each piece with go-yaml v3, (4) expanding aliases and `<<` merge keys
//! (kyaml's `DeAnchor`), and finally (5) decoding the node into Go's
//! `interface{}` and encoding that as JSON (after one more encode/decode
//! round trip, which changes some folded scalars). This module reproduces
//! the observable result of that chain on top of our own go-yaml-compatible
//! parser (`scan.rs`, `parse.rs`): scalars are typed with go-yaml v3's rules
//! (see `resolve.rs`), timestamps become RFC 3339 strings, values JSON
//! cannot hold are errors, and so are the things go-yaml rejects (duplicate
//! keys, bad merges, non-string keys below the top level).

use serde_json::Value;

use super::direct::{self, ObjectText};
use super::error::YamlError;
use super::parse::Parser;
use super::scan::SyntaxError;
use super::tree::{Builder, Document};
use super::typing::{LENIENT_V2, NULL_ANNOTATIONS_KEPT};
use crate::Error;
/// Parse a multi-document YAML stream into JSON values; empty documents and
/// documents whose root is null are skipped.
pub fn parse_stream(text: &str) -> Result<Vec<Value>, Error> {
    parse_stream_with_lines(text)
        .map(|docs| docs.into_iter().map(|(v, _)| v).collect())
        .map_err(Error::from)
}

/// Parse a kustomization file as kustomize does: `sigs.k8s.io/yaml`'s
/// YAMLToJSON, i.e. go-yaml v2 — YAML 1.1 scalars (`yes`, `on` are
/// booleans) and a repeated mapping key silently replacing the earlier one.
pub fn parse_kustomization(text: &str) -> Result<Vec<Value>, Error> {
    LENIENT_V2.with(|m| m.set(true));
    let result = parse_stream(text);
    LENIENT_V2.with(|m| m.set(false));
    result
}

/// Parse a strategic-merge patch that is applied as written (a `patches:`
/// entry without a `target`): like [`parse_stream`], except that a null
/// annotation value stays null, since kustomize merges the patch's own
/// nodes and a null there deletes the key. Where kustomize copies a patch's
/// annotations as a string map first (a `target`, `patchesStrategicMerge`),
/// use [`parse_stream`], which reads them as their text (`"null"`).
pub fn parse_stream_as_patch(text: &str) -> Result<Vec<Value>, Error> {
    NULL_ANNOTATIONS_KEPT.with(|m| m.set(true));
    let result = parse_stream(text);
    NULL_ANNOTATIONS_KEPT.with(|m| m.set(false));
    result
}

/// Like [`parse_stream`], also giving the 1-based line where each document's
/// content starts.
pub fn parse_stream_with_lines(text: &str) -> Result<Vec<(Value, usize)>, YamlError> {
    let mut docs = Vec::new();
    each_document(text, |d| {
        docs.push((d.value, d.line));
        Ok::<(), YamlError>(())
    })?;
    Ok(docs)
}

/// Like [`parse_stream`], also giving for each document the paths (JSON
/// arrays of keys and indices) of the mapping values written with no value
/// at all (`key:`), which kustomize's strategic merge treats unlike an
/// explicit `null` or `~`.
pub fn parse_stream_with_empty_nulls(text: &str) -> Result<Vec<(Value, Vec<Value>)>, Error> {
    let mut docs = Vec::new();
    each_document(text, |d| {
        docs.push((d.value, d.empty_nulls));
        Ok::<(), YamlError>(())
    })?;
    Ok(docs)
}

/// Hand each document of a stream (as [`parse_stream_with_lines`] reads
/// it) to `f` as soon as it is read, so that a caller converting documents
/// one by one never holds the whole stream as values.
pub fn for_each_document(
    text: &str,
    mut f: impl FnMut(Value, usize) -> Result<(), Error>,
) -> Result<(), Error> {
    each_document(text, |d| f(d.value, d.line))
}

/// [`for_each_document`], also handing over each document's paths of
/// values written empty (see [`parse_stream_with_empty_nulls`]).
pub fn for_each_document_with_empty_nulls(
    text: &str,
    mut f: impl FnMut(Value, Vec<Value>) -> Result<(), Error>,
) -> Result<(), Error> {
    each_document(text, |d| f(d.value, d.empty_nulls))
}

fn each_document<E: From<YamlError>>(
    text: &str,
    mut f: impl FnMut(Document) -> Result<(), E>,
) -> Result<(), E> {
    let pieces = Pieces::of(text)?;
    // One parser and builder for all pieces: their buffers are reused.
    let mut parser = Parser::new("");
    let mut builder = Builder::new(1);
    for (piece, line) in pieces.iter() {
        if let Some(doc) = parse_piece(&mut parser, &mut builder, piece, line)? {
            f(doc)?;
        }
    }
    Ok(())
}

/// A document of a resource stream, as [`for_each_resource_document`]
/// hands it over.
#[derive(Debug)]
pub enum ResourceDocument {
    /// Read straight to compact JSON text (most documents).
    Text(ObjectText),
    /// Read as a value, with the paths of its values written empty (see
    /// [`parse_stream_with_empty_nulls`]).
    Value(Value, Vec<Value>),
}

/// Hand each document of a resource stream to `f` as
/// [`for_each_document_with_empty_nulls`] reads it, but as the JSON text
/// `serde_json` would write for that value wherever the direct reader
/// (`direct.rs`) can write it without building the value.
///
/// A large stream of many documents is read on two threads, the later
/// half of its pieces on the second; `f` still sees every document in
/// order on the calling thread, and the first error in stream order is
/// the one returned, as if one thread had read it all.
pub fn for_each_resource_document(
    text: &str,
    mut f: impl FnMut(ResourceDocument) -> Result<(), Error>,
) -> Result<(), Error> {
    // Kustomization files and patches are read with other rules.
    let direct = !LENIENT_V2.with(|m| m.get()) && !NULL_ANNOTATIONS_KEPT.with(|m| m.get());
    let pieces = Pieces::of(text)?;
    let all: Vec<(&str, usize)> = pieces.iter().collect();
    // Only with the default rules: the second thread reads with its own
    // (default) thread-local ones.
    let half = if direct { later_half(&all) } else { None };
    let (earlier, later) = all.split_at(half.unwrap_or(all.len()));
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        // The later pieces, read until the first error or until the caller
        // has stopped. No second thread (a small stream, or a sandbox that
        // refuses one): this thread reads them after the earlier ones.
        let second = (!later.is_empty()).then(|| {
            std::thread::Builder::new()
                .name("read-later".into())
                .spawn_scoped(scope, || {
                    let mut reader = PieceReader::new(direct);
                    let mut docs = Vec::with_capacity(later.len());
                    for &(piece, line) in later {
                        if stop.load(std::sync::atomic::Ordering::Relaxed) {
                            break;
                        }
                        let doc = reader.read(piece, line);
                        let failed = doc.is_err();
                        docs.push(doc);
                        if failed {
                            break;
                        }
                    }
                    docs
                })
                .ok()
        });
        let mut reader = PieceReader::new(direct);
        let mut each = |doc: Result<Option<ResourceDocument>, YamlError>| -> Result<(), Error> {
            match doc? {
                Some(doc) => f(doc),
                None => Ok(()),
            }
        };
        let result = earlier
            .iter()
            .try_for_each(|&(piece, line)| each(reader.read(piece, line)));
        let Some(Some(second)) = second else {
            return result.and_then(|()| {
                later
                    .iter()
                    .try_for_each(|&(piece, line)| each(reader.read(piece, line)))
            });
        };
        if result.is_err() {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            let _ = second.join();
            return result;
        }
        match second.join() {
            Ok(docs) => docs.into_iter().try_for_each(each),
            // The readers catch their own panics; this is a last resort.
            Err(_) => Err(Error::new("the YAML parser failed on this stream")),
        }
    })
}

/// Streams smaller than this are read on one thread: a second thread
/// costs more than it saves.
const TWO_THREADS_MIN_BYTES: usize = 256 * 1024;

/// Where the later half (by bytes) of a large stream's pieces starts, or
/// None to read it on one thread.
fn later_half(pieces: &[(&str, usize)]) -> Option<usize> {
    let total: usize = pieces.iter().map(|(p, _)| p.len()).sum();
    if pieces.len() < 2 || total < TWO_THREADS_MIN_BYTES {
        return None;
    }
    let mut bytes = 0;
    let half = pieces.iter().position(|(p, _)| {
        bytes += p.len();
        bytes * 2 >= total
    })? + 1;
    (half < pieces.len()).then_some(half)
}

/// Reads pieces of a resource stream, reusing its buffers from one to the
/// next.
struct PieceReader<'t> {
    direct: bool,
    parser: Parser<'t>,
    builder: Builder,
    writer: direct::Writer,
}

impl<'t> PieceReader<'t> {
    fn new(direct: bool) -> Self {
        PieceReader {
            direct,
            parser: Parser::new(""),
            builder: Builder::new(1),
            writer: direct::Writer::default(),
        }
    }

    /// The document of one piece; None for an empty one.
    fn read(&mut self, piece: &'t str, line: usize) -> Result<Option<ResourceDocument>, YamlError> {
        if self.direct && check_characters(piece, line).is_ok() {
            self.parser.reset(piece);
            // As in `parse_piece`: a bug must not take the process down; the
            // value reader then reads the piece.
            let (parser, writer) = (&mut self.parser, &mut self.writer);
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                writer.read(parser, piece.len())
            }));
            if let Ok(Ok(object)) = read {
                return Ok(Some(ResourceDocument::Text(object)));
            }
        }
        Ok(
            parse_piece(&mut self.parser, &mut self.builder, piece, line)?
                .map(|doc| ResourceDocument::Value(doc.value, doc.empty_nulls)),
        )
    }
}

/// A stream cut into the pieces go-yaml decodes one document of each.
struct Pieces<'t> {
    /// The stream with Windows line ends normalised.
    text: std::borrow::Cow<'t, str>,
    /// Each piece's byte range in `text` and the line its content starts on.
    pieces: Vec<(usize, usize, usize)>,
}

impl<'t> Pieces<'t> {
    fn of(text: &'t str) -> Result<Self, YamlError> {
        // kyaml normalises Windows line ends before anything else, including
        // inside quoted scalars.
        let normalized: std::borrow::Cow<str> =
            if memchr::memmem::find(text.as_bytes(), b"\r\n").is_some() {
                text.replace("\r\n", "\n").into()
            } else {
                text.into()
            };
        let ranges = split_documents(&normalized)?;
        let mut pieces = Vec::with_capacity(ranges.len());
        let mut line = 1;
        let mut counted_to = 0;
        let last = ranges.len().saturating_sub(1);
        for (i, &(start, end)) in ranges.iter().enumerate() {
            line += count_newlines(&normalized[counted_to..start]);
            counted_to = start;
            // Cutting at the separator eats the newline that ended the piece;
            // kyaml puts it back (it matters to literal block scalars). That
            // newline is the separator's first character, still in the text.
            let end = if i == last { end } else { end + 1 };
            pieces.push((start, end, line));
        }
        Ok(Pieces {
            text: normalized,
            pieces,
        })
    }

    /// Each piece's text and first line.
    fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.pieces
            .iter()
            .map(|&(start, end, line)| (&self.text[start..end], line))
    }
}

fn count_newlines(s: &str) -> usize {
    s.bytes().filter(|&b| b == b'\n').count()
}

/// Byte ranges of the pieces between separator lines: a line starting with
/// `---` that follows a newline and is itself ended by one (kyaml's
/// `\n---.*\n`). Anything after the dashes other than a comment is an error.
pub(crate) fn split_documents(text: &str) -> Result<Vec<(usize, usize)>, YamlError> {
    let mut pieces = Vec::new();
    if text.is_empty() {
        return Ok(pieces);
    }
    let mut prev = 0;
    let mut pos = 0;
    let separator = memchr::memmem::Finder::new(b"\n---");
    while let Some(found) = separator.find(&text.as_bytes()[pos..]) {
        let sep = pos + found;
        let Some(eol) = text[sep + 4..].find('\n').map(|k| sep + 4 + k) else {
            break;
        };
        let rest = text[sep + 4..eol].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            let line = 1 + count_newlines(&text[..=sep]);
            return Err(YamlError::at(
                line,
                format!("invalid document separator: {}", text[sep + 1..eol].trim()),
            ));
        }
        pieces.push((prev, sep));
        prev = eol + 1;
        pos = eol + 1;
    }
    pieces.push((prev, text.len()));
    Ok(pieces)
}

/// Decode the first document of one piece, as go-yaml's `Decoder.Decode`
/// does once per piece; whatever follows that document is not decoded.
fn parse_piece<'t>(
    parser: &mut Parser<'t>,
    builder: &mut Builder,
    text: &'t str,
    first_line: usize,
) -> Result<Option<Document>, YamlError> {
    check_characters(text, first_line)?;
    let syntax = |e: SyntaxError| YamlError::at(first_line + e.line, e.problem);
    parser.reset(text);
    builder.reset(first_line);
    // The parser is written not to panic; should a bug make it do so
    // anyway, the input is reported as unreadable rather than taking the
    // whole process down.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        while let Some(event) = parser.next_event().map_err(syntax)? {
            builder.event(event)?;
        }
        Ok(builder.finish())
    }));
    match result {
        Ok(r) => r,
        Err(_) => Err(YamlError::at(
            first_line,
            "the YAML parser failed on this document",
        )),
    }
}

/// go-yaml's reader accepts only these characters (YAML's printable set).
fn check_characters(text: &str, first_line: usize) -> Result<(), YamlError> {
    // 1 for a byte other than a tab, a line break or printable ASCII;
    // comparisons only, so that a block of them compiles to vector code.
    let not_simple = |c: u8| {
        let allowed_control = (c == b'\t') as u8 | (c == b'\n') as u8 | (c == b'\r') as u8;
        ((c < 0x20) as u8 & !allowed_control) | (c > 0x7E) as u8
    };
    let allowed = |c: char| {
        matches!(c,
            '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
            | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
    };
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Blocks of simple bytes are tested without an early exit, which
        // the compiler vectorises; one non-ASCII character (a typographic
        // quote in a description) must not send the whole text down the
        // character-by-character path.
        if let Some(block) = b.get(i..i + 32) {
            if block.iter().fold(0u8, |bad, &c| bad | not_simple(c)) == 0 {
                i += 32;
                continue;
            }
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        if !allowed(c) {
            let line = first_line + count_newlines(&text[..i]);
            return Err(YamlError::at(line, "control characters are not allowed"));
        }
        i += c.len_utf8();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        let docs = parse_stream(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(docs.len(), 1, "{text}");
        docs.into_iter().next().unwrap_or(Value::Null)
    }

    fn err(text: &str) -> YamlError {
        match parse_stream_with_lines(text) {
            Ok(v) => panic!("expected an error for {text:?}, got {v:?}"),
            Err(e) => e,
        }
    }

    /// A stream large enough to be read on two threads: `n` ConfigMaps of
    /// about 2 KB each, document `bad` (if any) broken.
    fn large_stream(n: usize, bad: &[usize]) -> String {
        let blob = "x".repeat(2000);
        (0..n)
            .map(|i| {
                if bad.contains(&i) {
                    format!("kind: ConfigMap\nmetadata:\n  name: [cm{i}\ndata: {{}}\n")
                } else {
                    format!("kind: ConfigMap\nmetadata:\n  name: cm{i}\ndata:\n  k: {blob}{i}\n")
                }
            })
            .collect::<Vec<_>>()
            .join("---\n")
    }

    /// JSON texts of each document as the resource reader hands them over,
    /// or its error; `stop_at`: `f` fails on that document.
    fn resource_texts(text: &str, stop_at: Option<usize>) -> Result<Vec<String>, String> {
        let mut texts = Vec::new();
        for_each_resource_document(text, |d| {
            if stop_at == Some(texts.len()) {
                return Err(Error::new("stopped by the caller"));
            }
            texts.push(match d {
                ResourceDocument::Text(o) => {
                    crate::doc::Doc::from_object_text(o).json().to_string()
                }
                ResourceDocument::Value(v, _) => crate::doc::Doc::from_value(&v).json().to_string(),
            });
            Ok(())
        })
        .map(|()| texts)
        .map_err(|e| e.message)
    }

    /// The value reader's documents as JSON texts, or its error.
    fn value_texts(text: &str) -> Result<Vec<String>, String> {
        let mut texts = Vec::new();
        for_each_document_with_empty_nulls(text, |v, _| {
            texts.push(crate::doc::Doc::from_value(&v).json().to_string());
            Ok(())
        })
        .map(|()| texts)
        .map_err(|e| e.message)
    }

    #[test]
    fn a_large_stream_read_on_two_threads_is_read_as_one_thread_reads_it() {
        let text = large_stream(300, &[]);
        assert!(text.len() >= TWO_THREADS_MIN_BYTES);
        assert!(later_half(&Pieces::of(&text).unwrap().iter().collect::<Vec<_>>()).is_some());
        let read = resource_texts(&text, None).unwrap();
        assert_eq!(read.len(), 300);
        assert!(read[299].contains("cm299"), "in order");
        assert_eq!(Ok(read), value_texts(&text));
    }

    #[test]
    fn the_first_error_in_stream_order_is_reported_whichever_thread_found_it() {
        // Only in the later half.
        let later = large_stream(300, &[250]);
        let e = resource_texts(&later, None).unwrap_err();
        assert_eq!(Err(e.clone()), value_texts(&later));
        assert!(e.contains("line"), "{e}");
        // In both halves: the earlier one, as one thread would report it.
        let both = large_stream(300, &[40, 250]);
        let e = resource_texts(&both, None).unwrap_err();
        assert_eq!(Err(e), value_texts(&large_stream(300, &[40])));
        // The caller's own error stops the reading there.
        assert_eq!(
            resource_texts(&later, Some(10)),
            Err("stopped by the caller".to_string())
        );
    }

    #[test]
    fn small_or_single_document_streams_are_read_on_one_thread() {
        let small = large_stream(3, &[]);
        assert!(later_half(&Pieces::of(&small).unwrap().iter().collect::<Vec<_>>()).is_none());
        let one = format!(
            "kind: A\nmetadata:\n  name: a\ndata: {}\n",
            "y".repeat(300_000)
        );
        assert!(later_half(&Pieces::of(&one).unwrap().iter().collect::<Vec<_>>()).is_none());
    }

    #[test]
    fn patch_annotations_keep_their_nulls() {
        let text = "kind: A\nmetadata:\n  name: a\n  annotations:\n    gone: null\n    tilde: ~\n    empty:\n    quoted: \"null\"\n    hex: 0x1F\n";
        let patch = &parse_stream_as_patch(text).unwrap()[0]["metadata"]["annotations"];
        assert_eq!(patch["gone"], Value::Null);
        assert_eq!(patch["tilde"], Value::Null);
        assert_eq!(patch["empty"], Value::Null);
        assert_eq!(patch["quoted"], "null");
        assert_eq!(patch["hex"], "0x1F");
        let resource = &parse_stream(text).unwrap()[0]["metadata"]["annotations"];
        assert_eq!(resource["gone"], "null");
        assert_eq!(resource["tilde"], "~");
    }

    #[test]
    fn scalars_resolve_like_go_yaml_v3() {
        let v = one(concat!(
            "a: 010\nb: 0x1F\nc: 1_000\nd: 1.50\ne: 1e3\nf: ~\ng: yes\nh: on\n",
            "i: \"123\"\nj: '010'\nk: true\nl: False\nm: 0o17\nn: +5\no:\np: .5\n",
            "q: 2001-12-14\nr: 18446744073709551615\ns: 123456789012345678901234567890\n",
        ));
        assert_eq!(v["a"], json!(8));
        assert_eq!(v["b"], json!(31));
        assert_eq!(v["c"], json!(1000));
        assert_eq!(v["d"], json!(1.5));
        assert_eq!(v["e"], json!(1000.0));
        assert_eq!(v["f"], Value::Null);
        assert_eq!(v["g"], json!("yes"));
        assert_eq!(v["h"], json!("on"));
        assert_eq!(v["i"], json!("123"));
        assert_eq!(v["j"], json!("010"));
        assert_eq!(v["k"], json!(true));
        assert_eq!(v["l"], json!(false));
        assert_eq!(v["m"], json!(15));
        assert_eq!(v["n"], json!(5));
        assert_eq!(v["o"], Value::Null);
        assert_eq!(v["p"], json!(0.5));
        assert_eq!(v["q"], json!("2001-12-14T00:00:00Z"));
        assert_eq!(v["r"], json!(u64::MAX));
        assert_eq!(v["s"], json!(1.2345678901234568e29));
    }

    #[test]
    fn tags() {
        let v = one(concat!(
            "a: !!str 123\nb: !!int \"5\"\nc: !!float 5\nd: !!bool true\n",
            "e: !!null ''\nf: !!binary aGVsbG8=\ng: !foo 123\nh: ! 123\ni: !!str\n",
            "j: !foo\nk: !<tag:yaml.org,2002:str> 7\nl: !!timestamp 2001-12-14\n",
        ));
        assert_eq!(v["a"], json!("123"));
        assert_eq!(v["b"], json!(5));
        assert_eq!(v["c"], json!(5.0));
        assert_eq!(v["d"], json!(true));
        assert_eq!(v["e"], Value::Null);
        assert_eq!(v["f"], json!("hello"));
        assert_eq!(v["g"], json!("123"));
        assert_eq!(v["h"], json!(123));
        assert_eq!(v["i"], json!(""));
        assert_eq!(v["j"], json!(""));
        assert_eq!(v["k"], json!("7"));
        assert_eq!(v["l"], json!("2001-12-14T00:00:00Z"));
    }

    #[test]
    fn tag_mismatches_are_errors() {
        let e = err("a: 1\nb: !!bool yes\n");
        assert_eq!(e.line, Some(2));
        assert_eq!(e.message, "cannot decode !!str `yes` as a !!bool");
        assert!(err("a: !!float 18446744073709551615\n")
            .message
            .contains("as a !!float"));
        assert!(err("a: !!binary 'aGVsbG8'\n").message.contains("base64"));
    }

    #[test]
    fn special_floats_are_errors_naming_the_line() {
        let e = err("a: 1\nb:\n  c: .inf\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("+Inf"), "{}", e.message);
        assert!(err("- .nan\n").message.contains("NaN"));
    }

    #[test]
    fn duplicate_keys_are_errors() {
        let e = err("a: 1\nb: 2\n\"a\": 3\n");
        assert_eq!(e.line, Some(3));
        assert_eq!(e.message, "mapping key \"a\" already defined at line 1");
    }

    #[test]
    fn anchors_aliases_and_merges() {
        let v = one(concat!(
            "base: &b\n  k1: v1\n  k2: v2\nbase2: &c\n  k2: w2\n  k3: w3\n",
            "data:\n  <<: [*b, *c]\n  k1: own\n",
            "data2:\n  <<: *c\n  \"<<\": q\n",
            "list: &l [1, 2]\nl2: *l\ns: &s hello\nt: *s\n",
        ));
        assert_eq!(v["data"], json!({"k1": "own", "k2": "v2", "k3": "w3"}));
        assert_eq!(v["data2"], json!({"<<": "q", "k2": "w2", "k3": "w3"}));
        assert_eq!(v["l2"], json!([1, 2]));
        assert_eq!(v["t"], json!("hello"));
        // A lone quoted "<<" key is dropped, as kyaml's merge pass does.
        assert_eq!(one("a:\n  \"<<\": q\n  b: 1\n"), json!({"a": {"b": 1}}));
        assert!(err("a: &a 1\nb:\n  <<: *a\n").message.contains("non-map"));
        assert!(err("b:\n  <<: [[{}]]\n")
            .message
            .contains("nested sequence"));
        assert!(err("b:\n  <<: 3\n").message.contains("map merge requires"));
        assert!(err("a: &a\n  b: *a\n").message.contains("anchor"));
    }

    #[test]
    fn keys() {
        // Top-level keys keep their text.
        let v = one("1: a\n0x1F: b\ntrue: c\n1.50: d\n2001-12-14: e\n");
        assert_eq!(
            v,
            json!({"1": "a", "0x1F": "b", "true": "c", "1.50": "d", "2001-12-14": "e"})
        );
        // Nested keys must be strings.
        let e = err("data:\n  x: 1\n  1: a\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("not a string"));
        assert!(err("data: {true: b}\n").message.contains("not a string"));
        assert_eq!(
            one("data: {\"1\": a, !!str 2: b, yes: c}\n"),
            json!({"data": {"1": "a", "2": "b", "yes": "c"}})
        );
    }

    #[test]
    fn stream_splitting() {
        let docs = parse_stream_with_lines("a: 1\n---\nb: 2\n--- # c\n\n---\n~\n---\nc: |\n  x\n")
            .unwrap_or_default();
        assert_eq!(
            docs,
            vec![
                (json!({"a": 1}), 1),
                (json!({"b": 2}), 3),
                (json!({"c": "x\n"}), 9)
            ]
        );
        assert_eq!(one("---\na: 1\n"), json!({"a": 1}));
        assert_eq!(parse_stream("").unwrap_or_default(), Vec::<Value>::new());
        assert_eq!(
            parse_stream("# only a comment\n").unwrap_or_default(),
            Vec::<Value>::new()
        );
        let e = err("a: 1\n--- b: 2\n");
        assert_eq!(e.line, Some(2));
        assert_eq!(e.message, "invalid document separator: --- b: 2");
        // The last piece keeps its missing final newline.
        assert_eq!(one("a: |\n  x"), json!({"a": "x"}));
        assert_eq!(one("a: |+\n  x\n\n  y"), json!({"a": "x\n\ny"}));
        assert_eq!(one("a: >\n  x\n  y"), json!({"a": "x y"}));
        assert_eq!(one("a: |\n  x\n"), json!({"a": "x\n"}));
        assert_eq!(one("a: |\n  x\nb: c"), json!({"a": "x\n", "b": "c"}));
        // CRLF is normalised everywhere.
        assert_eq!(one("a: |\r\n  x\r\n"), json!({"a": "x\n"}));
        // Only the first document of a piece counts.
        assert_eq!(one("a: 1\n...\nb: 2\n"), json!({"a": 1}));
    }

    #[test]
    fn top_level_shapes_and_directives() {
        assert_eq!(one("- 1\n- a\n"), json!([1, "a"]));
        assert_eq!(one("hello\n"), json!("hello"));
        // kyaml cuts the stream before the `---` that ends a directive
        // block, leaving a directive without a document: an error there too.
        assert!(parse_stream("%YAML 1.1\n---\na: 1\n").is_err());
        assert_eq!(one("--- !!map\na: !e 1\n"), json!({"a": "1"}));
    }

    #[test]
    fn syntax_errors_carry_the_line() {
        let e = err("a: 1\nb: 2\n---\nc: [1, 2\nd: 3\n");
        assert!(e.line.is_some_and(|l| l >= 4), "{e:?}");
    }

    #[test]
    fn values_written_empty_are_reported_with_their_paths() {
        let text = "a:\nb: null\nc: ~\nl:\n- x:\n  y: \"\"\n- {f: , g: ~}\nm: &m {k: }\nn: *m\n";
        let docs = parse_stream_with_empty_nulls(text).unwrap();
        let paths: Vec<String> = docs[0].1.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            paths,
            [
                r#"["a"]"#,
                r#"["l",0,"x"]"#,
                r#"["l",1,"f"]"#,
                r#"["m","k"]"#
            ]
        );
        // Top-level annotations are strings of their text, nothing empty.
        let text = "metadata:\n  annotations:\n    a:\n    b: null\n    c: 0x1F\n";
        let docs = parse_stream_with_empty_nulls(text).unwrap();
        assert!(docs[0].1.is_empty());
        assert_eq!(
            docs[0].0["metadata"]["annotations"],
            serde_json::json!({"a": "", "b": "null", "c": "0x1F"})
        );
    }

    #[test]
    fn folded_scalars_come_back_as_kustomize_prints_them() {
        // A more-indented line after an ordinary one gains a blank line
        // (go-yaml's folded writer decides from the text's first line).
        assert_eq!(
            one("a: >\n  one\n    more\n  two\n"),
            json!({"a": "one\n\n  more\ntwo\n"})
        );
        // Paragraphs and plain folding are unaffected.
        assert_eq!(
            one("a: >\n  one\n  two\n\n  three\n"),
            json!({"a": "one two\nthree\n"})
        );
        // Text starting with a blank: lines after ordinary lines fold.
        assert_eq!(
            one("a: >2\n    lead\n  x\n\n  y\n"),
            json!({"a": "  lead\nx y\n"})
        );
        // Text that cannot be a block (trailing space) is left alone.
        assert_eq!(
            one("a: >\n  one \n    more\n"),
            json!({"a": "one \n  more\n"})
        );
    }

    #[test]
    fn nesting_is_limited() {
        let deep = format!("{}{}", "[".repeat(999), "]".repeat(999));
        assert!(parse_stream(&deep).is_ok());
        let too_deep = format!("{}{}", "[".repeat(1001), "]".repeat(1001));
        assert!(err(&too_deep).message.contains("nested"));
    }
}
