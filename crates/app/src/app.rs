//! The calculator: its state, and the page's layout.
//!
//! State is what the user typed, exactly: one text per field ([`Form`]).
//! Everything else is derived: the core parses the form into a configuration,
//! the shown configuration is the last one that was valid, the report is the
//! core's report of it, and the address bar follows the configuration.

use leptos::either::Either;
use leptos::prelude::*;
use leptos::task::spawn_local;
use vram_core::config::job::Job;
use vram_core::decimal::shortest_decimal;
use vram_core::frameworks::runtime::BANDWIDTH_PRESETS;
use vram_core::input::field::Section;
use vram_core::input::link::{self, LinkProblem};
use vram_core::serve::report::ServeReport;
use vram_core::{Config, Field, Part, Report};

use crate::chart::Chart;
use crate::form::{controls, Form};
use crate::results::{ActivationsLine, PlacementTable, ResultsTable, Summary};
use crate::share;
use vram_view::chart::ChartKind;
use vram_view::replies::ReadReply;
use vram_view::text::{self, Text};

use crate::lazy;
use crate::page;

/// The lesson's Q6 as one-click scenarios: 13B, 33B and 70B on 8 GPUs of
/// 80 GB. Each first asks the lesson's question exactly (the size only, BF16
/// with AdamW, 20 % reserved: 13B fits from ZeRO-2 at 48.75 GB; 33B needs
/// 123.75 GB under ZeRO-2 and 66 GB under ZeRO-3, over 64; 70B fits under no
/// stage), then, as a second step, the same question with the real model on
/// a real A100 80GB, whose ranked plans open.
/// The whole page. `switch_language` shows it again at a link in another
/// language, what was typed kept (`vram_app::mount` gives it; the page never
/// mounts itself).
#[component]
pub fn App(switch_language: fn(&str, &str)) -> impl IntoView {
    let calc = Calculator::new(switch_language);
    let Calculator { t, initial, .. } = calc;
    let form_view = calc.shows(Part::Form).then(|| settings_form(calc));
    // Without the form, a read-only figure says what it is a figure of.
    let caption = (!calc.editable() && !calc.shows(Part::Form)).then(|| {
        view! {
            <p class="caption" data-testid="caption">
                <strong>{t.caption_heading}</strong> " " {vram_view::notes::caption(t, &initial)}
            </p>
        }
    });
    let share = share_view(calc);
    // The header says the job the form shows.
    let (serving, post_training) = (calc.serving, calc.post_training);
    let title = move || match (serving.get(), post_training.get()) {
        (true, _) => t.title_serve,
        (_, true) => t.title_rl,
        _ => t.title,
    };
    let intro = move || match (serving.get(), post_training.get()) {
        (true, _) => t.intro_serve,
        (_, true) => t.intro_rl,
        _ => t.intro,
    };
    Effect::new(move |_| page::set_language(t.html_lang, title()));

    view! {
        <main class="calculator">
            <header class="masthead">
                {calc.shows(Part::Form).then(|| view! { <div class="prefs">{calc.section(&Section::Display.fields())}</div> })}
                <h1>{title}</h1>
                // The course's Chinese name under the English title of the lesson's job; a Chinese page has no second title.
                <p class="intro">{intro} <a class="to-results" href="#results-heading" data-testid="to-results">{t.to_results}</a></p>
            </header>
            <LinkProblems problems=calc.link_problems />
            <div class="layout" class:single=!calc.shows(Part::Form)>
                {form_view}
                {results(calc, caption, share)}
            </div>
        </main>
    }
}

/// The page's state, shared by its parts: what was typed (the [`Form`]),
/// what it means (the configuration and its reports, derived from the form),
/// the page's own switches, and its words. Each is a handle (a signal, a
/// memo), so the whole is copied into every part and closure that needs it.
#[derive(Clone, Copy)]
struct Calculator {
    /// The words, in the page's language.
    t: &'static Text,
    /// The link's configuration, as the page opened on it.
    initial: Config,
    form: Form,
    errors: Memo<Vec<vram_core::input::InputError>>,
    /// Whether what was typed is invalid, the results those of the last valid configuration.
    stale: Memo<bool>,
    /// The last valid configuration.
    config: Memo<Config>,
    report: Memo<Report>,
    serve_report: Memo<Option<ServeReport>>,
    rl_report: Memo<Option<vram_core::rl::RlReport>>,
    /// The job the form shows: its fields, and its results.
    serving: Signal<bool>,
    post_training: Signal<bool>,
    training: Signal<bool>,
    /// The configuration's link.
    query: Memo<String>,
    theme: Memo<vram_core::format::Theme>,
    with_model: Signal<bool>,
    link_problems: RwSignal<Vec<LinkProblem>>,
    /// The ranked plans are computed while their fold is open.
    plans_open: RwSignal<bool>,
    /// What the ranked plans found when no strategy fits on its own, in words.
    plans_found: RwSignal<String>,
    /// The Q6 scenario whose lesson question is shown, until its real model is.
    lesson_step: RwSignal<Option<&'static str>>,
    /// Q6's scenario clicked last, and whether its second click (the real model).
    lesson_scenario: RwSignal<Option<(vram_view::lesson::Scenario, bool)>>,
    /// The lesson's Q1–Q5 step asked last.
    lesson_question: RwSignal<Option<&'static str>>,
    /// Every setting shown in a lesson's embed, where only the lesson's are at first.
    all_settings: RwSignal<bool>,
}

impl Calculator {
    /// The page's state for the link in the address bar, and what follows
    /// it: the address bar, the host page's frame, the theme, the language.
    fn new(switch_language: fn(&str, &str)) -> Calculator {
        let link::DecodedLink {
            config: initial,
            problems,
        } = link::decode(&share::current_query());
        let form = Form::new(&initial);
        // After a language switch: what was typed, valid or not.
        if let Some(typed) = page::take_typed() {
            form.restore(&typed);
        }
        let link_problems = RwSignal::new(problems);

        let parsed = Memo::new(move |_| form.parse());
        let errors =
            Memo::new(move |_| parsed.with(|p| p.as_ref().err().cloned().unwrap_or_default()));
        let stale = Memo::new(move |_| parsed.with(Result::is_err));
        let config = Memo::new(move |previous: Option<&Config>| match parsed.get() {
            Ok(config) => config,
            Err(_) => previous.copied().unwrap_or(initial),
        });
        // Every valid configuration has a report; should one ever not, the previous one stays.
        // A serving configuration has its own report; training's stays as it was.
        let report = Memo::new(move |previous: Option<&Report>| {
            let config = config.get();
            match config.job {
                Job::Serve | Job::Rl if previous.is_some() => previous.cloned().unwrap_or_default(),
                _ => config
                    .report()
                    .unwrap_or_else(|_| previous.cloned().unwrap_or_default()),
            }
        });
        let serve_report = Memo::new(move |previous: Option<&Option<ServeReport>>| {
            config.with(|c| match c.job {
                Job::Serve => c
                    .serve_report()
                    .ok()
                    .or_else(|| previous.cloned().flatten()),
                Job::Train | Job::Rl => None,
            })
        });
        let rl_report = Memo::new(move |previous: Option<&Option<vram_core::rl::RlReport>>| {
            config.with(|c| match c.job {
                Job::Rl => c.rl_report().ok().or_else(|| previous.cloned().flatten()),
                Job::Train | Job::Serve => None,
            })
        });
        // The job the form shows: its fields, and its results.
        let serving = Signal::derive(move || *form.text(Field::Job).read() == Job::Serve.key());
        let post_training = Signal::derive(move || *form.text(Field::Job).read() == Job::Rl.key());
        let training = Signal::derive(move || !serving.get() && !post_training.get());

        let query = Memo::new(move |_| link::encode(&config.get()));
        share::follow_in_address(query);
        // Back and Forward show the configuration their address holds.
        share::on_history_step(move |query| form.load(&link::decode(&query).config));
        // Inside another page's iframe: compact (embed=1), and the host learns our height.
        page::set_embedded(initial.embed);
        page::follow_height_in_host();
        // The forced theme, if any, on <html>, where the style sheet reads it.
        let theme = Memo::new(move |_| form.chosen(Field::Theme).theme);
        Effect::new(move |_| page::set_theme(theme.get().key()));
        let with_model = Signal::derive(move || !form.text(Field::Model).read().is_empty());
        // The language: the link's, else the browser's. The page is built once in it;
        // a switch mounts it anew at the new link, what was typed kept
        // (`switch_language`).
        let chosen_lang = Memo::new(move |_| form.chosen(Field::Lang).lang);
        let lang = chosen_lang
            .get_untracked()
            .resolve(page::preferred_languages().iter().map(String::as_str));
        let t = text::of(lang);
        provide_context(crate::Words(t));
        page::set_language(t.html_lang, t.title);
        Effect::new(move |first: Option<()>| {
            let chosen = chosen_lang.get();
            if first.is_some() {
                let switched = Config {
                    lang: chosen,
                    ..config.get_untracked()
                };
                switch_language(&link::encode(&switched), &form.typed());
            }
        });
        Calculator {
            t,
            initial,
            form,
            errors,
            stale,
            config,
            report,
            serve_report,
            rl_report,
            serving,
            post_training,
            training,
            query,
            theme,
            with_model,
            link_problems,
            // The lesson's Q6 opens the ranked plans; a link ending in #plans too.
            plans_open: RwSignal::new(share::current_hash() == "#plans"),
            plans_found: RwSignal::new(String::new()),
            lesson_step: RwSignal::new(None::<&'static str>),
            lesson_scenario: RwSignal::new(None),
            // Its answer shows while the page is still its configuration.
            lesson_question: RwSignal::new(None::<&'static str>),
            all_settings: RwSignal::new(false),
        }
    }

    /// Whether the link shows `part` (a lesson's embed may want one part):
    /// fixed for the page's life, like the language.
    fn shows(self, part: Part) -> bool {
        self.initial.show.contains(part)
    }

    /// Whether the link lets the page be changed: fixed for its life too.
    fn editable(self) -> bool {
        self.initial.controls
    }

    /// The form's controls for `fields`.
    fn section(self, fields: &[Field]) -> impl IntoView {
        controls(fields, self.form, self.errors, self.t)
    }

    /// What a fold holds that the link carries (set away from its default), in
    /// words: nothing set inside a closed fold is invisible.
    fn set_in(self, section: Section) -> impl Fn() -> String {
        let Calculator { t, form, query, .. } = self;
        let fields = section.fields();
        move || {
            query.with(|q| {
                let set = fields
                    .iter()
                    .filter(|f| link::carries(q, **f) && form.applies(**f))
                    .map(|&f| text::field_words(t, f, &form.text(f).get()))
                    .collect::<Vec<_>>();
                match set.is_empty() {
                    true => String::new(),
                    false => format!("· {}", set.join(" · ")),
                }
            })
        }
    }

    /// The model's own count (with LoRA the report's parameters include the adapters).
    fn count(self) -> f64 {
        self.config.with(vram_view::written::params_count)
    }

    /// The answer to the lesson's step asked last, while the page is still its configuration.
    fn lesson_answer(self) -> Option<String> {
        if let Some((scenario, real)) = self.lesson_scenario.get() {
            return vram_view::lesson::scenario_answer(
                self.t,
                &scenario,
                real,
                &self.config.read(),
                &self.report.read(),
            );
        }
        let step = self.lesson_question.get()?;
        let step = vram_view::lesson::STEPS
            .into_iter()
            .find(|s| s.name == step)?;
        vram_view::lesson::answer(self.t, &step, &self.config.read(), &self.report.read())
    }
}

/// The form: the job, the lesson's steps and scenarios, and every field in
/// its group.
fn settings_form(calc: Calculator) -> impl IntoView {
    let t = calc.t;
    let section = move |fields: &[Field]| calc.section(fields);
    let set_in = move |section: Section| calc.set_in(section);
    view! {
        <form class="controls" aria-labelledby="form-heading" on:submit=|ev| ev.prevent_default()
            class:expanded=move || calc.all_settings.get()>
            <h2 id="form-heading">{t.form_heading}</h2>
            {calc.editable().then(|| job_switch(calc))}
            {calc.editable().then(|| lesson_tools(calc))}
            {model_group(calc)}
            <fieldset class="group">
                <legend>{t.group_hardware}</legend>
                {section(&Section::Gpu.fields())}
                <p class="hint" data-testid="gpu-capacity" data-value=move || shortest_decimal(calc.config.read().gpu_mem_gb)>{move || calc.config.with(vram_view::written::gpu_capacity)}</p>
                {section(&Section::Cluster.fields())}
                // The process's own settings: for engineers, folded (issue 63:
                // the lesson's form showed them to students), open where a
                // link sets one.
                <details class="fold" data-testid="process-details"
                    prop:open=move || Section::Process.fields().iter().any(|&f| link::value_of(&calc.initial, f) != link::value_of(&Config::default(), f))>
                    <summary>{t.process_heading} <span class="set">{set_in(Section::Process)}</span></summary>
                    {section(&Section::Process.fields())}
                </details>
            </fieldset>
            <fieldset class="group" hidden=move || calc.training.get() data-testid="serving-fields">
                <legend>{move || if calc.post_training.get() { t.group_rollouts } else { t.group_serving }}</legend>
                {section(&Section::Serving.fields())}
                <details class="fold" data-testid="engine-details">
                    <summary>{t.engine_settings} <span class="set">{set_in(Section::Engine)}</span></summary>
                    {section(&Section::Engine.fields())}
                </details>
            </fieldset>
            <fieldset class="group" hidden=move || !calc.post_training.get() data-testid="rl-fields">
                <legend>{t.group_rl}</legend>
                {section(&Section::Rl.fields())}
            </fieldset>
            <fieldset class="group" hidden=move || calc.serving.get()>
                <legend>{t.group_training}</legend>
                {section(&Section::Recipe.fields())}
                <p class="hint" data-testid="optimizer-bytes">{move || calc.config.with(|c| vram_view::written::optimizer_note(t, c))}</p>
                {section(&Section::FineTuning.fields())}
                {section(&Section::Step.fields())}
            </fieldset>
            <fieldset class="group">
                <legend>{t.parallel_heading}</legend>
                {section(&Section::Parallel.fields())}
                <details class="fold" data-testid="speed-details" open=calc.initial.speed != Default::default()>
                    <summary>{t.speed_heading} <span class="set">{set_in(Section::Speed)}</span></summary>
                    {section(&Section::Speed.fields())}
                </details>
            </fieldset>
            <details class="fold" data-testid="framework-details" hidden=move || !calc.training.get()>
                <summary>{t.runtime} <span class="set">{set_in(Section::Framework)}</span></summary>
                {section(&Section::Framework.fields())}
                <datalist id="bw-presets">
                    {BANDWIDTH_PRESETS.map(|p| view! { <option value=shortest_decimal(p.gb_per_s)>{p.name}</option> })}
                </datalist>
            </details>
        </form>
    }
}

/// The job's buttons: training, serving, RL post-training.
fn job_switch(calc: Calculator) -> impl IntoView {
    let Calculator { t, form, .. } = calc;
    view! {
        <div class="job-switch" role="group" aria-label=t.label_job data-testid="job-switch">
            {Job::ALL.into_iter().zip(t.job).map(|(job, label)| view! {
                <button type="button" class="quiet" data-testid=format!("job-{}", job.key())
                    aria-pressed=move || (*form.text(Field::Job).read() == job.key()).to_string()
                    on:click=move |_| {
                        // A job switch is a step Back undoes.
                        if *form.text(Field::Job).read_untracked() != job.key() {
                            crate::share::keep_in_history();
                        }
                        form.set(Field::Job, job.key().to_string());
                    }>{label}</button>
            }).collect_view()}
        </div>
    }
}

/// The lesson's steps (Q1–Q5), the button that shows every setting in a
/// lesson's embed, and the Q6 scenarios.
fn lesson_tools(calc: Calculator) -> impl IntoView {
    let t = calc.t;
    view! {
        <div class="lesson-tools" hidden=move || !calc.training.get()>
        <div class="scenarios lesson-steps">
            <span>{t.lesson_heading}</span>
            {vram_view::lesson::STEPS.map(|step| view! {
                <button type="button" class="quiet" data-testid=format!("lesson-{}", step.name.to_lowercase())
                    aria-pressed=move || (calc.lesson_question.get() == Some(step.name)).to_string()
                    on:click=move |_| {
                        calc.form.load(&vram_view::lesson::as_shown(step.query, &calc.config.get_untracked()));
                        calc.lesson_question.set(Some(step.name));
                        calc.lesson_step.set(None);
                        calc.lesson_scenario.set(None);
                        show_lesson_answer();
                    }>{step.name}</button>
            })}
        </div>
        // In a lesson's embed the form shows the lesson's few fields
        // first (the style sheet folds the rest); this opens them all.
        <button type="button" class="quiet all-settings" data-testid="all-settings"
            aria-expanded=move || calc.all_settings.get().to_string()
            on:click=move |_| calc.all_settings.update(|open| *open = !*open)>
            {move || if calc.all_settings.get() { t.fewer_settings } else { t.all_settings }}
        </button>
        <div class="scenarios">
            <span>{t.scenarios}</span>
            {vram_view::lesson::SCENARIOS.map(|scenario| {
                let name = scenario.name;
                view! {
                <button type="button" class="quiet" data-testid=format!("scenario-{name}")
                    aria-pressed=move || (calc.lesson_step.get() == Some(name)).to_string()
                    on:click=move |_| {
                        // The lesson's question first; a second click, the real model.
                        let second = calc.lesson_step.get_untracked() == Some(name);
                        let query = if second { scenario.real } else { scenario.lesson };
                        calc.form.load(&vram_view::lesson::as_shown(query, &calc.config.get_untracked()));
                        calc.lesson_step.set((!second).then_some(name));
                        calc.lesson_scenario.set(Some((scenario, second)));
                        calc.lesson_question.set(None);
                        show_lesson_answer();
                        if second {
                            calc.plans_open.set(true);
                        }
                    }>{name}</button>
            }})}
        </div>
        </div>
    }
}

/// The model's group: a preset or a size, a pasted `config.json`, its
/// parameters, and its architecture.
fn model_group(calc: Calculator) -> impl IntoView {
    let t = calc.t;
    let section = move |fields: &[Field]| calc.section(fields);
    let count = move || calc.count();
    view! {
        <fieldset class="group">
            <legend>{t.group_model}</legend>
            {section(&Section::Model.fields())}
            {calc.editable().then(|| view! { <PasteConfig config=calc.config form=calc.form /> })}
            <p class="params-count" data-testid="params-count" data-value=move || shortest_decimal(count())>
                {move || calc.config.with(|c| vram_view::written::params_line(t, c))}
            </p>
            <fieldset class="architecture" hidden=move || !calc.with_model.get()>
                <legend>{t.architecture}</legend>
                {section(&Section::Architecture.fields())}
                <details class="experts" data-testid="experts-details" open=calc.initial.model.is_some_and(|m| m.architecture != m.dense().architecture)>
                    <summary>{t.moe_details} <span class="set">{calc.set_in(Section::BeyondLlama)}</span></summary>
                    {section(&Section::BeyondLlama.fields())}
                </details>
            </fieldset>
        </fieldset>
    }
}

/// The link and the exports where the page can be changed; else a link to
/// the whole calculator.
fn share_view(calc: Calculator) -> impl IntoView {
    let t = calc.t;
    let share_url = move || share::page_url(&calc.query.get());
    match calc.editable() {
        true => Either::Left(
            view! { <ShareLink url=Signal::derive(share_url) query=calc.query config=calc.config training=calc.training /> },
        ),
        false => Either::Right(view! {
            <p class="open-full">
                <a href=share::page_url(&link::encode(&whole_calculator(&calc.initial)))
                    target="_blank" rel="noopener" data-testid="open-full">{t.open_full}</a>
            </p>
        }),
    }
}

/// The results: what is stale, the lesson's answer, the job's results, and
/// the link (`share`) and the footnotes.
fn results(calc: Calculator, caption: impl IntoView, share: impl IntoView) -> impl IntoView {
    let t = calc.t;
    let lesson_answer = move || calc.lesson_answer();
    view! {
        <section class="output" aria-labelledby="results-heading" class:stale=calc.stale data-stale=move || calc.stale.get().to_string()>
            <h2 id="results-heading">{t.results_heading}</h2>
            {caption}
            <p class="stale-note" data-testid="stale" hidden=move || !calc.stale.get()>{t.stale}</p>
            <p class="lesson-answer" role="status" data-testid="lesson-answer"
                hidden=move || lesson_answer().is_none()>{lesson_answer}</p>
            <div class="serve-results" hidden=move || !calc.serving.get() data-testid="serve-results">
                <crate::serving::ServeResults report=calc.serve_report config=calc.config />
                {(calc.shows(Part::Form) && calc.editable()).then(|| view! {
                    <crate::serving::ServePlans config=calc.config form=calc.form />
                })}
            </div>
            <div class="rl-results" hidden=move || !calc.post_training.get() data-testid="rl-results">
                <crate::rl::RlResults report=calc.rl_report config=calc.config />
            </div>
            {train_results(calc)}
            {share}
            <p class="footnote" hidden=move || !calc.training.get()>{t.footnote}</p>
            <p class="footnote" hidden=move || !calc.serving.get()>{t.serve_footnote}</p>
            <p class="footnote" hidden=move || !calc.post_training.get()>{t.rl_footnote}</p>
        </section>
    }
}

/// Training's results: the summary and the table, what would make it fit,
/// the placement, the charts and the ranked plans, as the link shows them.
fn train_results(calc: Calculator) -> impl IntoView {
    let t = calc.t;
    let (shows, editable) = (move |part: Part| calc.shows(part), calc.editable());
    let chart =
        move |part: Part, heading: &'static str, kind: ChartKind| chart(calc, part, heading, kind);
    view! {
        <div class="train-results" hidden=move || !calc.training.get()>
        {shows(Part::Table).then(|| view! {
            <Summary report=calc.report highlight=calc.form.text(Field::Stage) found=calc.plans_found fixes=editable />
            <ResultsTable report=calc.report highlight=calc.form.text(Field::Stage) />
            <ActivationsLine report=calc.report />
            <crate::results::MegatronLine config=calc.config />
            {move || vram_view::launch::process_line(t.html_lang.starts_with("zh"), &calc.config.read(), &calc.report.read())
                .map(|line| view! { <p class="activations" data-testid="nvidia-smi">{line}</p> })}
            {move || vram_view::launch::loading_line(t.html_lang.starts_with("zh"), &calc.config.read(), &calc.report.read())
                .map(|line| view! { <p class="activations" data-testid="checkpoint-loading">{line}</p> })}
        })}
        {(shows(Part::Table) && editable).then(|| view! {
            <crate::fixes::Fixes config=calc.config form=calc.form report=calc.report />
        })}
        {shows(Part::Placement).then(|| view! { <PlacementTable report=calc.report /> })}
        {chart(Part::MemoryChart, t.chart_memory_heading, ChartKind::Memory)}
        {shows(Part::MemoryChart).then(|| view! {
            <div class="step-chart" data-testid="step-chart" hidden=move || calc.report.read().activations.is_none()>
                <h2>{t.chart_step_heading}</h2>
                <Chart report=calc.report config=calc.config theme=calc.theme kind=ChartKind::Step heading=t.chart_step_heading />
            </div>
        })}
        {chart(Part::LargestChart, t.chart_heading, ChartKind::MaxParams)}
        {chart(Part::ScalingChart, t.chart_scaling_heading, ChartKind::Scaling)}
        {(shows(Part::Form) && editable).then(|| view! {
            <crate::plans::Plans config=calc.config form=calc.form open=calc.plans_open theme=calc.theme report=calc.report found=calc.plans_found />
        })}
        </div>
    }
}

/// A chart of `kind` under its heading, where the link shows `part`.
fn chart(
    calc: Calculator,
    part: Part,
    heading: &'static str,
    kind: ChartKind,
) -> Option<impl IntoView> {
    calc.shows(part).then(|| {
        view! {
            <h2>{heading}</h2>
            <Chart report=calc.report config=calc.config theme=calc.theme kind=kind heading=heading />
        }
    })
}

/// Brings the lesson's answer into view once drawn, if it is not: on a phone
/// the results come after the whole form, far below the question's button.
fn show_lesson_answer() {
    request_animation_frame(|| {
        let answer = document()
            .query_selector("[data-testid='lesson-answer']")
            .ok()
            .flatten();
        if let Some(answer) = answer {
            // On a phone (the results after the form) the answer goes to the
            // top, under the pinned verdict, the table after it in view
            // (issue 63: it landed at the bottom edge, the table off-screen);
            // beside the form it only comes into view.
            let phone = window()
                .inner_width()
                .ok()
                .and_then(|w| w.as_f64())
                .is_some_and(|w| w <= 760.0);
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(match phone {
                true => web_sys::ScrollLogicalPosition::Start,
                false => web_sys::ScrollLogicalPosition::Nearest,
            });
            answer.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
}

/// The whole, editable calculator with `config`'s configuration: where a
/// read-only figure's link goes (language, unit and theme kept).
fn whole_calculator(config: &Config) -> Config {
    let whole = Config::default();
    Config {
        embed: whole.embed,
        show: whole.show,
        controls: whole.controls,
        ..*config
    }
}

/// The keys of the shared link that could not be used, with what was used instead.
#[component]
fn LinkProblems(problems: RwSignal<Vec<LinkProblem>>) -> impl IntoView {
    let t = crate::words();
    view! {
        <div class="notice" role="alert" data-testid="link-problems" hidden=move || problems.read().is_empty()>
                <p>{t.link_problems_heading}</p>
                <ul>
                    {move || problems.read().iter().map(|p| view! {
                        <li data-key=p.key.clone()>{text::link_problem(t, p)}</li>
                    }).collect_view()}
                </ul>
                <button type="button" class="quiet" on:click=move |_| problems.set(Vec::new())>{t.dismiss}</button>
        </div>
    }
}

/// The link to this configuration (`query`, its link's query), a button that
/// copies it, and the exports: the results as Markdown to the clipboard and
/// as CSV to download, both made by the lazily loaded module (so their code
/// is not part of the first view). The exports are of the training table,
/// so they are offered only while `training` is the job on show.
#[component]
fn ShareLink(
    url: Signal<String>,
    query: Memo<String>,
    config: Memo<Config>,
    training: Signal<bool>,
) -> impl IntoView {
    let t = crate::words();
    let status = RwSignal::new(None::<&'static str>);
    // A refusal's reason, in words, from the lazily loaded module.
    let refused = RwSignal::new(None::<String>);
    let said = move |copied: bool, words: &'static str| {
        refused.set(None);
        status.set(Some(if copied { words } else { t.copy_failed }));
    };
    let copy_as = move |target: vram_launch::Target| {
        let (query, url) = (query.get_untracked(), url.get_untracked());
        let zh = t.html_lang.starts_with("zh");
        spawn_local(async move {
            match lazy::copy_as(&query, target.key(), &url, zh).await {
                Ok(()) => said(true, t.export_copied),
                Err(reason) if !reason.is_empty() => {
                    status.set(None);
                    refused.set(Some(reason));
                }
                Err(_) => said(false, t.copy_failed),
            }
        });
    };
    let copy_link = move |_| {
        let url = url.get_untracked();
        spawn_local(async move {
            let outcome = share::copy_to_clipboard(&url).await;
            said(outcome.is_ok(), t.copied);
        });
    };
    let copy_markdown = move |_| {
        let (query, url) = (query.get_untracked(), url.get_untracked());
        let zh = t.html_lang.starts_with("zh");
        spawn_local(async move {
            let outcome = lazy::copy_results(&query, &url, zh).await;
            said(outcome.is_ok(), t.markdown_copied);
        });
    };
    // The CSV's data: URL, made for the link it was asked for: a click on a
    // link whose CSV is not made yet asks the lazily loaded module, sets the
    // URL and clicks again, which downloads it.
    let csv_for = RwSignal::new(String::new());
    let csv = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let current = query.get_untracked();
        if csv_for.get_untracked() == current {
            return;
        }
        ev.prevent_default();
        let Some(link) = ev
            .current_target()
            .and_then(|l| l.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            return;
        };
        lazy::with_lazy(Box::new(move |lazy| {
            let Some(lazy) = lazy else {
                said(false, t.copy_failed);
                return;
            };
            let csv = lazy::csv_with(lazy, &current);
            let encoded = String::from(js_sys::encode_uri_component(&csv));
            let _ = link.set_attribute("href", &format!("data:text/csv;charset=utf-8,{encoded}"));
            csv_for.set(current);
            link.click();
        }));
    };
    view! {
        <div class="share">
            <label for="share-url">{t.share_label}</label>
            <div class="share-row">
                <input id="share-url" type="text" readonly data-testid="share-url" prop:value=url
                    on:focus=|ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            input.select();
                        }
                    } />
                <button type="button" on:click=copy_link data-testid="copy-link">{t.copy_link}</button>
            </div>
            <div class="share-row exports" hidden=move || !training.get()>
                <button type="button" class="quiet" on:click=copy_markdown data-testid="export-markdown">{t.copy_markdown}</button>
                <a class="button" download="vram-calculator.csv" href="#" on:click=csv data-testid="export-csv">{t.download_csv}</a>
            </div>
            <div class="share-row exports" data-testid="copy-as">
                <span class="copy-as">{t.copy_as}</span>
                {move || vram_launch::Target::of(&config.read()).map(|target| view! {
                    <button type="button" class="quiet" on:click=move |_| copy_as(target)
                        data-testid=format!("copy-as-{}", target.key())>{target.label()}</button>
                }).collect_view()}
            </div>
            <p class="copy-status" aria-live="polite" data-testid="copy-status">{move || status.get()}</p>
            <p class="copy-status refused" role="alert" data-testid="copy-refused" hidden=move || refused.read().is_none()>{move || refused.get()}</p>
        </div>
    }
}

/// A box for a pasted (or chosen, or dropped) `config.json`: read in the page,
/// it fills the architecture; a text that cannot be read is said next to the
/// box, and the form keeps what it had.
#[component]
fn PasteConfig(config: Memo<Config>, form: crate::form::Form) -> impl IntoView {
    let t = crate::words();
    let text = RwSignal::new(String::new());
    let outcome = RwSignal::new(None::<Result<Vec<String>, String>>);
    // The reader is WebAssembly of its own (crates/reader), imported the
    // first time a text is read; the form changes only when it could be read.
    let read = move |source: &str| {
        let source = source.to_string();
        crate::lazy::with_reader(Box::new(move |reader| {
            // The box may be gone by the time the reader arrives.
            let Some(current) = config.try_get_untracked() else {
                return;
            };
            let zh = t.html_lang.starts_with("zh");
            let reply =
                reader.and_then(|r| crate::lazy::read_config_with(r, &source, &current, zh));
            outcome.set(Some(match reply {
                Some(ReadReply::Read { query, lines }) => {
                    form.load(&link::decode(&query).config);
                    Ok(lines)
                }
                Some(ReadReply::Refused(why)) => Err(why),
                None => Err(t.hub_unavailable.into()),
            }));
        }));
    };
    let read_file = move |file: Option<web_sys::File>| {
        if let Some(file) = file {
            wasm_bindgen_futures::spawn_local(async move {
                let contents = wasm_bindgen_futures::JsFuture::from(file.text()).await;
                if let Some(contents) = contents.ok().and_then(|v| v.as_string()) {
                    text.set(contents.clone());
                    read(&contents);
                }
            });
        }
    };
    view! {
        <details class="paste" data-testid="paste-config">
            <summary>{t.paste_heading}</summary>
            <p class="hint">{t.paste_hint}</p>
            <textarea data-testid="paste-text" rows="6" spellcheck="false" aria-label=t.paste_heading
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:dragover=|ev: web_sys::DragEvent| ev.prevent_default()
                on:drop=move |ev: web_sys::DragEvent| {
                    let file = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0));
                    if file.is_some() {
                        ev.prevent_default();
                        read_file(file);
                    }
                }></textarea>
            <div class="paste-actions">
                <button type="button" data-testid="paste-read" on:click=move |_| read(&text.get_untracked())>{t.paste_read}</button>
                <label class="paste-file">{t.paste_file} " "
                    <input type="file" accept=".json,application/json" data-testid="paste-file"
                        on:change=move |ev| {
                            use wasm_bindgen::JsCast;
                            let input = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok());
                            read_file(input.and_then(|i| i.files()).and_then(|f| f.get(0)));
                        } />
                </label>
            </div>
            {move || match outcome.get() {
                None => ().into_any(),
                Some(Ok(lines)) => view! {
                    <ul class="paste-summary" data-testid="paste-summary">
                        {lines.into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                    </ul>
                }.into_any(),
                Some(Err(message)) => view! {
                    <p class="error" role="alert" data-testid="paste-error">{message}</p>
                }.into_any(),
            }}
        </details>
    }
}
