//! `gpuprof init`: writes a commented variants.toml and two kernels (the
//! bundled naive and padded transposes) to start a suite from, refusing to
//! overwrite anything.

use std::path::{Path, PathBuf};

const FILES: [(&str, &str); 3] = [
    (
        "variants.toml",
        include_str!("../templates/init/variants.toml"),
    ),
    (
        "kernels/naive.cu",
        include_str!("../kernels/transpose/naive.cu"),
    ),
    (
        "kernels/padded.cu",
        include_str!("../kernels/transpose/padded.cu"),
    ),
];

/// Writes the starter files into `folder`; the paths written.
pub fn write(folder: &Path) -> Result<Vec<PathBuf>, String> {
    let targets: Vec<PathBuf> = FILES.iter().map(|(name, _)| folder.join(name)).collect();
    if let Some(existing) = targets.iter().find(|t| t.exists()) {
        return Err(format!(
            "{} already exists: gpuprof init writes only new files; choose an empty folder (`gpuprof init my-suite`)",
            existing.display()
        ));
    }
    for ((_, text), target) in FILES.iter().zip(&targets) {
        let parent = target.parent().unwrap_or(folder);
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        std::fs::write(target, text)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(targets)
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
        assert!(again.contains("already exists"), "{again}");
    }
}
