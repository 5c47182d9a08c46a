//! The `vram` command links no page: no Leptos and neither the page's crate
//! nor its lazily loaded module (issue 67: "the dependency graph is the
//! architecture"). `vram-view`'s words and charts it does link; its Leptos
//! view is behind the feature `dom`, which the CLI leaves off.

use std::process::Command;

#[test]
fn the_cli_links_no_leptos_and_no_page() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "--offline",
            "--manifest-path",
            manifest,
            "-p",
            "vram-cli",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let names: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains(&"vram-core"), "{tree}");
    for forbidden in ["leptos", "vram-app", "vram-lazy", "vram-prerender"] {
        assert!(
            !names.contains(&forbidden),
            "vram-cli depends on {forbidden}:\n{tree}"
        );
    }
}
