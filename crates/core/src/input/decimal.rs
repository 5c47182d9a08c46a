//! Decimal text to `f64` and back, without the standard library's float
//! parser and printer.
//!
//! Why: `str::parse::<f64>` brings a 10 KB table of 128-bit powers of five
//! (Eisel–Lemire) into the page's WebAssembly, almost a tenth of its size budget.
//! With at most 19 significant digits and a decimal exponent within ±27 of them,
//! exact integer arithmetic in `u128` gives the correctly rounded result; that
//! covers everything this calculator writes (at most 17 digits) and every value
//! within its fields' limits. Longer mantissas are correctly rounded unless the
//! dropped digits straddle a rounding boundary, and then within one unit in the
//! last place; exponents farther out (below 10^-27 or so, where only the reserved
//! fraction's lower limit of 0 lets such values in) are within a few units in the
//! last place, and never NaN.

/// Powers of five that fit in a `u64`: 5^0 to 5^27.
const MAX_EXACT_POWER: u32 = 27;

/// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (at least one digit before the
/// exponent; `.5` and `5.` are numbers). No `inf`, no `NaN`; `None` for anything else.
pub fn parse_decimal(text: &str) -> Option<f64> {
    parse_decimal_times_ten_to(text, 0)
}

/// The number `text` writes (as [`parse_decimal`] reads it) times 10^`shift`,
/// rounded once: a percentage typed as `0.0000001` is the fraction nearest
/// 10^-9 itself, which dividing the parsed percentage by 100 would miss by an ulp.
pub fn parse_decimal_times_ten_to(text: &str, shift: i64) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let negative = sign(bytes, &mut i);
    let mut mantissa: u64 = 0;
    let mut digits = 0u32; // significant digits kept in `mantissa`
    let mut exponent: i64 = 0; // decimal exponent of `mantissa`
    let mut inexact = false; // a non-zero digit was dropped
    let mut seen_digit = false;
    let mut seen_point = false;
    while i < bytes.len() {
        match bytes[i] {
            c @ b'0'..=b'9' => {
                seen_digit = true;
                let digit = u64::from(c - b'0');
                if digits < 19 {
                    if mantissa != 0 || digit != 0 {
                        mantissa = mantissa * 10 + digit;
                        digits += 1;
                    }
                    if seen_point {
                        exponent -= 1;
                    }
                } else {
                    inexact |= digit != 0;
                    if !seen_point {
                        exponent += 1;
                    }
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if !seen_digit {
        return None;
    }
    if i < bytes.len() {
        if !matches!(bytes[i], b'e' | b'E') {
            return None;
        }
        i += 1;
        let exponent_negative = sign(bytes, &mut i);
        let start = i;
        let mut value: i64 = 0;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            value = (value * 10 + i64::from(bytes[i] - b'0')).min(1_000_000);
            i += 1;
        }
        if i == start || i != bytes.len() {
            return None;
        }
        exponent += if exponent_negative { -value } else { value };
    }
    exponent += shift;
    // Dropped digits lie between `mantissa` and `mantissa + 1`: when both ends
    // round to the same double, so does the number; else it is within one ulp.
    let magnitude = match inexact {
        false => scale(mantissa, exponent, false),
        true => {
            let low = scale(mantissa, exponent, true);
            let high = mantissa.checked_add(1).map(|m| scale(m, exponent, false));
            match high {
                Some(high) if high == low => high,
                _ => low,
            }
        }
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// Reads an optional `+` or `-` at `bytes[*i]`; whether it was `-`.
fn sign(bytes: &[u8], i: &mut usize) -> bool {
    match bytes.get(*i) {
        Some(b'-') => {
            *i += 1;
            true
        }
        Some(b'+') => {
            *i += 1;
            false
        }
        _ => false,
    }
}

/// `mantissa × 10^exponent`, correctly rounded where |exponent| ≤ 27; `inexact`
/// says that non-zero digits beyond `mantissa` were dropped.
fn scale(mantissa: u64, exponent: i64, inexact: bool) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let sticky = u128::from(inexact);
    if (0..=i64::from(MAX_EXACT_POWER)).contains(&exponent) {
        // m × 5^e × 2^e: the product is exact in u128 (< 2^64 × 2^63).
        let product = u128::from(mantissa) * u128::from(5u64.pow(exponent as u32));
        // Give the product 126 bits so a sticky bit sits far below the rounding point.
        let shift = product.leading_zeros() as i32 - 2;
        let widened = (product << shift) | sticky;
        return widened as f64 * power_of_two(exponent as i32 - shift);
    }
    if (-i64::from(MAX_EXACT_POWER)..0).contains(&exponent) {
        // m / (5^k × 2^k): a quotient of at least 64 bits, its remainder as sticky bit.
        let k = (-exponent) as u32;
        let shift = mantissa.leading_zeros() as i32 + 64;
        let numerator = u128::from(mantissa) << shift;
        let divisor = u128::from(5u64.pow(k));
        let quotient = numerator / divisor;
        let remainder = numerator % divisor;
        let widened = quotient | u128::from(remainder != 0) | sticky;
        return widened as f64 * power_of_two(-shift - k as i32);
    }
    // Far from the usual range: scaled by exact powers of ten, 10^22 at a time,
    // so intermediates stay normal; a few units in the last place at most.
    let mut value = mantissa as f64;
    let mut exponent = exponent.clamp(-800, 800);
    while exponent > 22 && value.is_finite() {
        value *= 1e22;
        exponent -= 22;
    }
    while exponent < -22 && value > 0.0 {
        value /= 1e22;
        exponent += 22;
    }
    let power = 10f64.powi(exponent.unsigned_abs() as i32);
    if exponent >= 0 {
        value * power
    } else {
        value / power
    }
}

/// 2^n as an `f64`, exactly, for the exponents `scale` uses (|n| < 300).
fn power_of_two(n: i32) -> f64 {
    f64::from_bits(((1023 + n) as u64) << 52)
}

/// The shortest decimal that [`parse_decimal`] reads back to exactly `value`, in
/// plain notation (`7`, `2.851`, `0.2`, `1e-9` as `0.000000001`), as Rust's
/// `Display` writes it for the values this calculator handles.
///
/// Why not `value.to_string()`: Rust's float printer (Grisu with a Dragon4
/// fallback, and their tables) costs the page some 6 KB of its WebAssembly
/// budget. Here `value × 10^d` is rounded exactly in integers for d = 0, 1, 2, …
/// decimals, and the first that reads back is kept. Exact for magnitudes from
/// 10^-10 to 2^75 with up to 17 significant digits (every field's range and
/// every figure the page shows); beyond, the nearest of 27 decimals or the
/// integer part.
pub fn shortest_decimal(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if value.is_sign_negative() && value != 0.0 {
        "-"
    } else {
        ""
    };
    let magnitude = value.abs();
    let bits = magnitude.to_bits();
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // magnitude = m × 2^e exactly.
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    if e >= 0 {
        // A whole number: its digits, exactly while they fit in 128 bits.
        let whole = if e < 75 {
            u128::from(m) << e
        } else {
            u128::MAX
        };
        // The fewest significant digits that read back, then zeros (as Rust does).
        let length = digits(whole).len() as u32;
        for dropped in (0..length).rev() {
            let unit = 10u128.pow(dropped);
            let quotient = whole / unit;
            let remainder = whole % unit;
            let half = unit / 2;
            let up = unit > 1 && (remainder > half || (remainder == half && quotient & 1 == 1));
            let Some(rounded) = quotient
                .checked_add(u128::from(up))
                .and_then(|q| q.checked_mul(unit))
            else {
                continue;
            };
            let text = digits(rounded);
            if parse_decimal(&text) == Some(magnitude) {
                return format!("{sign}{text}");
            }
        }
        return format!("{sign}{}", digits(whole));
    }
    let q = -e as u32;
    let mut text = String::new();
    for decimals in 0..=MAX_EXACT_POWER {
        // round(m × 10^d / 2^q) = round(m × 5^d / 2^(q − d)), in u128.
        let scaled = u128::from(m) * u128::from(5u64.pow(decimals));
        let shift = q.saturating_sub(decimals);
        let scaled = if q >= decimals {
            round_shift(scaled, shift)
        } else {
            scaled << (decimals - q)
        };
        text = fixed_point(scaled, decimals as usize);
        if parse_decimal(&text) == Some(magnitude) {
            break;
        }
    }
    format!("{sign}{text}")
}

/// `value / 2^shift`, rounded half to even.
fn round_shift(value: u128, shift: u32) -> u128 {
    if shift == 0 {
        return value;
    }
    if shift >= 128 {
        return 0;
    }
    let quotient = value >> shift;
    let remainder = value & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if remainder > half || (remainder == half && quotient & 1 == 1) {
        quotient + 1
    } else {
        quotient
    }
}

/// The decimal digits of `n`. Not `n.to_string()`: the standard library's
/// 128-bit integer printer costs the page 0.5 KB more than this loop.
fn digits(mut n: u128) -> String {
    let mut reversed = Vec::with_capacity(39);
    loop {
        reversed.push(b'0' + (n % 10) as u8);
        n /= 10;
        if n == 0 {
            break;
        }
    }
    reversed
        .iter()
        .rev()
        .map(|&digit| char::from(digit))
        .collect()
}

/// `scaled / 10^decimals` written out, trailing zeros of the fraction dropped.
fn fixed_point(scaled: u128, decimals: usize) -> String {
    let digits = digits(scaled);
    if decimals == 0 {
        return digits;
    }
    let padded = format!("{digits:0>width$}", width = decimals + 1);
    let (whole, fraction) = padded.split_at(padded.len() - decimals);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{fraction}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test;

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
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

    #[cfg_attr(not(target_arch = "wasm32"), test)]
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test)]
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
