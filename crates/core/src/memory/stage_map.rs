//! Megatron-LM's `--pipeline-model-parallel-layout`: every virtual pipeline
//! stage's layers named, in a string such as `Et|(tt|)*30mL` (`E` the
//! embedding, `t` a transformer layer, `m` a multi-token-prediction layer,
//! `L` the loss, `|` between stages; `x*n` and `(…|)*n` repeat).
//!
//! Source: `megatron/core/transformer/pipeline_parallel_layer_layout.py`
//! (Megatron-LM core 0.15 through main of August 2026, commit d98e8a6):
//! `parse_str_to_list` reads the string (commas dropped, `(…)*n` then
//! `x*n` unrolled, split at `|`); stage `i` is virtual stage `i ÷ PP` of
//! pipeline rank `i mod PP`; `validate_layer_layout` wants the embedding
//! once and first, the loss once and last, no transformer layer after a
//! multi-token-prediction one, and those all in one rank's last virtual
//! stage; `get_layer_offset` puts a stage's layers after every earlier
//! stage's.

use core::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use vram_shared::layout::{LayoutProblem, StageRule};

/// The most virtual stages a layout may name (PP × VPP): 128 (PP 16 × VPP 8).
pub const MAX_STAGES: usize = 128;

/// The longest a layout's string may grow once its repetitions are
/// unrolled: no model has a million layers.
const MAX_UNROLLED: usize = 1 << 20;

/// A parsed `--pipeline-model-parallel-layout`: each virtual stage's
/// transformer layers, in Megatron-LM's order, and where the embedding, the
/// multi-token-prediction layers and the loss are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageMap {
    /// Transformer layers of each virtual stage, the first `stages` used.
    decoders: [u16; MAX_STAGES],
    /// How many virtual stages the layout names.
    stages: u16,
    /// The stage of the embedding.
    embedding: u16,
    /// The stage of the loss.
    loss: u16,
    /// Multi-token-prediction layers, all in `mtp_stage`.
    mtp: u16,
    /// The stage of the multi-token-prediction layers (0 without any).
    mtp_stage: u16,
}

impl StageMap {
    /// Reads Megatron-LM's layout string as `parse_str_to_list` does, and
    /// checks what `validate_layer_layout` checks without the model and PP.
    pub fn parse(text: &str) -> Result<StageMap, StageRule> {
        let text: Vec<char> = text.chars().filter(|&c| c != ',').collect();
        let text = unroll_single(&unroll_groups(&text)?)?;
        let mut map = StageMap {
            decoders: [0; MAX_STAGES],
            stages: 0,
            embedding: 0,
            loss: 0,
            mtp: 0,
            mtp_stage: 0,
        };
        // Every layer in order: E first, L last, no t after an m.
        let (mut layers, mut embeddings, mut losses) = (0usize, 0, 0);
        let mut mtp_seen = false;
        let mut last = ' ';
        for (stage, symbols) in text.split(|&c| c == '|').enumerate() {
            if stage >= MAX_STAGES {
                return Err(StageRule::TooLarge);
            }
            let here = stage as u16;
            map.stages = here + 1;
            for &symbol in symbols {
                match symbol {
                    'E' => {
                        if layers > 0 {
                            return Err(StageRule::EmbeddingFirst);
                        }
                        embeddings += 1;
                        map.embedding = here;
                    }
                    't' => {
                        if mtp_seen {
                            return Err(StageRule::DecoderAfterMtp);
                        }
                        let count = &mut map.decoders[stage];
                        *count = count.checked_add(1).ok_or(StageRule::TooLarge)?;
                    }
                    'm' => {
                        if mtp_seen && map.mtp_stage != here {
                            return Err(StageRule::MtpPlacement);
                        }
                        mtp_seen = true;
                        map.mtp += 1;
                        map.mtp_stage = here;
                    }
                    'L' => {
                        losses += 1;
                        map.loss = here;
                    }
                    _ => return Err(StageRule::Symbol),
                }
                layers += 1;
                last = symbol;
            }
        }
        if embeddings != 1 {
            return Err(StageRule::EmbeddingFirst);
        }
        if losses != 1 || last != 'L' {
            return Err(StageRule::LossLast);
        }
        Ok(map)
    }

    /// The virtual stages it names (PP × VPP).
    pub const fn stages(&self) -> u32 {
        self.stages as u32
    }

    /// The transformer layers of virtual stage `stage` (0 past the last).
    pub const fn decoders(&self, stage: u32) -> u32 {
        match stage < self.stages as u32 {
            true => self.decoders[stage as usize] as u32,
            false => 0,
        }
    }

    /// The transformer layers before virtual stage `stage`: its first
    /// layer's index (`get_layer_offset`).
    pub fn offset(&self, stage: u32) -> u32 {
        (0..stage.min(self.stages()))
            .map(|s| self.decoders(s))
            .sum()
    }

    /// Every transformer layer it names.
    pub fn total_decoders(&self) -> u32 {
        self.offset(self.stages())
    }

    /// Its multi-token-prediction layers.
    pub const fn mtp(&self) -> u32 {
        self.mtp as u32
    }

    /// The virtual stage holding the multi-token-prediction layers.
    pub const fn mtp_stage(&self) -> u32 {
        self.mtp_stage as u32
    }

    /// The checks that need the pipeline and the model
    /// (`TransformerConfig.__post_init__`, `validate_layer_layout`): `pp ×
    /// vpp` stages, the model's `layers` and `mtp` layers, the latter in the
    /// last virtual stage of their rank.
    pub fn check(&self, pp: u32, vpp: u32, layers: u32, mtp: u32) -> Result<(), LayoutProblem> {
        if self.stages() != pp.saturating_mul(vpp) {
            return Err(LayoutProblem::StageCount {
                stages: self.stages(),
                pp,
                vpp,
            });
        }
        let found = self.total_decoders();
        if found != layers {
            return Err(LayoutProblem::StageLayers { found, layers });
        }
        if self.mtp() != mtp {
            return Err(LayoutProblem::StageMtp {
                found: self.mtp(),
                mtp,
            });
        }
        if self.mtp > 0 && self.mtp_stage() / pp.max(1) + 1 != vpp {
            return Err(LayoutProblem::StageLayout(StageRule::MtpPlacement));
        }
        Ok(())
    }

    /// Stage `stage` as the layout string writes it: `E`, its transformer
    /// layers (`t`, `t*4`), its multi-token-prediction layers, `L`.
    fn stage_text(&self, stage: u16) -> String {
        let mut text = String::new();
        if stage == self.embedding {
            text.push('E');
        }
        let repeated = |text: &mut String, symbol: char, n: u16| match n {
            0 => {}
            1 => text.push(symbol),
            n => text.push_str(&format!("{symbol}*{n}")),
        };
        repeated(&mut text, 't', self.decoders[stage as usize]);
        if self.mtp > 0 && stage == self.mtp_stage {
            repeated(&mut text, 'm', self.mtp);
        }
        if stage == self.loss {
            text.push('L');
        }
        text
    }
}

/// The layout's string, runs of equal stages as `(…|)*n`:
/// `Et|(t*2|)*30mL`, which Megatron-LM reads back to the same stages.
impl fmt::Display for StageMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut runs: Vec<(String, u32)> = Vec::new();
        for stage in 0..self.stages {
            let text = self.stage_text(stage);
            match runs.last_mut() {
                Some((last, n)) if *last == text => *n += 1,
                _ => runs.push((text, 1)),
            }
        }
        let count = runs.len();
        for (i, (text, n)) in runs.into_iter().enumerate() {
            let last = i + 1 == count;
            match (n, last) {
                (1, false) => write!(f, "{text}|")?,
                (1, true) => write!(f, "{text}")?,
                (n, false) => write!(f, "({text}|)*{n}")?,
                (2, true) => write!(f, "{text}|{text}")?,
                (n, true) => write!(f, "({text}|)*{}{text}", n - 1)?,
            }
        }
        Ok(())
    }
}

impl Serialize for StageMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for StageMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        StageMap::parse(&text)
            .map_err(|rule| serde::de::Error::custom(format!("pipeline layout: {rule:?}")))
    }
}

/// The leading digits of `text` from `at` as a count, and where they end.
fn count_at(text: &[char], at: usize) -> Option<(usize, usize)> {
    let digits = text[at.min(text.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let number: String = text[at..at + digits].iter().collect();
    // More digits than a count holds: far past any layout's size.
    Some((number.parse().unwrap_or(usize::MAX), at + digits))
}

/// `text` with `what` repeated `n` times appended, or too large.
fn append(out: &mut Vec<char>, what: &[char], n: usize) -> Result<(), StageRule> {
    if out.len().saturating_add(what.len().saturating_mul(n)) > MAX_UNROLLED {
        return Err(StageRule::TooLarge);
    }
    for _ in 0..n {
        out.extend_from_slice(what);
    }
    Ok(())
}

/// Python's `re.sub(r'\(([^)]+)\)\*(\d+)', group × n, text)`: each leftmost
/// `(` whose text up to the next `)` is not empty and is followed by `*n`.
fn unroll_groups(text: &[char]) -> Result<Vec<char>, StageRule> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == '(' {
            let close = text[i + 1..].iter().position(|&c| c == ')');
            if let Some(close) = close.map(|c| i + 1 + c).filter(|&c| c > i + 1) {
                if text.get(close + 1) == Some(&'*') {
                    if let Some((n, end)) = count_at(text, close + 2) {
                        append(&mut out, &text[i + 1..close], n)?;
                        i = end;
                        continue;
                    }
                }
            }
        }
        out.push(text[i]);
        i += 1;
    }
    Ok(out)
}

/// Python's `re.sub(r'(.)\*(\d+)', x × n, text)`: each leftmost character
/// (not a line break) followed by `*n`.
fn unroll_single(text: &[char]) -> Result<Vec<char>, StageRule> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] != '\n' && text.get(i + 1) == Some(&'*') {
            if let Some((n, end)) = count_at(text, i + 2) {
                append(&mut out, &text[i..i + 1], n)?;
                i = end;
                continue;
            }
        }
        out.push(text[i]);
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn counts(map: &StageMap) -> Vec<u32> {
        (0..map.stages()).map(|s| map.decoders(s)).collect()
    }

    /// Megatron-LM's own examples (`parse_str_to_list`'s docstring, the
    /// user guide's DeepSeek-V3 on PP 16 × VPP 2, Megatron-Bridge's
    /// DeepSeek-V3 on PP 8 × VPP 4) read as Megatron-LM reads them, and
    /// written back to strings that read the same.
    #[wasm_bindgen_test(unsupported = test)]
    fn megatron_layout_strings_read_as_megatron_reads_them() {
        let guide = StageMap::parse("Et*3|(tt|)*29,m|L").unwrap();
        assert_eq!(guide.stages(), 32);
        let mut expected = vec![3];
        expected.extend([2; 29]);
        expected.extend([0, 0]);
        assert_eq!(counts(&guide), expected);
        assert_eq!((guide.mtp(), guide.mtp_stage()), (1, 30));
        assert_eq!(guide.total_decoders(), 61);
        assert_eq!(guide.offset(1), 3);
        assert_eq!(guide.offset(31), 61);
        let bridge = StageMap::parse("Et|(tt|)*30mL").unwrap();
        assert_eq!(bridge.stages(), 32);
        assert_eq!(bridge.decoders(0), 1);
        assert_eq!(bridge.decoders(31), 0);
        assert_eq!(bridge.mtp_stage(), 31);
        for map in [guide, bridge] {
            let written = map.to_string();
            assert_eq!(StageMap::parse(&written), Ok(map), "{written}");
        }
        assert_eq!(bridge.to_string(), "Et|(t*2|)*30mL");
        assert_eq!(guide.to_string(), "Et*3|(t*2|)*29m|L");
        // Empty stages are allowed (the user guide's `E||t|L`).
        let empty = StageMap::parse("E||t|L").unwrap();
        assert_eq!(counts(&empty), [0, 0, 1, 0]);
        assert_eq!(empty.to_string(), "E||t|L");
        let gaps = StageMap::parse("Et|(|)*3tL").unwrap();
        assert_eq!(counts(&gaps), [1, 0, 0, 0, 1]);
        assert_eq!(gaps.to_string(), "Et|(|)*3tL");
        // A repeated group nests a repeated layer (`(t*2|)*3`).
        let nested = StageMap::parse("E|(t*2|)*3L").unwrap();
        assert_eq!(counts(&nested), [0, 2, 2, 2, 0]);
    }

    /// What `validate_layer_layout` and `parse_str_to_list` refuse.
    #[wasm_bindgen_test(unsupported = test)]
    fn layouts_megatron_refuses() {
        // Each rule with the layouts that break it.
        let refused: [(StageRule, &[&str]); 6] = [
            (
                StageRule::EmbeddingFirst,
                &["tE|tL", "Et|EtL", "", "(E|)*200L"],
            ),
            (StageRule::LossLast, &["Et|t", "Et|Lt", "Et|L|L"]),
            (StageRule::DecoderAfterMtp, &["Etm|tL"]),
            (StageRule::MtpPlacement, &["Et|m|mL"]),
            (StageRule::Symbol, &["Et|tx|L", "E t|tL"]),
            (
                StageRule::TooLarge,
                &["Et*99999999999999999999L", "E|(t|)*200L"],
            ),
        ];
        for (rule, layouts) in refused {
            for text in layouts {
                assert_eq!(StageMap::parse(text).err(), Some(rule), "{text}");
            }
        }
        // With the pipeline and the model: PP × VPP stages, the model's
        // layers and MTP layers, the latter in a rank's last virtual stage.
        let map = StageMap::parse("Et*3|(tt|)*29,m|L").unwrap();
        assert_eq!(map.check(16, 2, 61, 1), Ok(()));
        assert_eq!(map.check(8, 4, 61, 1), Ok(()));
        assert_eq!(
            map.check(16, 1, 61, 1),
            Err(LayoutProblem::StageCount {
                stages: 32,
                pp: 16,
                vpp: 1
            })
        );
        assert_eq!(
            map.check(16, 2, 62, 1),
            Err(LayoutProblem::StageLayers {
                found: 61,
                layers: 62
            })
        );
        assert_eq!(
            map.check(16, 2, 61, 0),
            Err(LayoutProblem::StageMtp { found: 1, mtp: 0 })
        );
        // Stage 30 is virtual stage 7 of rank 2 on PP 4 × VPP 8: the last.
        assert_eq!(map.check(4, 8, 61, 1), Ok(()));
        let early = StageMap::parse("Et*30|t*31m|L|").unwrap();
        assert_eq!(
            early.check(2, 2, 61, 1),
            Err(LayoutProblem::StageLayout(StageRule::MtpPlacement))
        );
    }
}
