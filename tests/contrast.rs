//! Text contrast of both themes, from the style sheet itself: every pair of a
//! text colour and a ground it is drawn on reaches WCAG 2.1 level AA (4.5:1).

use std::collections::HashMap;

/// The custom properties (`--name: #rrggbb`) of the first rule whose selector is `selector`.
fn palette(css: &str, selector: &str) -> HashMap<String, String> {
    let start = css
        .find(&format!("{selector} {{"))
        .unwrap_or_else(|| panic!("no rule {selector}"));
    let body = &css[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.split(';')
        .filter_map(|declaration| {
            let (name, value) = declaration.split_once(':')?;
            let (name, value) = (name.trim(), value.trim());
            (name.starts_with("--") && value.starts_with('#'))
                .then(|| (name.to_string(), value.to_string()))
        })
        .collect()
}

/// Relative luminance of `#rrggbb` (WCAG 2.1).
fn luminance(hex: &str) -> f64 {
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex colour")) / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// Text colours and the grounds the page draws them on.
const PAIRS: &[(&str, &str)] = &[
    ("--ink", "--bg"),
    ("--ink", "--panel"),
    ("--ink", "--highlight"),
    ("--ink", "--fits-bg"),
    ("--ink", "--bad-bg"),
    ("--ink", "--warn-bg"),
    ("--muted", "--bg"),
    ("--muted", "--panel"),
    ("--muted", "--highlight"),
    ("--accent", "--panel"),
    ("--accent", "--highlight"),
    ("--fits", "--panel"),
    ("--fits", "--fits-bg"),
    ("--fits", "--highlight"),
    ("--bad", "--panel"),
    ("--bad", "--bad-bg"),
    ("--bad", "--highlight"),
    ("--on-accent", "--accent"),
];

#[test]
fn every_text_colour_reaches_wcag_aa_in_both_themes() {
    let css = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../web/style.css"))
        .expect("web/style.css");
    let light = palette(&css, ":root");
    let dark = palette(&css, ":root[data-theme=\"dark\"]");
    for (theme, colours) in [("light", &light), ("dark", &dark)] {
        for (text, ground) in PAIRS {
            let ratio = contrast(&colours[*text], &colours[*ground]);
            assert!(
                ratio >= 4.5,
                "{theme}: {text} on {ground} is {ratio:.2}:1, below 4.5:1"
            );
        }
    }
    // The system's dark theme (prefers-color-scheme) repeats the forced one exactly.
    let auto_dark = palette(&css, "  :root:not([data-theme=\"light\"])");
    assert_eq!(auto_dark, dark);
}
