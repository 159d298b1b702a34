//! The last steps of a build: ordering, removing build annotations, and
//! writing the YAML (to STDOUT, a file, or one file per resource).

use crate::operations::kustomization::Kustomization;
use kustom_api::doc::Doc;
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

/// Remove build annotations (and origin/transformer annotations unless
/// `buildMetadata` asks for them); an annotations map left empty goes too.
pub fn strip_build_annotations(r: &mut Value, top: &Kustomization) {
    let keep_origin = top.build_metadata.iter().any(|m| m == "originAnnotations");
    let keep_transformations = top
        .build_metadata
        .iter()
        .any(|m| m == "transformerAnnotations");
    {
        let Some(meta) = r.get_mut("metadata").and_then(Value::as_object_mut) else {
            return;
        };
        let Some(annos) = meta.get_mut("annotations") else {
            return;
        };
        if let Some(map) = annos.as_object_mut() {
            for key in BUILD_ANNOTATIONS {
                map.remove(*key);
            }
            // kustomize rewrites the annotations as a string map at the end,
            // so `port: 8080` comes out as `port: "8080"`.
            for v in map.values_mut() {
                match v {
                    Value::String(_) => {}
                    Value::Null => *v = Value::String(String::new()),
                    Value::Bool(b) => *v = Value::String(b.to_string()),
                    Value::Number(n) => *v = Value::String(n.to_string()),
                    other => {
                        *other = Value::String(serde_json::to_string(other).unwrap_or_default())
                    }
                }
            }
            if !keep_origin {
                map.remove(ORIGIN);
            }
            if !keep_transformations {
                map.remove(TRANSFORMATIONS);
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
}

/// A resource as it is printed: parsed, build annotations removed.
pub fn final_value(r: &Doc, top: &Kustomization) -> Value {
    let mut v = r.value();
    strip_build_annotations(&mut v, top);
    v
}

/// The whole output stream, as `kustomize build` prints it; each resource
/// is parsed only while it is written.
pub fn render(resources: &[Doc], top: &Kustomization) -> String {
    let mut out = Vec::with_capacity(resources.iter().map(|r| r.json().len()).sum());
    render_to(resources, top, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the YAML writer writes UTF-8")
}

/// Print `resources[start..end]`, each preceded by the document separator
/// unless it is the first of the output.
fn render_range(resources: &[Doc], (start, end): (usize, usize), top: &Kustomization) -> String {
    let mut buf = String::with_capacity(
        resources[start..end]
            .iter()
            .map(|r| r.json().len() * 2)
            .sum(),
    );
    for (i, r) in resources[start..end].iter().enumerate() {
        if start + i > 0 {
            buf.push_str("---\n");
        }
        yaml::write_yaml(&mut buf, &final_value(r, top));
    }
    buf
}

/// Builds whose resources add up to more than this much JSON are printed on
/// two threads.
const PARALLEL_RENDER_BYTES: usize = 1 << 20;

/// [`render`] into `out`. A large build is printed in batches of about
/// half a megabyte of JSON, the odd ones on a second thread, and written
/// in order: its whole text is never held at once.
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
    let render_batch = |b: usize| render_range(resources, batches[b], top);
    std::thread::scope(|s| {
        // At most two printed batches wait: memory stays bounded if the
        // reader of our output is slow.
        let (tx, rx) = std::sync::mpsc::sync_channel::<String>(2);
        let render_odd = &render_batch;
        let n = batches.len();
        s.spawn(move || {
            for b in (1..n).step_by(2) {
                if tx.send(render_odd(b)).is_err() {
                    break; // the writer stopped on an error
                }
            }
        });
        for b in 0..n {
            let text = if b % 2 == 0 {
                render_batch(b)
            } else {
                rx.recv()
                    .expect("the printing thread sends every odd batch")
            };
            out.write_all(text.as_bytes())?;
        }
        out.flush()
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
