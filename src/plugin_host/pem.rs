//! PEM blocks (certificates, keys) replaced by a stable token wherever
//! they appear in a value a reviewer or an audit log sees: the same block
//! always gives the same token, so a change shows without the block.

use kustom_api::Value;
use sha2::{Digest, Sha256};

const BEGIN: &str = "-----BEGIN ";
const END: &str = "-----END ";
const DASHES: &str = "-----";

/// `text` with every complete PEM block replaced by `<PEM LABEL sha256:…>`
/// (the first 12 hex digits of the block's sha256); None when it has none.
pub fn tokenize(text: &str) -> Option<String> {
    if !text.contains(BEGIN) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut any = false;
    while let Some(start) = rest.find(BEGIN) {
        let after_begin = &rest[start + BEGIN.len()..];
        let Some(label_len) = after_begin.find(DASHES) else {
            break;
        };
        let label = &after_begin[..label_len];
        let end_marker = format!("{END}{label}{DASHES}");
        // A block cut short (no end line) is hidden up to the text's end:
        // a truncated key is still a key.
        let (block_end, cut) = match after_begin.find(&end_marker) {
            Some(end_at) => (start + BEGIN.len() + end_at + end_marker.len(), ""),
            None => (rest.len(), " (incomplete)"),
        };
        let block = &rest[start..block_end];
        let digest = Sha256::digest(block.trim().as_bytes());
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        out.push_str(&rest[..start]);
        out.push_str(&format!("<PEM {label}{cut} sha256:{hex}>"));
        rest = &rest[block_end..];
        any = true;
    }
    out.push_str(rest);
    any.then_some(out)
}

/// Replace PEM blocks in every string of `v` (values, not keys).
pub fn tokenize_all(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(t) = tokenize(s) {
                *s = t;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(tokenize_all),
        Value::Object(m) => m.values_mut().for_each(tokenize_all),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CERT: &str =
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";

    #[test]
    fn the_same_block_gives_the_same_token_and_hides_the_block() {
        let a = tokenize(&format!("ca.crt: |\n{CERT}tail")).unwrap();
        let b = tokenize(&format!("other text\n{CERT}")).unwrap();
        assert!(!a.contains("MIIB") && !b.contains("MIIB"), "{a}");
        let token = |s: &str| s[s.find("<PEM").unwrap()..=s.find('>').unwrap()].to_string();
        assert_eq!(token(&a), token(&b));
        assert!(a.starts_with("ca.crt: |\n<PEM CERTIFICATE sha256:") && a.ends_with("\ntail"));
        let changed = tokenize(&CERT.replace("MIIB", "MIIC")).unwrap();
        assert_ne!(token(&changed), token(&a));
        assert_eq!(tokenize("no block here"), None);
        // A block with no end line is hidden to the end of the text.
        let cut = tokenize("x -----BEGIN RSA PRIVATE KEY-----\nMIIB").unwrap();
        assert!(
            cut.starts_with("x <PEM RSA PRIVATE KEY (incomplete) sha256:") && !cut.contains("MIIB")
        );
    }
}
