//! Shipped-builtin transform calls that send each resource only in the part
//! the call's transformers can touch (`kustom_builtin::reach`): nothing,
//! its head and some named fields, or all of it. The answers are put back
//! into the resources (`kustom_api::sight`), whose other text is kept.
//!
//! The builtin answers what it was sent in order, less the resources a
//! patch deleted, plus what the call's generators made; each answer is
//! paired with what was sent by its ids. A
//! call that cannot be answered from parts is made again with every
//! resource whole, as if parts had never been tried: an error, a 127, an
//! answer that does not pair up, or one that holds a field its part hid.
//! So the result, errors included, is always a whole call's.

use super::call::Call;
use super::lookup::Location;
use super::settings::Settings;
use super::site::Site;
use kustom_api::doc::{self, Doc};
use kustom_api::protocol;
use kustom_api::sight::{self, Cut, Sight};
use kustom_api::{ResId, Value};
use kustom_builtin::reach::Reach;
use std::path::Path;

/// Which sent resource each answer is: the builtin keeps the order of what
/// it is sent, only drops resources (a patch deleting its target) and adds
/// the generated ones after all others, so each answer is the next sent
/// resource that any of its ids, now or before a rename, names, or else a
/// new resource (None). None if a new resource is not allowed (`generated`
/// false) or comes before one that was sent.
fn pair_up(
    resources: &[Doc],
    sent: &[Sent],
    answers: &[Doc],
    generated: bool,
) -> Option<Vec<Option<usize>>> {
    let mut next = 0;
    let mut pairs = Vec::with_capacity(answers.len());
    for answer in answers {
        let ids: Vec<ResId> = answer
            .previous_ids()
            .into_iter()
            .chain(std::iter::once(answer.id()))
            .collect();
        let k = (next..sent.len()).find(|&k| {
            let id = resources[sent[k].0].id();
            ids.iter().any(|a| a.equals(&id))
        });
        match k {
            Some(k) if pairs.last().is_none_or(Option::is_some) => {
                pairs.push(Some(k));
                next = k + 1;
            }
            None if generated => pairs.push(None),
            _ => return None,
        }
    }
    Some(pairs)
}

/// Resources shorter than this (JSON bytes) are sent whole when the call
/// could do with a part.
const PART_MIN_BYTES: usize = 4096;

/// A resource sent in a partial call: its index, and its part (None:
/// sent whole).
type Sent<'a> = (usize, Option<Cut<'a>>);

impl Settings {
    /// Run `batch` over `resources` in one shipped-builtin call that sees
    /// only what it can touch, changing them in place; the first
    /// `generators` configs are builtin generators run first (their
    /// resources are added at the end). None: the call must be made whole
    /// (see the module documentation); `resources` are then unchanged.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transform_in_parts(
        &self,
        loc: &Location,
        site: &Site<'_>,
        batch: &[Value],
        resources: &mut Vec<Doc>,
        dir: &Path,
        generators: usize,
        call: &Call,
    ) -> Option<()> {
        let ctx = kustom_builtin::Ctx::new(
            dir.to_path_buf(),
            Some(&self.load_restrictor),
            site.kust_file.display().to_string(),
            self.remote.files_json().as_deref(),
            self.kustomize_version,
        );
        let started = std::time::Instant::now();
        // A resource too small to cut is sent whole unless the call sees
        // nothing of it: when it sees every head, none is left out, so
        // the call is whole without asking what it sees of each (nor, when
        // generators see every head, what the transformers reach).
        let all_small = resources.iter().all(|d| d.json().len() < PART_MIN_BYTES);
        if all_small && generators > 0 {
            return None;
        }
        let reach = Reach::of(&batch[generators..], &ctx)?;
        if all_small && reach.sees_every_head() {
            return None;
        }
        let mut sent: Vec<Sent> = Vec::new();
        for (i, d) in resources.iter().enumerate() {
            let mut seen = reach.sight(&sight::head_value(d), d.json());
            // Generators refuse ids that are taken: they see every head.
            if generators > 0 {
                seen.widen(Sight::head());
            }
            let cut = match seen {
                Sight::Nothing => continue,
                // Cutting and putting back costs more than it saves on a
                // small resource.
                Sight::Part(fields) if d.json().len() >= PART_MIN_BYTES => Cut::of(d, fields),
                Sight::Part(_) | Sight::Whole => None,
            };
            sent.push((i, cut));
        }
        let whole = sent.iter().filter(|(_, cut)| cut.is_none()).count();
        tracing::debug!(
            us = started.elapsed().as_micros() as u64,
            resources = resources.len(),
            whole,
            "what the builtin call must see"
        );
        if whole == resources.len() {
            return None;
        }
        let mut stdin = protocol::write_json_stream(batch);
        for (i, cut) in &sent {
            stdin.extend_from_slice(b"---\n");
            match cut {
                Some(cut) => stdin.extend_from_slice(cut.text().as_bytes()),
                None => stdin.extend_from_slice(resources[*i].json().as_bytes()),
            }
            stdin.push(b'\n');
        }
        tracing::debug!(
            resources = resources.len(),
            sent = sent.len(),
            whole,
            stdin_bytes = stdin.len(),
            "builtin call in parts"
        );
        let again = |why: &str| {
            tracing::debug!(why, "builtin call in parts made again whole");
            None
        };
        let answer = match self.call(loc, site, dir, stdin, generators, call) {
            Ok(Some(answer)) => answer,
            Ok(None) => return again("127"),
            Err(_) => return again("an error"),
        };
        let answers = match doc::read_stream(&answer.stdout) {
            Ok(answers) => answers,
            Err(_) => return again("an answer that is not a JSON stream"),
        };
        let Some(pairs) = pair_up(resources, &sent, &answers, generators > 0) else {
            return again("an answer that does not follow what was sent");
        };
        // Each answered resource with its index; the new ones.
        let mut placed = Vec::with_capacity(answers.len());
        let mut added = Vec::new();
        for (&k, answer) in pairs.iter().zip(answers) {
            let Some(k) = k else {
                added.push(answer);
                continue;
            };
            let (i, cut) = &sent[k];
            let d = match cut {
                None => answer,
                Some(cut) => match cut.put_back(&answer) {
                    Some(d) => d,
                    None => return again("an answer beyond its part"),
                },
            };
            placed.push((*i, d));
        }
        // Resources sent and not answered were deleted (`$patch: delete`).
        let mut deleted = vec![false; resources.len()];
        for (i, _) in &sent {
            deleted[*i] = true;
        }
        drop(sent);
        for (i, d) in placed {
            deleted[i] = false;
            resources[i] = d;
        }
        let mut i = 0;
        resources.retain(|_| {
            i += 1;
            !deleted[i - 1]
        });
        resources.extend(added);
        Some(())
    }
}
