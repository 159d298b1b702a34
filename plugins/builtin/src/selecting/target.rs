//! Choosing resources: kustomize's patch `target` selector, resource ids
//! with their history (previous names, namespaces and kinds of renamed
//! resources), and lookup by id.
//!
//! A selector's group, version, kind, name and namespace are regular
//! expressions matched against the whole value (`^(?:…)$`); an empty field
//! matches anything. Name and namespace match the resource's original
//! identity (before any rename) or its current one; group, version and kind
//! match the current ones. `labelSelector` and `annotationSelector` use the
//! Kubernetes label selector syntax (`a=b,c!=d,e in (x,y),!f,g`).

use kustom_api::{err, protocol, resource, Error, Gvk, ResId, Value};
use regex::Regex;
use std::collections::BTreeSet;
use std::fmt;

/// A patch target as written in a kustomization (kustomize's `Selector`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    /// API group pattern.
    pub group: String,
    /// API version pattern.
    pub version: String,
    /// Kind pattern.
    pub kind: String,
    /// Name pattern.
    pub name: String,
    /// Namespace pattern.
    pub namespace: String,
    /// Label selector expression.
    pub label_selector: String,
    /// Annotation selector expression.
    pub annotation_selector: String,
}

impl Selector {
    /// Read a selector object (`group`, `version`, `kind`, `name`,
    /// `namespace`, `labelSelector`, `annotationSelector`); other fields are
    /// ignored, as kustomize's lenient decoding does.
    pub fn from_value(v: &Value) -> Result<Selector, Error> {
        let map = match v {
            Value::Object(m) => m,
            Value::Null => return Ok(Selector::default()),
            _ => return Err(err!("a target must be a map")),
        };
        let field = |k: &str| -> Result<String, Error> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                // Scalars given unquoted (version: 1) read as their text.
                Some(Value::Number(n)) => Ok(n.to_string()),
                Some(Value::Bool(b)) => Ok(b.to_string()),
                Some(_) => Err(err!("target field {k} must be a string")),
            }
        };
        Ok(Selector {
            group: field("group")?,
            version: field("version")?,
            kind: field("kind")?,
            name: field("name")?,
            namespace: field("namespace")?,
            label_selector: field("labelSelector")?,
            annotation_selector: field("annotationSelector")?,
        })
    }

    /// Compile the patterns and selector expressions.
    pub fn compile(&self) -> Result<CompiledSelector, Error> {
        Ok(CompiledSelector {
            group: anchored(&self.group)?,
            version: anchored(&self.version)?,
            kind: anchored(&self.kind)?,
            name: anchored(&self.name)?,
            namespace: anchored(&self.namespace)?,
            labels: LabelSelector::parse(&self.label_selector)?,
            annotations: LabelSelector::parse(&self.annotation_selector)?,
        })
    }
}

impl fmt::Display for Selector {
    /// kustomize's `Selector.String()`: the id, then `:a=` and `:l=` selectors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = ResId {
            gvk: Gvk {
                group: self.group.clone(),
                version: self.version.clone(),
                kind: self.kind.clone(),
            },
            name: self.name.clone(),
            namespace: self.namespace.clone(),
        };
        write!(
            f,
            "{id}:a={}:l={}",
            self.annotation_selector, self.label_selector
        )
    }
}

/// One field of a selector: kustomize compiles each as a Go regexp that
/// must match the whole value.
#[derive(Debug, Clone)]
enum Pattern {
    /// Empty: matches anything.
    Any,
    /// No regexp metacharacters: can only match itself. Compiling a regexp
    /// costs far more than comparing, and every call that holds a patch
    /// compiles its selector (the core too, to see what the call needs).
    Exactly(String),
    /// No metacharacter but `.` ([`kustom_api::go_regex::is_dotted_literal`]).
    Dotted(String),
    Regex(Regex),
}

impl Pattern {
    fn is_any(&self) -> bool {
        matches!(self, Pattern::Any)
    }
}

fn anchored(pattern: &str) -> Result<Pattern, Error> {
    if pattern.is_empty() {
        return Ok(Pattern::Any);
    }
    if !pattern.contains(kustom_api::go_regex::META) {
        return Ok(Pattern::Exactly(pattern.to_string()));
    }
    if kustom_api::go_regex::is_dotted_literal(pattern) {
        return Ok(Pattern::Dotted(pattern.to_string()));
    }
    // Go's RE2 syntax, as kustomize compiles selectors.
    kustom_api::go_regex::anchored(pattern).map(Pattern::Regex)
}

fn matches(pattern: &Pattern, s: &str) -> bool {
    match pattern {
        Pattern::Any => true,
        Pattern::Exactly(p) => p == s,
        Pattern::Dotted(p) => kustom_api::go_regex::dotted_prefix(p, s) == Some(s.len()),
        Pattern::Regex(r) => r.is_match(s),
    }
}

/// A [`Selector`] ready for matching.
#[derive(Debug, Clone)]
pub struct CompiledSelector {
    group: Pattern,
    version: Pattern,
    kind: Pattern,
    name: Pattern,
    namespace: Pattern,
    labels: LabelSelector,
    annotations: LabelSelector,
}

impl CompiledSelector {
    /// Whether the selector picks `res`.
    pub fn matches(&self, res: &Value) -> bool {
        // Cheapest tests first, on borrowed strings: patches are selected
        // over every resource of the accumulator, once per patch.
        let api_version = resource::api_version(res);
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        if !(matches(&self.kind, resource::kind(res))
            && matches(&self.group, group)
            && matches(&self.version, version))
        {
            return false;
        }
        // The name and namespace may match the current or the original id.
        let mut org: Option<ResId> = None;
        if !self.name.is_any() && !matches(&self.name, resource::name(res)) {
            let o = org.get_or_insert_with(|| org_id(res));
            if !matches(&self.name, &o.name) {
                return false;
            }
        }
        if !self.namespace.is_any() {
            let cur = ResId::of(res);
            if !matches(&self.namespace, cur.effective_namespace()) {
                let o = org.get_or_insert_with(|| org_id(res));
                if !matches(&self.namespace, o.effective_namespace()) {
                    return false;
                }
            }
        }
        (self.labels.requirements.is_empty() || self.labels.matches(&string_map(res, "labels")))
            && (self.annotations.requirements.is_empty()
                || self.annotations.matches(&string_map(res, "annotations")))
    }
}

/// A resource id whose fields are anchored regular expressions (kustomize's
/// `SelectorRegex` over an id), matched against an id's fields as they are:
/// an empty field matches anything, and an empty namespace is not
/// "default".
#[derive(Debug, Clone)]
pub struct IdPattern {
    group: Pattern,
    version: Pattern,
    kind: Pattern,
    name: Pattern,
    namespace: Pattern,
}

impl IdPattern {
    /// Compile the fields of `id` as patterns.
    pub fn compile(id: &ResId) -> Result<IdPattern, Error> {
        Ok(IdPattern {
            group: anchored(&id.gvk.group)?,
            version: anchored(&id.gvk.version)?,
            kind: anchored(&id.gvk.kind)?,
            name: anchored(&id.name)?,
            namespace: anchored(&id.namespace)?,
        })
    }

    /// Whether every field of `id` matches.
    pub fn matches(&self, id: &ResId) -> bool {
        matches(&self.kind, &id.gvk.kind)
            && matches(&self.group, &id.gvk.group)
            && matches(&self.version, &id.gvk.version)
            && matches(&self.name, &id.name)
            && matches(&self.namespace, &id.namespace)
    }
}

/// Indices of the resources a selector object (a kustomization `target`)
/// picks, in order.
pub fn select(resources: &[Value], selector: &Value) -> Result<Vec<usize>, Error> {
    select_with(resources, &Selector::from_value(selector)?)
}

/// Indices of the resources `selector` picks, in order.
pub fn select_with(resources: &[Value], selector: &Selector) -> Result<Vec<usize>, Error> {
    let compiled = selector.compile()?;
    Ok(resources
        .iter()
        .enumerate()
        .filter(|(_, r)| compiled.matches(r))
        .map(|(i, _)| i)
        .collect())
}

/// metadata.labels or metadata.annotations as text (non-string values by their text).
fn string_map(res: &Value, field: &str) -> Vec<(String, String)> {
    match resource::get_at(res, &["metadata", field]) {
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => String::new(),
                };
                (k.clone(), text)
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn csv_annotation(res: &Value, key: &str) -> Option<Vec<String>> {
    resource::annotation(res, key).map(|v| v.split(',').map(str::to_string).collect())
}

/// The ids a resource had before renames or kind changes, oldest first
/// (from the previousNames/Namespaces/Kinds build annotations; the group and
/// version are the current ones).
pub fn prev_ids(res: &Value) -> Vec<ResId> {
    let Some(names) = csv_annotation(res, protocol::PREVIOUS_NAMES) else {
        return Vec::new();
    };
    let namespaces = csv_annotation(res, protocol::PREVIOUS_NAMESPACES).unwrap_or_default();
    let kinds = csv_annotation(res, protocol::PREVIOUS_KINDS).unwrap_or_default();
    let cur = Gvk::from_api_version(resource::api_version(res), "");
    names
        .into_iter()
        .zip(namespaces)
        .zip(kinds)
        .map(|((name, namespace), kind)| ResId {
            gvk: Gvk {
                group: cur.group.clone(),
                version: cur.version.clone(),
                kind,
            },
            name,
            namespace,
        })
        .collect()
}

/// The id a resource had when it was loaded (its current id if never renamed).
pub fn org_id(res: &Value) -> ResId {
    prev_ids(res)
        .into_iter()
        .next()
        .unwrap_or_else(|| ResId::of(res))
}

/// Record the current id in the previous-id annotations (before a change
/// that may rename the resource), as kustomize's StorePreviousId does.
pub fn store_previous_id(res: &mut Value) {
    let id = ResId::of(res);
    let ns = id.effective_namespace().to_string();
    for (key, value) in [
        (protocol::PREVIOUS_NAMES, id.name.as_str()),
        (protocol::PREVIOUS_NAMESPACES, ns.as_str()),
        (protocol::PREVIOUS_KINDS, id.gvk.kind.as_str()),
    ] {
        // kustomize skips empty values (leaving the lists uneven).
        if value.is_empty() {
            continue;
        }
        let joined = match resource::annotation(res, key) {
            Some(old) => format!("{old},{value}"),
            None => value.to_string(),
        };
        resource::set_annotation(res, key, &joined);
    }
}

/// Whether the current or an earlier id of `res` equals `id`.
pub fn has_id(res: &Value, id: &ResId) -> bool {
    prev_ids(res)
        .iter()
        .chain(std::iter::once(&ResId::of(res)))
        .any(|x| x.equals(id))
}

/// The one resource whose current or any earlier id equals `id` (kustomize's
/// ResMap.GetById), with kustomize's error texts.
pub fn find_by_id(resources: &[Value], id: &ResId) -> Result<usize, Error> {
    let found: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| has_id(r, id))
        .map(|(i, _)| i)
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err(err!(
            "no matches for Id {id}; failed to find unique target for patch {id}"
        )),
        _ => Err(err!(
            "multiple matches for Id {id}; failed to find unique target for patch {id}"
        )),
    }
}

/// A Kubernetes label selector (also used on annotations).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
    values: BTreeSet<String>,
}

impl Requirement {
    fn matches(&self, labels: &[(String, String)]) -> bool {
        let value = labels.iter().find(|(k, _)| *k == self.key).map(|(_, v)| v);
        match self.op {
            Op::In => value.is_some_and(|v| self.values.contains(v)),
            Op::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Op::Exists => value.is_some(),
            Op::DoesNotExist => value.is_none(),
            Op::Gt | Op::Lt => {
                let Some(have) = value.and_then(|v| v.parse::<i64>().ok()) else {
                    return false;
                };
                let Some(want) = self
                    .values
                    .iter()
                    .next()
                    .and_then(|v| v.parse::<i64>().ok())
                else {
                    return false;
                };
                if self.op == Op::Gt {
                    have > want
                } else {
                    have < want
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Not,
    NotEquals,
    Equals,
    DoubleEquals,
    Gt,
    Lt,
    In,
    NotIn,
    Open,
    Close,
    Comma,
    End,
}

impl Token {
    fn text(&self) -> &str {
        match self {
            Token::Ident(s) => s,
            Token::Not => "!",
            Token::NotEquals => "!=",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::Gt => ">",
            Token::Lt => "<",
            Token::In => "in",
            Token::NotIn => "notin",
            Token::Open => "(",
            Token::Close => ")",
            Token::Comma => ",",
            Token::End => "",
        }
    }
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

fn tokenize(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        let (tok, len) = match c {
            '!' if next == Some('=') => (Token::NotEquals, 2),
            '!' => (Token::Not, 1),
            '=' if next == Some('=') => (Token::DoubleEquals, 2),
            '=' => (Token::Equals, 1),
            '>' => (Token::Gt, 1),
            '<' => (Token::Lt, 1),
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            ',' => (Token::Comma, 1),
            _ => {
                let start = i;
                let mut end = i;
                while end < chars.len() && !chars[end].is_whitespace() && !is_special(chars[end]) {
                    end += 1;
                }
                let word: String = chars[start..end].iter().collect();
                let tok = match word.as_str() {
                    "in" => Token::In,
                    "notin" => Token::NotIn,
                    _ => Token::Ident(word),
                };
                (tok, end - start)
            }
        };
        out.push(tok);
        i += len;
    }
    out.push(Token::End);
    out
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        self.tokens.get(self.pos).unwrap_or(&Token::End)
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() {
            self.pos += 1;
        }
        t
    }
}

fn parse_error(found: &Token, expected: &str) -> Error {
    err!(
        "unable to parse requirement: found '{}', expected: {expected}",
        found.text()
    )
}

impl LabelSelector {
    /// Parse a selector expression; the empty expression selects everything.
    pub fn parse(expr: &str) -> Result<LabelSelector, Error> {
        let mut p = Parser {
            tokens: tokenize(expr),
            pos: 0,
        };
        let mut requirements = Vec::new();
        loop {
            match p.peek() {
                Token::End => break,
                Token::Ident(_) | Token::Not => {
                    requirements.push(parse_requirement(&mut p)?);
                    match p.next() {
                        Token::End => break,
                        Token::Comma => {
                            if !matches!(p.peek(), Token::Ident(_) | Token::Not) {
                                return Err(parse_error(p.peek(), "identifier after ','"));
                            }
                        }
                        other => return Err(parse_error(&other, "',' or 'end of string'")),
                    }
                }
                other => {
                    return Err(parse_error(other, "!, identifier, or 'end of string'"));
                }
            }
        }
        Ok(LabelSelector { requirements })
    }

    /// Whether labels (key, value pairs) satisfy every requirement.
    pub fn matches(&self, labels: &[(String, String)]) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }
}

fn parse_requirement(p: &mut Parser) -> Result<Requirement, Error> {
    let mut negated = false;
    let mut tok = p.next();
    if tok == Token::Not {
        negated = true;
        tok = p.next();
    }
    let Token::Ident(key) = tok else {
        return Err(parse_error(&tok, "identifier"));
    };
    validate_key(&key)?;
    if matches!(p.peek(), Token::End | Token::Comma) {
        let op = if negated {
            Op::DoesNotExist
        } else {
            Op::Exists
        };
        return Ok(Requirement {
            key,
            op,
            values: BTreeSet::new(),
        });
    }
    if negated {
        // `!key` takes no operator.
        return Err(parse_error(p.peek(), "',' or 'end of string'"));
    }
    let op_tok = p.next();
    let (op, values) = match op_tok {
        Token::In | Token::NotIn => {
            let values = parse_value_set(p)?;
            if values.is_empty() {
                return Err(err!(
                    "unable to parse requirement: for 'in', 'notin' operators, values set can't be empty"
                ));
            }
            let op = if op_tok == Token::In {
                Op::In
            } else {
                Op::NotIn
            };
            (op, values)
        }
        Token::Equals | Token::DoubleEquals => (Op::In, parse_exact_value(p)?),
        Token::NotEquals => (Op::NotIn, parse_exact_value(p)?),
        Token::Gt | Token::Lt => {
            let values = parse_exact_value(p)?;
            if values.iter().any(|v| v.parse::<i64>().is_err()) {
                return Err(err!(
                    "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer"
                ));
            }
            (if op_tok == Token::Gt { Op::Gt } else { Op::Lt }, values)
        }
        other => {
            return Err(parse_error(&other, "in, notin, =, ==, !=, gt, lt"));
        }
    };
    for v in &values {
        validate_value(v)?;
    }
    Ok(Requirement { key, op, values })
}

fn parse_exact_value(p: &mut Parser) -> Result<BTreeSet<String>, Error> {
    if matches!(p.peek(), Token::End | Token::Comma) {
        return Ok(BTreeSet::from([String::new()]));
    }
    match p.next() {
        Token::Ident(v) => Ok(BTreeSet::from([v])),
        other => Err(parse_error(&other, "identifier")),
    }
}

/// `( v1, v2 )`; empty entries stand for the empty value.
fn parse_value_set(p: &mut Parser) -> Result<BTreeSet<String>, Error> {
    let open = p.next();
    if open != Token::Open {
        return Err(parse_error(&open, "'('"));
    }
    let mut values = BTreeSet::new();
    if *p.peek() == Token::Close {
        p.next();
        values.insert(String::new());
        return Ok(values);
    }
    let mut expect_value = true;
    loop {
        match p.next() {
            Token::Ident(v) if expect_value => {
                values.insert(v);
                expect_value = false;
            }
            Token::Comma => {
                if expect_value {
                    values.insert(String::new());
                }
                expect_value = true;
            }
            Token::Close => {
                if expect_value {
                    values.insert(String::new());
                }
                return Ok(values);
            }
            other => return Err(parse_error(&other, "',', ')' or identifier")),
        }
    }
}

/// A qualified name's name part (label keys and values, annotation keys):
/// at most 63 alphanumerics, `-`, `_` or `.`, alphanumeric at both ends.
pub fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A lowercase RFC 1123 DNS subdomain (label key prefixes, API groups).
pub fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && !b.iter().any(|c| c.is_ascii_uppercase())
        })
}

/// Label keys are qualified names: `[prefix/]name`.
fn validate_key(key: &str) -> Result<(), Error> {
    let ok = match key.split_once('/') {
        Some((prefix, name)) => {
            !name.contains('/') && is_dns_subdomain(prefix) && is_name_part(name)
        }
        None => is_name_part(key),
    };
    if ok {
        Ok(())
    } else {
        Err(err!(
            "unable to parse requirement: invalid label key \"{key}\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        ))
    }
}

/// Label values are empty or a name part.
fn validate_value(value: &str) -> Result<(), Error> {
    if value.is_empty() || is_name_part(value) {
        Ok(())
    } else {
        Err(err!(
            "unable to parse requirement: invalid label value: \"{value}\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn selector_fields_match_whole_values_literally_or_as_go_regexps() {
        let res = |name: &str| json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}});
        let pick = |sel: Value, name: &str| {
            Selector::from_value(&sel)
                .expect("selector")
                .compile()
                .expect("compiles")
                .matches(&res(name))
        };
        // No metacharacters: the whole value, nothing more.
        assert!(pick(json!({"name": "web-1"}), "web-1"));
        assert!(!pick(json!({"name": "web"}), "web-1"));
        assert!(!pick(json!({"name": "web-1"}), "my-web-1"));
        assert!(pick(json!({"kind": "Deployment", "group": "apps"}), "x"));
        // Metacharacters: an anchored Go regexp.
        assert!(pick(json!({"name": "web.1"}), "webx1"));
        assert!(pick(json!({"name": "web-(1|2)"}), "web-2"));
        assert!(!pick(json!({"name": "web-[12]"}), "web-3"));
        assert!(pick(json!({"kind": "Deploy.*"}), "x"));
        assert!(!pick(json!({"kind": "Deploy"}), "x"));
    }

    #[test]
    fn dotted_patterns_match_as_the_go_regexp_does() {
        let patterns = ["apps.k8s.io", "a.b", ".", "..", "cert-manager.io", "x."];
        let values = [
            "apps.k8s.io",
            "appsxk8s.io",
            "apps.k8s.io2",
            "apps.k8s.i",
            "a.b",
            "aéb",
            "a\nb",
            "ab",
            "",
            ".",
            "é",
            "\n",
            "cert-manager.io",
            "cert-managerXio",
            "x",
            "xy",
            "x\n",
        ];
        for pattern in patterns {
            let Pattern::Dotted(_) = anchored(pattern).expect("compiles") else {
                panic!("{pattern:?} is not a dotted pattern");
            };
            let regex = kustom_api::go_regex::anchored(pattern).expect("compiles");
            for value in values {
                assert_eq!(
                    matches(&anchored(pattern).expect("compiles"), value),
                    regex.is_match(value),
                    "{pattern:?} against {value:?}"
                );
            }
        }
        assert!(matches!(anchored("a.*"), Ok(Pattern::Regex(_))));
        assert!(matches!(anchored("apps"), Ok(Pattern::Exactly(_))));
    }

    #[test]
    fn label_selector_syntax() {
        let s = LabelSelector::parse("a=b,c!=d,e in (x,y),!f, g,h==i").expect("parses");
        let good = labels(&[("a", "b"), ("e", "y"), ("g", ""), ("h", "i")]);
        assert!(s.matches(&good));
        let mut bad = good.clone();
        bad.push(("f".into(), "1".into()));
        assert!(!s.matches(&bad));
        let mut bad = good.clone();
        bad.push(("c".into(), "d".into()));
        assert!(!s.matches(&bad));
        let bad = labels(&[("a", "b"), ("e", "z"), ("g", ""), ("h", "i")]);
        assert!(!s.matches(&bad));

        let s = LabelSelector::parse("tier notin (front, back), n>3").expect("parses");
        assert!(s.matches(&labels(&[("n", "4")])));
        assert!(!s.matches(&labels(&[("n", "3")])));
        assert!(!s.matches(&labels(&[("tier", "front"), ("n", "5")])));
        assert!(LabelSelector::parse("").expect("empty").matches(&[]));
        assert!(LabelSelector::parse("a=")
            .expect("empty value")
            .matches(&labels(&[("a", "")])));
    }

    #[test]
    fn label_selector_errors() {
        for bad in [
            "a=b=c", "a in x", "a in (x", ",a", "a,", "n>x", "a=b/c", "!a=b", "-a",
        ] {
            assert!(LabelSelector::parse(bad).is_err(), "{bad} should fail");
        }
        assert!(LabelSelector::parse("example.com/app=web").is_ok());
    }

    fn res(kind: &str, name: &str, ns: &str, labels: Value) -> Value {
        let mut r = json!({"apiVersion": "apps/v1", "kind": kind,
                           "metadata": {"name": name, "labels": labels}});
        if !ns.is_empty() {
            resource::set_namespace(&mut r, ns);
        }
        r
    }

    #[test]
    fn selects_by_anchored_patterns() {
        let rs = vec![
            res("Deployment", "web", "", json!({"app": "web"})),
            res("Deployment", "web-canary", "prod", json!({"app": "web"})),
            res("StatefulSet", "db", "prod", json!({"app": "db"})),
        ];
        let pick = |sel: Value| select(&rs, &sel).expect("valid selector");
        assert_eq!(pick(json!({"name": "web"})), [0]);
        assert_eq!(pick(json!({"name": "web.*"})), [0, 1]);
        assert_eq!(pick(json!({"kind": "Deploy"})), Vec::<usize>::new());
        assert_eq!(
            pick(json!({"kind": "Deployment|StatefulSet", "namespace": "prod"})),
            [1, 2]
        );
        assert_eq!(pick(json!({"namespace": "default"})), [0]);
        assert_eq!(
            pick(json!({"labelSelector": "app=web", "group": "apps", "version": "v1"})),
            [0, 1]
        );
        assert_eq!(pick(json!({})), [0, 1, 2]);
        assert!(select(&rs, &json!({"name": "("})).is_err());
    }

    #[test]
    fn matches_original_names_and_finds_by_previous_id() {
        let mut r = res("Deployment", "old", "", json!({}));
        store_previous_id(&mut r);
        resource::set_name(&mut r, "new");
        let rs = vec![r, res("Deployment", "other", "", json!({}))];
        assert_eq!(select(&rs, &json!({"name": "old"})).expect("ok"), [0]);
        assert_eq!(select(&rs, &json!({"name": "new"})).expect("ok"), [0]);
        assert_eq!(org_id(&rs[0]).name, "old");
        let old = ResId::of(&res("Deployment", "old", "", json!({})));
        assert_eq!(find_by_id(&rs, &old).expect("found"), 0);
        let missing = ResId::of(&res("Deployment", "nope", "", json!({})));
        assert_eq!(
            find_by_id(&rs, &missing).expect_err("absent").message,
            "no matches for Id Deployment.v1.apps/nope.[noNs]; failed to find unique target for patch Deployment.v1.apps/nope.[noNs]"
        );
        let dup = vec![rs[1].clone(), rs[1].clone()];
        let other = ResId::of(&rs[1]);
        assert!(find_by_id(&dup, &other)
            .expect_err("ambiguous")
            .message
            .starts_with("multiple matches for Id Deployment.v1.apps/other.[noNs]"));
    }

    #[test]
    fn previous_ids_accumulate() {
        let mut r = res("Deployment", "a", "ns1", json!({}));
        store_previous_id(&mut r);
        resource::set_name(&mut r, "b");
        store_previous_id(&mut r);
        let ids = prev_ids(&r);
        assert_eq!(ids.len(), 2);
        assert_eq!((ids[0].name.as_str(), ids[1].name.as_str()), ("a", "b"));
        assert_eq!(ids[0].namespace, "ns1");
        assert_eq!(ids[0].gvk.group, "apps");
    }

    #[test]
    fn selector_display_is_kustomizes() {
        let s = Selector::from_value(
            &json!({"kind": "Deployment", "name": "x", "labelSelector": "a=b"}),
        )
        .expect("valid");
        assert_eq!(
            s.to_string(),
            "Deployment.[noVer].[noGrp]/x.[noNs]:a=:l=a=b"
        );
    }
}
