//! Every `vram` command the README and docs/ show runs, and the figures
//! quoted beside it are what it prints (issue 62: docs that are tested).
//!
//! A command is a line of a fenced block that starts with `vram` (with its
//! `\` continuations), or an inline `` `vram …` `` in the prose. It must
//! exit 0. A block's command may carry a comment (`# …`) quoting figures:
//! each number in it with two or more digits, or a decimal point, must appear
//! in what the command prints.

use assert_cmd::Command;

/// The documents whose commands are held, from the workspace's root.
const DOCUMENTS: [&str; 3] = ["README.md", "docs/using.md", "docs/links.md"];

/// What a shown `FILE` stands for: a config.json of the test fixtures.
const SAMPLE_CONFIG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../core/tests/configs/deepseek-v3.json"
);

/// A command as shown: its words after `vram`, and the comment beside it.
#[derive(Debug)]
struct Shown {
    document: &'static str,
    line: usize,
    args: Vec<String>,
    comment: String,
}

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Splits `line` at its comment: the first `#` after a space, outside quotes.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double, mut previous) = (false, false, ' ');
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && previous.is_whitespace() => {
                return (&line[..i], line[i + 1..].trim());
            }
            _ => {}
        }
        previous = c;
    }
    (line, "")
}

/// The shell's words of `command`, quotes removed; a redirection (`> file`)
/// and what follows it dropped.
fn words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quote) = (Vec::new(), String::new(), None::<char>);
    let mut started = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    if let Some(at) = words.iter().position(|w| w == ">") {
        words.truncate(at);
    }
    words
}

/// Every command `document` shows.
fn shown_in(document: &'static str) -> Vec<Shown> {
    let text = std::fs::read_to_string(root().join(document)).expect(document);
    let mut shown = Vec::new();
    let mut in_block = false;
    let mut pending: Option<(usize, String, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            let (command, comment) = split_comment(line);
            let trimmed = command.trim();
            if let Some((start, so_far, notes)) = pending.take() {
                let joined = format!("{} {}", so_far, trimmed.trim_end_matches('\\'));
                let notes = format!("{notes} {comment}");
                match trimmed.ends_with('\\') {
                    true => pending = Some((start, joined, notes)),
                    false => shown.push((start, joined, notes)),
                }
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix("vram") {
                if !rest.is_empty() && !rest.starts_with(' ') {
                    continue;
                }
                let rest = rest.trim_end_matches('\\').to_string();
                match trimmed.ends_with('\\') {
                    true => pending = Some((i + 1, rest, comment.to_string())),
                    false => shown.push((i + 1, rest, comment.to_string())),
                }
            } else if trimmed.is_empty() && !comment.is_empty() {
                // A comment line under a command describes it.
                if let Some(last) = shown.last_mut() {
                    last.2 = format!("{} {comment}", last.2);
                }
            }
            continue;
        }
        // Inline commands in the prose.
        for (at, _) in line.match_indices("`vram") {
            let rest = &line[at + 1..];
            if let Some(end) = rest.find('`') {
                let command = &rest[..end];
                if command == "vram" || command.starts_with("vram ") {
                    shown.push((i + 1, command["vram".len()..].to_string(), String::new()));
                }
            }
        }
    }
    shown
        .into_iter()
        .map(|(line, command, comment)| Shown {
            document,
            line,
            args: words(&command)
                .into_iter()
                .map(|word| match word.as_str() {
                    // The placeholder for a config.json: a real one.
                    "FILE" => SAMPLE_CONFIG.to_string(),
                    _ => word,
                })
                .collect(),
            comment,
        })
        .collect()
}

/// The numbers a comment quotes that a test can hold: two or more digits,
/// or a decimal point (thousands' commas dropped).
fn quoted_numbers(comment: &str) -> Vec<String> {
    let mut numbers = Vec::new();
    let mut current = String::new();
    let mut chars = comment.chars().peekable();
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        let next_is_digit = chars.peek().is_some_and(char::is_ascii_digit);
        let part_of_name = previous.is_ascii_alphabetic() || previous == '-' || previous == '/';
        match c {
            '0'..='9' if current.is_empty() && part_of_name => {}
            '0'..='9' => current.push(c),
            '.' | ',' if !current.is_empty() && next_is_digit => {
                if c == '.' {
                    current.push(c);
                }
            }
            _ => {
                if !current.is_empty() {
                    numbers.push(std::mem::take(&mut current));
                }
            }
        }
        if !(c.is_ascii_digit() && current.is_empty() && part_of_name) {
            previous = c;
        }
    }
    if !current.is_empty() {
        numbers.push(current);
    }
    numbers
        .into_iter()
        .filter(|n| n.len() >= 2 || n.contains('.'))
        .collect()
}

#[test]
fn the_splitting_reads_the_shell_as_written() {
    assert_eq!(
        split_comment("vram --opt sgd   # DDP with SGD: 56 GB"),
        ("vram --opt sgd   ", "DDP with SGD: 56 GB")
    );
    assert_eq!(
        words(" '?params=70&gpus=64' --gpu-mem 141 > out.html"),
        ["?params=70&gpus=64", "--gpu-mem", "141"]
    );
    assert_eq!(
        quoted_numbers(
            "the lesson: DDP 112 GB, ZeRO-1/2/3 38.5 / 26.25 / 14 GB; 4,096 tokens; RTX 4090; v1"
        ),
        ["112", "38.5", "26.25", "14", "4096", "4090"]
    );
}

#[test]
fn every_documented_command_runs_and_prints_what_its_comment_quotes() {
    let shown: Vec<Shown> = DOCUMENTS.into_iter().flat_map(shown_in).collect();
    assert!(shown.len() >= 30, "{}", shown.len());
    let mut failures = Vec::new();
    for command in &shown {
        let output = Command::cargo_bin("vram")
            .expect("the vram binary")
            .env_remove("NO_COLOR")
            .args(&command.args)
            .output()
            .expect("vram runs");
        let place = format!(
            "{}:{} vram {}",
            command.document,
            command.line,
            command.args.join(" ")
        );
        if !output.status.success() {
            failures.push(format!(
                "{place}: exit {:?}: {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        let printed = String::from_utf8_lossy(&output.stdout).replace(',', "");
        for number in quoted_numbers(&command.comment) {
            if !printed.contains(&number) {
                failures.push(format!("{place}: quotes {number}, which it does not print"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
