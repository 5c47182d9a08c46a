//! Each field's words: its label, unit and hint on the form, its choices'
//! labels, and a value said in words.

use super::*;

/// What the form writes around a field's control: its label, the unit after it
/// (empty for none) and a line of help under it.
pub struct FieldText {
    /// The visible label.
    pub label: &'static str,
    /// The unit shown after a number (empty for a count or a choice).
    pub unit: &'static str,
    /// A line of help under the control.
    pub hint: Option<&'static str>,
}

/// A field's label, unit (empty for none) and hint, as [`FieldText`] holds them.
type Words = (&'static str, &'static str, Option<&'static str>);

/// The form's words for `field`: the one place a new field's label goes, in
/// the group of fields it belongs with.
pub fn field_text(t: &Text, field: Field) -> FieldText {
    let (label, unit, hint) = training_words(t, field)
        .or_else(|| serving_and_rl_words(t, field))
        .or_else(|| display_and_tuning_words(t, field))
        .or_else(|| architecture_words(t, field))
        .or_else(|| cluster_words(t, field))
        // Every field is in a group (tested: `every_field_has_its_words`).
        .unwrap_or(("", "", None));
    FieldText { label, unit, hint }
}

/// The lesson's inputs, the model's size and shape, the GPU, the step
/// (batch, sequence, what is kept for backward) and Megatron-LM's options
/// beside it.
fn training_words(t: &Text, field: Field) -> Option<Words> {
    Some(match field {
        Field::Params => (t.label_params, t.unit_params, None),
        Field::Gpus => (t.label_gpus, t.unit_gpus, None),
        Field::GpuMemory => (t.label_gpu_mem, t.unit_gb, None),
        Field::Overhead => (t.label_overhead, t.unit_percent, Some(t.hint_overhead)),
        Field::Precision => (t.label_precision, "", None),
        Field::GradAcc => (t.label_grad_acc, "", None),
        Field::Optimizer => (t.label_optimizer, "", None),
        Field::Stage => (t.label_stage, "", None),
        Field::GlobalBatch => (
            t.label_global_batch,
            t.unit_sequences,
            Some(t.hint_global_batch),
        ),
        Field::MicroBatch => (t.label_mbs, t.unit_sequences, None),
        Field::Model => (t.label_model, "", None),
        Field::Layers => (t.label_layers, "", None),
        Field::Hidden => (t.label_hidden, "", None),
        Field::Ffn => (t.label_ffn, "", None),
        Field::Heads => (t.label_heads, "", None),
        Field::KvHeads => (t.label_kv_heads, "", None),
        Field::Vocab => (t.label_vocab, "", None),
        Field::Tied => (t.label_tied, "", None),
        Field::Mlp => (t.label_mlp, "", None),
        Field::Gpu => (t.label_gpu, "", None),
        Field::Seq => (t.label_seq, t.unit_tokens, None),
        Field::Recompute => (t.label_recompute, "", None),
        Field::Flash => (t.label_flash, "", None),
        Field::RecomputeMethod => (t.label_recompute_method, "", None),
        Field::RecomputeLayers => (t.label_recompute_layers, "", Some(t.hint_recompute_layers)),
        Field::Mtp => (t.label_mtp, "", Some(t.hint_mtp)),
        Field::CpComm => (t.label_cp_comm, "", Some(t.hint_cp_comm)),
        Field::Etp => (t.label_etp, "", Some(t.hint_etp)),
        Field::Fp8Recipe => (t.label_fp8_recipe, "", Some(t.hint_fp8_recipe)),
        Field::RecomputeModules => (
            t.label_recompute_modules,
            "",
            Some(t.hint_recompute_modules),
        ),
        _ => return None,
    })
}

/// The job, what is served and how, and RL post-training's settings.
fn serving_and_rl_words(t: &Text, field: Field) -> Option<Words> {
    Some(match field {
        Field::Job => (t.label_job, "", None),
        Field::Engine => (t.label_engine, "", None),
        Field::EngineVersion => (t.label_engine_version, "", Some(t.hint_engine_version)),
        Field::Weights => (t.label_weights, "", Some(t.hint_weights)),
        Field::KvDtype => (t.label_kv_dtype, "", None),
        Field::MaxLen => (t.label_max_len, t.unit_tokens, Some(t.hint_max_len)),
        Field::PromptLen => (t.label_prompt_len, t.unit_tokens, None),
        Field::ResponseLen => (t.label_response_len, t.unit_tokens, None),
        Field::Concurrency => (
            t.label_concurrency,
            t.unit_sequences,
            Some(t.hint_concurrency),
        ),
        Field::GpuUtil => (t.label_gpu_util, "", Some(t.hint_gpu_util)),
        Field::KvMemory => (t.label_kv_memory, t.unit_gb, Some(t.hint_kv_memory)),
        Field::Measured => (t.label_measured, "", Some(t.hint_measured)),
        Field::Block => (t.label_block, t.unit_tokens, Some(t.hint_block)),
        Field::BatchedTokens => (
            t.label_batched_tokens,
            t.unit_tokens,
            Some(t.hint_batched_tokens),
        ),
        Field::MaxNumSeqs => (
            t.label_max_num_seqs,
            t.unit_sequences,
            Some(t.hint_max_num_seqs),
        ),
        Field::CudaGraphs => (t.label_cuda_graphs, "", None),
        Field::Algo => (t.label_algo, "", None),
        Field::RlFramework => (t.label_rl_framework, "", Some(t.hint_rl_framework)),
        Field::Placement => (t.label_placement, "", None),
        Field::RolloutGpus => (t.label_rollout_gpus, t.unit_gpus, Some(t.hint_rollout_gpus)),
        Field::Teacher => (t.label_teacher, "", Some(t.hint_teacher)),
        Field::CriticModel => (t.label_critic_model, "", Some(t.hint_critic_model)),
        Field::RewardModel => (t.label_reward_model, "", Some(t.hint_reward_model)),
        Field::Prompts => (t.label_prompts, t.unit_sequences, None),
        Field::Rollouts => (t.label_rollouts, t.unit_sequences, None),
        Field::RolloutTp => (t.label_rollout_tp, t.unit_gpus, Some(t.hint_rollout_tp)),
        Field::Sleep => (t.label_sleep, "", None),
        Field::Ref => (t.label_ref, "", None),
        Field::RefOffload => (t.label_ref_offload, "", None),
        Field::Critic => (t.label_critic, "", Some(t.hint_critic)),
        Field::Reward => (t.label_reward, "", None),
        Field::TokenBudget => (
            t.label_token_budget,
            t.unit_tokens,
            Some(t.hint_token_budget),
        ),
        Field::PromptMean => (t.label_prompt_mean, t.unit_tokens, Some(t.hint_prompt_mean)),
        Field::ResponseMean => (
            t.label_response_mean,
            t.unit_tokens,
            Some(t.hint_response_mean),
        ),
        Field::Logits => (t.label_logits, "", None),
        Field::Entropy => (t.label_entropy, "", Some(t.hint_entropy)),
        _ => return None,
    })
}

/// How the page shows its results, the link's own keys, what is trained
/// (every parameter, or adapters), mixed precision and the framework's
/// buffers and dropout.
fn display_and_tuning_words(t: &Text, field: Field) -> Option<Words> {
    Some(match field {
        Field::Unit => (t.label_unit, "", None),
        Field::Theme => (t.label_theme, "", None),
        Field::Lang => (t.label_lang, "", None),
        // Set by the host page's link; no control.
        Field::Embed => ("embed", "", None),
        Field::Show => ("show", "", None),
        Field::Controls => ("controls", "", None),
        Field::Method => (t.label_method, "", Some(t.hint_method)),
        Field::Rank => (t.label_rank, "", None),
        Field::Targets => (t.label_targets, "", None),
        Field::Quant => (t.label_quant, "", None),
        Field::DoubleQuant => (t.label_double_quant, "", None),
        Field::Bnb => (t.label_bnb, "", Some(t.hint_bnb)),
        Field::LoraDropout => (t.label_lora_dropout, "", Some(t.hint_lora_dropout)),
        Field::AdapterDtype => (t.label_adapter_dtype, "", None),
        Field::Dora => (t.label_dora, "", None),
        Field::Amp => (t.label_amp, "", Some(t.hint_amp)),
        Field::BufferFactor => (t.label_buffer_factor, "×", Some(t.hint_buffer_factor)),
        Field::Dropout => (t.label_dropout, "", Some(t.hint_dropout)),
        Field::Framework => (t.label_framework, "", None),
        _ => return None,
    })
}

/// A model's architecture beyond a Llama: its head size, norms, experts,
/// latent and linear attention, windows and positions.
fn architecture_words(t: &Text, field: Field) -> Option<Words> {
    Some(match field {
        Field::HeadDim => (t.label_head_dim, "", Some(t.hint_head_dim)),
        Field::QkNorm => (t.label_qk_norm, "", None),
        Field::SandwichNorms => (t.label_sandwich_norms, "", None),
        Field::Sinks => (t.label_sinks, "", None),
        Field::Softcap => (t.label_softcap, "", None),
        Field::ParallelBlock => (t.label_parallel, "", None),
        Field::ExpertBiases => (t.label_expert_bias, "", None),
        Field::Experts => (t.label_experts, "", Some(t.hint_experts)),
        Field::TopK => (t.label_top_k, "", None),
        Field::ExpertFfn => (t.label_expert_ffn, "", None),
        Field::SharedExperts => (t.label_shared_experts, "", None),
        Field::SharedFfn => (t.label_shared_ffn, "", None),
        Field::SharedGate => (t.label_shared_gate, "", None),
        Field::DenseLayers => (t.label_dense_layers, "", None),
        Field::QRank => (t.label_q_rank, "", None),
        Field::KvRank => (t.label_kv_rank, "", Some(t.hint_kv_rank)),
        Field::RopeDim => (t.label_rope_dim, "", None),
        Field::NopeDim => (t.label_nope_dim, "", None),
        Field::VDim => (t.label_v_dim, "", None),
        Field::GatedAttention => (t.label_attn_gate, "", None),
        Field::FullEvery => (t.label_full_every, "", None),
        Field::LinearKeyHeads => (t.label_lin_k_heads, "", None),
        Field::LinearValueHeads => (t.label_lin_v_heads, "", None),
        Field::LinearKeyDim => (t.label_lin_k_dim, "", None),
        Field::LinearValueDim => (t.label_lin_v_dim, "", None),
        Field::ConvKernel => (t.label_lin_conv, "", None),
        Field::Window => (t.label_window, "", Some(t.hint_window)),
        Field::GlobalEvery => (t.label_global_every, "", None),
        Field::Chunked => (t.label_chunked, "", None),
        Field::Capacity => (t.label_capacity, "×", Some(t.hint_capacity)),
        Field::Positions => (t.label_positions, "", None),
        Field::Biases => (t.label_biases, "", None),
        Field::Norm => (t.label_norm, "", None),
        _ => return None,
    })
}

/// How the GPUs split the model, what the step's time assumes, the
/// cluster, and what each framework keeps and moves.
fn cluster_words(t: &Text, field: Field) -> Option<Words> {
    Some(match field {
        Field::Ep => (t.label_ep, "", Some(t.hint_ep)),
        Field::Tp => (t.label_tp, "", None),
        Field::Pp => (t.label_pp, "", None),
        Field::Vpp => (t.label_vpp, "", Some(t.hint_vpp)),
        Field::Cp => (t.label_cp, "", None),
        Field::Sp => (t.label_sp, "", None),
        Field::Mfu => (t.label_mfu, "", Some(t.hint_mfu)),
        Field::Tflops => (t.label_tflops, t.unit_tflops, Some(t.hint_tflops)),
        Field::Achieved => (t.label_achieved, t.unit_tflops, Some(t.hint_achieved)),
        Field::Nvlink => (t.label_nvlink, t.unit_bandwidth, Some(t.hint_links)),
        Field::Network => (t.label_network, t.unit_bandwidth, Some(t.hint_links)),
        Field::Tokens => (t.label_tokens, t.unit_billion_tokens, None),
        Field::Price => (t.label_price, "", None),
        Field::OverlapGrad => (t.label_overlap_grad, "", Some(t.hint_overlap_grad)),
        Field::OverlapParam => (t.label_overlap_param, "", Some(t.hint_overlap_param)),
        Field::ShardGroup => (t.label_shard_group, t.unit_gpus, Some(t.hint_shard_group)),
        Field::PpFirst => (t.label_pp_first, "", Some(t.hint_pp_uneven)),
        Field::PpLast => (t.label_pp_last, "", None),
        Field::PpEmbedding => (t.label_pp_embedding, "", Some(t.hint_pp_counted)),
        Field::PpLoss => (t.label_pp_loss, "", None),
        Field::PpLayout => (t.label_pp_layout, "", Some(t.hint_pp_layout)),
        Field::Attention => (t.label_attention, "", None),
        Field::Loss => (t.label_loss, "", Some(t.hint_loss)),
        Field::LongestFirst => (t.label_longest_first, "", Some(t.hint_longest_first)),
        Field::Context => (t.label_context, t.unit_gb, Some(t.hint_context)),
        Field::Expandable => (t.label_expandable, "", Some(t.hint_expandable)),
        Field::Slack => (t.label_slack, t.unit_percent, Some(t.hint_slack)),
        Field::Nvls => (t.label_nvls, "", Some(t.hint_nvls)),
        Field::NcclMib => (t.label_nccl_mib, "MiB", Some(t.hint_nccl_mib)),
        Field::Accounting => (t.label_accounting, "", None),
        Field::Offload => (t.label_offload, "", None),
        Field::OffloadTo => (t.label_offload_to, "", None),
        Field::HostMemory => (t.label_host_mem, t.unit_gb, Some(t.hint_host_mem)),
        Field::Nodes => (t.label_nodes, t.unit_nodes, Some(t.hint_nodes)),
        Field::LargestLayer => (
            t.label_largest_layer,
            t.unit_millions,
            Some(t.hint_largest_layer),
        ),
        Field::ZeroInit => (t.label_zero_init, "", None),
        Field::Sharding => (t.label_sharding, "", None),
        Field::Buffers => (t.label_buffers, "", None),
        Field::ReduceBucket => (t.buffer_labels[0], t.unit_million_elements, None),
        Field::AllgatherBucket => (t.buffer_labels[1], t.unit_million_elements, None),
        Field::PrefetchBucket => (t.buffer_labels[2], t.unit_million_elements, None),
        Field::MaxLive => (t.buffer_labels[3], t.unit_million_elements, None),
        Field::Bandwidth => (t.label_bandwidth, t.unit_bandwidth, Some(t.hint_bandwidth)),
        _ => return None,
    })
}

/// A field's value as the form shows it: a number with its unit
/// (`2048 tokens`), a choice by its label (`Optimizer states`), a text as
/// typed (`Et|(t*2|)*30mL`).
pub fn value_words(t: &Text, field: Field, value: &str) -> String {
    if field.is_text() && !value.is_empty() {
        return value.to_string();
    }
    match field.is_number() {
        true => format!("{value} {}", field_text(t, field).unit)
            .trim_end()
            .to_string(),
        false => vram_core::input::form::options(field)
            .iter()
            .position(|&key| key == value)
            .and_then(|i| choice_labels(t, field).get(i).copied())
            .unwrap_or_default()
            .to_string(),
    }
}

/// A field and its value as the form shows them: `Sequence length 2048
/// tokens`, `Offload Optimizer states`.
pub fn field_words(t: &Text, field: Field, value: &str) -> String {
    format!(
        "{} {}",
        field_text(t, field).label,
        value_words(t, field, value)
    )
}

/// The words for each option of a choice field, in the order of
/// [`vram_core::input::form::options`].
pub fn choice_labels(t: &Text, field: Field) -> Vec<&'static str> {
    use vram_core::gpu::GPU_PRESETS;
    use vram_core::model::presets::MODEL_PRESETS;
    let list: &[&'static str] = match field {
        Field::Model => {
            return core::iter::once(t.model_by_size)
                .chain(MODEL_PRESETS.iter().map(|m| match m.id {
                    "config-json" => t.model_custom,
                    _ => m.name,
                }))
                .collect()
        }
        Field::Teacher | Field::CriticModel | Field::RewardModel => {
            let none = match field {
                Field::Teacher => t.no_teacher,
                _ => t.same_as_actor,
            };
            return core::iter::once(none)
                .chain(
                    MODEL_PRESETS
                        .iter()
                        .filter(|m| m.id != vram_core::model::presets::CUSTOM_MODEL.id)
                        .map(|m| m.name),
                )
                .collect();
        }
        Field::Gpu => {
            return core::iter::once(t.gpu_custom)
                .chain(GPU_PRESETS.iter().map(|g| g.name))
                .collect()
        }
        Field::Stage => {
            return vram_core::Strategy::ALL
                .map(vram_core::Strategy::label)
                .to_vec()
        }
        Field::Precision => &t.precision,
        Field::GradAcc => &t.gradients,
        Field::Optimizer => &t.optimizer,
        Field::Mlp => &t.mlp,
        Field::Biases => &t.biases,
        Field::Norm => &t.norm,
        Field::QkNorm => &t.qk_norm,
        Field::Recompute => &t.recompute,
        Field::RecomputeMethod => &t.recompute_method,
        Field::RecomputeModules => &t.recompute_modules,
        Field::Fp8Recipe => &t.fp8_recipe,
        Field::CpComm => &t.cp_comm,
        Field::Etp => &t.etp,
        Field::Job => &t.job,
        Field::Engine => &t.engine,
        Field::Weights => &t.weights,
        Field::KvDtype => &t.kv_dtype,
        Field::Algo => &t.algo,
        Field::RlFramework => &t.rl_framework,
        Field::Placement => &t.placement,
        Field::Sleep => &t.sleep,
        Field::Ref => &t.ref_choices,
        Field::Reward => &t.reward,
        Field::Logits => &t.logits,
        Field::Unit => &t.unit,
        Field::Theme => &t.theme,
        Field::Lang => &t.lang,
        Field::Accounting => &t.accounting,
        Field::Offload => &t.offload,
        Field::OffloadTo => &t.offload_to,
        Field::Sharding => &t.sharding,
        Field::Method => &t.method,
        Field::Framework => &t.framework,
        Field::Attention => &t.attention,
        Field::Loss => &t.loss,
        Field::Targets => &t.targets,
        Field::Quant => &t.quant,
        Field::AdapterDtype => &t.adapter_dtype,
        // Set by a link only, and said in its keys.
        Field::Show => return Field::Show.choices().to_vec(),
        // A release is its version, in every language.
        Field::EngineVersion => return Field::EngineVersion.choices().to_vec(),
        Field::Bnb => &t.bnb,
        // A text: its one option is none (the text itself is its words).
        Field::PpLayout | Field::Measured => return vec![t.pp_layout_none],
        // The flags: "0", "1".
        _ => return vec![t.no, t.yes],
    };
    list.to_vec()
}
