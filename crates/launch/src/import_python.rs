//! The keyword arguments of a Python call as a training script writes them
//! (`TrainingArguments(per_device_train_batch_size=4, bf16=True, …)`,
//! `LoraConfig(r=16, target_modules=["q_proj", "v_proj"])`), read without
//! running Python: literals only — numbers, strings, `True`/`False`/`None`,
//! lists of those, and dotted names (`torch.bfloat16`); anything else is
//! kept as its text, for the reader to say unread.

/// One argument's value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PyValue {
    /// A number as written.
    Number(f64),
    /// A string literal's contents.
    Str(String),
    /// `True` or `False`.
    Bool(bool),
    /// `None`.
    None,
    /// A list or tuple of values.
    List(Vec<PyValue>),
    /// A name or a dotted name (`torch.bfloat16`), or any other expression,
    /// as written.
    Other(String),
}

impl PyValue {
    /// A whole number within `u32`'s range.
    pub(crate) fn count(&self) -> Option<u32> {
        match self {
            PyValue::Number(n) if n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX) => {
                Some(*n as u32)
            }
            _ => None,
        }
    }

    /// The value as Python would print it, for what is said.
    pub(crate) fn said(&self) -> String {
        match self {
            PyValue::Number(n) => vram_core::decimal::shortest_decimal(*n),
            PyValue::Str(s) => format!("\"{s}\""),
            PyValue::Bool(b) => if *b { "True" } else { "False" }.into(),
            PyValue::None => "None".into(),
            PyValue::List(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(PyValue::said)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            PyValue::Other(text) => text.clone(),
        }
    }
}

/// A call's keyword arguments, in order.
pub(crate) type Arguments = Vec<(String, PyValue)>;

/// Every call of `name(` in `text` (comment lines too: an export names the
/// trainer's arguments in comments), its keyword arguments read; positional
/// arguments are passed over.
pub(crate) fn calls(text: &str, name: &str) -> Vec<Arguments> {
    let mut found = Vec::new();
    let pattern = format!("{name}(");
    let mut rest = text;
    while let Some(at) = rest.find(&pattern) {
        // A longer name ending in this one (`MyTrainingArguments(`) is not it.
        let before = rest[..at].chars().next_back();
        let inside = &rest[at + pattern.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            rest = inside;
            continue;
        }
        let (arguments, used) = arguments(inside);
        found.push(arguments);
        rest = &inside[used..];
    }
    found
}

/// The keyword arguments up to the call's closing bracket, and the bytes read.
fn arguments(text: &str) -> (Arguments, usize) {
    let mut parser = Parser { text, at: 0 };
    let mut arguments = Vec::new();
    loop {
        parser.skip_space();
        match parser.peek() {
            None => break,
            Some(')') => {
                parser.at += 1;
                break;
            }
            Some(',') => {
                parser.at += 1;
                continue;
            }
            _ => {}
        }
        let start = parser.at;
        let name = parser.identifier();
        parser.skip_space();
        if !name.is_empty() && parser.peek() == Some('=') && parser.peek_at(1) != Some('=') {
            parser.at += 1;
            let value = parser.value();
            arguments.push((name, value));
        } else {
            // A positional argument: passed over.
            parser.at = start;
            let _ = parser.value();
        }
        if parser.at == start {
            parser.at += parser.peek().map_or(1, char::len_utf8);
        }
    }
    (arguments, parser.at)
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.text[self.at..].chars().nth(n)
    }

    /// Spaces, newlines and `#` comments.
    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c == '#' {
                let end = self.text[self.at..]
                    .find('\n')
                    .map_or(self.text.len(), |n| self.at + n);
                self.at = end;
            } else if c.is_whitespace() {
                self.at += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn identifier(&mut self) -> String {
        let start = self.at;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' || c == '.' {
                self.at += c.len_utf8();
            } else {
                break;
            }
        }
        self.text[start..self.at].to_string()
    }

    /// A literal, a list, or an expression kept as its text up to the next
    /// comma or closing bracket at its own depth.
    fn value(&mut self) -> PyValue {
        self.skip_space();
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.at += 1;
                let start = self.at;
                while let Some(c) = self.peek() {
                    self.at += c.len_utf8();
                    if c == q {
                        return PyValue::Str(self.text[start..self.at - 1].to_string());
                    }
                }
                PyValue::Str(self.text[start..].to_string())
            }
            Some(open @ ('[' | '(')) => {
                let close = if open == '[' { ']' } else { ')' };
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    match self.peek() {
                        None => break,
                        Some(c) if c == close => {
                            self.at += 1;
                            break;
                        }
                        Some(',') => self.at += 1,
                        _ => {
                            let before = self.at;
                            items.push(self.value());
                            if self.at == before {
                                self.at += self.peek().map_or(1, char::len_utf8);
                            }
                        }
                    }
                }
                PyValue::List(items)
            }
            _ => {
                let start = self.at;
                let mut depth = 0usize;
                while let Some(c) = self.peek() {
                    match c {
                        '(' | '[' | '{' => depth += 1,
                        ')' | ']' | '}' if depth == 0 => break,
                        ')' | ']' | '}' => depth -= 1,
                        ',' if depth == 0 => break,
                        '\n' if depth == 0 => break,
                        _ => {}
                    }
                    self.at += c.len_utf8();
                }
                let word = self.text[start..self.at].trim();
                match word {
                    "True" => PyValue::Bool(true),
                    "False" => PyValue::Bool(false),
                    "None" => PyValue::None,
                    _ => word
                        .replace('_', "")
                        .parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite())
                        .map_or_else(|| PyValue::Other(word.to_string()), PyValue::Number),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_arguments_are_read_as_literals() {
        let text = "# LoraConfig(r=16, target_modules=[\"q_proj\", 'v_proj'], lora_dropout=0.05)\nargs = TrainingArguments(\n    output_dir,  # positional\n    per_device_train_batch_size=4,\n    bf16=True, optim=\"adamw_torch\", torch_dtype=torch.bfloat16, lr=2e-5, n=1_000,\n)";
        let lora = calls(text, "LoraConfig");
        assert_eq!(lora.len(), 1);
        assert_eq!(lora[0][0], ("r".to_string(), PyValue::Number(16.0)));
        assert_eq!(
            lora[0][1].1,
            PyValue::List(vec![
                PyValue::Str("q_proj".into()),
                PyValue::Str("v_proj".into())
            ])
        );
        let args = &calls(text, "TrainingArguments")[0];
        let names: Vec<&str> = args.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "per_device_train_batch_size",
                "bf16",
                "optim",
                "torch_dtype",
                "lr",
                "n"
            ]
        );
        assert_eq!(args[3].1, PyValue::Other("torch.bfloat16".into()));
        assert_eq!(args[5].1.count(), Some(1000));
        assert!(calls(text, "Arguments").is_empty());
    }

    #[test]
    fn broken_text_never_panics() {
        for text in [
            "Config(",
            "Config(a=",
            "Config(a=[1, (2",
            "Config(=1)",
            "Config('x",
            "Config(a==b)",
        ] {
            let _ = calls(text, "Config");
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    proptest::proptest! {
        /// Any text read as a call never panics, and every argument read
        /// has a name.
        #[test]
        fn any_text_is_read_without_a_panic(text in "[A-Za-z_=(),\\[\\]'\" .0-9#\n-]{0,80}") {
            for arguments in super::calls(&format!("Config({text}"), "Config") {
                for (name, _) in arguments {
                    proptest::prop_assert!(!name.is_empty());
                }
            }
        }
    }
}
