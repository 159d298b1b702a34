//! `SecretGenerator`: a Secret from literals, env files and files
//! (kustomize's `secretGenerator` entries and `kind: SecretGenerator`
//! configs).
//!
//! Every value is base64-encoded under `data` (kept even when empty, as
//! kustomize does); `type` defaults to `Opaque`. Build annotations as for
//! ConfigMapGenerator.

use super::generator_common::{base64_wrapped, base_object, finish, load_data, GeneratorArgs};
use crate::Ctx;
use kustom_api::{Error, Map, Value};

/// Generate the Secret described by a `SecretGenerator` config.
pub fn generate(config: &Value, ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let args = GeneratorArgs::from_config(config)?;
    let mut obj = base_object("Secret", &args)?;
    let secret_type = if args.secret_type.is_empty() {
        "Opaque"
    } else {
        args.secret_type.as_str()
    };
    let data: Map<String, Value> = load_data(&args, ctx)?
        .into_iter()
        .map(|(k, v)| (k, Value::String(base64_wrapped(&v))))
        .collect();
    if let Some(map) = obj.as_object_mut() {
        map.insert("type".into(), Value::String(secret_type.into()));
        map.insert("data".into(), Value::Object(data));
    }
    finish(&mut obj, &args);
    Ok(vec![obj])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generators::generator_common::test_support::{finish_build, Scratch};
    use serde_json::json;

    // Expected objects are `kubectl kustomize` (v5.5.0) output for the same
    // files and secretGenerator entries.

    #[test]
    fn tls_secret_with_options() {
        let s = Scratch::new("secret-tls");
        s.write(
            "tls.crt",
            b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
        );
        s.write("tls.key", b"KEYDATA");
        let config = json!({"apiVersion": "builtin", "kind": "SecretGenerator",
            "name": "tls", "type": "kubernetes.io/tls", "files": ["tls.crt", "tls.key"],
            "options": {"labels": {"app": "web"}, "annotations": {"note": "hello"},
                        "immutable": true}});
        let got = finish_build(generate(&config, &s.ctx()).unwrap(), &s.ctx());
        let want = json!({"apiVersion": "v1",
            "data": {"tls.crt": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVCi0tLS\n0tRU5EIENFUlRJRklDQVRFLS0tLS0K\n",
                     "tls.key": "S0VZREFUQQ=="},
            "immutable": true, "kind": "Secret",
            "metadata": {"annotations": {"note": "hello"}, "labels": {"app": "web"},
                         "name": "tls-h575tk4ff9"},
            "type": "kubernetes.io/tls"});
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn binary_file_and_long_literal_wrap() {
        let s = Scratch::new("secret-bin");
        s.write("sub/all.bin", &(0..=255u8).collect::<Vec<u8>>());
        let config = json!({"name": "bin", "files": ["sub/all.bin"],
            "literals": [format!("long={}", "a".repeat(60))]});
        let got = finish_build(generate(&config, &s.ctx()).unwrap(), &s.ctx());
        let want = json!({"apiVersion": "v1",
            "data": {"all.bin": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMz\nQ1Njc4OTo7PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdo\naWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ\n2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR\n0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==\n",
                     "long": "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYW\nFhYWFhYWFh\n"},
            "kind": "Secret", "metadata": {"name": "bin-d79bhbf985"}, "type": "Opaque"});
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn empty_secret_keeps_empty_data_and_opaque_type() {
        let s = Scratch::new("secret-empty");
        let got = finish_build(
            generate(&json!({"name": "empty"}), &s.ctx()).unwrap(),
            &s.ctx(),
        );
        assert_eq!(
            got,
            vec![json!({"apiVersion": "v1", "data": {}, "kind": "Secret",
                        "metadata": {"name": "empty-46f8b28mk5"}, "type": "Opaque"})]
        );
    }

    #[test]
    fn disabled_hash_and_global_style_options() {
        let s = Scratch::new("secret-nohash");
        let config = json!({"name": "nohash", "literals": ["k=v"],
            "options": {"disableNameSuffixHash": true}});
        let got = finish_build(generate(&config, &s.ctx()).unwrap(), &s.ctx());
        assert_eq!(
            got,
            vec![
                json!({"apiVersion": "v1", "data": {"k": "dg=="}, "kind": "Secret",
                        "metadata": {"name": "nohash"}, "type": "Opaque"})
            ]
        );
    }

    #[test]
    fn secret_from_env_file_with_crlf_and_bom() {
        // Checked with kubectl kustomize: BOM dropped, \r dropped, quotes kept.
        let s = Scratch::new("secret-env");
        s.write("a.env", b"\xef\xbb\xbfA=1\r\nB=\"q\"\r\n");
        let config = json!({"name": "s", "envs": ["a.env"]});
        let got = generate(&config, &s.ctx()).unwrap();
        assert_eq!(got[0]["data"], json!({"A": "MQ==", "B": "InEi"}));
    }
}
