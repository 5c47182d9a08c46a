//! The kinds of value a field takes (a number in a [`Unit`] within [`Limits`],
//! a count, a choice), when the form uses it ([`Scope`]), when the link writes
//! it ([`Written`]), and the shape of its [`Declaration`].

use super::*;

/// The unit a numeric field is typed in, in the link and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Billions of parameters.
    BillionsOfParams,
    /// Millions of parameters.
    MillionsOfParams,
    /// Millions of elements (DeepSpeed's buffers).
    MillionsOfElements,
    /// Billions of tokens.
    BillionsOfTokens,
    /// GPUs.
    Gpus,
    /// GB of 10^9 bytes.
    Gb,
    /// GB of 10^9 bytes on each GPU.
    GbPerGpu,
    /// GB of 10^9 bytes per second.
    GbPerSecond,
    /// TFLOP/s, 10^12 floating-point operations per second.
    Tflops,
    /// A fraction of each GPU's memory.
    ReservedFraction,
    /// A fraction of the GPU's peak.
    FractionOfPeak,
    /// A fraction of the step's peak memory.
    FractionOfPeakMemory,
    /// MiB (2^20 bytes) per NCCL communicator.
    MibPerCommunicator,
    /// A probability (0.1 = 10 %).
    Probability,
    /// Multiples of uniform routing.
    RoutingMultiple,
    /// Multiples.
    Multiples,
    /// Sequences (samples).
    Sequences,
    /// A count.
    Count,
    /// Features (a width).
    Features,
    /// Tokens.
    Tokens,
    /// Tokens per KV block.
    TokensPerBlock,
    /// Positions.
    Positions,
    /// Nodes.
    Nodes,
    /// Ranks.
    Ranks,
    /// Pipeline stages.
    Stages,
    /// Pipeline stages per rank.
    StagesPerRank,
    /// The user's currency per GPU-hour.
    PerGpuHour,
}

impl Unit {
    /// The unit in words, as `--help` and error messages write it.
    pub const fn words(self) -> &'static str {
        match self {
            Unit::BillionsOfParams => "billions of parameters",
            Unit::MillionsOfParams => "millions of parameters",
            Unit::MillionsOfElements => "millions of elements",
            Unit::BillionsOfTokens => "billions of tokens",
            Unit::Gpus => "GPUs",
            Unit::Gb => "GB of 10^9 bytes",
            Unit::GbPerGpu => "GB of 10^9 bytes per GPU",
            Unit::GbPerSecond => "GB/s of 10^9 bytes",
            Unit::Tflops => "TFLOP/s",
            Unit::ReservedFraction => "fraction of each GPU's memory",
            Unit::FractionOfPeak => "fraction of peak",
            Unit::FractionOfPeakMemory => "fraction of the step's peak memory",
            Unit::MibPerCommunicator => "MiB (2^20 bytes) per communicator",
            Unit::Probability => "fraction (0.1 = 10 %)",
            Unit::RoutingMultiple => "multiples of uniform routing",
            Unit::Multiples => "multiples",
            Unit::Sequences => "sequences",
            Unit::Count => "count",
            Unit::Features => "features",
            Unit::Tokens => "tokens",
            Unit::TokensPerBlock => "tokens per block",
            Unit::Positions => "positions",
            Unit::Nodes => "nodes",
            Unit::Ranks => "ranks",
            Unit::Stages => "stages",
            Unit::StagesPerRank => "stages per rank",
            Unit::PerGpuHour => "per GPU-hour",
        }
    }

    /// The placeholder `--help` gives a value of this unit (`--gpu-mem GB`).
    pub const fn value_name(self) -> &'static str {
        match self {
            Unit::BillionsOfParams | Unit::BillionsOfTokens => "BILLIONS",
            Unit::MillionsOfParams | Unit::MillionsOfElements => "MILLIONS",
            Unit::Gb | Unit::GbPerGpu => "GB",
            Unit::GbPerSecond => "GB_PER_S",
            Unit::Tflops => "TFLOP_PER_S",
            Unit::ReservedFraction
            | Unit::FractionOfPeak
            | Unit::FractionOfPeakMemory
            | Unit::Probability => "FRACTION",
            Unit::RoutingMultiple | Unit::Multiples => "FACTOR",
            Unit::PerGpuHour => "PRICE",
            Unit::Gpus
            | Unit::MibPerCommunicator
            | Unit::Sequences
            | Unit::Count
            | Unit::Features
            | Unit::Tokens
            | Unit::TokensPerBlock
            | Unit::Positions
            | Unit::Nodes
            | Unit::Ranks
            | Unit::Stages
            | Unit::StagesPerRank => "N",
        }
    }
}

impl core::fmt::Display for Unit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.words())
    }
}

/// The range a numeric field accepts, in the unit the user types it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Smallest accepted value (inclusive).
    pub min: f64,
    /// Largest accepted value (inclusive).
    pub max: f64,
}

impl Limits {
    /// Whether `value` lies in the range (NaN never does).
    pub fn contains(self, value: f64) -> bool {
        value >= self.min && value <= self.max
    }
}

/// What kind of value a field takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A decimal number in `unit` within `limits`.
    Number {
        /// Its unit.
        unit: Unit,
        /// What it accepts.
        limits: Limits,
        /// Whether only whole numbers are accepted (a count).
        whole: bool,
        /// The smallest non-zero value, for a range that starts at 0.
        resolution: Option<f64>,
    },
    /// One of these keys.
    Choice(&'static [&'static str]),
    /// A comma-separated list of these keys (`show=table,memory`).
    List(&'static [&'static str]),
    /// A preset's id (a model or a GPU).
    Preset,
    /// Text in a grammar of its own, which the field's `write` reads
    /// (Megatron-LM's pipeline layout, `Et|(tt|)*30mL`); `value_name` is
    /// `--help`'s placeholder for it.
    Text {
        /// The placeholder `--help` shows (`LAYOUT`).
        value_name: &'static str,
    },
}

/// A decimal number in `unit` from `min` to `max`.
pub(super) const fn number(unit: Unit, min: f64, max: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min, max },
        whole: false,
        resolution: None,
    }
}

/// A whole number in `unit` from `min` to `max`.
pub(super) const fn count(unit: Unit, min: f64, max: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min, max },
        whole: true,
        resolution: None,
    }
}

/// A decimal number from 0 to `max` whose smallest non-zero value is `resolution`.
pub(super) const fn fine(unit: Unit, max: f64, resolution: f64) -> Value {
    Value::Number {
        unit,
        limits: Limits { min: 0.0, max },
        whole: false,
        resolution: Some(resolution),
    }
}

/// `0` or `1`.
pub(super) const FLAG: Value = Value::Choice(&["0", "1"]);

/// When the page's form uses a field: a model's architecture brings its own
/// size and layers, so some fields mean something only with a model, some only
/// without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Always used.
    Always,
    /// Used only with a model's architecture (its layers, its step).
    WithModel,
    /// Used only for a bare parameter count (the size itself, the largest layer).
    WithoutModel,
}

impl Scope {
    /// Whether a field of this scope is used, with or without a model.
    pub const fn applies(self, with_model: bool) -> bool {
        match self {
            Scope::Always => true,
            Scope::WithModel => with_model,
            Scope::WithoutModel => !with_model,
        }
    }
}

/// A part of the page's form, in the order the page shows them: the model
/// (its architecture and what goes beyond a Llama in a fold), the hardware,
/// training (recipe, fine-tuning, the step), the parallel layout with the
/// step time's fold, the framework's fold, and the header's display choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Section {
    /// The model: a preset or a bare size.
    Model,
    /// A model's architecture (shown with a model only).
    Architecture,
    /// Beyond a Llama: a head size of its own, norms, experts, latent and
    /// linear attention (a fold of its own).
    BeyondLlama,
    /// The GPU.
    Gpu,
    /// How many GPUs, how they are linked, what is kept back on each.
    Cluster,
    /// What each GPU's process holds beside the model (a fold): the CUDA
    /// context, the caching allocator's settings and slack, NCCL's buffers.
    Process,
    /// The numbers' formats and the optimizer.
    Recipe,
    /// What is trained: every parameter, or adapters.
    FineTuning,
    /// The step: batch, sequence and what is kept for backward.
    Step,
    /// The highlighted strategy and how the GPUs split the model.
    Parallel,
    /// What the step's time assumes (a fold).
    Speed,
    /// Accounting, and what each framework keeps and moves (a fold).
    Framework,
    /// How the page shows its results, in the header.
    Display,
    /// In the link only (how an embedded page looks), never on the form.
    LinkOnly,
    /// The job, above the form.
    Job,
    /// What is served: the engine, the weights' format, the KV cache's
    /// type, the lengths and the concurrency.
    Serving,
    /// The engine's own settings (a fold): its memory fraction, a KV budget
    /// given directly, blocks, batched tokens, CUDA graphs.
    Engine,
    /// RL post-training: the algorithm, the rollouts, the reference, the
    /// critic, the reward, the phases' switch, the log-probs.
    Rl,
}

impl Section {
    /// The fields the form shows in this section, in their order
    /// ([`Field::place`]).
    pub fn fields(self) -> Vec<Field> {
        let mut fields: Vec<Field> = Field::ALL
            .into_iter()
            .filter(|f| f.place().section == self)
            .collect();
        fields.sort_by_key(|f| f.place().rank);
        fields
    }
}

/// Where the form shows a field: its section and its rank there, lower first.
/// Declared beside the field's name in the table (`Mfu in Speed(10) => …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The section.
    pub section: Section,
    /// Its rank among the section's fields: lower first, unique in a section.
    pub rank: u16,
}

/// When the link ([`crate::input::link::encode`]) writes a field. A key added
/// to the contract is written only where it differs from its default, so
/// that links written before it keep their meaning and their text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// In every link: the lesson's inputs.
    Always,
    /// When it holds a value (a preset chosen, a batch given).
    WhenSet,
    /// Whenever the configuration has a model.
    WithModel,
    /// With a model, where it differs from a dense model's default (0, off,
    /// uniform routing, no dropout, Megatron's accounting) or from the
    /// model's preset (Mixtral taken back to no experts).
    WhenNotDense,
    /// With a model, where it differs from the model's preset.
    WhenNotPreset,
    /// Where it differs from the lesson's default configuration.
    WhenNotDefault,
    /// Whenever the configuration's job is one of the field's (a serving
    /// link always carries its engine's release), and under another job
    /// where it differs from the default.
    ForItsJobs,
    /// Where it differs from what the model's preset fills (the format its
    /// checkpoint ships in) or, without a model, from the default.
    WhenNotFilled,
}

/// Whether a field means something, given every field's text.
pub type Needs = fn(&dyn Fn(Field) -> String) -> bool;

/// Reads a field's text from a configuration (empty for a value it does not hold).
pub type Read = fn(&Config) -> String;

/// Parses a field's text into a configuration; on error the configuration is unchanged.
pub type Write = fn(&mut Config, Field, &str) -> Result<(), InputError>;

/// Everything about one field.
#[derive(Debug, Clone, Copy)]
pub struct Declaration {
    /// The link key, the CLI's `--key-with-dashes` and the form control's `name`.
    pub key: &'static str,
    /// The kind of value it takes.
    pub value: Value,
    /// Whether it may be left unset: an empty form field, or no key in the link.
    pub optional: bool,
    /// When the form uses it.
    pub scope: Scope,
    /// When the link writes it.
    pub written: Written,
    /// The preset field whose choice fills it (a model fills its architecture,
    /// a GPU its memory).
    pub filled_by: Option<Field>,
    /// Whether the form shows it as a percentage of its link value (20 for 0.2).
    pub percent: bool,
    /// What else it needs to mean something, given every field's text (LoRA's
    /// rank needs adapters, a bucket size DeepSpeed's buffers); `None`: nothing.
    pub needs: Option<Needs>,
    /// The jobs it means something for (training's and RL's learning by default).
    pub jobs: crate::config::job::Jobs,
    /// The jobs whose rules between fields take it back to its default when
    /// a link's value breaks one (a KV cache type the engine cannot use, a
    /// layout the GPUs do not divide), so that the rest of the link still
    /// reads; under another job such a break stands as the link's error.
    pub set_aside: crate::config::job::Jobs,
    /// Its text in a configuration.
    pub read: Read,
    /// Stores its text in a configuration.
    pub write: Write,
    /// Leaves an optional field unset, as an empty form field or a link
    /// without its key does (its `read` then gives the empty text).
    pub unset: fn(&mut Config),
}

/// The defaults of a declaration's optional parts.
pub(super) const BASE: Declaration = Declaration {
    key: "",
    value: Value::Preset,
    optional: false,
    scope: Scope::Always,
    written: Written::WhenNotDefault,
    filled_by: None,
    percent: false,
    needs: None,
    jobs: crate::config::job::Jobs::LEARN,
    set_aside: crate::config::job::Jobs::NONE,
    read: |_| String::new(),
    write: |_, _, _| Ok(()),
    unset: |_| (),
};
