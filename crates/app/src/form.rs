//! The form: what the user typed, one text per field, and the controls that
//! show and edit it. Each control's `name` and `id` is its key in the shared link.
//!
//! The page parses nothing itself: the texts go to [`vram_core::input::form::parse`],
//! the link decoder's own path, and what an edit fills in (a preset's fields)
//! comes from [`vram_core::input::form::edited`].

use leptos::either::Either;
use leptos::prelude::*;
use vram_core::input::form::{self, apply_typed, lists, options, text_of, toggled};
use vram_core::{Config, Field, InputError};

use vram_view::text::{self, field_text, Text};

/// What the user typed and chose, field by field (a choice is its key, as in
/// the link): the page's only state.
#[derive(Clone, Copy)]
pub struct Form {
    texts: [RwSignal<String>; Field::ALL.len()],
    /// False for a read-only figure (`controls=0`): every control is disabled.
    editable: bool,
}

impl Form {
    /// A form showing `config`, editable unless its link says `controls=0`.
    pub fn new(config: &Config) -> Form {
        let form = Form {
            texts: std::array::from_fn(|_| RwSignal::new(String::new())),
            editable: config.controls,
        };
        form.load(config);
        form
    }

    /// The text of `field`'s control.
    pub fn text(self, field: Field) -> RwSignal<String> {
        self.texts[field.index()]
    }

    /// Sets every control to `config`.
    pub fn load(self, config: &Config) {
        for field in Field::ALL {
            self.text(field).set(text_of(config, field));
        }
    }

    /// The user set `field` to `text`: keeps it, and fills what it determines
    /// (a preset's fields).
    pub fn set(self, field: Field, text: String) {
        let filled = form::edited(field, &text, |f| self.text(f).get_untracked());
        self.text(field).set(text);
        for (field, text) in filled {
            self.text(field).set(text);
        }
    }

    /// The configuration the form describes, or every problem, each naming its field.
    pub fn parse(self) -> Result<Config, Vec<InputError>> {
        form::parse(|field| self.text(field).get())
    }

    /// Whether `field` applies to what the form describes now (a LoRA rank
    /// under LoRA, a layout with a model): a field that does not is hidden.
    pub fn applies(self, field: Field) -> bool {
        form::is_enabled(field, |f| self.text(f).get())
    }

    /// The defaults with only `field` applied: a choice that the page follows
    /// even while another field is invalid (the theme, the language).
    pub fn chosen(self, field: Field) -> Config {
        let mut config = Config::default();
        let _ = self
            .text(field)
            .with(|text| apply_typed(&mut config, field, text));
        config
    }

    /// Every field's text as a query string, to keep what was typed across a reload.
    pub fn typed(self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for field in Field::ALL {
            self.text(field)
                .with_untracked(|text| query.append_pair(field.key(), text));
        }
        query.finish()
    }

    /// Puts back what [`typed`](Self::typed) kept.
    pub fn restore(self, typed: &str) {
        for (key, value) in form_urlencoded::parse(typed.as_bytes()) {
            if let Some(field) = Field::ALL.into_iter().find(|f| f.key() == key) {
                self.text(field).set(value.into_owned());
            }
        }
    }
}

/// The control of `field`: a text box for a number or a text, a drop-down for a choice,
/// with its label, unit, hint and the core's verdict on what was typed;
/// hidden while the field does not apply, disabled in a read-only figure.
pub fn control(
    field: Field,
    form: Form,
    errors: Memo<Vec<InputError>>,
    t: &'static Text,
) -> impl IntoView {
    // A text (a pipeline layout) is typed in a text box like a number.
    match (field.is_number() || field.is_text(), field.is_list()) {
        (true, _) => Either::Left(number_field(field, form, errors, t)),
        (false, list) => {
            let picked = Picked::new(field, form, errors, t);
            Either::Right(match list {
                false => Either::Left(choice_field(picked)),
                true => Either::Right(list_field(picked)),
            })
        }
    }
}

/// The controls of `fields`, in order.
pub fn controls(
    fields: &[Field],
    form: Form,
    errors: Memo<Vec<InputError>>,
    t: &'static Text,
) -> impl IntoView {
    fields
        .iter()
        .map(|&field| control(field, form, errors, t))
        .collect_view()
}

/// Whether the page is being rendered natively (`crate::prerender`), where a
/// control's value is written as its HTML attribute (the client sets properties).
const PRERENDERING: bool = cfg!(not(target_arch = "wasm32"));

/// A text field for a number: keeps exactly what the user typed, and shows the
/// core's verdict on it underneath.
fn number_field(
    field: Field,
    form: Form,
    errors: Memo<Vec<InputError>>,
    t: &'static Text,
) -> impl IntoView {
    let text::FieldText { label, unit, hint } = field_text(t, field);
    let error = error_of(field, errors);
    let id = field.key();
    let error_id = format!("{id}-error");
    let hint_id = format!("{id}-hint");
    let described_by = if hint.is_some() {
        format!("{hint_id} {error_id}")
    } else {
        error_id.clone()
    };
    let value = form.text(field);
    view! {
        <div class="field" data-key=field.key() class:invalid=move || error().is_some() hidden=move || !form.applies(field)>
            <label for=id>{label}</label>
            <div class="with-unit">
                <input
                    id=id
                    name=id
                    type="text"
                    inputmode=match () {
                        _ if field.is_text() => "text",
                        _ if field.is_whole() => "numeric",
                        _ => "decimal",
                    }
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=value
                    value=PRERENDERING.then(|| value.get_untracked())
                    on:input=move |ev| form.set(field, event_target_value(&ev))
                    // The bandwidth offers the interconnect presets (the page's datalist).
                    list=(field == Field::Bandwidth).then_some("bw-presets")
                    disabled=!form.editable
                    aria-invalid=move || error().is_some().to_string()
                    aria-describedby=described_by
                />
                <span class="unit" aria-hidden="true">{unit}</span>
            </div>
            {hint.map(|hint| view! { <p class="hint" id=hint_id>{hint}</p> })}
            {error_line(id, error_id, error, t)}
        </div>
    }
}

/// The core's verdict on `field`, if any.
fn error_of(
    field: Field,
    errors: Memo<Vec<InputError>>,
) -> impl Fn() -> Option<InputError> + Copy + Send + Sync + 'static {
    move || errors.with(|e| e.iter().find(|e| e.field == field).copied())
}

/// The line under a control that says the core's verdict on what was typed
/// (`error`), its id `error_id` for the control's `aria-describedby`.
fn error_line(
    id: &'static str,
    error_id: String,
    error: impl Fn() -> Option<InputError> + Send + Sync + 'static,
    t: &'static Text,
) -> impl IntoView {
    view! {
        <p class="error" id=error_id data-testid=format!("error-{id}") aria-live="polite">
            {move || error().map(|e| text::field_error(t, &e))}
        </p>
    }
}

/// A control over a field's options: the field, its form and words, the
/// core's verdicts, and each option's key with its words in the page's language.
struct Picked {
    field: Field,
    form: Form,
    errors: Memo<Vec<InputError>>,
    t: &'static Text,
    words: text::FieldText,
    options: Vec<(&'static str, &'static str)>,
}

impl Picked {
    fn new(field: Field, form: Form, errors: Memo<Vec<InputError>>, t: &'static Text) -> Picked {
        let options = options(field)
            .into_iter()
            .zip(text::choice_labels(t, field));
        Picked {
            field,
            form,
            errors,
            t,
            words: field_text(t, field),
            options: options.collect(),
        }
    }
}

/// A drop-down list of the field's options, each shown in the page's words,
/// with its hint and the core's verdict when the choice needs another field.
fn choice_field(picked: Picked) -> impl IntoView {
    let Picked {
        field,
        form,
        t,
        words,
        ..
    } = picked;
    let (id, chosen, error) = (
        field.key(),
        form.text(field),
        error_of(field, picked.errors),
    );
    // Rendered natively, a list as wide as its box shows its chosen option only
    // (the client mounts every option); the header's lists are as wide as their longest.
    let shown_natively = |key: &str| {
        !PRERENDERING
            || field.place().section == vram_core::input::field::Section::Display
            || *chosen.read_untracked() == key
    };
    // An option the core would refuse for this field, given the others,
    // is marked before it is chosen (the serving engine's).
    let marks = vram_core::input::form::MARKS_REFUSED_OPTIONS.contains(&field) && !PRERENDERING;
    let refused = move |key: &'static str| {
        marks
            && form.applies(field)
            && vram_core::input::form::refuses(field, key, |f| form.text(f).get())
    };
    let options = picked
        .options
        .into_iter()
        .filter(|(key, _)| shown_natively(key))
        .map(|(key, shown)| {
            view! {
                <option value=key prop:selected=move || *chosen.read() == key
                    disabled=move || refused(key) && *chosen.read() != key
                    selected=PRERENDERING && *chosen.read_untracked() == key>{shown}</option>
            }
        })
        .collect_view();
    let error_id = format!("{id}-error");
    view! {
        <div class="field" data-key=field.key() class:invalid=move || error().is_some() hidden=move || !form.applies(field)>
            <label for=id>{words.label}</label>
            <select id=id name=id disabled=!form.editable aria-describedby=error_id.clone()
                aria-invalid=move || error().is_some().to_string()
                on:change=move |ev| form.set(field, event_target_value(&ev))>
                {options}
            </select>
            {words.hint.map(|hint| view! { <p class="hint">{hint}</p> })}
            {error_line(id, error_id, error, t)}
        </div>
    }
}

/// A box per item of a list field (`recompute_modules`), ticked while the
/// list names it: a tick adds or removes the item, in the field's order.
fn list_field(picked: Picked) -> impl IntoView {
    let Picked { field, form, t, .. } = picked;
    let (error, chosen) = (error_of(field, picked.errors), form.text(field));
    let (id, words) = (field.key(), picked.words);
    let boxes = picked
        .options
        .into_iter()
        .map(|(key, shown)| {
            let ticked = move || chosen.with(|list| lists(list, key));
            view! {
                <label class="tick">
                    <input type="checkbox" name=id value=key disabled=!form.editable
                        prop:checked=ticked
                        checked=PRERENDERING && chosen.with_untracked(|list| lists(list, key))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            form.set(field, toggled(field, &chosen.get_untracked(), key, on));
                        } />
                    {shown}
                </label>
            }
        })
        .collect_view();
    let error_id = format!("{id}-error");
    let described_by = error_id.clone();
    view! {
        <fieldset class="field list" id=id data-key=field.key() class:invalid=move || error().is_some()
            hidden=move || !form.applies(field) aria-describedby=described_by>
            <legend>{words.label}</legend>
            {boxes}
            {words.hint.map(|hint| view! { <p class="hint">{hint}</p> })}
            {error_line(id, error_id, error, t)}
        </fieldset>
    }
}
