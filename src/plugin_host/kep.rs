//! The KEP protocol: `generate` and `transform` calls, batched per group,
//! resources matched back to what was sent by their id annotation.

use super::call::unsupported_transform;
use super::call::Call;
use super::encode::{check_unique_ids, encode, encode_values, record_previous_id};
use super::lookup::{group_of, Location};
use super::settings::{Settings, BUILTIN_GROUP, CALLS};
use super::site::Site;
use super::{container, exchange, krm, legacy};
use kustom_api::doc::{self, Doc};
use kustom_api::protocol::{self, ID_ANNOTATION};
use kustom_api::{resource, Error, ResId, Value};
use std::path::Path;
use std::sync::atomic::Ordering;

impl Settings {
    /// Run the generators `configs` (all of one kustomization, in order):
    /// one KEP call per run of consecutive configs of the same group, one
    /// call per config for legacy plugins and KRM functions.
    pub fn generate(
        &self,
        configs: &[Value],
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<Doc>, Error> {
        let mut out = Vec::new();
        for (loc, batches) in self.plan(configs, dir, kust_file)? {
            for batch in self.audit_batches(&loc, batches) {
                let site =
                    Site::of_batch((loc.protocol(), loc.path()), batch, "generate", kust_file);
                let call = self.begin(&loc, batch, dir)?;
                let result = self.generate_call(&loc, batch, dir, &site, &call);
                self.audit_call(&call, &site, batch, None, result.as_deref())?;
                out.extend(result?);
            }
        }
        Ok(out)
    }

    /// One generator call of [`Settings::generate`].
    pub(super) fn generate_call(
        &self,
        loc: &Location,
        batch: &[Value],
        dir: &Path,
        site: &Site<'_>,
        call: &Call,
    ) -> Result<Vec<Doc>, Error> {
        let first = &batch[0];
        let kust_file = site.kust_file;
        match loc {
            Location::Legacy(path) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                Ok(doc::from_owned_values(legacy::generate(
                    self,
                    path,
                    first,
                    dir,
                    site,
                    &call.sandbox,
                )?))
            }
            Location::Krm(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                Ok(doc::from_owned_values(krm::generate(
                    self,
                    spec,
                    first,
                    dir,
                    site,
                    &call.sandbox,
                )?))
            }
            Location::Container(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let digest = container::image_digest(self, spec)?;
                Ok(doc::from_owned_values(container::generate(
                    self,
                    spec,
                    &digest,
                    first,
                    dir,
                    site,
                    &call.sandbox,
                )?))
            }
            Location::Kep(_) | Location::ShippedBuiltin(_) => {
                let group = group_of(first);
                let stdin = encode(&group, batch, &[]);
                let Some(res) = self.call(loc, site, dir, stdin, 0, call)? else {
                    return Err(Error::new(format!(
                        "{site} does not support `generate` (exit status 127), but {} lists it as a generator",
                        kust_file.display()
                    )));
                };
                if group == BUILTIN_GROUP {
                    return doc::read_stream(&res.stdout)
                        .map_err(|e| site.junk_error(&res, &e.message));
                }
                // Each document becomes a compact Doc as soon as it is read.
                let mut out = Vec::new();
                let mut wrote = None;
                protocol::for_each_in_stream(&res.stdout, |v| {
                    let docs = exchange::expand_lists(vec![v]).map_err(|why| {
                        wrote = Some(Error::new(format!("{site} wrote {why}")));
                        Error::new("")
                    })?;
                    for mut d in docs {
                        // KEP generators may use the legacy hash / behavior
                        // annotations too (they never see internal ones).
                        if resource::annotation(&d, protocol::LEGACY_NEEDS_HASH).is_some()
                            || resource::annotation(&d, protocol::LEGACY_BEHAVIOR).is_some()
                        {
                            exchange::apply_generator_options(std::slice::from_mut(&mut d))
                                .map_err(|e| {
                                    wrote = Some(e.context(site));
                                    Error::new("")
                                })?;
                        }
                        out.push(Doc::from_value(&d));
                    }
                    Ok(())
                })
                .map_err(|e| {
                    wrote
                        .take()
                        .unwrap_or_else(|| site.junk_error(&res, &e.message))
                })?;
                Ok(out)
            }
        }
    }

    /// Run the transformers `configs` over `resources`, one KEP call per run
    /// of consecutive configs of the same group, one call per config for
    /// legacy plugins and KRM functions. With `optional` (generators asked to
    /// transform, KEP only), a KEP plugin answering 127 leaves the resources
    /// unchanged, and legacy plugins and KRM functions are not called.
    pub fn transform(
        &self,
        configs: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Doc>, Error> {
        self.transform_inner(configs, 0, resources, dir, kust_file, optional)
    }

    /// Run builtin `generators` and then `transformers` in one call of the
    /// shipped builtin (see [`protocol::ENV_GENERATE_FIRST`]): the same
    /// result as generating, adding the new resources and transforming, one
    /// process fewer. Only for generators [`Settings::can_generate_in_transform`] accepts.
    pub fn generate_and_transform(
        &self,
        generators: &[Value],
        transformers: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
    ) -> Result<Vec<Doc>, Error> {
        let all: Vec<Value> = generators.iter().chain(transformers).cloned().collect();
        self.transform_inner(&all, generators.len(), resources, dir, kust_file, false)
    }

    /// [`Settings::transform`] where the first `generate_first` configs are
    /// builtin generators that the first (shipped builtin) call runs first.
    pub(super) fn transform_inner(
        &self,
        configs: &[Value],
        mut generate_first: usize,
        mut resources: Vec<Doc>,
        dir: &Path,
        kust_file: &Path,
        optional: bool,
    ) -> Result<Vec<Doc>, Error> {
        for (loc, batches) in self.plan(configs, dir, kust_file)? {
            for batch in self.audit_batches(&loc, batches) {
                if optional
                    && matches!(
                        loc,
                        Location::Legacy(_) | Location::Krm(_) | Location::Container(_)
                    )
                {
                    continue;
                }
                let site =
                    Site::of_batch((loc.protocol(), loc.path()), batch, "transform", kust_file);
                let call = self.begin(&loc, batch, dir)?;
                // The shipped builtin's generators are consecutive configs of
                // it, so they all open the first call.
                debug_assert!(generate_first <= batch.len());
                let generators = generate_first.min(batch.len());
                generate_first -= generators;
                let before = self.audit.as_ref().map(|_| resources.clone());
                let result = self.transform_call(
                    &loc, batch, resources, dir, &site, optional, generators, &call,
                );
                self.audit_call(&call, &site, batch, before.as_deref(), result.as_deref())?;
                resources = result?;
            }
        }
        Ok(resources)
    }

    /// The calls a batch of configs makes: one, or with the audit log on
    /// and the shipped builtin, one per config, so that the log credits
    /// every change to the config that made it (the builtin runs a batch's
    /// configs in order, so the result is the same).
    fn audit_batches<'c>(&self, loc: &Location, batch: &'c [Value]) -> Vec<&'c [Value]> {
        if self.audit.is_some() && matches!(loc, Location::ShippedBuiltin(_)) {
            batch.chunks(1).collect()
        } else {
            vec![batch]
        }
    }

    /// One transformer call of [`Settings::transform_inner`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transform_call(
        &self,
        loc: &Location,
        batch: &[Value],
        resources: Vec<Doc>,
        dir: &Path,
        site: &Site<'_>,
        optional: bool,
        generators: usize,
        call: &Call,
    ) -> Result<Vec<Doc>, Error> {
        let first = &batch[0];
        Ok(match loc {
            Location::Legacy(path) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let rs = doc::to_values(&resources);
                drop(resources);
                doc::from_owned_values(legacy::transform(
                    self,
                    path,
                    first,
                    rs,
                    dir,
                    site,
                    &call.sandbox,
                )?)
            }
            Location::Krm(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let rs = doc::to_values(&resources);
                drop(resources);
                doc::from_owned_values(krm::transform(
                    self,
                    spec,
                    first,
                    rs,
                    dir,
                    site,
                    &call.sandbox,
                )?)
            }
            Location::Container(spec) => {
                CALLS.fetch_add(1, Ordering::Relaxed);
                let digest = container::image_digest(self, spec)?;
                let rs = doc::to_values(&resources);
                drop(resources);
                doc::from_owned_values(container::transform(
                    self,
                    spec,
                    &digest,
                    first,
                    rs,
                    dir,
                    site,
                    &call.sandbox,
                )?)
            }
            // The shipped builtin keeps identities itself (it records
            // renames in the build annotations), so resources travel as
            // their JSON text both ways and are never parsed here.
            Location::ShippedBuiltin(_) => {
                let mut resources = resources;
                if self
                    .transform_in_parts(loc, site, batch, &mut resources, dir, generators, call)
                    .is_some()
                {
                    return Ok(resources);
                }
                let stdin = encode(BUILTIN_GROUP, batch, &resources);
                // Only a 127 answer needs the input back.
                let kept = if optional { resources } else { Vec::new() };
                match self.call(loc, site, dir, stdin, generators, call)? {
                    Some(res) => doc::read_stream(&res.stdout)
                        .map_err(|e| site.junk_error(&res, &e.message))?,
                    None if optional => kept,
                    None => return Err(unsupported_transform(site)),
                }
            }
            Location::Kep(_) => {
                match self.transform_kep(loc, site, batch, &resources, dir, optional, call)? {
                    Some(rs) => {
                        drop(resources);
                        doc::from_owned_values(rs)
                    }
                    None => resources,
                }
            }
        })
    }

    /// A transform call to a KEP plugin: resources are tagged with the id
    /// annotation and the output matched back by it. None: the plugin does
    /// not transform (127) and `optional` allows that.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transform_kep(
        &self,
        loc: &Location,
        site: &Site<'_>,
        configs: &[Value],
        resources: &[Doc],
        dir: &Path,
        optional: bool,
        call: &Call,
    ) -> Result<Option<Vec<Value>>, Error> {
        let group = group_of(&configs[0]);
        // Each resource is parsed, tagged and encoded in turn, so that only
        // the encoded stream is held besides the resources themselves.
        let mut before: Vec<ResId> = Vec::with_capacity(resources.len());
        let mut stdin = encode_values(&group, configs, &[]);
        for (i, d) in resources.iter().enumerate() {
            let mut r = d.value();
            resource::set_annotation(&mut r, ID_ANNOTATION, &i.to_string());
            before.push(ResId::of(&r));
            if !stdin.is_empty() {
                stdin.extend_from_slice(b"---\n");
            }
            stdin.extend_from_slice(&encode_values(&group, &[], std::slice::from_ref(&r)));
        }
        let res = match self.call(loc, site, dir, stdin, 0, call)? {
            Some(res) => res,
            None if optional => return Ok(None),
            None => return Err(unsupported_transform(site)),
        };
        let out =
            protocol::read_stream(&res.stdout).map_err(|e| site.junk_error(&res, &e.message))?;
        let mut out =
            exchange::expand_lists(out).map_err(|why| Error::new(format!("{site} wrote {why}")))?;
        // A transformer that echoes its own configuration objects back (even
        // edited) has not made resources of them: an output without an id
        // that has a config's id is that config.
        let config_ids: Vec<ResId> = configs.iter().map(ResId::of).collect();
        out.retain(|r| {
            resource::annotation(r, ID_ANNOTATION).is_some()
                || !config_ids.iter().any(|c| c.equals(&ResId::of(r)))
        });
        // Where each output came from, to name both sides of an id clash.
        let mut sources: Vec<Option<&ResId>> = Vec::with_capacity(out.len());
        let mut carried: std::collections::HashMap<usize, ResId> = std::collections::HashMap::new();
        for r in &mut out {
            let id = resource::remove_annotation(r, ID_ANNOTATION)
                .and_then(|v| v.as_str().and_then(|s| s.parse::<usize>().ok()));
            // One input's identity carried by two outputs: which one is
            // the input, and which a new resource, cannot be told.
            if let Some(i) = id {
                let now = ResId::of(r);
                if let Some(first) = carried.insert(i, now.clone()) {
                    return Err(Error::new(format!(
                        "{site} returned two resources carrying the {ID_ANNOTATION} of input resource {}: {first} and {now}; a transformer may keep an input's {ID_ANNOTATION} on one output only (remove it from the copy, which is then a new resource)",
                        before.get(i).map(|b| b.to_string()).unwrap_or_else(|| i.to_string()),
                    )));
                }
            }
            sources.push(id.and_then(|i| before.get(i)));
            if let Some(old) = id.and_then(|i| before.get(i)) {
                let now = ResId::of(r);
                if now.name != old.name
                    || now.namespace != old.namespace
                    || now.gvk.kind != old.gvk.kind
                {
                    record_previous_id(r, old);
                }
            }
        }
        check_unique_ids(site, &out, &sources)?;
        Ok(Some(out))
    }
}
