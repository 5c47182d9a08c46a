//! Activations as LitGPT keeps them (`framework=litgpt`): what one training
//! step of LitGPT's own `GPT` (`litgpt/model.py`, and `litgpt/lora.py` for
//! LoRA) saves for backward in `--precision bf16-true`, as its
//! `finetune/lora.py` and `finetune/full.py` run it, to the byte.
//!
//! Derived from the tensors PyTorch saves (autograd's saved-tensor hooks, each
//! storage once, parameters left out) in LitGPT 0.4.13 on torch 2.15, with
//! dropout run as CUDA runs it (`torch.native_dropout`: a one-byte mask), and
//! checked against `crates/core/tests/measured/litgpt.json`
//! (`scripts/measure-litgpt-activations`); the whole step's peak against
//! LitGPT's own loop run at the published runs' dimensions
//! (`measured/litgpt-peaks.json`, `scripts/measure-litgpt`). With s tokens,
//! b sequences, hidden h, query width q (heads × head size), key/value width
//! k, FFN f, a heads, vocabulary v, rank r, and 2 bytes a value, what needs a
//! gradient keeps, a token:
//! - a LayerNorm its input (2h) and fp32 mean and inverse deviation (8); an
//!   RMSNorm (LitGPT's own, in fp32) its input upcast (4h) and its inverse
//!   root (4), and when its weight trains the normalised tensor (4h);
//! - the fused query/key/value projection's output (2(q + 2k)) where the
//!   value is a view of it (one key/value head, or as many as queries), else
//!   a copy of the value at the queries' width (2q); the rotated query and
//!   key, each at the queries' width (2q each: the keys are expanded before
//!   the rotation); SDPA's output (2q) and fp32 log-sum-exp (4a); Gemma 2's
//!   soft-capped attention, eager, instead of SDPA's output and log-sum-exp
//!   the tanh (2as), the fp32 softmax (4as) and its 16-bit copy (2as) per
//!   token of each sequence;
//! - a linear whose weight trains its input (2 × its input width, each tensor
//!   once); a GELU its input (2f); SwiGLU and GeGLU the two first linears'
//!   outputs and the activation's (6f);
//! - a LoRA adapter its dropout's mask (1 byte a value of its input, when the
//!   input needs a gradient) and output (2), or without dropout the input
//!   itself; the r-wide output of `lora_A` (2r, 2 × 3r for the fused q/k/v
//!   adapter, 2 × 2r with q and v only, which also keeps the zero-padded
//!   update, 2(q + k)); the query/key/value adapter and a GELU MLP's input
//!   adapter one dropout each, SwiGLU's two first linears one each;
//! - QLoRA's 4-bit linears under bitsandbytes before 0.43.2 their input,
//!   the output head's included (LitGPT quantises it too);
//! - the first layer's input needs no gradient under LoRA (the embedding is
//!   frozen): its first norm keeps nothing, nor the dropouts reading it;
//! - full recomputation (LitGPT's FSDP `activation_checkpointing_policy`)
//!   keeps each block's input (2h);
//! - outside the layers: the final norm; the logits (held by the loop: the
//!   LoRA model's head in 128-token chunks, full training's whole), the
//!   loss's log-softmax over every target, the targets in int64 when
//!   they are copied (more than one sequence); full training also the head's
//!   input and, with Gemma 2's final soft-capping, its tanh (2v); the logits
//!   and the log-softmax are fp32 (4v each): Fabric hands the model's outputs
//!   back in fp32.
//!
//! The output head's own adapter (LitGPT's `lora_head`: 3h + 2r a token) is
//! not counted.

use crate::memory::activations::{ActivationMemory, ActivationSetup, Recompute};
use crate::memory::finetune::{Adapters, Targets};
use crate::memory::step::StepTransients;
use vram_shared::model::architecture::{Architecture, Mlp, Norm};
use vram_shared::units::Bytes;

/// Bytes of a 16-bit value.
const E: f64 = 2.0;

/// Bytes of a logit as the training loop holds it: Fabric returns the
/// model's outputs in the default dtype, fp32 (`HalfPrecision.convert_output`
/// for bf16-true, `BitsandbytesPrecision.convert_output` for QLoRA, in
/// `lightning/fabric/plugins/precision/`), so the logits, the loss's
/// log-softmax and their gradients are fp32 copies of the 16-bit head's.
const LOGIT: f64 = 4.0;

/// LitGPT's chunk of the LoRA model's output head and of
/// `chunked_cross_entropy`, tokens (`lm_head_chunk_size=128`).
const CHUNK: u32 = 128;

/// Whether LitGPT's accounting covers `arch`: dense models with the usual
/// attention and rotary positions (GPT-NeoX, Phi, Falcon, StableLM, Llama,
/// Mistral, Gemma and Gemma 2 as LitGPT builds them).
pub const fn covers(arch: &Architecture) -> bool {
    !arch.moe.is_moe()
        && !arch.mla.is_latent()
        && !arch.linear.is_some()
        && !arch.qk_norm.is_some()
        && !arch.attention_sinks
        && !arch.gated_attention
        && arch.learned_positions == 0
        && arch.mtp_layers == 0
}

/// FSDP1's gradients under LitGPT on more than one GPU, bytes on each GPU:
/// Lightning's `FSDPStrategy` wraps each `Block` in one flat parameter
/// (`use_orig_params=True`), and a flat parameter any of whose parameters
/// trains gets a gradient of its whole size, frozen weights included: under
/// LoRA every block's, full 16-bit (the root's embedding, head and final
/// norm are frozen and get none); in full training every parameter's. While
/// micro-batches accumulate, Fabric's `no_backward_sync` runs FSDP1's
/// `no_sync`, which holds those gradients unsharded until the step's last
/// micro-batch; without accumulation each is reduce-scattered to its 1 ÷ N
/// shard. Measured on the CPU with torch's FSDP1 over gloo (two Phi-1.5
/// blocks on two ranks: a `no_sync` backward leaves 201 MB, both blocks'
/// 16-bit size, a synchronised one 100 MB).
pub fn fsdp_gradient_bytes(arch: &Architecture, lora: bool, gpus: u32, accumulates: bool) -> f64 {
    let parts = arch.param_breakdown();
    let trained = match lora {
        true => parts.layers,
        false => parts.embeddings + parts.layers + parts.final_norm + parts.output_head,
    } as f64;
    let share = if accumulates {
        1.0
    } else {
        1.0 / f64::from(gpus.max(1))
    };
    E * trained * share
}

/// FSDP1's gathered parameters under LitGPT on more than one GPU, bytes on
/// each GPU: the root's flat parameter (the embedding, the final norm and
/// the output head, every parameter outside a `Block`), which FSDP1 does
/// not reshard after the forward pass (`_post_forward_reshard` frees only
/// non-root handles) and so holds whole through the backward, and two
/// blocks' (the one running, the next prefetched: `BackwardPrefetch.
/// BACKWARD_PRE`, FSDP1's default), each in 16 bits.
pub fn fsdp_gathered_bytes(arch: &Architecture) -> f64 {
    let parts = arch.param_breakdown();
    let root = parts.embeddings + parts.final_norm + parts.output_head;
    let block = parts.layers / u64::from(arch.layers.max(1));
    E * (root + 2 * block) as f64
}

/// The widths of a layer, values a token.
#[derive(Clone, Copy)]
struct Widths {
    h: f64,
    q: f64,
    k: f64,
    f: f64,
    a: f64,
}

impl Widths {
    fn of(arch: &Architecture) -> Widths {
        Widths {
            h: f64::from(arch.hidden),
            q: arch.q_width() as f64,
            k: arch.kv_width() as f64,
            f: f64::from(arch.ffn),
            a: f64::from(arch.heads),
        }
    }
}

/// The adapters as one layer sees them.
#[derive(Clone, Copy, Default)]
struct Lora {
    rank: f64,
    dropout: bool,
    /// QLoRA's 4-bit linears keep their inputs (bitsandbytes before 0.43.2).
    keeps_inputs: bool,
    /// Adapted outputs of the fused query/key/value projection: 2 (q and v),
    /// 3, or 0.
    qkv: u32,
    proj: bool,
    mlp: bool,
}

impl Lora {
    fn of(adapters: &Adapters) -> Lora {
        let (qkv, proj, mlp) = match adapters.targets {
            Targets::Qv => (2, false, false),
            Targets::Attn => (3, true, false),
            Targets::Mlp => (0, false, true),
            Targets::All => (3, true, true),
        };
        Lora {
            rank: f64::from(adapters.rank),
            dropout: adapters.dropout,
            keeps_inputs: adapters.keeps_base_inputs,
            qkv,
            proj,
            mlp,
        }
    }
}

/// One tensor several layers may read: kept once if any reader keeps it.
#[derive(Clone, Copy, Default)]
struct Shared {
    kept: bool,
}

/// What one layer keeps, bytes a token (the soft-capped attention's
/// per-sequence terms for `s` tokens a sequence), with `input_grad` whether
/// its input needs a gradient; `lora` `None` for full training.
fn layer_bytes(arch: &Architecture, lora: Option<Lora>, input_grad: bool, s: f64) -> f64 {
    let Widths { h, q, k, f, a } = Widths::of(arch);
    let full = lora.is_none();
    let l = lora.unwrap_or_default();
    let r = l.rank;
    // What a linear's input costs: `width` values read by an adapter (its
    // dropout's mask and output, or the input itself, shared) and kept for
    // a trained weight or an old bitsandbytes' 4-bit product.
    let adapter = |width: f64, grad: bool, input: &mut Shared| -> f64 {
        if l.dropout {
            (if grad { width } else { 0.0 }) + E * width + E * r
        } else {
            input.kept = true;
            E * r
        }
    };
    let base_keeps = |grad: bool| full || (l.keeps_inputs && grad);
    let shared = |s: Shared, width: f64| if s.kept { E * width } else { 0.0 };
    let mut kept = norm_bytes(arch, full, input_grad);
    // The attention on the first norm's output.
    let mut x1 = Shared {
        kept: base_keeps(input_grad),
    };
    if l.qkv > 0 {
        kept += adapter(h, input_grad, &mut x1) + E * r * f64::from(l.qkv - 1);
        if l.qkv == 2 {
            kept += E * (q + k);
        }
    }
    let qkv_grad = input_grad || l.qkv > 0;
    if qkv_grad {
        let value = if arch.kv_heads == arch.heads || arch.kv_heads == 1 {
            E * (q + 2.0 * k)
        } else {
            E * q
        };
        let core = if arch.logit_softcap {
            a * s * (2.0 * E + 4.0)
        } else {
            E * q + 4.0 * a
        };
        kept += 2.0 * E * q + value + core;
    }
    let mut y = Shared {
        kept: base_keeps(qkv_grad),
    };
    if l.proj {
        kept += adapter(q, qkv_grad, &mut y);
    }
    kept += shared(y, q);
    let attention_grad = qkv_grad || l.proj;
    if arch.sandwich_norms {
        kept += norm_bytes(arch, full, attention_grad);
    }
    // The MLP on the first norm's output (a parallel block) or the second's.
    let (mlp_grad, mut x2) = if arch.parallel_block {
        (input_grad, x1)
    } else {
        let grad = input_grad || attention_grad;
        kept += shared(x1, h) + norm_bytes(arch, full, grad);
        (
            grad,
            Shared {
                kept: base_keeps(grad),
            },
        )
    };
    let inputs = match arch.mlp {
        Mlp::Gelu => 1.0,
        Mlp::SwiGlu => 2.0,
    };
    if l.mlp {
        for _ in 0..inputs as u32 {
            kept += adapter(h, mlp_grad, &mut x2);
        }
    }
    kept += shared(x2, h);
    let hidden_grad = mlp_grad || l.mlp;
    if hidden_grad {
        kept += E * f * (2.0 * inputs - 1.0);
    }
    let mut product = Shared {
        kept: base_keeps(hidden_grad),
    };
    if l.mlp {
        kept += adapter(f, hidden_grad, &mut product);
    }
    kept += shared(product, f);
    if arch.sandwich_norms {
        kept += norm_bytes(arch, full, hidden_grad);
    }
    kept
}

/// The inputs one layer's 4-bit linears keep as bitsandbytes before 0.43.2
/// keeps them, bytes a token: each linear's input that needs a gradient
/// (`ctx.tensors = (A, B)` in `MatMul4Bit.forward`), each tensor once — the
/// query/key/value projection's (h), the attention output's (q), the MLP's
/// (h, the first norm's under a parallel block) and its hidden product's
/// (f). Held as attributes of the autograd graph's nodes, not as saved
/// tensors, they outlive the backward pass: the graph lives as long as the
/// loop's `loss` (`finetune/lora.py` reassigns it only after the next
/// step's loss).
fn carried_input_bytes(arch: &Architecture, l: Lora, input_grad: bool) -> f64 {
    let Widths { h, q, f, .. } = Widths::of(arch);
    let qkv_grad = input_grad || l.qkv > 0;
    let attention_grad = qkv_grad || l.proj;
    let mlp_grad = input_grad || (!arch.parallel_block && attention_grad);
    let hidden_grad = mlp_grad || l.mlp;
    let mut bytes = 0.0;
    for (grad, width) in [(input_grad, h), (qkv_grad, q), (hidden_grad, f)] {
        if grad {
            bytes += E * width;
        }
    }
    if !arch.parallel_block && mlp_grad {
        bytes += E * h;
    }
    bytes
}

/// What a norm keeps, bytes a token: nothing when its input needs no
/// gradient; LayerNorm its input and fp32 statistics; LitGPT's RMSNorm its
/// input upcast to fp32 and inverse root, and, when its weight trains
/// (`full`), the fp32 normalised tensor.
fn norm_bytes(arch: &Architecture, full: bool, grad: bool) -> f64 {
    if !grad {
        return 0.0;
    }
    let h = f64::from(arch.hidden);
    match arch.norm {
        Norm::LayerNorm => E * h + 8.0,
        Norm::RmsNorm => 4.0 * h + 4.0 + if full { 4.0 * h } else { 0.0 },
    }
}

/// The loss's target rows of each head chunk, in the order LitGPT computes
/// them: 128 tokens of each sequence a chunk, the last one's last token
/// without a target; full training's flattened targets in rows of 128.
fn loss_chunks(setup: &ActivationSetup, lora: bool) -> Vec<f64> {
    let (s, b) = (setup.seq_len, setup.micro_batch);
    if lora {
        let chunks = s.div_ceil(CHUNK);
        (0..chunks)
            .map(|i| {
                let tokens = CHUNK.min(s - i * CHUNK) - u32::from(i + 1 == chunks);
                f64::from(tokens) * f64::from(b)
            })
            .collect()
    } else {
        let rows = u64::from(s - 1) * u64::from(b);
        let chunk = u64::from(CHUNK);
        (0..rows.div_ceil(chunk))
            .map(|i| chunk.min(rows - i * chunk) as f64)
            .collect()
    }
}

/// What one step keeps for backward under LitGPT, per GPU, training every
/// parameter or, with `adapters`, LoRA's on a frozen base (the module's
/// accounting). `per_layer` is one layer (with LoRA one after the first),
/// `adapters` left at zero: the adapters' own are counted in the layers.
pub fn litgpt_activation_memory(
    arch: &Architecture,
    setup: &ActivationSetup,
    adapters: Option<&Adapters>,
) -> ActivationMemory {
    let lora = adapters.map(Lora::of);
    let (s, b) = (f64::from(setup.seq_len), f64::from(setup.micro_batch));
    let (sb, h, v) = (s * b, f64::from(arch.hidden), f64::from(arch.vocab));
    let layers = f64::from(arch.layers);
    let later = layer_bytes(arch, lora, true, s) * sb;
    let first = layer_bytes(arch, lora, lora.is_none(), s) * sb;
    let full = lora.is_none();
    let keeps = lora.is_some_and(|l| l.keeps_inputs);
    let targets: f64 = loss_chunks(setup, !full).iter().sum();
    let head_input = if full || keeps { E * h * sb } else { 0.0 };
    let softcapped = if full && arch.logit_softcap {
        E * v * sb
    } else {
        0.0
    };
    let copied_targets = if setup.micro_batch > 1 {
        8.0 * targets
    } else {
        0.0
    };
    let outside = norm_bytes(arch, full, true) * sb
        + head_input
        + LOGIT * v * sb
        + softcapped
        + LOGIT * v * targets
        + copied_targets;
    if setup.recompute == Recompute::Full {
        let inputs = layers * E * h * sb;
        return ActivationMemory::without_adapters(later, inputs, outside, None);
    }
    ActivationMemory::without_adapters(later, first + (layers - 1.0) * later, outside, None)
}

/// What LitGPT's step holds beyond the kept activations: at the loss, the
/// copy of the last chunk's logits without their last token (more than one
/// sequence; full training's whole shifted logits); in the loss's backward,
/// chunk by chunk from the last, the gradient reaching the log-softmax and
/// its own (2 × 4v a row) while the chunks already done have freed their
/// log-softmax; full training then the shifted logits' gradient gathered
/// from the chunks and the logits' own (4v a token beyond the freed
/// log-softmax); under full recomputation, one layer rebuilt. Under QLoRA
/// with bitsandbytes before 0.43.2, the loss also meets the previous step's
/// 4-bit inputs ([`carried_input_bytes`], the output head's too), which its
/// graph still holds until the new loss replaces it: every step at the
/// planned length, as packed or truncated batches run (the config hub's
/// Alpaca2k at 512 tokens: `scripts/measure-litgpt-qlora`). Without an
/// `earlier_step` at that length (lit-gpt's loop of 2023 runs the longest
/// example first, the shorter ones after it peaking lower) neither those
/// inputs nor the earlier step's fp32 logits are there.
pub fn litgpt_step_transients(
    arch: &Architecture,
    setup: &ActivationSetup,
    adapters: Option<&Adapters>,
    kept: &ActivationMemory,
    earlier_step: bool,
) -> StepTransients {
    let full = adapters.is_none();
    let v = f64::from(arch.vocab);
    let (s, b) = (f64::from(setup.seq_len), f64::from(setup.micro_batch));
    let chunks = loss_chunks(setup, !full);
    let targets: f64 = chunks.iter().sum();
    let copy = match (full, setup.micro_batch > 1) {
        (_, false) => 0.0,
        (true, true) => LOGIT * v * targets,
        (false, true) => LOGIT * v * chunks.last().copied().unwrap_or(0.0),
    };
    let mut freed = 0.0;
    let mut backward: f64 = 0.0;
    for rows in chunks.iter().rev() {
        backward = backward.max(2.0 * LOGIT * v * rows - freed);
        freed += LOGIT * v * rows;
    }
    if full {
        backward = backward.max(LOGIT * v * s * b);
    }
    let carried = match adapters.map(Lora::of) {
        Some(l) if l.keeps_inputs && earlier_step => {
            let layers = f64::from(arch.layers);
            let tokens = s * b;
            let head = E * f64::from(arch.hidden);
            tokens
                * (carried_input_bytes(arch, l, false)
                    + (layers - 1.0) * carried_input_bytes(arch, l, true)
                    + head)
        }
        _ => 0.0,
    };
    // QLoRA's dequantised weight, counted in what is kept, lives only while
    // a 4-bit linear runs: not at the loss, but at the output head's last
    // chunk, where the logits are still the model's 16-bit ones (Fabric
    // turns them to fp32 once the forward returns, the loss then
    // log-softmaxes them) and the loop still holds the last step's fp32
    // logits, as large as this step's.
    let working = adapters.map_or(0, |a| a.working_bytes) as f64;
    let at_loss = copy + carried - working;
    // The backward pass runs every chunk's loss, then every chunk's fp32
    // cast (autograd takes the latest node first), then the head: the loss's
    // gradients meet no dequantised weight, and when the head's first chunk
    // dequantises its weight every log-softmax and fp32 gradient is freed,
    // each chunk's 16-bit gradient alive instead (a LoRA model's chunked
    // head; the whole logits' under full training, counted above).
    let at_loss_backward = backward - working;
    let at_head_backward = match full {
        true => f64::MIN,
        false => (E - LOGIT) * v * targets,
    };
    // The earlier step's fp32 logits, as large as this step's (which the
    // kept count holds and which are not made yet at the head).
    let earlier_logits = match earlier_step {
        true => LOGIT * v * s * b,
        false => 0.0,
    };
    let at_head =
        carried + E * v * s * b + earlier_logits - LOGIT * v * s * b - LOGIT * v * targets;
    StepTransients {
        forward_end: Bytes::new(at_loss.max(at_head)),
        backward_start: Bytes::new(at_loss_backward.max(at_head_backward)),
        recomputed_layer: (setup.recompute == Recompute::Full).then_some(kept.per_layer),
    }
}

#[cfg(test)]
mod tests {
    use crate::input::field::Field;
    use crate::input::InputErrorKind;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// The field each refusal names, for a link that keeps `framework=litgpt`
    /// but one setting LitGPT's accounting does not count.
    fn refusal(query: &str) -> Option<(Field, InputErrorKind)> {
        let decoded = crate::input::link::decode(&format!("v=3&{query}"));
        match decoded.problems.first() {
            Some(problem) => problem.error.as_ref().map(|e| (e.field, e.kind)),
            None => decoded.config.check().err().map(|e| (e.field, e.kind)),
        }
    }

    /// What `framework=litgpt` refuses, each at its field: another precision,
    /// a tied head, fp32 adapters, selective recomputation, dropout, a
    /// mixture of experts; and what it counts.
    #[wasm_bindgen_test(unsupported = test)]
    fn litgpt_refuses_what_it_does_not_count() {
        let base = "model=llama2-7b&gpus=1&framework=litgpt";
        let not_with = |field, other| Some((field, InputErrorKind::NotWith(other)));
        assert_eq!(
            refusal(&format!("{base}&dtype=bf16")),
            not_with(Field::Framework, Field::Precision)
        );
        assert_eq!(
            refusal(&format!("{base}&dtype=bf16-pure&tied=1")),
            not_with(Field::Framework, Field::Tied)
        );
        assert_eq!(
            refusal(&format!("{base}&dtype=bf16-pure&method=lora")),
            not_with(Field::Framework, Field::AdapterDtype)
        );
        assert_eq!(
            refusal(&format!("{base}&dtype=bf16-pure&recompute=selective")),
            not_with(Field::Recompute, Field::Framework)
        );
        assert_eq!(
            refusal(&format!("{base}&dtype=bf16-pure&dropout=0.1")),
            not_with(Field::Dropout, Field::Framework)
        );
        assert_eq!(
            refusal("model=mixtral-8x7b&gpus=8&dtype=bf16-pure&framework=litgpt"),
            Some((Field::Framework, InputErrorKind::NotCovered))
        );
        assert_eq!(refusal(&format!("{base}&dtype=bf16-pure")), None);
        assert_eq!(
            refusal(&format!(
                "{base}&dtype=bf16-pure&method=lora&adapter_dtype=model"
            )),
            None
        );
    }
}
