//! Units of the core: bytes and parameter counts.
//!
//! Every amount of memory inside the core is a [`Bytes`]; every model size is a
//! [`ParamCount`]. Gigabytes (10^9 bytes), gibibytes (2^30 bytes) and billions of
//! parameters are display units: they appear only in constructors named after them
//! and in the accessors that convert back for display.

use core::fmt;
use core::iter::Sum;
use core::ops::{Add, Div, Mul};

use serde::{Deserialize, Serialize};

/// Bytes in one gigabyte (GB, SI): 10^9. The lesson's "80 GB" and "112 GB" are in GB.
pub const BYTES_PER_GB: f64 = 1e9;
/// Bytes in one gibibyte (GiB, binary): 2^30. What `nvidia-smi` and DeepSpeed count in.
pub const BYTES_PER_GIB: f64 = 1_073_741_824.0;
/// Bytes in one mebibyte (MiB): 2^20, as an integer for whole byte counts.
pub const MIB: u64 = 1 << 20;
/// Bytes in one gibibyte (GiB): 2^30, as an integer for whole byte counts.
pub const GIB: u64 = 1 << 30;
/// Parameters in one billion (the "B" of "7B").
pub const PARAMS_PER_BILLION: f64 = 1e9;

/// An amount of memory, in bytes.
///
/// Stored as `f64`: sharded amounts such as 12 bytes × Ψ / N are fractional, and
/// `f64` holds every whole byte count below 2^53 (9 PB) exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bytes(f64);

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0.0);

    /// An amount given in bytes.
    pub const fn new(bytes: f64) -> Self {
        Bytes(bytes)
    }

    /// An amount given in gigabytes (10^9 bytes).
    pub fn from_gb(gb: f64) -> Self {
        Bytes(gb * BYTES_PER_GB)
    }

    /// The amount in bytes.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// The amount in gigabytes (10^9 bytes), for display.
    pub fn gb(self) -> f64 {
        self.0 / BYTES_PER_GB
    }

    /// The amount in gibibytes (2^30 bytes), for display.
    pub fn gib(self) -> f64 {
        self.0 / BYTES_PER_GIB
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, rhs: Bytes) -> Bytes {
        Bytes(self.0 + rhs.0)
    }
}

impl Mul<f64> for Bytes {
    type Output = Bytes;
    fn mul(self, rhs: f64) -> Bytes {
        Bytes(self.0 * rhs)
    }
}

impl Div<f64> for Bytes {
    type Output = Bytes;
    fn div(self, rhs: f64) -> Bytes {
        Bytes(self.0 / rhs)
    }
}

impl Sum for Bytes {
    fn sum<I: Iterator<Item = Bytes>>(iter: I) -> Bytes {
        iter.fold(Bytes::ZERO, Add::add)
    }
}

impl fmt::Display for Bytes {
    /// Shortest exact form with its unit, e.g. `38500000000 B`; see [`crate::format`]
    /// for the human-friendly forms.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

/// A number of model parameters (Ψ in the ZeRO paper, Φ in the lesson).
///
/// Stored as `f64` so that sizes typed in billions ("6.7") and inverse results
/// (the largest trainable model) need no rounding; every whole count below 2^53 is exact.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ParamCount(f64);

impl ParamCount {
    /// A count given as a number of parameters.
    pub const fn new(params: f64) -> Self {
        ParamCount(params)
    }

    /// A count given in billions of parameters (the "7" of "7B"): the whole
    /// number of parameters its decimal says. `4.17802242` is 4,178,022,420,
    /// where the product in binary floating point is 4,178,022,419.9999995;
    /// below the limit of 10^15 parameters that error stays under 0.25, so the
    /// nearest whole number is the decimal's own.
    pub fn from_billions(billions: f64) -> Self {
        ParamCount((billions * PARAMS_PER_BILLION).round())
    }

    /// A count given in millions of parameters (a largest layer), as a whole
    /// number of parameters, like [`from_billions`](Self::from_billions).
    pub fn from_millions(millions: f64) -> Self {
        ParamCount((millions * 1e6).round())
    }

    /// The number of parameters.
    pub const fn get(self) -> f64 {
        self.0
    }

    /// The count in billions of parameters, for display.
    pub fn billions(self) -> f64 {
        self.0 / PARAMS_PER_BILLION
    }
}

impl Mul<f64> for ParamCount {
    type Output = Bytes;
    /// Parameters × bytes per parameter = bytes.
    fn mul(self, bytes_per_param: f64) -> Bytes {
        Bytes(self.0 * bytes_per_param)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn gb_and_gib_are_different_units() {
        let eighty_gb = Bytes::from_gb(80.0);
        assert_eq!(eighty_gb.get(), 80e9);
        assert_eq!(eighty_gb.gb(), 80.0);
        // 80 × 10^9 / 2^30 = 74.505805969238...
        assert!((eighty_gb.gib() - 74.505_805_969_238_28).abs() < 1e-12);
        assert_eq!(Bytes::new(BYTES_PER_GIB).gib(), 1.0);
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn params_times_bytes_per_param_is_bytes() {
        let seven_b = ParamCount::from_billions(7.0);
        assert_eq!(seven_b.get(), 7e9);
        assert_eq!(seven_b.billions(), 7.0);
        assert_eq!((seven_b * 16.0).gb(), 112.0);
        let parts = [
            Bytes::from_gb(14.0),
            Bytes::from_gb(14.0),
            Bytes::from_gb(10.5),
        ];
        assert_eq!(parts.into_iter().sum::<Bytes>().gb(), 38.5);
    }
}
