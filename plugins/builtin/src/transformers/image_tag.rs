//! `ImageTagTransformer` {imageTag: {name, newName, newTag, digest,
//! tagSuffix}, fieldSpecs}: rewrite container image references whose name
//! matches.
//!
//! Like kustomize it makes two passes over every resource except
//! CustomResourceDefinitions: first over the `image` of every element of
//! every `containers` or `initContainers` sequence found anywhere in the
//! object, then over the fields the field specs name (never creating one).
//! An image both passes reach is rewritten twice; that only shows with
//! `tagSuffix`, which kustomize then appends twice too.

use super::prefix_suffix::{set_untagged_scalar, wrong_kind};
use crate::Ctx;
use kustom_api::fieldspec::{config_field_specs, config_str_field, visit_fields, FieldSpec};
use kustom_api::{resource, Error, Value};
use regex::Regex;

/// The configured rewrite (kustomize's `types.Image`).
struct ImageRewrite {
    /// Matches image references of the configured name, with any tag and
    /// sha256 digest.
    matcher: ImageMatcher,
    new_name: String,
    new_tag: String,
    digest: String,
    tag_suffix: String,
}

/// kustomize's regexp for an image of the name `rust` (the name's Go
/// pattern, translated): the name, then any `:tag` and `@sha256:digest`.
fn image_regex(rust: &str) -> Result<Regex, Error> {
    let tag = "[a-zA-Z0-9_.{}-]*";
    Regex::new(&format!("^{rust}(:{tag})?(@sha256:{tag})?$")).map_err(|e| Error::new(e.to_string()))
}

/// An image name as kustomize matches it: the name as a Go regexp, then
/// an optional `:tag` and `@sha256:digest`.
enum ImageMatcher {
    /// A name without metacharacters but `.`, matched without a regexp:
    /// the characters `image_regex` allows in a tag or a digest.
    Dotted(String),
    Regex(Regex),
}

impl ImageMatcher {
    /// Whether `image` is the name with any tag and digest.
    fn matches(&self, image: &str) -> bool {
        match self {
            ImageMatcher::Regex(r) => r.is_match(image),
            ImageMatcher::Dotted(name) => {
                let Some(end) = kustom_api::go_regex::dotted_prefix(name, image) else {
                    return false;
                };
                let tag_character =
                    |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '{' | '}' | '-');
                let mut rest = &image[end..];
                if let Some(tag) = rest.strip_prefix(':') {
                    rest = tag.trim_start_matches(tag_character);
                }
                if let Some(digest) = rest.strip_prefix("@sha256:") {
                    rest = digest.trim_start_matches(tag_character);
                }
                rest.is_empty()
            }
        }
    }
}

impl ImageRewrite {
    fn from_config(config: &Value) -> Result<ImageRewrite, Error> {
        let image = match config.get("imageTag") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(v @ Value::Object(_)) => v.clone(),
            Some(_) => return Err(Error::new("imageTag: expected a mapping")),
        };
        let name = config_str_field(&image, "name")?;
        // The name is used as a regular expression, unescaped, as kustomize
        // does (so `.` in a registry host matches any character).
        // It is Go RE2 syntax, rewritten for Rust's engine.
        let matcher = if kustom_api::go_regex::is_dotted_literal(&name) {
            ImageMatcher::Dotted(name.clone())
        } else {
            kustom_api::go_regex::translate(name.as_str())
                .and_then(|rust| image_regex(&rust))
                .map(ImageMatcher::Regex)
                .map_err(|e| {
                    Error::new(format!("image name {name:?} is not a valid pattern: {e}"))
                })?
        };
        Ok(ImageRewrite {
            matcher,
            new_name: config_str_field(&image, "newName")?,
            new_tag: config_str_field(&image, "newTag")?,
            digest: config_str_field(&image, "digest")?,
            tag_suffix: config_str_field(&image, "tagSuffix")?,
        })
    }

    /// The rewritten reference, or None when `image` is not of this name.
    fn rewrite(&self, image: &str) -> Option<String> {
        if !self.matcher.matches(image) {
            return None;
        }
        let (name, tag, digest) = split_image(image);
        let mut name = name.to_string();
        let mut tag = tag.to_string();
        let mut digest = digest.to_string();
        if !self.new_name.is_empty() {
            name = self.new_name.clone();
        }
        // A new tag or digest replaces both the old tag and the old digest.
        if !self.new_tag.is_empty() && !self.digest.is_empty() {
            tag = self.new_tag.clone();
            digest = self.digest.clone();
        } else if !self.new_tag.is_empty() {
            tag = self.new_tag.clone();
            digest.clear();
        } else if !self.digest.is_empty() {
            tag.clear();
            digest = self.digest.clone();
        } else if !self.tag_suffix.is_empty() {
            tag.push_str(&self.tag_suffix);
            digest.clear();
        }
        if !tag.is_empty() {
            name.push(':');
            name.push_str(&tag);
        }
        if !digest.is_empty() {
            name.push('@');
            name.push_str(&digest);
        }
        Some(name)
    }

    /// Rewrite one image field in place; it must be a scalar.
    fn update(&self, field: &mut Value) -> Result<(), Error> {
        let text = match field {
            // A null image has nothing to match.
            Value::Null => return Ok(()),
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Array(_) => return Err(wrong_kind("ScalarNode", "SequenceNode")),
            Value::Object(_) => return Err(wrong_kind("ScalarNode", "MappingNode")),
        };
        if let Some(new) = self.rewrite(&text) {
            set_untagged_scalar(field, new);
        }
        Ok(())
    }

    /// The first pass: every `containers`/`initContainers` sequence at any
    /// depth, children before the field holding them.
    fn update_containers_anywhere(&self, node: &mut Value) -> Result<(), Error> {
        match node {
            Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    self.update_containers_anywhere(value)?;
                    if key == "containers" || key == "initContainers" {
                        self.update_container_list(value)?;
                    }
                }
                Ok(())
            }
            Value::Array(items) => items
                .iter_mut()
                .try_for_each(|item| self.update_containers_anywhere(item)),
            _ => Ok(()),
        }
    }

    /// The `image` of each element of a container sequence; anything but a
    /// sequence is left alone, elements must be mappings.
    fn update_container_list(&self, list: &mut Value) -> Result<(), Error> {
        let Value::Array(items) = list else {
            return Ok(());
        };
        for item in items {
            match item {
                Value::Null => {}
                Value::Object(map) => {
                    if let Some(image) = map.get_mut("image") {
                        self.update(image)?;
                    }
                }
                Value::Array(_) => return Err(wrong_kind("MappingNode", "SequenceNode")),
                _ => return Err(wrong_kind("MappingNode", "ScalarNode")),
            }
        }
        Ok(())
    }
}

/// Split an image reference `[host[:port]/]path[:tag][@digest]` into name,
/// tag and digest. A `:` before the first `/` belongs to the registry host.
fn split_image(image: &str) -> (&str, &str, &str) {
    // Only search past the first '/' when there is a host part before it.
    let start = match image.find('/') {
        Some(i) if i > 0 => i,
        _ => 0,
    };
    let rest = &image[start..];
    let at = rest.find('@').map(|i| i + start);
    let colon = rest.find(':').map(|i| i + start);
    match (colon, at) {
        (None, None) => (image, "", ""),
        // A digest with no tag before it (a later ':' is part of the digest).
        (None, Some(a)) => (&image[..a], "", &image[a + 1..]),
        (Some(c), Some(a)) if a < c => (&image[..a], "", &image[a + 1..]),
        (Some(c), Some(a)) => (&image[..c], &image[c + 1..a], &image[a + 1..]),
        (Some(c), None) => (&image[..c], &image[c + 1..], ""),
    }
}

/// `ImageTagTransformer`: see the module documentation.
// The signature is the dispatch table's `TransformFn`.
#[allow(clippy::ptr_arg)]
pub fn transform(config: &Value, resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    let rewrite = ImageRewrite::from_config(config)?;
    let specs: Vec<FieldSpec> = config_field_specs(config, "fieldSpecs")?.unwrap_or_default();
    let is_crd = |obj: &Value| resource::kind(obj) == "CustomResourceDefinition";
    for obj in resources.iter_mut().filter(|o| !is_crd(o)) {
        rewrite.update_containers_anywhere(obj)?;
    }
    for obj in resources.iter_mut().filter(|o| !is_crd(o)) {
        for spec in &specs {
            // Image fields are never created, whatever the spec says.
            visit_fields(obj, spec, None, &mut |f| rewrite.update(f))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn default_specs() -> Value {
        json!([
            {"path": "spec/containers[]/image", "create": true},
            {"path": "spec/initContainers[]/image", "create": true},
            {"path": "spec/template/spec/containers[]/image", "create": true},
            {"path": "spec/template/spec/initContainers[]/image", "create": true},
        ])
    }

    fn rewrite(image: Value) -> ImageRewrite {
        ImageRewrite::from_config(&json!({"imageTag": image})).unwrap()
    }

    #[test]
    fn a_dotted_name_matches_as_its_regexp_does() {
        let names = ["nginx", "ghcr.io/org/app", "registry.k8s.io/pause", "a.b"];
        let images = [
            "nginx",
            "nginx:1.25",
            "nginx:1.25@sha256:abc",
            "nginx@sha256:abc",
            "nginx@sha256:",
            "nginx:",
            "nginx:1/2",
            "nginx:1.25@sha512:abc",
            "nginx:{{ .Tag }}",
            "nginxx",
            "ghcr.io/org/app:v1",
            "ghcrxio/org/app:v1",
            "ghcr.io/org/app/sub:v1",
            "registry.k8s.io/pause:3.9",
            "registry.k8s.io/pause:3.9 ",
            "a.b",
            "a\nb",
            "aéb:x",
            "a.b@sha256:0-_.{}",
            "",
        ];
        for name in names {
            let rust = kustom_api::go_regex::translate(name).expect("translates");
            let regex = image_regex(&rust).expect("compiles");
            let dotted = ImageMatcher::Dotted(name.to_string());
            for image in images {
                assert_eq!(
                    dotted.matches(image),
                    regex.is_match(image),
                    "{name:?} against {image:?}"
                );
            }
        }
    }

    #[test]
    fn splits_references() {
        assert_eq!(split_image("nginx"), ("nginx", "", ""));
        assert_eq!(split_image("nginx:1.2"), ("nginx", "1.2", ""));
        assert_eq!(split_image("nginx@sha256:abc"), ("nginx", "", "sha256:abc"));
        assert_eq!(
            split_image("nginx:1.2@sha256:abc"),
            ("nginx", "1.2", "sha256:abc")
        );
        assert_eq!(
            split_image("reg:5000/team/app"),
            ("reg:5000/team/app", "", "")
        );
        assert_eq!(
            split_image("reg:5000/team/app:v1"),
            ("reg:5000/team/app", "v1", "")
        );
        assert_eq!(
            split_image("reg:5000/app@sha256:x"),
            ("reg:5000/app", "", "sha256:x")
        );
        // A leading '/' is not a host separator.
        assert_eq!(split_image("/app:v1"), ("/app", "v1", ""));
    }

    #[test]
    fn matching_and_rewriting() {
        let r = rewrite(json!({"name": "nginx", "newTag": "2"}));
        assert_eq!(r.rewrite("nginx"), Some("nginx:2".into()));
        assert_eq!(r.rewrite("nginx:1@sha256:abc"), Some("nginx:2".into()));
        assert_eq!(r.rewrite("nginx-other:1"), None);
        assert_eq!(r.rewrite("docker.io/nginx:1"), None);
        let r = rewrite(
            json!({"name": "reg:5000/nginx", "newName": "other/nginx", "digest": "sha256:d"}),
        );
        assert_eq!(
            r.rewrite("reg:5000/nginx:1"),
            Some("other/nginx@sha256:d".into())
        );
        let r = rewrite(json!({"name": "nginx", "newTag": "t", "digest": "sha256:d"}));
        assert_eq!(r.rewrite("nginx:1"), Some("nginx:t@sha256:d".into()));
        let r = rewrite(json!({"name": "nginx", "tagSuffix": "-dbg"}));
        assert_eq!(r.rewrite("nginx:1@sha256:x"), Some("nginx:1-dbg".into()));
        assert_eq!(r.rewrite("nginx"), Some("nginx:-dbg".into()));
        // Tags may hold {} (template placeholders).
        let r = rewrite(json!({"name": "nginx", "newName": "n"}));
        assert_eq!(r.rewrite("nginx:{VERSION}"), Some("n:{VERSION}".into()));
        // A numeric new tag is its text.
        let r = rewrite(json!({"name": "nginx", "newTag": 1.5}));
        assert_eq!(r.rewrite("nginx"), Some("nginx:1.5".into()));
    }

    #[test]
    fn rewritten_value_is_typed_like_plain_yaml() {
        // kustomize writes the new reference untagged: a numeric-looking one
        // comes out as a number.
        let r = rewrite(json!({"name": "nginx", "newName": "12"}));
        let mut field = json!("nginx");
        r.update(&mut field).unwrap();
        assert_eq!(field, json!(12));
    }

    #[test]
    fn both_passes_like_kustomize() {
        let mut res = vec![
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
                "spec": {"template": {"spec": {
                    "initContainers": [{"name": "i", "image": "busybox:1"}],
                    "containers": [{"name": "c", "image": "busybox:1"}, {"name": "n", "image": "nginx"}]}}}}),
            json!({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
                "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"image": "busybox"}]}}}}}}),
            json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "t"},
                "spec": {"deep": {"containers": [{"image": "busybox"}, {"name": "no-image"}]}}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "x"},
                "spec": {"containers": [{"image": "busybox"}]}}),
        ];
        let config = json!({"imageTag": {"name": "busybox", "tagSuffix": "-dbg"}, "fieldSpecs": default_specs()});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        let spec = &res[0]["spec"]["template"]["spec"];
        // Reached by both passes: suffixed twice.
        assert_eq!(spec["containers"][0]["image"], "busybox:1-dbg-dbg");
        assert_eq!(spec["initContainers"][0]["image"], "busybox:1-dbg-dbg");
        assert_eq!(spec["containers"][1]["image"], "nginx");
        // Only the anywhere pass reaches these.
        assert_eq!(
            res[1]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"],
            "busybox:-dbg"
        );
        assert_eq!(
            res[2]["spec"]["deep"]["containers"][0]["image"],
            "busybox:-dbg"
        );
        assert!(res[2]["spec"]["deep"]["containers"][1]
            .get("image")
            .is_none());
        // CRDs are left alone.
        assert_eq!(res[3]["spec"]["containers"][0]["image"], "busybox");
    }

    #[test]
    fn new_tag_is_idempotent_across_passes() {
        let mut res = vec![
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"image": "nginx:1"}]}}),
        ];
        let config =
            json!({"imageTag": {"name": "nginx", "newTag": "2"}, "fieldSpecs": default_specs()});
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["spec"]["containers"][0]["image"], "nginx:2");
    }

    #[test]
    fn bad_shapes_are_errors() {
        let config = json!({"imageTag": {"name": "nginx", "newTag": "2"}});
        let mut res = vec![json!({"kind": "Pod", "spec": {"containers": ["nginx"]}})];
        assert!(transform(&config, &mut res, &Ctx::for_tests()).is_err());
        let mut res = vec![json!({"kind": "Pod", "spec": {"containers": [{"image": {"a": 1}}]}})];
        assert!(transform(&config, &mut res, &Ctx::for_tests()).is_err());
        // A non-sequence `containers` is not a container list.
        let mut res = vec![json!({"kind": "Pod", "spec": {"containers": {"image": "nginx"}}})];
        transform(&config, &mut res, &Ctx::for_tests()).unwrap();
        assert_eq!(res[0]["spec"]["containers"]["image"], "nginx");
    }

    #[test]
    fn invalid_name_pattern_is_an_error() {
        let config = json!({"imageTag": {"name": "ngi(nx", "newTag": "2"}});
        let mut res = vec![];
        assert!(transform(&config, &mut res, &Ctx::for_tests()).is_err());
    }
}
