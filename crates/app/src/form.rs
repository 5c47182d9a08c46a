//! The form's controls. Each control's `name` and `id` is its key in the shared link.

use leptos::prelude::*;
use vram_core::{Field, InputError};

use crate::text;

/// A text field for a number: keeps exactly what the user typed, and shows the
/// core's verdict on it underneath.
#[component]
pub fn NumberField(
    field: Field,
    label: &'static str,
    unit: &'static str,
    text: RwSignal<String>,
    #[prop(into)] error: Signal<Option<InputError>>,
    #[prop(optional)] hint: Option<&'static str>,
    #[prop(default = "decimal")] inputmode: &'static str,
) -> impl IntoView {
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
                    aria-invalid=move || error.read().is_some().to_string()
                    aria-describedby=described_by
                />
                <span class="unit" aria-hidden="true">{unit}</span>
            </div>
            {hint.map(|hint| view! { <p class="hint" id=hint_id>{hint}</p> })}
            <p class="error" id=error_id data-testid=format!("error-{id}") aria-live="polite">
                {move || error.get().map(|e| text::field_error(&e))}
            </p>
        </div>
    }
}

/// A drop-down list of the values of an enum.
#[component]
pub fn ChoiceField<T>(
    field: Field,
    label: &'static str,
    /// Each choice with the text shown for it.
    choices: Vec<(T, &'static str)>,
    /// The choice's value in the link.
    key: fn(T) -> &'static str,
    value: RwSignal<T>,
) -> impl IntoView
where
    T: Copy + PartialEq + Send + Sync + 'static,
{
    let id = field.key();
    let lookup = choices.clone();
    let on_change = move |ev| {
        let chosen = event_target_value(&ev);
        if let Some((choice, _)) = lookup.iter().find(|(c, _)| key(*c) == chosen) {
            value.set(*choice);
        }
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id name=id on:change=on_change>
                {choices
                    .into_iter()
                    .map(|(choice, shown)| {
                        view! {
                            <option value=key(choice) prop:selected=move || value.get() == choice>
                                {shown}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}
