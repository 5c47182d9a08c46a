//! Gradient accumulation: how many micro-batches each GPU runs before one
//! optimizer step (the lesson's exercise 3.2).
//!
//! global batch = micro-batch per GPU × GPUs × accumulation steps. Accumulation
//! does not lower the memory of one step; it reaches a large global batch with
//! the micro-batch that fits.

use crate::memory::Refused;

/// Accumulation steps for a global batch of `global_batch` samples, a micro-batch
/// of `micro_batch` samples per GPU and `gpus` data-parallel GPUs.
///
/// Errors: a zero names what it is; a global batch that is not a multiple
/// of micro-batch × GPUs is [`Refused::NotDivisible`].
pub fn accumulation_steps(global_batch: u32, micro_batch: u32, gpus: u32) -> Result<u32, Refused> {
    match (global_batch, micro_batch, gpus) {
        (0, _, _) => return Err(Refused::GlobalBatch),
        (_, 0, _) => return Err(Refused::MicroBatch),
        (_, _, 0) => return Err(Refused::Gpus),
        _ => {}
    }
    // Both factors are below 2^32: the product fits in u64.
    let per_step = u64::from(micro_batch) * u64::from(gpus);
    let global = u64::from(global_batch);
    if global % per_step != 0 {
        return Err(Refused::NotDivisible);
    }
    // global / per_step <= global < 2^32.
    Ok((global / per_step) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Field, InputError, InputErrorKind};
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn global_512_micro_4_on_8_gpus_is_16_steps() {
        assert_eq!(accumulation_steps(512, 4, 8), Ok(16));
        assert_eq!(accumulation_steps(32, 4, 8), Ok(1));
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn batches_that_do_not_divide_are_an_error() {
        let err = InputError::from(accumulation_steps(100, 4, 8).unwrap_err());
        assert_eq!(
            (err.field, err.kind),
            (Field::GlobalBatch, InputErrorKind::NotDivisible)
        );
        assert_eq!(
            accumulation_steps(16, 4, 8).unwrap_err(),
            Refused::NotDivisible
        );
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn zeros_name_their_field() {
        let field = |e: Refused| InputError::from(e).field;
        assert_eq!(
            accumulation_steps(0, 4, 8).map_err(field),
            Err(Field::GlobalBatch)
        );
        assert_eq!(
            accumulation_steps(64, 0, 8).map_err(field),
            Err(Field::MicroBatch)
        );
        assert_eq!(
            accumulation_steps(64, 4, 0).map_err(field),
            Err(Field::Gpus)
        );
    }
}
