//! Numbers as go-yaml v2 prints them after a trip through Go's JSON.

use serde_json::Number;

// --- numbers ---------------------------------------------------------------

/// A JSON number as it comes out of JSON → go-yaml v2 → YAML: integers as
/// they are; a float is first printed the way Go's `encoding/json` does, and
/// if that text is an integer go-yaml reads it back as one, otherwise the
/// float is printed with Go's `%g`-style shortest formatting.
pub(super) fn write_number(out: &mut String, n: &Number) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else {
        out.push_str(&format_float(n.as_f64().unwrap_or(0.0)));
    }
}

#[cfg(test)]
fn format_number(n: &Number) -> String {
    let mut s = String::new();
    write_number(&mut s, n);
    s
}

fn format_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        // encoding/json uses plain decimal notation here; Rust's Display
        // gives the same shortest digits in the same notation.
        let text = format!("{f}");
        if !text.contains('.') {
            if let Ok(i) = text.parse::<i64>() {
                return i.to_string();
            }
            if let Ok(u) = text.parse::<u64>() {
                return u.to_string();
            }
        }
    }
    go_format_g(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`: shortest digits, exponent
/// form when the decimal exponent is below -4 or at least 6 (`1e+06`,
/// `1.5e-07`), decimal form otherwise.
fn go_format_g(f: f64) -> String {
    // Rust's `{:e}` gives the same shortest digits: "-1.2345e6".
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", exp.unsigned_abs()));
    } else {
        // Decimal point after `dp` digits.
        let dp = exp + 1;
        let nd = digits.len() as i32;
        if dp <= 0 {
            out.push_str("0.");
            for _ in 0..-dp {
                out.push('0');
            }
            out.push_str(&digits);
        } else if dp >= nd {
            out.push_str(&digits);
            for _ in 0..dp - nd {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..dp as usize]);
            out.push('.');
            out.push_str(&digits[dp as usize..]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let f = |v: f64| format_number(&Number::from_f64(v).unwrap_or(0.into()));
        assert_eq!(f(1.0), "1");
        assert_eq!(f(1.5), "1.5");
        assert_eq!(f(1e21), "1e+21");
        assert_eq!(f(1e20), "1e+20");
        assert_eq!(f(0.000001), "1e-06");
        assert_eq!(f(1e-7), "1e-07");
        assert_eq!(f(0.0001), "0.0001");
        assert_eq!(f(0.00001), "1e-05");
        assert_eq!(f(1234567.5), "1.2345675e+06");
        assert_eq!(f(123456.5), "123456.5");
        assert_eq!(f(-0.0), "0");
        // encoding/json prints 2^63 as 9223372036854776000, which reads back
        // as an unsigned integer.
        assert_eq!(f(9223372036854775808.0), "9223372036854776000");
        assert_eq!(f(1.2345678901234568e29), "1.2345678901234568e+29");
        assert_eq!(f(-9.223372036854776e18), "-9.223372036854776e+18");
        assert_eq!(
            format_number(&Number::from(u64::MAX)),
            "18446744073709551615"
        );
        assert_eq!(format_number(&Number::from(-5)), "-5");
    }
}
