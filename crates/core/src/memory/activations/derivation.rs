//! The activations' formula written out with a configuration's own numbers:
//! Korthikanti et al.'s per-layer terms, generalised (the symbols, then the
//! same with the numbers), as the page and the CLI show under the table.

use super::*;

/// [`activation_derivation`] for an architecture beyond Korthikanti's: the
/// attention's values per token written `A` (see [`attention_term`]), dense
/// layers `L_d` and mixture-of-experts layers `L_e` apart, each with its
/// numbers; `t` experts per token, `c` the capacity factor, `n` shared
/// experts, `E` routed experts. Gated DeltaNet layers (`L_dG`, `L_eG`) keep
/// `G` values in place of `A`, `g` fp32 bytes a token and no scores.
pub(super) fn general_derivation(
    arch: &Architecture,
    setup: &ActivationSetup,
    unit: MemoryUnit,
) -> String {
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let e_text = vram_shared::format::format_number(setup.bytes_per_value);
    let a_text = vram_shared::decimal::shortest_decimal(attention_term(arch));
    let (dropout_symbols, dropout_numbers) = dropout_terms(arch, setup);
    let (scores_symbols, scores_numbers) = scores_terms(arch, setup);
    let tail_symbols = format!("{dropout_symbols}{scores_symbols}");
    let tail_numbers = format!("{dropout_numbers}{scores_numbers}");
    let (fp8_dense, fp8_sparse) = fp8_terms(arch, setup);
    // Each kind of layer's terms: its mixer's values (`A`, or with Gated
    // DeltaNet `G` and `g` fp32 bytes, no scores: see [`linear_values`]),
    // its MLP's, and the rest.
    let g_text = vram_shared::decimal::shortest_decimal(norm_inputs(arch) + linear_values(arch));
    let (dense_mlp, sparse_mlp) = mlp_terms(arch, setup);
    let linear_tail = (
        format!(" + g·s·b{dropout_symbols}"),
        format!(
            " + {} × {s} × {b}{dropout_numbers}",
            linear_fp32_bytes(arch) as u64
        ),
    );
    let no_fp8 = (String::new(), String::new());
    let bracket = |linear: bool, moe_layer: bool| {
        let (mlp, fp8) = match moe_layer {
            true => (&sparse_mlp, &fp8_sparse),
            false => (&dense_mlp, &fp8_dense),
        };
        let (mixer, number, fp8, tail) = match linear {
            true => ("G", &g_text, &no_fp8, &linear_tail),
            false => (
                "A",
                &a_text,
                fp8,
                &(tail_symbols.clone(), tail_numbers.clone()),
            ),
        };
        // A frozen base's linears keep no input (LoRA, QLoRA): `− e·s·b·(…)`.
        let unkept = frozen_terms(arch, setup, moe_layer, linear);
        // Selective recomputation's modules: `R` bytes a token rebuilt.
        let rebuilt = rebuilt_terms(arch, setup, moe_layer, linear);
        (
            format!(
                "e·s·b·({mixer} + {}{}{}{}{}",
                mlp.0, fp8.0, unkept.0, rebuilt.0, tail.0
            ),
            format!(
                "{e_text} × {s} × {b} × ({number} + {}{}{}{}{}",
                mlp.1, fp8.1, unkept.1, rebuilt.1, tail.1
            ),
        )
    };
    // Each kind of layer: its count, name, terms and bytes a token (the
    // widest is rebuilt under full recomputation, as [`stage_activations`]).
    let present = layer_kinds(arch, setup)
        .into_iter()
        .map(|(count, name, moe, linear, bytes)| (count, name, bracket(linear, moe), bytes));
    let (symbols, numbers) = match setup.recompute {
        Recompute::Full => {
            let widest = present
                .reduce(|a, b| if b.3 > a.3 { b } else { a })
                .map(|kind| kind.2)
                .unwrap_or_default();
            recomputed_terms(setup, (arch.layers, h), widest)
        }
        _ => sum_of_kinds(present),
    };
    with_outside_layers(arch, setup, (symbols, numbers), unit)
}

/// A value's two copies' bytes, `2e`, with dropout's mask byte `(2e + 1)`:
/// the symbol and the number.
fn two_e_terms(setup: &ActivationSetup) -> (&'static str, String) {
    let (e, mask) = (setup.bytes_per_value, u8::from(setup.dropout));
    let symbol = if setup.dropout { "(2e + 1)" } else { "2e" };
    let number = vram_shared::format::format_number(2.0 * e + f64::from(mask));
    (symbol, number)
}

/// A layer's dropout masks, one byte a value, `2·s·b·h`, as symbols and
/// numbers (nothing without dropout).
fn dropout_terms(arch: &Architecture, setup: &ActivationSetup) -> (String, String) {
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    match setup.dropout {
        true => (" + 2·s·b·h".to_string(), format!(" + 2 × {s} × {b} × {h}")),
        false => Default::default(),
    }
}

/// A layer's attention scores where they are kept (no FlashAttention, the
/// core attention not rebuilt), `2e·a·s²·b` (`(2e + 1)·a·s²·b` with
/// dropout's mask), as symbols and numbers (nothing otherwise).
fn scores_terms(arch: &Architecture, setup: &ActivationSetup) -> (String, String) {
    let (s, b) = (setup.seq_len, setup.micro_batch);
    let (two_e, e2_text) = two_e_terms(setup);
    match setup.scores_counted() {
        true => (
            format!(" + {two_e}·a·s²·b"),
            format!(" + {e2_text} × {} × {s}² × {b}", arch.heads),
        ),
        false => Default::default(),
    }
}

/// The whole formula from the layers' `(symbols, numbers)`: what lies
/// outside them added (the final norm's and the output head's inputs,
/// `2e·s·b·h`, with dropout's mask `(2e + 1)`; the logits and the loss's
/// log-softmax, [`logit_symbol`]`·s·b·v`; multi-token prediction's `D`
/// layers of `P` bytes a token each), then the total of
/// [`activation_memory`] in `unit`.
fn with_outside_layers(
    arch: &Architecture,
    setup: &ActivationSetup,
    (symbols, numbers): (String, String),
    unit: MemoryUnit,
) -> String {
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let (two_e, e2_text) = two_e_terms(setup);
    let total = activation_memory(arch, setup).total;
    let (mtp_symbols, mtp_numbers) = match arch.mtp_layers {
        0 => Default::default(),
        n => (
            " + D·s·b·P".to_string(),
            format!(
                " + {n} × {s} × {b} × {}",
                vram_shared::decimal::shortest_decimal(mtp_layer_bytes(
                    arch,
                    setup,
                    &Layout::SINGLE
                ))
            ),
        ),
    };
    format!(
        "{symbols} + {two_e}·s·b·h + {}·s·b·v{mtp_symbols} = {numbers} + {e2_text} × {s} × {b} × {h} + {} × {s} × {b} × {}{mtp_numbers} B = {}",
        logit_symbol(arch, setup.loss),
        vram_shared::format::format_number(logit_bytes(arch, setup.bytes_per_value, setup.loss)),
        arch.vocab,
        vram_shared::format::format_bytes(total, unit)
    )
}

/// FP8's corrections to a dense layer's terms and a mixture layer's, each
/// `(symbols, numbers)` (nothing without FP8): the linears' inputs kept in
/// one byte rather than `e`, the output projection's input added.
fn fp8_terms(arch: &Architecture, setup: &ActivationSetup) -> ((String, String), (String, String)) {
    let number = vram_shared::format::format_number;
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let e_text = number(setup.bytes_per_value);
    let moe = arch.moe;
    // FP8: the linears' inputs in one byte (`o` the output projection's).
    let o = output_width(arch) as u64;
    // A block-scaled recipe's scales: each FP8 value `1 + c` bytes.
    let (less, more) = match setup.fp8_scales > 0.0 {
        false => (String::new(), String::new()),
        true => {
            let c = vram_shared::decimal::shortest_decimal(setup.fp8_scales);
            (format!("({e_text} − 1 − {c}) × "), format!("(1 + {c}) × "))
        }
    };
    let (less_symbol, more_symbol) = match setup.fp8_scales > 0.0 {
        false => ("", ""),
        true => ("(e − 1 − c)·", "(1 + c)·"),
    };
    match setup.fp8 {
        false => Default::default(),
        true => (
            (
                format!(" − {less_symbol}s·b·(2h + f) + {more_symbol}s·b·o"),
                format!(
                    " − {less}{s} × {b} × (2 × {h} + {}) + {more}{s} × {b} × {o}",
                    arch.ffn
                ),
            ),
            (
                format!(" − {less_symbol}s·b·(h + t·c·(h + f_e) + n·f_s) + {more_symbol}s·b·o"),
                format!(
                    " − {less}{s} × {b} × ({h} + {} × {} × ({h} + {}) + {} × {}) + {more}{s} × {b} × {o}",
                    moe.top_k,
                    number(setup.capacity),
                    moe.expert_ffn,
                    moe.shared_experts,
                    moe.shared_ffn
                ),
            ),
        ),
    }
}

/// A dense layer's MLP terms and a mixture layer's (its routed and shared
/// experts, and the router's `4·s·b·E`), each `(symbols, numbers)` closing
/// the layer's `e·s·b·(…)`.
fn mlp_terms(arch: &Architecture, setup: &ActivationSetup) -> ((String, String), (String, String)) {
    let number = vram_shared::format::format_number;
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let m = mlp_multiplier(arch.mlp);
    let moe = arch.moe;
    let dense_mlp = ("m·f)".to_string(), format!("{m} × {})", arch.ffn));
    let sparse_mlp = (
        "t·c·(h + m·f_e) + n·m·f_s) + 4·s·b·E".to_string(),
        format!(
            "{} × {} × ({h} + {m} × {}) + {} × {m} × {}) + 4 × {s} × {b} × {}",
            moe.top_k,
            number(setup.capacity),
            moe.expert_ffn,
            moe.shared_experts,
            moe.shared_ffn,
            moe.experts,
        ),
    );
    (dense_mlp, sparse_mlp)
}

/// The inputs a frozen base's linears do not keep (LoRA, QLoRA), in one
/// layer (a mixture's with `moe_layer`, Gated DeltaNet's with `linear`):
/// `(symbols, numbers)` of `− e·s·b·(…)`, or nothing when none is frozen.
fn frozen_terms(
    arch: &Architecture,
    setup: &ActivationSetup,
    moe_layer: bool,
    linear: bool,
) -> (String, String) {
    let number = vram_shared::format::format_number;
    let (s, b, h) = (setup.seq_len, setup.micro_batch, arch.hidden);
    let e_text = number(setup.bytes_per_value);
    let (frozen, moe) = (setup.frozen, arch.moe);
    let mut symbols: Vec<&str> = Vec::new();
    let mut numbers: Vec<String> = Vec::new();
    if frozen.qkv && !linear {
        symbols.push("h");
        numbers.push(h.to_string());
    }
    if frozen.mlp_in {
        match moe_layer {
            false => {
                symbols.push("h");
                numbers.push(h.to_string());
            }
            true => {
                symbols.push("t·c·h");
                numbers.push(format!("{} × {} × {h}", moe.top_k, number(setup.capacity)));
            }
        }
    }
    if frozen.mlp_out {
        match moe_layer {
            false => {
                symbols.push("f");
                numbers.push(arch.ffn.to_string());
            }
            true => {
                symbols.push("t·c·f_e + n·f_s");
                numbers.push(format!(
                    "{} × {} × {} + {} × {}",
                    moe.top_k,
                    number(setup.capacity),
                    moe.expert_ffn,
                    moe.shared_experts,
                    moe.shared_ffn
                ));
            }
        }
    }
    match symbols.is_empty() {
        true => (String::new(), String::new()),
        false => (
            format!(" − e·s·b·({})", symbols.join(" + ")),
            format!(" − {e_text} × {s} × {b} × ({})", numbers.join(" + ")),
        ),
    }
}

/// Selective recomputation's term in one layer (a mixture's with
/// `moe_layer`, Gated DeltaNet's with `linear`): `(symbols, numbers)` of
/// `− s·b·R` ([`rebuilt_bytes`]), or nothing when no module rebuilds any.
fn rebuilt_terms(
    arch: &Architecture,
    setup: &ActivationSetup,
    moe_layer: bool,
    linear: bool,
) -> (String, String) {
    let (s, b) = (setup.seq_len, setup.micro_batch);
    let rebuilt = rebuilt_bytes(arch, setup, moe_layer, linear);
    match rebuilt > 0.0 {
        true => (
            " − s·b·R".to_string(),
            format!(
                " − {s} × {b} × {}",
                vram_shared::decimal::shortest_decimal(rebuilt)
            ),
        ),
        false => Default::default(),
    }
}

/// The kinds of layer present (`L_d`, `L_dG`, `L_e`, `L_eG`), in that
/// order: each with its count, name, whether a mixture's, whether Gated
/// DeltaNet's, and its bytes a token (an attention layer's with its scores).
fn layer_kinds(
    arch: &Architecture,
    setup: &ActivationSetup,
) -> Vec<(u32, &'static str, bool, bool, f64)> {
    let s = setup.seq_len;
    let (e, mask) = (setup.bytes_per_value, u8::from(setup.dropout));
    let mut counts = [0u32; 4];
    for i in 0..arch.layers {
        let kind =
            2 * usize::from(i >= arch.dense_layer_count()) + usize::from(arch.is_linear_layer(i));
        counts[kind] += 1;
    }
    let scores = match setup.scores_counted() {
        true => (2.0 * e + f64::from(mask)) * f64::from(arch.heads) * f64::from(s),
        false => 0.0,
    };
    // The kinds present, in one loop (each kind's terms written once).
    let mut present = Vec::new();
    for (kind, name) in ["L_d", "L_dG", "L_e", "L_eG"].into_iter().enumerate() {
        if counts[kind] == 0 {
            continue;
        }
        let (moe, linear) = (kind >= 2, kind % 2 == 1);
        let v = layer_values(arch, setup, moe, linear);
        let bytes = v.outside + v.inside + v.gathered + if linear { 0.0 } else { scores };
        present.push((counts[kind], name, moe, linear, bytes));
    }
    present
}

/// Every kind's terms summed, each `name·[symbols]` and `count × [numbers]`
/// joined by ` + `: the layers' part of the formula without full
/// recomputation.
fn sum_of_kinds(
    kinds: impl Iterator<Item = (u32, &'static str, (String, String), f64)>,
) -> (String, String) {
    let parts: Vec<(String, String)> = kinds
        .map(|(count, name, (sym, num), _)| {
            (format!("{name}·[{sym}]"), format!("{count} × [{num}]"))
        })
        .collect();
    (
        parts
            .iter()
            .map(|p| p.0.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
        parts
            .iter()
            .map(|p| p.1.as_str())
            .collect::<Vec<_>>()
            .join(" + "),
    )
}

/// Bytes a token of one layer (a mixture's with `moe`, Gated DeltaNet's
/// with `linear`) that selective recomputation's modules rebuild rather than
/// keep, its scores aside ([`RecomputeModule`]): `R` in the formula.
fn rebuilt_bytes(arch: &Architecture, setup: &ActivationSetup, moe: bool, linear: bool) -> f64 {
    let total = |v: LayerValues| v.outside + v.inside + v.gathered;
    let unrebuilt = ActivationSetup {
        modules: RecomputeModules::NONE,
        ..*setup
    };
    total(layer_values(arch, &unrebuilt, moe, linear))
        - total(layer_values(arch, setup, moe, linear))
}

/// Full recomputation's terms over `layers` layers of one chunk, one
/// layer's `(symbols, numbers)` given: each checkpoint's input and the layers
/// rebuilt at once (`L·e·s·b·h + [layer]` per layer, `⌈L/N⌉·e·s·b·h +
/// N·[layer]` in groups of N), or with the block method N inputs and the
/// `L − N` layers stored whole, the larger moment.
fn recomputed_terms(
    setup: &ActivationSetup,
    (layers, h): (u32, u32),
    (symbols, numbers): (String, String),
) -> (String, String) {
    let number = vram_shared::format::format_number;
    let (e, s, b) = (
        number(setup.bytes_per_value),
        setup.seq_len,
        setup.micro_batch,
    );
    let kept = setup.checkpointing.chunk(layers);
    // What multiplies the inputs and the layers' terms, in symbols and in numbers.
    let (inputs, whole, count) = match (setup.checkpointing.method, kept) {
        (
            _,
            ChunkCheckpoints {
                stored: 0,
                rebuilt: 1,
                ..
            },
        ) => ("L", "", 1),
        (RecomputeMethod::Uniform, _) => ("⌈L/N⌉", "N·", kept.rebuilt),
        (RecomputeMethod::Block, _) => ("N", "(L − N)·", kept.stored),
    };
    let times = match count {
        1 => String::new(),
        n => format!("{n} × "),
    };
    (
        format!("{inputs}·e·s·b·h + {whole}[{symbols}]"),
        format!(
            "{} × {e} × {s} × {b} × {h} + {times}[{numbers}]",
            kept.inputs
        ),
    )
}

/// The formula of [`activation_memory`] with `architecture`'s and `setup`'s own
/// numbers, for a learner to follow, the total in `unit`. For Llama-3-8B at
/// 2,048 tokens with FlashAttention:
///
/// ```
/// use vram_core::memory::activations::{
///     activation_derivation, ActivationSetup, Checkpointing, FrozenInputs, Loss, Recompute,
/// };
/// use vram_core::model::presets::model_preset;
/// use vram_core::format::MemoryUnit;
///
/// let llama3 = model_preset("llama3-8b").unwrap().architecture;
/// let setup = ActivationSetup {
///     seq_len: 2048,
///     micro_batch: 1,
///     bytes_per_value: 2.0,
///     flash_attention: true,
///     recompute: Recompute::None,
///     checkpointing: Checkpointing::EVERY_LAYER,
///     modules: Default::default(),
///     dropout: false,
///     capacity: 1.0,
///     fp8: false,
///     fp8_scales: 0.0,
///     frozen: FrozenInputs::NONE,
///     loss: Loss::Fused,
/// };
/// assert_eq!(
///     activation_derivation(&llama3, &setup, MemoryUnit::Gb),
///     "L·[e·s·b·(6h + 2k + m·f)] + 2e·s·b·h + (e + 4)·s·b·v = \
///      32 × [2 × 2048 × 1 × (6 × 4096 + 2 × 1024 + 3 × 14336)] + \
///      4 × 2048 × 1 × 4096 + 6 × 2048 × 1 × 128256 B = 10.74 GB"
/// );
/// ```
///
/// `L` layers, `e` bytes per value, `s` tokens, `b` micro-batch, `h` hidden size,
/// `k` key/value width, `m` 3 for SwiGLU or 2 for GELU ([`mlp_multiplier`]), `f` FFN width, `a` heads,
/// `v` vocabulary. Dropout adds its masks (`2·s·b·h`, the `+ 1` of `(2e + 1)`);
/// stored attention scores add `(2e + 1)·a·s²·b`; full recomputation stores
/// `L·e·s·b·h` and one layer's working set instead of `L` layers.
pub fn activation_derivation(
    architecture: &Architecture,
    setup: &ActivationSetup,
    unit: MemoryUnit,
) -> String {
    let (s, b, h) = (setup.seq_len, setup.micro_batch, architecture.hidden);
    let m = mlp_multiplier(architecture.mlp);
    let e_text = vram_shared::format::format_number(setup.bytes_per_value);
    // Modules beyond the core attention take the general formula's `R`.
    let beyond_core_attention = ActivationSetup {
        modules: RecomputeModules(setup.modules.0 & !RecomputeModules::CORE_ATTENTION.0),
        ..*setup
    };
    if !is_plain(architecture)
        || setup.fp8_scales > 0.0
        || setup.frozen != FrozenInputs::NONE
        || rebuilt_bytes(architecture, &beyond_core_attention, false, false) > 0.0
    {
        return general_derivation(architecture, setup, unit);
    }
    // One layer's terms, symbols and numbers side by side.
    let mut symbols = String::from("e·s·b·(6h + 2k + m·f)");
    let mut numbers = format!(
        "{e_text} × {s} × {b} × (6 × {h} + 2 × {} + {m} × {})",
        architecture.kv_width(),
        architecture.ffn
    );
    let (dropout_symbols, dropout_numbers) = dropout_terms(architecture, setup);
    symbols.push_str(&dropout_symbols);
    numbers.push_str(&dropout_numbers);
    // FP8: the QKV, MLP and down projections' inputs in one byte; the
    // output projection's FP8 copy beside the attention's 16-bit output.
    // With the core attention rebuilt, the attention keeps no 16-bit copy
    // of its output: the output projection's input costs one byte, not e + 1.
    if setup.fp8 && !setup.rebuilds(RecomputeModule::CoreAttention) {
        symbols.push_str(" − s·b·(2h + f) + s·b·h");
        numbers.push_str(&format!(
            " − {s} × {b} × (2 × {h} + {}) + {s} × {b} × {h}",
            architecture.ffn
        ));
    } else if setup.fp8 {
        symbols.push_str(" − s·b·(2h + f) − (e − 1)·s·b·h");
        numbers.push_str(&format!(
            " − {s} × {b} × (2 × {h} + {}) − ({e_text} − 1) × {s} × {b} × {h}",
            architecture.ffn
        ));
    }
    let (scores_symbols, scores_numbers) = scores_terms(architecture, setup);
    symbols.push_str(&scores_symbols);
    numbers.push_str(&scores_numbers);
    let layers = architecture.layers;
    let layers_terms = match setup.recompute {
        Recompute::Full => recomputed_terms(setup, (layers, h), (symbols, numbers)),
        _ => (format!("L·[{symbols}]"), format!("{layers} × [{numbers}]")),
    };
    with_outside_layers(architecture, setup, layers_terms, unit)
}

/// The logits' term in a formula: `(e + 4)`, or `(2e + 4)` soft-capped.
pub(super) fn logit_symbol(arch: &Architecture, loss: Loss) -> &'static str {
    match (arch.logit_softcap, loss == Loss::Compiled) {
        (true, false) => "(2e + 4)",
        (false, false) => "(e + 4)",
        (true, true) => "2e",
        (false, true) => "e",
    }
}
