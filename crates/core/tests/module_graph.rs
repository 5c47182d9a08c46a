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

/// `source` without its test code: each item under `#[cfg(test)]` (a
/// `mod tests;` line, or a block to its closing brace) taken out, and what
/// follows it kept. (Cutting at the first `#[cfg(test)]`, as this did before,
/// left everything after a test module unchecked.)
fn without_tests(source: &str) -> String {
    let mut code = String::new();
    let mut rest = source;
    while let Some(at) = rest.find("#[cfg(test)]") {
        code.push_str(&rest[..at]);
        let item = &rest[at..];
        // The item ends at its first `;` outside braces, or at the brace that
        // closes its first block.
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    code.push_str(rest);
    code
}

/// The paths a `crate::` at the start of `text` names, its braces expanded:
/// `crate::a::{b, c::d}` names `a::b` and `a::c::d`.
fn crate_paths(text: &str) -> Vec<String> {
    fn expand(prefix: &str, text: &str, out: &mut Vec<String>) {
        let head: String = text
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let after = &text[head.len()..];
        let prefix = format!("{prefix}{head}");
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 1usize;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        expand(&prefix, group[start..i].trim_start(), out);
                        start = i + 1;
                        if c == '}' {
                            return;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
        } else {
            out.push(prefix);
        }
    }
    let mut out = Vec::new();
    expand("", text, &mut out);
    out
}

/// The modules `source` imports: each `crate::a::b` path outside comments
/// and test code, as the longest known module it names; and each path that
/// names no module at all, a type reached through the crate root's re-exports.
fn imports_and_root_reaches(
    source: &str,
    modules: &BTreeSet<String>,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let code = without_tests(source);
    let mut found = BTreeSet::new();
    let mut through_the_root = BTreeSet::new();
    for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
        for (at, _) in line.match_indices("crate::") {
            for path in crate_paths(&line[at + 7..]) {
                let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
                let module = (1..=parts.len())
                    .rev()
                    .map(|n| parts[..n].join("::"))
                    .find(|m| modules.contains(m));
                match module {
                    Some(module) => {
                        found.insert(module);
                    }
                    None if !parts.is_empty() => {
                        through_the_root.insert(path);
                    }
                    None => {}
                }
            }
        }
    }
    (found, through_the_root)
}

/// The modules `source` imports (`imports_and_root_reaches`).
fn imports(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    imports_and_root_reaches(source, modules).0
}

/// The rooms that are crates of their own below the core (`vram-shared`,
/// `vram-serve`), re-exported at the core's root under their rooms' names:
/// the build forbids them to import the core; the core's modules reach
/// them as `crate::units`, `crate::serve`, ….
const CRATES_BELOW: [&str; 9] = [
    "units", "decimal", "format", "gpu", "model", "layout", "storage", "process", "serve",
];

/// Every module's name and source under the core's `src`.
fn core_modules() -> BTreeMap<String, String> {
    let mut modules = BTreeMap::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut modules,
    );
    modules
}

/// The names a core module may import: its fellow modules and the rooms
/// of the crates below.
fn importable(modules: &BTreeMap<String, String>) -> BTreeSet<String> {
    modules
        .keys()
        .cloned()
        .chain(CRATES_BELOW.iter().map(|r| r.to_string()))
        .collect()
}

#[test]
fn no_module_reaches_a_type_through_the_crate_root() {
    let modules = core_modules();
    let names = importable(&modules);
    let reaches: Vec<String> = modules
        .iter()
        .filter(|(name, _)| *name != "lib")
        .flat_map(|(name, source)| {
            imports_and_root_reaches(source, &names)
                .1
                .into_iter()
                .map(move |path| format!("{name} names crate::{path}"))
        })
        .collect();
    assert_eq!(reaches, Vec::<String>::new());
}

/// No module reaches a crate below the core through the crate root's
/// re-exports (`crate::units`, `crate::serve`): each names the crate
/// (`vram_shared::units`, `vram_serve`), so its arrow is the crate graph's,
/// which the compiler holds, and the re-exports stay the front ends' facade.
#[test]
fn no_module_reaches_a_crate_below_through_the_crate_root() {
    let reaches: Vec<String> = core_modules()
        .iter()
        .filter(|(name, _)| *name != "lib")
        .flat_map(|(name, source)| {
            CRATES_BELOW.iter().filter_map(move |room| {
                let path = format!("crate::{room}");
                let named = source.match_indices(&path).any(|(at, _)| {
                    let after = source[at + path.len()..].chars().next();
                    !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                named.then(|| format!("{name} names {path}"))
            })
        })
        .collect();
    assert_eq!(reaches, Vec::<String>::new());
}

/// The reader sees what the old one missed: code after a test module, a
/// grouped import, and a type reached through the crate root.
#[test]
fn code_after_a_test_module_and_grouped_imports_are_read() {
    let names: BTreeSet<String> = ["units", "model", "model::count", "gpu"]
        .into_iter()
        .map(String::from)
        .collect();
    let source = "use crate::units::Bytes;\n#[cfg(test)]\nmod tests {\n    use crate::gpu::Gpu;\n    fn f() { if true { } }\n}\nuse crate::model::{count::Count, Other};\nfn g() -> crate::Precision { todo!() }\n#[cfg(test)]\nmod more;\n";
    let (found, root) = imports_and_root_reaches(source, &names);
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["model", "model::count", "units"]
    );
    assert_eq!(root.into_iter().collect::<Vec<_>>(), ["Precision"]);
}

#[test]
fn the_cores_modules_import_each_other_in_no_circle() {
    let modules = core_modules();
    let names = importable(&modules);
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

/// The rooms from the lowest to the highest, as ARCHITECTURE.md lists them:
/// a room imports only rooms below it. The first seven are crates of their
/// own ([`CRATES_BELOW`]); the rest the core's top-level modules.
const ROOMS_FROM_THE_BOTTOM: [&str; 16] = [
    "units",
    "decimal",
    "format",
    "gpu",
    "model",
    // A layout's rules in words: what a size splits, what is wrong with it.
    "layout",
    // Quantised storage: one model of each format's bytes, for every job.
    "storage",
    // What a GPU process holds beside its tensors, for every job.
    "process",
    // Serving reads the shared parts below it, never training's rooms above.
    "serve",
    "memory",
    "frameworks",
    "time",
    "config",
    "input",
    // Training's answer: the table, the placement, the plans, the fixes.
    "report",
    // RL composes training's report and serving's.
    "rl",
];

/// The rooms imported by a room's modules, each with one module that does.
fn room_imports() -> BTreeMap<String, BTreeMap<String, String>> {
    let modules = core_modules();
    let names = importable(&modules);
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
        ROOMS_FROM_THE_BOTTOM.len() - CRATES_BELOW.len() + 1,
        "{:?}",
        rooms.keys()
    );
    assert_eq!(ROOMS_FROM_THE_BOTTOM[..CRATES_BELOW.len()], CRATES_BELOW);
}

/// The check can fail: with `config` placed above `input`, which reads it,
/// and a room left out, both are named.
#[test]
fn an_upward_import_and_a_room_without_a_place_are_found() {
    let rooms = room_imports();
    let mut order: Vec<&str> = ROOMS_FROM_THE_BOTTOM
        .iter()
        .copied()
        .filter(|r| *r != "rl")
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
        found.contains(&"room rl has no place in the order".to_string()),
        "{found:?}"
    );
}

/// The text of the workspace's ARCHITECTURE.md under its level-2 heading
/// `heading`, up to the next level-2 heading.
fn architecture_section(heading: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ARCHITECTURE.md");
    let map = std::fs::read_to_string(path).expect("ARCHITECTURE.md");
    map.split(&format!("\n## {heading}"))
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_else(|| panic!("a section \"{heading}\""))
        .to_string()
}

/// ARCHITECTURE.md's table of the core's rooms names every room of the
/// tree, and no room that is not there (a map that named files gone within
/// days of being written, issue 67).
#[test]
fn the_architectures_room_table_is_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let section = architecture_section("The core's rooms");
    let mut named = BTreeSet::new();
    for row in section.lines().filter(|l| l.starts_with("| `")) {
        let first_cell = row.split('|').nth(1).unwrap_or_default();
        for name in first_cell.split('`').skip(1).step_by(2) {
            named.insert(
                name.trim_end_matches('/')
                    .trim_end_matches(".rs")
                    .to_string(),
            );
        }
    }
    // The core's top-level modules, the shared crate's, and serving's crate.
    let rooms_in = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("src")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
            .filter(|name| name != "lib")
            .collect()
    };
    let rooms: BTreeSet<String> = rooms_in(&root.join("src"))
        .into_iter()
        .chain(rooms_in(&root.join("../shared/src")))
        .chain(["serve".to_string(), "launch".to_string()])
        .collect();
    assert!(root.join("../serve/src/lib.rs").exists(), "serving's crate");
    assert!(root.join("../launch/src/lib.rs").exists(), "launch's crate");
    assert_eq!(
        named, rooms,
        "the rooms ARCHITECTURE.md names, and the tree's"
    );
    // And in the order the graph holds, each named in ROOMS_FROM_THE_BOTTOM
    // (launch, a crate above the core, is held by the build alone).
    let ordered: BTreeSet<String> = ROOMS_FROM_THE_BOTTOM
        .iter()
        .map(|r| r.to_string())
        .chain(["launch".to_string()])
        .collect();
    assert_eq!(ordered, rooms);
}

/// ARCHITECTURE.md's list of crates is the workspace's: each member named
/// with its package, and no crate named that is not a member.
#[test]
fn the_architectures_crate_list_is_the_workspace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let section = architecture_section("Crates");
    // `crates/core   vram-core   …`: a folder, then its package.
    let listed: BTreeSet<(String, String)> = section
        .lines()
        .filter(|l| l.starts_with("crates/") || l.starts_with("tests/"))
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let folder = words.next()?.trim_end_matches('/').to_string();
            Some((folder, words.next()?.to_string()))
        })
        .collect();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let members = manifest
        .lines()
        .find_map(|l| l.strip_prefix("members = ["))
        .expect("the workspace's members");
    let workspace: BTreeSet<(String, String)> = members
        .split(',')
        .map(|m| m.trim().trim_end_matches(']').trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .map(|folder| {
            let package = std::fs::read_to_string(root.join(&folder).join("Cargo.toml"))
                .expect("a member's Cargo.toml")
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .map(|name| name.trim_end_matches('"').to_string())
                .expect("a package name");
            (folder, package)
        })
        .collect();
    assert_eq!(
        listed, workspace,
        "ARCHITECTURE.md's crates, and the workspace's"
    );
}

/// Whether `code` names `member` as a whole word, outside `//` comments.
fn names(code: &str, member: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .any(|line| {
            line.match_indices(member).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + member.len()..].chars().next();
                !before.is_some_and(word) && !after.is_some_and(word)
            })
        })
}

/// The rooms on the way from the link to the page (the shared parts'
/// crate, serving's, the core's top-level modules, the view's and the
/// page's crates) whose code, outside comments and tests, names `member`.
fn rooms_naming(member: &str) -> BTreeSet<String> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut rooms = BTreeSet::new();
    for krate in ["shared", "serve", "core", "view", "app", "lazy", "reader"] {
        let mut modules = BTreeMap::new();
        sources(&crates.join(krate).join("src"), "", &mut modules);
        for (name, source) in modules {
            if name == "tests" || name.ends_with("::tests") {
                continue;
            }
            if names(&without_tests(&source), member) {
                rooms.insert(match krate {
                    "core" => format!("core::{}", name.split("::").next().unwrap_or_default()),
                    _ => krate.to_string(),
                });
            }
        }
    }
    rooms
}

/// Issue 67's walk: a key's value crosses few rooms from the link to the
/// page. At the commit the issue was filed against (9841cb4's parent), by
/// this count, `kv_dtype` crossed 5 (the input, the report, serving, the
/// view, the page), `response_len` 4 and `stage` 8 (the input, the
/// configuration, the report, the plans, the fixes, RL, the view, the
/// page); serving's way in left the report, the plans and fixes joined it.
/// Run with `--nocapture` to see the rooms.
#[test]
fn a_keys_value_crosses_few_rooms_from_the_link_to_the_page() {
    let declarations = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src/input/field/mod.rs"),
    )
    .expect("the field table");
    for (key, member, at_most) in [
        ("kv_dtype", "kv_dtype", 4),
        ("response_len", "response_len", 4),
        ("stage", "highlight", 6),
    ] {
        // The member is the one the key's declaration reads.
        let declaration = declarations
            .split(&format!("key: \"{key}\""))
            .nth(1)
            .expect("the key's declaration");
        let read = declaration.lines().find(|l| l.contains("read:")).unwrap();
        assert!(read.contains(&format!(".{member}")), "{key} reads {read}");
        let rooms = rooms_naming(member);
        println!("{key}: {} rooms: {rooms:?}", rooms.len());
        assert!(rooms.len() <= at_most, "{key}: {rooms:?}");
        assert!(
            rooms.contains("core::input") && rooms.contains("view"),
            "{key}: {rooms:?}"
        );
    }
}
