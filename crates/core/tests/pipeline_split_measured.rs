//! The page's split of a model's layers over the pipeline's (virtual)
//! stages against Megatron-LM's own (`scripts/measure-pipeline-split`,
//! `measured/pipeline-split.json`): megatron-core's
//! `get_transformer_layer_offset` and `get_num_layers_to_build` for every
//! rank and virtual stage, and what its `TransformerConfig` refuses. Even,
//! uneven first and last stages, the embedding and loss counted in the split,
//! and pipeline layouts, each with and without interleaving.

mod common;

use serde::Deserialize;
use vram_core::input::link::decode;

#[derive(Deserialize)]
struct Case {
    layers: u32,
    pp: u32,
    vpp: u32,
    pp_first: Option<u32>,
    pp_last: Option<u32>,
    pp_embedding: bool,
    pp_loss: bool,
    pp_layout: Option<String>,
    mtp: u32,
    why: String,
    refused: Option<String>,
    /// `[offset, layers]` of each virtual stage of each rank.
    chunks: Option<Vec<Vec<[u32; 2]>>>,
}

#[derive(Deserialize)]
struct Fixture {
    megatron_core: String,
    cases: Vec<Case>,
}

/// The page's link for a case: Llama 2 7B's shape with the case's layers,
/// one GPU per pipeline stage.
fn link(case: &Case) -> String {
    let mut query = format!(
        "model=llama2-7b&layers={}&mtp={}&gpus={}&pp={}&vpp={}",
        case.layers, case.mtp, case.pp, case.pp, case.vpp
    );
    for (key, value) in [("pp_first", case.pp_first), ("pp_last", case.pp_last)] {
        if let Some(n) = value {
            query.push_str(&format!("&{key}={n}"));
        }
    }
    for (key, on) in [
        ("pp_embedding", case.pp_embedding),
        ("pp_loss", case.pp_loss),
    ] {
        if on {
            query.push_str(&format!("&{key}=1"));
        }
    }
    if let Some(layout) = &case.pp_layout {
        query.push_str(&format!("&pp_layout={layout}"));
    }
    query
}

/// The keys of a layout's split, where a refusal is named.
const SPLIT_KEYS: [&str; 7] = [
    "pp",
    "vpp",
    "pp_first",
    "pp_last",
    "pp_embedding",
    "pp_loss",
    "pp_layout",
];

#[test]
fn every_virtual_stage_builds_the_layers_megatron_builds() {
    let fixture: Fixture = common::fixture(include_str!("measured/pipeline-split.json"));
    assert_eq!(fixture.megatron_core, "0.19.2");
    let (mut built, mut refused) = (0, 0);
    for case in &fixture.cases {
        let query = link(case);
        let decoded = decode(&query);
        let Some(chunks) = &case.chunks else {
            // Megatron-LM refuses it: the page refuses it at a key of the split.
            refused += 1;
            assert!(
                decoded
                    .problems
                    .iter()
                    .any(|p| SPLIT_KEYS.contains(&p.key.as_str())),
                "{}: Megatron-LM refuses it ({:?}), the page does not: {query}",
                case.why,
                case.refused
            );
            continue;
        };
        built += 1;
        assert!(
            decoded.problems.is_empty(),
            "{}: {query}: {:?}",
            case.why,
            decoded.problems
        );
        let layout = decoded.config.runtime.layout;
        for (rank, row) in chunks.iter().enumerate() {
            let rank = rank as u32;
            let mut here = 0;
            for (chunk, &[offset, count]) in row.iter().enumerate() {
                let span = layout.chunk_span(chunk as u32, rank, case.layers);
                assert_eq!(
                    span,
                    (offset, count),
                    "{}: rank {rank}, virtual stage {chunk}",
                    case.why
                );
                for layer in offset..offset + count {
                    assert_eq!(
                        layout.rank_of_layer(layer, case.layers),
                        rank,
                        "{}",
                        case.why
                    );
                }
                here += count;
            }
            assert_eq!(layout.stage_layers(rank, case.layers), here, "{}", case.why);
        }
    }
    assert!(
        built >= 15 && refused >= 12,
        "{built} built, {refused} refused"
    );
}
