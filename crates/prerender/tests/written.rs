//! The written view brought to a lesson link's figures (`vram_view::written::patches`,
//! applied in the browser by `crates/first`) equals the view the page's own
//! components render for that link (`vram_app::prerender`), markup and all,
//! for every lesson link drawn here: so what a student sees before the
//! page's WebAssembly arrives is what it then shows.

use vram_core::format::Lang;
use vram_core::input::link;
use vram_core::Field;
use vram_view::chart::{ChartKind, HEIGHT_CSS};
use vram_view::written::{lesson_config, patches, Change, Patch, Target};

/// The written view's width, in CSS pixels (`vram_app::chart`'s natively).
const SVG_WIDTH: u32 = 720;

/// A start tag's span in `markup`: from its `<` to its `>` (inclusive).
fn start_tags(markup: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = markup.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || loop {
        let open = at + markup[at..].find('<')?;
        let close = open + markup[open..].find('>')?;
        at = close + 1;
        let next = *bytes.get(open + 1)?;
        if next.is_ascii_alphabetic() {
            return Some((open, close));
        }
    })
}

/// The tag's name of the start tag at `open`.
fn tag_name(markup: &str, open: usize) -> &str {
    let rest = &markup[open + 1..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The value of `name` in the start tag `tag`, if it has it.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let needle = format!(" {name}=\"");
    let at = tag.find(&needle)? + needle.len();
    Some(&tag[at..at + tag[at..].find('"')?])
}

/// The start tag the target names.
fn find(markup: &str, target: &Target) -> Option<(usize, usize)> {
    for (open, close) in start_tags(markup) {
        let tag = &markup[open..=close];
        let found = match target {
            Target::TestId(id) => attribute(tag, "data-testid") == Some(id),
            Target::Control(key) => {
                matches!(tag_name(markup, open), "input" | "select")
                    && attribute(tag, "name") == Some(key)
            }
        };
        if found {
            return Some((open, close));
        }
    }
    None
}

/// Where the element whose start tag ends at `close` ends: its content's end
/// (the `<` of its end tag).
fn content_end(markup: &str, open: usize, close: usize) -> usize {
    let name = tag_name(markup, open);
    let (start, end) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 1;
    let mut at = close + 1;
    loop {
        let next_end = at + markup[at..].find(&end).expect("an end tag");
        match markup[at..next_end].find(&start) {
            Some(i) if markup[at + i + start.len()..].starts_with([' ', '>']) => {
                depth += 1;
                at += i + start.len();
            }
            Some(i) => at += i + start.len(),
            None => {
                depth -= 1;
                if depth == 0 {
                    return next_end;
                }
                at = next_end + end.len();
            }
        }
    }
}

fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn escape_attribute(text: &str) -> String {
    escape_text(text).replace('"', "&quot;")
}

/// `markup` with `patch` applied, as `crates/first` applies it to the document.
fn apply(markup: &str, patch: &Patch) -> String {
    let Some((open, close)) = find(markup, &patch.target) else {
        return markup.to_string();
    };
    match &patch.change {
        Change::Attr(name, value) => {
            let tag = &markup[open..=close];
            let mut parts: Vec<String> = Vec::new();
            let inner = &tag[1..tag.len() - 1];
            // Attributes as written: name, or name="value".
            let mut rest = inner;
            let mut first = true;
            let mut replaced = false;
            while !rest.is_empty() {
                rest = rest.trim_start();
                let end = match rest.find(['=', ' ']) {
                    Some(i) if rest.as_bytes()[i] == b'=' => {
                        let quote_end = i + 2 + rest[i + 2..].find('"').unwrap();
                        quote_end + 1
                    }
                    Some(i) => i,
                    None => rest.len(),
                };
                let part = &rest[..end];
                rest = &rest[end..];
                if first {
                    parts.push(part.to_string());
                    first = false;
                    continue;
                }
                let part_name = part.split('=').next().unwrap();
                if part_name == *name {
                    replaced = true;
                    if let Some(value) = value {
                        parts.push(written_attribute(name, value));
                    }
                } else {
                    parts.push(part.to_string());
                }
            }
            if !replaced {
                if let Some(value) = value {
                    // A new attribute goes before the class, as Leptos writes them.
                    let at = parts
                        .iter()
                        .position(|p| p.starts_with("class="))
                        .unwrap_or(parts.len());
                    parts.insert(at, written_attribute(name, value));
                }
            }
            format!(
                "{}<{}>{}",
                &markup[..open],
                parts.join(" "),
                &markup[close + 1..]
            )
        }
        Change::Inner(html) => {
            let end = content_end(markup, open, close);
            format!("{}{}{}", &markup[..=close], html, &markup[end..])
        }
        Change::Text(text) => {
            let end = content_end(markup, open, close);
            let content = &markup[close + 1..end];
            // The direct text: outside child elements.
            let mut kept = String::new();
            let (mut depth, mut last_text_at, mut at) = (0usize, None, 0usize);
            while at < content.len() {
                if content[at..].starts_with("</") {
                    let e = at + content[at..].find('>').unwrap() + 1;
                    kept.push_str(&content[at..e]);
                    depth -= 1;
                    at = e;
                } else if content[at..].starts_with('<') {
                    let e = at + content[at..].find('>').unwrap() + 1;
                    let tag = &content[at..e];
                    kept.push_str(tag);
                    let void =
                        tag.ends_with("/>") || tag.starts_with("<input") || tag.starts_with("<br");
                    if !void {
                        depth += 1;
                    }
                    at = e;
                } else {
                    let e = content[at..].find('<').map_or(content.len(), |i| at + i);
                    if depth == 0 {
                        last_text_at = Some(kept.len());
                    } else {
                        kept.push_str(&content[at..e]);
                    }
                    at = e;
                }
            }
            let insert = last_text_at.unwrap_or(kept.len());
            kept.insert_str(insert, &escape_text(text));
            format!("{}{}{}", &markup[..=close], kept, &markup[end..])
        }
    }
}

fn written_attribute(name: &str, value: &str) -> String {
    if value.is_empty() && matches!(name, "hidden" | "selected" | "disabled" | "checked") {
        name.to_string()
    } else {
        format!("{name}=\"{}\"", escape_attribute(value))
    }
}

/// The page's components' view of `query` (no `?`), in the written view's form.
fn rendered(query: &str, lang: Lang) -> String {
    let languages: &[&str] = match lang {
        Lang::Zh => &["zh-CN"],
        _ => &[],
    };
    vram_prerender::pruned(&vram_app::prerender(query, languages))
}

/// The written view of `lang` with `query`'s patches applied.
fn patched(query: &str, lang: Lang) -> String {
    let config = lesson_config(query).expect("a lesson link");
    let report = config.report().expect("a report");
    let t = vram_view::text::of(lang);
    let svg = |kind: ChartKind| {
        vram_view::chart::svg(&report, t, kind, (SVG_WIDTH, HEIGHT_CSS)).unwrap_or_default()
    };
    let written = patches(t, &config, &report, svg)
        .iter()
        .fold(rendered("", lang), |markup, patch| apply(&markup, patch));
    // As displayed: what a patch hid is out of sight, as the rendered view
    // leaves it out.
    vram_prerender::pruned(&written)
}

/// The first line where `a` and `b` differ, with some context.
fn first_difference(a: &str, b: &str) -> Option<String> {
    let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y)?;
    let from = at.saturating_sub(160);
    let window = |s: &str| {
        s.get(from..(at + 160).min(s.len()))
            .unwrap_or("")
            .to_string()
    };
    Some(format!(
        "written: …{}…\nrendered: …{}…",
        window(a),
        window(b)
    ))
}

/// A deterministic draw of lesson links over each lesson field's range.
fn lesson_links(count: usize) -> Vec<String> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut pick = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % n
    };
    let params = [
        "0.125", "1", "1.5", "7", "13", "33", "65", "70", "175", "405", "1000",
    ];
    let gpus = ["1", "2", "3", "4", "8", "16", "64", "512"];
    let memory = ["16", "24", "40", "48", "80", "94", "141", "192"];
    let overhead = ["0", "0.1", "0.2", "0.35", "0.5", "0.9"];
    let mut links = Vec::new();
    for _ in 0..count {
        let mut keys: Vec<String> = Vec::new();
        let maybe = |key: &str,
                     values: &[&str],
                     keys: &mut Vec<String>,
                     pick: &mut dyn FnMut(usize) -> usize| {
            if pick(3) > 0 {
                keys.push(format!("{key}={}", values[pick(values.len())]));
            }
        };
        maybe("params", &params, &mut keys, &mut pick);
        maybe("gpus", &gpus, &mut keys, &mut pick);
        maybe("gpu_mem", &memory, &mut keys, &mut pick);
        maybe("overhead", &overhead, &mut keys, &mut pick);
        for field in [
            Field::Precision,
            Field::GradAcc,
            Field::Optimizer,
            Field::Stage,
        ] {
            maybe(field.key(), field.choices(), &mut keys, &mut pick);
        }
        if pick(3) == 0 {
            keys.push("embed=1".into());
        }
        links.push(keys.join("&"));
    }
    links
}

#[test]
fn the_written_view_patched_for_a_lesson_link_is_the_view_rendered_for_it() {
    let mut links = vec![
        // The lesson's Q6 embeds, and a Chinese lesson link with a size typed.
        "embed=1&params=13&stage=2".to_string(),
        "embed=1&params=33&stage=3".to_string(),
        "embed=1&params=70&stage=3".to_string(),
        "params=33&stage=3".to_string(),
    ];
    links.extend(vram_view::lesson::STEPS.iter().filter_map(|step| {
        let query = step.query.trim_start_matches('?');
        lesson_config(query).map(|_| query.to_string())
    }));
    let drawn: Vec<String> = lesson_links(80)
        .into_iter()
        .filter(|query| lesson_config(query).is_some())
        .collect();
    // FP8 shows its recipe's field, which the written view has not: left to the page.
    assert!(
        drawn.len() >= 50,
        "{} of 80 drawn links are lesson links",
        drawn.len()
    );
    links.extend(drawn);
    for query in &links {
        for lang in [Lang::En, Lang::Zh] {
            let full = match lang {
                Lang::Zh => format!("lang=zh&{query}"),
                _ => query.clone(),
            };
            let written = patched(&full, lang);
            let rendered = rendered(&full, lang);
            if let Some(difference) = first_difference(&written, &rendered) {
                panic!("?{full}: the written view differs\n{difference}");
            }
            assert_eq!(written.len(), rendered.len(), "?{full}");
        }
    }
    // The link's own encoding reads back as a lesson link.
    let config = lesson_config("params=33&stage=3").unwrap();
    assert!(lesson_config(&link::encode(&config)).is_some());
}

#[test]
fn a_link_beyond_the_lessons_fields_is_left_to_the_page() {
    for query in [
        "model=llama2-7b",
        "job=serve",
        "params=7&seq=4096",
        "params=abc",
        "stage=0",
        "params=7&theme=dark",
    ] {
        assert_eq!(lesson_config(query), None, "{query}");
    }
    assert!(lesson_config("").is_some());
    assert!(lesson_config("v=3&lang=zh&embed=1&params=13&stage=2").is_some());
}
