//! Mapping keys in go-yaml v2's natural order.

// --- key order -------------------------------------------------------------

/// Sort keys in go-yaml v2's order. For up to 12 keys Go's sort is an
/// insertion sort, which is reproduced exactly; larger maps use a merge
/// sort (the order is the same for any consistent comparison).
pub(super) fn sort_keys<T>(entries: &mut [(&str, &T)]) {
    if entries.len() <= 12 {
        for i in 1..entries.len() {
            let mut j = i;
            while j > 0 && key_less(entries[j].0, entries[j - 1].0) {
                entries.swap(j, j - 1);
                j -= 1;
            }
        }
        return;
    }
    let mid = entries.len() / 2;
    sort_keys(&mut entries[..mid]);
    sort_keys(&mut entries[mid..]);
    let mut merged = Vec::with_capacity(entries.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < entries.len() {
        if key_less(entries[j].0, entries[i].0) {
            merged.push(entries[j]);
            j += 1;
        } else {
            merged.push(entries[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&entries[i..mid]);
    merged.extend_from_slice(&entries[j..]);
    entries.copy_from_slice(&merged);
}

/// go-yaml v2's key comparison: character by character; letters sort after
/// non-letters; runs of digits compare by numeric value (then by length).
fn key_less(a: &str, b: &str) -> bool {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let i = ab.iter().zip(bb).take_while(|(x, y)| x == y).count();
    let (Some(&x), Some(&y)) = (ab.get(i), bb.get(i)) else {
        // One is a prefix of the other.
        return ab.len() < bb.len();
    };
    // Fast path: ASCII up to the first difference, and no digit there.
    if x.is_ascii()
        && y.is_ascii()
        && !x.is_ascii_digit()
        && !y.is_ascii_digit()
        && ab[..i].is_ascii()
    {
        let (xl, yl) = (x.is_ascii_alphabetic(), y.is_ascii_alphabetic());
        return if xl == yl { x < y } else { yl };
    }
    if a.is_ascii() && b.is_ascii() {
        return key_less_chars(a.as_bytes(), b.as_bytes(), |&c| char::from(c));
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    key_less_chars(&ar, &br, |&c| c)
}

fn key_less_chars<T: PartialEq + Copy>(ar: &[T], br: &[T], ch: impl Fn(&T) -> char) -> bool {
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (ac, bc) = (ch(&ar[i]), ch(&br[i]));
        let (al, bl) = (is_letter(ac), is_letter(bc));
        if al && bl {
            return ac < bc;
        }
        if al || bl {
            return bl;
        }
        // Both non-letters: compare the digit runs starting here. A zero
        // that continues a run of non-zero digits counts as part of that
        // number (the run is then "non-zero" whatever follows).
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ac == '0' || bc == '0' {
            for j in (0..i).rev() {
                let c = ch(&ar[j]);
                if !is_digit(c) {
                    break;
                }
                if c != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ch(&ar[ai])) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(ch(&ar[ai]) as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(ch(&br[bi])) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(ch(&br[bi]) as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ac < bc;
    }
    ar.len() < br.len()
}

/// Go's `unicode.IsLetter` (exact for ASCII; Unicode's alphabetic property,
/// minus numbers, elsewhere).
fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic()
    } else {
        c.is_alphabetic() && !c.is_numeric()
    }
}

/// Go's `unicode.IsDigit` (exact for ASCII; Unicode numerics elsewhere).
fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_digit()
    } else {
        c.is_numeric()
    }
}
