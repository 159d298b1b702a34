//! (Being written.)
use crate::Ctx;
use kustom_api::{Error, Value};

/// Not written yet.
pub fn generate(_config: &Value, _ctx: &Ctx) -> Result<Vec<Value>, Error> {
    Err(Error::new("not implemented yet"))
}
