//! "What would make it fit?" in the page's words: each fix of
//! [`vram_core::fixes`] as what it changes (the form's labels and values),
//! its new peak against the usable memory and its cost in GPU time per token;
//! as lines for the CLI ([`lines`]) and as a list with a "Use" button each,
//! which the lazily loaded module mounts on the page ([`render`]).

use vram_core::fixes::{Fix, Fixes};
use vram_core::format::{format_bytes, format_number, format_percent};
use vram_core::Config;
#[cfg(feature = "dom")]
use vram_core::{format::Lang, input::link};

#[cfg(feature = "dom")]
use leptos::prelude::*;
#[cfg(feature = "dom")]
use wasm_bindgen::JsCast;

use crate::text::{self, LazyText, Text};

/// What the configuration needs and has: `ZeRO-3 needs 112.5 GB per GPU;
/// 68.72 GB are usable.`, then how the fixes are ranked, or that none was
/// found.
pub fn intro(w: &LazyText, config: &Config, fixes: &Fixes) -> String {
    let intro = text::fill(
        w.fixes_intro,
        &[
            config.highlight.label(),
            &format_bytes(fixes.peak, config.unit),
            &format_bytes(fixes.usable, config.unit),
        ],
    );
    let ranked = match fixes.fixes.is_empty() {
        true => w.fixes_none,
        false => w.fixes_ranked,
    };
    then(&intro, ranked)
}

/// The sentence `first`, then `next`: a space between them, none after
/// Chinese punctuation (its full stop and question mark hold their own space).
fn then(first: &str, next: &str) -> String {
    match first.ends_with(['。', '？', '：']) {
        true => format!("{first}{next}"),
        false => format!("{first} {next}"),
    }
}

/// What a fix changes, field by field in the form's words
/// (`Activation recomputation none → full · Offload Nothing → Optimizer`),
/// each field its link changes ([`Fix::changes`]: a GPU's memory goes with
/// its name).
pub fn change_words(t: &Text, config: &Config, fix: &Fix) -> String {
    fix.changes(config)
        .into_iter()
        .map(|(field, old, new)| {
            format!(
                "{} {} → {}",
                text::field_text(t, field).label,
                text::value_words(t, field, &old),
                text::value_words(t, field, &new)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A fix's figures: its peak per GPU of the usable memory, and with a step
/// time its tokens per second per GPU and the change in GPU time per token.
pub fn figures_words(w: &LazyText, config: &Config, fixes: &Fixes, fix: &Fix) -> String {
    let mut words = text::fill(
        w.fix_memory,
        &[
            &format_bytes(fix.peak, config.unit),
            &format_bytes(fix.usable, config.unit),
        ],
    );
    if let Some(tokens) = fix.tokens_per_second_per_gpu {
        words.push_str(&text::fill(w.fix_speed, &[&format_number(tokens.round())]));
        if let Some(change) = fix.gpu_time_change(fixes.tokens_per_second_per_gpu) {
            // Whole percents: the step's model is no finer.
            let percent = |c: f64| format_percent((c * 100.0).round() / 100.0);
            let change = match change >= 0.0 {
                true => format!("+{}", percent(change)),
                false => format!("−{}", percent(-change)),
            };
            words.push_str(&text::fill(w.fix_cost, &[&change]));
        }
    }
    words
}

/// The fixes as lines of text: the intro, then each fix numbered with what it
/// changes, its figures and its link (the CLI's `--fixes`).
pub fn lines(t: &Text, w: &LazyText, config: &Config, fixes: &Fixes) -> Vec<String> {
    let mut lines = vec![then(t.fixes_heading, &intro(w, config, fixes))];
    for (i, fix) in fixes.fixes.iter().enumerate() {
        lines.push(format!(
            "{:>2}. {}{}{}",
            i + 1,
            change_words(t, config, fix),
            w.fix_colon,
            figures_words(w, config, fixes, fix)
        ));
        lines.push(format!(
            "    ?{}",
            vram_core::input::link::encode(&fix.config)
        ));
    }
    lines
}

/// The fixes of `config` as a list, each with a button carrying the link of
/// the configuration it makes (the page listens for the click on the list's
/// place).
#[cfg(feature = "dom")]
#[component]
pub fn FixesList(
    t: &'static Text,
    w: &'static LazyText,
    config: Config,
    fixes: Fixes,
) -> impl IntoView {
    let items = fixes
        .fixes
        .iter()
        .enumerate()
        .map(|(i, fix)| {
            view! {
                <li data-testid=format!("fix-{i}")>
                    <strong>{change_words(t, &config, fix)}</strong>
                    {w.fix_colon} {figures_words(w, &config, &fixes, fix)} " "
                    <button type="button" class="quiet" data-testid=format!("fix-use-{i}")
                        data-query=link::encode(&fix.config)>{w.plans_apply}</button>
                </li>
            }
        })
        .collect_view();
    view! {
        <p data-testid="fixes-intro">{intro(w, &config, &fixes)}</p>
        <ol class="fixes">{items}</ol>
    }
}

#[cfg(feature = "dom")]
thread_local! {
    /// The list mounted last, unmounted when the next one is drawn.
    static MOUNTED: std::cell::RefCell<Option<Box<dyn std::any::Any>>> =
        const { std::cell::RefCell::new(None) };
}

/// Finds what would make `config` fit and shows it in `place`, in `lang`;
/// empties `place` and answers false when it fits already (or gives no
/// report). Run by the lazily loaded module (`crates/lazy`), which reads
/// `config` from its link.
#[cfg(feature = "dom")]
pub fn render(config: Config, lang: Lang, place: &web_sys::Element) -> bool {
    let (t, w) = (text::of(lang), text::lazy_of(lang));
    MOUNTED.with(|mounted| mounted.borrow_mut().take());
    let Some(fixes) = vram_core::fixes::fixes(&config) else {
        place.set_inner_html("");
        return false;
    };
    if let Ok(place) = place.clone().dyn_into::<web_sys::HtmlElement>() {
        place.set_inner_html("");
        let handle = leptos::mount::mount_to(place, move || {
            FixesList(FixesListProps {
                t,
                w,
                config,
                fixes,
            })
        });
        MOUNTED.with(|mounted| *mounted.borrow_mut() = Some(Box::new(handle)));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{EN, LAZY_EN, LAZY_ZH, ZH};
    use vram_core::input::link::decode;

    /// The lesson's 70B case in words, in both languages: what each fix
    /// changes in the form's labels, its peak against the usable memory, its
    /// speed and cost, and its link.
    #[test]
    fn the_70b_fixes_in_both_languages() {
        let config = decode("model=llama2-70b&gpu=a100-80gb&gpus=8&seq=4096&stage=3").config;
        let fixes = vram_core::fixes::fixes(&config).unwrap();
        let english = lines(&EN, &LAZY_EN, &config, &fixes);
        assert!(
            english[0].starts_with("What would make it fit? ZeRO-3 needs "),
            "{}",
            english[0]
        );
        assert!(english[0].contains("68.72 GB are usable"), "{}", english[0]);
        let offload = english
            .iter()
            .find(|l| l.contains("Activation recomputation") && l.contains("Offload"))
            .unwrap_or_else(|| panic!("{english:#?}"));
        assert!(offload.contains("GPU time per token +"), "{offload}");
        assert!(offload.contains(" of 68.72 GB usable"), "{offload}");
        // Each fix is followed by its link.
        assert!(english[2].starts_with("    ?v=3&"), "{}", english[2]);
        assert_eq!(english.len(), 1 + 2 * fixes.fixes.len());
        let chinese = lines(&ZH, &LAZY_ZH, &config, &fixes);
        assert!(chinese[0].starts_with("怎样才能放得下？"), "{}", chinese[0]);
        assert!(
            chinese.iter().any(|l| l.contains("每词元 GPU 时间 +")),
            "{chinese:#?}"
        );
    }
}
