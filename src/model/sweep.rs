//! Parameter sweeps as results.json records them: the configuration a
//! variant is (its sweep's name and the parameter values it was built
//! with), and per sweep its parameters, the combinations its constraint
//! skipped (with the reason) and how many of its configurations are
//! profiled. A configuration is otherwise an ordinary variant.

use serde::{Deserialize, Serialize};

/// Which sweep a variant is a configuration of, and with what values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// The sweep's name: the variant's name as written in variants.toml.
    pub group: String,
    /// The parameters and their values, in the order they were declared.
    pub parameters: Vec<(String, i64)>,
}

impl SweepPoint {
    /// The configuration's variant name: `sgemm[BM=64,BN=128]`.
    pub fn variant_name(&self) -> String {
        let values: Vec<String> = self
            .parameters
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        format!("{}[{}]", self.group, values.join(","))
    }
}

/// One `sweep = { … }` variant: its parameters and what became of the
/// combinations that are not configurations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sweep {
    /// The variant's name as written; its configurations carry it as
    /// [`SweepPoint::group`].
    pub group: String,
    /// The parameter names, in the order they were declared.
    pub parameters: Vec<String>,
    /// The combinations the constraint ruled out.
    #[serde(default)]
    pub skipped: Vec<SkippedConfiguration>,
}

/// A combination of parameter values that was not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedConfiguration {
    pub parameters: Vec<(String, i64)>,
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_named_by_its_sweep_and_values() {
        let point = SweepPoint {
            group: "sgemm".into(),
            parameters: vec![("BM".into(), 64), ("TM".into(), 8)],
        };
        assert_eq!(point.variant_name(), "sgemm[BM=64,TM=8]");
    }
}
