//! Reading a resource document straight to compact JSON text.
//!
//! The general reader ([`tree`](super::tree)) builds a value for each
//! document, which the core then encodes and frees; for a CRD bundle that
//! costs more than parsing the text. This reader takes the same parser
//! events and writes, in place, the text `serde_json` writes for the value
//! the general reader gives: keys sorted,
//! nothing between tokens. A mapping whose keys arrive in order (generated
//! manifests) is written once; one whose keys do not is reordered once,
//! when it ends.
//!
//! It covers what resource files are made of. Anything else is left to the
//! general reader ([`Fallback`]; [`read`](super::read) hands each document
//! to one or the other), so that values and error messages stay its own: anchors and aliases, `<<` keys, explicit tags, values written empty
//! (`key:`), keys that need typing or escaping, collections as keys, a
//! root that is not a mapping, a `*List`, and every error.
//! `tests/direct_reader.rs` holds the two readers to the same results.

use super::folded::folded_as_printed;
use super::parse::{Event, Parser};
use super::resolve::{resolve_plain, Resolved};
use super::scan::ScalarStyle;
use super::typing::{rules, short_tag, MAX_NESTING};

/// The document is one for the general reader ([`tree`](super::tree)).
#[derive(Debug)]
pub(crate) struct Fallback;

/// A resource document as compact JSON: the text of one object and where
/// each top-level key and value is in it.
#[derive(Debug)]
pub struct ObjectText {
    json: String,
    /// Byte ranges of each entry's key (inside its quotes) and value.
    entries: Vec<(Span, Span)>,
}

/// A byte range of the text.
type Span = (usize, usize);

impl ObjectText {
    /// Each top-level key and the byte range of its value, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, (usize, usize))> {
        self.entries
            .iter()
            .map(|&((ks, ke), value)| (&self.json[ks..ke], value))
    }

    /// The text.
    pub fn into_json(self) -> String {
        self.json
    }

    /// The text, borrowed.
    pub fn json(&self) -> &str {
        &self.json
    }
}

/// Which mappings the reader treats specially (as `read` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    /// The root's `metadata`.
    Metadata,
    /// The root's `metadata.annotations`, whose scalar values are their
    /// texts whatever they say.
    Annotations,
    Other,
}

enum Frame {
    Map {
        /// Where its `{` is.
        open: usize,
        /// Where its entries start in [`Writer::entries`].
        first: usize,
        /// The key waiting for its value: its text's range and where its
        /// entry (the key's opening quote) starts.
        pending: Option<(Span, usize)>,
        /// Whether the keys so far came in order.
        sorted: bool,
        role: Role,
    },
    Seq {
        /// Items written so far.
        items: usize,
    },
}

/// One finished entry of an open mapping: its key's text and the whole
/// `"key":value` segment.
#[derive(Clone, Copy)]
struct Entry {
    key: Span,
    start: usize,
    end: usize,
}

/// The reader's buffers, kept from one document to the next.
#[derive(Default)]
pub(crate) struct Writer {
    out: Vec<u8>,
    stack: Vec<Frame>,
    entries: Vec<Entry>,
    scratch: Vec<u8>,
    /// The root's entries once it has ended.
    root: Option<Vec<(Span, Span)>>,
}

impl Writer {
    /// Read the first document of `parser`'s text, `yaml_len` bytes long
    /// (its JSON text is seldom longer).
    pub(crate) fn read(
        &mut self,
        parser: &mut Parser<'_>,
        yaml_len: usize,
    ) -> Result<ObjectText, Fallback> {
        self.out.clear();
        // Room for the whole text at once: growing by doubling copied a
        // large document several times, into fresh pages each time.
        self.out.reserve(yaml_len);
        self.stack.clear();
        self.entries.clear();
        self.root = None;
        while let Some(event) = parser.next_event().map_err(|_| Fallback)? {
            if self.root.is_some() {
                return Err(Fallback);
            }
            self.event(event)?;
        }
        let entries = self.root.take().ok_or(Fallback)?;
        // kustomize makes each item of a `*List` a resource of its own.
        let is_list = entries.iter().any(|&((ks, ke), (vs, ve))| {
            &self.out[ks..ke] == b"kind" && self.out[vs..ve].ends_with(b"List\"")
        });
        if is_list {
            return Err(Fallback);
        }
        // A large text is handed over, not copied: the capacity it does not
        // use is pages never touched. A small one is copied to its size, and
        // the buffer serves the next document.
        let text = if self.out.len() >= crate::doc::KEEP_CAPACITY_BYTES {
            std::mem::take(&mut self.out)
        } else {
            self.out.clone()
        };
        let json = String::from_utf8(text).map_err(|_| Fallback)?;
        Ok(ObjectText { json, entries })
    }

    fn event(&mut self, event: Event) -> Result<(), Fallback> {
        match event {
            Event::Alias { .. } => Err(Fallback),
            Event::Scalar {
                value,
                style,
                tag,
                anchor,
                ..
            } => {
                if anchor.is_some() || tag.as_deref().and_then(short_tag).is_some() {
                    return Err(Fallback);
                }
                self.scalar(value, style)
            }
            Event::MapStart { anchor, .. } => {
                if anchor.is_some() || self.stack.len() >= MAX_NESTING {
                    return Err(Fallback);
                }
                let role = match self.stack.last() {
                    None => Role::Root,
                    Some(_) => self.child_role(),
                };
                if role != Role::Root {
                    self.before_value()?;
                }
                self.stack.push(Frame::Map {
                    open: self.out.len(),
                    first: self.entries.len(),
                    pending: None,
                    sorted: true,
                    role,
                });
                self.out.push(b'{');
                Ok(())
            }
            Event::SeqStart { anchor, .. } => {
                if anchor.is_some() || self.stack.len() >= MAX_NESTING || self.stack.is_empty() {
                    return Err(Fallback);
                }
                self.before_value()?;
                self.stack.push(Frame::Seq { items: 0 });
                self.out.push(b'[');
                Ok(())
            }
            Event::SeqEnd => {
                let Some(Frame::Seq { .. }) = self.stack.pop() else {
                    return Err(Fallback);
                };
                self.out.push(b']');
                self.after_value()
            }
            Event::MapEnd => {
                let Some(Frame::Map {
                    open,
                    first,
                    pending,
                    sorted,
                    role,
                }) = self.stack.pop()
                else {
                    return Err(Fallback);
                };
                if pending.is_some() {
                    return Err(Fallback);
                }
                if !sorted {
                    self.reorder(open, first)?;
                }
                self.out.push(b'}');
                if role == Role::Root && self.stack.is_empty() {
                    let entries = self.entries[first..]
                        .iter()
                        .map(|e| {
                            // `"key":value`
                            let value_start = e.key.1 + 2;
                            (e.key, (value_start, e.end))
                        })
                        .collect();
                    self.entries.truncate(first);
                    self.root = Some(entries);
                    return Ok(());
                }
                self.entries.truncate(first);
                self.after_value()
            }
        }
    }

    /// The role of a mapping starting now as the value of the open
    /// mapping's pending key.
    fn child_role(&self) -> Role {
        let Some(Frame::Map {
            pending: Some(((ks, ke), _)),
            role,
            ..
        }) = self.stack.last()
        else {
            return Role::Other;
        };
        match (role, &self.out[*ks..*ke]) {
            (Role::Root, b"metadata") => Role::Metadata,
            (Role::Metadata, b"annotations") => Role::Annotations,
            _ => Role::Other,
        }
    }

    /// Before a value is written into the open collection: the comma
    /// between items. A collection where a key is due is a complex key.
    fn before_value(&mut self) -> Result<(), Fallback> {
        match self.stack.last_mut() {
            Some(Frame::Seq { items }) => {
                if *items > 0 {
                    self.out.push(b',');
                }
                *items += 1;
                Ok(())
            }
            Some(Frame::Map {
                pending: Some(_), ..
            }) => Ok(()),
            _ => Err(Fallback),
        }
    }

    /// After a value was written into the open collection: a mapping's
    /// entry is complete.
    fn after_value(&mut self) -> Result<(), Fallback> {
        if let Some(Frame::Map { pending, .. }) = self.stack.last_mut() {
            let (key, start) = pending.take().ok_or(Fallback)?;
            self.entries.push(Entry {
                key,
                start,
                end: self.out.len(),
            });
        }
        Ok(())
    }

    fn scalar(&mut self, text: String, style: ScalarStyle) -> Result<(), Fallback> {
        // The open collection's role, and whether it is a mapping.
        let (role, in_map) = match self.stack.last() {
            // A scalar document: not a resource.
            None => return Err(Fallback),
            Some(Frame::Seq { .. }) => (Role::Other, false),
            Some(Frame::Map {
                pending: None,
                role,
                ..
            }) => {
                let root = *role == Role::Root;
                return self.key(&text, style == ScalarStyle::Plain, root);
            }
            Some(Frame::Map { role, .. }) => (*role, true),
        };
        self.before_value()?;
        if role == Role::Annotations {
            // An annotation's value is its text, whatever it says.
            write_str(&mut self.out, &text);
        } else if style == ScalarStyle::Plain {
            if in_map && text.is_empty() {
                // `key:` — `read` records where, for strategic merges.
                return Err(Fallback);
            }
            self.plain(&text)?;
        } else if style == ScalarStyle::Folded {
            write_str(&mut self.out, &folded_as_printed(text));
        } else {
            write_str(&mut self.out, &text);
        }
        self.after_value()
    }

    /// A plain scalar value, typed as go-yaml v3 types it.
    fn plain(&mut self, text: &str) -> Result<(), Fallback> {
        let out = &mut self.out;
        match resolve_plain(text, rules(), true) {
            Resolved::Null => out.extend_from_slice(b"null"),
            Resolved::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
            Resolved::Int(i) => serde_json::to_writer(&mut *out, &i).map_err(|_| Fallback)?,
            Resolved::Uint(u) => serde_json::to_writer(&mut *out, &u).map_err(|_| Fallback)?,
            Resolved::Float(f) => {
                let n = serde_json::Number::from_f64(f).ok_or(Fallback)?;
                serde_json::to_writer(&mut *out, &n).map_err(|_| Fallback)?;
            }
            Resolved::Timestamp(t) => write_str(out, &t.to_rfc3339().map_err(|_| Fallback)?),
            Resolved::Str => write_str(out, text),
        }
        Ok(())
    }

    /// A key of the open mapping: written as `"key":`, checked against the
    /// previous key for order (an equal key is a duplicate: `read` reports
    /// it).
    fn key(&mut self, text: &str, plain: bool, root: bool) -> Result<(), Fallback> {
        if text == "<<" || text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
            return Err(Fallback);
        }
        if plain {
            // The root's keys are their texts (but not null); nested keys
            // must be strings.
            match resolve_plain(text, rules(), true) {
                Resolved::Str => {}
                Resolved::Null => return Err(Fallback),
                _ if root => {}
                _ => return Err(Fallback),
            }
        }
        let Some(Frame::Map {
            first,
            pending,
            sorted,
            ..
        }) = self.stack.last_mut()
        else {
            return Err(Fallback);
        };
        if let Some(prev) = self.entries[*first..].last() {
            match self.out[prev.key.0..prev.key.1].cmp(text.as_bytes()) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return Err(Fallback),
                std::cmp::Ordering::Greater => *sorted = false,
            }
            self.out.push(b',');
        }
        let start = self.out.len();
        self.out.push(b'"');
        self.out.extend_from_slice(text.as_bytes());
        let key = (start + 1, self.out.len());
        self.out.extend_from_slice(b"\":");
        *pending = Some((key, start));
        Ok(())
    }

    /// Rewrite the entries of the mapping opened at `open` (entries from
    /// `first` on) in key order.
    fn reorder(&mut self, open: usize, first: usize) -> Result<(), Fallback> {
        let entries = &mut self.entries[first..];
        let out = &self.out;
        entries.sort_by(|a, b| out[a.key.0..a.key.1].cmp(&out[b.key.0..b.key.1]));
        if entries
            .windows(2)
            .any(|w| out[w[0].key.0..w[0].key.1] == out[w[1].key.0..w[1].key.1])
        {
            return Err(Fallback);
        }
        self.scratch.clear();
        let base = open + 1;
        for (i, e) in entries.iter_mut().enumerate() {
            if i > 0 {
                self.scratch.push(b',');
            }
            let start = base + self.scratch.len();
            self.scratch.extend_from_slice(&out[e.start..e.end]);
            // The entry's new place, for the root's spans.
            let shift = |at: usize| at - e.start + start;
            *e = Entry {
                key: (shift(e.key.0), shift(e.key.1)),
                start,
                end: shift(e.end),
            };
        }
        self.out.truncate(base);
        self.out.extend_from_slice(&self.scratch);
        Ok(())
    }
}

/// A JSON string, escaped as `serde_json` escapes it.
fn write_str(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(out, text).expect("writing to a vector does not fail");
}
