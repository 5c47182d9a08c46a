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

/// A scenario of the lesson's Q6: its button's name, the question's
/// configuration (the lesson's bare size on 8 GPUs of 80 GB) and, on a
/// second click, the real model on A100s with its activations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    /// `13B`, `33B` or `70B`: the button's name and its test id's end.
    pub name: &'static str,
    /// The question's configuration, as a link's query.
    pub lesson: &'static str,
    /// The real model's, as a link's query.
    pub real: &'static str,
}

/// Q6's three scenarios.
pub const SCENARIOS: [Scenario; 3] = [
    Scenario {
        name: "13B",
        lesson: "?params=13&gpus=8&gpu_mem=80&dtype=bf16&opt=adam&overhead=0.2&stage=2",
        real: "?model=llama2-13b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1&recompute=none&stage=2&global_batch=64",
    },
    Scenario {
        name: "33B",
        lesson: "?params=33&gpus=8&gpu_mem=80&dtype=bf16&opt=adam&overhead=0.2&stage=3",
        real: "?model=llama1-33b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1&recompute=full&stage=3&global_batch=64",
    },
    Scenario {
        name: "70B",
        lesson: "?params=70&gpus=8&gpu_mem=80&dtype=bf16&opt=adam&overhead=0.2&stage=3",
        real: "?model=llama2-70b&gpu=a100-80gb&gpus=8&dtype=bf16&seq=2048&mbs=1&flash=1&recompute=full&stage=3&global_batch=64",
    },
];

/// `query`'s configuration shown as `shown` is (its language, units and
/// colours): what a step or scenario sets.
pub fn as_shown(query: &str, shown: &Config) -> Config {
    Config {
        unit: shown.unit,
        theme: shown.theme,
        lang: shown.lang,
        embed: shown.embed,
        show: shown.show,
        controls: shown.controls,
        ..link::decode(query).config
    }
}

/// The answer to Q6's `scenario` for `config` (the page's) and its
/// `report`: the question's (`real` false) or the real model's; `None`
/// when the page no longer shows that configuration.
pub fn scenario_answer(
    t: &Text,
    scenario: &Scenario,
    real: bool,
    config: &Config,
    report: &Report,
) -> Option<String> {
    let query = if real { scenario.real } else { scenario.lesson };
    if as_shown(query, config) != *config {
        return None;
    }
    let bytes = |b: vram_core::Bytes| format_bytes(b, report.unit);
    let verdict = |fits: bool| if fits { t.it_fits } else { t.it_does_not_fit };
    let usable = bytes(report.budget.usable());
    if real {
        let row = report.highlighted();
        let (model, gpu) = (config.model?, config.gpu?);
        return Some(text::fill(
            t.lesson_q6_real,
            &[
                model.base.name,
                gpu.name,
                &bytes(report.budget.gpu_memory()),
                &usable,
                row.strategy.label(),
                // What the verdict above says it needs: the step's peak where
                // it rises above what is kept.
                &bytes(match row.step.peak().1.get() > row.memory.total.get() {
                    true => row.step.peak().1,
                    false => row.memory.total,
                }),
                verdict(row.fits),
            ],
        ));
    }
    let zero2 = report.strategy(Strategy::Zero2);
    let zero3 = report.strategy(Strategy::Zero3);
    Some(match scenario.name {
        "13B" => text::fill(
            t.lesson_q6_13b,
            &[&bytes(zero2.memory.total), &usable, verdict(zero2.fits)],
        ),
        "33B" => text::fill(
            t.lesson_q6_33b,
            &[
                &bytes(zero2.memory.total),
                &bytes(zero3.memory.total),
                &usable,
                verdict(zero2.fits),
                verdict(zero3.fits),
            ],
        ),
        _ => text::fill(
            t.lesson_q6_70b,
            &[&bytes(zero3.memory.total), &usable, verdict(zero3.fits)],
        ),
    })
}

/// The answer to `step` for `config` (the page's configuration) and its
/// `report`, in `t`'s words, with the report's figures; `None` when the page
/// no longer shows the step's configuration (`shown` compares what is
/// computed, not the language, units or colours).
pub fn answer(t: &Text, step: &Step, config: &Config, report: &Report) -> Option<String> {
    if as_shown(step.query, config) != *config {
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
                    &number(config.optimizer.moment_bytes_per_param(config.precision)),
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

    /// Q6's scenarios answer the lesson's three questions with the report's
    /// figures (13 B: ZeRO-2's 48.75 GB of 64 fits; 33 B: ZeRO-2's 123.75 and
    /// ZeRO-3's 66 GB do not; 70 B: ZeRO-3's 140 GB does not), and the real
    /// models with the page's verdict, in both languages; none once the
    /// page shows something else.
    #[test]
    fn q6_answers_each_scenario_with_the_reports_figures() {
        let said = |t: &Text, scenario: &Scenario, real: bool| {
            let query = if real { scenario.real } else { scenario.lesson };
            let config = link::decode(query).config;
            let report = config.report().unwrap();
            scenario_answer(t, scenario, real, &config, &report).unwrap()
        };
        let [s13, s33, s70] = SCENARIOS;
        let q13 = said(&EN, &s13, false);
        assert!(
            q13.contains("ZeRO-2 needs 48.75 GB per GPU of 64 GB usable: it fits"),
            "{q13}"
        );
        let q33 = said(&EN, &s33, false);
        assert!(
            q33.contains("123.75 GB") && q33.contains("ZeRO-3 66 GB"),
            "{q33}"
        );
        assert!(
            q33.contains("ZeRO-2 it does not fit, ZeRO-3 it does not fit"),
            "{q33}"
        );
        let q70 = said(&ZH, &s70, false);
        assert!(q70.contains("140 GB") && q70.contains("放不下"), "{q70}");
        let real = said(&EN, &s13, true);
        assert!(
            real.starts_with(
                "Q6, the real Llama 2 13B on 8 × A100 80GB (85.9 GB a GPU, 68.72 GB usable)"
            ),
            "{real}"
        );
        // Another configuration: no answer.
        let other = link::decode("?params=14").config;
        let report = other.report().unwrap();
        assert_eq!(scenario_answer(&EN, &s13, false, &other, &report), None);
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
