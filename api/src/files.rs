//! Reading the files a kustomization names, safely: only regular files (a
//! FIFO would block the build forever, a device like `/dev/zero` never
//! ends), and text only when it is UTF-8, with a message that says where it
//! is not and what to do.

use crate::Error;
use std::path::Path;

/// The bytes of the regular file at `path` (symlinks followed).
pub fn read_regular(path: &Path) -> Result<Vec<u8>, Error> {
    let fail = |e: std::io::Error| Error::new(format!("reading {}: {e}", path.display()));
    let meta = std::fs::metadata(path).map_err(fail)?;
    if !meta.is_file() {
        return Err(Error::new(format!(
            "reading {}: not a regular file ({}); name a file here",
            path.display(),
            if meta.is_dir() {
                "a directory"
            } else {
                "a device, socket or pipe"
            }
        )));
    }
    std::fs::read(path).map_err(fail)
}

/// The text of the regular file at `path`, which must be UTF-8.
pub fn read_text(path: &Path) -> Result<String, Error> {
    utf8(read_regular(path)?, path)
}

/// `bytes` read from `path` as UTF-8 text, or an error naming the line and
/// byte offset of the first invalid sequence.
pub fn utf8(bytes: Vec<u8>, path: &Path) -> Result<String, Error> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = 1 + bytes[..at].iter().filter(|&&b| b == b'\n').count();
        Error::new(format!(
            "{}: invalid UTF-8 at line {line} (byte offset {at}): YAML files must be UTF-8; re-save the file as UTF-8 (e.g. `iconv -f LATIN1 -t UTF-8`)",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_names_line_and_offset() {
        let e = utf8(b"a: 1\nb: \xff\n".to_vec(), Path::new("x.yaml")).unwrap_err();
        assert!(
            e.message
                .contains("x.yaml: invalid UTF-8 at line 2 (byte offset 8)"),
            "{e}"
        );
        assert_eq!(utf8(b"a".to_vec(), Path::new("x")).unwrap(), "a");
    }

    #[test]
    fn only_regular_files_are_read() {
        let e = read_regular(Path::new("/dev/zero")).unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e}");
        let e = read_regular(Path::new("/")).unwrap_err();
        assert!(e.message.contains("a directory"), "{e}");
    }
}
