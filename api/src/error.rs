//! The error type shared by the core and the plugins.

use std::fmt;

/// An error with a human-readable message; context is prepended as it bubbles up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The full message, outermost context first.
    pub message: String,
}

impl Error {
    /// A new error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }

    /// Prefix the message with `context: `.
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error {
            message: format!("{context}: {}", self.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(s: String) -> Self {
        Error::new(s)
    }
}

impl From<&str> for Error {
    fn from(s: &str) -> Self {
        Error::new(s)
    }
}

/// `format!`-style constructor for [`Error`].
#[macro_export]
macro_rules! err {
    ($($arg:tt)*) => { $crate::Error::new(format!($($arg)*)) };
}

/// Shorthand result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
