//! What people ask of an RL run beyond "does it fit": the longest response
//! and the largest token budget that still fit on these GPUs, and the fewest
//! GPUs of this type that run it as it stands. Each is a search over
//! [`Config::rl_report`], the one accounting: what fits here is what the
//! report says fits.

use serde::Serialize;

use crate::config::Config;

/// Where the run's limits are, on these GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RlLimits {
    /// The longest `response_len` (tokens) with which both phases fit, the
    /// prompt as it is; `None` when not even one token does.
    pub largest_response_len: Option<u32>,
    /// The largest `token_budget` (tokens a micro-batch packs per GPU)
    /// with which both phases fit; `None` when one sequence does not.
    pub largest_token_budget: Option<u32>,
    /// The fewest GPUs of this type that run it (a node's GPUs filled
    /// first); `None` beyond 64 nodes.
    pub fewest_gpus: Option<FewestGpus>,
}

/// A count of GPUs as nodes of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FewestGpus {
    /// GPUs per node.
    pub gpus_per_node: u32,
    /// Nodes.
    pub nodes: u32,
}

/// The largest value in `low..=high` for which `fits` holds, `fits` being
/// monotone (true up to a point); `None` when `fits(low)` fails.
fn largest(low: u32, high: u32, fits: impl Fn(u32) -> bool) -> Option<u32> {
    if low > high || !fits(low) {
        return None;
    }
    if fits(high) {
        return Some(high);
    }
    let (mut good, mut bad) = (low, high);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if fits(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

impl Config {
    /// The run's limits ([`RlLimits`]); about 40 reports.
    pub fn rl_limits(&self) -> RlLimits {
        let fits = |config: &Config| config.rl_report().is_ok_and(|r| r.fits());
        let context = self.model.and_then(|m| m.preset()).map_or(131_072, |p| {
            if p.context > 0 {
                p.context
            } else {
                131_072
            }
        });
        let room = context.saturating_sub(self.serve.prompt_len).max(1);
        let largest_response_len = largest(1, room, |tokens| {
            let mut config = *self;
            config.serve.response_len = tokens;
            fits(&config)
        });
        let sequence = self.serve.prompt_len + self.serve.response_len;
        let largest_token_budget = largest(sequence, 1 << 20, |tokens| {
            let mut config = *self;
            config.rl.token_budget = Some(tokens);
            fits(&config)
        });
        let per_node = self.gpus.max(1);
        let mut candidates: Vec<(u32, u32)> = [1u32, 2, 4, 8, 16]
            .into_iter()
            .filter(|&g| g <= per_node)
            .map(|g| (g, 1))
            .collect();
        candidates.extend([2u32, 4, 8, 16, 32, 64].map(|n| (per_node, n)));
        let fewest_gpus = candidates
            .into_iter()
            .find(|&(gpus, nodes)| {
                let mut config = *self;
                config.gpus = gpus;
                config.runtime.nodes = nodes;
                fits(&config)
            })
            .map(|(gpus_per_node, nodes)| FewestGpus {
                gpus_per_node,
                nodes,
            });
        RlLimits {
            largest_response_len,
            largest_token_budget,
            fewest_gpus,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::input::link;

    /// Qwen2.5-7B GRPO on 8 × H20: the limits bracket the run as it stands,
    /// one token past each does not fit, and fewer GPUs than the fewest do not.
    #[test]
    fn the_limits_bracket_the_run() {
        let config = link::decode(
            "v=2&job=rl&model=qwen2.5-7b&gpu=h20&gpus=8&dtype=bf16&stage=3&recompute=full&rollout_tp=2",
        )
        .config;
        let limits = config.rl_limits();
        let response = limits.largest_response_len.unwrap();
        assert!(response >= config.serve.response_len, "{limits:?}");
        let mut past = config;
        past.serve.response_len = response + 1;
        assert!(
            response == 32_768 - 1024 || !past.rl_report().unwrap().fits(),
            "{limits:?}"
        );
        let budget = limits.largest_token_budget.unwrap();
        assert!(budget >= 2048, "{limits:?}");
        let mut past = config;
        past.rl.token_budget = Some(budget + 1);
        assert!(
            budget == 1 << 20 || !past.rl_report().unwrap().fits(),
            "{limits:?}"
        );
        let fewest = limits.fewest_gpus.unwrap();
        let (gpus, nodes) = (fewest.gpus_per_node, fewest.nodes);
        assert_eq!(nodes, 1);
        assert!(gpus <= 8);
        let mut fewer = config;
        fewer.gpus = gpus / 2;
        assert!(
            gpus == 1 || !fewer.rl_report().is_ok_and(|r| r.fits()),
            "{limits:?}"
        );
    }
}
