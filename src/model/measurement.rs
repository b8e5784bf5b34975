//! What was measured about a variant besides its times: whether its
//! outputs matched the reference's, or what a command variant's program
//! said of its own result ([`Check`]), and the resources its kernel uses
//! ([`KernelResources`]). Non-finite errors travel as strings.

use serde::{Deserialize, Serialize};

/// Resource use of a loaded kernel, from the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelResources {
    pub registers_per_thread: u32,
    pub static_shared_bytes: u32,
    pub local_bytes_per_thread: u32,
    pub max_threads_per_block: u32,
}

/// f64 fields that may be NaN or infinite (a poisoned element, an
/// infinite error): JSON has no such numbers and serde_json would write
/// `null`, so they travel as the strings "NaN", "inf" and "-inf".
mod non_finite {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        match *value {
            v if v.is_nan() => serializer.serialize_str("NaN"),
            v if v == f64::INFINITY => serializer.serialize_str("inf"),
            v if v == f64::NEG_INFINITY => serializer.serialize_str("-inf"),
            v => serializer.serialize_f64(v),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum NumberOrText {
        Number(f64),
        Text(String),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        match NumberOrText::deserialize(deserializer)? {
            NumberOrText::Number(v) => Ok(v),
            NumberOrText::Text(t) => match t.as_str() {
                "NaN" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(serde::de::Error::custom(format!(
                    "`{other}` is not a number"
                ))),
            },
        }
    }
}

/// The outcome of comparing a variant's outputs with its reference's, or
/// of a command variant's program checking its own result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Check {
    Passed {
        against: String,
        /// Largest |got − want| over all compared values.
        #[serde(with = "non_finite")]
        max_abs_error: f64,
        /// ‖got − want‖ / ‖want‖ over all compared values.
        #[serde(with = "non_finite")]
        relative_l2_error: f64,
        compared: u64,
    },
    Failed {
        against: String,
        buffer: String,
        /// Elements outside the tolerance (1 for a sum comparison).
        mismatches: u64,
        compared: u64,
        /// First mismatching element (None for a sum comparison).
        first_mismatch_index: Option<u64>,
        #[serde(with = "non_finite")]
        got: f64,
        #[serde(with = "non_finite")]
        want: f64,
        #[serde(with = "non_finite")]
        max_abs_error: f64,
        #[serde(with = "non_finite")]
        relative_l2_error: f64,
    },
    NotChecked {
        reason: String,
    },
    /// A command variant's program exited with status 0 and printed
    /// `line`, which matched the variant's `expect` regular expression.
    ProgramPassed {
        expect: String,
        line: String,
    },
    /// A command variant's program reported a failure.
    ProgramFailed {
        failure: ProgramFailure,
        /// The last lines the program printed.
        output_tail: String,
    },
}

/// How a command variant's program reported a failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum ProgramFailure {
    /// It exited with this non-zero status (as ncu passed it on).
    ExitStatus { code: i32 },
    /// A signal ended it.
    Signal,
    /// It exited with status 0, but no line it printed matched `expect`.
    NoMatch { expect: String },
}
