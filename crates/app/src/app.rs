//! The calculator: its state, and the page's layout.
//!
//! State is what the user typed, exactly (one signal per control). Everything
//! else is derived: the core parses each field, the configuration is the last
//! one whose fields were all valid, the report is the core's report of it, and
//! the address bar follows the configuration.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vram_core::link::{self, value_of, LinkProblem};
use vram_core::{
    parse_percent, percent_text, Config, Field, GradientPrecision, InputError, Optimizer,
    Precision, Report, Strategy,
};

use crate::chart::MaxParamsChart;
use crate::form::{ChoiceField, NumberField};
use crate::results::{ResultsTable, Summary};
use crate::{share, text};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let link::DecodedLink {
        config: initial,
        problems,
    } = link::decode(&share::current_query());

    // What the user typed, as typed.
    let params_text = RwSignal::new(value_of(&initial, Field::Params));
    let gpus_text = RwSignal::new(value_of(&initial, Field::Gpus));
    let gpu_mem_text = RwSignal::new(value_of(&initial, Field::GpuMemory));
    let overhead_text = RwSignal::new(percent_text(initial.overhead));
    let precision = RwSignal::new(initial.precision);
    let gradients = RwSignal::new(initial.gradients);
    let optimizer = RwSignal::new(initial.optimizer);
    let highlight = RwSignal::new(initial.highlight);
    let link_problems = RwSignal::new(problems);

    // The core's reading of each field.
    let params = Memo::new(move |_| Field::Params.parse_number(&params_text.read()));
    let gpus = Memo::new(move |_| Field::Gpus.parse_count(&gpus_text.read()));
    let gpu_mem = Memo::new(move |_| Field::GpuMemory.parse_number(&gpu_mem_text.read()));
    let overhead = Memo::new(move |_| parse_percent(Field::Overhead, &overhead_text.read()));

    // The configuration of the last moment when every field was valid.
    let parsed = move || -> Option<Config> {
        Some(Config {
            params_billions: params.get().ok()?,
            gpus: gpus.get().ok()?,
            gpu_mem_gb: gpu_mem.get().ok()?,
            overhead: overhead.get().ok()?,
            precision: precision.get(),
            gradients: gradients.get(),
            optimizer: optimizer.get(),
            highlight: highlight.get(),
            model: initial.model,
            gpu: initial.gpu,
            global_batch: initial.global_batch,
        })
    };
    let stale = Memo::new(move |_| parsed().is_none());
    let config = Memo::new(move |previous: Option<&Config>| {
        parsed().unwrap_or_else(|| previous.copied().unwrap_or(initial))
    });
    // Every valid configuration has a report; should one ever not, the previous one stays.
    let report = Memo::new(move |previous: Option<&Report>| {
        config
            .get()
            .report()
            .unwrap_or_else(|_| previous.cloned().unwrap_or_default())
    });

    let query = Memo::new(move |_| link::encode(&config.get()));
    Effect::new(move |_| {
        share::replace_query(&query.get());
        crate::timing::mark(crate::timing::LINK_WRITTEN);
    });
    let share_url = move || share::page_url(&query.get());

    let error_of = |memo: Memo<Result<f64, InputError>>| Signal::derive(move || memo.get().err());

    view! {
        <main class="calculator">
            <header class="masthead">
                <h1>{text::TITLE}</h1>
                <p class="title-zh" lang="zh-Hans">{text::TITLE_ZH}</p>
                <p class="intro">{text::INTRO}</p>
            </header>
            <LinkProblems problems=link_problems />
            <div class="layout">
                <form class="controls" aria-labelledby="form-heading" on:submit=|ev| ev.prevent_default()>
                    <h2 id="form-heading">{text::FORM_HEADING}</h2>
                    <NumberField field=Field::Params label=text::LABEL_PARAMS unit=text::UNIT_PARAMS
                        text=params_text error=error_of(params) />
                    <NumberField field=Field::Gpus label=text::LABEL_GPUS unit=text::UNIT_GPUS
                        text=gpus_text inputmode="numeric"
                        error=Signal::derive(move || gpus.get().err()) />
                    <NumberField field=Field::GpuMemory label=text::LABEL_GPU_MEM unit=text::UNIT_GPU_MEM
                        text=gpu_mem_text error=error_of(gpu_mem) />
                    <NumberField field=Field::Overhead label=text::LABEL_OVERHEAD unit=text::UNIT_OVERHEAD
                        text=overhead_text error=error_of(overhead) hint=text::HINT_OVERHEAD />
                    <ChoiceField field=Field::Precision label=text::LABEL_PRECISION value=precision
                        key=Precision::key
                        choices=Precision::ALL.iter().map(|p| (*p, p.label())).collect() />
                    <ChoiceField field=Field::GradAcc label=text::LABEL_GRAD_ACC value=gradients
                        key=GradientPrecision::key
                        choices=GradientPrecision::ALL.iter().map(|g| (*g, g.label())).collect() />
                    <ChoiceField field=Field::Optimizer label=text::LABEL_OPTIMIZER value=optimizer
                        key=Optimizer::key
                        choices=Optimizer::ALL.iter().map(|o| (*o, o.label())).collect() />
                    <ChoiceField field=Field::Stage label=text::LABEL_STAGE value=highlight
                        key=Strategy::key
                        choices=Strategy::ALL.iter().map(|s| (*s, s.label())).collect() />
                </form>
                <section class="output" aria-labelledby="results-heading" class:stale=stale data-stale=move || stale.get().to_string()>
                    <h2 id="results-heading">{text::RESULTS_HEADING}</h2>
                    <p class="stale-note" data-testid="stale" hidden=move || !stale.get()>{text::STALE}</p>
                    <Summary report=report />
                    <ResultsTable report=report highlight=highlight />
                    <h2>{text::CHART_HEADING}</h2>
                    <MaxParamsChart report=report />
                    <ShareLink url=Signal::derive(share_url) />
                    <p class="footnote">{text::FOOTNOTE}</p>
                </section>
            </div>
        </main>
    }
}

/// The keys of the shared link that could not be used, with what was used instead.
#[component]
fn LinkProblems(problems: RwSignal<Vec<LinkProblem>>) -> impl IntoView {
    view! {
        <Show when=move || !problems.read().is_empty()>
            <div class="notice" role="alert" data-testid="link-problems">
                <p>{text::LINK_PROBLEMS_HEADING}</p>
                <ul>
                    {move || problems.read().iter().map(|p| view! {
                        <li data-key=p.key.clone()>{text::link_problem(p)}</li>
                    }).collect_view()}
                </ul>
                <button type="button" class="quiet" on:click=move |_| problems.set(Vec::new())>{text::DISMISS}</button>
            </div>
        </Show>
    }
}

/// The link to this configuration, and a button that copies it.
#[component]
fn ShareLink(url: Signal<String>) -> impl IntoView {
    let status = RwSignal::new(None::<&'static str>);
    let copy = move |_| {
        let url = url.get_untracked();
        spawn_local(async move {
            let outcome = share::copy_to_clipboard(&url).await;
            status.set(Some(if outcome.is_ok() {
                text::COPIED
            } else {
                text::COPY_FAILED
            }));
        });
    };
    view! {
        <div class="share">
            <label for="share-url">{text::SHARE_LABEL}</label>
            <div class="share-row">
                <input id="share-url" type="text" readonly data-testid="share-url" prop:value=url
                    on:focus=|ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            input.select();
                        }
                    } />
                <button type="button" on:click=copy data-testid="copy-link">{text::COPY_LINK}</button>
            </div>
            <p class="copy-status" aria-live="polite" data-testid="copy-status">{move || status.get()}</p>
        </div>
    }
}
