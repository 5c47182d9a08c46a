//! No two modules of the core import each other, directly or around a
//! circle (ARCHITECTURE.md, "The core's rooms"): read from the sources, each
//! module's `crate::…` paths outside comments and tests, resolved to the module
//! that holds them.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module's name (`memory::parallel`) and source, under `dir`.
fn sources(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src") {
        let path = entry.expect("entry").path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            sources(&path, &format!("{prefix}{stem}::"), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = match stem.as_str() {
                "mod" => prefix.trim_end_matches("::").to_string(),
                "lib" => "lib".to_string(),
                _ => format!("{prefix}{stem}"),
            };
            out.insert(name, std::fs::read_to_string(&path).expect("source"));
        }
    }
}

/// The modules `source` imports: each `crate::a::b` path outside comments
/// and `#[cfg(test)]` code, as the longest known module it names.
fn imports(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    let mut found = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            let path: String = line[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let module = (1..=parts.len())
                .rev()
                .map(|n| parts[..n].join("::"))
                .find(|m| modules.contains(m));
            if let Some(module) = module {
                found.insert(module);
            }
        }
    }
    found
}

#[test]
fn the_cores_modules_import_each_other_in_no_circle() {
    let mut modules = BTreeMap::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut modules,
    );
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let graph: BTreeMap<&String, BTreeSet<String>> = modules
        .iter()
        .map(|(name, source)| {
            let mut to = imports(source, &names);
            to.remove(name);
            (name, to)
        })
        .collect();
    assert!(graph.len() > 30, "only {} modules found", graph.len());
    // Depth-first search; a module met again while on the path closes a circle.
    fn visit<'a>(
        module: &'a str,
        graph: &'a BTreeMap<&String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let mut circle: Vec<String> = path[at..].iter().map(|m| m.to_string()).collect();
            circle.push(module.to_string());
            return Some(circle);
        }
        if !done.insert(module) {
            return None;
        }
        path.push(module);
        for next in graph.get(&module.to_string()).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        if let Some(circle) = visit(module, &graph, &mut Vec::new(), &mut done) {
            panic!(
                "the core's modules import around a circle: {}",
                circle.join(" -> ")
            );
        }
    }
}
