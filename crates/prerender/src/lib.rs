//! The page's default view written into the built `index.html` at build time
//! (`scripts/post-build`): what the WebAssembly would mount, rendered natively
//! by the same components (`vram_app::prerender`), so that the figures and the
//! charts paint from the HTML, one round trip after the address is opened.
//! When the WebAssembly starts, it mounts the live page and removes this one
//! in the same task (`vram_app::mount`).

/// Why the markup could not be placed.
#[derive(Debug, PartialEq, Eq)]
pub enum PlaceError {
    /// The page has no `<body>` to place it in.
    NoBody,
    /// The page already holds a rendered view (the step ran twice).
    AlreadyPlaced,
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlaceError::NoBody => "no <body> in the page",
            PlaceError::AlreadyPlaced => "the page already holds a rendered view",
        })
    }
}

impl std::error::Error for PlaceError {}

/// The marker of the rendered view's root, which the client replaces.
pub const MARKER: &str = "data-prerendered";

/// The class [`guard`] gives `<html>` when the rendered view is not the one
/// the address asks for; the style sheet hides the view under it.
pub const NOT_THIS_VIEW: &str = "vram-fresh";

/// A script for the page's `<head>`, run before its body is painted: the view
/// written at build time is the default configuration's (its link's query is
/// `default_query`) in English, so under a link with another query, the
/// ranked plans asked for (`#plans`), or a browser that prefers Chinese
/// (`Lang::resolve`'s rule: the first of the preferred languages that is `zh`
/// or `en`), `<html>` is marked [`NOT_THIS_VIEW`] and no figure of it is seen
/// until the WebAssembly has shown the page's own.
pub fn guard(default_query: &str) -> String {
    format!(
        "<script>(function(){{var s=location.search,l=navigator.languages||[],z=0,i,p;\
         for(i=0;i<l.length;i++){{p=l[i].split(/[-_]/)[0].toLowerCase();if(p==\"zh\"||p==\"en\"){{z=p==\"zh\";break}}}}\
         if(z||(s&&s!=\"?{default_query}\")||location.hash==\"#plans\")\
         document.documentElement.classList.add(\"{NOT_THIS_VIEW}\")}})()</script>"
    )
}

/// `page` (an HTML document) with `view` (the rendered `<main>`) as the first
/// thing in its body, marked with [`MARKER`], and `head` (the [`guard`]) at
/// the end of its head.
pub fn place(page: &str, view: &str, head: &str) -> Result<String, PlaceError> {
    if page.contains(MARKER) {
        return Err(PlaceError::AlreadyPlaced);
    }
    let head_end = page.find("</head>").ok_or(PlaceError::NoBody)?;
    let body = page.find("<body").ok_or(PlaceError::NoBody)?;
    let open_end = body + page[body..].find('>').ok_or(PlaceError::NoBody)? + 1;
    let marked = view.replacen("<main ", &format!("<main {MARKER} "), 1);
    Ok(format!(
        "{}{head}{}{marked}{}",
        &page[..head_end],
        &page[head_end..open_end],
        &page[open_end..]
    ))
}

/// The default configuration's link query (without its `?`).
pub fn default_query() -> String {
    vram_core::input::link::encode(&vram_core::Config::default())
}

/// The page's default view, rendered and [`pruned`].
pub fn default_view() -> String {
    pruned(&vram_app::prerender(""))
}

/// Elements that have no end tag (HTML's void elements).
const VOID: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// One tag of well-formed markup (the renderer's own): its name, whether it
/// ends an element, whether it ends itself (`<path/>`, a void element), and
/// whether it has the boolean attribute `name`.
struct Tag<'a> {
    name: &'a str,
    closing: bool,
    self_closing: bool,
    text: &'a str,
}

impl<'a> Tag<'a> {
    fn parse(text: &'a str) -> Tag<'a> {
        let inner = text.trim_start_matches('<').trim_end_matches('>');
        let closing = inner.starts_with('/');
        let inner = inner.trim_start_matches('/');
        let name = inner
            .split(|c: char| c.is_ascii_whitespace() || c == '/')
            .next()
            .unwrap_or_default();
        let self_closing = inner.ends_with('/') || VOID.contains(&name);
        Tag {
            name,
            closing,
            self_closing,
            text,
        }
    }

    /// Whether the tag carries the attribute `wanted` (with or without a value).
    fn has(&self, wanted: &str) -> bool {
        let mut rest = self.text.trim_start_matches('<').trim_end_matches('>');
        rest = rest[self.name.len()..].trim_start();
        while !rest.is_empty() {
            let end = rest
                .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '/')
                .unwrap_or(rest.len());
            if end == 0 {
                rest = &rest[1..];
                continue;
            }
            let (name, after) = rest.split_at(end);
            if name == wanted {
                return true;
            }
            rest = after.trim_start();
            if let Some(value) = rest.strip_prefix('=') {
                let value = value.trim_start();
                rest = match value.chars().next() {
                    Some(quote @ ('"' | '\'')) => value[1..]
                        .find(quote)
                        .map_or("", |close| &value[close + 2..]),
                    _ => value
                        .find(|c: char| c.is_ascii_whitespace())
                        .map_or("", |space| &value[space..]),
                };
                rest = rest.trim_start();
            }
        }
        false
    }
}

/// The rendered markup without what the browser would not display and the
/// client does not read, so the page's HTML stays small: the contents of
/// `hidden` elements and of closed `<details>` past their `<summary>` (the
/// element and its box stay), and the renderer's empty comments (`<!>`, its
/// places for text that changes; the client mounts its own markup).
pub fn pruned(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    // How deep inside the element whose contents are dropped, and whether a
    // closed `<details>`' summary is being kept.
    let mut dropping: Option<usize> = None;
    let mut summary_depth: Option<usize> = None;
    let mut rest = markup;
    while !rest.is_empty() {
        let (piece, after) = match rest.find('<') {
            Some(0) => {
                let end = if rest.starts_with("<!--") {
                    rest.find("-->").map_or(rest.len(), |e| e + 3)
                } else {
                    rest.find('>').map_or(rest.len(), |e| e + 1)
                };
                rest.split_at(end)
            }
            Some(next) => rest.split_at(next),
            None => (rest, ""),
        };
        rest = after;
        if piece.starts_with("<!") {
            // The renderer's markers (`<!>`, `<!---->`); the document's own doctype is not in a view.
            continue;
        }
        let tag = piece.starts_with('<').then(|| Tag::parse(piece));
        match (&tag, dropping) {
            // Inside a dropped element: only its depth is followed.
            (Some(tag), Some(depth)) if summary_depth.is_none() => {
                if tag.closing {
                    if depth == 0 {
                        dropping = None;
                        out.push_str(piece);
                    } else {
                        dropping = Some(depth - 1);
                    }
                } else if !tag.self_closing {
                    if depth == 0 && tag.name == "summary" && out.ends_with(DETAILS_KEEPS_SUMMARY) {
                        summary_depth = Some(0);
                        out.push_str(piece);
                        continue;
                    }
                    dropping = Some(depth + 1);
                }
            }
            (None, Some(_)) if summary_depth.is_none() => {}
            // A closed `<details>`' summary, kept whole.
            (Some(tag), Some(_)) => {
                let depth = summary_depth.unwrap_or_default();
                out.push_str(piece);
                if tag.closing {
                    summary_depth = depth.checked_sub(1);
                } else if !tag.self_closing {
                    summary_depth = Some(depth + 1);
                }
            }
            (None, Some(_)) => out.push_str(piece),
            (Some(tag), None) => {
                out.push_str(piece);
                if !tag.closing && !tag.self_closing {
                    if tag.has("hidden") {
                        dropping = Some(0);
                    } else if tag.name == "details" && !tag.has("open") {
                        dropping = Some(0);
                        out.push_str(DETAILS_KEEPS_SUMMARY);
                    }
                }
            }
            (None, None) => out.push_str(piece),
        }
    }
    out.replace(DETAILS_KEEPS_SUMMARY, "")
}

/// A mark left in the output while a closed `<details>`' summary is awaited
/// (removed at the end; it cannot occur in the renderer's markup).
const DETAILS_KEEPS_SUMMARY: &str = "\u{0}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_goes_first_in_the_body_marked() {
        let page = "<html><head></head><body class=x><noscript>n</noscript></body></html>";
        let placed = place(page, "<main class=\"c\">m</main>", "<script>g</script>").unwrap();
        assert_eq!(
            placed,
            "<html><head><script>g</script></head><body class=x><main data-prerendered class=\"c\">m</main><noscript>n</noscript></body></html>"
        );
        assert_eq!(place(&placed, "<main>", ""), Err(PlaceError::AlreadyPlaced));
        assert_eq!(
            place("<html></html>", "<main>", ""),
            Err(PlaceError::NoBody)
        );
    }

    #[test]
    fn what_is_not_displayed_is_left_out() {
        let markup = concat!(
            "<div><p hidden class=\"a\">gone <b>x</b><input id=\"y\"></p>",
            "<span aria-hidden=\"true\" title=\"hidden\">kept</span>",
            "<details class=\"f\"><summary>Sum <span class=\"set\">· s</span></summary><div><p>gone</p></div></details>",
            "<details open><summary>S</summary><p>kept<!></p></details>",
            "<svg><path d=\"M0\"/></svg><!---->",
            "</div>",
        );
        assert_eq!(
            pruned(markup),
            concat!(
                "<div><p hidden class=\"a\"></p>",
                "<span aria-hidden=\"true\" title=\"hidden\">kept</span>",
                "<details class=\"f\"><summary>Sum <span class=\"set\">· s</span></summary></details>",
                "<details open><summary>S</summary><p>kept</p></details>",
                "<svg><path d=\"M0\"/></svg>",
                "</div>",
            )
        );
    }

    #[test]
    fn the_default_view_holds_the_lessons_figures_and_three_charts() {
        let view = default_view();
        assert!(
            view.starts_with("<main "),
            "{}",
            &view[..80.min(view.len())]
        );
        for figure in ["112", "38.5", "26.25", "14"] {
            assert!(view.contains(figure), "{figure} missing");
        }
        assert_eq!(view.matches("<svg").count(), 3, "charts as SVG");
    }

    #[test]
    #[ignore]
    fn dump() {
        std::fs::write("/tmp/prerendered.html", default_view()).unwrap();
    }
}
