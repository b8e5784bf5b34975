//! The content-addressed build cache: CUBINs stored under a hash of the
//! source path and text, the compiler and its version, the entry, every
//! compile option and the user's headers the source includes, each beside a small record of its kernels' symbols,
//! the command that built it and what the compiler printed, written atomically so that a crash never
//! leaves a truncated binary behind.

use std::io::Write;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::BuildError;

#[derive(Debug, Clone)]
pub struct Cache {
    folder: PathBuf,
}

/// Hashes the parts that decide a binary. Parts are length-prefixed so that
/// ("ab", "c") and ("a", "bc") differ.
pub fn key(parts: &[&str], options: &[String]) -> String {
    let mut hasher = Sha256::new();
    for part in parts
        .iter()
        .copied()
        .chain(options.iter().map(String::as_str))
    {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Cache {
    pub fn new(folder: impl Into<PathBuf>) -> Cache {
        Cache {
            folder: folder.into(),
        }
    }

    /// `$XDG_CACHE_HOME/gpuprof/cubin`, else `~/.cache/gpuprof/cubin`, else
    /// a folder under the system temp dir.
    pub fn default_location() -> Cache {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
            .unwrap_or_else(std::env::temp_dir);
        Cache::new(base.join("gpuprof").join("cubin"))
    }

    fn path(&self, key: &str, extension: &str) -> PathBuf {
        self.folder.join(format!("{key}.{extension}"))
    }

    /// The CUBIN stored under `key`, its kernels' symbols, the command
    /// that built it and what the compiler printed.
    pub fn lookup(&self, key: &str) -> Option<(PathBuf, Vec<String>, String, String)> {
        let cubin = self.path(key, "cubin");
        let record = std::fs::read_to_string(self.path(key, "json")).ok()?;
        let Record {
            functions,
            command,
            log,
        } = serde_json::from_str(&record).ok()?;
        cubin.is_file().then_some((cubin, functions, command, log))
    }

    pub fn store(
        &self,
        key: &str,
        binary: &[u8],
        functions: &[String],
        command: &str,
        log: &str,
    ) -> Result<PathBuf, BuildError> {
        let failed = |e: std::io::Error| BuildError::Cache {
            path: self.folder.clone(),
            reason: e.to_string(),
        };
        std::fs::create_dir_all(&self.folder).map_err(failed)?;
        let record = serde_json::to_string(&Record {
            functions: functions.to_vec(),
            command: command.to_string(),
            log: log.to_string(),
        })
        .expect("a record serializes");
        let cubin = self.path(key, "cubin");
        for (path, bytes) in [
            (&cubin, binary),
            (&self.path(key, "json"), record.as_bytes()),
        ] {
            let mut file = tempfile::NamedTempFile::new_in(&self.folder).map_err(failed)?;
            file.write_all(bytes).map_err(failed)?;
            file.persist(path).map_err(|e| failed(e.error))?;
        }
        Ok(cubin)
    }
}

/// What a CUBIN in the cache is: its kernels' symbols and how it was built.
#[derive(serde::Serialize, serde::Deserialize)]
struct Record {
    functions: Vec<String>,
    command: String,
    /// What the compiler printed (its warnings), shown again when the
    /// binary is reused.
    #[serde(default)]
    log: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_every_part_and_by_boundaries() {
        let base = key(&["a.cu", "text", "13.0"], &["-lineinfo".into()]);
        assert_eq!(base.len(), 64);
        assert_eq!(base, key(&["a.cu", "text", "13.0"], &["-lineinfo".into()]));
        assert_ne!(base, key(&["a.cu", "text2", "13.0"], &["-lineinfo".into()]));
        assert_ne!(base, key(&["a.cu", "text", "13.0"], &[]));
        assert_ne!(key(&["ab", "c"], &[]), key(&["a", "bc"], &[]));
    }

    #[test]
    fn stores_and_finds_binaries() {
        let folder = tempfile::tempdir().unwrap();
        let cache = Cache::new(folder.path().join("nested"));
        assert_eq!(cache.lookup("k"), None);
        let functions = vec!["_Z1kv".to_string()];
        let stored = cache
            .store("k", b"\x7fELF", &functions, "nvcc k.cu", "warning: w")
            .unwrap();
        assert_eq!(
            cache.lookup("k"),
            Some((
                stored.clone(),
                functions,
                "nvcc k.cu".to_string(),
                "warning: w".to_string()
            ))
        );
        assert_eq!(std::fs::read(stored).unwrap(), b"\x7fELF");
    }
}
