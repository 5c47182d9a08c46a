//! A launch script's words as bash would pass them to the command: comment
//! lines and trailing comments dropped, `\` continuations joined, quotes
//! removed, the script's own variables substituted — `NAME=value`,
//! `NAME=( … )` arrays and `NAME+=( … )` appends, `$NAME`, `${NAME}`,
//! `${NAME[@]}` and `${NAME:-default}`, a value split on spaces where bash
//! splits it (unquoted, as launch scripts expand their argument arrays) —
//! and the command found after whatever precedes it (`set -x`, `export`,
//! an environment prefix, `ray job submit … --`) and cut at a pipe, a `;`,
//! `&&` or a redirection. A variable the script does not assign stays as
//! written, for the reader to say unread.

use std::collections::HashMap;

/// The shell's words of `text`: comments dropped, continuations joined,
/// quotes removed, a `;` word between commands on lines of their own.
pub(crate) fn shell_words(text: &str) -> Vec<String> {
    let text = heredocs_assigned(text);
    let mut joined = String::new();
    for line in text.lines().map(without_comment).map(str::trim) {
        if line.is_empty() {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(continued) => {
                joined.push_str(continued);
                joined.push(' ');
            }
            None => {
                joined.push_str(line);
                joined.push_str(" \u{0};");
            }
        }
    }
    let (mut words, mut word, mut quote) = (Vec::new(), String::new(), None::<char>);
    let mut chars = joined.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), '\u{0}') => {
                // A line ends inside quotes: the string goes on.
                let _ = chars.next();
                word.push(' ');
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, '\u{0}') => {
                let _ = chars.next();
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                words.push(";".to_string());
            }
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// `read -r -d '' NAME <<EOF` … `EOF` (how OpenRLHF's examples hold their
/// command) as `NAME="…"`, the lines between joined.
fn heredocs_assigned(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let heredoc = line.trim_start().starts_with("read ").then(|| {
            let (head, delimiter) = line.split_once("<<")?;
            let name = head.split_whitespace().last()?;
            let delimiter = delimiter
                .trim()
                .trim_matches(|c| c == '\'' || c == '"' || c == '-');
            (!delimiter.is_empty()).then(|| (name.to_string(), delimiter.to_string()))
        });
        match heredoc.flatten() {
            Some((name, delimiter)) => {
                let body: Vec<&str> = lines
                    .by_ref()
                    .take_while(|l| l.trim() != delimiter)
                    .map(|l| without_comment(l).trim().trim_end_matches('\\').trim())
                    .collect();
                out.push_str(&format!("{name}=\"{}\"\n", body.join(" ").replace('"', "")));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// A line without its comment: from a `#` that starts a word, outside
/// quotes, to the end (`--flag value # why`).
fn without_comment(line: &str) -> &str {
    let mut quote = None::<char>;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') if previous.is_whitespace() => return &line[..i],
            _ => {}
        }
        previous = c;
    }
    line
}

/// The words with the script's variables substituted and its assignments
/// (`NAME=…`, `NAME=( … )`, `NAME+=( … )`, `export`) dropped.
pub(crate) fn substituted(words: &[String]) -> Vec<String> {
    let mut vars: HashMap<String, Vec<String>> = HashMap::new();
    let mut out = Vec::new();
    // The array being read: its name, whether it appends, its items.
    let mut array: Option<(String, bool, Vec<String>)> = None;
    // Whether the next word starts a command (where `NAME=value` assigns).
    let mut at_start = true;
    // Inside a `set` line.
    let mut skipping = false;
    for word in words {
        if let Some((name, append, items)) = array.as_mut() {
            if word == ";" {
                continue;
            }
            let (item, closes) = match word.strip_suffix(')') {
                Some(item) => (item, true),
                None => (word.as_str(), false),
            };
            if !item.is_empty() {
                items.extend(expand(item, &vars));
            }
            if closes {
                let (name, append, items) = (std::mem::take(name), *append, std::mem::take(items));
                match append {
                    true => vars.entry(name).or_default().extend(items),
                    false => {
                        vars.insert(name, items);
                    }
                }
                array = None;
            }
            continue;
        }
        if matches!(word.as_str(), ";" | "|" | "||" | "&&" | "&") {
            at_start = true;
            skipping = false;
            out.push(word.clone());
            continue;
        }
        match assignment(word).filter(|_| at_start) {
            Some((name, append, value)) if value.starts_with('(') => {
                let rest = &value[1..];
                array = Some((name.to_string(), append, Vec::new()));
                if !rest.is_empty() {
                    // `NAME=(a b)` on one word's line: its first item, or all of it.
                    let (item, closes) = match rest.strip_suffix(')') {
                        Some(item) => (item, true),
                        None => (rest, false),
                    };
                    if let Some((_, _, items)) = array.as_mut() {
                        items.extend(expand(item, &vars));
                    }
                    if closes {
                        if let Some((name, append, items)) = array.take() {
                            match append {
                                true => vars.entry(name).or_default().extend(items),
                                false => {
                                    vars.insert(name, items);
                                }
                            }
                        }
                    }
                }
            }
            Some((name, append, value)) => {
                let items = expand(value, &vars);
                match append {
                    true => vars.entry(name.to_string()).or_default().extend(items),
                    false => {
                        vars.insert(name.to_string(), items);
                    }
                }
            }
            None if at_start && word == "export" => {}
            // `set -x` and the like: the shell's own options.
            None if at_start && word == "set" => skipping = true,
            None if skipping => {}
            None => {
                at_start = false;
                out.extend(expand(word, &vars));
            }
        }
    }
    out
}

/// `NAME=value` or `NAME+=value` (a shell variable's name: letters,
/// digits and `_`, not starting with a digit), as the name, whether it
/// appends, and the value.
fn assignment(word: &str) -> Option<(&str, bool, &str)> {
    let (left, value) = word.split_once('=')?;
    let (name, append) = match left.strip_suffix('+') {
        Some(name) => (name, true),
        None => (left, false),
    };
    let valid = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, append, value))
}

/// One word with its variables replaced; a word that is a variable alone
/// becomes its items, split on spaces (bash's unquoted expansion).
fn expand(word: &str, vars: &HashMap<String, Vec<String>>) -> Vec<String> {
    let replaced = replace_variables(word, vars);
    if replaced == word {
        return vec![word.to_string()];
    }
    // A variable inside a longer word (`key=$VALUE`): as scripts quote it,
    // one word.
    match word.starts_with('$') {
        true => replaced.split_whitespace().map(String::from).collect(),
        false => vec![replaced],
    }
}

/// `word` with each `$NAME`, `${NAME}`, `${NAME[@]}` and `${NAME:-default}`
/// the script assigned replaced by its value (a default where it did not).
fn replace_variables(word: &str, vars: &HashMap<String, Vec<String>>) -> String {
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        // Arithmetic, `$((8*2))`: whole numbers and + - * /.
        if let Some(expression) = after.strip_prefix("((") {
            if let Some(end) = expression.find("))") {
                let inner = bare_names(&replace_variables(&expression[..end], vars), vars);
                match arithmetic(&inner) {
                    Some(n) => out.push_str(&n.to_string()),
                    None => out.push_str(&rest[at..at + 3 + end + 2]),
                }
                rest = &expression[end + 2..];
                continue;
            }
        }
        let (inner, used) = match after.strip_prefix('{') {
            Some(braced) => match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => {
                    out.push_str(&rest[at..]);
                    return out;
                }
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner.trim_end_matches("[@]").trim_end_matches("[*]"), None),
        };
        match (vars.get(name), default) {
            (Some(items), _) => out.push_str(&items.join(" ")),
            (None, Some(default)) => out.push_str(default),
            (None, None) => out.push_str(&rest[at..at + 1 + used]),
        }
        rest = &after[used..];
    }
    out.push_str(rest);
    out
}

/// An arithmetic expression's bare names (`TP*2`: bash reads `TP` as the
/// variable) replaced by their values.
fn bare_names(expression: &str, vars: &HashMap<String, Vec<String>>) -> String {
    let mut out = String::new();
    let mut name = String::new();
    let flush = |name: &mut String, out: &mut String| {
        if !name.is_empty() {
            match vars.get(name.as_str()) {
                Some(items) => out.push_str(&items.join(" ")),
                None => out.push_str(name),
            }
            name.clear();
        }
    };
    for c in expression.chars() {
        if c.is_ascii_alphabetic() || c == '_' || (!name.is_empty() && c.is_ascii_digit()) {
            name.push(c);
        } else {
            flush(&mut name, &mut out);
            out.push(c);
        }
    }
    flush(&mut name, &mut out);
    out
}

/// A whole-number expression of `+`, `-`, `*` and `/` (the last two first),
/// as bash's `$(( ))` computes it; `None` for anything else.
fn arithmetic(expression: &str) -> Option<i64> {
    let mut sum: i64 = 0;
    for (i, term) in expression.split(['+', '-']).enumerate() {
        let sign = match i {
            0 => 1,
            _ => {
                // The operator before this term.
                let before: usize = expression
                    .split(['+', '-'])
                    .take(i)
                    .map(|t| t.len() + 1)
                    .sum();
                if expression.as_bytes().get(before - 1) == Some(&b'-') {
                    -1
                } else {
                    1
                }
            }
        };
        let mut product: i64 = 1;
        let mut dividing = false;
        let mut rest = term;
        loop {
            let end = rest.find(['*', '/']).unwrap_or(rest.len());
            let n: i64 = rest[..end].trim().parse().ok()?;
            product = match dividing {
                true => product.checked_div(n)?,
                false => product.checked_mul(n)?,
            };
            if end == rest.len() {
                break;
            }
            dividing = rest.as_bytes()[end] == b'/';
            rest = &rest[end + 1..];
        }
        sum = sum.checked_add(sign * product)?;
    }
    Some(sum)
}

/// The words of one command: up to a pipe, `;`, `&&`, `||`, `&` or a
/// redirection (`> file`, `2>&1`).
pub(crate) fn one_command(words: &[String]) -> &[String] {
    let end = words
        .iter()
        .position(|w| {
            matches!(w.as_str(), "|" | "||" | "&&" | ";" | "&")
                || w.starts_with('>')
                || w.starts_with("2>")
                || w.starts_with("1>")
                || w.starts_with("&>")
        })
        .unwrap_or(words.len());
    &words[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        substituted(&shell_words(text))
    }

    #[test]
    fn variables_arrays_appends_and_defaults_are_substituted() {
        let text = "set -x\nexport TP=2\nNODES=${NODES:-4}\nARGS=(\n  --tp $TP   # why\n  \"--fp8-format hybrid\"\n)\nARGS+=(--nodes ${NODES})\nSTR=\"--a 1 --b 2\"\nrun ${ARGS[@]} $STR $UNSET path=$HOME_X/x --pp $((TP*3-1)) 2>&1 | tee log";
        let all = words(text);
        let run = all.iter().position(|w| w == "run").unwrap();
        assert_eq!(
            one_command(&all[run..]),
            [
                "run",
                "--tp",
                "2",
                "--fp8-format",
                "hybrid",
                "--nodes",
                "4",
                "--a",
                "1",
                "--b",
                "2",
                "$UNSET",
                "path=$HOME_X/x",
                "--pp",
                "5"
            ]
        );
    }

    #[test]
    fn broken_scripts_never_panic() {
        for text in [
            "A=(",
            "A=(x",
            "${",
            "$",
            "${A:-",
            "A+=1 $A",
            "=x",
            "A=) )",
            "$((",
            "$((1/0))",
            "$((9999999999*9999999999*99))",
            "$((-))",
        ] {
            let _ = words(text);
        }
    }
}
