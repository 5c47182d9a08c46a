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

    /// What a value must be beside the other fields, in English words, as
    /// [`ModelSpec::validate`](crate::config::ModelSpec) and
    /// [`Config::setup`] check it; empty where only the field's own limits
    /// apply. `--help` and `vram --keys` (docs/links.md) print it beside the
    /// limits, so that the documented limits are the checked ones.
    pub fn rule(self) -> &'static str {
        match self {
            Field::Params => "a model's architecture gives its own size, within the same limits",
            Field::Gpus => "GPUs per node × nodes at most 1048576",
            Field::Nodes => "GPUs per node × nodes at most 1048576",
            Field::Heads => "divides the hidden size, unless head_dim or latent attention is set",
            Field::KvHeads => "divides the heads",
            Field::TopK => "with experts: 1 to experts",
            Field::ExpertFfn => "with experts: at least 1",
            Field::SharedFfn => "with shared experts: at least 1",
            Field::DenseLayers => "with experts: at most layers",
            Field::RopeDim | Field::NopeDim | Field::VDim => "with kv_rank above 0: at least 1",
            Field::FullEvery => {
                "0 or 1: no linear attention; 2 to layers + 1 (no full-attention layer at layers + 1)"
            }
            Field::LinearKeyHeads | Field::LinearKeyDim | Field::LinearValueDim => {
                "with full_every 2 or more: at least 1"
            }
            Field::LinearValueHeads => "with full_every 2 or more: a multiple of lin_k_heads",
            Field::ConvKernel => "with full_every 2 or more: at least 1",
            Field::Ep => "with experts: divides them and GPUs ÷ (TP × PP) (GPUs ÷ PP with etp=1); not with offload or acct=deepspeed",
            Field::Tp => "divides the GPUs, the heads and the key/value heads",
            Field::Pp => "divides the GPUs and, without pp_first or pp_last, the layers",
            Field::Vpp => "with PP 2 or more; PP × VPP divides the layers",
            Field::Cp => "divides the GPUs; 2 × CP divides the sequence; with cp_comm=a2a divides each TP rank's heads and key/value heads",
            Field::CpComm => "with CP 2 or more",
            Field::Etp => "with TP 2 or more and experts; 1: EP divides TP × CP × DP",
            Field::PpFirst | Field::PpLast => {
                "with PP 2 or more; leaves the stages between a whole number of layers each"
            }
            Field::ShardGroup => "divides ZeRO's GPUs; not with ep or acct=deepspeed",
            Field::Accounting => "megatron: with a model, for full training",
            Field::LargestLayer => "without a model: at most the model's size",
            Field::Achieved => "at most the GPU's peak",
            Field::RecomputeLayers => "with recompute=full: at most a chunk's layers (layers ÷ (PP × VPP)); 1 under framework=hf",
            Field::RecomputeMethod => "with recompute=full; uniform under framework=hf",
            Field::Fp8Recipe => "with dtype=fp8 or fp8-params; mxfp8 on Blackwell; blockwise on Hopper or Blackwell",
            Field::RecomputeModules => "with recompute=selective; mla_up_proj with kv_rank above 0; moe_act and layernorm in FP8 not with fp8_recipe=delayed; core_attn alone under framework=hf",
            Field::Precision => "fp8 and fp8-params: a GPU with FP8 tensor cores, full training, not framework=hf; fp8-params not with sharding=fsdp2",
            Field::Amp => "with a mixed precision",
            Field::Framework => "hf: a model with a SwiGLU MLP",
            Field::Sharding => "fsdp2: not with acct=deepspeed",
            Field::Dora => "not on a mixture's expert MLPs; not with amp under framework=hf",
            Field::Sp => "with TP 2 or more",
            Field::Context => "less than each GPU's memory less the reserve",
            Field::Method => "qlora: a dense model without latent attention",
            Field::Mfu => "unset: each kernel by its shape on the GPU (the kernel model); version-1 links with a model: 0.4",
            _ => "",
        }
    }

    /// The values the field accepts, in English words: its limits (whole or
    /// not, in its unit), its choices or a preset id, then its [`rule`](Self::rule).
    pub fn accepts(self) -> String {
        let own = match self.declaration().value {
            Value::Number {
                unit,
                limits,
                whole,
                resolution,
            } => format!(
                "{}{} to {} ({unit})",
                if whole { "whole, " } else { "" },
                match resolution {
                    Some(step) => format!("0, or {}", shortest_decimal(step)),
                    None => shortest_decimal(limits.min),
                },
                shortest_decimal(limits.max)
            ),
            Value::Choice(choices) => format!("one of {}", choices.join(", ")),
            Value::List(items) => format!("one or more of {}, comma-separated", items.join(", ")),
            Value::Preset => match self {
                // A handful: named here (the models', too many for a line, are named by the error for an unknown id).
                Field::Gpu => format!("a preset id: {}", self.preset_ids().join(", ")),
                _ => "a preset id".to_string(),
            },
        };
        match self.rule() {
            "" => own,
            rule => format!("{own}; {rule}"),
        }
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
            Field::Gpu => crate::gpu::GPU_PRESETS.iter().map(|g| g.id).collect(),
            Field::Model => crate::model::presets::MODEL_PRESETS
                .iter()
                .map(|m| m.id)
                .collect(),
            // A teacher is a published model: its own architecture, not a config.json's.
            Field::Teacher => crate::model::presets::MODEL_PRESETS
                .iter()
                .map(|m| m.id)
                .filter(|&id| id != crate::model::presets::CUSTOM_MODEL.id)
                .collect(),
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
    /// (`GB`, `FRACTION`, `N` …), `ID` for a preset, `CHOICE` or `PARTS`.
    pub fn value_name(self) -> &'static str {
        match self.declaration().value {
            Value::Number { unit, .. } => unit.value_name(),
            Value::Choice(_) => "CHOICE",
            Value::List(_) => "PARTS",
            Value::Preset => "ID",
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
