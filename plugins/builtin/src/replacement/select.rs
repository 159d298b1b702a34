//! Which resources a replacement reads from and writes to.
//!
//! Replacements match resource ids *exactly* (kustomize v5.5.0's
//! `ResId.IsSelectedBy`, no regular expressions, unlike patch targets), and
//! a resource matches if its current id or any of its previous ids (before
//! name prefixes, suffixes, namespace changes) does. The ids are built
//! without cluster-scope knowledge, so an empty namespace always stands for
//! "default".

use kustom_api::{err, protocol, resource, Error, Gvk, ResId, Value};

/// The current id of a resource followed by its previous ids, oldest first,
/// as recorded in kustomize's build annotations.
pub(crate) fn ids(obj: &Value) -> Result<Vec<ResId>, Error> {
    let mut ids = vec![ResId::of(obj)];
    let Some(names) = resource::annotation(obj, protocol::PREVIOUS_NAMES) else {
        return Ok(ids);
    };
    let names: Vec<&str> = names.split(',').collect();
    let split = |key| -> Vec<&str> {
        resource::annotation(obj, key)
            .unwrap_or("")
            .split(',')
            .collect()
    };
    let namespaces = split(protocol::PREVIOUS_NAMESPACES);
    let kinds = split(protocol::PREVIOUS_KINDS);
    if names.len() != namespaces.len() || names.len() != kinds.len() {
        return Err(err!(
            "number of previous names, number of previous namespaces, number of previous kinds not equal"
        ));
    }
    let current = &ids[0].gvk;
    let (group, version) = (current.group.clone(), current.version.clone());
    for ((name, namespace), kind) in names.iter().zip(&namespaces).zip(&kinds) {
        ids.push(ResId {
            gvk: Gvk {
                group: group.clone(),
                version: version.clone(),
                kind: kind.to_string(),
            },
            name: name.to_string(),
            namespace: namespace.to_string(),
        });
    }
    Ok(ids)
}

/// kustomize's `ResId.IsSelectedBy`: every non-empty selector field equals
/// the id's; namespaces compare with "" meaning "default".
pub(crate) fn id_selected_by(id: &ResId, selector: &ResId) -> bool {
    let effective = |ns: &str| if ns.is_empty() { "default" } else { ns }.to_string();
    let gvk = &selector.gvk;
    (selector.name.is_empty() || selector.name == id.name)
        && (selector.namespace.is_empty()
            || effective(&selector.namespace) == effective(&id.namespace))
        && (gvk.group.is_empty() || gvk.group == id.gvk.group)
        && (gvk.version.is_empty() || gvk.version == id.gvk.version)
        && (gvk.kind.is_empty() || gvk.kind == id.gvk.kind)
}

/// Whether a selector is entirely empty (kustomize skips such rejects).
pub(crate) fn is_empty(id: &ResId) -> bool {
    *id == ResId::default()
}

/// Whether the object's labels (`field` = "labels") or annotations
/// (`field` = "annotations") satisfy a Kubernetes label-selector expression;
/// an empty expression matches everything.
pub(crate) fn matches_expression(obj: &Value, field: &str, expr: &str) -> Result<bool, Error> {
    let requirements = parse_selector(expr)?;
    let map = resource::get_at(obj, &["metadata", field]).and_then(Value::as_object);
    let get = |key: &str| -> Option<String> {
        map.and_then(|m| m.get(key)).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    Ok(requirements.iter().all(|r| r.matches(get(&r.key))))
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq)]
struct Requirement {
    key: String,
    op: Op,
    values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Exists,
    DoesNotExist,
    /// `=`, `==` and `in`.
    In,
    /// `!=` and `notin`.
    NotIn,
    Gt,
    Lt,
}

impl Requirement {
    fn matches(&self, value: Option<String>) -> bool {
        match (self.op, value) {
            (Op::Exists, v) => v.is_some(),
            (Op::DoesNotExist, v) => v.is_none(),
            (Op::In, Some(v)) => self.values.contains(&v),
            (Op::NotIn, Some(v)) => !self.values.contains(&v),
            (Op::NotIn, None) => true,
            (Op::Gt | Op::Lt, Some(v)) => {
                let (Ok(have), Some(Ok(want))) = (
                    v.parse::<i64>(),
                    self.values.first().map(|w| w.parse::<i64>()),
                ) else {
                    return false;
                };
                if self.op == Op::Gt {
                    have > want
                } else {
                    have < want
                }
            }
            (_, None) => false,
        }
    }
}

/// A token of the label-selector language.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Not,
    Eq,
    DoubleEq,
    NotEq,
    Gt,
    Lt,
    Open,
    Close,
    Comma,
}

fn tokenize(expr: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' | ',' | '>' | '<' => {
                chars.next();
                tokens.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    ',' => Token::Comma,
                    '>' => Token::Gt,
                    _ => Token::Lt,
                });
            }
            '=' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                    tokens.push(Token::DoubleEq);
                } else {
                    tokens.push(Token::Eq);
                }
            }
            '!' => {
                chars.next();
                if chars.peek() == Some(&'=') {
                    chars.next();
                    tokens.push(Token::NotEq);
                } else {
                    tokens.push(Token::Not);
                }
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || "()=,!<>".contains(c) {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                tokens.push(Token::Word(word));
            }
        }
    }
    tokens
}

/// Parse a selector expression (`a=b,c!=d,e in (x,y),!f,g`).
fn parse_selector(expr: &str) -> Result<Vec<Requirement>, Error> {
    let tokens = tokenize(expr);
    let mut it = tokens.into_iter().peekable();
    let mut out = Vec::new();
    let bad = |what: &str| err!("unable to parse requirement: {what}");
    while it.peek().is_some() {
        let negated = if it.peek() == Some(&Token::Not) {
            it.next();
            true
        } else {
            false
        };
        let key = match it.next() {
            Some(Token::Word(w)) => w,
            other => return Err(bad(&format!("found {other:?}, expected: identifier"))),
        };
        if negated {
            out.push(Requirement {
                key,
                op: Op::DoesNotExist,
                values: Vec::new(),
            });
        } else {
            let op = match it.peek() {
                None | Some(Token::Comma) => None,
                Some(Token::Eq | Token::DoubleEq) => Some(Op::In),
                Some(Token::NotEq) => Some(Op::NotIn),
                Some(Token::Gt) => Some(Op::Gt),
                Some(Token::Lt) => Some(Op::Lt),
                Some(Token::Word(w)) if w == "in" => Some(Op::In),
                Some(Token::Word(w)) if w == "notin" => Some(Op::NotIn),
                Some(other) => return Err(bad(&format!("found {other:?}, expected an operator"))),
            };
            let set_form = matches!(it.peek(), Some(Token::Word(_)));
            match op {
                None => out.push(Requirement {
                    key,
                    op: Op::Exists,
                    values: Vec::new(),
                }),
                Some(op) => {
                    it.next();
                    let values = if set_form {
                        parse_set(&mut it).map_err(|e| bad(&e))?
                    } else {
                        // A single value, possibly empty (`a=`).
                        match it.peek() {
                            Some(Token::Word(_)) => match it.next() {
                                Some(Token::Word(w)) => vec![w],
                                _ => Vec::new(),
                            },
                            _ => vec![String::new()],
                        }
                    };
                    if matches!(op, Op::Gt | Op::Lt)
                        && values[..].iter().any(|v| v.parse::<i64>().is_err())
                    {
                        return Err(bad(
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                    out.push(Requirement { key, op, values });
                }
            }
        }
        match it.next() {
            None | Some(Token::Comma) => {}
            Some(other) => return Err(bad(&format!("found {other:?}, expected: ','"))),
        }
    }
    Ok(out)
}

/// `( v1, v2 )` after `in` / `notin`.
fn parse_set(it: &mut impl Iterator<Item = Token>) -> Result<Vec<String>, String> {
    if it.next() != Some(Token::Open) {
        return Err("found no '(', expected: '('".to_string());
    }
    let mut values = Vec::new();
    let mut expect_value = true;
    loop {
        match it.next() {
            Some(Token::Word(w)) if expect_value => {
                values.push(w);
                expect_value = false;
            }
            Some(Token::Comma) => {
                if expect_value {
                    values.push(String::new());
                }
                expect_value = true;
            }
            Some(Token::Close) => break,
            other => return Err(format!("found {other:?}, expected: ',' or ')'")),
        }
    }
    if values.is_empty() {
        return Err("for 'in', 'notin' operators, values set can't be empty".to_string());
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn id(kind: &str, name: &str, ns: &str) -> ResId {
        ResId {
            gvk: Gvk {
                group: String::new(),
                version: String::new(),
                kind: kind.into(),
            },
            name: name.into(),
            namespace: ns.into(),
        }
    }

    #[test]
    fn previous_ids_come_from_build_annotations() {
        let obj = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "p-app-s", "annotations": {
                protocol::PREVIOUS_NAMES: "app,p-app",
                protocol::PREVIOUS_NAMESPACES: "default,default",
                protocol::PREVIOUS_KINDS: "Deployment,Deployment"}}});
        let ids = ids(&obj).unwrap();
        let names: Vec<_> = ids.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["p-app-s", "app", "p-app"]);
        assert_eq!(ids[1].gvk.group, "apps");
        let sel = id("Deployment", "app", "");
        assert!(ids.iter().any(|i| id_selected_by(i, &sel)));
    }

    #[test]
    fn uneven_previous_id_annotations_are_an_error() {
        let obj = json!({"metadata": {"name": "a", "annotations": {
            protocol::PREVIOUS_NAMES: "x,y", protocol::PREVIOUS_KINDS: "K"}}});
        assert!(ids(&obj).is_err());
    }

    #[test]
    fn selection_is_exact_and_default_namespace_is_empty() {
        let cm = id("ConfigMap", "cm", "");
        assert!(id_selected_by(&cm, &id("ConfigMap", "", "default")));
        assert!(!id_selected_by(&cm, &id("Config.*", "", "")));
        assert!(!id_selected_by(&cm, &id("ConfigMap", "c", "")));
        assert!(!id_selected_by(
            &id("ConfigMap", "cm", "x"),
            &id("", "", "default")
        ));
    }

    #[test]
    fn label_selector_expressions() {
        let obj = json!({"metadata": {"labels": {"app": "web", "tier": "1"}}});
        let m = |e: &str| matches_expression(&obj, "labels", e).unwrap();
        assert!(m(""));
        assert!(m("app=web"));
        assert!(m("app==web,tier"));
        assert!(!m("app!=web"));
        assert!(m("app in (db, web)"));
        assert!(!m("app notin (web)"));
        assert!(m("!missing"));
        assert!(!m("missing"));
        assert!(m("missing!=x"));
        assert!(m("tier>0"));
        assert!(!m("tier<1"));
        assert!(matches_expression(&obj, "labels", "app in ()").is_err());
        assert!(matches_expression(&obj, "labels", "=x").is_err());
    }
}
