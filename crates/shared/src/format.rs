//! Numbers formatted for people: `38.5 GB`, `26.25 GB`, `4 B`.
//!
//! Shared by every front end so that the page and any other tool print the same
//! figures. Rules: at most two decimals for values of 1 and above, three
//! significant digits below 1, trailing zeros dropped, thousands grouped with
//! commas; a unit prefix is chosen so the number stays readable.

use crate::units::{Bytes, ParamCount, BYTES_PER_GB, BYTES_PER_GIB};

/// Which family of units memory is shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MemoryUnit {
    /// Decimal: MB, GB, TB, PB (powers of 10^3), as the lesson and GPU names use.
    #[default]
    Gb,
    /// Binary: MiB, GiB, TiB, PiB (powers of 2^10), as nvidia-smi and DeepSpeed count.
    Gib,
}

impl MemoryUnit {
    /// Both units, in the order the page lists them.
    pub const ALL: [MemoryUnit; 2] = [MemoryUnit::Gb, MemoryUnit::Gib];

    /// The value in the shared link's `unit` key.
    pub const fn key(self) -> &'static str {
        match self {
            MemoryUnit::Gb => "gb",
            MemoryUnit::Gib => "gib",
        }
    }

    /// The name people read, with what it means.
    pub const fn label(self) -> &'static str {
        match self {
            MemoryUnit::Gb => "GB (10^9 bytes)",
            MemoryUnit::Gib => "GiB (2^30 bytes)",
        }
    }

    /// The unit's base (GB or GiB) in bytes.
    pub const fn bytes(self) -> f64 {
        match self {
            MemoryUnit::Gb => BYTES_PER_GB,
            MemoryUnit::Gib => BYTES_PER_GIB,
        }
    }

    /// The base unit's symbol: `GB` or `GiB`.
    pub const fn symbol(self) -> &'static str {
        match self {
            MemoryUnit::Gb => "GB",
            MemoryUnit::Gib => "GiB",
        }
    }

    /// Symbols from bytes to 10^6 of the base unit, one step apart.
    const fn ladder(self) -> [&'static str; 6] {
        match self {
            MemoryUnit::Gb => ["B", "kB", "MB", "GB", "TB", "PB"],
            MemoryUnit::Gib => ["B", "KiB", "MiB", "GiB", "TiB", "PiB"],
        }
    }

    /// Ratio between neighbouring steps of the ladder.
    const fn step(self) -> f64 {
        match self {
            MemoryUnit::Gb => 1000.0,
            MemoryUnit::Gib => 1024.0,
        }
    }
}

/// Index of GB (GiB) on the ladder.
const BASE_STEP: usize = 3;

/// A memory amount with its unit: in GB (or GiB) from 0.01 to below 10,000 of
/// them, so a table stays comparable; below, the largest smaller unit that
/// gives at least 1 (`12.3 MB`, `15.26 B`); above, TB (TiB) up to 10,000 of
/// them, then PB (PiB): `38.5 GB`, `12.5 TB`, `16 PB`.
pub fn format_bytes(bytes: Bytes, unit: MemoryUnit) -> String {
    format_bytes_like(bytes, unit, bytes)
}

/// `bytes` in the unit [`format_bytes`] gives `like`: a column of a table in
/// one unit, that of its largest figure (`0.0063 GB` under `0.0503 GB`, not
/// `6.29 MB`).
pub fn format_bytes_like(bytes: Bytes, unit: MemoryUnit, like: Bytes) -> String {
    let ladder = unit.ladder();
    let step = unit.step();
    let magnitude = (like.get() / unit.bytes()).abs();
    let mut index = BASE_STEP;
    let mut scale = 1.0;
    if magnitude == 0.0 || !magnitude.is_finite() || (0.01..10_000.0).contains(&magnitude) {
        // GB as it is.
    } else if magnitude < 0.01 {
        while index > 0 && magnitude * scale < 1.0 {
            scale *= step;
            index -= 1;
        }
    } else {
        while index + 1 < ladder.len() && magnitude / scale >= 10_000.0 {
            scale *= step;
            index += 1;
        }
        scale = 1.0 / scale;
    }
    let value = bytes.get() / unit.bytes() * scale;
    format!("{} {}", format_number(value), ladder[index])
}

/// A parameter count: `4 B`, `1.5 T`, `350 M`, `312.5 K`, or a plain count below a thousand.
pub fn format_params(params: ParamCount) -> String {
    let count = params.get();
    let magnitude = count.abs();
    let (value, suffix) = if !magnitude.is_finite() {
        (count, "")
    } else if (1e9..1e12).contains(&magnitude) {
        (params.billions(), " B")
    } else if magnitude >= 1e12 {
        (count / 1e12, " T")
    } else if magnitude >= 1e6 {
        (count / 1e6, " M")
    } else if magnitude >= 1e3 {
        (count / 1e3, " K")
    } else {
        (count, "")
    };
    format!("{}{suffix}", format_number(value))
}

/// A plain number: two decimals at most from 1 up, three significant digits
/// below 1, no trailing zeros, thousands grouped: `26.25`, `0.0123`, `12,345.6`.
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() {
            "–".into()
        } else if value > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    let magnitude = value.abs();
    let decimals = if magnitude >= 1.0 || magnitude == 0.0 {
        2
    } else {
        // Three significant digits: 0.5 → 3 decimals, 0.0123 → 4.
        (2 - magnitude.log10().floor() as i32).clamp(2, 17) as usize
    };
    // Rounded with integers: Rust's fixed-precision float formatting would add
    // several kilobytes to the page's WebAssembly for no visible difference.
    let scaled = (magnitude * 10f64.powi(decimals as i32)).round();
    let fixed = if scaled < 9.0e15 {
        let unit = 10u64.pow(decimals as u32);
        let scaled = scaled as u64;
        format!(
            "{}.{:0width$}",
            scaled / unit,
            scaled % unit,
            width = decimals
        )
    } else {
        // Past 2^53 no decimal is significant: the whole part, as Rust prints it.
        crate::decimal::shortest_decimal(magnitude.round())
    };
    let trimmed = if fixed.contains('.') {
        fixed.trim_end_matches('0').trim_end_matches('.')
    } else {
        fixed.as_str()
    };
    let (whole, fraction) = trimmed.split_once('.').unwrap_or((trimmed, ""));
    let mut grouped = String::with_capacity(trimmed.len() + whole.len() / 3 + 1);
    if value < 0.0 && trimmed != "0" {
        grouped.push('−');
    }
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if !fraction.is_empty() {
        grouped.push('.');
        grouped.push_str(fraction);
    }
    grouped
}

/// A duration: `1.23 s`, `367.5 ms`, `12 µs`.
pub fn format_seconds(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1.0 || seconds == 0.0 || !seconds.is_finite() {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else {
        (seconds * 1e6, "µs")
    };
    format!("{} {unit}", format_number(value))
}

/// A fraction as a percentage: `0.2` → `20 %`.
pub fn format_percent(fraction: f64) -> String {
    format!("{} %", format_number(fraction * 100.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// `gigabytes` (10^9 bytes) as the page writes them in the GB unit.
    fn gb(gigabytes: f64) -> String {
        format_bytes(Bytes::from_gb(gigabytes), MemoryUnit::Gb)
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn lesson_figures_read_as_the_lesson_writes_them() {
        for (gigabytes, shown) in [
            (112.0, "112 GB"),
            (38.5, "38.5 GB"),
            (26.25, "26.25 GB"),
            (14.0, "14 GB"),
        ] {
            assert_eq!(gb(gigabytes), shown);
        }
        for (billions, shown) in [(4.0, "4 B"), (32.0, "32 B"), (64.0 / 5.5, "11.64 B")] {
            assert_eq!(format_params(ParamCount::from_billions(billions)), shown);
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn units_scale_for_extreme_values() {
        for (bytes, unit, shown) in [
            (Bytes::from_gb(16e6), MemoryUnit::Gb, "16 PB"),
            (Bytes::from_gb(12_500.0), MemoryUnit::Gb, "12.5 TB"),
            (Bytes::from_gb(9_999.0), MemoryUnit::Gb, "9,999 GB"),
            (Bytes::from_gb(0.0123), MemoryUnit::Gb, "0.0123 GB"),
            (Bytes::from_gb(0.001_234), MemoryUnit::Gb, "1.23 MB"),
            (Bytes::new(15.258_789), MemoryUnit::Gb, "15.26 B"),
            (Bytes::new(0.5), MemoryUnit::Gb, "0.5 B"),
            (Bytes::from_gb(16e9), MemoryUnit::Gb, "16,000 PB"),
            (Bytes::from_gb(0.0), MemoryUnit::Gb, "0 GB"),
            (Bytes::from_gb(80.0), MemoryUnit::Gib, "74.51 GiB"),
            (Bytes::new(2.0 * 1024.0 * 1024.0), MemoryUnit::Gib, "2 MiB"),
        ] {
            assert_eq!(format_bytes(bytes, unit), shown);
        }
        for (params, shown) in [
            (ParamCount::new(312_500.0), "312.5 K"),
            (ParamCount::new(999.0), "999"),
            (ParamCount::from_billions(0.35), "350 M"),
            (ParamCount::from_billions(1500.0), "1.5 T"),
            (ParamCount::from_billions(1e6), "1,000 T"),
        ] {
            assert_eq!(format_params(params), shown);
        }
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn durations_pick_their_unit() {
        assert_eq!(format_seconds(0.3675), "367.5 ms");
        assert_eq!(format_seconds(2.5), "2.5 s");
        assert_eq!(format_seconds(0.0), "0 s");
        assert_eq!(format_seconds(1.2e-5), "12 µs");
    }

    #[wasm_bindgen_test(unsupported = test)]
    fn numbers_drop_trailing_zeros_and_group_thousands() {
        assert_eq!(format_number(1234567.891), "1,234,567.89");
        assert_eq!(format_number(100.0), "100");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(format_number(0.123456), "0.123");
        assert_eq!(format_number(-2.5), "−2.5");
        assert_eq!(format_number(f64::NAN), "–");
        assert_eq!(format_percent(0.2), "20 %");
        assert_eq!(format_percent(0.125), "12.5 %");
    }
}

/// The page's colours: the system's choice, or one forced by the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Theme {
    /// Follow the system (`prefers-color-scheme`).
    #[default]
    Auto,
    /// Dark text on light ground.
    Light,
    /// Light text on dark ground.
    Dark,
}

impl Theme {
    /// Every choice, in the order the page lists them.
    pub const ALL: [Theme; 3] = [Theme::Auto, Theme::Light, Theme::Dark];

    /// The value in the shared link's `theme` key.
    pub const fn key(self) -> &'static str {
        match self {
            Theme::Auto => "auto",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// The name people read.
    pub const fn label(self) -> &'static str {
        match self {
            Theme::Auto => "as the system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// The page's language: the browser's, or one chosen by the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// The browser's preferred language (Chinese if it starts with `zh`, else English).
    #[default]
    Auto,
    /// Simplified Chinese.
    Zh,
    /// English.
    En,
}

impl Lang {
    /// Every choice, in the order the page lists them.
    pub const ALL: [Lang; 3] = [Lang::Auto, Lang::Zh, Lang::En];

    /// The value in the shared link's `lang` key.
    pub const fn key(self) -> &'static str {
        match self {
            Lang::Auto => "auto",
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    /// The language to show: this one, or for `Auto` the first of the browser's
    /// preferred languages (BCP 47 tags, like `navigator.languages`) that the page has.
    pub fn resolve<'a>(self, preferred: impl IntoIterator<Item = &'a str>) -> Lang {
        match self {
            Lang::Auto => preferred
                .into_iter()
                .find_map(|tag| {
                    let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
                    match primary.as_str() {
                        "zh" => Some(Lang::Zh),
                        "en" => Some(Lang::En),
                        _ => None,
                    }
                })
                .unwrap_or(Lang::En),
            chosen => chosen,
        }
    }
}

#[cfg(test)]
mod lang_tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test(unsupported = test)]
    fn the_browsers_first_known_language_wins() {
        assert_eq!(Lang::Auto.resolve(["zh-CN", "en"]), Lang::Zh);
        assert_eq!(Lang::Auto.resolve(["zh-Hant-TW"]), Lang::Zh);
        assert_eq!(Lang::Auto.resolve(["fr-FR", "en-GB", "zh"]), Lang::En);
        assert_eq!(Lang::Auto.resolve(["de"]), Lang::En);
        assert_eq!(Lang::Auto.resolve([]), Lang::En);
        assert_eq!(Lang::Zh.resolve(["en-US"]), Lang::Zh);
    }
}
