//! `gpuprof init`: writes a commented variants.toml and two kernels (the
//! bundled naive and padded transposes) to start a suite from, or, with
//! `--from FILE.cu`, a variants.toml for the user's own file
//! (`from_source`, which reads the file's C expressions through
//! `expression`, the loops around its launches through `loops`, and the
//! parameter types its text hides from the compiled kernel through
//! `compiled`); it never overwrites anything.

mod compiled;
mod expression;
mod from_source;
mod loops;

/// The comment `gpuprof init --from` puts after every value it guessed;
/// `--check` lists the lines that still carry it.
pub const FILL_IN: &str = "# fill in:";

use std::path::{Path, PathBuf};

const FILES: [(&str, &str); 3] = [
    (
        "variants.toml",
        include_str!("../../templates/init/variants.toml"),
    ),
    (
        "kernels/naive.cu",
        include_str!("../../kernels/transpose/naive.cu"),
    ),
    (
        "kernels/padded.cu",
        include_str!("../../kernels/transpose/padded.cu"),
    ),
];

/// Writes the starter files into `folder`; the paths written.
pub fn write(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let targets: Vec<PathBuf> = FILES.iter().map(|(name, _)| folder.join(name)).collect();
    refuse_existing(&targets, &[])?;
    for ((_, text), target) in FILES.iter().zip(&targets) {
        let parent = target.parent().unwrap_or(folder);
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        std::fs::write(target, text)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(targets)
}

/// Writes `folder/variants.toml` for the kernels of `sources` (one suite,
/// their variants in order); its path.
pub fn write_from(folder: &Path, sources: &[PathBuf]) -> Result<PathBuf, String> {
    let target = folder.join("variants.toml");
    refuse_existing(std::slice::from_ref(&target), sources)?;
    let mut texts = Vec::with_capacity(sources.len());
    for source in sources {
        let bytes =
            std::fs::read(source).map_err(|e| format!("cannot read {}: {e}", source.display()))?;
        texts.push(crate::config::source_text(&bytes));
    }
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let relatives: Vec<PathBuf> = sources
        .iter()
        .map(|source| {
            pathdiff::diff_paths(absolute(source), absolute(folder))
                .unwrap_or_else(|| absolute(source))
        })
        .collect();
    // One file names the suite; several, the folder they are gathered in.
    let gathered_in = absolute(folder);
    let named = match sources {
        [only] => only.file_stem(),
        _ => gathered_in.file_name(),
    };
    let stem = named
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '-',
            },
        )
        .collect();
    let origins: Vec<from_source::Origin> = sources
        .iter()
        .zip(&relatives)
        .map(|(typed, relative)| from_source::Origin {
            typed,
            folder,
            relative,
        })
        .collect();
    let files: Vec<(&str, &from_source::Origin)> =
        texts.iter().map(String::as_str).zip(&origins).collect();
    let suite =
        from_source::suite_for_files(&files, if name.is_empty() { "suite" } else { &name })?;
    std::fs::create_dir_all(folder)
        .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    std::fs::write(&target, suite)
        .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    Ok(target)
}

/// Refuses to overwrite: the advice names the command again, with the
/// `--from` file as the user typed it.
fn refuse_existing(targets: &[PathBuf], from: &[PathBuf]) -> Result<(), String> {
    let from: String = match from.is_empty() {
        true => String::new(),
        false => format!(
            " --from {}",
            from.iter()
                .map(|source| source.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    };
    match targets.iter().find(|t| t.exists()) {
        Some(existing) => Err(format!(
            "{} already exists: gpuprof init writes only new files; choose an empty folder (`gpuprof init my-suite{from}`)",
            existing.display()
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_suite_loads_and_is_not_overwritten() {
        let folder = tempfile::tempdir().unwrap();
        let written = write(&folder.path().join("suite")).unwrap();
        assert_eq!(written.len(), 3);
        let plan = crate::config::load(&folder.path().join("suite/variants.toml")).unwrap();
        assert_eq!(plan.variants.len(), 2);
        assert_eq!(plan.variants[1].changes.len(), 2);
        assert_eq!(plan.variants[1].instances[1].grid, [256, 256, 1]);
        let again = write(&folder.path().join("suite")).unwrap_err();
        assert!(
            again.ends_with("choose an empty folder (`gpuprof init my-suite`)"),
            "{again}"
        );
    }

    fn cpp(file: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels/cpp")
            .join(file)
    }

    #[test]
    fn a_homework_file_gives_a_suite_that_loads_with_its_launches() {
        let folder = tempfile::tempdir().unwrap();
        let written = write_from(folder.path(), &[cpp("homework.cu")]).unwrap();
        let text = std::fs::read_to_string(&written).unwrap();
        assert!(
            text.contains("# nvcc compiles it (it defines `main`)."),
            "{text}"
        );
        assert!(
            text.contains(
                "entry = \"tiledCopy<32>\"                # the instance the file launches"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "block = [32]\ngrid = [\"N / 32\"]  # fill in: from the file's <<<n / 32, 32>>>, n taken as N\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("baseline = \"naiveCopy\"  # its name says naive"),
            "{text}"
        );
        assert!(
            text.contains("{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }"),
            "{text}"
        );
        assert!(
            text.contains("{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }"),
            "{text}"
        );
        assert!(
            text.contains("{ name = \"n\", scalar = \"i32\", value = \"N\" }"),
            "{text}"
        );
        let plan = crate::config::load(&written).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let names: Vec<&str> = plan.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["tiledCopy", "naiveCopy"]);
        assert_eq!(plan.variants[0].instances[0].block, [32, 1, 1]);
        assert_eq!(plan.variants[0].instances[0].grid, [32768, 1, 1]);
        let again = write_from(folder.path(), &[cpp("homework.cu")]).unwrap_err();
        assert!(
            again.ends_with(&format!(
                "choose an empty folder (`gpuprof init my-suite --from {}`)",
                cpp("homework.cu").display()
            )),
            "{again}"
        );
    }

    #[test]
    fn templates_without_a_launch_are_left_for_their_arguments() {
        let folder = tempfile::tempdir().unwrap();
        let written = write_from(folder.path(), &[cpp("templated.cu")]).unwrap();
        let text = std::fs::read_to_string(&written).unwrap();
        assert!(
            text.contains("entry = \"reduce6<…>\"                # fill in: a value for each of <unsigned int blockSize, bool nIsPow2>"),
            "{text}"
        );
        assert!(text.contains("entry = \"gemm::scale\""), "{text}");
        assert!(
            text.contains("{ name = \"n\", scalar = \"u32\", value = \"N*N\" }"),
            "{text}"
        );
        let error = write_from(
            folder.path().join("none").as_path(),
            &[cpp("../../../Cargo.toml")],
        )
        .unwrap_err();
        assert!(
            error.ends_with(
                "defines no __global__ function: give the .cu or .cuh file that holds your kernels"
            ),
            "{error}"
        );
    }
}
