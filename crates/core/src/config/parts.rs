//! Which parts of the page a link shows, for a lesson that wants one figure at
//! one place: the link's `show` (a list of [`Part`]s) and `controls` keys.

/// A part of the page that a link's `show` key can choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The form (with the lesson's scenarios, and the ranked plans under the
    /// charts, which apply to it).
    Form,
    /// The strategy table, with its summary above and its notes below.
    Table,
    /// Where each state lives: GPU, CPU or NVMe, per strategy.
    Placement,
    /// The charts of memory per GPU: per strategy by kind of state, and over
    /// one step of the highlighted strategy (when activations are counted).
    MemoryChart,
    /// The chart of the largest trainable model against the number of GPUs.
    LargestChart,
    /// The chart of memory per GPU against the number of GPUs.
    ScalingChart,
}

impl Part {
    /// Every part, in the order the page shows them and a link lists them.
    pub const ALL: [Part; 6] = [
        Part::Form,
        Part::Table,
        Part::Placement,
        Part::MemoryChart,
        Part::LargestChart,
        Part::ScalingChart,
    ];

    /// The part's name in the link's `show` list.
    pub const fn key(self) -> &'static str {
        match self {
            Part::Form => "form",
            Part::Table => "table",
            Part::Placement => "placement",
            Part::MemoryChart => "memory",
            Part::LargestChart => "largest",
            Part::ScalingChart => "scaling",
        }
    }

    /// The part whose key is `key`.
    pub fn from_key(key: &str) -> Option<Part> {
        Part::ALL.into_iter().find(|part| part.key() == key)
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of [`Part`]s; by default all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts(u8);

impl Parts {
    /// Every part: the whole calculator.
    pub const ALL: Parts = {
        let mut bits = 0;
        let mut i = 0;
        while i < Part::ALL.len() {
            bits |= Part::ALL[i].bit();
            i += 1;
        }
        Parts(bits)
    };

    /// No part.
    pub const NONE: Parts = Parts(0);

    /// Whether `part` is in the set.
    pub const fn contains(self, part: Part) -> bool {
        self.0 & part.bit() != 0
    }

    /// The set with `part` added.
    pub const fn with(self, part: Part) -> Parts {
        Parts(self.0 | part.bit())
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The parts in the set, in [`Part::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Part> {
        Part::ALL
            .into_iter()
            .filter(move |&part| self.contains(part))
    }

    /// The link's text: the parts' keys in [`Part::ALL`]'s order, comma-separated.
    pub fn key(self) -> String {
        self.iter().map(Part::key).collect::<Vec<_>>().join(",")
    }

    /// Reads a comma-separated list of part keys, in any order, repeats allowed,
    /// case and spaces around each ignored. `None` for an empty list or an
    /// unknown key.
    pub fn from_key(list: &str) -> Option<Parts> {
        let parts = list.split(',').try_fold(Parts::NONE, |parts, key| {
            Part::from_key(&key.trim().to_ascii_lowercase()).map(|part| parts.with(part))
        })?;
        (!parts.is_empty()).then_some(parts)
    }
}

impl Default for Parts {
    fn default() -> Self {
        Parts::ALL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_reads_back_from_its_key() {
        for part in Part::ALL {
            assert_eq!(Part::from_key(part.key()), Some(part));
            assert_eq!(Parts::from_key(part.key()), Some(Parts::NONE.with(part)));
        }
        assert_eq!(Parts::from_key(&Parts::ALL.key()), Some(Parts::ALL));
        assert_eq!(
            Parts::ALL.key(),
            "form,table,placement,memory,largest,scaling"
        );
    }

    #[test]
    fn a_list_is_read_in_any_order_and_written_in_the_pages() {
        let parts = Parts::from_key(" Scaling, table ,table").unwrap();
        assert_eq!(parts.key(), "table,scaling");
        assert!(parts.contains(Part::Table) && !parts.contains(Part::Form));
    }

    #[test]
    fn empty_lists_and_unknown_parts_are_refused() {
        for list in ["", ",", "table,", "tables", "table,chart", " "] {
            assert_eq!(Parts::from_key(list), None, "{list:?}");
        }
    }
}
