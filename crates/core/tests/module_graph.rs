//! No two modules of the core import each other, directly or around a
//! circle, and each room (a top-level module) imports only rooms below it
//! (ARCHITECTURE.md, "The core's rooms"): read from the sources, each
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

/// The core's rooms (its top-level modules) from the lowest to the highest,
/// as ARCHITECTURE.md lists them: a room imports only rooms below it.
const ROOMS_FROM_THE_BOTTOM: [&str; 17] = [
    "units",
    "decimal",
    "format",
    "gpu",
    "model",
    // Serving reads the shared parts below it, never training's rooms above.
    "serve",
    "memory",
    "frameworks",
    "time",
    "config",
    "input",
    "report",
    // RL composes training's report and serving's.
    "rl",
    "plans",
    "fixes",
    // The plan as the frameworks' own configuration reads every job's figures.
    "launch",
    "json",
];

/// The rooms imported by a room's modules, each with one module that does.
fn room_imports() -> BTreeMap<String, BTreeMap<String, String>> {
    let mut modules = BTreeMap::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut modules,
    );
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let room = |m: &str| m.split("::").next().unwrap_or_default().to_string();
    let mut rooms: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (name, source) in &modules {
        let entry = rooms.entry(room(name)).or_default();
        for to in imports(source, &names) {
            if room(&to) != room(name) {
                entry.entry(room(&to)).or_insert_with(|| name.clone());
            }
        }
    }
    rooms
}

/// Each import of a room by a room not above it in `order`, in words; a
/// room missing from `order` is named too.
fn upward_imports(
    rooms: &BTreeMap<String, BTreeMap<String, String>>,
    order: &[&str],
) -> Vec<String> {
    let height = |r: &str| order.iter().position(|x| *x == r);
    let mut found = Vec::new();
    // `lib`, the crate root, is the facade: it re-exports every room.
    for (room, imported) in rooms.iter().filter(|(room, _)| *room != "lib") {
        let Some(at) = height(room) else {
            found.push(format!("room {room} has no place in the order"));
            continue;
        };
        for (to, by) in imported {
            if height(to).is_none_or(|h| h >= at) {
                found.push(format!(
                    "{by} (room {room}) imports room {to}, not below it"
                ));
            }
        }
    }
    found
}

#[test]
fn every_room_imports_only_rooms_below_it() {
    let rooms = room_imports();
    assert_eq!(
        upward_imports(&rooms, &ROOMS_FROM_THE_BOTTOM),
        Vec::<String>::new()
    );
    assert_eq!(
        rooms.len(),
        ROOMS_FROM_THE_BOTTOM.len() + 1,
        "{:?}",
        rooms.keys()
    );
}

/// The check can fail: with `config` placed above `input`, which reads it,
/// and a room left out, both are named.
#[test]
fn an_upward_import_and_a_room_without_a_place_are_found() {
    let rooms = room_imports();
    let mut order: Vec<&str> = ROOMS_FROM_THE_BOTTOM
        .iter()
        .copied()
        .filter(|r| *r != "json")
        .collect();
    let (config, input) = (
        order.iter().position(|r| *r == "config").unwrap(),
        order.iter().position(|r| *r == "input").unwrap(),
    );
    order.swap(config, input);
    let found = upward_imports(&rooms, &order);
    assert!(
        found
            .iter()
            .any(|f| f.contains("(room input) imports room config")),
        "{found:?}"
    );
    assert!(
        found.contains(&"room json has no place in the order".to_string()),
        "{found:?}"
    );
}
