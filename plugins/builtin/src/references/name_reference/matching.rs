//! Choosing the target a reference means among the candidates: narrowing
//! by namespace, `roleRef` kind and prefix/suffix history.

use super::candidates::Info;
use super::job::Job;
use kustom_api::{err, Error};

/// How candidates narrowed to several count as one (kustomize takes the first).
#[derive(Clone, Copy)]
pub(super) enum Sameness {
    /// Same current name: only the name is copied from the target.
    Name,
    /// Same current name and namespace: both are copied.
    NameAndNamespace,
}

impl Job<'_> {
    /// Pick the target a reference to `old_name` means, if any.
    pub(super) fn select(
        &mut self,
        old_name: &str,
        namespace: Option<&str>,
        sameness: Sameness,
    ) -> Result<Option<usize>, Error> {
        let index = self.index;
        let infos = &index.infos;
        let referrer = self.referrer;
        // An explicit namespace narrows by original namespace when the
        // referrer can see anything that was originally there, else by
        // current namespace.
        let by_org = namespace.map(|ns| (ns, index.reachable_has_org_namespace(ns, referrer)));
        let mut cands: Vec<usize> = index
            .reachable(old_name, referrer, by_org)
            .into_iter()
            .filter(|&c| {
                let info = &infos[c];
                let in_ns = match by_org {
                    None => true,
                    Some((ns, true)) => info.org_eff_ns.as_deref() == Some(ns),
                    Some((ns, false)) => !info.cluster_scoped && info.eff_ns == ns,
                };
                in_ns
                    && info.was_selected_by(self.target)
                    && self
                        .role_ref
                        .as_ref()
                        .is_none_or(|g| info.was_selected_by(g))
            })
            .collect();
        if cands.len() > 1 {
            // Prefer targets renamed along with the referrer: their
            // prefix/suffix histories end alike (an empty history matching
            // anything at first, then only another empty one).
            cands.retain(|&c| same_affixes(&infos[c], referrer.info, true));
            if cands.len() > 1 {
                cands.retain(|&c| same_affixes(&infos[c], referrer.info, false));
            }
        }
        let chosen = match cands.as_slice() {
            [] => return Ok(None),
            [one] => *one,
            [first, rest @ ..] => {
                let a = &infos[*first].id;
                let same = rest.iter().all(|&c| {
                    let b = &infos[c].id;
                    a.name == b.name
                        && match sameness {
                            Sameness::Name => true,
                            Sameness::NameAndNamespace => a.namespace == b.namespace,
                        }
                });
                if !same {
                    let ids: Vec<String> = cands.iter().map(|&c| infos[c].id.to_string()).collect();
                    self.ambiguous = Some(cands);
                    return Err(err!(
                        "found multiple possible referrals: {}",
                        ids.join(", ")
                    ));
                }
                *first
            }
        };
        self.referred.push(chosen);
        Ok(Some(chosen))
    }
}

/// Whether the candidate's prefixes and suffixes end the same way as the
/// referrer's; with `allow_empty`, an empty history on either side matches.
pub(super) fn same_affixes(cand: &Info, referrer: &Info, allow_empty: bool) -> bool {
    let fits = |a: &Option<Vec<String>>, b: &Option<Vec<String>>| {
        let a = a.as_deref().unwrap_or_default();
        let b = b.as_deref().unwrap_or_default();
        (allow_empty && (a.is_empty() || b.is_empty())) || same_ending(a, b)
    };
    fits(&cand.prefixes, &referrer.prefixes) && fits(&cand.suffixes, &referrer.suffixes)
}

/// Whether the shorter list is a tail of the longer (two empty lists match,
/// an empty and a non-empty one do not).
pub(super) fn same_ending(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return long.is_empty();
    }
    long.ends_with(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn affix_histories_compare_by_their_ends() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(same_ending(&s(&["a-"]), &s(&["pfx-", "a-"])));
        assert!(!same_ending(&s(&["b-"]), &s(&["pfx-", "a-"])));
        assert!(same_ending(&s(&[]), &s(&[])));
        assert!(!same_ending(&s(&[]), &s(&["a-"])));
    }
}
