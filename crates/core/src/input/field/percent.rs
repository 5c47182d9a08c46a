//! Fractions typed as percentages (`20` for 0.2), and decimal text checked
//! to be a finite number.

use super::*;

/// Parses a percentage typed for a fraction field (`20` → `0.2`) and checks the
/// fraction against the field's limits.
///
/// The typed decimal is divided by 100 before it is rounded to an `f64`, so `7`
/// gives exactly the `f64` nearest 0.07 and `0.0000001` the one nearest 10^-9.
pub fn parse_percent(field: Field, text: &str) -> Result<f64, InputError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(field.error(InputErrorKind::Empty));
    }
    let fraction = vram_shared::decimal::parse_decimal_times_ten_to(text, -2)
        .ok_or(field.error(InputErrorKind::NotANumber))?;
    field.check(fraction)
}

/// A fraction written as a percentage for a form field: `0.2` → `20`, `0.07` → `7`.
///
/// The fraction's shortest decimal with its point moved two places, so there is
/// no binary noise (`0.07 × 100 = 7.000000000000001`) and [`parse_percent`] reads
/// the text back to the same fraction, every digit kept.
pub fn percent_text(fraction: f64) -> String {
    let decimal = vram_shared::decimal::shortest_decimal(fraction);
    if decimal.contains(['e', 'E']) {
        // Not written so for a fraction within the field's limits and resolution.
        let percent = ((fraction * 100.0) * 1e10).round() / 1e10;
        return vram_shared::decimal::shortest_decimal(percent);
    }
    let (sign, unsigned) = match decimal.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", decimal.as_str()),
    };
    let (whole, fraction_digits) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let padded = format!("{fraction_digits:0<2}");
    let (moved, rest) = padded.split_at(2);
    let whole = format!("{whole}{moved}");
    let whole = match whole.trim_start_matches('0') {
        "" => "0",
        trimmed => trimmed,
    };
    match rest.trim_end_matches('0') {
        "" => format!("{sign}{whole}"),
        rest => format!("{sign}{whole}.{rest}"),
    }
}

impl Field {
    /// Parses a decimal number without checking limits; errors are bare kinds.
    pub(super) fn parse_number_unchecked(self, text: &str) -> Result<f64, InputErrorKind> {
        let text = text.trim();
        if text.is_empty() {
            return Err(InputErrorKind::Empty);
        }
        // Digits only: no "inf" or "NaN" (see `decimal` for why not `str::parse`).
        let value = vram_shared::decimal::parse_decimal(text).ok_or(InputErrorKind::NotANumber)?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(InputErrorKind::NotFinite)
        }
    }
}

#[cfg(test)]
mod percent_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn percentages_convert_both_ways_without_noise() {
        assert_eq!(parse_percent(Field::Overhead, "20"), Ok(0.2));
        assert_eq!(parse_percent(Field::Overhead, "7"), Ok(0.07));
        assert_eq!(percent_text(0.2), "20");
        assert_eq!(percent_text(0.07), "7");
        assert_eq!(percent_text(0.125), "12.5");
        assert_eq!(percent_text(0.0), "0");
        assert_eq!(percent_text(0.000_000_001), "0.0000001");
        assert_eq!(percent_text(0.123_456_789_012_345), "12.3456789012345");
        for fraction in [
            0.000_000_001,
            0.123_456_789_012_345,
            0.95,
            0.5,
            0.010_000_000_000_000_002,
        ] {
            let text = percent_text(fraction);
            assert_eq!(
                parse_percent(Field::Overhead, &text),
                Ok(fraction),
                "{text}"
            );
        }
        for text in ["0", "7", "12.5", "33.3", "95"] {
            let fraction = parse_percent(Field::Overhead, text).unwrap();
            assert_eq!(percent_text(fraction), text);
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn percentages_outside_limits_are_errors_of_the_fraction() {
        let err = parse_percent(Field::Overhead, "96").unwrap_err();
        assert_eq!(err.field, Field::Overhead);
        assert!(matches!(err.kind, InputErrorKind::OutOfRange(_)));
        assert_eq!(
            parse_percent(Field::Overhead, "x").unwrap_err().kind,
            InputErrorKind::NotANumber
        );
    }
}
