//! The shared-link contract, pinned: every link in `links.golden` must keep
//! decoding to the same configuration and the same problem keys, forever.
//!
//! Each line of `links.golden`: the query as a user might have it, a tab, the
//! canonical encoding of the configuration it decoded to when the line was
//! written, a tab, the keys that were set aside (comma-separated, `-` for none).
//! The query must still decode to what that encoding decodes to: keys added to
//! the contract since then take their defaults in both, so a line never needs
//! rewriting when the contract grows. To add a link, append a line
//! with `?` in place of the two expectations and run the test with
//! `VRAM_BLESS_NEW_LINKS=1`: only such lines are filled in; an existing line is
//! never rewritten. One exception, for values the link refused: a line that
//! tried a then-unknown value (`gpu=b300` before the B300 preset) moves to a
//! value still unknown (`gpu=b900`) when the first gains a meaning, since the
//! page never wrote a refused value into a link; so did LoRA on every linear
//! of Mixtral (`targets=all`, refused until PEFT's fused experts were
//! counted), now tried with QLoRA, still refused. A failure here means a change altered what a shared link
//! means: undo it, or give the new meaning a new key or version.

use std::path::Path;

use vram_core::input::link::{decode, encode};

fn expectation(query: &str) -> (String, String) {
    let decoded = decode(query);
    let keys: Vec<&str> = decoded.problems.iter().map(|p| p.key.as_str()).collect();
    let keys = if keys.is_empty() {
        "-".to_string()
    } else {
        keys.join(",")
    };
    (encode(&decoded.config), keys)
}

#[test]
fn every_golden_link_still_decodes_the_same() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/links.golden");
    let text = std::fs::read_to_string(&path).expect("tests/links.golden");
    let bless = std::env::var_os("VRAM_BLESS_NEW_LINKS").is_some();
    let mut blessed = Vec::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            blessed.push(line.to_string());
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [query, config, problems] = fields[..] else {
            panic!(
                "line {}: expected 3 tab-separated fields: {line:?}",
                number + 1
            );
        };
        let (actual_config, actual_problems) = expectation(query);
        if config == "?" && problems == "?" && bless {
            blessed.push(format!("{query}\t{actual_config}\t{actual_problems}"));
            continue;
        }
        checked += 1;
        let pinned = decode(config);
        let same_meaning = pinned.problems.is_empty() && pinned.config == decode(query).config;
        if !same_meaning || problems != actual_problems {
            failures.push(format!(
                "line {}: {query:?}\n  was  {config}  [{problems}]\n  now  {actual_config}  [{actual_problems}]",
                number + 1
            ));
        }
        blessed.push(line.to_string());
    }
    if bless {
        std::fs::write(&path, blessed.join("\n") + "\n").expect("write links.golden");
    }
    assert!(
        failures.is_empty(),
        "shared links changed meaning:\n{}",
        failures.join("\n")
    );
    assert!(checked >= 40, "only {checked} golden links were checked");
}
