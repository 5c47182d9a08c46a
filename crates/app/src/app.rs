//! The calculator: its state, and the page's layout.
//!
//! State is what the user typed, exactly (one signal per control). Everything
//! else is derived: the core parses the whole form into a configuration, the
//! shown configuration is the last one that was valid, the report is the core's
//! report of it, and the address bar follows the configuration.

use leptos::prelude::*;
use leptos::task::spawn_local;
use vram_core::activations::Recompute;
use vram_core::architecture::{Architecture, Mlp, ModelPreset, MODEL_PRESETS};
use vram_core::config::ModelSpec;
use vram_core::decimal::shortest_decimal;
use vram_core::format::{Lang, MemoryUnit, Theme};
use vram_core::gpu::{GpuPreset, GPU_PRESETS};
use vram_core::link::{self, value_of, LinkProblem, DEFAULT_ARCHITECTURE_PRESET};
use vram_core::runtime::BANDWIDTH_PRESETS;
use vram_core::{
    parse_percent, percent_text, Accounting, BufferSizes, Config, Field, GradientPrecision,
    InputError, Offload, OffloadDevice, Optimizer, Precision, Report, Runtime, Strategy,
};

use crate::chart::{Chart, ChartKind};
use crate::form::{choice_field, index_of, number_field, Choices, NumberSpec};
use crate::results::{ActivationsLine, PlacementTable, ResultsTable, Summary};
use crate::share;
use crate::text::{self, Text};

/// What the user typed and chose, control by control.
#[derive(Clone, Copy)]
struct Form {
    params: RwSignal<String>,
    gpus: RwSignal<String>,
    gpu_mem: RwSignal<String>,
    overhead: RwSignal<String>,
    // Choices are indices into the lists below (see `Choices`).
    precision: RwSignal<usize>,
    gradients: RwSignal<usize>,
    optimizer: RwSignal<usize>,
    highlight: RwSignal<usize>,
    /// 0: custom memory; i: GPU_PRESETS[i - 1].
    gpu: RwSignal<usize>,
    /// 0: by size only; i: MODEL_PRESETS[i - 1].
    model: RwSignal<usize>,
    layers: RwSignal<String>,
    hidden: RwSignal<String>,
    ffn: RwSignal<String>,
    heads: RwSignal<String>,
    kv_heads: RwSignal<String>,
    vocab: RwSignal<String>,
    tied: RwSignal<usize>,
    mlp: RwSignal<usize>,
    seq: RwSignal<String>,
    mbs: RwSignal<String>,
    recompute: RwSignal<usize>,
    flash: RwSignal<usize>,
    global_batch: RwSignal<String>,
    unit: RwSignal<usize>,
    theme: RwSignal<usize>,
    lang: RwSignal<usize>,
    accounting: RwSignal<usize>,
    offload: RwSignal<usize>,
    offload_to: RwSignal<usize>,
    nodes: RwSignal<String>,
    largest_layer: RwSignal<String>,
    zero_init: RwSignal<usize>,
    buffers: RwSignal<usize>,
    /// Reduce, all-gather and prefetch buckets, most live parameters.
    buffer_sizes: [RwSignal<String>; 4],
    bandwidth: RwSignal<String>,
    /// Embedded layout: set by the host page's link, not by the form.
    embed: bool,
}

/// The model whose values fill the architecture fields while none is chosen.
fn default_model() -> ModelSpec {
    let preset = vram_core::architecture::model_preset(DEFAULT_ARCHITECTURE_PRESET)
        .unwrap_or(&MODEL_PRESETS[0]);
    ModelSpec::of(preset)
}

impl Form {
    fn new(config: &Config) -> Form {
        let text = || RwSignal::new(String::new());
        let choice = || RwSignal::new(0usize);
        let form = Form {
            params: text(),
            gpus: text(),
            gpu_mem: text(),
            overhead: text(),
            precision: choice(),
            gradients: choice(),
            optimizer: choice(),
            highlight: choice(),
            gpu: choice(),
            model: choice(),
            layers: text(),
            hidden: text(),
            ffn: text(),
            heads: text(),
            kv_heads: text(),
            vocab: text(),
            tied: choice(),
            mlp: choice(),
            seq: text(),
            mbs: text(),
            recompute: choice(),
            flash: choice(),
            global_batch: text(),
            unit: choice(),
            theme: choice(),
            lang: choice(),
            accounting: choice(),
            offload: choice(),
            offload_to: choice(),
            nodes: text(),
            largest_layer: text(),
            zero_init: choice(),
            buffers: choice(),
            buffer_sizes: [text(), text(), text(), text()],
            bandwidth: text(),
            embed: config.embed,
        };
        form.load(config);
        form
    }

    /// Sets every control to `config`.
    fn load(&self, config: &Config) {
        self.params.set(value_of(config, Field::Params));
        self.gpus.set(value_of(config, Field::Gpus));
        self.gpu_mem.set(value_of(config, Field::GpuMemory));
        self.overhead.set(percent_text(config.overhead));
        self.precision
            .set(index_of(&Precision::ALL, &config.precision));
        self.gradients
            .set(index_of(&GradientPrecision::ALL, &config.gradients));
        self.optimizer
            .set(index_of(&Optimizer::ALL, &config.optimizer));
        self.highlight
            .set(index_of(&Strategy::ALL, &config.highlight));
        self.gpu
            .set(config.gpu.map_or(0, |g| 1 + index_of(GPU_PRESETS, g)));
        self.model.set(
            config
                .model
                .map_or(0, |m| 1 + index_of(MODEL_PRESETS, m.base)),
        );
        self.load_model(&config.model.unwrap_or_else(default_model));
        self.unit.set(index_of(&MemoryUnit::ALL, &config.unit));
        self.theme.set(index_of(&Theme::ALL, &config.theme));
        self.lang.set(index_of(&Lang::ALL, &config.lang));
        self.global_batch.set(
            config
                .global_batch
                .map(|b| b.to_string())
                .unwrap_or_default(),
        );
        let runtime = &config.runtime;
        self.accounting
            .set(index_of(&Accounting::ALL, &runtime.accounting));
        self.offload.set(index_of(&Offload::ALL, &runtime.offload));
        self.offload_to
            .set(index_of(&OffloadDevice::ALL, &runtime.offload_device));
        self.zero_init.set(usize::from(runtime.zero_init));
        self.buffers.set(usize::from(runtime.buffers));
        for (signal, field) in self.buffer_sizes.into_iter().zip(BUFFER_FIELDS) {
            signal.set(value_of(config, field));
        }
        for (signal, field) in [
            (self.nodes, Field::Nodes),
            (self.largest_layer, Field::LargestLayer),
            (self.bandwidth, Field::Bandwidth),
        ] {
            signal.set(value_of(config, field));
        }
    }

    /// Every text control with its key, for keeping what was typed across a reload.
    fn texts(&self) -> [(Field, RwSignal<String>); 20] {
        let [reduce, allgather, prefetch, live] = self.buffer_sizes;
        [
            (Field::Params, self.params),
            (Field::Gpus, self.gpus),
            (Field::GpuMemory, self.gpu_mem),
            (Field::Overhead, self.overhead),
            (Field::Layers, self.layers),
            (Field::Hidden, self.hidden),
            (Field::Ffn, self.ffn),
            (Field::Heads, self.heads),
            (Field::KvHeads, self.kv_heads),
            (Field::Vocab, self.vocab),
            (Field::Seq, self.seq),
            (Field::MicroBatch, self.mbs),
            (Field::GlobalBatch, self.global_batch),
            (Field::Nodes, self.nodes),
            (Field::LargestLayer, self.largest_layer),
            (Field::Bandwidth, self.bandwidth),
            (Field::ReduceBucket, reduce),
            (Field::AllgatherBucket, allgather),
            (Field::PrefetchBucket, prefetch),
            (Field::MaxLive, live),
        ]
    }

    /// What is typed in every text control, as a query string.
    fn typed(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (field, text) in self.texts() {
            text.with_untracked(|text| query.append_pair(field.key(), text));
        }
        query.finish()
    }

    /// Puts back what [`typed`](Self::typed) kept.
    fn restore(&self, typed: &str) {
        for (key, value) in form_urlencoded::parse(typed.as_bytes()) {
            if let Some((_, text)) = self.texts().into_iter().find(|(f, _)| f.key() == key) {
                text.set(value.into_owned());
            }
        }
    }

    /// Sets the architecture and step controls to `model`.
    fn load_model(&self, model: &ModelSpec) {
        let a = model.architecture;
        for (signal, value) in [
            (self.layers, a.layers),
            (self.hidden, a.hidden),
            (self.ffn, a.ffn),
            (self.heads, a.heads),
            (self.kv_heads, a.kv_heads),
            (self.vocab, a.vocab),
            (self.seq, model.seq_len),
            (self.mbs, model.micro_batch),
        ] {
            signal.set(value.to_string());
        }
        self.tied.set(usize::from(a.tied_embeddings));
        self.mlp.set(index_of(&Mlp::ALL, &a.mlp));
        self.recompute
            .set(index_of(&Recompute::ALL, &model.recompute));
        self.flash.set(usize::from(!model.flash_attention));
    }

    /// The configuration the controls describe, or every problem, each naming its field.
    fn parse(&self) -> Result<Config, Vec<InputError>> {
        let mut errors = Vec::new();
        let mut keep = |result: Result<_, InputError>| result.map_err(|e| errors.push(e)).ok();
        let number = |field: Field, text: RwSignal<String>| text.with(|t| field.parse_number(t));
        let count = |field: Field, text: RwSignal<String>| text.with(|t| field.parse_count(t));
        let params = keep(number(Field::Params, self.params));
        let gpu_mem = keep(number(Field::GpuMemory, self.gpu_mem));
        let overhead = keep(self.overhead.with(|t| parse_percent(Field::Overhead, t)));
        let gpus = keep(count(Field::Gpus, self.gpus).map(f64::from)).map(|g| g as u32);
        // An optional field: empty is none, anything else must be valid.
        let optional = |field: Field, text: RwSignal<String>| {
            text.with(|t| (!t.trim().is_empty()).then(|| field.parse_number(t)))
        };
        let global_batch = self
            .global_batch
            .with(|t| (!t.trim().is_empty()).then(|| Field::GlobalBatch.parse_count(t)));
        let global_batch = global_batch
            .and_then(|r| keep(r.map(f64::from)))
            .map(|b| b as u32);
        let nodes = keep(count(Field::Nodes, self.nodes).map(f64::from)).map(|n| n as u32);
        let largest_layer = optional(Field::LargestLayer, self.largest_layer).and_then(&mut keep);
        let bandwidth = optional(Field::Bandwidth, self.bandwidth).and_then(&mut keep);
        let [reduce, allgather, prefetch, live] =
            [0, 1, 2, 3].map(|i| keep(number(BUFFER_FIELDS[i], self.buffer_sizes[i])));
        let model = match self.model_preset() {
            None => Some(None),
            Some(base) => {
                let mut value =
                    |field, text| keep(count(field, text).map(f64::from)).map(|v| v as u32);
                let (layers, hidden, ffn) = (
                    value(Field::Layers, self.layers),
                    value(Field::Hidden, self.hidden),
                    value(Field::Ffn, self.ffn),
                );
                let (heads, kv_heads, vocab) = (
                    value(Field::Heads, self.heads),
                    value(Field::KvHeads, self.kv_heads),
                    value(Field::Vocab, self.vocab),
                );
                let (seq, mbs) = (
                    value(Field::Seq, self.seq),
                    value(Field::MicroBatch, self.mbs),
                );
                (|| {
                    Some(Some(ModelSpec {
                        base,
                        architecture: Architecture {
                            layers: layers?,
                            hidden: hidden?,
                            ffn: ffn?,
                            heads: heads?,
                            kv_heads: kv_heads?,
                            vocab: vocab?,
                            tied_embeddings: self.tied.get() == 1,
                            mlp: Mlp::ALL[self.mlp.get().min(1)],
                            ..base.architecture
                        },
                        seq_len: seq?,
                        micro_batch: mbs?,
                        recompute: Recompute::ALL[self.recompute.get().min(2)],
                        flash_attention: self.flash.get() == 0,
                    }))
                })()
            }
        };
        if matches!(model, Some(Some(_))) {
            // The model size field is disabled: the architecture gives the size.
            errors.retain(|e| e.field != Field::Params);
        }
        let (Some(gpus), Some(gpu_mem), Some(overhead), Some(model), Some(nodes)) =
            (gpus, gpu_mem, overhead, model, nodes)
        else {
            return Err(errors);
        };
        let (Some(reduce_bucket), Some(allgather_bucket), Some(prefetch_bucket), Some(live)) =
            (reduce, allgather, prefetch, live)
        else {
            return Err(errors);
        };
        let params = match (&model, params) {
            (Some(m), _) => m.params_billions(),
            (None, Some(params)) => params,
            (None, None) => return Err(errors),
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let config = Config {
            params_billions: params,
            gpus,
            gpu_mem_gb: gpu_mem,
            precision: pick(&Precision::ALL, self.precision),
            gradients: pick(&GradientPrecision::ALL, self.gradients),
            optimizer: pick(&Optimizer::ALL, self.optimizer),
            overhead,
            highlight: pick(&Strategy::ALL, self.highlight),
            model,
            gpu: self.gpu_preset().filter(|g| g.memory().gb() == gpu_mem),
            global_batch,
            unit: pick(&MemoryUnit::ALL, self.unit),
            theme: pick(&Theme::ALL, self.theme),
            lang: pick(&Lang::ALL, self.lang),
            embed: self.embed,
            runtime: Runtime {
                accounting: pick(&Accounting::ALL, self.accounting),
                offload: pick(&Offload::ALL, self.offload),
                offload_device: pick(&OffloadDevice::ALL, self.offload_to),
                nodes,
                largest_layer_millions: largest_layer.filter(|_| model.is_none()),
                zero_init: self.zero_init.get() == 1,
                buffers: self.buffers.get() == 1,
                buffer_sizes: BufferSizes {
                    reduce_bucket,
                    allgather_bucket,
                    prefetch_bucket,
                    max_live_parameters: live,
                },
                bandwidth_gb_per_s: bandwidth,
            },
        };
        // Cross-field rules: heads dividing the hidden size, the model's size,
        // GPUs × nodes.
        config.setup().map(|_| config).map_err(|e| vec![e])
    }
}

impl Form {
    /// The chosen model preset, if any.
    fn model_preset(&self) -> Option<&'static ModelPreset> {
        self.model
            .get()
            .checked_sub(1)
            .and_then(|i| MODEL_PRESETS.get(i))
    }

    /// The chosen GPU preset, if any.
    fn gpu_preset(&self) -> Option<&'static GpuPreset> {
        self.gpu
            .get()
            .checked_sub(1)
            .and_then(|i| GPU_PRESETS.get(i))
    }
}

/// DeepSpeed's buffer sizes, in the order of `Form::buffer_sizes`.
const BUFFER_FIELDS: [Field; 4] = [
    Field::ReduceBucket,
    Field::AllgatherBucket,
    Field::PrefetchBucket,
    Field::MaxLive,
];

/// The value at the index `signal` holds (the first if out of range).
fn pick<T: Copy>(values: &[T], signal: RwSignal<usize>) -> T {
    values.get(signal.get()).copied().unwrap_or(values[0])
}

/// The lesson's Q6 as one-click scenarios: 13B, 33B and 70B on 8 × A100 80GB.
const SCENARIOS: [(&str, &str); 3] = [
    (
        "13B",
        "?model=llama2-13b&gpu=a100-80gb&gpus=8&seq=2048&mbs=1&flash=1&recompute=none&stage=2",
    ),
    (
        "33B",
        "?model=llama1-33b&gpu=a100-80gb&gpus=8&seq=2048&mbs=1&flash=1&recompute=full&stage=3",
    ),
    (
        "70B",
        "?model=llama2-70b&gpu=a100-80gb&gpus=8&seq=2048&mbs=1&flash=1&recompute=full&stage=3",
    ),
];

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let link::DecodedLink {
        config: initial,
        problems,
    } = link::decode(&share::current_query());
    let form = Form::new(&initial);
    // After a language switch: what was typed, valid or not.
    if let Some(typed) = share::take_typed() {
        form.restore(&typed);
    }
    let link_problems = RwSignal::new(problems);

    // Choosing a preset fills the fields; editing the memory leaves the GPU preset.
    Effect::new(move |first: Option<()>| {
        let model = form.model_preset();
        if first.is_some() {
            if let Some(preset) = model {
                let current = untrack(|| form.parse().ok().and_then(|c| c.model));
                form.load_model(&ModelSpec {
                    architecture: preset.architecture,
                    ..current.unwrap_or(ModelSpec::of(preset))
                });
            }
        }
    });
    Effect::new(move |first: Option<()>| {
        let gpu = form.gpu_preset();
        if let (Some(gpu), Some(())) = (gpu, first) {
            form.gpu_mem.set(shortest_decimal(gpu.memory().gb()));
        }
    });
    Effect::new(move |_| {
        let typed = form.gpu_mem.with(|t| Field::GpuMemory.parse_number(t));
        if let Some(gpu) = untrack(|| form.gpu_preset()) {
            if typed != Ok(gpu.memory().gb()) {
                form.gpu.set(0);
            }
        }
    });

    let parsed = Memo::new(move |_| form.parse());
    let errors = Memo::new(move |_| parsed.with(|p| p.as_ref().err().cloned().unwrap_or_default()));
    let stale = Memo::new(move |_| parsed.with(Result::is_err));
    let config = Memo::new(move |previous: Option<&Config>| match parsed.get() {
        Ok(config) => config,
        Err(_) => previous.copied().unwrap_or(initial),
    });
    // Every valid configuration has a report; should one ever not, the previous one stays.
    let report = Memo::new(move |previous: Option<&Report>| {
        config
            .get()
            .report()
            .unwrap_or_else(|_| previous.cloned().unwrap_or_default())
    });

    let query = Memo::new(move |_| link::encode(&config.get()));
    share::follow_in_address(query);
    let share_url = move || share::page_url(&query.get());
    // Inside another page's iframe: compact, and the host learns our height.
    share::set_embedded(initial.embed);
    if initial.embed {
        Effect::new(move |_| {
            report.track();
            share::post_height();
        });
    }
    // The forced theme, if any, on <html>, where the style sheet reads it.
    let theme = Memo::new(move |_| pick(&Theme::ALL, form.theme));
    Effect::new(move |_| share::set_theme(theme.get().key()));
    let error_of = move |field: Field| {
        Signal::derive(move || errors.with(|e| e.iter().find(|e| e.field == field).copied()))
    };
    let with_model = Signal::derive(move || form.model.get() != 0);
    let without_buffers = Signal::derive(move || form.buffers.get() == 0);
    let count = move || report.with(|r| r.setup.params().get());
    // The language: the link's, else the browser's. The page is built once in it;
    // a switch reloads the page with the new link, what was typed kept in the
    // session (a page rebuilt in place would cost 3 to 20 KB of WebAssembly in
    // code to unmount or diff it).
    let chosen_lang = Memo::new(move |_| pick(&Lang::ALL, form.lang));
    let lang = chosen_lang
        .get_untracked()
        .resolve(share::preferred_languages().iter().map(String::as_str));
    let t = text::of(lang);
    share::set_language(t.html_lang, t.title);
    Effect::new(move |first: Option<()>| {
        let chosen = chosen_lang.get();
        if first.is_some() {
            let switched = Config {
                lang: chosen,
                ..config.get_untracked()
            };
            share::reload_with(&link::encode(&switched), &form.typed());
        }
    });
    {
        {
            let model_note = move || {
                config.with(|c| match &c.model {
                    Some(m) => match m.preset() {
                        Some(preset) => format!(" ({})", preset.name),
                        None => format!(" ({} {})", t.custom_from, m.base.name),
                    },
                    None => String::new(),
                })
            };

            view! {
                <main class="calculator">
                    <header class="masthead">
                        <h1>{t.title}</h1>
                        <p class="title-alt" lang=t.subtitle_lang>{t.subtitle}</p>
                        <p class="intro">{t.intro} <a class="to-results" href="#results-heading" data-testid="to-results">{t.to_results}</a></p>
                    </header>
                    <LinkProblems problems=link_problems t=t />
                    <div class="layout">
                        <form class="controls" aria-labelledby="form-heading" on:submit=|ev| ev.prevent_default()>
                            <h2 id="form-heading">{t.form_heading}</h2>
                            <div class="scenarios">
                                <span>{t.scenarios}</span>
                                {SCENARIOS.map(|(name, query)| view! {
                                    <button type="button" class="quiet" data-testid=format!("scenario-{name}")
                                        on:click=move |_| form.load(&link::decode(query).config)>{name}</button>
                                })}
                            </div>
                            {choice_field(Field::Model, t.label_model, Choices::of(form.model,
                                &std::iter::once(None).chain(MODEL_PRESETS.iter().map(Some)).collect::<Vec<_>>(), model_key,
                                &std::iter::once(t.model_by_size).chain(MODEL_PRESETS.iter().map(|m| m.name)).collect::<Vec<_>>()))}
                            {number_field(NumberSpec { field: Field::Params, label: t.label_params, unit: t.unit_params, inputmode: "decimal", hint: None }, form.params, error_of(Field::Params), with_model, t)}
                            <p class="params-count" data-testid="params-count" data-value=move || shortest_decimal(count())>
                                {move || vram_core::format::format_number(count())} " " {t.parameters} {model_note}
                            </p>
                            <fieldset class="architecture" hidden=move || !with_model.get()>
                                <legend>{t.architecture}</legend>
                                {number_field(NumberSpec { field: Field::Layers, label: t.label_layers, unit: "", inputmode: "numeric", hint: None }, form.layers, error_of(Field::Layers), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::Hidden, label: t.label_hidden, unit: "", inputmode: "numeric", hint: None }, form.hidden, error_of(Field::Hidden), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::Ffn, label: t.label_ffn, unit: "", inputmode: "numeric", hint: None }, form.ffn, error_of(Field::Ffn), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::Heads, label: t.label_heads, unit: "", inputmode: "numeric", hint: None }, form.heads, error_of(Field::Heads), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::KvHeads, label: t.label_kv_heads, unit: "", inputmode: "numeric", hint: None }, form.kv_heads, error_of(Field::KvHeads), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::Vocab, label: t.label_vocab, unit: "", inputmode: "numeric", hint: None }, form.vocab, error_of(Field::Vocab), Signal::default(), t)}
                                {choice_field(Field::Mlp, t.label_mlp, Choices::of(form.mlp, &Mlp::ALL, Mlp::key, &t.mlp))}
                                {choice_field(Field::Tied, t.label_tied, Choices::of(form.tied, &[false, true], flag_key, &[t.no, t.yes]))}
                                {number_field(NumberSpec { field: Field::Seq, label: t.label_seq, unit: t.unit_tokens, inputmode: "numeric", hint: None }, form.seq, error_of(Field::Seq), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::MicroBatch, label: t.label_mbs, unit: t.unit_sequences, inputmode: "numeric", hint: None }, form.mbs, error_of(Field::MicroBatch), Signal::default(), t)}
                                {choice_field(Field::Recompute, t.label_recompute, Choices::of(form.recompute, &Recompute::ALL, Recompute::key, &t.recompute))}
                                {choice_field(Field::Flash, t.label_flash, Choices::of(form.flash, &[true, false], flag_key, &[t.yes, t.no]))}
                            </fieldset>
                            {number_field(NumberSpec { field: Field::Gpus, label: t.label_gpus, unit: t.unit_gpus, inputmode: "numeric", hint: None }, form.gpus, error_of(Field::Gpus), Signal::default(), t)}
                            {choice_field(Field::Gpu, t.label_gpu, Choices::of(form.gpu,
                                &std::iter::once(None).chain(GPU_PRESETS.iter().map(Some)).collect::<Vec<_>>(), gpu_key,
                                &std::iter::once(t.gpu_custom).chain(GPU_PRESETS.iter().map(|g| g.name)).collect::<Vec<_>>()))}
                            {number_field(NumberSpec { field: Field::GpuMemory, label: t.label_gpu_mem, unit: t.unit_gb, inputmode: "decimal", hint: None }, form.gpu_mem, error_of(Field::GpuMemory), Signal::default(), t)}
                            <p class="hint" data-testid="gpu-capacity">{move || gpu_capacity(&config.get())}</p>
                            {number_field(NumberSpec { field: Field::Overhead, label: t.label_overhead, unit: t.unit_percent, inputmode: "decimal", hint: Some(t.hint_overhead) }, form.overhead, error_of(Field::Overhead), Signal::default(), t)}
                            {choice_field(Field::Precision, t.label_precision, Choices::of(form.precision, &Precision::ALL, Precision::key, &t.precision))}
                            {choice_field(Field::GradAcc, t.label_grad_acc, Choices::of(form.gradients, &GradientPrecision::ALL, GradientPrecision::key, &t.gradients))}
                            {choice_field(Field::Optimizer, t.label_optimizer, Choices::of(form.optimizer, &Optimizer::ALL, Optimizer::key, &t.optimizer))}
                            <p class="hint" data-testid="optimizer-bytes">{move || config.with(|c| optimizer_note(t, c))}</p>
                            {number_field(NumberSpec { field: Field::GlobalBatch, label: t.label_global_batch, unit: t.unit_sequences, inputmode: "numeric", hint: Some(t.hint_global_batch) }, form.global_batch, error_of(Field::GlobalBatch), Signal::default(), t)}
                            {choice_field(Field::Unit, t.label_unit, Choices::of(form.unit, &MemoryUnit::ALL, MemoryUnit::key, &t.unit))}
                            {choice_field(Field::Lang, t.label_lang, Choices::of(form.lang, &Lang::ALL, Lang::key, &t.lang))}
                            {choice_field(Field::Theme, t.label_theme, Choices::of(form.theme, &Theme::ALL, Theme::key, &t.theme))}
                            {choice_field(Field::Stage, t.label_stage, Choices::of(form.highlight, &Strategy::ALL, Strategy::key, &Strategy::ALL.map(Strategy::label)))}
                            <details class="runtime" open=initial.runtime != Runtime::default()>
                                <summary>{t.runtime}</summary>
                                {choice_field(Field::Accounting, t.label_accounting, Choices::of(form.accounting, &Accounting::ALL, Accounting::key, &t.accounting))}
                                {choice_field(Field::Offload, t.label_offload, Choices::of(form.offload, &Offload::ALL, Offload::key, &t.offload))}
                                {choice_field(Field::OffloadTo, t.label_offload_to, Choices::of(form.offload_to, &OffloadDevice::ALL, OffloadDevice::key, &t.offload_to))}
                                {number_field(NumberSpec { field: Field::Nodes, label: t.label_nodes, unit: t.unit_nodes, inputmode: "numeric", hint: Some(t.hint_nodes) }, form.nodes, error_of(Field::Nodes), Signal::default(), t)}
                                {number_field(NumberSpec { field: Field::LargestLayer, label: t.label_largest_layer, unit: t.unit_millions, inputmode: "decimal", hint: Some(t.hint_largest_layer) }, form.largest_layer, error_of(Field::LargestLayer), with_model, t)}
                                {choice_field(Field::ZeroInit, t.label_zero_init, Choices::of(form.zero_init, &[false, true], flag_key, &[t.no, t.yes]))}
                                {choice_field(Field::Buffers, t.label_buffers, Choices::of(form.buffers, &[false, true], flag_key, &[t.no, t.yes]))}
                                {BUFFER_FIELDS.into_iter().zip(form.buffer_sizes).zip(t.buffer_labels).map(|((field, signal), label)| {
                                    number_field(NumberSpec { field, label, unit: t.unit_million_elements, inputmode: "decimal", hint: None }, signal, error_of(field), without_buffers, t)
                                }).collect_view()}
                                {number_field(NumberSpec { field: Field::Bandwidth, label: t.label_bandwidth, unit: t.unit_bandwidth, inputmode: "decimal", hint: Some(t.hint_bandwidth) }, form.bandwidth, error_of(Field::Bandwidth), Signal::default(), t)}
                                <datalist id="bw-presets">
                                    {BANDWIDTH_PRESETS.map(|p| view! { <option value=shortest_decimal(p.gb_per_s)>{p.name}</option> })}
                                </datalist>
                            </details>
                        </form>
                        <section class="output" aria-labelledby="results-heading" class:stale=stale data-stale=move || stale.get().to_string()>
                            <h2 id="results-heading">{t.results_heading}</h2>
                            <p class="stale-note" data-testid="stale" hidden=move || !stale.get()>{t.stale}</p>
                            <Summary report=report t=t />
                            <ResultsTable report=report highlight=form.highlight t=t />
                            <ActivationsLine report=report t=t />
                            <PlacementTable report=report t=t />
                            <h2>{t.chart_memory_heading}</h2>
                            <Chart report=report theme=theme t=t kind=ChartKind::Memory />
                            <h2>{t.chart_heading}</h2>
                            <Chart report=report theme=theme t=t kind=ChartKind::MaxParams />
                            <h2>{t.chart_scaling_heading}</h2>
                            <Chart report=report theme=theme t=t kind=ChartKind::Scaling />
                            <ShareLink url=Signal::derive(share_url) report=report t=t />
                            <p class="footnote">{t.footnote}</p>
                        </section>
                    </div>
                </main>
            }
        }
    }
}

fn model_key(model: Option<&'static ModelPreset>) -> &'static str {
    model.map_or("", |preset| preset.id)
}

fn gpu_key(gpu: Option<&'static GpuPreset>) -> &'static str {
    gpu.map_or("", |gpu| gpu.id)
}

fn flag_key(value: bool) -> &'static str {
    if value {
        "1"
    } else {
        "0"
    }
}

/// The optimizer's bytes per parameter and their source.
fn optimizer_note(t: &Text, config: &Config) -> String {
    use vram_core::format::format_number;
    let (optimizer, precision) = (config.optimizer, config.precision);
    text::fill(
        t.optimizer_note,
        &[
            &format_number(optimizer.moment_bytes_per_param()),
            &format_number(precision.master_copy_bytes()),
            &format_number(optimizer.state_bytes_per_param(precision)),
            optimizer.source(),
        ],
    )
}

/// The memory per GPU in both units, so "80 GB" cards read honestly.
fn gpu_capacity(config: &Config) -> String {
    use vram_core::format::{format_bytes, MemoryUnit};
    let memory = vram_core::Bytes::from_gb(config.gpu_mem_gb);
    let gib = format_bytes(memory, MemoryUnit::Gib);
    match config.gpu {
        Some(gpu) => format!(
            "{}: {} MiB = {} = {}",
            gpu.name,
            gpu.memory_mib,
            format_bytes(memory, MemoryUnit::Gb),
            gib
        ),
        None => format!("= {gib}"),
    }
}

/// The results as a Markdown table, in the page's words, with the notes under
/// it, a paragraph each.
fn markdown_results(t: &Text, report: &Report) -> String {
    let notes = crate::results::notes(t, report);
    let table = vram_core::export::markdown(
        report,
        (
            [
                t.col_strategy,
                t.col_weights,
                t.col_grads,
                t.col_optim,
                t.col_act,
                t.col_total,
                t.col_fits,
                t.col_max,
            ],
            [t.yes, t.no],
        ),
    );
    match notes.is_empty() {
        true => table,
        false => format!("{table}\n{}\n", notes.replace('\n', "\n\n")),
    }
}

/// The keys of the shared link that could not be used, with what was used instead.
#[component]
fn LinkProblems(problems: RwSignal<Vec<LinkProblem>>, t: &'static Text) -> impl IntoView {
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

/// The link to this configuration, and a button that copies it.
#[component]
fn ShareLink(url: Signal<String>, report: Memo<Report>, t: &'static Text) -> impl IntoView {
    let status = RwSignal::new(None::<&'static str>);
    // Copies the link (`markdown` false) or the results as a Markdown table.
    let copy = move |markdown: bool| {
        let text = if markdown {
            report.with_untracked(|r| markdown_results(t, r))
        } else {
            url.get_untracked()
        };
        spawn_local(async move {
            let outcome = share::copy_to_clipboard(&text).await;
            status.set(Some(match (outcome.is_ok(), markdown) {
                (true, false) => t.copied,
                (true, true) => t.markdown_copied,
                (false, _) => t.copy_failed,
            }));
        });
    };
    // The CSV is made when its link is followed, as a data: URL.
    let csv = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let csv = report.with_untracked(vram_core::export::csv);
        let encoded = String::from(js_sys::encode_uri_component(&csv));
        let link = ev
            .current_target()
            .and_then(|l| l.dyn_into::<web_sys::Element>().ok());
        if let Some(link) = link {
            let _ = link.set_attribute("href", &format!("data:text/csv;charset=utf-8,{encoded}"));
        }
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
                <button type="button" on:click=move |_| copy(false) data-testid="copy-link">{t.copy_link}</button>
            </div>
            <div class="share-row exports">
                <button type="button" class="quiet" on:click=move |_| copy(true) data-testid="export-markdown">{t.copy_markdown}</button>
                <a class="button" download="vram-calculator.csv" href="#" on:click=csv data-testid="export-csv">{t.download_csv}</a>
            </div>
            <p class="copy-status" aria-live="polite" data-testid="copy-status">{move || status.get()}</p>
        </div>
    }
}
