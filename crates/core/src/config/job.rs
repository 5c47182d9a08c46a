//! The job a configuration plans (`job`): training, the default and every
//! link's meaning before the key existed; serving; or RL post-training.

/// The model `job=serve` serves when the link names none: Llama 3.1 8B,
/// the model llm-d's measurements and most serving guides start from.
pub const DEFAULT_SERVED_MODEL: &str = "llama3.1-8b";

/// The served model when none is named.
pub fn default_served_model() -> Option<super::ModelSpec> {
    vram_shared::model::presets::model_preset(DEFAULT_SERVED_MODEL).map(super::ModelSpec::of)
}

/// What the configuration plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Job {
    /// Training or fine-tuning: the lesson's view.
    #[default]
    Train,
    /// Serving with an inference engine (vLLM, SGLang, TensorRT-LLM).
    Serve,
    /// RL post-training (GRPO, PPO, DPO): the trainer and the rollout
    /// engine on the same GPUs.
    Rl,
}

impl Job {
    /// Every job, in the order the page offers them.
    pub const ALL: [Job; 3] = [Job::Train, Job::Serve, Job::Rl];

    /// The `job` key's value.
    pub const fn key(self) -> &'static str {
        match self {
            Job::Train => "train",
            Job::Serve => "serve",
            Job::Rl => "rl",
        }
    }

    /// The job's bit in a [`Jobs`] set.
    const fn bit(self) -> u8 {
        match self {
            Job::Train => 1,
            Job::Serve => 2,
            Job::Rl => 4,
        }
    }
}

/// The jobs a field means something for: the form asks for it, `--help`
/// and docs/links.md list it, under these jobs only. A field of another
/// job is still read from a link and written back, untouched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Jobs(u8);

impl Jobs {
    /// No job.
    pub const NONE: Jobs = Jobs(0);
    /// Training's alone (the sequence, the global batch, the training tokens).
    pub const TRAIN: Jobs = Jobs(Job::Train.bit());
    /// What training and RL's learning phase share (the recipe, the
    /// micro-batch, recomputation, ZeRO, adapters, the framework's buffers).
    pub const LEARN: Jobs = Jobs(Job::Train.bit() | Job::Rl.bit());
    /// Serving's own fields (the engine, its budget, the KV cache).
    pub const SERVE: Jobs = Jobs(Job::Serve.bit());
    /// What serving and RL's rollouts share (the lengths, the engine's
    /// memory fraction and batched tokens).
    pub const GENERATE: Jobs = Jobs(Job::Serve.bit() | Job::Rl.bit());
    /// RL's own fields (the algorithm, the rollouts, the reference, the critic).
    pub const RL: Jobs = Jobs(Job::Rl.bit());
    /// What every job shares: the model, the GPUs, the layout, the display.
    pub const ALL: Jobs = Jobs(Job::Train.bit() | Job::Serve.bit() | Job::Rl.bit());

    /// Whether `job` is among them.
    pub const fn contains(self, job: Job) -> bool {
        self.0 & job.bit() != 0
    }

    /// The jobs, in [`Job::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Job> {
        Job::ALL.into_iter().filter(move |&job| self.contains(job))
    }
}
