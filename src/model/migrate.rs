//! Older results.json files, brought to the current schema before they are
//! read, so that a saved run renders with every later gpuprof.
//!
//! Schema 1 → 2: a variant's kind was told by which fields were set (a
//! `library`, a run with a `command`, or a `compare` run) and one `source`
//! string meant a path, a library or a command; schema 2 has one tagged
//! `kind`. Notices were plain text; schema 2 types them, and schema-1 text
//! is kept as an `earlier` notice.

use serde_json::{Map, Value, json};

/// Rewrites a schema-1 document as schema 2, in place.
pub fn from_1_to_2(document: &mut Value) {
    let imported = document
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|line| line.split_whitespace().nth(1) == Some("compare"));
    if let Some(variants) = document.get_mut("variants").and_then(Value::as_array_mut) {
        for variant in variants.iter_mut().filter_map(Value::as_object_mut) {
            let kind = kind_of(variant, imported);
            variant.remove("source");
            variant.remove("entry");
            variant.remove("library");
            variant.insert("kind".into(), kind);
        }
    }
    if let Some(notices) = document.get_mut("notices").and_then(Value::as_array_mut) {
        for notice in notices.iter_mut() {
            if let Value::String(text) = notice {
                *notice = json!({ "kind": "earlier", "text": text });
            }
        }
    }
    document["schema_version"] = json!(2);
}

/// The schema-2 `kind` of a schema-1 variant.
fn kind_of(variant: &Map<String, Value>, imported: bool) -> Value {
    let text = |key: &str| variant.get(key).and_then(Value::as_str).unwrap_or("");
    let has_command = variant
        .get("runs")
        .and_then(Value::as_array)
        .is_some_and(|runs| {
            runs.iter()
                .any(|r| r.get("command").is_some_and(|c| !c.is_null()))
        });
    match variant.get("library") {
        Some(library) if !library.is_null() => json!({ "kind": "library", "library": library }),
        _ if has_command => json!({ "kind": "command", "kernel": text("entry") }),
        _ if imported => {
            json!({ "kind": "imported", "origin": text("source"), "kernel": text("entry") })
        }
        _ => json!({ "kind": "kernel", "source": text("source"), "entry": text("entry") }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::notice::Notice;
    use crate::model::variant::{Library, VariantKind};

    fn variant(source: &str, entry: &str, library: Value, command: Value) -> Value {
        json!({ "name": "v", "source": source, "entry": entry, "library": library,
                "runs": [{ "size": "N=1", "command": command }] })
    }

    #[test]
    fn each_kind_of_schema_1_variant_becomes_its_tagged_kind() {
        let mut document = json!({
            "schema_version": 1,
            "command": "gpuprof report v.toml",
            "variants": [
                variant("k/naive.cu", "transpose_naive", Value::Null, Value::Null),
                variant("library: cublas-sgemm", "cublas-sgemm", json!("cublas-sgemm"), Value::Null),
                variant("command, kernels matching `t`", "t", Value::Null, json!("./prog 4096")),
            ],
            "notices": ["profiling was skipped: --no-profile"],
        });
        from_1_to_2(&mut document);
        let kinds: Vec<VariantKind> = document["variants"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| serde_json::from_value(v["kind"].clone()).unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                VariantKind::Kernel {
                    source: "k/naive.cu".into(),
                    entry: "transpose_naive".into()
                },
                VariantKind::Library {
                    library: Library::CUBLAS_SGEMM
                },
                VariantKind::Command { kernel: "t".into() },
            ]
        );
        assert_eq!(kinds[1].source_label(), "library: cublas-sgemm");
        assert_eq!(kinds[2].source_label(), "command, kernels matching `t`");
        assert!(document["variants"][0].get("source").is_none());
        let notice: Notice = serde_json::from_value(document["notices"][0].clone()).unwrap();
        assert_eq!(notice.to_string(), "profiling was skipped: --no-profile");
        assert_eq!(document["schema_version"], 2);
    }

    #[test]
    fn a_compare_run_becomes_imported_launches() {
        let mut document = json!({
            "schema_version": 1,
            "command": "gpuprof compare a.ncu-rep b.csv",
            "variants": [variant("a.ncu-rep", "k(float *)", Value::Null, Value::Null)],
            "notices": [],
        });
        from_1_to_2(&mut document);
        assert_eq!(
            document["variants"][0]["kind"],
            json!({ "kind": "imported", "origin": "a.ncu-rep", "kernel": "k(float *)" })
        );
    }
}
