//! The job a configuration plans (`job`): training, the default and every
//! link's meaning before the key existed, or serving. RL post-training
//! (issue 45) joins them.

/// The model `job=serve` serves when the link names none: Llama 3.1 8B,
/// the model llm-d's measurements and most serving guides start from.
pub const DEFAULT_SERVED_MODEL: &str = "llama3.1-8b";

/// The served model when none is named.
pub fn default_served_model() -> Option<super::ModelSpec> {
    crate::model::presets::model_preset(DEFAULT_SERVED_MODEL).map(super::ModelSpec::of)
}

/// What the configuration plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Job {
    /// Training or fine-tuning: the lesson's view.
    #[default]
    Train,
    /// Serving with an inference engine (vLLM, SGLang, TensorRT-LLM).
    Serve,
}

impl Job {
    /// Every job, in the order the page offers them.
    pub const ALL: [Job; 2] = [Job::Train, Job::Serve];

    /// The `job` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Job::Train => "train",
            Job::Serve => "serve",
        }
    }

    /// The job's bit in a [`Jobs`] set.
    const fn bit(self) -> u8 {
        match self {
            Job::Train => 1,
            Job::Serve => 2,
        }
    }
}

/// The jobs a field means something for: the form asks for it, `--help`
/// and docs/links.md list it, under these jobs only. A field of another
/// job is still read from a link and written back, untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Jobs(u8);

impl Jobs {
    /// Training's own fields (the recipe, the step, the framework's buffers).
    pub const TRAIN: Jobs = Jobs(Job::Train.bit());
    /// Serving's own fields (the engine, its budget, the KV cache).
    pub const SERVE: Jobs = Jobs(Job::Serve.bit());
    /// What every job shares: the model, the GPUs, the layout, the display.
    pub const ALL: Jobs = Jobs(Job::Train.bit() | Job::Serve.bit());

    /// Whether `job` is among them.
    pub const fn contains(self, job: Job) -> bool {
        self.0 & job.bit() != 0
    }

    /// The jobs, in [`Job::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Job> {
        Job::ALL.into_iter().filter(move |&job| self.contains(job))
    }
}
