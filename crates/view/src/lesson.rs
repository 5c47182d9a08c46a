//! The lesson "06. VRAM Calculation and ZeRO" as steps (issue 47, item 4):
//! Q1–Q5 each set the page to the question's configuration and answer it in
//! a sentence with the report's own figures, in the page's language; Q6 is
//! the page's three scenario buttons (13B, 33B, 70B on 8 GPUs of 80 GB).
//! Every number in an answer is a figure the table shows for the same
//! configuration (Q5's three are the activations of three configurations,
//! each one click away).

use vram_core::format::{format_bytes, format_number};
use vram_core::input::link;
use vram_core::{Config, Report, Strategy};

use crate::text::{self, Text};

/// A question of the lesson and the link that asks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// `Q1` … `Q5`: the button's name and its test id's end.
    pub name: &'static str,
    /// The configuration the question is about: the lesson's 7 B in FP16 with
    /// Adam on GPUs of 80 GB, 20 % reserved (the default), changed as the
    /// question says.
    pub query: &'static str,
}

/// Q1–Q5; Q6 is the scenarios'.
pub const STEPS: [Step; 5] = [
    // Q1: bytes per parameter, unsharded.
    Step {
        name: "Q1",
        query: "?stage=ddp",
    },
    // Q2: 7 B on one A100 80GB.
    Step {
        name: "Q2",
        query: "?gpus=1&stage=ddp",
    },
    // Q3: ZeRO-1 on 8 GPUs.
    Step {
        name: "Q3",
        query: "?stage=1",
    },
    // Q4: ZeRO-3 on 8 GPUs.
    Step {
        name: "Q4",
        query: "?stage=3",
    },
    // Q5: activations of a real 7 B at 4,096 tokens, as PyTorch keeps them
    // without FlashAttention; the answer compares FlashAttention and full
    // recomputation.
    Step {
        name: "Q5",
        query: "?model=llama2-7b&gpu=a100-80gb&stage=3&seq=4096&flash=0&recompute=none",
    },
];

impl Step {
    /// The step's configuration.
    pub fn config(&self) -> Config {
        link::decode(self.query).config
    }
}

/// The answer to `step` for `config` (the page's configuration) and its
/// `report`, in `t`'s words, with the report's figures; `None` when the page
/// no longer shows the step's configuration (`shown` compares what is
/// computed, not the language, units or colours).
pub fn answer(t: &Text, step: &Step, config: &Config, report: &Report) -> Option<String> {
    let asked = Config {
        unit: config.unit,
        theme: config.theme,
        lang: config.lang,
        embed: config.embed,
        show: config.show,
        controls: config.controls,
        ..step.config()
    };
    if asked != *config {
        return None;
    }
    let bytes = |b: vram_core::Bytes| format_bytes(b, report.unit);
    let number = format_number;
    let params = report.setup.params();
    Some(match step.name {
        "Q1" => {
            let row = report.strategy(Strategy::Ddp);
            let per = row.bytes_per_param;
            text::fill(
                t.lesson_q1,
                &[
                    &number(per.weights),
                    &number(per.gradients),
                    &number(per.optimizer_states),
                    &number(per.total()),
                    &number(config.precision.master_copy_bytes()),
                    &number(config.optimizer.moment_bytes_per_param()),
                ],
            )
        }
        "Q2" => {
            let row = report.strategy(Strategy::Ddp);
            text::fill(
                t.lesson_q2,
                &[
                    &number(params.get() / 1e9),
                    &number(row.bytes_per_param.total()),
                    &bytes(row.memory.total),
                    &bytes(report.budget.gpu_memory()),
                    &bytes(report.budget.usable()),
                    if row.fits {
                        t.it_fits
                    } else {
                        t.it_does_not_fit
                    },
                ],
            )
        }
        "Q3" | "Q4" => {
            let row = report.highlighted();
            let m = row.memory;
            text::fill(
                if step.name == "Q3" {
                    t.lesson_q3
                } else {
                    t.lesson_q4
                },
                &[
                    &report.gpus().to_string(),
                    &bytes(m.weights),
                    &bytes(m.gradients),
                    &bytes(m.optimizer_states),
                    &bytes(m.total),
                    &bytes(report.strategy(Strategy::Ddp).memory.total),
                ],
            )
        }
        "Q5" => {
            let activations = |flash: bool, full: bool| {
                let mut changed = *config;
                if let Some(model) = &mut changed.model {
                    model.flash_attention = flash;
                    if full {
                        model.recompute = vram_core::memory::activations::Recompute::Full;
                    }
                }
                changed
                    .report()
                    .ok()
                    .and_then(|r| r.activations)
                    .map_or(String::new(), |a| bytes(a.total))
            };
            let model = config.model.map_or(0, |m| m.seq_len);
            text::fill(
                t.lesson_q5,
                &[
                    &model.to_string(),
                    &activations(false, false),
                    &activations(true, false),
                    &activations(true, true),
                ],
            )
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{EN, ZH};

    fn answered(t: &Text, step: &Step) -> String {
        let config = step.config();
        let report = config.report().unwrap();
        answer(t, step, &config, &report).unwrap()
    }

    /// Each step answers its question with the lesson's numbers (112, 38.5,
    /// 14 …), computed by the report, in both languages.
    #[test]
    fn each_step_answers_with_the_lessons_numbers() {
        let [q1, q2, q3, q4, q5] = STEPS;
        assert_eq!(
            answered(&EN, &q1),
            "Q1: 2 + 2 + 12 = 16 bytes per parameter: the 16-bit weights and gradients, and Adam's \
             fp32 master copy (4) with its two moments (8)."
        );
        assert!(
            answered(&EN, &q2)
                .starts_with("Q2: 7 B parameters × 16 bytes = 112 GB on one GPU of 80 GB"),
            "{}",
            answered(&EN, &q2)
        );
        assert!(answered(&EN, &q2).ends_with("64 GB usable: it does not fit."));
        assert!(
            answered(&EN, &q3).contains("14 GB + 14 GB + 10.5 GB = 38.5 GB"),
            "{}",
            answered(&EN, &q3)
        );
        assert!(
            answered(&EN, &q4).contains("= 14 GB"),
            "{}",
            answered(&EN, &q4)
        );
        let q5_words = answered(&EN, &q5);
        assert!(q5_words.starts_with("Q5: at 4096 tokens"), "{q5_words}");
        for (step, words) in STEPS.iter().map(|s| (s, answered(&ZH, s))) {
            assert!(words.starts_with(step.name), "{words}");
            assert!(!words.contains("bytes"), "{words}");
        }
        assert!(answered(&ZH, &q3).contains("= 38.5 GB"));
    }

    /// Q5 compares what the table would show with FlashAttention and with full
    /// recomputation: each of its three figures falls.
    #[test]
    fn q5_shows_what_flash_attention_and_recomputation_save() {
        let step = STEPS[4];
        let config = step.config();
        let figures: Vec<f64> = [(false, false), (true, false), (true, true)]
            .iter()
            .map(|&(flash, full)| {
                let mut changed = config;
                let model = changed.model.as_mut().unwrap();
                model.flash_attention = flash;
                if full {
                    model.recompute = vram_core::memory::activations::Recompute::Full;
                }
                changed.report().unwrap().activations.unwrap().total.get()
            })
            .collect();
        assert!(
            figures[0] > figures[1] && figures[1] > figures[2],
            "{figures:?}"
        );
        let words = answered(&EN, &step);
        for figure in &figures {
            let shown = format_bytes(vram_core::Bytes::new(*figure), config.unit);
            assert!(words.contains(&shown), "{words} lacks {shown}");
        }
    }

    /// Once the page shows another configuration, the step has no answer.
    #[test]
    fn a_changed_page_is_no_longer_the_question() {
        let step = STEPS[2];
        let mut config = step.config();
        config.gpus = 4;
        let report = config.report().unwrap();
        assert_eq!(answer(&EN, &step, &config, &report), None);
    }
}
