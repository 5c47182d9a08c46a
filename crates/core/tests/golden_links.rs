//! The shared-link contract, pinned: every link in `links.golden` must keep
//! decoding to the same configuration and the same problem keys, forever.
//!
//! Each line of `links.golden`: the query as a user might have it, a tab, the
//! canonical encoding of the configuration it decoded to when the line was
//! written, a tab, the keys that were set aside (comma-separated, `-` for none),
//! a tab, and the configuration itself as it was decoded then, written without
//! the link codec: every leaf of `Config`'s `Debug` form that differs from
//! `links.default` (the default configuration's leaves when the file was
//! started, one `path=value` a line), `;`-separated, `-` for none. The query
//! must still decode to what that encoding decodes to, and to those leaves:
//! so a value that changed meaning on both sides of the codec (`stage=2`
//! decoded and encoded as ZeRO-3) fails here too. Keys and fields added to the
//! contract since then take their defaults, so a line never needs rewriting
//! when the contract grows; a field renamed in `Config` does need it (say so in
//! the commit). To add a link, append a line with `?` in place of the two
//! expectations and run the test with `VRAM_BLESS_NEW_LINKS=1`: only such lines
//! are filled in (and a line without its fourth field gets it, once, if its
//! link still means what it did); an existing line is never rewritten. One exception, for values the link refused: a line that
//! tried a then-unknown value (`gpu=b300` before the B300 preset) moves to a
//! value still unknown (`gpu=b900`) when the first gains a meaning, since the
//! page never wrote a refused value into a link; so did LoRA on every linear
//! of Mixtral (`targets=all`, refused until PEFT's fused experts were
//! counted), now tried with QLoRA, still refused; and `?v=2&params=13`, a
//! then-unknown version, moved to `v=3` when version 2 came (issue 48) and
//! to `v=4` when version 3 came (issue 60); and
//! `kv_dtype=fp8` on an A100, refused for vLLM until vLLM's Triton attention
//! was found to serve it there (issue 60), is now tried under TensorRT-LLM
//! (`engine=trtllm`), which still refuses it. A
//! field the architecture gains that a preset always had (Gemma 2's sliding
//! window, issue 48) is that preset's: a new leaf under `model.architecture`
//! holding the named preset's own value is no change; nor is a new leaf of
//! the model's own settings (`recompute_modules`, issue 48) at the value a
//! fresh model of the named preset takes; nor is `serve.vllm_release` at
//! 0.20.0, the release every serving and RL link was written under before
//! `engine_version` (issue 60). A failure here means a change altered what a shared link
//! means: undo it, or give the new meaning a new key or version.

use std::collections::BTreeMap;
use std::path::Path;

use vram_core::input::link::{decode, encode};
use vram_core::Config;

/// The leaves of `config`'s pretty `Debug` form by path (`model.architecture.layers`
/// → `80`; a tuple's or list's items by index): plain data, read without the link
/// codec. Of the presets only their ids: a preset's published figures may be
/// corrected without a link changing what it asks for.
fn leaves(config: &Config) -> BTreeMap<String, String> {
    let text = format!("{config:#?}");
    let mut path: Vec<String> = Vec::new();
    let mut items: Vec<usize> = vec![0];
    let mut out = BTreeMap::new();
    for line in text.lines().skip(1) {
        let line = line.trim().trim_end_matches(',');
        let (name, value) = match line.split_once(": ") {
            Some((name, value)) if !name.contains([' ', '"']) => (name.to_string(), value),
            _ => {
                let index = items.last_mut().expect("a level");
                *index += 1;
                (format!("{}", *index - 1), line)
            }
        };
        if matches!(value, "}" | ")" | "]") {
            path.pop();
            items.pop();
            continue;
        }
        if value.ends_with(['{', '(', '[']) {
            // `Some(` and a struct's name say nothing a leaf does not.
            path.push(name);
            items.push(0);
            continue;
        }
        let mut full: Vec<&str> = path
            .iter()
            .map(String::as_str)
            .filter(|p| p.parse::<usize>().is_err())
            .collect();
        full.push(&name);
        let joined = full.join(".");
        let in_preset = ["model.base.", "gpu."]
            .iter()
            .any(|p| joined.starts_with(p));
        if in_preset && !joined.ends_with(".id") {
            continue;
        }
        out.insert(joined, value.to_string());
    }
    out
}

/// A leaf's value that says "nothing": zero, false, none.
fn is_nothing(value: &str) -> bool {
    matches!(value, "0" | "0.0" | "false" | "None")
}

/// `leaves` as a golden line's fourth field: those that differ from `default`,
/// less those the default does not have whose value is nothing (a model's
/// unused experts, latent attention … ), which a check reads back as such.
fn written(leaves: &BTreeMap<String, String>, default: &BTreeMap<String, String>) -> String {
    let differing: Vec<String> = leaves
        .iter()
        .filter(|(k, v)| default.get(*k) != Some(v))
        .filter(|(k, v)| default.contains_key(*k) || !is_nothing(v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if differing.is_empty() {
        "-".into()
    } else {
        differing.join(";")
    }
}

/// What differs between a line's stored leaves (on `stored_default`) and what
/// the query decodes to today; a leaf the line does not name must say nothing
/// ([`is_nothing`]) or hold today's default.
fn leaf_differences(
    stored: &str,
    stored_default: &BTreeMap<String, String>,
    today: &BTreeMap<String, String>,
    today_default: &BTreeMap<String, String>,
    preset: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut expected = stored_default.clone();
    if stored != "-" {
        for pair in stored.split(';') {
            let (k, v) = pair.split_once('=').expect("path=value");
            expected.insert(k.to_string(), v.to_string());
        }
    }
    // A default `None` that the line gave a value (`model=None` → `model.…`).
    let branches: Vec<String> = expected
        .keys()
        .filter(|k| {
            expected
                .keys()
                .any(|other| other.starts_with(&format!("{k}.")))
        })
        .cloned()
        .collect();
    for branch in branches {
        expected.remove(&branch);
    }
    let mut differences = Vec::new();
    for (k, v) in &expected {
        match today.get(k) {
            Some(now) if now == v => {}
            now => differences.push(format!(
                "{k}: was {v}, now {}",
                now.map_or("(gone)", String::as_str)
            )),
        }
    }
    for (k, now) in today {
        // A field the architecture gained that the named preset always had
        // (Gemma 2's sliding window): the preset's own value is the preset.
        let the_presets = k.starts_with("model.architecture.") && preset.get(k) == Some(now);
        // A field the model gained after the line (`recompute_modules`,
        // issue 48) at the default a fresh model of the preset has.
        let a_new_default = k.starts_with("model.")
            && !k.starts_with("model.architecture.")
            && preset.get(&format!("fresh:{k}")) == Some(now);
        // The vLLM release a serving or RL link was written under, before
        // `engine_version` (issue 60): 0.20.0, the only one there was.
        let its_release = k == "serve.vllm_release" && now == "V0_20_0";
        if !expected.contains_key(k)
            && !is_nothing(now)
            && today_default.get(k) != Some(now)
            && !the_presets
            && !a_new_default
            && !its_release
        {
            differences.push(format!(
                "{k}: new, {now} where its default is {:?}",
                today_default.get(k)
            ));
        }
    }
    differences
}

/// `links.default`: the default configuration's leaves when the file was
/// started, written once (`VRAM_BLESS_NEW_LINKS=1` writes it if absent).
fn stored_default(bless: bool) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/links.default");
    if !path.exists() && bless {
        let lines: Vec<String> = leaves(&Config::default())
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let header = "# The default configuration's leaves (golden_links.rs), as the golden links were first checked against them.\n";
        std::fs::write(&path, header.to_string() + &lines.join("\n") + "\n")
            .expect("write links.default");
    }
    let text = std::fs::read_to_string(&path).expect("tests/links.default");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once('=').expect("path=value");
            (k.to_string(), v.to_string())
        })
        .collect()
}

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
    let default = stored_default(bless);
    let today_default = leaves(&Config::default());
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            blessed.push(line.to_string());
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let (query, config, problems, stored) = match fields[..] {
            [query, config, problems, stored] => (query, config, problems, Some(stored)),
            // A line from before the fourth field: filled in once when blessing.
            [query, config, problems] => (query, config, problems, None),
            _ => panic!(
                "line {}: expected 4 tab-separated fields: {line:?}",
                number + 1
            ),
        };
        let (actual_config, actual_problems) = expectation(query);
        let today = leaves(&decode(query).config);
        if config == "?" && problems == "?" && bless {
            let stored = written(&today, &default);
            blessed.push(format!(
                "{query}\t{actual_config}\t{actual_problems}\t{stored}"
            ));
            continue;
        }
        checked += 1;
        let pinned = decode(config);
        let now = decode(query).config;
        let same_meaning = pinned.problems.is_empty() && pinned.config == now;
        if !same_meaning || problems != actual_problems {
            failures.push(format!(
                "line {}: {query:?}\n  was  {config}  [{problems}]\n  now  {actual_config}  [{actual_problems}]",
                number + 1
            ));
        }
        match stored {
            Some(stored) => {
                // The named preset's own architecture, as leaves.
                let decoded = decode(query).config;
                let preset = leaves(&Config {
                    model: decoded.model.map(|m| vram_core::config::ModelSpec {
                        architecture: m.base.architecture,
                        ..m
                    }),
                    ..decoded
                });
                // And a fresh model of that preset: the defaults a field the
                // model gained (`recompute_modules`) takes.
                let fresh = leaves(&Config {
                    model: decoded
                        .model
                        .map(|m| vram_core::config::ModelSpec::of(m.base)),
                    ..decoded
                });
                let preset = preset
                    .into_iter()
                    .chain(
                        fresh
                            .into_iter()
                            .filter(|(k, _)| !k.starts_with("model.architecture."))
                            .map(|(k, v)| (format!("fresh:{k}"), v)),
                    )
                    .collect();
                let differences =
                    leaf_differences(stored, &default, &today, &today_default, &preset);
                if !differences.is_empty() {
                    failures.push(format!(
                        "line {}: {query:?} decodes to another configuration:\n  {}",
                        number + 1,
                        differences.join("\n  ")
                    ));
                }
                blessed.push(line.to_string());
            }
            None if bless && same_meaning => {
                blessed.push(format!("{line}\t{}", written(&today, &default)))
            }
            None => failures.push(format!("line {}: no stored configuration", number + 1)),
        }
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
