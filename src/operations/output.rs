//! The last steps of a build: ordering, removing build annotations, and
//! writing the YAML (to STDOUT, a file, or one file per resource).

use crate::operations::kustomization::Kustomization;
use kustom_api::doc::Doc;
use kustom_api::json_view::JsonView;
use kustom_api::protocol::{BUILD_ANNOTATIONS, ORIGIN, TRANSFORMATIONS};
use kustom_api::{yaml, Error, ResId, Value};

use kustom_api::resid::{
    kind_rank, KIND_ORDER_FIRST as ORDER_FIRST, KIND_ORDER_LAST as ORDER_LAST,
};

/// `--reorder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reorder {
    /// Not given: legacy unless the kustomization has sortOptions.
    Unspecified,
    /// Kind-based order.
    Legacy,
    /// Input order.
    None,
}

/// Order resources per `sortOptions` or `--reorder` (the kustomization wins).
pub fn sort(resources: &mut Vec<Doc>, top: &Kustomization, reorder: Reorder) -> Result<(), Error> {
    if let Some(opts) = &top.sort_options {
        let order = opts.get("order").and_then(Value::as_str).unwrap_or("fifo");
        let legacy = opts.get("legacySortOptions");
        match order {
            "fifo" => {
                if legacy.is_some_and(|l| !l.is_null()) {
                    return Err(Error::new(
                        "the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'",
                    ));
                }
                Ok(())
            }
            "legacy" => {
                let list = |key: &str| -> Option<Vec<String>> {
                    legacy?.get(key)?.as_array().map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    })
                };
                match legacy.filter(|l| !l.is_null()) {
                    Some(_) => {
                        let first = list("orderFirst").unwrap_or_default();
                        let last = list("orderLast").unwrap_or_default();
                        legacy_sort(resources, &first, &last);
                    }
                    None => legacy_sort(resources, ORDER_FIRST, ORDER_LAST),
                }
                Ok(())
            }
            _ => Err(Error::new(
                "the field 'sortOptions.order' must be one of [fifo, legacy]",
            )),
        }
    } else {
        if reorder != Reorder::None {
            legacy_sort(resources, ORDER_FIRST, ORDER_LAST);
        }
        Ok(())
    }
}

fn legacy_sort<S: AsRef<str>>(resources: &mut Vec<Doc>, first: &[S], last: &[S]) {
    let mut keyed: Vec<(i64, String, String, Doc)> = resources
        .drain(..)
        .map(|r| {
            let id = r.id();
            let rank = kind_rank(&id.gvk.kind, first, last);
            (
                rank,
                kustom_api::resid::gvk_sort_key(&id.gvk),
                id_sort_string(&id),
                r,
            )
        })
        .collect();
    keyed.sort_by(|a, b| {
        if a.1 != b.1 {
            if a.0 != b.0 {
                return a.0.cmp(&b.0);
            }
            return a.1.cmp(&b.1);
        }
        a.2.cmp(&b.2)
    });
    resources.extend(keyed.into_iter().map(|k| k.3));
}

fn id_sort_string(id: &ResId) -> String {
    let ns = if id.namespace.is_empty() {
        "~X"
    } else {
        &id.namespace
    };
    let name = if id.name.is_empty() { "~N" } else { &id.name };
    format!("{}|{ns}|{name}", id.gvk)
}

/// Which annotations the output keeps: build annotations always go, origin
/// and transformer annotations unless `buildMetadata` asks for them.
struct KeptAnnotations {
    origin: bool,
    transformations: bool,
}

impl KeptAnnotations {
    fn of(top: &Kustomization) -> KeptAnnotations {
        let asked = |m: &str| top.build_metadata.iter().any(|b| b == m);
        KeptAnnotations {
            origin: asked("originAnnotations"),
            transformations: asked("transformerAnnotations"),
        }
    }

    fn drops(&self, key: &str) -> bool {
        BUILD_ANNOTATIONS.contains(&key)
            || (key == ORIGIN && !self.origin)
            || (key == TRANSFORMATIONS && !self.transformations)
    }
}

/// Remove build annotations (and origin/transformer annotations unless
/// `buildMetadata` asks for them); an annotations map left empty goes too.
pub fn strip_build_annotations(r: &mut Value, top: &Kustomization) {
    let kept = KeptAnnotations::of(top);
    let Some(meta) = r.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let Some(annos) = meta.get_mut("annotations") else {
        return;
    };
    if let Some(map) = annos.as_object_mut() {
        map.retain(|k, _| !kept.drops(k));
        // kustomize rewrites the annotations as a string map at the end,
        // so `port: 8080` comes out as `port: "8080"`.
        for v in map.values_mut() {
            if !v.is_string() {
                *v = Value::String(annotation_text(v));
            }
        }
    }
    let empty = match annos {
        Value::Null => true,
        Value::Object(m) => m.is_empty(),
        _ => false,
    };
    if empty {
        meta.remove("annotations");
    }
}

/// [`strip_build_annotations`] on a resource read in place.
fn strip_build_annotations_view(r: &mut JsonView<'_>, kept: &KeptAnnotations) {
    let Some(JsonView::Object(meta)) = r.get_mut("metadata") else {
        return;
    };
    let Some(at) = meta.iter().position(|(k, _)| k == "annotations") else {
        return;
    };
    let annos = &mut meta[at].1;
    if let JsonView::Object(map) = annos {
        map.retain(|(k, _)| !kept.drops(k));
        for (_, v) in map.iter_mut() {
            if !matches!(v, JsonView::String(_)) {
                *v = JsonView::String(annotation_text(&v.to_value()).into());
            }
        }
    }
    let empty = match annos {
        JsonView::Null => true,
        JsonView::Object(m) => m.is_empty(),
        _ => false,
    };
    if empty {
        meta.remove(at);
    }
}

/// The string an annotation's non-string value becomes on output.
fn annotation_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// A resource as it is printed: parsed, build annotations removed.
pub fn final_value(r: &Doc, top: &Kustomization) -> Value {
    let mut v = r.value();
    strip_build_annotations(&mut v, top);
    v
}

/// Append one resource's YAML, as it is printed, to `out`. Its JSON text is
/// read in place (`JsonView`): no `Value` is built.
pub fn write_resource(out: &mut String, r: &Doc, top: &Kustomization) {
    write_resource_kept(out, r, &KeptAnnotations::of(top), top);
}

/// Append one resource's YAML as `build -o DIR` writes it into a file of
/// its own: as printed, but a folded scalar keeps what its file said
/// (kustomize writes those files from the values it holds, `build`'s
/// output from values re-read; see `yaml::restore_folded_as_written`).
pub fn write_resource_file(out: &mut String, r: &Doc, top: &Kustomization) {
    if !yaml::any_folded_changed() {
        return write_resource(out, r, top);
    }
    let mut v = final_value(r, top);
    yaml::restore_folded_as_written(&mut v);
    yaml::write_yaml(out, &v);
}

fn write_resource_kept(out: &mut String, r: &Doc, kept: &KeptAnnotations, top: &Kustomization) {
    match JsonView::parse(r.json()) {
        Some(mut v) => {
            strip_build_annotations_view(&mut v, kept);
            yaml::write_yaml_view(out, &v);
        }
        // A Doc holds JSON serde_json reads, so this is not reached; the
        // parsed path prints the same if it ever is.
        None => yaml::write_yaml(out, &final_value(r, top)),
    }
}

/// The whole output stream, as `kustomize build` prints it; each resource
/// is read only while it is written.
pub fn render(resources: &[Doc], top: &Kustomization) -> String {
    let mut out = Vec::with_capacity(resources.iter().map(|r| r.json().len()).sum());
    render_to(resources, top, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the YAML writer writes UTF-8")
}

/// Print `resources[start..end]`, each preceded by the document separator
/// unless it is the first of the output.
fn render_range(resources: &[Doc], (start, end): (usize, usize), top: &Kustomization) -> String {
    // A CRD's YAML is 2.5 times its JSON: growing the buffer copied it
    // into fresh pages; room it does not use is pages never touched.
    let mut buf = String::with_capacity(
        resources[start..end]
            .iter()
            .map(|r| r.json().len() * 3)
            .sum(),
    );
    let kept = KeptAnnotations::of(top);
    for (i, r) in resources[start..end].iter().enumerate() {
        if start + i > 0 {
            buf.push_str("---\n");
        }
        write_resource_kept(&mut buf, r, &kept, top);
    }
    buf
}

/// Builds whose resources add up to more than this much JSON are printed on
/// two threads.
const PARALLEL_RENDER_BYTES: usize = 1 << 20;

/// Printed batches that may wait to be written: memory stays bounded if
/// the reader of our output is slow.
const BATCHES_AHEAD: usize = 3;

/// Batches of a large build being printed on two threads: the next one to
/// print, the next one to write, and those printed but not yet written.
struct Printing {
    next: usize,
    written: usize,
    printed: std::collections::BTreeMap<usize, String>,
    /// The writer stopped on an error.
    stopped: bool,
}

/// [`render`] into `out`. A large build is printed in batches of about
/// half a megabyte of JSON, each taken in turn by whichever of two threads
/// is free (the writing one takes fewer: batches cost unlike amounts), and
/// written in order: its whole text is never held at once.
/// Rendering cannot fail, so only a write error can stop it.
pub fn render_to(
    resources: &[Doc],
    top: &Kustomization,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    let total: usize = resources.iter().map(|r| r.json().len()).sum();
    if total <= PARALLEL_RENDER_BYTES {
        out.write_all(render_range(resources, (0, resources.len()), top).as_bytes())?;
        return out.flush();
    }
    let batches = batches_of(resources, PARALLEL_RENDER_BYTES / 2);
    let n = batches.len();
    let state = std::sync::Mutex::new(Printing {
        next: 0,
        written: 0,
        printed: std::collections::BTreeMap::new(),
        stopped: false,
    });
    let changed = std::sync::Condvar::new();
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    // Print batch `b` and hand it to the writer.
    let print = |b: usize| {
        let text = render_range(resources, batches[b], top);
        lock().printed.insert(b, text);
        changed.notify_all();
    };
    std::thread::scope(|s| {
        s.spawn(|| loop {
            let b = {
                let mut p = lock();
                while !p.stopped && p.next < n && p.next >= p.written + BATCHES_AHEAD {
                    p = changed.wait(p).unwrap_or_else(|e| e.into_inner());
                }
                if p.stopped || p.next >= n {
                    return;
                }
                p.next += 1;
                p.next - 1
            };
            print(b);
        });
        let result = (|| {
            let mut p = lock();
            while p.written < n {
                let due = p.written;
                if let Some(text) = p.printed.remove(&due) {
                    drop(p);
                    out.write_all(text.as_bytes())?;
                    p = lock();
                    p.written += 1;
                    changed.notify_all();
                } else if p.next < n && p.next < p.written + BATCHES_AHEAD {
                    p.next += 1;
                    let b = p.next - 1;
                    drop(p);
                    print(b);
                    p = lock();
                } else {
                    p = changed.wait(p).unwrap_or_else(|e| e.into_inner());
                }
            }
            drop(p);
            out.flush()
        })();
        lock().stopped = true;
        changed.notify_all();
        result
    })
}

/// Split `resources` into consecutive ranges of about `bytes` of JSON each.
fn batches_of(resources: &[Doc], bytes: usize) -> Vec<(usize, usize)> {
    let mut batches = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, r) in resources.iter().enumerate() {
        size += r.json().len();
        if size >= bytes {
            batches.push((start, i + 1));
            (start, size) = (i + 1, 0);
        }
    }
    if start < resources.len() {
        batches.push((start, resources.len()));
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ConfigMaps of unlike sizes (so batches cost unlike amounts), more
    /// than two threads' worth of batches in all.
    fn resources() -> Vec<Doc> {
        (0..800)
            .map(|i| {
                let blob = "x".repeat(if i % 7 == 0 { 40_000 } else { 2_000 });
                Doc::from_value(&serde_json::json!({
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": format!("cm-{i:03}")},
                    "data": {"blob": blob},
                }))
            })
            .collect()
    }

    #[test]
    fn a_large_build_prints_in_order_on_two_threads() {
        let rs = resources();
        let top = Kustomization::default();
        assert!(batches_of(&rs, PARALLEL_RENDER_BYTES / 2).len() > 2 * BATCHES_AHEAD);
        let one_thread = render_range(&rs, (0, rs.len()), &top);
        assert_eq!(render(&rs, &top), one_thread);
    }

    /// A writer that fails after `left` bytes.
    struct Failing {
        left: usize,
    }

    impl std::io::Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.left == 0 {
                return Err(std::io::Error::other("disk full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_both_threads_and_is_returned() {
        let rs = resources();
        let err = render_to(
            &rs,
            &Kustomization::default(),
            &mut Failing { left: 1 << 20 },
        )
        .expect_err("the writer fails");
        assert_eq!(err.to_string(), "disk full");
    }
}
