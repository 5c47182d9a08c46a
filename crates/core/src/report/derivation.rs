//! The formulas under the table with the report's own numbers: the lesson's
//! bytes per parameter, the layout's partition and the activations'
//! derivations (Korthikanti et al.), as formulas and numbers: the words
//! around them are the front ends' (`vram_view::notes`).

use super::*;

impl Report {
    /// The lesson's formula for the highlighted strategy with this report's own
    /// numbers, `(2 + 2 + 12 ÷ 8) B × 7 × 10⁹ = 38.5 GB`: bytes per parameter of
    /// weights, gradients and optimizer states (a shard written `÷ N`), times the
    /// parameters, plus activations and buffers when counted (each followed by its
    /// word: `activations`, `buffers`), in the report's unit. With LoRA the
    /// frozen base comes first and the recipe applies to the adapters:
    /// `13.48 GB + (2 + 2 + 12 ÷ 8) B × 4.19 × 10⁶ = …`. `None` where the
    /// figures follow no such formula: DeepSpeed's accounting, or offload.
    pub fn derivation(&self, activations: &str, buffers: &str) -> Option<String> {
        use vram_shared::format::{format_bytes, format_number};
        let row = self.highlighted();
        let expert_parallel = self.model.is_some_and(|m| m.ep > 1);
        if self.accounting != Accounting::Course
            || row.beyond.offload != Offload::None
            || expert_parallel
        {
            return None;
        }
        let strategy = row.strategy;
        let recipe = self.setup.recipe();
        let n = self.setup.shard_gpus();
        // FP8's cached copies of the linears' weights ([`BytesPerParam::fp8_copies`]),
        // and FP8 weights' one-byte shards under ZeRO-3.
        let sharded = strategy.shards_weights();
        let (weights, copies) = match sharded {
            true => (self.setup.gathered_weight_bytes(), 0.0),
            false => (
                recipe.storage().bytes_per_param(),
                BytesPerParam::fp8_copies(strategy, recipe, n) * self.setup.linear_share,
            ),
        };
        // FSDP2 under a pipeline holds its stage's weights and fp32
        // gradients whole (`Runtime::place`): written as held.
        let held_whole =
            sharded && n > 1 && row.bytes_per_param.weights > weights / f64::from(n) + 1e-12;
        let (sharded, gradients) = match held_whole {
            true => (false, (row.bytes_per_param.gradients, false)),
            false => (
                sharded,
                (
                    recipe.gradients.bytes_per_param(recipe.storage()),
                    strategy.shards_gradients(),
                ),
            ),
        };
        let terms = [
            (weights, sharded),
            (copies, false),
            gradients,
            (
                recipe.optimizer.state_bytes_per_param(recipe.storage()),
                strategy.shards_optimizer_states(),
            ),
        ]
        .iter()
        .filter(|(bytes, _)| *bytes > 0.0)
        .map(|&(bytes, sharded)| match sharded {
            true if n > 1 => format!("{} ÷ {n}", format_number(bytes)),
            _ => format_number(bytes),
        })
        .collect::<Vec<_>>()
        .join(" + ");
        let mut text = match self.setup.adapters() {
            // The frozen base as stored (ZeRO-3 shards it), then the recipe on the adapters.
            Some(adapters) => {
                let frozen = format_bytes(Bytes::new(adapters.frozen_bytes as f64), self.unit);
                let frozen = match strategy.shards_weights() && n > 1 {
                    true => format!("{frozen} ÷ {n}"),
                    false => frozen,
                };
                format!(
                    "{frozen} + ({terms}) B × {} × 10⁶",
                    format_number(adapters.trainable as f64 / 1e6)
                )
            }
            None => {
                // Under a layout, one GPU's share of its pipeline rank.
                let params = match (&self.layout, row.rank) {
                    (Some(layout), Some(rank)) => layout
                        .stages
                        .get(rank as usize)
                        .map_or(self.setup.params(), |s| ParamCount::new(s.params as f64)),
                    _ => self.setup.params(),
                };
                format!("({terms}) B × {} × 10⁹", format_number(params.billions()))
            }
        };
        for (bytes, word) in [
            (row.memory.activations, activations),
            (row.memory.buffers, buffers),
        ] {
            if bytes.get() > 0.0 {
                text.push_str(&format!(" + {} {word}", format_bytes(bytes, self.unit)));
            }
        }
        text.push_str(&format!(" = {}", format_bytes(row.memory.total, self.unit)));
        Some(text)
    }

    /// Under a layout (`None` without), the highlighted strategy's most loaded
    /// rank's activations as Korthikanti et al. 2022 (Table 2) partition them:
    /// its microbatches in flight × its layers × each layer's bytes (÷ TP
    /// inside the tensor-parallel region, ÷ TP outside it too with SP, ÷ CP
    /// the sequence), plus what lies outside the layers on that rank. The
    /// numbers only: the front ends word them (`vram_view::notes`).
    pub fn layout_derivation(&self) -> Option<LayoutDerivation> {
        let (layout, model, kept) = (self.layout.as_ref()?, self.model?, self.activations?);
        let rank = self.highlighted().rank.unwrap_or(0);
        let l = layout.layout;
        let layers = layout
            .stages
            .get(rank as usize)
            .map_or(model.architecture.layers, |s| s.layers);
        let in_flight = l.layers_in_flight(rank, layout.microbatches, model.architecture.layers);
        // Full recomputation keeps each checkpoint's input (and, with the
        // block method, the layers it leaves stored) and rebuilds N layers.
        let (layers, each, rebuilt) = match model.recompute {
            Recompute::Full => {
                let setup = model.activation_setup(&self.setup);
                let kept_here = setup
                    .checkpointing
                    .chunk(l.chunk_layers(rank, model.architecture.layers));
                let outside = if l.sp { l.tp } else { 1 };
                let input = setup.bytes_per_value
                    * f64::from(model.seq_len / l.cp)
                    * f64::from(model.micro_batch)
                    * f64::from(model.architecture.hidden / outside);
                let rebuilt = match kept_here.stored {
                    0 => Rebuilt::AtOnce {
                        layers: kept_here.rebuilt,
                    },
                    stored => Rebuilt::Stored {
                        layers: stored * l.vpp,
                    },
                };
                (kept_here.inputs * l.vpp, Bytes::new(input), Some(rebuilt))
            }
            _ => (layers, kept.per_layer, None),
        };
        Some(LayoutDerivation {
            rank,
            pp: l.pp,
            tp: l.tp,
            sp: l.sp,
            cp: l.cp,
            in_flight,
            layers,
            each,
            per_layer: kept.per_layer,
            rebuilt,
            outside: kept.embeddings_and_logits,
            total: kept.total,
        })
    }

    /// The activation formula with this report's numbers, in its unit
    /// ([`activation_derivation`]), when the model's architecture is given;
    /// `None` without a model, and where Hugging Face's or LitGPT's measured
    /// terms stand in for a formula (`framework=hf` or `litgpt`, whose parts
    /// [`Report::activations`] holds).
    /// LoRA's adapters' part is [`Self::lora_activation_derivation`].
    pub fn activation_formula(&self) -> Option<String> {
        let model = self.model?;
        if model.framework.measured_on_pytorch() && self.activations.is_some() {
            return None;
        }
        let setup = model.activation_setup(&self.setup);
        Some(activation_derivation(
            &model.architecture,
            &setup,
            self.unit,
        ))
    }

    /// What LoRA's adapters keep for backward, its formula with this report's
    /// numbers (`L·(n·r)·s·b·e = … = 2.1 MB`: L layers, n adapted matrices per
    /// layer, r the rank, s tokens, b micro-batch, e bytes per value; DoRA adds
    /// `2d`, d the adapted layers' output widths); `None`
    /// without adapters that keep anything.
    pub fn lora_activation_derivation(&self) -> Option<String> {
        let model = self.model?;
        let setup = model.activation_setup(&self.setup);
        let adapters = self.activations.map_or(Bytes::ZERO, |a| a.adapters);
        let lora = self.setup.adapters().filter(|_| adapters.get() > 0.0)?;
        // Hugging Face's accounting has no one-line formula for them (`HfLora`).
        if model.framework == Framework::Hf {
            return Some(vram_shared::format::format_bytes(adapters, self.unit));
        }
        // DoRA's base and LoRA outputs: 2·d values a token, d the adapted
        // layers' output widths.
        let (dora, dora_numbers) = match lora.dora_outputs {
            0 => ("", String::new()),
            d => (" + 2d", format!(" + 2 × {d}")),
        };
        Some(format!(
            "L·(n·r{dora})·s·b·e = {} × ({} × {}{dora_numbers}) × {} × {} × {} B = {}",
            model.architecture.layers,
            lora.adapted_per_layer,
            lora.rank,
            setup.seq_len,
            setup.micro_batch,
            vram_shared::format::format_number(setup.bytes_per_value),
            vram_shared::format::format_bytes(adapters, self.unit)
        ))
    }
}

/// The activations of a pipeline rank under a layout, as
/// [`Report::layout_derivation`] gives them: `in_flight × layers × each
/// (+ rebuilt) + outside = total`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutDerivation {
    /// The most loaded pipeline rank, from 0.
    pub rank: u32,
    /// Pipeline stages.
    pub pp: u32,
    /// Tensor-parallel degree (1: none).
    pub tp: u32,
    /// Whether sequence parallelism divides the layers' outside of the
    /// tensor-parallel region too.
    pub sp: bool,
    /// Context-parallel degree dividing the sequence (1: none).
    pub cp: u32,
    /// Microbatches in flight on the rank (1F1B: PP − rank; fractional with VPP).
    pub in_flight: f64,
    /// The layers whose `each` is kept per microbatch in flight: the rank's
    /// layers, or with full recomputation its checkpoints.
    pub layers: u32,
    /// Bytes kept per layer (or per checkpoint's input), per microbatch.
    pub each: Bytes,
    /// A layer's whole activations, per microbatch.
    pub per_layer: Bytes,
    /// With full recomputation, the layers kept whole besides the inputs.
    pub rebuilt: Option<Rebuilt>,
    /// Embeddings and logits on the rank.
    pub outside: Bytes,
    /// The rank's activations.
    pub total: Bytes,
}

/// What full recomputation keeps whole beside each checkpoint's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rebuilt {
    /// One group of `layers` rebuilt at once during the backward: one
    /// microbatch's `per_layer` each.
    AtOnce {
        /// Layers rebuilt together.
        layers: u32,
    },
    /// Megatron's block method: `layers` left stored whole, for every
    /// microbatch in flight.
    Stored {
        /// Layers stored whole.
        layers: u32,
    },
}
