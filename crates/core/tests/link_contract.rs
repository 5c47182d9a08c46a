//! The link contract over every key and every preset (issue 41): whatever a
//! link holds, the link the page writes back for it decodes to the same
//! configuration, without a problem, and writing it again gives the same text.
//!
//! Not random: every model preset (and no model) × every GPU preset's memory
//! × every key × the values its declaration names (its limits, their
//! neighbours, a middle value, each choice, each preset, the dense default 0).
//! Native only: tens of thousands of reports, and proptest does not target wasm32.
#![cfg(not(target_arch = "wasm32"))]

use vram_core::input::link::{decode, encode};
use vram_core::input::Value;
use vram_core::model::presets::MODEL_PRESETS;
use vram_core::Field;

/// The texts worth trying for `field`: the edges of what it accepts, just
/// inside and outside them, a middle value, every choice and preset.
fn texts(field: Field) -> Vec<String> {
    match field.declaration().value {
        Value::Number {
            limits,
            whole,
            resolution,
            ..
        } => {
            let mut values = vec![
                limits.min,
                limits.max,
                (limits.min + limits.max) / 2.0,
                0.0,
                1.0,
                2.0,
                4.0,
                8.0,
                64.0,
                0.5,
            ];
            if let Some(step) = resolution {
                values.push(step);
            }
            if whole {
                values.push(limits.min + 1.0);
                values.push(limits.max - 1.0);
                values.iter_mut().for_each(|v| *v = v.floor());
            }
            values
                .into_iter()
                .filter(|v| limits.contains(*v))
                .map(|v| format!("{v}"))
                .collect()
        }
        Value::Choice(choices) => choices.iter().map(|c| c.to_string()).collect(),
        Value::List(items) => {
            let mut lists: Vec<String> = items.iter().map(|i| i.to_string()).collect();
            lists.push(items.join(","));
            lists
        }
        Value::Preset => field.preset_ids().iter().map(|id| id.to_string()).collect(),
        // Megatron-LM's own layouts (its user guide's, Megatron-Bridge's),
        // one it refuses, and none.
        Value::Text { .. } => ["Et*3|(tt|)*29,m|L", "Et|(tt|)*30mL", "Et|t|tL", "tE|L", ""]
            .map(String::from)
            .to_vec(),
    }
}

/// The links the test starts from: no model and every model preset, each once
/// on its own and once with a GPU preset, mixture layouts and fine-tuning.
fn bases() -> Vec<String> {
    let mut bases = vec![String::new(), "gpu=h100-80gb&stage=3".to_string()];
    for model in MODEL_PRESETS {
        bases.push(format!("model={}", model.id));
        bases.push(format!("model={}&gpu=h800&nodes=2&tp=2&stage=2", model.id));
    }
    bases
}

/// `link` decodes to a configuration whose own link decodes to it again, with
/// no problem, and is written the same way twice.
fn holds(link: &str) -> Result<(), String> {
    let first = decode(link).config;
    let written = encode(&first);
    let again = decode(&written);
    if !again.problems.is_empty() {
        let problems: Vec<String> = again.problems.iter().map(|p| p.to_string()).collect();
        return Err(format!(
            "{link}\n  wrote {written}\n  which reads with {problems:?}"
        ));
    }
    if again.config != first {
        return Err(format!(
            "{link}\n  wrote {written}\n  which decodes to another configuration:\n  {:?}\n  not\n  {:?}",
            again.config, first
        ));
    }
    let rewritten = encode(&again.config);
    if rewritten != written {
        return Err(format!("{link}\n  wrote {written}\n  then {rewritten}"));
    }
    Ok(())
}

#[test]
fn every_key_on_every_preset_round_trips() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for base in bases() {
        for field in Field::ALL {
            for text in texts(field) {
                let link = match base.is_empty() {
                    true => format!("{}={text}", field.key()),
                    false => format!("{base}&{}={text}", field.key()),
                };
                checked += 1;
                if let Err(failure) = holds(&link) {
                    failures.push(failure);
                }
            }
        }
    }
    assert!(checked > 50_000, "only {checked} links checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} links do not round-trip; the first ten:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

/// Two keys at once, each beyond-dense key with the one that gives it a
/// meaning, on every mixture preset: a link takes the user's own architecture.
#[test]
fn a_preset_taken_back_to_a_dense_model_stays_dense() {
    for model in MODEL_PRESETS
        .iter()
        .filter(|m| m.architecture.moe.experts > 0)
    {
        let link = format!("model={}&experts=0", model.id);
        let decoded = decode(&link).config;
        let spec = decoded.model.expect("a model");
        assert_eq!(spec.architecture.moe.experts, 0, "{link}");
        let preset = decode(&format!("model={}", model.id)).config;
        let back = decode(&encode(&decoded)).config;
        assert_eq!(back, decoded, "{link}: {}", encode(&decoded));
        assert!(
            back.params_billions < preset.params_billions,
            "{link}: {} B, the preset has {} B",
            back.params_billions,
            preset.params_billions
        );
    }
}

mod random {
    use super::*;
    use proptest::prelude::*;

    /// A link of a base and up to eight keys, each at one of its telling values.
    fn any_link() -> impl Strategy<Value = String> {
        let pairs: Vec<(Field, String)> = Field::ALL
            .into_iter()
            .flat_map(|field| texts(field).into_iter().map(move |text| (field, text)))
            .collect();
        (
            prop::sample::select(bases()),
            prop::collection::vec(prop::sample::select(pairs), 1..8),
        )
            .prop_map(|(base, pairs)| {
                let mut link = base;
                for (field, text) in pairs {
                    link.push('&');
                    link.push_str(field.key());
                    link.push('=');
                    link.push_str(&text);
                }
                link
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4_000))]

        /// Several keys at once, the rules between them included.
        #[test]
        fn any_keys_together_round_trip(link in any_link()) {
            if let Err(failure) = holds(&link) {
                prop_assert!(false, "{}", failure);
            }
        }
    }
}
