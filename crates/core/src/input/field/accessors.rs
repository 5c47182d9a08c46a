//! What a field's declaration answers: its key, label, limits, rules in
//! words, and its parsing and checking of typed text.

use super::*;

impl Field {
    /// Everything about the field.
    pub fn declaration(self) -> &'static Declaration {
        &DECLARATIONS[self as usize]
    }

    /// The jobs the field means something for.
    pub fn jobs(self) -> crate::config::job::Jobs {
        self.declaration().jobs
    }

    /// The field's position in [`Field::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The field's key in the shared link, its CLI option (`--gpu-mem` for
    /// `gpu_mem`) and its `name` in the page's form.
    pub fn key(self) -> &'static str {
        self.declaration().key
    }

    /// The unit a numeric field is given in (in the link and on the command line).
    pub fn unit(self) -> Option<Unit> {
        match self.declaration().value {
            Value::Number { unit, .. } => Some(unit),
            _ => None,
        }
    }

    /// What the field is, in words: its declaration's doc comment on one line,
    /// rustdoc's backticks and links kept as Markdown.
    pub fn meaning(self) -> String {
        self.doc_lines()
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .replace("[`", "`")
            .replace("`]", "`")
    }

    /// The accepted range of a numeric field in its typed unit; `None` for a choice.
    pub fn limits(self) -> Option<Limits> {
        match self.declaration().value {
            Value::Number { limits, .. } => Some(limits),
            _ => None,
        }
    }

    /// The values a choice field accepts; empty for a number or a preset.
    pub fn choices(self) -> &'static [&'static str] {
        match self.declaration().value {
            Value::Choice(choices) | Value::List(choices) => choices,
            _ => &[],
        }
    }

    /// The ids a preset field accepts (the GPUs', the models'); empty for
    /// any other field.
    pub fn preset_ids(self) -> Vec<&'static str> {
        match self {
            Field::Gpu => vram_shared::gpu::GPU_PRESETS.iter().map(|g| g.id).collect(),
            Field::Model => vram_shared::model::presets::MODEL_PRESETS
                .iter()
                .map(|m| m.id)
                .collect(),
            // A teacher, critic or reward model is a published model: its
            // own architecture, not a config.json's.
            Field::Teacher | Field::CriticModel | Field::RewardModel => {
                vram_shared::model::presets::MODEL_PRESETS
                    .iter()
                    .map(|m| m.id)
                    .filter(|&id| id != vram_shared::model::presets::CUSTOM_MODEL.id)
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Whether the field takes a number (the others take one of their choices or a preset).
    pub fn is_number(self) -> bool {
        matches!(self.declaration().value, Value::Number { .. })
    }

    /// Whether the field's number is a whole count (GPUs, layers, tokens).
    pub fn is_whole(self) -> bool {
        matches!(self.declaration().value, Value::Number { whole: true, .. })
    }

    /// Whether the field takes a comma-separated list of its choices (`show=table,memory`).
    pub fn is_list(self) -> bool {
        matches!(self.declaration().value, Value::List(_))
    }

    /// Whether the field takes a preset's id (a model, a GPU).
    pub fn is_preset(self) -> bool {
        matches!(self.declaration().value, Value::Preset)
    }

    /// Whether the field takes text of its own grammar (a pipeline layout),
    /// typed in a text box like a number and shown as typed.
    pub fn is_text(self) -> bool {
        matches!(self.declaration().value, Value::Text { .. })
    }

    /// The smallest non-zero value of a field whose range starts at 0.
    pub fn resolution(self) -> Option<f64> {
        match self.declaration().value {
            Value::Number { resolution, .. } => resolution,
            _ => None,
        }
    }

    /// Whether the field may be left unset: an empty form field, or no key in the link.
    pub fn is_optional(self) -> bool {
        self.declaration().optional
    }

    /// When the form uses the field (see [`Scope`]).
    pub fn scope(self) -> Scope {
        self.declaration().scope
    }

    /// When the link writes the field.
    pub fn written(self) -> Written {
        self.declaration().written
    }

    /// The preset field whose choice fills this one.
    pub fn filled_by(self) -> Option<Field> {
        self.declaration().filled_by
    }

    /// Whether the form shows the field as a percentage of its link value (the
    /// reserved fraction 0.2 is typed as 20).
    pub fn is_percent(self) -> bool {
        self.declaration().percent
    }

    /// The placeholder of the field's value in `--help`: its unit's
    /// (`GB`, `FRACTION`, `N` …), `ID` for a preset, `CHOICE`, `PARTS`, or
    /// a text's own (`LAYOUT`).
    pub fn value_name(self) -> &'static str {
        match self.declaration().value {
            Value::Number { unit, .. } => unit.value_name(),
            Value::Choice(_) => "CHOICE",
            Value::List(_) => "PARTS",
            Value::Preset => "ID",
            Value::Text { value_name } => value_name,
        }
    }

    /// The field's text in `config`, as the link writes it (empty for a value
    /// it does not hold).
    pub fn read(self, config: &Config) -> String {
        (self.declaration().read)(config)
    }

    /// Parses `text` as the field's value and stores it in `config`; on error
    /// `config` is unchanged.
    pub fn write(self, config: &mut Config, text: &str) -> Result<(), InputError> {
        (self.declaration().write)(config, self, text)
    }

    /// Parses a decimal number typed for this field and checks it against the field's limits.
    ///
    /// Surrounding whitespace is ignored; `inf`, `NaN` and the like are refused.
    pub fn parse_number(self, text: &str) -> Result<f64, InputError> {
        let value = self
            .parse_number_unchecked(text)
            .map_err(|kind| self.error(kind))?;
        self.check(value)
    }

    /// Parses a whole number typed for this field (`8` or `8.0`; `8.5` is refused) and checks its limits.
    pub fn parse_count(self, text: &str) -> Result<u32, InputError> {
        let value = self.parse_number(text)?;
        if value.fract() != 0.0 {
            return Err(self.error(InputErrorKind::NotWhole));
        }
        // In range, so below 2^24 at most and exactly representable.
        Ok(value as u32)
    }

    /// Checks a value already in the field's unit against the field's limits.
    pub fn check(self, value: f64) -> Result<f64, InputError> {
        if !value.is_finite() {
            return Err(self.error(InputErrorKind::NotFinite));
        }
        match self.limits() {
            Some(limits) if !limits.contains(value) => {
                Err(self.error(InputErrorKind::OutOfRange(limits)))
            }
            _ => match self.resolution() {
                Some(resolution) if value != 0.0 && value.abs() < resolution => {
                    Err(self.error(InputErrorKind::BelowResolution(resolution)))
                }
                _ => Ok(value),
            },
        }
    }

    /// An error of this field.
    pub const fn error(self, kind: InputErrorKind) -> InputError {
        InputError { field: self, kind }
    }
}
