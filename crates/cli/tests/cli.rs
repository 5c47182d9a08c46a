//! The `vram` binary as a user runs it: the lesson's numbers, snapshots of the
//! table and the JSON, exit statuses and messages, and agreement with the page's decoder.

use assert_cmd::Command;
use serde_json::Value;
use vram_core::input::link::{decode, encode};

fn vram() -> Command {
    let mut command = Command::cargo_bin("vram").expect("the vram binary");
    command.env_remove("NO_COLOR");
    command
}

fn json_of(args: &[&str]) -> Value {
    let output = vram().args(args).arg("--json").output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("valid JSON")
}

/// What `vram` prints with `args`, which must succeed.
fn printed(args: &[&str]) -> String {
    let output = vram().args(args).output().unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

/// What `vram` said on standard error when it refused (exit code 2).
fn refusal(output: std::process::Output) -> String {
    assert_eq!(output.status.code(), Some(2));
    String::from_utf8(output.stderr).unwrap()
}

/// Asserts that `vram` refused (exit code 2) saying `part` on standard error.
fn assert_refused_saying(output: std::process::Output, part: &str) {
    let said = refusal(output);
    assert!(said.contains(part), "{said}");
}

/// Runs `vram` with `args`, which must succeed, and compares what it printed
/// with the snapshot `name`.
fn assert_prints_snapshot(name: &str, args: &[&str]) {
    let output = vram().args(args).output().unwrap();
    assert!(output.status.success());
    insta::assert_snapshot!(name, String::from_utf8(output.stdout).unwrap());
}

/// The `job` object of the `--json` document of `args` (schema
/// `vram-calculator/{job}/v1`, RL's v2) and the configuration its link decodes to,
/// after their table has been compared with the snapshot `name`.
fn snapshot_and_job(name: &str, args: &[&str], job: &str) -> (Value, vram_core::Config) {
    assert_prints_snapshot(name, args);
    let document = json_of(args);
    let version = match job {
        "rl" => 2,
        _ => 1,
    };
    assert_eq!(
        document["schema"],
        format!("vram-calculator/{job}/v{version}")
    );
    (document[job].clone(), linked_config(&document))
}

/// The configuration that the `link` of a document, a plan or a fix decodes to.
fn linked_config(value: &Value) -> vram_core::Config {
    decode(value["link"].as_str().unwrap()).config
}

/// Asserts that `text` contains each of `parts`.
fn assert_contains_each(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} is not in:\n{text}");
    }
}

/// The figure `name` of strategy `id`, in its unit (bytes or parameters).
fn figure(report: &Value, id: &str, name: &str) -> f64 {
    let strategy = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["strategy"] == id)
        .unwrap_or_else(|| panic!("no strategy {id}"));
    strategy[name]["value"].as_f64().unwrap()
}

/// Bytes and parameter counts are printed unrounded; the tolerance is the core's own.
fn assert_close(actual: f64, expected: f64) {
    assert!(
        (actual - expected).abs() <= 1e-9 * expected.abs(),
        "expected {expected}, got {actual}"
    );
}

#[test]
fn the_lessons_seven_numbers_from_the_readme_commands() {
    let lesson = json_of(&[]);
    assert_close(figure(&lesson, "ddp", "total"), 112e9);
    assert_close(figure(&lesson, "zero1", "total"), 38.5e9);
    assert_close(figure(&lesson, "zero2", "total"), 26.25e9);
    assert_close(figure(&lesson, "zero3", "total"), 14e9);
    assert_close(figure(&lesson, "ddp", "max_params"), 4e9);
    assert_close(figure(&lesson, "zero3", "max_params"), 32e9);
    let sgd = json_of(&["--opt", "sgd"]);
    assert_close(figure(&sgd, "ddp", "total"), 56e9);
}

#[test]
fn table_of_the_lesson() {
    let text = printed(&[]);
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    insta::assert_snapshot!("lesson_table", text);
}

#[test]
fn table_of_a_shared_link_with_an_override() {
    assert_prints_snapshot(
        "q6_13b_on_40gb",
        &[
            "https://example.org/calc/?params=13&gpus=8&gpu_mem=80&stage=2#top",
            "--gpu-mem",
            "40",
        ],
    );
}

#[test]
fn json_schema_of_the_13b_zero2_case() {
    assert_prints_snapshot("q6_13b_json", &["?params=13&stage=2", "--json"]);
}

/// The optional parts of the schema (layout, step, training, Megatron-LM's
/// estimate, plans), pinned as the hand-written JSON of 47c88da printed them
/// before the document became the core's typed `ReportJson` (byte-identical,
/// checked then against that build).
#[test]
fn json_schema_of_a_layout_with_megatron_time_and_plans() {
    let output = vram()
        .args([
            "?model=llama2-70b&gpu=a100-80gb&gpus=8&global_batch=64&tp=4&pp=2&tokens=1000&price=2&acct=megatron",
            "--json",
            "--plans",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let mut document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // The ranked plans are held to their rules here, and the first five to a
    // snapshot of their own: the document's snapshot stays small enough to review.
    let plans = document["plans"].as_array().unwrap().clone();
    assert_eq!(
        plans.len() as u64,
        document["plans_search"]["listed"].as_u64().unwrap()
    );
    let (ranked, own) = plans.split_at(plans.len() - 1);
    assert_eq!(ranked.len(), 100, "the best 100 are kept");
    assert!(ranked.iter().all(|p| p["fits"] == true));
    let seconds: Vec<f64> = ranked
        .iter()
        .map(|p| p["step_seconds"].as_f64().unwrap())
        .collect();
    assert!(
        seconds.windows(2).all(|w| w[0] <= w[1]),
        "fastest first: {seconds:?}"
    );
    // Then the configuration's own plan (TP 4, PP 2), which does not fit.
    assert_eq!(own[0]["layout"]["tp"], 4);
    assert_eq!(own[0]["layout"]["pp"], 2);
    assert_eq!(own[0]["fits"], false);
    insta::assert_snapshot!(
        "llama2_70b_layout_first_plans_json",
        serde_json::to_string_pretty(&plans[..5]).unwrap()
    );
    document["plans"] = serde_json::json!(format!("{} plans, checked above", plans.len()));
    insta::assert_snapshot!(
        "llama2_70b_layout_json",
        serde_json::to_string_pretty(&document).unwrap()
    );
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let output = vram().args(["--color", "always"]).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("\x1b[32m"), "fits in green");
    assert!(text.contains("\x1b[31m"), "too big in red");
}

#[test]
fn a_value_out_of_range_names_the_option_and_exits_2() {
    let output = vram()
        .args(["--gpus", "0", "--params", "-7"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_contains_each(
        &stderr,
        &[
            "--gpus \"0\": Number of GPUs: Enter 1 to 1,048,576.",
            "--params \"-7\": Model size: Enter 0.001 to 1,000,000.",
        ],
    );
}

#[test]
fn a_bad_link_value_names_the_key_and_exits_2() {
    let output = vram().arg("?dtype=fp4&overhead=1").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_contains_each(
        &stderr,
        &[
            "dtype=\"fp4\": Precision: Use one of: fp32, fp16, bf16, fp32-pure, bf16-pure, fp8, fp8-params.",
            "overhead=\"1\"",
        ],
    );
}

#[test]
fn an_unknown_option_exits_2_with_nothing_on_stdout() {
    let output = vram().arg("--parms").arg("7").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("--params"),
        "suggests the right name"
    );
}

#[test]
fn help_documents_every_option_with_its_default_and_unit() {
    let help = printed(&["--help"]);
    // clap wraps long lines: compare the words.
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "--params <BILLIONS>",
        "0.001 to 1000000 (billions of parameters); a model's architecture gives its own size, within the same limits [default: 7]",
        "--gpus <N>",
        "[default: 8]",
        "--gpu-mem <GB>",
        "0.1 to 10000 (GB of 10^9 bytes) [default: 80]",
        "--dtype <CHOICE>",
        "fp32, fp16, bf16, fp32-pure, bf16-pure, fp8, fp8-params; fp8 and fp8-params: a GPU with FP8 tensor cores, full training, not framework=hf or litgpt; fp8-params not with sharding=fsdp2 [default: fp16]",
        "--grad-acc <CHOICE>",
        "model, fp32 [default: model]",
        "--opt <CHOICE>",
        "adam, sgd, sgd-momentum, adam8bit, adafactor, lion [default: adam]",
        "--overhead <FRACTION>",
        "0, or 0.000000001 to 0.95 (fraction of each GPU's memory) [default: 0.2]",
        "--stage <CHOICE>",
        "ddp, 1, 2, 3 [default: ddp]",
        "--json",
        "--link",
    ] {
        assert!(help.contains(expected), "help lacks {expected:?}:\n{help}");
    }
}

/// Every field of the core's table is an option, named after its link key,
/// with its unit's placeholder, its label, its unit and its choices.
#[test]
fn help_names_every_field_with_its_unit() {
    let output = vram().arg("--help").output().unwrap();
    let help = String::from_utf8(output.stdout).unwrap();
    for field in vram_core::Field::ALL {
        let option = format!(
            "--{} <{}>",
            field.key().replace('_', "-"),
            field.value_name()
        );
        let at = help
            .find(&format!("{option}\n"))
            .unwrap_or_else(|| panic!("help lacks {option:?}:\n{help}"));
        // The option's description: the lines after it up to the next option.
        let text = help[at + option.len()..]
            .split("\n      -")
            .next()
            .unwrap_or_default()
            .to_lowercase();
        let label =
            vram_view::text::field_text(vram_view::text::of(vram_core::format::Lang::En), field)
                .label
                .to_lowercase();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&label), "{option}: {text}");
        if let Some(unit) = field.unit() {
            assert!(
                text.contains(&unit.words().to_lowercase()),
                "{option}: {text}"
            );
        }
        // The choices, however the help's lines wrap (clap wraps them when
        // the workspace's features ask it to).
        if !field.choices().is_empty() {
            assert!(
                flat.contains(&field.choices().join(", ").to_lowercase()),
                "{option}: {text}"
            );
        }
    }
}

/// The golden links' queries (`core/tests/links.golden`) whose
/// configuration makes a report, each with that configuration.
fn golden_reporting_configs() -> impl Iterator<Item = (&'static str, vram_core::Config)> {
    include_str!("../../core/tests/links.golden")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let query = line.split('\t').next().unwrap_or_default();
            (query, decode(query).config)
        })
        .filter(|(_, config)| config.report().is_ok())
}

/// Every configuration of the golden links, given field by field as options,
/// is the configuration its link decodes to: each field's option reads what
/// its link key writes, and a preset's refinements survive it.
#[test]
fn every_field_round_trips_through_its_option() {
    let mut checked = 0;
    for (query, config) in golden_reporting_configs() {
        let mut args = vec!["vram".to_string(), "--link".to_string()];
        for field in vram_core::Field::ALL {
            let text = field.read(&config);
            if !text.is_empty() && field.scope().applies(config.model.is_some()) {
                args.push(format!("--{}", field.key().replace('_', "-")));
                args.push(text);
            }
        }
        let printed =
            vram_cli::run(&args, false).unwrap_or_else(|_| panic!("{query}: {args:?} refused"));
        let link = vram_cli::query_of(printed.trim());
        assert_eq!(decode(link).config, config, "{query}: {args:?}");
        checked += 1;
    }
    assert!(
        checked >= 40,
        "only {checked} golden configurations checked"
    );
}

#[test]
fn a_gpu_preset_then_its_memory_is_that_memory() {
    let printed = vram_cli::run(
        ["vram", "--gpu", "a100-80gb", "--gpu-mem", "70", "--link"],
        false,
    )
    .unwrap_or_else(|_| panic!("refused"));
    assert!(printed.contains("gpu_mem=70&"), "{printed}");
    assert!(
        !printed.contains("gpu="),
        "the GPU is custom then: {printed}"
    );
}

#[test]
fn link_prints_the_page_address_of_the_configuration() {
    assert_eq!(
        printed(&[
            "--params",
            "70",
            "--gpus",
            "64",
            "--stage",
            "3",
            "--link",
            "--base-url",
            "https://example.org/vram/",
        ]),
        "https://example.org/vram/?v=3&params=70&gpus=64&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=3\n"
    );
}

#[test]
fn the_cli_and_the_page_decode_links_alike() {
    for link in [
        "",
        "?params=13&gpus=8&gpu_mem=80&stage=2",
        "params=6.7&dtype=BF16&opt=sgd&overhead=0.05",
        "http://127.0.0.1:8080/?gpus=1024&stage=3&utm_source=course#results",
        "?v=1&params=1e3&gpu_mem=141&stage=1",
    ] {
        let query = link.split('#').next().unwrap();
        let query = query.split_once('?').map_or(query, |(_, q)| q);
        let page = decode(query);
        assert!(page.problems.is_empty(), "{link}: {:?}", page.problems);
        let cli = json_of(&[link]);
        assert_eq!(
            cli["link"].as_str().unwrap(),
            encode(&page.config),
            "{link}"
        );
        assert_close(
            cli["config"]["params"]["value"].as_f64().unwrap(),
            page.config.params_billions,
        );
        assert_eq!(
            cli["config"]["gpus"].as_u64().unwrap(),
            u64::from(page.config.gpus)
        );
        assert_eq!(
            cli["config"]["stage"].as_str().unwrap(),
            page.config.highlight.key()
        );
    }
}

#[test]
fn a_model_gives_exact_parameters_activations_and_verdicts() {
    let report = json_of(&[
        "--model",
        "llama2-70b",
        "--gpu",
        "h100-80gb",
        "--seq",
        "4096",
        "--recompute",
        "full",
    ]);
    assert_eq!(
        report["params"]["value"].as_f64().unwrap(),
        68_976_648_192.0
    );
    let activations = report["activations"]["total"]["value"].as_f64().unwrap();
    assert!(activations > 1e9, "{activations}");
    assert_close(figure(&report, "zero3", "activations"), activations);
    let zero3 = report["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["strategy"] == "zero3")
        .unwrap();
    assert_eq!(zero3["fits"], false);
    assert!(zero3["fewest_gpus"].as_u64().unwrap() > 8);
    assert_eq!(report["config"]["gpu"], "h100-80gb");
    // Full recomputation: each layer's input, then one layer's working set.
    let formula = report["activation_derivation"].as_str().unwrap();
    assert!(
        formula.starts_with("L·e·s·b·h + [e·s·b·(6h + 2k + m·f)] + ")
            && formula.contains("= 80 × 2 × 4096 × 1 × 8192 + [2 × 4096 × 1 × "),
        "{formula}"
    );
}

#[test]
fn markdown_and_csv_for_homework_and_spreadsheets() {
    let markdown = printed(&["--markdown"]);
    // The CLI table's columns, the same as `vram` prints.
    assert!(
        markdown.contains(
            "| ZeRO-2 | 14 GB | 1.75 GB | 10.5 GB | 26.25 GB | yes | 2 | 17.07 B | 24.5 GB |"
        ),
        "{markdown}"
    );
    // The formula under the table, as a paragraph of its own; what the table
    // is of before it and the link that opens it after it (issue 47, item 7).
    assert!(
        markdown.contains(
            "| 36.75 GB |\n\nDDP per GPU, by the lesson's formula: (2 + 2 + 12) B × 7 × 10⁹ = 112 GB.\n\n"
        ),
        "{markdown}"
    );
    assert!(
        markdown.starts_with("**7,000,000,000 parameters · Number of GPUs 8 GPUs · "),
        "{markdown}"
    );
    assert!(
        markdown.ends_with(
            "?v=3&params=7&gpus=8&gpu_mem=80&dtype=fp16&grad_acc=model&opt=adam&overhead=0.2&stage=ddp>. GB = 10⁹ bytes.\n"
        ),
        "{markdown}"
    );
    let csv = printed(&["--csv", "--params", "13"]);
    let zero2 = csv.lines().find(|l| l.starts_with("zero2,")).unwrap();
    // 13e9 × (2 + 14/8) bytes = 48.75 GB, unrounded in bytes.
    assert_eq!(zero2.split(',').nth(6), Some("48750000000"));
    let both = vram().args(["--csv", "--markdown"]).output().unwrap();
    assert_eq!(both.status.code(), Some(2), "one format at a time");
}

#[test]
fn a_config_json_gives_the_model_with_total_and_active_counts() {
    let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/configs");
    let mixtral = json_of(&["--config", &format!("{configs}/mixtral-8x7b.json")]);
    assert_eq!(mixtral["params"]["value"], 46_702_792_704.0);
    assert_eq!(mixtral["active_params"], 12_879_925_248u64);
    // Options override what the file says.
    let fewer = json_of(&[
        "--config",
        &format!("{configs}/deepseek-v3.json"),
        "--layers",
        "4",
        "--dense-layers",
        "1",
    ]);
    assert!(fewer["params"]["value"].as_f64().unwrap() < 1e11);
    // Under the table, what the file gave.
    let table = vram()
        .args([
            "--config",
            &format!("{configs}/deepseek-v3.json"),
            "--color",
            "never",
        ])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert_contains_each(
        &table,
        &[
            "config.json (deepseek_v3): read hidden_size=7168",
            "1 multi-token-prediction layer(s), 13,463,426,048 parameters",
        ],
    );
    // A file that is no config.json: status 2, the option and the reason.
    let output = vram()
        .args([
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
        ])
        .output()
        .unwrap();
    let stderr = refusal(output);
    assert!(
        stderr.contains("--config") && stderr.contains("Not valid JSON (line 1"),
        "{stderr}"
    );
    let missing = vram()
        .args(["--config", "/no/such/config.json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// Issue 28: under Megatron-LM's accounting `--json` carries what Megatron
/// would print without `--plans` (README's example printed no Megatron line).
#[test]
fn json_under_megatrons_accounting_carries_its_estimate() {
    let report = json_of(&["?model=llama2-7b&acct=megatron&tp=2"]);
    let megatron = &report["megatron"];
    assert!(megatron.is_object(), "{report}");
    let printed = megatron["without_distributed_optimizer"]["printed_mb"][2]
        .as_f64()
        .expect("the total Megatron prints");
    assert!((printed - 63_843.01).abs() < 0.005, "{printed}");
    assert!(json_of(&["?model=llama2-7b"])["megatron"].is_null());
}

/// `--html` (issue 27): the read-only view as one well-formed fragment, the
/// lesson's four totals in its table, three SVG charts with their words for
/// screen readers, and a link to the page at `--base-url` that carries the
/// configuration; no script.
#[test]
fn html_fragment_of_the_lesson() {
    let html = printed(&["--html", "--base-url", "https://course.example/vram/"]);
    let document = roxmltree::Document::parse(&html).expect("well-formed markup");
    let root = document.root_element();
    assert_eq!(root.tag_name().name(), "section");
    let cells: Vec<&str> = root
        .descendants()
        .filter(|n| n.has_tag_name("td"))
        .filter_map(|n| n.text())
        .collect();
    for total in ["112 GB", "38.5 GB", "26.25 GB", "14 GB"] {
        assert!(cells.contains(&total), "{total} in {cells:?}");
    }
    let charts: Vec<_> = root
        .descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .collect();
    assert_eq!(charts.len(), 3);
    assert!(charts
        .iter()
        .all(|svg| svg.attribute("role") == Some("img") && svg.attribute("aria-label").is_some()));
    let link = root
        .descendants()
        .find(|n| n.has_tag_name("a"))
        .and_then(|a| a.attribute("href"))
        .expect("a link");
    assert!(
        link.starts_with("https://course.example/vram/?v=3&params=7&gpus=8"),
        "{link}"
    );
    assert!(!root.descendants().any(|n| n.has_tag_name("script")));
}

/// Issue 41, failure 7: a model option gives its size to the JSON's
/// configuration, a malformed command line is one line like every other
/// error, and a config.json's value out of range names the file and its key.
#[test]
fn options_and_config_json_are_decoded_as_one_link() {
    let qwen = json_of(&["--model", "qwen2.5-14b"]);
    assert_close(
        qwen["config"]["params"]["value"].as_f64().unwrap(),
        14.770033664,
    );
    assert_close(qwen["params"]["value"].as_f64().unwrap(), 14_770_033_664.0);
    // An option's model replaces the link's, architecture and all.
    let replaced = json_of(&["?v=2&model=llama2-13b&layers=20", "--model", "qwen3-8b"]);
    assert_eq!(replaced["link"], json_of(&["--model", "qwen3-8b"])["link"]);

    let output = vram().arg("--parms").arg("7").output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("'--params'"), "{stderr}");

    let output = vram().args(["--hidden", "1"]).output().unwrap();
    let stderr = refusal(output);
    assert_eq!(
        stderr.trim(),
        "error: --hidden \"1\": Attention heads: Must divide the hidden size."
    );

    let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/configs");
    let text = std::fs::read_to_string(format!("{configs}/mistral-7b.json")).unwrap();
    let mut json: Value = serde_json::from_str(&text).unwrap();
    json["num_hidden_layers"] = Value::from(20_000);
    let dir = std::env::temp_dir().join(format!("vram-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.json");
    std::fs::write(&path, json.to_string()).unwrap();
    let output = vram().arg("--config").arg(&path).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_refused_saying(
        output,
        "config.json\": num_hidden_layers=20000: Layers: Enter 1 to 10,000.",
    );
}

/// Issue 41, failure 8: a config.json is the model and every other key
/// applies on top of it, a layout included; the link's own model is replaced.
#[test]
fn a_config_json_takes_a_layout_from_the_link() {
    let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/configs");
    let mistral = format!("{configs}/mistral-7b.json");
    let split = json_of(&["--config", &mistral, "?tp=4&seq=4096"]);
    assert_eq!(split["layout"]["tp"], 4);
    assert!(split["link"].as_str().unwrap().contains("&seq=4096&"));
    assert_eq!(split["params"], json_of(&["--config", &mistral])["params"]);
    let over = json_of(&["--config", &mistral, "?model=llama2-70b&layers=80&tp=2"]);
    assert_eq!(over["params"], json_of(&["--config", &mistral])["params"]);
    assert_eq!(over["layout"]["tp"], 2);
}

/// Issue 41, failure 9, and issue 43: the documented keys are the declarations'.
/// docs/links.md's key table, between its markers, is what `vram --keys`
/// prints (each key's doc comment, limits, default and when a link writes it),
/// and `--help` gives each option the same limits.
#[test]
fn the_keys_reference_is_generated_from_the_declarations() {
    let generated = printed(&["--keys"]);
    let links =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/links.md"))
            .unwrap();
    let (begin, end) = ("<!-- vram --keys: begin -->\n", "<!-- vram --keys: end -->");
    let committed = links
        .split_once(begin)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(table, _)| table)
        .expect("docs/links.md has its vram --keys markers");
    assert!(
        generated == committed,
        "docs/links.md's key table is out of date: put the output of `cargo run -p vram-cli -- --keys` between its markers"
    );
    let help = String::from_utf8(vram().arg("--help").output().unwrap().stdout).unwrap();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for field in vram_core::input::link::all_fields() {
        let accepts = vram_view::text::accepts(field)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(help.contains(&accepts), "--help lacks {accepts:?}");
    }
    // The limits the issue found disagreeing, as the code checks them.
    for (key, words) in [
        (
            "expert_ffn",
            "whole, 0 to 16777216 (features); with experts: at least 1",
        ),
        (
            "lin_k_dim",
            "whole, 0 to 65536 (features); with full_every 2 or more: at least 1",
        ),
        ("full_every", "0 or 1: no linear attention; 2 to layers + 1"),
        ("acct", "megatron: with a model"),
        ("largest_layer", "without a model: at most the model's size"),
        ("nodes", "GPUs per node × nodes at most 1048576"),
    ] {
        let row = committed
            .lines()
            .find(|l| l.starts_with(&format!("| `{key}` |")))
            .unwrap();
        assert!(row.contains(words), "{row}");
    }
}

/// Issue 47: what would make it fit, in the CLI. The lesson's 70B on 8 × A100
/// with 4,096 tokens under ZeRO-3 does not fit; `--fixes --json` lists each
/// fix with the keys it changes, its link (which the page's decoder reads to
/// a configuration that fits), its peak and its cost; the text says it in
/// the page's words. Where it fits, there is nothing to fix.
#[test]
fn fixes_of_the_70b_case_in_json_and_text() {
    let query = "?model=llama2-70b&gpu=a100-80gb&gpus=8&seq=4096&stage=3";
    let document = json_of(&[query, "--fixes"]);
    let fixes = &document["fixes"];
    assert_eq!(fixes["fits"], false);
    let usable = fixes["usable"]["value"].as_f64().unwrap();
    assert!(fixes["per_gpu"]["value"].as_f64().unwrap() > usable);
    let list = fixes["fixes"].as_array().unwrap();
    assert!(list.len() >= 3, "{list:#?}");
    // A larger GPU (B300's 288 GB) is one lever; the first of two is the
    // ranked plans' recomputation with the optimizer offloaded.
    assert_eq!(list[0]["levers"], serde_json::json!(["gpu"]));
    assert_eq!(
        list[1]["levers"],
        serde_json::json!(["recompute", "offload"])
    );
    for fix in list {
        let config = linked_config(fix);
        let report = config.report().unwrap();
        assert!(report.highlighted().fits, "{fix}");
        assert_close(
            fix["per_gpu"]["value"].as_f64().unwrap(),
            report.highlighted().step.peak().1.get(),
        );
        assert!(!fix["changes"].as_array().unwrap().is_empty(), "{fix}");
    }
    let offloaded = list
        .iter()
        .find(|f| f["levers"] == serde_json::json!(["recompute", "offload"]))
        .expect("full recomputation with the optimizer offloaded");
    assert_eq!(
        offloaded["changes"],
        serde_json::json!([
            {"after": "full", "before": "none", "key": "recompute"},
            {"after": "optimizer", "before": "none", "key": "offload"}
        ])
    );
    assert!(offloaded["gpu_time_per_token_change"].as_f64().unwrap() > 0.0);
    let output = vram().args([query, "--fixes"]).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("What would make it fit? ZeRO-3 needs "),
        "{text}"
    );
    assert!(text.contains(" 2. Activation recomputation "), "{text}");
    // The lesson's ZeRO-3 fits: nothing to fix, and the JSON says so.
    let lesson = json_of(&["--stage", "3", "--fixes"]);
    assert_eq!(lesson["fixes"]["fits"], true);
    assert_eq!(lesson["fixes"]["fixes"], serde_json::json!([]));
    // Without --fixes the document has no such key.
    assert!(json_of(&[query]).get("fixes").is_none());
}

/// The issue's deployment (`job=serve`): the table as the page words it,
/// and `--json`'s `serve` object carrying every figure the issue names, per
/// GPU, in the `{value, unit}` form, the same as the core's report.
#[test]
fn serving_the_issues_deployment_in_text_and_json() {
    let args = [
        "--job",
        "serve",
        "--model",
        "llama3.1-70b",
        "--gpu",
        "h100-80gb",
        "--gpus",
        "2",
        "--tp",
        "2",
        "--max-len",
        "32768",
        "--kv-dtype",
        "fp8",
        "--weights",
        "fp8",
    ];
    let (serve, config) = snapshot_and_job("serve_llama_3_1_70b", &args, "serve");
    for key in [
        "weights_bytes",
        "kv_bytes_per_token",
        "kv_budget_bytes",
        "activation_peak_bytes",
        "cuda_graph_bytes",
        "total_bytes",
        "prefill_tokens_per_second",
        "decode_tokens_per_second",
    ] {
        assert!(serve[key]["value"].is_number(), "{key}: {}", serve[key]);
        assert!(serve[key]["unit"].is_string(), "{key}");
    }
    for key in [
        "kv_blocks",
        "kv_tokens",
        "max_concurrency",
        "max_model_len_fits",
    ] {
        assert!(serve[key].is_number(), "{key}");
    }
    assert_eq!(serve["fits"], true);
    assert_eq!(serve["kv_page_bytes"][0]["kind"], "full");
    // vLLM 0.34.0 (options alone take the newest): blocks of 64 tokens.
    assert_eq!(
        serve["kv_page_bytes"][0]["page_bytes"]["value"],
        64.0 * 4.0 * 128.0 * 2.0
    );
    // The same figures as the core's.
    let report = config.serve_report().unwrap();
    assert_eq!(serve["kv_tokens"], report.kv_tokens);
    assert_close(
        serve["weights_bytes"]["value"].as_f64().unwrap(),
        report.weights_bytes,
    );
    // The ranked layouts, each a link that runs.
    let args: Vec<&str> = args.iter().copied().chain(["--plans"]).collect();
    let ranked = json_of(&args);
    let plans = ranked["plans"].as_array().unwrap();
    assert!(!plans.is_empty());
    for plan in plans {
        let config = linked_config(plan);
        assert!(config.serve_report().unwrap().fits, "{plan}");
    }
    // --fixes is training's.
    let refused = vram().args(args).arg("--fixes").output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

/// Qwen2.5-7B GRPO on 8 × H20 as options, rollout TP 2 last.
const RL_QWEN: [&str; 16] = [
    "--job",
    "rl",
    "--model",
    "qwen2.5-7b",
    "--gpu",
    "h20",
    "--gpus",
    "8",
    "--dtype",
    "bf16",
    "--stage",
    "3",
    "--recompute",
    "full",
    "--rollout-tp",
    "2",
];

/// The issue's first RL case (`job=rl`): Qwen2.5-7B GRPO on 8 × H20, both
/// phases, the step and verl's overrides as the page words them, and
/// `--json`'s `rl` object with the figures of the core's report.
#[test]
fn grpo_on_eight_h20s_in_text_and_json() {
    let args = RL_QWEN;
    let (rl, config) = snapshot_and_job("rl_qwen2_5_7b_grpo", &args, "rl");
    let report = config.rl_report().unwrap();
    for (phase, expected) in [
        ("generate", report.generate.as_ref().unwrap()),
        ("learn", &report.learn),
    ] {
        assert_eq!(rl[phase]["fits"], true, "{phase}");
        assert_eq!(rl[phase]["total_bytes"]["unit"], "B", "{phase}");
        assert_close(
            rl[phase]["total_bytes"]["value"].as_f64().unwrap(),
            expected.total_bytes,
        );
    }
    assert_close(
        rl["host_bytes_per_node"]["value"].as_f64().unwrap(),
        report.host_bytes_per_node,
    );
    assert_close(
        rl["step_seconds"]["value"].as_f64().unwrap(),
        report.time.unwrap().step_seconds,
    );
    assert_eq!(rl["sequences"], 256 * 8);
    // The timeline: the phases in order, the peak and its relief's key.
    let timeline = &rl["timeline"];
    let stages: Vec<&str> = timeline["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert_eq!(
        stages,
        [
            "wake",
            "weight_sync",
            "generate",
            "sleep",
            "log_probs",
            "update"
        ]
    );
    assert_eq!(timeline["peak"], "generate");
    assert_eq!(timeline["relief"], "gpu_util");
    assert_close(
        timeline["stages"][2]["bytes"]["value"].as_f64().unwrap(),
        report.generate.as_ref().unwrap().total_bytes,
    );
    // --plans and --fixes are training's.
    for refused in ["--plans", "--fixes"] {
        let output = vram().args(args).arg(refused).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{refused}");
    }
}

/// Llama 2 7B under ZeRO-3 with its optimizer offloaded, in bf16: a plan
/// DeepSpeed exports and torchtitan, which shards with FSDP2, refuses.
const ZERO3_OFFLOADED: [&str; 8] = [
    "--model",
    "llama2-7b",
    "--stage",
    "3",
    "--offload",
    "optimizer",
    "--dtype",
    "bf16",
];

/// `--export` (issue 46): the framework's own text on stdout, the core's
/// to the byte (DeepSpeed's JSON alone, its launch line on stderr); a
/// framework that cannot run the configuration says why, status 2.
#[test]
fn export_prints_the_frameworks_own_configuration() {
    let args = ZERO3_OFFLOADED;
    let output = vram()
        .args(args)
        .args(["--export", "deepspeed"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON alone on stdout");
    assert_eq!(json["zero_optimization"]["stage"], 3);
    assert_eq!(
        json["zero_optimization"]["offload_optimizer"]["device"],
        "cpu"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr
            .contains("# deepspeed --num_nodes 1 --num_gpus 8 train.py --deepspeed ds_config.json"),
        "{stderr}"
    );
    let link = json_of(&args)["link"].as_str().unwrap().to_string();
    let config = decode(&link).config;
    let expected = vram_launch::export(&config, vram_launch::Target::DeepSpeed, "").unwrap();
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
    let refused = vram()
        .args(args)
        .args(["--export", "torchtitan"])
        .output()
        .unwrap();
    assert_refused_saying(refused, "--export torchtitan: torchtitan shards with FSDP2");
}

/// A preset whose architecture was edited is no longer that model: the RL
/// run's and the deployment's headings say a custom model, from the preset
/// (issue 61: the title kept the preset's name).
#[test]
fn an_edited_preset_is_headed_as_a_custom_model() {
    for job in ["rl", "serve"] {
        let link = format!("?v=3&job={job}&model=qwen2.5-7b&gpu=h100-80gb&layers=10");
        let first = printed(&[&link])
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(
            first.contains("a custom model (from Qwen2.5 7B)"),
            "{first}"
        );
    }
    let plain = printed(&["?v=3&job=rl&model=qwen2.5-7b&gpu=h100-80gb"]);
    assert!(plain.starts_with("GRPO of Qwen2.5 7B on"), "{plain}");
}

/// docs/links.md's prose names every family a config.json is read as and
/// every GPU preset (issue 62: it lacked five families and six GPUs).
#[test]
fn the_links_page_names_every_family_and_gpu() {
    let links =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/links.md"))
            .unwrap();
    let prose = links
        .split_once("<!-- vram --keys: end -->")
        .map_or(links.as_str(), |(_, after)| after);
    for family in vram_core::model::hub::MODEL_TYPES {
        assert!(prose.contains(&format!("`{family}`")), "family {family}");
    }
    for gpu in vram_core::gpu::GPU_PRESETS {
        assert!(prose.contains(&format!("`{}`", gpu.id)), "GPU {}", gpu.id);
    }
}

/// A job's arguments, the heading every view of it has in English and in
/// Chinese (the table's, Markdown's and HTML's alike; serving's and RL's
/// CSV carry it as their section).
const JOBS: [(&str, &[&str], &str, &str); 3] = [
    ("train", &["--model", "llama2-7b"], "Strategy", "策略"),
    (
        "serve",
        &[
            "--job",
            "serve",
            "--model",
            "llama3.1-8b",
            "--gpu",
            "h100-80gb",
            "--gpus",
            "1",
        ],
        "What the engine takes of each GPU",
        "引擎在每张 GPU 上占用的显存",
    ),
    (
        "rl",
        RL_QWEN.split_at(14).0,
        "A step, phase by phase, on one GPU",
        "一步的各个阶段（单卡）",
    ),
];

/// Whether `c` is a Chinese character.
fn cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// CSV as RFC 4180 writes it (quoted fields, doubled quotes, CRLF), a
/// record a line; the text must end with a line end.
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(!quoted && field.is_empty() && record.is_empty(), "{text}");
    records
}

/// Issue 62 ("Say only what is true"): every job, in every format, in both
/// languages. The table, Markdown and HTML speak the configuration's
/// language (`--lang`) and no other: Chinese headings and no English one
/// under `zh`, no Chinese at all under `en`; Markdown has tables, HTML is
/// well-formed markup with tables in the language it declares, CSV parses
/// with its header's columns on every line, JSON is its job's schema and the
/// link keeps the language.
#[test]
fn every_job_in_every_format_speaks_its_language() {
    for (job, args, english, chinese) in JOBS {
        for lang in ["en", "zh"] {
            let (heading, other) = match lang {
                "zh" => (chinese, english),
                _ => (english, chinese),
            };
            let with = |format: Option<&str>| {
                let mut all: Vec<&str> = args.to_vec();
                all.extend(["--lang", lang, "--base-url", "https://example.org/vram/"]);
                all.extend(format);
                printed(&all)
            };
            let context = format!("{job}, {lang}");
            for format in [None, Some("--markdown"), Some("--html")] {
                let text = with(format);
                let context = format!("{context}, {format:?}:\n{text}");
                assert!(text.contains(heading), "{context}");
                assert!(!text.contains(other), "{context}");
                if lang == "en" {
                    assert!(!text.chars().any(cjk), "{context}");
                }
            }
            let markdown = with(Some("--markdown"));
            assert!(
                markdown.contains("|---|--:|---|") || markdown.contains("| --- | ---: |"),
                "{context}: {markdown}"
            );
            let html = with(Some("--html"));
            let document = roxmltree::Document::parse(&html).expect("well-formed markup");
            let root = document.root_element();
            assert_eq!(root.tag_name().name(), "section", "{context}");
            let declared = if lang == "zh" { "zh-Hans" } else { "en" };
            assert_eq!(root.attribute("lang"), Some(declared), "{context}");
            assert!(
                root.descendants().any(|n| n.has_tag_name("td")),
                "{context}"
            );
            assert_eq!(
                root.descendants().any(|n| n.has_tag_name("svg")),
                job == "train",
                "{context}: charts are training's"
            );
            let records = csv_records(&with(Some("--csv")));
            let columns = records[0].len();
            assert!(records.len() > 4, "{context}: {records:?}");
            assert!(records.iter().all(|r| r.len() == columns), "{context}");
            if job != "train" {
                assert_eq!(records[0], ["section", "figure", "value", "unit", "note"]);
                assert!(records[1..].iter().any(|r| r[0] == heading), "{context}");
            }
            let document: Value = serde_json::from_str(&with(Some("--json"))).unwrap();
            let schema = document["schema"].as_str().unwrap();
            assert!(
                schema.starts_with("vram-calculator/"),
                "{context}: {schema}"
            );
            let link = with(Some("--link"));
            assert!(link.starts_with("https://example.org/vram/?v=3&"), "{link}");
            assert_eq!(link.contains("lang=zh"), lang == "zh", "{link}");
        }
    }
}

/// The row of `records` in section `section` named `figure`: its value as
/// a number and its unit.
fn csv_figure(records: &[Vec<String>], section: &str, figure: &str) -> (f64, String) {
    let row = records
        .iter()
        .find(|r| r[0] == section && r[1] == figure)
        .unwrap_or_else(|| panic!("no {figure:?} under {section:?} in {records:?}"));
    (row[2].parse().expect("a number"), row[3].clone())
}

/// Asserts a CSV figure is the core's, in its unit: bytes within 1 B,
/// anything else to the core's own rounding.
fn assert_figure(found: (f64, String), expected: f64, unit: &str) {
    assert_eq!(found.1, unit, "{found:?}");
    let tolerance = if unit == "B" {
        1.0
    } else {
        1e-9 * expected.abs()
    };
    assert!(
        (found.0 - expected).abs() <= tolerance,
        "{found:?}, the core's {expected}"
    );
}

/// Issue 62: serving's and RL's `--csv` carried rounded text ("16.06 GB")
/// under a header that promised figures. Each line is now a figure, its
/// value the core's own, unrounded, with its unit; in either language (the
/// words are the language's, the figures the same); a figure that is words
/// has no unit.
#[test]
fn csv_of_serving_and_rl_carries_the_cores_figures() {
    for lang in [vram_core::format::Lang::En, vram_core::format::Lang::Zh] {
        let t = vram_view::text::of(lang);
        let key = if lang == vram_core::format::Lang::Zh {
            "zh"
        } else {
            "en"
        };
        let serve_args: Vec<&str> = JOBS[1].1.iter().copied().chain(["--lang", key]).collect();
        let config = linked_config(&json_of(&serve_args));
        let report = config.serve_report().unwrap();
        let records = csv_records(&printed(&[&serve_args[..], &["--csv"]].concat()));
        for row in &records[1..] {
            if !row[3].is_empty() {
                let value: f64 = row[2].parse().unwrap_or_else(|_| panic!("{row:?}"));
                assert!(value.is_finite(), "{row:?}");
            }
        }
        let memory = t.serve_memory_heading;
        let weights = csv_figure(&records, memory, t.serve_weights);
        assert_figure(weights, report.weights_bytes, "B");
        assert_figure(
            csv_figure(&records, memory, t.serve_total),
            report.total_bytes,
            "B",
        );
        let kv = csv_figure(&records, t.serve_kv_heading, t.serve_kv_tokens);
        assert_figure(kv, report.kv_tokens as f64, "tokens");
        let speed = report.speed.unwrap();
        let ttft = csv_figure(&records, t.serve_speed_heading, t.serve_ttft);
        assert_figure(ttft, speed.ttft_seconds, "s");

        let rl_args: Vec<&str> = JOBS[2].1.iter().copied().chain(["--lang", key]).collect();
        let config = linked_config(&json_of(&rl_args));
        let report = config.rl_report().unwrap();
        let records = csv_records(&printed(&[&rl_args[..], &["--csv"]].concat()));
        let generate = vram_view::rl::generate_heading(t, &config);
        let generating = report.generate.as_ref().unwrap().total_bytes;
        assert_figure(csv_figure(&records, generate, t.rl_total), generating, "B");
        let learning = csv_figure(&records, t.rl_learn_heading, t.rl_total);
        assert_figure(learning, report.learn.total_bytes, "B");
        let host = csv_figure(&records, t.rl_step_heading, t.rl_host);
        assert_figure(host, report.host_bytes_per_node, "B");
        let step = csv_figure(&records, t.rl_step_heading, t.rl_step);
        assert_figure(step, report.time.unwrap().step_seconds, "s");
        let peak = csv_figure(&records, t.rl_timeline_heading, t.rl_stage_generate);
        assert_figure(peak, generating, "B");
        let relief = records.iter().find(|r| r[1] == t.rl_relief).unwrap();
        assert!(relief[2].ends_with("gpu_util）") || relief[2].ends_with("gpu_util)"));
        assert_eq!(relief[3], "", "{relief:?}");
    }
}

/// Issue 62: `--lang zh` (or a link's `lang=zh`) words the errors about a
/// value, the command line's refusals and the exports' in Chinese, as the
/// page says them; English stays as it was.
#[test]
fn errors_speak_the_configurations_language() {
    let said = |args: &[&str]| refusal(vram().args(args).output().unwrap());
    assert_eq!(
        said(&["--gpus", "0", "--lang", "zh"]).trim(),
        "error: --gpus \"0\": GPU 数量：请输入 1 到 1,048,576 之间的值。"
    );
    let stderr = said(&["?lang=zh&dtype=fp4&overhead=1"]);
    assert_contains_each(
        &stderr,
        &[
            "dtype=\"fp4\": 精度：可用的值：fp32, fp16, bf16",
            "overhead=\"1\": 预留比例：请输入 0 到 0.95 之间的比例。",
        ],
    );
    assert!(said(&["--job", "rl", "--plans", "--lang", "zh"]).contains("--plans 与 --fixes："));
    let serve = [
        "--job",
        "serve",
        "--model",
        "llama3.1-8b",
        "--fixes",
        "--lang",
        "zh",
    ];
    assert!(said(&serve).contains("--fixes：“怎样才能放得下”属于训练"));
    let export = [
        &ZERO3_OFFLOADED[..],
        &["--export", "torchtitan", "--lang", "zh"],
    ]
    .concat();
    assert!(said(&export).contains("--export torchtitan: torchtitan 用 FSDP2 分片"));
    let configs = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/configs");
    let table = printed(&[
        "--config",
        &format!("{configs}/deepseek-v3.json"),
        "--lang",
        "zh",
    ]);
    assert!(
        table.contains("config.json（deepseek_v3）：读取了 hidden_size=7168，"),
        "{table}"
    );
    assert!(table.contains("1 个多词元预测（MTP）层"), "{table}");
    // In English, as before.
    assert!(said(&["--gpus", "0"]).contains("--gpus \"0\": Number of GPUs: Enter 1 to 1,048,576."));
}

/// The lesson's table and its Markdown in Chinese, as `vram --lang zh` prints them.
#[test]
fn the_lesson_in_chinese() {
    assert_prints_snapshot("lesson_table_zh", &["--lang", "zh"]);
    assert_prints_snapshot("lesson_markdown_zh", &["--lang", "zh", "--markdown"]);
    // The ranked plans and the fixes too.
    let plans = printed(&[
        "?model=llama2-70b&gpu=a100-80gb&gpus=8&dtype=bf16&recompute=full&global_batch=64",
        "--plans",
        "--lang",
        "zh",
    ]);
    assert_contains_each(
        &plans,
        &[
            "方案：141 个布局放得下（共 465 个）",
            "每卡峰值",
            "第一个方案的链接：?",
        ],
    );
    let fixes = printed(&[
        "?model=llama2-70b&gpu=a100-80gb&gpus=8&seq=4096&stage=3",
        "--fixes",
        "--lang",
        "zh",
    ]);
    assert!(
        fixes.contains("怎样才能放得下？ZeRO-3 每张 GPU 需要"),
        "{fixes}"
    );
}

/// `--plans` and `--fixes` under `--markdown` keep the terminal's layout in
/// a block of their own; CSV cannot carry them, so `--csv` refuses them.
#[test]
fn plans_and_fixes_in_markdown_and_not_in_csv() {
    let markdown = printed(&["--stage", "3", "--fixes", "--markdown"]);
    assert!(
        markdown.ends_with(
            "\n```text\nWhat would make it fit? Nothing: the highlighted strategy fits.\n```\n"
        ),
        "{markdown}"
    );
    for extra in ["--plans", "--fixes"] {
        let output = vram().args(["--csv", extra]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{extra}");
    }
}

/// A key a link repeats is said, not silently dropped: the first value
/// counts, as the page's decoder and the browser read it (issue 62).
#[test]
fn a_repeated_link_key_is_said() {
    let output = vram().arg("?gpus=4&gpus=8&gpus=2").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8(output.stderr).unwrap();
    assert!(
        said.contains("“gpus=8”: the key is given again; its first value, 4, is used."),
        "{said}"
    );
    assert_eq!(said.matches("given again").count(), 1, "{said}");
}

/// Issue 66, its first formats: `--import` reads a vLLM command (here from
/// standard input) into the configuration, options over it, and says on
/// standard error what it read, what has no bearing and what it did not
/// read; another kind of text is refused with exit 2, nothing on standard
/// output.
#[test]
fn a_vllm_command_is_imported() {
    let command = "# my server\nvllm serve meta-llama/Llama-3.1-70B-Instruct \\\n  --tensor-parallel-size 4 --max-model-len 32768 --kv-cache-dtype fp8 --port 8000 --max-loras 4\n";
    let out = vram()
        .args(["--import", "-", "--gpu", "h100-80gb"])
        .write_stdin(command)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with("Llama 3.1 70B on 4 × H100 80GB: 1 replica of TP 4 × PP 1"),
        "{stdout}"
    );
    assert!(stdout.contains("KV cache fp8"), "{stdout}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--tensor-parallel-size 4 → tp, --max-model-len 32768 → max_len"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no bearing on the figures: --port 8000"),
        "{stderr}"
    );
    assert!(stderr.contains("not read: --max-loras 4"), "{stderr}");
    let refused = vram()
        .args(["--import", "-"])
        .write_stdin("torchrun train.py")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
}

/// Issue 66: `--log` reads a run's log, applies the settings a vLLM log
/// states and lists each figure beside the page's own; text that is no
/// log is refused by name.
#[test]
fn a_vllm_log_is_put_beside_the_figures() {
    let log = "INFO [utils.py:326] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 16384, 'gpu_memory_utilization': 0.8}\nINFO [gpu_model_runner.py:1843] Model loading took 14.99 GiB and 3.2 seconds\nINFO [gpu_worker.py:232] Available KV cache memory: 46.5 GiB\n";
    let run = |args: &[&str], input: &str| vram().args(args).write_stdin(input).output().unwrap();
    let out = run(&["--log", "-", "--gpu", "h100-80gb", "--gpus", "1"], log);
    let stdout = String::from_utf8(out.stdout).unwrap();
    for said in [
        "Llama 3.1 8B on 1 × H100 80GB",
        "vLLM's log: each figure it printed beside this configuration's.",
        "Weights: ours 14.96 GiB, your log 14.99 GiB (line 2; ours −0.2 %)",
        "KV cache budget: ours ",
        "Its settings applied: max_len=16384, gpu_util=0.8, model=llama3.1-8b",
    ] {
        assert!(
            out.status.success() && stdout.contains(said),
            "{said}: {stdout}"
        );
    }
    let refused = run(&["--log", "-"], "hello\n");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert!(
        stderr.contains("--log -: no line of a log read here"),
        "{stderr}"
    );
}
