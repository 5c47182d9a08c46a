//! Real launch scripts and configurations (`tests/inputs/`, each with its
//! source in `inputs.json`) read by the importer (issue 66): the keys each
//! must give, and exactly what it must leave unread, nothing guessed.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Deserialize)]
struct Inputs {
    inputs: Vec<Input>,
}

#[derive(Deserialize)]
struct Input {
    file: String,
    source: String,
    kind: String,
    keys: BTreeMap<String, String>,
    unread: Vec<String>,
}

fn inputs() -> Inputs {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/inputs/inputs.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_real_input_gives_its_keys_and_says_what_it_did_not_read() {
    let inputs = inputs();
    let mut failures = Vec::new();
    for input in &inputs.inputs {
        assert!(input.source.starts_with("https://"), "{}", input.file);
        let path = format!("{}/tests/inputs/{}", env!("CARGO_MANIFEST_DIR"), input.file);
        let text = std::fs::read_to_string(&path).unwrap();
        let imported = vram_launch::import::import_launch(&text)
            .unwrap_or_else(|e| panic!("{}: {e:?}", input.file));
        let kind = format!("{:?}", imported.engine).to_lowercase();
        assert!(kind.contains(&input.kind), "{}: {kind}", input.file);
        let query = imported.query();
        let given: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        for (key, value) in &input.keys {
            if given.get(key) != Some(value) {
                failures.push(format!("{}: {key}={value} not in {query}", input.file));
            }
        }
        let unread: Vec<&str> = imported
            .unread
            .iter()
            .map(|u| u.split([' ', ':']).next().unwrap_or_default())
            .collect();
        if unread != input.unread {
            failures.push(format!(
                "{}: unread {unread:?}: {:?}",
                input.file, imported.unread
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(!inputs.inputs.is_empty());
}
