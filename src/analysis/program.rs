//! What a command variant's program said of its own result, in words: a
//! program that exited with status 0 and printed a line matching `expect`
//! is correct by its own check; one that exited with another status, was
//! ended by a signal, or printed no such line is wrong, and the report
//! quotes the last lines it printed.

use super::Status;
use crate::model::measurement::ProgramFailure;

/// A program that reported success: it printed `line`, matching `expect`.
pub fn passed(expect: &str, line: &str) -> Status {
    Status::CheckedByProgram {
        evidence: format!(
            "the program exited with status 0 and printed `{}`, which matches `expect` = `{expect}`",
            line.trim()
        ),
    }
}

/// A program that reported a failure, with the last lines it printed.
pub fn failed(failure: &ProgramFailure, output_tail: &str) -> Status {
    let what = match failure {
        ProgramFailure::ExitStatus { code } => format!("the program exited with status {code}"),
        ProgramFailure::Signal => "a signal ended the program".to_string(),
        ProgramFailure::NoMatch { expect } => format!(
            "the program exited with status 0, but no line it printed matches `expect` = `{expect}`"
        ),
    };
    let summary = match output_tail.trim() {
        "" => format!("{what}, and it printed nothing"),
        tail => format!("{what}; its last lines: {tail}"),
    };
    Status::Wrong {
        against: "its own check".into(),
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passing_program_is_trusted_and_a_failing_one_is_wrong_with_its_reason() {
        let passed = passed("Test PASSED", "Test PASSED\n");
        assert!(passed.is_trusted());
        assert_eq!(
            passed,
            Status::CheckedByProgram {
                evidence: "the program exited with status 0 and printed `Test PASSED`, which matches `expect` = `Test PASSED`".into()
            }
        );
        let cases = [
            (
                ProgramFailure::ExitStatus { code: 1 },
                "boom",
                "the program exited with status 1; its last lines: boom",
            ),
            (
                ProgramFailure::Signal,
                "",
                "a signal ended the program, and it printed nothing",
            ),
            (
                ProgramFailure::NoMatch {
                    expect: "PASSED".into(),
                },
                "Test FAILED",
                "the program exited with status 0, but no line it printed matches `expect` = `PASSED`; its last lines: Test FAILED",
            ),
        ];
        for (failure, tail, want) in cases {
            let status = failed(&failure, tail);
            assert!(!status.is_trusted());
            assert!(
                matches!(&status, Status::Wrong { summary, .. } if summary == want),
                "{status:?}"
            );
        }
    }
}
