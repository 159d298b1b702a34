//! (Being written.)
use crate::Ctx;
use kustom_api::{Error, Value};

/// Not written yet.
pub fn transform(_config: &Value, _resources: &mut Vec<Value>, _ctx: &Ctx) -> Result<(), Error> {
    Err(Error::new("not implemented yet"))
}
