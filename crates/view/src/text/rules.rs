//! What a field accepts, in English words, for `vram --help` and `vram
//! --keys` (docs/links.md): its limits in its unit, its choices, and the rule
//! it must keep beside the other fields. The core declares the limits and
//! checks the rules; these are their words, at the edge.

use vram_core::decimal::shortest_decimal;
use vram_core::input::field::Value;
use vram_core::Field;

/// What a value must be beside the other fields, in English words, as
/// `ModelSpec::validate` and `Config::setup` check it (the link decoder
/// sets aside what breaks it, and `link_contract.rs` holds each to it); empty where only the field's own limits
/// apply. `--help` and `vram --keys` (docs/links.md) print it beside the
/// limits, so that the documented limits are the checked ones.
pub fn field_rule(field: Field) -> &'static str {
    match field {
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
        Field::Pp => "divides the GPUs and, without pp_first, pp_last or pp_layout, the layers (with pp_embedding or pp_loss, the layers and the embedding or loss each counted as one)",
        Field::Vpp => "with PP 2 or more; divides each rank's layers (the layers ÷ PP, or its own with pp_first, pp_last, pp_embedding or pp_loss); with pp_layout, its stages ÷ PP",
        Field::Cp => "divides the GPUs; 2 × CP divides the sequence; with cp_comm=a2a divides each TP rank's heads and key/value heads",
        Field::CpComm => "with CP 2 or more",
        Field::Etp => "with TP 2 or more and experts; 1: EP divides TP × CP × DP",
        Field::PpFirst | Field::PpLast => {
            "with PP 2 or more; leaves the stages between a whole number of layers each"
        }
        Field::PpEmbedding | Field::PpLoss => "not with pp_first or pp_last",
        Field::PpLayout => "PP × VPP stages holding the model's layers and mtp layers, the latter in their rank's last virtual stage; not with pp_first, pp_last, pp_embedding or pp_loss",
        Field::ShardGroup => "divides ZeRO's GPUs; not with ep or acct=deepspeed",
        Field::Accounting => "megatron: with a model, for full training",
        Field::LargestLayer => "without a model: at most the model's size",
        Field::Achieved => "at most the GPU's peak",
        Field::RecomputeLayers => "read with recompute=full (held, unused without it): at most a chunk's layers (layers ÷ (PP × VPP)); 1 under framework=hf or litgpt",
        Field::RecomputeMethod => "with recompute=full; uniform under framework=hf or litgpt",
        Field::Fp8Recipe => "with dtype=fp8 or fp8-params; mxfp8 on Blackwell; blockwise on Hopper or Blackwell",
        Field::RecomputeModules => "with recompute=selective; mla_up_proj with kv_rank above 0; moe_act and layernorm in FP8 not with fp8_recipe=delayed; core_attn alone under framework=hf or litgpt; op alone, on a dense model with FlashAttention and neither latent nor linear attention",
        Field::Precision => "fp8 and fp8-params: a GPU with FP8 tensor cores, full training, not framework=hf or litgpt; fp8-params not with sharding=fsdp2",
        Field::Amp => "with a mixed precision",
        Field::Recompute => "selective: not with framework=litgpt (LitGPT checkpoints whole blocks)",
        Field::Dropout => "not with framework=litgpt (its GPT has no dropout)",
        Field::Framework => "hf: a model with a SwiGLU MLP; litgpt: a dense model with rotary positions, tied=0 (LitGPT's own output head), dtype=bf16-pure, adapters of the model's dtype",
        Field::Prompts => "with rl_framework=verl, prompts × rollouts a multiple of the GPUs (its Megatron actor: of its data-parallel ranks × micro-batch)",
        Field::LongestFirst => "with framework=litgpt",
        Field::Loss => "fused alone under framework=hf or litgpt (which count their own loss); compiled: exported as torchtitan's alone",
        Field::Sharding => "fsdp2: not with acct=deepspeed",
        Field::Dora => "not on a mixture's expert MLPs; not with amp under framework=hf; not with framework=litgpt",
        Field::Sp => "with TP 2 or more",
        Field::Context => "less than each GPU's memory less the reserve",
        Field::Method => "qlora: a dense model without latent attention",
        Field::Mfu => "unset: each kernel by its shape on the GPU (the kernel model); version-1 links with a model: 0.4",
        _ => "",
    }
}

/// The values the field accepts, in English words: its limits (whole or
/// not, in its unit), its choices or a preset id, then its [`field_rule`].
pub fn accepts(field: Field) -> String {
    let own = match field.declaration().value {
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
        Value::Text { .. } => match field {
            Field::PpLayout => "a layout as Megatron-LM's --pipeline-model-parallel-layout writes it: E the embedding, t a transformer layer, m an MTP layer, L the loss, a vertical bar between stages, x*n and (…)*n repeating, commas ignored".to_string(),
            _ => "text".to_string(),
        },
        Value::Preset => match field {
            // A handful: named here (the models', too many for a line, are named by the error for an unknown id).
            Field::Gpu => format!("a preset id: {}", field.preset_ids().join(", ")),
            _ => "a preset id".to_string(),
        },
    };
    match field_rule(field) {
        "" => own,
        rule => format!("{own}; {rule}"),
    }
}
