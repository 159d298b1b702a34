//! A kustomization's `resources:` entries: each resolved to a file, a
//! directory (a base built in its own accumulator), inline YAML or a remote
//! URL, within the load restrictor, and its documents read.

use super::remote::RemoteRoot;
use super::{canonical_dir, Builder, DirRef, LoadRestrictor, Target};
use crate::fetch::remote::spec::{self, RepoSpec};
use crate::operations::accumulator::Accumulator;
use crate::operations::origin::Trail;
use kustom_api::doc::{self, Doc};
use kustom_api::{empty_nulls, resource, yaml, Error, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a `resources:` (or generator/transformer list) entry names.
pub(super) enum Entry {
    /// Objects read from a file (compact: a large file is never held parsed).
    File(Vec<Doc>),
    /// A kustomization directory to build, with its origin and remote root.
    Dir(PathBuf, Option<Trail>, Option<Arc<RemoteRoot>>),
}

/// kustomize builds a base or component only from a relative path.
pub(super) fn refuse_absolute_root(t: &Target, p: &str) -> Result<(), Error> {
    if Path::new(p).is_absolute() {
        return Err(Error::new(format!(
            "new root '{p}' cannot be absolute (listed in {}); name the directory relative to the kustomization",
            t.file.display()
        )));
    }
    Ok(())
}

/// Inline plugin configs: an entry that parses as YAML objects with a kind.
pub(super) fn parse_inline(entry: &str) -> Option<Vec<Value>> {
    if !entry.contains('\n') && !entry.trim_start().starts_with('{') {
        return None;
    }
    let docs = yaml::parse_stream(entry).ok()?;
    if docs.is_empty()
        || !docs
            .iter()
            .all(|d| d.is_object() && !resource::kind(d).is_empty())
    {
        return None;
    }
    Some(docs)
}

/// Read a resource file: multi-document YAML, `*List` kinds expanded,
/// every object needing a kind and a name.
pub fn read_resource_file(path: &Path, rel: &str, kust_file: &Path) -> Result<Vec<Value>, Error> {
    let mut out = Vec::new();
    each_resource_in_file(path, rel, kust_file, |r| {
        out.push(r);
        Ok(())
    })?;
    Ok(out)
}

/// [`read_resource_file`], handing each resource to `f` as soon as it is
/// read: a caller that keeps resources in a compact form never holds a
/// whole large stream as parsed values.
pub fn each_resource_in_file(
    path: &Path,
    rel: &str,
    kust_file: &Path,
    mut f: impl FnMut(Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = ResourceFile::read(path, rel, kust_file)?;
    let result = yaml::for_each_document_with_empty_nulls(&file.text, |doc, empties| {
        file.expand(doc, empties, &mut f)
    });
    file.in_context(result)
}

/// [`each_resource_in_file`] for a caller that keeps resources as `Doc`s:
/// most documents are read straight to JSON text, never as values
/// (`yaml::for_each_resource_document`).
pub fn each_doc_in_file(
    path: &Path,
    rel: &str,
    kust_file: &Path,
    mut f: impl FnMut(Doc) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = ResourceFile::read(path, rel, kust_file)?;
    let result = yaml::for_each_resource_document(&file.text, |read| match read {
        yaml::ResourceDocument::Text(object) => {
            let doc = Doc::from_object_text(object);
            if doc.json() == "{}" {
                return Ok(());
            }
            if doc.kind().is_empty() {
                return Err(file.bad("missing kind in object".into()));
            }
            if doc.kind().ends_with("List") {
                // The direct reader leaves these to the value reader.
                return file.expand(doc.value(), Vec::new(), &mut |v| f(Doc::from_value(&v)));
            }
            if doc.name().is_empty() {
                return Err(file.bad(format!(
                    "missing metadata.name in object of kind {}",
                    doc.kind()
                )));
            }
            f(doc)
        }
        yaml::ResourceDocument::Value(doc, empties) => {
            file.expand(doc, empties, &mut |v| f(Doc::from_value(&v)))
        }
    });
    file.in_context(result)
}

/// A resource file being read, for [`each_resource_in_file`] and
/// [`each_doc_in_file`].
struct ResourceFile<'a> {
    path: &'a Path,
    /// Where it was named, for messages.
    where_: String,
    text: String,
}

impl<'a> ResourceFile<'a> {
    fn read(path: &'a Path, rel: &str, kust_file: &Path) -> Result<Self, Error> {
        let where_ = format!(
            "accumulating resources from '{rel}' (listed in {})",
            kust_file.display()
        );
        let text = kustom_api::files::read_text(path).map_err(|e| e.context(&where_))?;
        Ok(ResourceFile { path, where_, text })
    }

    fn bad(&self, message: String) -> Error {
        Error::new(format!("{}: {message}", self.path.display())).context(&self.where_)
    }

    /// Name the file and where it was listed in an error that does not.
    fn in_context(&self, result: Result<(), Error>) -> Result<(), Error> {
        result.map_err(|e| {
            if e.message.contains(&self.where_) {
                e
            } else {
                e.context(self.path.display()).context(&self.where_)
            }
        })
    }

    /// Hand `f` the resources of one document read as a value, with the
    /// paths of its values written empty (`key:`), which a strategic-merge
    /// patch treats unlike `null` (kustom_api::empty_nulls): nothing for an
    /// empty one, each item of a `*List`, else the document itself, which
    /// must have a kind and a name.
    fn expand(
        &self,
        doc: Value,
        empties: Vec<Value>,
        f: &mut dyn FnMut(Value) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut queue = std::collections::VecDeque::from([(doc, empties)]);
        while let Some((doc, empties)) = queue.pop_front() {
            match &doc {
                Value::Null => continue,
                Value::Object(m) if m.is_empty() => continue,
                Value::Object(_) => {}
                _ => {
                    return Err(self.bad(
                        "a resource must be a YAML mapping with apiVersion, kind and metadata.name"
                            .into(),
                    ))
                }
            }
            let kind = resource::kind(&doc).to_string();
            if kind.is_empty() {
                return Err(self.bad("missing kind in object".into()));
            }
            if kind.ends_with("List") {
                match doc.get("items") {
                    None => {}
                    Some(Value::Null) => continue,
                    Some(Value::Array(_)) => {
                        if let Value::Object(mut m) = doc {
                            if let Some(Value::Array(items)) = m.remove("items") {
                                queue.extend(items.into_iter().enumerate().map(|(i, item)| {
                                    let prefix = [Value::from("items"), Value::from(i)];
                                    (item, empty_nulls::below(&empties, &prefix))
                                }));
                            }
                        }
                        continue;
                    }
                    Some(_) => return Err(self.bad(format!("expected array in {kind}/items"))),
                }
            } else if resource::name(&doc).is_empty() {
                return Err(self.bad(format!("missing metadata.name in object of kind {kind}")));
            }
            let mut doc = doc;
            empty_nulls::record(&mut doc, empties);
            f(doc)?;
        }
        Ok(())
    }
}

/// Files larger than this are parsed and encoded on two threads.
const PIPELINED_FILE_BYTES: u64 = 256 * 1024;

/// Local `resources:` files adding up to more than this are read on every
/// core (below it, starting threads costs more than it saves).
const PARALLEL_FILES_BYTES: u64 = 512 * 1024;

/// The total size of the entries of `paths` that are local files (at least
/// two of them, else 0: one file gains nothing from more threads).
fn local_file_bytes(t: &Target, paths: &[String]) -> u64 {
    let sizes: Vec<u64> = paths
        .iter()
        .filter_map(|p| std::fs::metadata(t.dir.join(p)).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .collect();
    if sizes.len() < 2 {
        0
    } else {
        sizes.iter().sum()
    }
}

/// Resolve every entry of `paths`, a worker per core taking the next
/// entry in turn; the results keep the listed order.
fn resolve_on_all_cores(
    paths: &[String],
    resolve: impl Fn(&String) -> Result<Entry, Error> + Sync,
) -> Result<Vec<Entry>, Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(paths.len());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Entry, Error>>>> =
        Mutex::new((0..paths.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(p) = paths.get(i) else { break };
                let r = resolve(p);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::new("a thread reading resources panicked"))))
        .collect()
}

impl Builder {
    /// Accumulate `resources:` entries: files are read, directories built
    /// (in parallel, each with its own accumulator) and merged in order.
    pub(super) fn accumulate_resources(
        &self,
        t: &Target,
        mut acc: Accumulator,
        paths: &[String],
        stack: &[PathBuf],
    ) -> Result<Accumulator, Error> {
        // Several remote entries are fetched concurrently, and local files
        // are read on every core when there is enough YAML to share (the
        // first error in listed order is reported, as a sequential walk
        // would).
        let remote = |p: &String| spec::is_remote_file(p) || RepoSpec::parse(p).is_ok();
        let entries: Vec<Entry> = if paths.iter().filter(|p| remote(p)).count() > 1 {
            std::thread::scope(|s| {
                let handles: Vec<_> = paths
                    .iter()
                    .map(|p| s.spawn(move || self.resolve_entry(t, p)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(Error::new("a fetch thread panicked")))
                    })
                    .collect::<Result<_, _>>()
            })?
        } else if local_file_bytes(t, paths) > PARALLEL_FILES_BYTES {
            resolve_on_all_cores(paths, |p| self.resolve_entry(t, p))?
        } else {
            paths
                .iter()
                .map(|p| self.resolve_entry(t, p))
                .collect::<Result<_, _>>()?
        };
        // Build the sibling directories concurrently; merge in listed order.
        let dirs: Vec<DirRef<'_>> = entries
            .iter()
            .filter_map(|e| match e {
                Entry::Dir(d, o, r) => Some((d, o, r)),
                Entry::File(_) => None,
            })
            .collect();
        let helm_namespace = t.helm_namespace_for_children(self.settings.kustomize_version);
        let helm_namespace = helm_namespace.as_str();
        let mut built: Vec<Result<Accumulator, Error>> = if dirs.len() > 1 {
            std::thread::scope(|s| {
                let handles: Vec<_> = dirs
                    .iter()
                    .map(|(d, o, r)| {
                        s.spawn(|| {
                            self.build_base(d, stack, (*o).clone(), (*r).clone(), helm_namespace)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(Error::new("a base build thread panicked")))
                    })
                    .collect()
            })
        } else {
            dirs.iter()
                .map(|(d, o, r)| {
                    self.build_base(d, stack, (*o).clone(), (*r).clone(), helm_namespace)
                })
                .collect()
        };
        built.reverse();
        for (entry, path) in entries.into_iter().zip(paths) {
            match entry {
                Entry::File(rs) => acc.append_all(rs).map_err(|e| {
                    e.context(format!(
                        "merging resources from '{path}' (in {})",
                        t.file.display()
                    ))
                })?,
                Entry::Dir(d, _, _) => {
                    let sub = built.pop().expect("one build per directory")?;
                    acc.merge(sub).map_err(|e| {
                        e.context(format!("recursed merging from path '{}'", d.display()))
                    })?;
                }
            }
        }
        Ok(acc)
    }

    /// What a `resources:` entry (or a non-inline generator/transformer
    /// entry) names, in kustomize's order: a file (an http(s) URL is fetched
    /// as one first), else a repository URL, else a local directory.
    pub(super) fn resolve_entry(&self, t: &Target, p: &str) -> Result<Entry, Error> {
        let with_origin = |mut rs: Vec<Value>| {
            if let Some(trail) = t.origin_of(p) {
                let o = trail.origin();
                rs.iter_mut().for_each(|r| o.set_on(r));
            }
            Entry::File(doc::from_owned_values(rs))
        };
        let fetcher = &self.settings.remote;
        if spec::is_remote_file(p) && !fetcher.known_repo(p) {
            let repo = RepoSpec::parse(p).ok();
            let as_base = |file_err: Error| -> Result<Entry, Error> {
                let Some(spec) = &repo else {
                    return Err(file_err);
                };
                match self.remote_base(t, spec) {
                    Ok((root, remote)) => {
                        fetcher.note_repo(p);
                        Ok(Entry::Dir(root, t.origin_of(p), Some(remote)))
                    }
                    Err(e) => Err(e.context(format!("accumulation err='{file_err}'"))),
                }
            };
            let listed = || format!("'{p}' (listed in {})", t.file.display());
            return match fetcher.file(p) {
                Ok(path) => match read_resource_file(&path, p, &t.file) {
                    Ok(rs) => {
                        self.note_types(&rs);
                        Ok(with_origin(rs))
                    }
                    // Not YAML objects: kustomize tries the URL as a base,
                    // and reports the file's error if that fails too.
                    Err(file_err) => match &repo {
                        Some(spec) => match self.remote_base(t, spec) {
                            Ok((root, remote)) => {
                                Ok(Entry::Dir(root, t.origin_of(p), Some(remote)))
                            }
                            Err(_) => Err(file_err),
                        },
                        None => Err(file_err),
                    },
                },
                Err(crate::fetch::remote::FileError::Other(e)) => {
                    Err(Error::new(format!("fetching {}: {e}", listed())))
                }
                Err(e @ crate::fetch::remote::FileError::Status(..)) if repo.is_none() => {
                    Err(Error::new(format!("fetching {}: {e}", listed())))
                }
                Err(e) => as_base(Error::new(format!("fetching {}: {e}", listed()))),
            };
        }
        let full = t.dir.join(p);
        if full.is_file() {
            let real = self.check_restriction(t, &full, p)?;
            let origin = t.origin_of(p).map(|trail| trail.origin());
            let ahead = match (&origin, self.prefetch.get()) {
                (None, Some(prefetch)) => prefetch.take(&real),
                _ => None,
            };
            if let Some(docs) = ahead {
                for d in &docs {
                    self.note_type(d.api_version(), d.kind());
                }
                if let Some(log) = &self.settings.audit {
                    log.record_read(&t.file, p, &docs)?;
                }
                return Ok(Entry::File(docs));
            }
            let mut docs = Vec::new();
            let Some(origin) = origin else {
                // Each resource becomes a compact Doc as soon as it is read,
                // most of them without a value in between.
                each_doc_in_file(&real, p, &t.file, |d| {
                    self.note_type(d.api_version(), d.kind());
                    docs.push(d);
                    Ok(())
                })?;
                if let Some(log) = &self.settings.audit {
                    log.record_read(&t.file, p, &docs)?;
                }
                return Ok(Entry::File(docs));
            };
            // With `buildMetadata: [originAnnotations]` each resource records
            // where it came from: values. In a
            // large file (a CRD bundle) the encoding and freeing of each
            // parsed value run on a second thread while the next document
            // is parsed: together they cost a third of the parse.
            let large = std::fs::metadata(&real).is_ok_and(|m| m.len() > PIPELINED_FILE_BYTES);
            let each = |mut r: Value, sink: &mut dyn FnMut(Value)| {
                self.note_types(std::slice::from_ref(&r));
                origin.set_on(&mut r);
                sink(r);
                Ok(())
            };
            if large {
                std::thread::scope(|s| {
                    let (tx, rx) = std::sync::mpsc::sync_channel::<Value>(64);
                    let encoder =
                        s.spawn(move || rx.into_iter().map(|r| Doc::from_value(&r)).collect());
                    let read = each_resource_in_file(&real, p, &t.file, |r| {
                        // A closed channel only means the encoder ended early.
                        each(r, &mut |r| drop(tx.send(r)))
                    });
                    drop(tx);
                    let encoded = encoder
                        .join()
                        .map_err(|_| Error::new("the thread encoding resources panicked"));
                    read?;
                    docs = encoded?;
                    Ok::<(), Error>(())
                })?;
            } else {
                each_resource_in_file(&real, p, &t.file, |r| {
                    each(r, &mut |r| docs.push(Doc::from_value(&r)))
                })?;
            }
            if let Some(log) = &self.settings.audit {
                log.record_read(&t.file, p, &docs)?;
            }
            return Ok(Entry::File(docs));
        }
        if let Ok(spec) = RepoSpec::parse(p) {
            let (root, remote) = self.remote_base(t, &spec)?;
            if let Some(log) = &self.settings.audit {
                log.record_remote(&t.file, &spec.raw, &root)?;
            }
            return Ok(Entry::Dir(root, t.origin_of(p), Some(remote)));
        }
        if full.is_dir() {
            refuse_absolute_root(t, p)?;
            let dir = canonical_dir(&full)?;
            self.check_containment(t, &dir)?;
            return Ok(Entry::Dir(dir, t.origin_of(p), t.remote.clone()));
        }
        Err(Error::new(format!(
            "accumulating resources from '{p}': file or directory {} does not exist (listed in {})",
            full.display(),
            t.file.display()
        )))
    }

    /// A file named by a kustomization, checked against the load restrictor.
    pub(super) fn check_restriction(
        &self,
        t: &Target,
        full: &Path,
        rel: &str,
    ) -> Result<PathBuf, Error> {
        let real = full
            .canonicalize()
            .map_err(|e| Error::new(format!("{}: {e}", full.display())))?;
        if self.restrictor_for(t) == LoadRestrictor::RootOnly && !real.starts_with(&t.dir) {
            return Err(Error::new(format!(
                "security; file '{}' is not in or below '{}' (named as '{rel}' in {}); move it under the kustomization or build with --load-restrictor LoadRestrictionsNone",
                real.display(),
                t.dir.display(),
                t.file.display()
            )));
        }
        Ok(real)
    }

    pub(super) fn read_file(&self, t: &Target, rel: &str) -> Result<String, Error> {
        if spec::is_remote_file(rel) {
            let path = self.remote_file(t, rel)?;
            return std::fs::read_to_string(&path).map_err(|e| {
                Error::new(format!(
                    "reading {rel} (named in {}): {e}",
                    t.file.display()
                ))
            });
        }
        let full = t.dir.join(rel);
        let real = self.check_restriction(t, &full, rel)?;
        kustom_api::files::read_text(&real)
            .map_err(|e| e.context(format!("'{rel}' (named in {})", t.file.display())))
    }
}
