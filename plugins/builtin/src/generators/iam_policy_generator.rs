//! `IAMPolicyGenerator` {cloud, kubernetesService: {name, namespace},
//! serviceAccount: {name, projectId}}: the Kubernetes ServiceAccount that a
//! cloud's workload identity binds to a cloud service account.
//!
//! Only `cloud: gke` is supported: the result is a `v1` ServiceAccount
//! named `kubernetesService.name` (in `kubernetesService.namespace` when
//! that is set) annotated with
//! `iam.gke.io/gcp-service-account: <serviceAccount.name>@<projectId>.iam.gserviceaccount.com`.
//!
//! kustomize writes the values into a YAML text and parses it, so they are
//! read as plain YAML scalars: a name `true` becomes a boolean, a `#` starts
//! a comment, and text that breaks the document (a leading `@`, `: `) is a
//! YAML error. The same is done here. The settings must be strings: unlike
//! most builtin configs, numbers are not accepted as text. A result with
//! no name (kubernetesService.name empty, or only a comment) is an error.

use crate::Ctx;
use kustom_api::{err, resource, yaml, Error, Map, Value};

/// The only cloud with an implementation.
const GKE: &str = "gke";

/// The annotation naming the GCP service account.
const GKE_SERVICE_ACCOUNT_ANNOTATION: &str = "iam.gke.io/gcp-service-account";

/// The generator's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Settings {
    cloud: String,
    k8s_name: String,
    k8s_namespace: String,
    gsa_name: String,
    project_id: String,
}

/// A string setting `key` of `map` (`owner` names it in errors): missing or
/// null is empty, anything but a string is an error.
fn string_field(
    map: &Map<String, Value>,
    owner: &str,
    key: &str,
    go_type: &str,
) -> Result<String, Error> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(err!(
            "json: cannot unmarshal {} into Go struct field {owner}.{key} of type {go_type}",
            kustom_api::resource::go_json_type(other)
        )),
    }
}

/// A nested settings mapping `key`: missing or null is empty.
fn section<'a>(
    config: &'a Map<String, Value>,
    key: &str,
    go_type: &str,
) -> Result<Option<&'a Map<String, Value>>, Error> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(err!(
            "json: cannot unmarshal {} into Go struct field IAMPolicyGeneratorPlugin.{key} of type {go_type}",
            kustom_api::resource::go_json_type(other)
        )),
    }
}

impl Settings {
    fn from_config(config: &Value) -> Result<Settings, Error> {
        let empty = Map::new();
        let config = match config {
            Value::Object(map) => map,
            Value::Null => &empty,
            other => {
                return Err(err!(
                    "the config must be a mapping, not {}",
                    kustom_api::resource::go_json_type(other)
                ))
            }
        };
        let mut settings = Settings {
            cloud: string_field(config, "IAMPolicyGeneratorPlugin", "cloud", "types.Cloud")?,
            ..Default::default()
        };
        if let Some(k8s) = section(config, "kubernetesService", "types.KubernetesService")? {
            settings.k8s_name =
                string_field(k8s, "KubernetesService.kubernetesService", "name", "string")?;
            settings.k8s_namespace = string_field(
                k8s,
                "KubernetesService.kubernetesService",
                "namespace",
                "string",
            )?;
        }
        if let Some(gsa) = section(config, "serviceAccount", "types.ServiceAccount")? {
            settings.gsa_name =
                string_field(gsa, "ServiceAccount.serviceAccount", "name", "string")?;
            settings.project_id =
                string_field(gsa, "ServiceAccount.serviceAccount", "projectId", "string")?;
        }
        Ok(settings)
    }

    /// The GKE ServiceAccount as YAML text, values spliced in verbatim.
    fn gke_service_account_yaml(&self) -> String {
        let mut text = format!(
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  annotations:\n    {GKE_SERVICE_ACCOUNT_ANNOTATION}: {}@{}.iam.gserviceaccount.com\n  name: {}\n",
            self.gsa_name, self.project_id, self.k8s_name
        );
        if !self.k8s_namespace.is_empty() {
            text.push_str(&format!("  namespace: {}\n", self.k8s_namespace));
        }
        text
    }
}

/// `IAMPolicyGenerator`: see the module documentation.
pub fn generate(config: &Value, _ctx: &Ctx) -> Result<Vec<Value>, Error> {
    let settings = Settings::from_config(config)?;
    if settings.cloud != GKE {
        return Err(err!("cloud provider {} not supported yet", settings.cloud));
    }
    let text = settings.gke_service_account_yaml();
    let doc = yaml::parse_stream(&text)
        .map_err(|e| {
            e.context("the values, spliced unquoted into the ServiceAccount YAML, do not parse")
        })?
        .into_iter()
        .next();
    let obj = match doc {
        Some(obj @ Value::Object(_)) => obj,
        _ => return Err(err!("the generated ServiceAccount is not a YAML mapping")),
    };
    // kustomize refuses a resource without a name when it takes the result.
    let named = match resource::get_at(&obj, &["metadata", "name"]) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    };
    if !named {
        return Err(err!(
            "missing metadata.name in the generated ServiceAccount (kubernetesService.name {:?} gives no name)",
            settings.k8s_name
        ));
    }
    Ok(vec![obj])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expected objects are `kubectl kustomize` (v5.5.0) output for the same
    // generator configs.

    fn config(k8s: Value, gsa: Value) -> Value {
        json!({"apiVersion": "builtin", "kind": "IAMPolicyGenerator",
            "metadata": {"name": "gen"}, "cloud": "gke",
            "kubernetesService": k8s, "serviceAccount": gsa})
    }

    #[test]
    fn gke_service_account_with_and_without_namespace() {
        let out = generate(
            &config(
                json!({"name": "app-sa", "namespace": "team"}),
                json!({"name": "runner", "projectId": "my-proj"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(
            out,
            vec![
                json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {
                "annotations": {"iam.gke.io/gcp-service-account": "runner@my-proj.iam.gserviceaccount.com"},
                "name": "app-sa", "namespace": "team"}})
            ]
        );
        let out = generate(
            &config(
                json!({"name": "app-sa"}),
                json!({"name": "runner", "projectId": "my-proj"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(out.len(), 1);
        assert!(out[0]["metadata"].get("namespace").is_none());
        assert_eq!(out[0]["metadata"]["name"], "app-sa");
    }

    #[test]
    fn values_are_read_as_plain_yaml() {
        // kustomize splices the values into YAML text unquoted.
        let out = generate(
            &config(
                json!({"name": "true", "namespace": "0x10"}),
                json!({"name": "a b", "projectId": "p"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(out[0]["metadata"]["name"], json!(true));
        assert_eq!(out[0]["metadata"]["namespace"], json!(16));
        assert_eq!(
            out[0]["metadata"]["annotations"]["iam.gke.io/gcp-service-account"],
            "a b@p.iam.gserviceaccount.com"
        );
        // A ` #` starts a comment.
        let out = generate(
            &config(
                json!({"name": "sa #note"}),
                json!({"name": "g", "projectId": "p"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap();
        assert_eq!(out[0]["metadata"]["name"], "sa");
        // Text that breaks the document is an error.
        let err = generate(
            &config(
                json!({"name": "a: b"}),
                json!({"name": "g", "projectId": "p"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap_err();
        assert!(err.message.contains("do not parse"), "{err}");
        let err =
            generate(&config(json!({"name": "sa"}), json!({})), &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("do not parse"), "{err}");
    }

    #[test]
    fn unsupported_cloud_is_an_error() {
        let mut c = config(
            json!({"name": "sa"}),
            json!({"name": "g", "projectId": "p"}),
        );
        c["cloud"] = json!("aws");
        let err = generate(&c, &Ctx::for_tests()).unwrap_err();
        assert_eq!(err.message, "cloud provider aws not supported yet");
        c.as_object_mut().unwrap().remove("cloud");
        let err = generate(&c, &Ctx::for_tests()).unwrap_err();
        assert_eq!(err.message, "cloud provider  not supported yet");
    }

    #[test]
    fn settings_must_be_strings_and_mappings() {
        let err = generate(
            &config(json!({"name": 123}), json!({"name": "g", "projectId": "p"})),
            &Ctx::for_tests(),
        )
        .unwrap_err();
        assert!(
            err.message.contains("cannot unmarshal number into Go struct field KubernetesService.kubernetesService.name"),
            "{err}"
        );
        let err = generate(&config(json!([]), json!({})), &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("cannot unmarshal array"), "{err}");
        let mut c = config(
            json!({"name": "sa"}),
            json!({"name": "g", "projectId": "p"}),
        );
        c["cloud"] = json!(true);
        let err = generate(&c, &Ctx::for_tests()).unwrap_err();
        assert!(err.message.contains("cannot unmarshal bool"), "{err}");
    }

    #[test]
    fn a_nameless_result_is_an_error() {
        let err = generate(
            &config(
                json!({"namespace": "ns"}),
                json!({"name": "g", "projectId": "p"}),
            ),
            &Ctx::for_tests(),
        )
        .unwrap_err();
        assert!(err.message.contains("missing metadata.name"), "{err}");
    }
}
