//! The form's controls. Each control's `name` and `id` is its key in the shared link.

use leptos::prelude::*;
use vram_core::{Field, InputError};

use crate::text::{self, Text};

/// How a number field looks: its label, unit, keyboard and hint.
#[derive(Clone, Copy)]
pub struct NumberSpec {
    /// The field, whose key is the input's `name`.
    pub field: Field,
    /// The visible label.
    pub label: &'static str,
    /// The unit shown after the input.
    pub unit: &'static str,
    /// `decimal` or `numeric`: the on-screen keyboard.
    pub inputmode: &'static str,
    /// A line of help under the input.
    pub hint: Option<&'static str>,
}

/// A text field for a number: keeps exactly what the user typed, and shows the
/// core's verdict on it underneath. A plain function, not a component: every
/// field is one call of the same code (the page's size budget counts).
pub fn number_field(
    spec: NumberSpec,
    text: RwSignal<String>,
    error: Signal<Option<InputError>>,
    disabled: Signal<bool>,
    t: &'static Text,
) -> impl IntoView {
    let NumberSpec {
        field,
        label,
        unit,
        inputmode,
        hint,
    } = spec;
    let id = field.key();
    let error_id = format!("{id}-error");
    let hint_id = format!("{id}-hint");
    let described_by = if hint.is_some() {
        format!("{hint_id} {error_id}")
    } else {
        error_id.clone()
    };
    view! {
        <div class="field" class:invalid=move || error.read().is_some()>
            <label for=id>{label}</label>
            <div class="with-unit">
                <input
                    id=id
                    name=id
                    type="text"
                    inputmode=inputmode
                    autocomplete="off"
                    spellcheck="false"
                    bind:value=text
                    // The bandwidth offers the interconnect presets (the page's datalist).
                    list=(field == Field::Bandwidth).then_some("bw-presets")
                    disabled=disabled
                    aria-invalid=move || error.read().is_some().to_string()
                    aria-describedby=described_by
                />
                <span class="unit" aria-hidden="true">{unit}</span>
            </div>
            {hint.map(|hint| view! { <p class="hint" id=hint_id>{hint}</p> })}
            <p class="error" id=error_id data-testid=format!("error-{id}") aria-live="polite">
                {move || error.get().map(|e| text::field_error(t, &e))}
            </p>
        </div>
    }
}

/// The values a drop-down offers, and the index of the chosen one. Choices are
/// kept as indices so that one signal type serves every enum: each signal type
/// costs the page's WebAssembly about a kilobyte.
#[derive(Clone)]
pub struct Choices {
    /// Each choice's value in the link, and the text shown for it.
    options: Vec<(&'static str, &'static str)>,
    /// Index of the current choice.
    index: RwSignal<usize>,
}

impl Choices {
    /// Choices for `index` among `values`, each with its link `key`, shown as
    /// the label at the same position in `labels` (in the page's language).
    pub fn of<T: Copy>(
        index: RwSignal<usize>,
        values: &[T],
        key: fn(T) -> &'static str,
        labels: &[&'static str],
    ) -> Choices {
        let options = values
            .iter()
            .zip(labels)
            .map(|(v, label)| (key(*v), *label))
            .collect();
        Choices { options, index }
    }
}

/// The position of `value` in `values` (0 if absent).
pub fn index_of<T: PartialEq>(values: &[T], value: &T) -> usize {
    values.iter().position(|v| v == value).unwrap_or(0)
}

/// A drop-down list; a plain function for the same reason as [`number_field`].
pub fn choice_field(field: Field, label: &'static str, choices: Choices) -> impl IntoView {
    let id = field.key();
    let Choices { options, index } = choices;
    let keys: Vec<&'static str> = options.iter().map(|(key, _)| *key).collect();
    let on_change = move |ev| {
        let chosen = event_target_value(&ev);
        if let Some(position) = keys.iter().position(|key| *key == chosen) {
            index.set(position);
        }
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id name=id on:change=on_change>
                {options
                    .into_iter()
                    .enumerate()
                    .map(|(position, (key, shown))| {
                        view! {
                            <option value=key prop:selected=move || index.get() == position>
                                {shown}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}
