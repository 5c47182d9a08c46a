//! Decimal text to `f64` and back: what people type in a field or a link, and
//! the shortest text that reads back to the same number.
//!
//! The standard library does the arithmetic (`str::parse::<f64>` rounds
//! correctly; `Display` writes the shortest decimal that reads back). What is
//! ours is the grammar: digits, a point and an exponent only, so `inf`, `NaN`
//! and `infinity` (which `str::parse` accepts) are not numbers here, and a
//! percentage moves the decimal point in the text before it is rounded once.

/// Whether `text` is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one
/// digit before the exponent (`.5` and `5.` are numbers, `.` is not).
fn is_decimal(text: &str) -> bool {
    let text = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok =
        digits(whole) && digits(fraction) && !(whole.is_empty() && fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]`, correctly rounded (the
/// standard library's parser). No `inf`, no `NaN`; `None` for anything else.
/// Beyond the largest double it is infinite, below the smallest 0.
pub fn parse_decimal(text: &str) -> Option<f64> {
    parse_decimal_times_ten_to(text, 0)
}

/// The number `text` writes (as [`parse_decimal`] reads it) times 10^`shift`,
/// rounded once: a percentage typed as `0.0000001` is the fraction nearest
/// 10^-9 itself, which dividing the parsed percentage by 100 would miss by an ulp.
pub fn parse_decimal_times_ten_to(text: &str, shift: i64) -> Option<f64> {
    if !is_decimal(text) {
        return None;
    }
    if shift == 0 {
        return text.parse().ok();
    }
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        // Digits beyond i64 mean a zero or an infinity either way.
        Some((m, e)) => (
            m,
            e.parse::<i64>().unwrap_or(if e.starts_with('-') {
                -1_000_000
            } else {
                1_000_000
            }),
        ),
        None => (text, 0),
    };
    let exponent = exponent.clamp(-1_000_000, 1_000_000) + shift;
    format!("{mantissa}e{exponent}").parse().ok()
}

/// The shortest decimal that [`parse_decimal`] reads back to exactly `value`, in
/// plain notation (`7`, `2.851`, `0.2`, `1e-9` as `0.000000001`): Rust's
/// `Display`, with `-0` written `0`.
pub fn shortest_decimal(value: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn reads_what_people_and_links_write() {
        for (text, value) in [
            ("7", 7.0),
            ("6.738415616", 6.738_415_616),
            ("0.2", 0.2),
            ("0.07", 0.07),
            (".5", 0.5),
            ("5.", 5.0),
            ("+16", 16.0),
            ("-0", -0.0),
            ("1e3", 1000.0),
            ("1E-3", 0.001),
            ("85.520809984", 85.520_809_984),
            ("0.30000000000000004", 0.300_000_000_000_000_04),
            ("1e400", f64::INFINITY),
            ("1e-400", 0.0),
        ] {
            assert_eq!(
                parse_decimal(text).map(f64::to_bits),
                Some(value.to_bits()),
                "{text}"
            );
        }
        for text in [
            "", "-", ".", "e5", "1e", "1e+", "inf", "NaN", "1.2.3", "1,5", "0x10", " 7", "7 ",
        ] {
            assert_eq!(parse_decimal(text), None, "{text:?}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn agrees_with_the_standard_parser_on_hard_cases() {
        // Halfway cases and long mantissas, where a naive m × 10^e rounds twice.
        for text in [
            "9007199254740993",
            "9007199254740992.5",
            "2.2250738585072014e-10",
            "0.1000000000000000055511151231257827",
            "123456789012345678901234567890",
            "1.7976931348623157e20",
            "4.9406564584124654e-10",
            "0.95",
            "1048576",
            "999999999999999999999",
        ] {
            let ours = parse_decimal(text).unwrap();
            let std: f64 = text.parse().unwrap();
            assert_eq!(ours.to_bits(), std.to_bits(), "{text}");
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn shortest_decimal_writes_what_rust_writes() {
        for value in [
            0.0,
            7.0,
            2.851,
            0.2,
            80.0,
            1e-9,
            0.95,
            13.015864320,
            26.25,
            38.5,
            1e6,
            1048576.0,
            6.54275,
            0.1 + 0.2,
            1.0 / 3.0,
            2.0f64.powi(60),
            123456.789e3,
            5e-324,
            1e-10,
            9.5e-16,
        ] {
            let ours = shortest_decimal(value);
            if value >= 1e-10 || value == 0.0 {
                assert_eq!(parse_decimal(&ours), Some(value), "{value:e}: {ours}");
                assert_eq!(ours, value.to_string(), "{value:e}");
            }
            if value != 0.0 {
                assert_eq!(shortest_decimal(-value), format!("-{ours}"));
            }
        }
        assert_eq!(shortest_decimal(f64::INFINITY), "inf");
        assert_eq!(shortest_decimal(f64::NAN), "NaN");
        assert_eq!(shortest_decimal(-0.0), "0");
    }
}
