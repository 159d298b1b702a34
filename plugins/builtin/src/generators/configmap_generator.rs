//! `ConfigMapGenerator`: a ConfigMap from literals, env files and files
//! (kustomize's `configMapGenerator` entries and `kind: ConfigMapGenerator`
//! configs).
//!
//! Values that are valid UTF-8 go under `data`; others under `binaryData`,
//! base64-encoded. The result carries the generator behavior and, unless
//! disabled, the hash-suffix request as build annotations; the name suffix
//! itself is added later by `HashTransformer`.

use super::generator_common::{base64_wrapped, base_object, finish, load_data, GeneratorArgs};
use crate::Ctx;
use kustom_api::{Error, Map, Value};

/// Generate the ConfigMap described by a `ConfigMapGenerator` config.
pub fn generate(config: &Value, ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let args = GeneratorArgs::from_config(config)?;
    let mut obj = base_object("ConfigMap", &args)?;
    let mut text = Map::new();
    let mut binary = Map::new();
    for (key, value) in load_data(&args, ctx)? {
        match String::from_utf8(value) {
            Ok(s) => text.insert(key, Value::String(s)),
            Err(e) => binary.insert(key, Value::String(base64_wrapped(e.as_bytes()))),
        };
    }
    if let Some(map) = obj.as_object_mut() {
        // kustomize leaves out empty `data` / `binaryData` maps entirely.
        if !text.is_empty() {
            map.insert("data".into(), Value::Object(text));
        }
        if !binary.is_empty() {
            map.insert("binaryData".into(), Value::Object(binary));
        }
    }
    finish(&mut obj, &args);
    Ok(vec![obj])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::generator_common::test_support::{finish_build, Scratch};
    use kustom_api::{protocol, resource};
    use serde_json::json;

    // Expected objects are `kubectl kustomize` (v5.5.0) output for the same
    // files and configMapGenerator entries.

    fn scratch(name: &str) -> Scratch {
        let s = Scratch::new(name);
        s.write("one.env", b"X=1\nY=two words\n");
        s.write("two.env", b"# c\nZ=3\n");
        s.write("sub/page.html", "line1\nline2 <b>&amp;</b> é\n".as_bytes());
        s.write("sub/all.bin", &(0..=255u8).collect::<Vec<u8>>());
        s
    }

    #[test]
    fn literals_envs_files_binary_and_options() {
        let s = scratch("cm-full");
        let config = json!({
            "apiVersion": "builtin", "kind": "ConfigMapGenerator",
            "name": "full", "namespace": "team",
            "literals": ["lit=value", "html=<a href=\"x\">&</a>", "quoted=\"q\""],
            "envs": ["one.env", "two.env"],
            "files": ["sub/page.html", "raw=sub/all.bin"],
            "options": {"labels": {"app": "web", "tier": "1"},
                        "annotations": {"note": "hello"}, "immutable": true},
        });
        let got = finish_build(generate(&config, &s.ctx()).unwrap(), &s.ctx());
        let want = json!({
            "apiVersion": "v1",
            "binaryData": {"raw": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMz\nQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdo\naWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ\n2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR\n0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==\n"},
            "data": {"X": "1", "Y": "two words", "Z": "3", "html": "<a href=\"x\">&</a>",
                     "lit": "value", "page.html": "line1\nline2 <b>&amp;</b> é\n", "quoted": "q"},
            "immutable": true, "kind": "ConfigMap",
            "metadata": {"annotations": {"note": "hello"}, "labels": {"app": "web", "tier": "1"},
                         "name": "full-5k48cm5df4", "namespace": "team"}
        });
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn disable_name_suffix_hash_keeps_name() {
        let s = scratch("cm-plain");
        let config = json!({"kind": "ConfigMapGenerator", "name": "plain",
            "behavior": "create", "literals": ["a=b"],
            "options": {"disableNameSuffixHash": true}});
        let generated = generate(&config, &s.ctx()).unwrap();
        assert_eq!(
            resource::annotation(&generated[0], protocol::GENERATOR_BEHAVIOR),
            Some("create")
        );
        assert_eq!(
            resource::annotation(&generated[0], protocol::NEEDS_HASH_SUFFIX),
            None
        );
        let got = finish_build(generated, &s.ctx());
        assert_eq!(
            got,
            vec![
                json!({"apiVersion": "v1", "data": {"a": "b"}, "kind": "ConfigMap",
                        "metadata": {"name": "plain"}})
            ]
        );
    }

    #[test]
    fn empty_configmap_has_no_data_field() {
        let s = scratch("cm-empty");
        let got = finish_build(
            generate(&json!({"name": "empty"}), &s.ctx()).unwrap(),
            &s.ctx(),
        );
        assert_eq!(
            got,
            vec![json!({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "empty-6ct58987ht"}})]
        );
    }

    #[test]
    fn literal_newlines_and_metadata_name() {
        // kustomize's TestConfigMapGeneratorLiteralNewline, as a generator config.
        let s = scratch("cm-newline");
        let config = json!({"apiVersion": "builtin", "kind": "ConfigMapGenerator",
            "metadata": {"name": "testing"},
            "literals": ["initial.txt=greetings\neveryone\n", "final.txt=different\nbehavior\n"]});
        let got = finish_build(generate(&config, &s.ctx()).unwrap(), &s.ctx());
        assert_eq!(resource::name(&got[0]), "testing-tt4769fb52");
    }

    #[test]
    fn repeated_key_across_sources_is_an_error() {
        let s = scratch("cm-repeat");
        s.write("a.env", b"lit=1\n");
        let config = json!({"name": "cm", "envs": ["a.env"], "literals": ["lit=2"]});
        assert_eq!(
            generate(&config, &s.ctx()).unwrap_err().message,
            "configmap cm illegally repeats the key `lit`"
        );
    }

    #[test]
    fn missing_file_names_the_source() {
        let s = scratch("cm-missing");
        let e = generate(&json!({"name": "cm", "files": ["nope.txt"]}), &s.ctx()).unwrap_err();
        assert!(
            e.message
                .starts_with("loading KV pairs: file sources: [nope.txt]: "),
            "{}",
            e.message
        );
        assert!(e.message.contains("nope.txt"));
    }
}
