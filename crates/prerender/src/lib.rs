//! The page's default view written into the built `index.html` at build time
//! (`scripts/post-build`): what the WebAssembly would mount, rendered natively
//! by the same components (`vram_app::prerender`), so that the figures and the
//! charts paint from the HTML, one round trip after the address is opened.
//! When the WebAssembly starts, it mounts the live page and removes this one
//! in the same task (`vram_app::mount`). The same step inlines the style
//! sheet and moves Trunk's loader to the end of the body, so that on a slow
//! link the document is the only request before the first paint.

/// Why the markup could not be placed.
#[derive(Debug, PartialEq, Eq)]
pub enum PlaceError {
    /// The page has no `<body>` (or no `</head>`) to place it in.
    NoBody,
    /// The page already holds a rendered view (the step ran twice).
    AlreadyPlaced,
    /// The page links no style sheet to inline.
    NoStyleSheet,
}

impl std::fmt::Display for PlaceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PlaceError::NoBody => "no <body> in the page",
            PlaceError::AlreadyPlaced => "the page already holds a rendered view",
            PlaceError::NoStyleSheet => "the page links no style sheet",
        })
    }
}

impl std::error::Error for PlaceError {}

/// The marker of the rendered view's root, which the client replaces.
pub const MARKER: &str = "data-prerendered";

/// The empty element written after each rendered view: the style sheet shows
/// a view only once this follows it, so that a view still arriving (the
/// parser paints what it has) is never seen half built and then moving, its
/// table's columns widening as rows arrive.
pub const END_MARKER: &str = "<template data-prerendered-end></template>";

/// The class [`guard`] gives `<html>` when the rendered view is not the one
/// the address asks for; the style sheet hides the view under it.
pub const NOT_THIS_VIEW: &str = "vram-fresh";

/// The class [`guard`] gives `<html>` when the link asks for Chinese
/// (`lang=zh`) or, without `lang`, the browser prefers it: the style sheet
/// shows the Chinese view instead of the English one.
pub const CHINESE: &str = "vram-zh";

/// The class [`guard`] gives `<html>` when the WebAssembly cannot run (the
/// browser has none, or its loading failed before the live page replaced the
/// written one): the style sheet says so in words, in the page's language.
pub const FAILED: &str = "vram-failed";

/// The queries (without their `?`) under which the views written at build
/// time are the page's own: the default configuration's link, and the same
/// configuration embedded in another page (`embed=1`, as a lesson writes it
/// and as the page writes it back), which only the style sheet lays out
/// differently (`:root[data-embed]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenFor {
    /// The default configuration's link query, as the page writes it.
    pub default_query: String,
    /// The queries of the default configuration embedded.
    pub embed_queries: [String; 2],
}

impl WrittenFor {
    /// The queries of `vram_core::Config::default()`, bare and embedded.
    pub fn defaults() -> Self {
        use vram_core::{input::link, Config};
        WrittenFor {
            default_query: link::encode(&Config::default()),
            embed_queries: [
                "embed=1".to_owned(),
                link::encode(&Config {
                    embed: true,
                    ..Config::default()
                }),
            ],
        }
    }
}

/// A script for the page's `<head>`, run before its body is painted. The
/// views written at build time are the default configuration's
/// ([`WrittenFor`]), in both languages, so a link's `lang=zh` or `lang=en`
/// asks for no other view: under one of its embedded queries `<html>` gets
/// `data-embed`, as the WebAssembly would give it, for the compact layout;
/// under a link with another query, or the ranked plans asked for (`#plans`),
/// `<html>` is marked [`NOT_THIS_VIEW`] and no figure of them is seen until
/// the WebAssembly has shown the page's own (the style sheet says it is
/// loading meanwhile). A link's `lang=zh`, or without `lang` a browser that
/// prefers Chinese (`Lang::resolve`'s rule: the first of the preferred
/// languages that is `zh` or `en`), marks it [`CHINESE`], and the document
/// gets the Chinese page's language and title, as the WebAssembly will give
/// it. Where the WebAssembly cannot run, `<html>` is marked [`FAILED`]. A
/// version-1 or version-2 query (`v=1&…`, `v=2&…`, as the page wrote links
/// before versions 2 and 3) is read as the version the page writes: the
/// written views have no model, and without one every version means the same
/// configuration.
pub fn guard(written: &WrittenFor) -> String {
    let WrittenFor {
        default_query,
        embed_queries: [short, long],
    } = written;
    let chinese = vram_view::text::of(vram_core::format::Lang::Zh);
    let (lang, title) = (chinese.html_lang, chinese.title);
    let version = vram_core::input::link::LINK_VERSION;
    format!(
        "<script>(function(){{var s=location.search,l=navigator.languages||[],r=document.documentElement,c=r.classList,i,p,f,\
         w=(s.match(/[?&]lang=(zh|en)(?=&|$)/)||[])[1],\
         q=(\"&\"+s.slice(1)).replace(/&lang=(zh|en)(?=&|$)/,\"\").slice(1).replace(/^v=[12](?=&|$)/,\"v={version}\"),\
         e=q==\"{short}\"||q==\"{long}\";\
         for(i=0;i<l.length&&!w;i++){{p=l[i].split(/[-_]/)[0].toLowerCase();if(p==\"zh\"||p==\"en\")w=p}}\
         if(w==\"zh\"){{c.add(\"{CHINESE}\");r.lang=\"{lang}\";document.title={title:?}}}\
         if(e)r.setAttribute(\"data-embed\",\"1\");\
         if((q&&!e&&q!=\"{default_query}\")||location.hash==\"#plans\")c.add(\"{NOT_THIS_VIEW}\");\
         if(typeof WebAssembly!=\"object\")c.add(\"{FAILED}\");\
         f=function(){{if(document.querySelector(\"main[{MARKER}]\"))c.add(\"{FAILED}\")}};\
         addEventListener(\"error\",f);addEventListener(\"unhandledrejection\",f)}})()</script>"
    )
}

/// `page` (an HTML document) with `view` (the rendered `<main>`s) first in its
/// body, each marked with [`MARKER`] and followed by [`END_MARKER`], and
/// `head` (the [`guard`]) at the end of its head.
pub fn place(page: &str, view: &str, head: &str) -> Result<String, PlaceError> {
    if page.contains(MARKER) {
        return Err(PlaceError::AlreadyPlaced);
    }
    let head_end = page.find("</head>").ok_or(PlaceError::NoBody)?;
    let body = page.find("<body").ok_or(PlaceError::NoBody)?;
    let open_end = body + page[body..].find('>').ok_or(PlaceError::NoBody)? + 1;
    let marked = view
        .replace("<main ", &format!("<main {MARKER} "))
        .replace("</main>", &format!("</main>{END_MARKER}"));
    Ok(format!(
        "{}{head}{}{marked}{}",
        &page[..head_end],
        &page[head_end..open_end],
        &page[open_end..]
    ))
}

/// Each tag of `page` that starts with `open` (`<link`, `<script`), whole
/// (through `</script>` for a script), with where it starts.
fn tags<'a>(page: &'a str, open: &str) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = page[from..].find(open).map(|at| from + at) {
        let close = if open == "<script" { "</script>" } else { ">" };
        let Some(end) = page[at..].find(close).map(|end| at + end + close.len()) else {
            break;
        };
        found.push((at, &page[at..end]));
        from = end;
    }
    found
}

/// The address of the page's style sheet (`<link … rel=stylesheet>`), as written.
pub fn stylesheet_href(page: &str) -> Option<&str> {
    let (_, link) = tags(page, "<link")
        .into_iter()
        .find(|(_, tag)| tag.contains("rel=stylesheet") || tag.contains("rel=\"stylesheet\""))?;
    let href = link.split_once("href=")?.1.trim_start_matches('"');
    href.split(['"', ' ', '>']).next()
}

/// `page` with its style sheet's `<link>` replaced by `css` in a `<style>`:
/// the first paint then waits for the document alone, not for a second
/// request on a slow link. (Its hash goes in the CSP's `style-src`:
/// `scripts/csp`.)
pub fn with_style_inlined(page: &str, css: &str) -> Result<String, PlaceError> {
    let (at, link) = tags(page, "<link")
        .into_iter()
        .find(|(_, tag)| tag.contains("rel=stylesheet") || tag.contains("rel=\"stylesheet\""))
        .ok_or(PlaceError::NoStyleSheet)?;
    Ok(format!(
        "{}<style>{}</style>{}",
        &page[..at],
        css.trim(),
        &page[at + link.len()..]
    ))
}

/// `page` with Trunk's loader (its `<script type=module>` and the preloads of
/// the script and the WebAssembly) moved from the head to the end of the
/// body: the browser asks for them once the document has arrived, so on a
/// slow link they do not share it with the document, whose view paints first.
pub fn with_loader_last(page: &str) -> String {
    let head_end = page.find("</head>").unwrap_or(0);
    let head = &page[..head_end];
    let mut moved: Vec<(usize, &str)> = tags(head, "<link")
        .into_iter()
        .filter(|(_, tag)| tag.contains("preload"))
        .chain(tags(head, "<script").into_iter().filter(|(_, tag)| {
            tag.starts_with("<script type=module") || tag.starts_with("<script type=\"module\"")
        }))
        .collect();
    moved.sort_unstable();
    let mut kept = String::with_capacity(page.len());
    let mut from = 0;
    for (at, tag) in &moved {
        kept.push_str(&page[from..*at]);
        from = at + tag.len();
    }
    kept.push_str(&page[from..]);
    let tail: String = moved.iter().map(|(_, tag)| *tag).collect();
    match kept.rfind("</body>") {
        Some(end) => format!("{}{tail}{}", &kept[..end], &kept[end..]),
        None => kept + &tail,
    }
}

/// The class the loader gives `<html>` when the first-paint module
/// (`crates/first`) is to bring the written view to the link before the page
/// loads: a lesson link ([`lesson_link_pattern`]) whose view is hidden.
pub const FIRST_PAINT: &str = "vram-first-paint";

/// The class the first-paint module gives `<html>` once the written view
/// shows the link's figures: should the page then fail to start
/// ([`FAILED`]), the style sheet says they are the link's.
pub const FIRST_PAINTED: &str = "vram-first-painted";

/// Where the first-paint module is served, beside the page (`scripts/post-build`).
pub const FIRST_PAINT_SCRIPT: &str = "./first/vram_first.js";
/// Its WebAssembly.
pub const FIRST_PAINT_WASM: &str = "./first/vram_first_bg.wasm";
/// The performance mark the loader sets once the first-paint module's view
/// has been painted (a task after the frame that shows it), on the page's clock.
pub const PAINTED_MARK: &str = "vram-written-painted";

/// A regular expression over `location.search` that a link of the lesson's
/// keys alone matches (`vram_view::written::LESSON_KEYS`; the first-paint
/// module checks the link whole).
pub fn lesson_link_pattern() -> String {
    let keys = vram_view::written::LESSON_KEYS.join("|");
    format!("^\\?(({keys})=[^&]*(&|$))+$")
}

/// Why the first paint could not be wired into the page.
#[derive(Debug, PartialEq, Eq)]
pub struct NoLoader;

impl std::fmt::Display for NoLoader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no Trunk loader (its WebAssembly's preload and `await init(`) in the page")
    }
}

impl std::error::Error for NoLoader {}

/// `page` (after [`with_loader_last`]) with the first paint of a lesson link
/// wired in: a script before the loader preloads the first-paint module's
/// WebAssembly under a lesson link whose written view is hidden (marking
/// `<html>` [`FIRST_PAINT`]) and the page's otherwise (Trunk's preload,
/// which it replaces); the loader, so marked, imports the module and paints
/// before it starts the page. On a slow link the lesson's figures then wait
/// for the module alone, not for the page's larger WebAssembly too.
pub fn with_first_paint(page: &str) -> Result<String, NoLoader> {
    let (at, preload) = tags(page, "<link")
        .into_iter()
        .find(|(_, tag)| tag.contains("rel=preload") && tag.contains(".wasm"))
        .ok_or(NoLoader)?;
    let href = preload
        .split_once("href=")
        .and_then(|(_, rest)| rest.trim_start_matches('"').split(['"', ' ', '>']).next())
        .ok_or(NoLoader)?;
    let page = format!("{}{}", &page[..at], &page[at + preload.len()..]);
    let init = page.find("const wasm = await init(").ok_or(NoLoader)?;
    let loader = page[..init].rfind("<script type=module>").ok_or(NoLoader)?;
    let pattern = lesson_link_pattern();
    let chooser = format!(
        "<script>(function(){{var d=document,r=d.documentElement,l=d.createElement(\"link\"),\
         f=/{pattern}/.test(location.search)&&r.classList.contains(\"{NOT_THIS_VIEW}\")&&location.hash!=\"#plans\";\
         if(f)r.classList.add(\"{FIRST_PAINT}\");\
         l.rel=\"preload\";l.as=\"fetch\";l.crossOrigin=\"\";l.type=\"application/wasm\";\
         l.href=f?\"{FIRST_PAINT_WASM}\":\"{href}\";d.head.appendChild(l)}})()</script>"
    );
    let first = format!(
        "if(document.documentElement.classList.contains(\"{FIRST_PAINT}\"))\
         try{{const f=await import(\"{FIRST_PAINT_SCRIPT}\");await f.default({{module_or_path:\"{FIRST_PAINT_WASM}\"}});\
         if(f.paint())requestAnimationFrame(()=>setTimeout(()=>performance.mark(\"{PAINTED_MARK}\")))}}catch(e){{}}\n"
    );
    Ok(format!(
        "{}{chooser}{}{first}{}",
        &page[..loader],
        &page[loader..init],
        &page[init..]
    ))
}

/// The page's default view in English and in Chinese (for a browser that
/// prefers it), each rendered and [`pruned`], marked with its language
/// (`data-lang`), the Chinese one's ids [`prefixed`] so the document's stay
/// unique; the style sheet shows the one the [`guard`] chose.
pub fn default_view() -> String {
    let english =
        pruned(&vram_app::prerender("", &[])).replacen("<main ", "<main data-lang=\"en\" ", 1);
    let chinese = prefixed(&pruned(&vram_app::prerender("", &["zh-CN"])), "zh-").replacen(
        "<main ",
        "<main data-lang=\"zh\" lang=\"zh-Hans\" ",
        1,
    );
    english + &chinese
}

/// The attributes whose values are ids, or lists of ids.
const ID_ATTRIBUTES: [&str; 5] = ["id", "for", "aria-describedby", "aria-labelledby", "list"];

/// `markup` with every id it declares or refers to (by the attributes of
/// [`ID_ATTRIBUTES`] and `href="#…"`) prefixed with `prefix`.
pub fn prefixed(markup: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(markup.len() + markup.len() / 20);
    let mut rest = markup;
    while let Some(at) = rest.find("=\"") {
        let name_start = rest[..at]
            .rfind(|c: char| c.is_ascii_whitespace())
            .map_or(0, |space| space + 1);
        let name = &rest[name_start..at];
        let value_start = at + 2;
        let Some(value_len) = rest[value_start..].find('"') else {
            break;
        };
        let value = &rest[value_start..value_start + value_len];
        out.push_str(&rest[..value_start]);
        if ID_ATTRIBUTES.contains(&name) {
            let ids: Vec<String> = value.split(' ').map(|id| format!("{prefix}{id}")).collect();
            out.push_str(&ids.join(" "));
        } else if let Some(id) = value.strip_prefix('#').filter(|_| name == "href") {
            out.push_str(&format!("#{prefix}{id}"));
        } else {
            out.push_str(value);
        }
        out.push('"');
        rest = &rest[value_start + value_len + 1..];
    }
    out.push_str(rest);
    out
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
        let views = "<main class=\"c\">m</main><main lang=\"z\">z</main>";
        let placed = place(page, views, "<script>g</script>").unwrap();
        assert_eq!(
            placed,
            concat!(
                "<html><head><script>g</script></head><body class=x>",
                "<main data-prerendered class=\"c\">m</main><template data-prerendered-end></template>",
                "<main data-prerendered lang=\"z\">z</main><template data-prerendered-end></template>",
                "<noscript>n</noscript></body></html>"
            )
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

    /// The shape of Trunk's minified release page.
    const TRUNK_PAGE: &str = concat!(
        "<!doctype html><html lang=en><meta charset=utf-8><title>t</title>",
        "<link href=./style-1.css integrity=sha384-x rel=stylesheet><link href=./f.svg rel=icon>",
        "<script type=module>import init from './app.js';\nawait init();</script>",
        "<link crossorigin href=./app.js rel=modulepreload>",
        "<link as=fetch crossorigin href=./app_bg.wasm rel=preload type=application/wasm>",
        "<script>guard()</script></head><body><main>v</main><noscript>n</noscript></body></html>",
    );

    #[test]
    fn a_lesson_link_loads_its_first_paint_before_the_page() {
        let trunk = TRUNK_PAGE.replace("await init();", "const wasm = await init({});");
        let page = with_first_paint(&with_loader_last(&trunk)).unwrap();
        // Trunk's preload of the page's WebAssembly is the chooser's to make.
        assert!(!page.contains("<link as=fetch"), "{page}");
        let chooser = page.find("l.href=f?\"./first/vram_first_bg.wasm\":\"./app_bg.wasm\"");
        let loader = page.find("<script type=module>");
        let import = page.find("await import(\"./first/vram_first.js\")");
        let init = page.find("const wasm = await init(");
        assert!(
            chooser < loader && loader < import && import < init && chooser.is_some(),
            "{page}"
        );
        assert!(page.contains(&lesson_link_pattern()));
        assert_eq!(
            lesson_link_pattern(),
            "^\\?((v|lang|embed|params|gpus|gpu_mem|dtype|grad_acc|opt|overhead|stage)=[^&]*(&|$))+$"
        );
        // No loader, no page: the build stops.
        assert_eq!(with_first_paint(TRUNK_PAGE).err(), Some(NoLoader));
    }

    #[test]
    fn the_style_sheet_is_inlined_and_the_loader_goes_last() {
        assert_eq!(stylesheet_href(TRUNK_PAGE), Some("./style-1.css"));
        let page = with_loader_last(&with_style_inlined(TRUNK_PAGE, "a{b:c}\n").unwrap());
        assert_eq!(
            page,
            concat!(
                "<!doctype html><html lang=en><meta charset=utf-8><title>t</title>",
                "<style>a{b:c}</style><link href=./f.svg rel=icon>",
                "<script>guard()</script></head><body><main>v</main><noscript>n</noscript>",
                "<script type=module>import init from './app.js';\nawait init();</script>",
                "<link crossorigin href=./app.js rel=modulepreload>",
                "<link as=fetch crossorigin href=./app_bg.wasm rel=preload type=application/wasm>",
                "</body></html>",
            )
        );
        assert_eq!(
            with_style_inlined("<html><body></body></html>", ""),
            Err(PlaceError::NoStyleSheet)
        );
    }

    #[test]
    fn ids_and_references_to_them_are_prefixed() {
        let markup = concat!(
            "<label for=\"params\">P</label><input id=\"params\" aria-describedby=\"params-hint params-error\" class=\"x\">",
            "<a href=\"#results\" data-testid=\"to\">r</a><a href=\"https://x/\">o</a><input list=\"bw\">",
        );
        assert_eq!(
            prefixed(markup, "zh-"),
            concat!(
                "<label for=\"zh-params\">P</label><input id=\"zh-params\" aria-describedby=\"zh-params-hint zh-params-error\" class=\"x\">",
                "<a href=\"#zh-results\" data-testid=\"to\">r</a><a href=\"https://x/\">o</a><input list=\"zh-bw\">",
            )
        );
    }

    #[test]
    fn the_guard_knows_the_queries_the_written_views_answer() {
        use vram_core::{input::link, Config};
        let written = WrittenFor::defaults();
        let embedded = Config {
            embed: true,
            ..Config::default()
        };
        assert_eq!(
            link::decode(&written.default_query).config,
            Config::default()
        );
        for query in &written.embed_queries {
            assert_eq!(link::decode(query).config, embedded, "{query}");
        }
        let script = guard(&written);
        assert!(script.contains("r.lang=\"zh-Hans\";document.title=\"大模型训练显存计算器\""));
        for query in written.embed_queries.iter().chain([&written.default_query]) {
            assert!(script.contains(&format!("\"{query}\"")), "{query}");
        }
    }

    #[test]
    fn the_default_view_holds_the_lessons_figures_and_three_charts() {
        let view = default_view();
        let chinese_at = view.find("<main data-lang=\"zh\"").expect("a Chinese view");
        let (english, chinese) = view.split_at(chinese_at);
        assert!(english.starts_with("<main data-lang=\"en\" "));
        for view in [english, chinese] {
            for figure in ["112 GB", "38.5 GB", "26.25 GB", "14 GB"] {
                assert!(view.contains(figure), "{figure} missing");
            }
            assert_eq!(view.matches("<svg").count(), 3, "charts as SVG");
        }
        assert!(english.contains("<h1>GPU memory for LLM training</h1>"));
        assert!(!chinese.contains("<h1>GPU memory for LLM training</h1>"));
        assert!(chinese.contains("id=\"zh-params\"") && !chinese.contains("id=\"params\""));
    }

    #[test]
    #[ignore]
    fn dump() {
        std::fs::write("/tmp/prerendered.html", default_view()).unwrap();
    }
}
