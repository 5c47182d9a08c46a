//! The bytes the page serves, held by a ratchet: every file within 2 % of its
//! checked-in baseline (`tests/sizes.baseline`). Sizes are deterministic;
//! times are not and are measured by `scripts/bench`, not tested. To move the
//! baseline: `VRAM_UPDATE_SIZES=1 cargo test -p vram-e2e --test budget`, and
//! say in the commit what the bytes bought (CONTRIBUTING.md).

use vram_e2e::{
    baseline_path, dist_dir, first_view_sizes, ratchet, read_baseline, served_sizes, stable_name,
    write_baseline,
};

#[test]
fn every_served_file_is_within_two_percent_of_its_baseline() {
    let sizes = first_view_sizes(&dist_dir());
    let kinds: Vec<&str> = sizes
        .iter()
        .filter_map(|f| f.name.rsplit('.').next())
        .collect();
    for kind in ["html", "js", "wasm"] {
        assert!(
            kinds.contains(&kind),
            "no .{kind} file in the build: {sizes:?}"
        );
    }
    // The style sheet is inside the page (crates/prerender), counted with it.
    let index = std::fs::read_to_string(dist_dir().join("index.html")).expect("index.html");
    assert!(
        index.contains("<style>") && index.contains(".calculator"),
        "the style sheet is not in index.html"
    );
    let built = served_sizes(&dist_dir());
    assert!(
        built.iter().any(|(n, _)| n == "lazy/vram_lazy_bg.wasm"),
        "{built:?}"
    );
    if std::env::var_os("VRAM_UPDATE_SIZES").is_some() {
        std::fs::write(baseline_path(), write_baseline(&built)).expect("write the baseline");
    }
    let baseline = read_baseline(&std::fs::read_to_string(baseline_path()).expect("the baseline"));
    let first_view: u64 = sizes.iter().map(|f| f.gzip).sum();
    let before: u64 = sizes
        .iter()
        .filter_map(|f| {
            let name = stable_name(&f.name);
            baseline.iter().find(|(n, _)| *n == name).map(|(_, b)| b)
        })
        .sum();
    // Shown with --nocapture.
    eprintln!("first view: {first_view} B gzip (baseline {before} B)");
    for (name, bytes) in &built {
        eprintln!("{bytes:>8} B gzip  {name}");
    }
    let refused = ratchet(&baseline, &built);
    assert!(
        refused.is_empty(),
        "the served files moved past tests/sizes.baseline:\n{}\n\
         If the bytes buy something, move the baseline (VRAM_UPDATE_SIZES=1 cargo test -p vram-e2e \
         --test budget) and say what in the commit.",
        refused.join("\n")
    );
}

/// The ratchet itself: 1.5 % of growth passes, 3 % fails, a smaller file
/// passes, and a file the baseline does not know (or a line no file has)
/// fails until the baseline names it.
#[test]
fn the_ratchet_refuses_three_percent_and_unknown_files() {
    let baseline = read_baseline(&write_baseline(&[
        ("index.html".into(), 16_000),
        ("vram-app_bg.wasm".into(), 177_000),
    ]));
    assert_eq!(baseline.len(), 2);
    let grown = |wasm: u64| {
        vec![
            ("index.html".to_string(), 15_000),
            ("vram-app_bg.wasm".to_string(), wasm),
        ]
    };
    assert_eq!(
        ratchet(&baseline, &grown(177_000 * 1015 / 1000)),
        Vec::<String>::new()
    );
    let refused = ratchet(&baseline, &grown(177_000 * 103 / 100));
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert!(
        refused[0].contains("+3.0 % past its baseline of 177000 B"),
        "{refused:?}"
    );
    let mut unknown = grown(177_000);
    unknown.push(("lazy/vram_lazy_bg.wasm".into(), 90_000));
    assert_eq!(ratchet(&baseline, &unknown).len(), 1);
    assert_eq!(ratchet(&baseline, &grown(177_000)[1..]).len(), 1);
    assert_eq!(
        stable_name("vram-app-3dfc4c2f2dde19e0_bg.wasm"),
        "vram-app_bg.wasm"
    );
    assert_eq!(
        stable_name("snippets/vram-app-e2e462a2be7f2ac5/inline0.js"),
        "snippets/vram-app/inline0.js"
    );
    assert_eq!(stable_name("favicon-b8d5c9d5c1b82a9b.svg"), "favicon.svg");
    // Trunk's hash is a u64 written without leading zeros: 15 digits one build in 16.
    assert_eq!(
        stable_name("vram-app-d15d8679aa202b2_bg.wasm"),
        "vram-app_bg.wasm"
    );
}

/// The count is gzip's: the first view's total within 1 % of what `gzip -9 -n`
/// makes of the same files. GNU gzip and zlib (zlib-rs here) are two deflaters
/// at the same level: seen 0.005 % apart on one build and 0.35 % (zlib smaller)
/// on the next; miniz_oxide, flate2's default, counted 0.5 % more than both.
#[test]
fn the_count_agrees_with_the_gzip_command() {
    let sizes = first_view_sizes(&dist_dir());
    let mut theirs = 0;
    for file in &sizes {
        let output = std::process::Command::new("gzip")
            .args(["-9", "-n", "-c"])
            .arg(dist_dir().join(&file.name))
            .output()
            .expect("the gzip command (Debian's gzip is an essential package)");
        assert!(output.status.success(), "gzip failed on {}", file.name);
        theirs += output.stdout.len() as u64;
    }
    let ours: u64 = sizes.iter().map(|f| f.gzip).sum();
    assert!(
        ours.abs_diff(theirs) * 100 <= theirs,
        "{ours} B counted here, {theirs} B by gzip -9"
    );
}
