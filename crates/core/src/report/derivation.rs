//! The formulas under the table with the report's own numbers: the lesson's
//! bytes per parameter, the layout's partition and the activations'
//! derivations (Korthikanti et al.; Hugging Face's measured formulas).

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
        use crate::format::{format_bytes, format_number};
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
        let terms = [
            (weights, sharded),
            (copies, false),
            (
                recipe.gradients.bytes_per_param(recipe.storage()),
                strategy.shards_gradients(),
            ),
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

    /// Under a layout (`None` without), the highlighted strategy's most loaded rank: its
    /// microbatches in flight × its layers × each layer's bytes (÷ TP inside
    /// the tensor-parallel region, ÷ TP outside it too with SP), plus what
    /// lies outside the layers on that rank.
    pub fn layout_derivation(&self) -> Option<String> {
        use crate::format::{format_bytes, format_number};
        let (layout, model, kept) = (self.layout.as_ref()?, self.model?, self.activations?);
        let rank = self.highlighted().rank.unwrap_or(0);
        let l = layout.layout;
        let layers = layout
            .stages
            .get(rank as usize)
            .map_or(model.architecture.layers, |s| s.layers);
        let in_flight = l.in_flight(rank, layout.microbatches);
        let split = match (l.tp, l.sp) {
            (1, _) => String::new(),
            (t, false) => format!(", TP {t} dividing the tensor-parallel region"),
            (t, true) => format!(", TP {t} with SP dividing all of it"),
        };
        let cp = match l.cp {
            1 => String::new(),
            c => format!(", CP {c} dividing the sequence"),
        };
        // Full recomputation keeps each checkpoint's input (and, with the
        // block method, the layers it leaves stored) and rebuilds N layers.
        let (layers, each, rebuilt) = match model.recompute {
            Recompute::Full => {
                let setup = model.activation_setup(self.setup.precision());
                let kept_here = setup
                    .checkpointing
                    .chunk(l.chunk_layers(rank, model.architecture.layers));
                let outside = if l.sp { l.tp } else { 1 };
                let input = setup.bytes_per_value
                    * f64::from(model.seq_len / l.cp)
                    * f64::from(model.micro_batch)
                    * f64::from(model.architecture.hidden / outside);
                let layer = format_bytes(kept.per_layer, self.unit);
                let rebuilt = match kept_here.stored {
                    0 => format!(
                        " (each checkpoint's input) + {} × {layer} (rebuilt at once)",
                        kept_here.rebuilt
                    ),
                    stored => format!(
                        " (each checkpoint's input) + {} × {} × {layer} (stored whole)",
                        format_number(in_flight),
                        stored * l.vpp
                    ),
                };
                (kept_here.inputs * l.vpp, Bytes::new(input), rebuilt)
            }
            _ => (layers, kept.per_layer, String::new()),
        };
        let head = format_bytes(each, self.unit);
        Some(format!(
            "Pipeline rank {} of {} (Korthikanti et al. 2022, Table 2{split}{cp}): {} microbatches in flight × {layers} layers × {head}{rebuilt} + {} outside the layers = {}",
            rank + 1,
            l.pp,
            format_number(in_flight),
            format_bytes(kept.embeddings_and_logits, self.unit),
            format_bytes(kept.total, self.unit)
        ))
    }

    /// The activation formula with this report's numbers, in its unit
    /// ([`activation_derivation`]), when the model's architecture is given;
    /// with LoRA, its adapters' part follows ([`Self::lora_activation_derivation`]).
    pub fn activation_derivation(&self) -> Option<String> {
        let mut text = self.base_activation_derivation()?;
        if let Some(lora) = self.lora_activation_derivation() {
            text.push_str("; LoRA adds ");
            text.push_str(&lora);
        }
        Some(text)
    }

    /// The activation formula of the model's own layers (LoRA's adapters
    /// left out), with this report's numbers.
    pub fn base_activation_derivation(&self) -> Option<String> {
        use crate::format::format_bytes;
        let model = self.model?;
        let setup = model.activation_setup(self.setup.precision());
        Some(match (model.framework, self.activations) {
            // Hugging Face's measured terms (crate::frameworks::hf), summed.
            (Framework::Hf, Some(kept)) => {
                format!(
                "Hugging Face transformers 5.24 on PyTorch 2.15, {} attention, {}: {} per layer, \
                 {} all layers, {} outside them (with the logits) = {} kept for backward",
                model.hf_attention().key(),
                match crate::frameworks::hf::numerics_of(self.setup.precision()) {
                    Numerics::Fp32 => "fp32",
                    Numerics::Pure16 => "pure 16-bit",
                    Numerics::Autocast16 => "16-bit autocast",
                },
                format_bytes(kept.per_layer, self.unit),
                format_bytes(kept.layers, self.unit),
                format_bytes(kept.embeddings_and_logits, self.unit),
                format_bytes(Bytes::new(kept.total.get() - kept.adapters.get()), self.unit)
            )
            }
            _ => activation_derivation(&model.architecture, &setup, self.unit),
        })
    }

    /// What LoRA's adapters keep for backward, its formula with this report's
    /// numbers (`L·(n·r)·s·b·e = … = 2.1 MB`: L layers, n adapted matrices per
    /// layer, r the rank, s tokens, b micro-batch, e bytes per value; DoRA adds
    /// `2d`, d the adapted layers' output widths); `None`
    /// without adapters that keep anything.
    pub fn lora_activation_derivation(&self) -> Option<String> {
        let model = self.model?;
        let setup = model.activation_setup(self.setup.precision());
        let adapters = self.activations.map_or(Bytes::ZERO, |a| a.adapters);
        let lora = self.setup.adapters().filter(|_| adapters.get() > 0.0)?;
        // Hugging Face's accounting has no one-line formula for them (`HfLora`).
        if model.framework == Framework::Hf {
            return Some(crate::format::format_bytes(adapters, self.unit));
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
            crate::format::format_number(setup.bytes_per_value),
            crate::format::format_bytes(adapters, self.unit)
        ))
    }
}
