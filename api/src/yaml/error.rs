//! The error of the YAML readers: what is wrong, and on which line.

use crate::Error;

/// A YAML syntax or structure error with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line of the problem, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl YamlError {
    pub(crate) fn at(line: usize, message: impl Into<String>) -> Self {
        YamlError {
            line: Some(line),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

impl From<YamlError> for Error {
    fn from(e: YamlError) -> Self {
        Error::new(e.to_string())
    }
}
