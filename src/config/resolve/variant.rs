//! One `[[variant]]`, merged with `[defaults]`: what it runs (a kernel, a
//! library routine or a command, each refusing the keys of the others),
//! the keys every kernel needs, its role, changes, verification target and
//! tolerance, its values compiled once, its instance at every size, and the
//! spans of its outputs for the checks across variants. The checks run in
//! a fixed order, so the first problem of a variant is always the one
//! reported.

use std::collections::HashMap;
use std::ops::Range;
use std::path::PathBuf;

use toml::Spanned;

use super::args::ArgSpec;
use super::command::fill_placeholders;
use super::library::check_gemm_buffers;
use super::suite::variants_help;
use super::values::{Compiled, gemm_bounds, grid_bounds, shared_bytes_bounds};
use super::{Context, Merged, OutputSpans, Resolved, merged};
use crate::config::error::ConfigError;
use crate::config::kernels::Kernels;
use crate::config::plan::{Instance, KernelSource, Tolerance, Variant, VariantKind, Verify};
use crate::config::raw::{ExprSource, RawArg, RawLibrary, RawVariant};
use crate::config::suggest;
use crate::model::Change;
use crate::model::suite::Size;
use crate::model::variant::{Library, Role};

const DEFAULT_REL: f64 = 1e-5;
const DEFAULT_ABS: f64 = 1e-6;

impl<'c> Context<'c> {
    /// Resolves the variant `name` written at `spanned`; `kernels` keeps the
    /// sources already scanned, by canonical path.
    pub(super) fn variant(
        &self,
        spanned: &'c Spanned<RawVariant>,
        name: &str,
        kernels: &mut HashMap<PathBuf, Kernels>,
    ) -> Result<Resolved, ConfigError> {
        let doc = self.doc;
        let raw = spanned.get_ref();
        let header = spanned.span();
        let d = self.defaults;
        let missing = |key: &str, example: &str| {
            doc.error(header.clone(), format!("variant `{name}` has no `{key}`"))
                .help(format!(
                    "add {example} to this [[variant]] or to [defaults]"
                ))
        };
        self.check_sequence_keys(raw, name)?;
        let command = merged(raw, d, |r| &r.command);
        if let Some(empty) = command.as_ref().filter(|c| c.value.get_ref().is_empty()) {
            return Err(doc
                .error(
                    empty.value.span(),
                    format!("the command of variant `{name}` is empty"),
                )
                .help("give the program and its arguments: command = [\"./app\", \"{N}\"]"));
        }
        let library = merged(raw, d, |r| &r.library).filter(|_| command.is_none());
        let (source_path, entry_name, library_kind) = self.runs(
            raw,
            name,
            (library.as_ref(), command.as_ref()),
            &missing,
            kernels,
        )?;
        let runs_kernel = library.is_none() && command.is_none();
        if let (false, Some(sequence)) = (runs_kernel, &raw.sequence) {
            let what = match command.is_some() {
                true => "runs a command",
                false => "calls a library",
            };
            return Err(doc
                .error(
                    sequence.span(),
                    format!("variant `{name}` {what}, so it takes no `sequence`"),
                )
                .help("a `sequence` launches kernels of `source` in order: remove it here, or make this a kernel variant (source and entry, no command or library)"));
        }
        let one_launch = runs_kernel && raw.sequence.is_none();
        let keys = self.launch_keys(raw, one_launch, command.is_some(), &missing)?;

        let role = self.role(raw)?;
        let changes = self.changes(raw)?;
        let (verify, verify_span) = match &command {
            Some(_) => (Verify::Skip, None),
            None => self.verify(raw, name)?,
        };
        let tolerance = self.tolerance(raw)?;

        let values = self.size_values(raw, name, keys, library.as_ref(), command.as_ref())?;
        if let (true, Some(entry)) = (one_launch, merged(raw, d, |r| &r.entry))
            && let Some(kernel) = kernels[&source_path].find(entry.value.get_ref())
        {
            let args: Vec<&ArgSpec> = values.args.iter().collect();
            let launch = super::parameters::Launcher::Variant(name);
            let aliases = &kernels[&source_path].aliases;
            let passed = self.check_arguments(entry.value, kernel, aliases, &args, &launch)?;
            self.refuse_read_only_outputs(&args, &passed)?;
        }
        let (entries, steps) = match runs_kernel {
            true => self.sequence_steps(
                raw,
                name,
                (&source_path, &kernels[&source_path]),
                &values.args,
            )?,
            false => (Vec::new(), Vec::new()),
        };
        // The entries as written, in the order of `entries` (a sequence's
        // distinct ones): `{expression}`s in them are filled per size.
        let written: Vec<&Spanned<String>> = match (&raw.sequence, merged(raw, d, |r| &r.entry)) {
            (Some(sequence), _) => entries
                .iter()
                .filter_map(|entry| {
                    sequence
                        .get_ref()
                        .iter()
                        .flat_map(|step| step.get_ref().entries())
                        .find(|written| written.get_ref() == entry)
                })
                .collect(),
            (None, Some(entry)) if runs_kernel => vec![entry.value],
            _ => Vec::new(),
        };
        let mut launched = std::collections::BTreeSet::new();
        let instances = self
            .sizes
            .iter()
            .map(|size| {
                let mut instance = self.instance(&values, size)?;
                instance.sequence =
                    self.steps_at(&steps, (name, size), &instance.args, &mut launched)?;
                if written.iter().any(|entry| entry.get_ref().contains('{')) {
                    instance.entries = written
                        .iter()
                        .map(|entry| self.entry_at(entry, size))
                        .collect::<Result<_, _>>()?;
                }
                if let Some(first) = instance.sequence.first() {
                    (instance.grid, instance.block) = (first.grid, first.block);
                    instance.shared_bytes = first.shared_bytes;
                }
                Ok(instance)
            })
            .collect::<Result<Vec<_>, ConfigError>>()?;
        self.refuse_unlaunched(&steps, name, &launched)?;
        if let Some(library) = &library {
            check_gemm_buffers(doc, library.value.span(), name, &instances)?;
        }
        if runs_kernel {
            self.check_symbols(&values.args, &instances, &kernels[&source_path])?;
        }
        let kind = match (library_kind, &command) {
            (Some(library), _) => VariantKind::Library { library },
            (None, Some(_)) => VariantKind::Command(self.command_variant(raw)?),
            (None, None) => {
                let shown = self.shown_source(raw, &source_path);
                self.refuse_overridden_defines(raw, &kernels[&source_path], &shown)?;
                let settings = self.compile_settings(raw, &source_path, &kernels[&source_path])?;
                VariantKind::Kernel(KernelSource {
                    path: source_path,
                    entry: entry_name,
                    compile_options: settings.options,
                    compiler: settings.compiler,
                    compiler_reason: settings.reason,
                    include_dirs: settings.include_dirs,
                    device_only: settings.device_only,
                    sequence: entries,
                })
            }
        };
        Ok(Resolved {
            variant: Variant {
                name: name.to_string(),
                role,
                kind,
                changes,
                notes: match merged(raw, d, |r| &r.notes) {
                    Some(notes) => self.plain_text(notes.value, "notes", true)?,
                    None => String::new(),
                },
                verify,
                tolerance,
                instances,
                sweep: None,
            },
            header,
            verify_span,
            outputs: output_spans(&values.args),
        })
    }

    /// The keys that say how a kernel is launched: `grid` and `block`,
    /// required of a kernel, and `args`, required of all but a command
    /// (whose buffers are its own).
    fn launch_keys(
        &self,
        raw: &'c RawVariant,
        runs_kernel: bool,
        runs_command: bool,
        missing: &dyn Fn(&str, &str) -> ConfigError,
    ) -> Result<LaunchKeys<'c>, ConfigError> {
        let d = self.defaults;
        let grid = merged(raw, d, |r| &r.grid);
        let block = merged(raw, d, |r| &r.block);
        let geometry = match (grid, block) {
            (Some(grid), Some(block)) if runs_kernel => Some((grid, block)),
            (None, _) if runs_kernel => {
                return Err(missing(
                    "grid",
                    "grid = [\"cdiv(N, 256)\"] (blocks per dimension)",
                ));
            }
            (_, None) if runs_kernel => {
                return Err(missing("block", "block = [256] (threads per dimension)"));
            }
            _ => None,
        };
        let args = match merged(raw, d, |r| &r.args) {
            _ if runs_command => None,
            Some(args) => Some(args),
            None => {
                return Err(missing(
                    "args",
                    "args = [...] listing the kernel's parameters in order (args = [] for none)",
                ));
            }
        };
        Ok(LaunchKeys { geometry, args })
    }

    /// Compiles what the variant evaluates at each size: its geometry, the
    /// m, n and k of a library call, `shared_bytes`, `bytes`, `flops`, the
    /// arguments and a command's words.
    fn size_values(
        &self,
        raw: &'c RawVariant,
        name: &str,
        keys: LaunchKeys<'c>,
        library: Option<&Merged<'c, Spanned<RawLibrary>>>,
        command: Option<&Merged<'c, CommandLine>>,
    ) -> Result<SizeValues<'c>, ConfigError> {
        let d = self.defaults;
        let scope = |key: &str, inherited: bool| {
            let origin = if inherited {
                " (set in [defaults])"
            } else {
                ""
            };
            format!("{key} of variant `{name}`{origin}")
        };
        Ok(SizeValues {
            geometry: match &keys.geometry {
                Some((grid, block)) => Some(self.launch_geometry(grid, block, &scope)?),
                None => None,
            },
            gemm: match library {
                Some(library) => Some(self.gemm_sizes(library.value.get_ref(), name)?),
                None => None,
            },
            shared: self.optional_value(
                merged(raw, d, |r| &r.shared_bytes),
                "shared_bytes",
                &scope,
            )?,
            bytes: self.optional_value(merged(raw, d, |r| &r.bytes), "bytes", &scope)?,
            flops: self.optional_value(merged(raw, d, |r| &r.flops), "flops", &scope)?,
            args: self.arg_specs(keys.args.as_ref(), name, &scope)?,
            command: command.map(|c| c.value.get_ref().as_slice()),
            defines: self.defines(raw, &scope)?,
        })
    }

    /// What the variant runs, as (source path, entry point or kernel filter,
    /// library routine): a command's kernel-name filter, a library routine,
    /// or a kernel's source and entry point, after refusing the keys that
    /// a command or a library call does not take.
    fn runs(
        &self,
        raw: &RawVariant,
        name: &str,
        (library, command): (
            Option<&Merged<Spanned<RawLibrary>>>,
            Option<&Merged<CommandLine>>,
        ),
        missing: &dyn Fn(&str, &str) -> ConfigError,
        kernels: &mut HashMap<PathBuf, Kernels>,
    ) -> Result<(PathBuf, String, Option<Library>), ConfigError> {
        if let Some(command) = command {
            self.refuse_kernel_keys_of_command(raw, name, command)?;
        }
        if let Some(library) = library {
            self.refuse_kernel_keys_of_library(raw, name, library)?;
        }
        match (library, command) {
            (_, Some(_)) => Ok((PathBuf::new(), self.kernel_filter(raw, missing)?, None)),
            (Some(library), None) => {
                let kind = self.routine(library)?;
                Ok((PathBuf::new(), kind.word().to_string(), Some(kind)))
            }
            (None, None) => {
                let (source_path, entry) = self.kernel(raw, missing, kernels)?;
                Ok((source_path, entry, None))
            }
        }
    }

    /// The grid's and the block's values, and where `block` is written.
    fn launch_geometry<'a>(
        &self,
        grid: &Merged<'a, Geometry>,
        block: &Merged<'a, Geometry>,
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<LaunchGeometry<'a>, ConfigError> {
        Ok(LaunchGeometry {
            grid: self.geometry(grid, "grid", scope)?,
            block: self.geometry(block, "block", scope)?,
            block_span: block.value.span(),
        })
    }

    /// The value of the optional number-or-expression key `key`, compiled.
    fn optional_value<'a>(
        &self,
        value: Option<Merged<'a, Spanned<ExprSource>>>,
        key: &str,
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<Option<Compiled<'a>>, ConfigError> {
        match value {
            Some(m) => Ok(Some(self.compile(m.value, scope(key, m.inherited))?)),
            None => Ok(None),
        }
    }

    /// The arguments checked one by one, refusing a name listed twice.
    fn arg_specs<'a>(
        &self,
        args: Option<&Merged<'a, Vec<Spanned<RawArg>>>>,
        name: &str,
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<Vec<ArgSpec<'a>>, ConfigError> {
        let (arg_list, args_inherited) = match args {
            Some(args) => (args.value.as_slice(), args.inherited),
            None => (&[][..], false),
        };
        let mut arg_specs: Vec<ArgSpec> = Vec::with_capacity(arg_list.len());
        for arg in arg_list {
            let raw = arg.get_ref();
            let repeated = arg_specs
                .iter()
                .any(|a| matches!(a, ArgSpec::Buffer(_)) && a.name() == raw.name.get_ref());
            if repeated && raw.buffer.is_none() && raw.scalar.is_none() {
                let buffer = raw.name.get_ref();
                return Err(self
                    .doc
                    .error(
                        raw.name.span(),
                        format!("variant `{name}` passes buffer `{buffer}` a second time"),
                    )
                    .help(format!(
                        "a kernel that takes one buffer twice (in place) is launched as a one-step `sequence`: keep the buffers in `args`, and write sequence = [{{ entry = …, grid = …, block = …, args = [{{ name = \"{buffer}\" }}, {{ name = \"{buffer}\" }}, …] }}] (see docs/variants-toml.md)"
                    )));
            }
            let spec = self.arg(arg, &|what: &str| scope(what, args_inherited))?;
            if let Some(first) = arg_specs.iter().find(|a| a.name() == spec.name()) {
                return Err(self
                    .doc
                    .error(
                        arg.get_ref().name.span(),
                        format!(
                            "argument `{}` is listed twice in variant `{name}`",
                            spec.name()
                        ),
                    )
                    .help(format!(
                        "kernel parameters need distinct names; the first `{}` is on line {}",
                        first.name(),
                        self.doc.text[..first.name_span().start]
                            .matches('\n')
                            .count()
                            + 1
                    )));
            }
            arg_specs.push(spec);
        }
        Ok(arg_specs)
    }

    /// That a buffer with `symbol` names a module variable of the source
    /// and fits it: a name a letter or two off one the file declares
    /// (`c_kernel` for `__constant__ float c_Kernel[17]`) is a typo; and
    /// where the variable's type and length are known, its bytes must be
    /// the buffer's at every size (the copy would fail at the run). A
    /// symbol the scan does not see (a header's, a macro's) is left to the
    /// run, which finds it in the module or says it is not there.
    fn check_symbols(
        &self,
        args: &[ArgSpec],
        instances: &[Instance],
        scanned: &Kernels,
    ) -> Result<(), ConfigError> {
        let names: Vec<&str> = scanned.variables.iter().map(|v| v.name.as_str()).collect();
        for (index, spec) in args.iter().enumerate() {
            let ArgSpec::Buffer(buffer) = spec else {
                continue;
            };
            let Some(symbol) = &buffer.symbol else {
                continue;
            };
            let Some(variable) = scanned.variables.iter().find(|v| &v.name == symbol) else {
                if let Some(near) = suggest::closest(symbol, &names) {
                    return Err(self
                        .doc
                        .error(
                            buffer.name_span.clone(),
                            format!("buffer `{}` fills symbol `{symbol}`, which the source does not declare", buffer.name),
                        )
                        .note(format!("its module variables are: {}", names.join(", ")))
                        .help(format!("did you mean symbol = \"{near}\"?")));
                }
                continue;
            };
            // Over the file's constants, its own headers' among them.
            let length = variable.elements(&scanned.integers).map(|n| n as f64);
            let element = crate::config::signature::size_of(&variable.element, &scanned.aliases);
            let (Some(length), Some(element)) = (length, element) else {
                continue;
            };
            let declared = length * element as f64;
            for instance in instances {
                let Some(crate::config::plan::Arg::Buffer(given)) = instance.args.get(index) else {
                    continue;
                };
                let bytes = given.count as f64 * given.element.size_bytes() as f64;
                if bytes != declared {
                    return Err(self
                        .doc
                        .error(
                            buffer.name_span.clone(),
                            format!(
                                "buffer `{}` holds {bytes} bytes at {}, but `{symbol}` is {declared} bytes ({}{})",
                                buffer.name,
                                instance.size,
                                variable.element,
                                variable
                                    .length
                                    .as_ref()
                                    .map(|l| format!("[{l}]"))
                                    .unwrap_or_default()
                            ),
                        )
                        .help(format!(
                            "give the buffer the variable's element count ({}) and an element type of {element} bytes",
                            length
                        )));
                }
            }
        }
        Ok(())
    }

    /// The variant at `size`: every value evaluated and checked there.
    fn instance(&self, values: &SizeValues, size: &Size) -> Result<Instance, ConfigError> {
        Ok(Instance {
            size: size.label.clone(),
            grid: match &values.geometry {
                Some(geometry) => self.dims(&geometry.grid, size, grid_bounds)?,
                None => [1, 1, 1],
            },
            block: match &values.geometry {
                Some(geometry) => self.block(&geometry.block, geometry.block_span.clone(), size)?,
                None => [1, 1, 1],
            },
            command: match values.command {
                Some(command) => Some(fill_placeholders(self.doc, command, size)?),
                None => None,
            },
            gemm: match &values.gemm {
                Some(exprs) => Some(self.dims(exprs, size, |_| gemm_bounds())?),
                None => None,
            },
            shared_bytes: match &values.shared {
                Some(c) => self.whole(c, size, &shared_bytes_bounds())? as u32,
                None => 0,
            },
            args: values
                .args
                .iter()
                .map(|a| self.instantiate(a, size))
                .collect::<Result<_, _>>()?,
            bytes: self.amount(values.bytes.as_ref(), size)?,
            flops: self.amount(values.flops.as_ref(), size)?,
            defines: self.define_values(&values.defines, size)?,
            sequence: Vec::new(),
            entries: Vec::new(),
        })
    }

    fn role(&self, raw: &RawVariant) -> Result<Role, ConfigError> {
        let Some(role) = merged(raw, self.defaults, |r| &r.role) else {
            return Ok(Role::Step);
        };
        match role.value.get_ref().as_str() {
            "step" => Ok(Role::Step),
            "ceiling" => Ok(Role::Ceiling),
            other => Err(self
                .doc
                .error(role.value.span(), format!("unknown role {other:?}"))
                .help(
                    "write \"step\" (a step of the optimization chain, the default) or \
                     \"ceiling\" (a reference shown beside the chain, e.g. a plain copy)",
                )),
        }
    }

    fn changes(&self, raw: &RawVariant) -> Result<Vec<Change>, ConfigError> {
        let Some(words) = merged(raw, self.defaults, |r| &r.changes) else {
            return Ok(Vec::new());
        };
        let vocabulary: Vec<&str> = Change::ALL.iter().map(|c| c.word()).collect();
        let mut changes = Vec::with_capacity(words.value.len());
        for word in words.value {
            let Some(change) = Change::from_word(word.get_ref()) else {
                let meant: Vec<String> = Change::meant_by(word.get_ref())
                    .iter()
                    .map(|c| format!("{:?}", c.word()))
                    .collect();
                let best = match meant.is_empty() {
                    true => format!(
                        "{:?}",
                        suggest::nearest_always(word.get_ref(), &vocabulary).unwrap_or_default()
                    ),
                    false => meant.join(" or "),
                };
                return Err(self
                    .doc
                    .error(word.span(), format!("unknown change {:?}", word.get_ref()))
                    .help(format!(
                        "did you mean {best}? the vocabulary is: {}",
                        vocabulary.join(", ")
                    )));
            };
            if changes.contains(&change) {
                return Err(self
                    .doc
                    .error(
                        word.span(),
                        format!("change {:?} is listed twice", word.get_ref()),
                    )
                    .help("list each change once"));
            }
            let notes = merged(raw, self.defaults, |r| &r.notes);
            if change == Change::Other && notes.is_none_or(|n| n.value.get_ref().trim().is_empty())
            {
                return Err(self
                    .doc
                    .error(word.span(), "change \"other\" needs `notes` saying what changed")
                    .help("add notes = \"fused the bias add into the kernel\" to this variant: gpuprof has no knowledge of the change, so the notes are all the report says of it"));
            }
            changes.push(change);
        }
        Ok(changes)
    }

    fn verify(
        &self,
        raw: &RawVariant,
        name: &str,
    ) -> Result<(Verify, Option<Range<usize>>), ConfigError> {
        let is_baseline = name == self.baseline;
        let against_baseline = if is_baseline {
            Verify::Skip
        } else {
            Verify::Against(self.baseline.to_string())
        };
        let Some(verify) = merged(raw, self.defaults, |r| &r.verify) else {
            return Ok((against_baseline, None));
        };
        let span = verify.value.span();
        let target = verify.value.get_ref();
        let result = match target.as_str() {
            "baseline" => against_baseline,
            "none" => Verify::Skip,
            _ if target == name => {
                let origin = if verify.inherited {
                    " (the value comes from [defaults]: override it here)"
                } else {
                    ""
                };
                return Err(self
                    .doc
                    .error(span, format!("variant `{name}` verifies against itself"))
                    .help(format!(
                        "name another variant, or write verify = \"none\" to skip verification{origin}"
                    )));
            }
            _ if self.names.contains(target) => Verify::Against(target.clone()),
            _ => {
                return Err(self
                    .doc
                    .error(
                        span,
                        format!("verify names {target:?}, which is not a variant"),
                    )
                    .help(format!(
                        "write \"baseline\" (the default), \"none\", or a variant name; {}",
                        variants_help(target, self.names)
                    )));
            }
        };
        Ok((result, Some(span)))
    }

    fn tolerance(&self, raw: &RawVariant) -> Result<Tolerance, ConfigError> {
        let Some(tolerance) = merged(raw, self.defaults, |r| &r.tolerance) else {
            return Ok(Tolerance {
                rel: DEFAULT_REL,
                abs: DEFAULT_ABS,
            });
        };
        let check = |value: &Option<Spanned<f64>>, key: &str, default: f64| match value {
            None => Ok(default),
            Some(v) if v.get_ref().is_finite() && *v.get_ref() >= 0.0 => Ok(*v.get_ref()),
            Some(v) => Err(self
                .doc
                .error(
                    v.span(),
                    format!("tolerance {key} must be a finite number of 0 or more"),
                )
                .help(format!(
                    "an element fails when |got - want| > abs + rel * |want|; the defaults are \
                     rel = {DEFAULT_REL:e}, abs = {DEFAULT_ABS:e}"
                ))),
        };
        Ok(Tolerance {
            rel: check(&tolerance.value.rel, "rel", DEFAULT_REL)?,
            abs: check(&tolerance.value.abs, "abs", DEFAULT_ABS)?,
        })
    }
}

/// A command's words as written: `command = ["./app", "{N}"]`.
pub(super) type CommandLine = Spanned<Vec<Spanned<String>>>;

/// A kernel's `grid` and `block` keys, and its `args`.
struct LaunchKeys<'a> {
    /// `grid` and `block`, when the variant launches a kernel.
    geometry: Option<(Merged<'a, Geometry>, Merged<'a, Geometry>)>,
    /// `args`, unless the variant runs a command.
    args: Option<Merged<'a, Vec<Spanned<RawArg>>>>,
}

/// `grid` or `block` as written: one to three values.
type Geometry = Spanned<Vec<Spanned<ExprSource>>>;

/// A kernel's grid and block values, and where `block` is written.
struct LaunchGeometry<'a> {
    grid: Vec<Compiled<'a>>,
    block: Vec<Compiled<'a>>,
    block_span: Range<usize>,
}

/// What a variant evaluates at each size, compiled once.
struct SizeValues<'a> {
    /// `None` unless the variant launches a kernel.
    geometry: Option<LaunchGeometry<'a>>,
    /// m, n and k of a library call.
    gemm: Option<[Compiled<'a>; 3]>,
    shared: Option<Compiled<'a>>,
    bytes: Option<Compiled<'a>>,
    flops: Option<Compiled<'a>>,
    args: Vec<ArgSpec<'a>>,
    /// A command's words, whose `{N}` placeholders are filled at each size.
    command: Option<&'a [Spanned<String>]>,
    /// The kernel's preprocessor macros.
    defines: Vec<(String, Compiled<'a>)>,
}

/// Where each output buffer's name, element type and count are written.
fn output_spans(arg_specs: &[ArgSpec]) -> Vec<OutputSpans> {
    arg_specs
        .iter()
        .filter_map(|a| match a {
            ArgSpec::Buffer(b) if b.output => Some(OutputSpans {
                name: b.name.clone(),
                name_span: b.name_span.clone(),
                element_span: b.element_span.clone(),
                count_span: b.count.source.span(),
            }),
            _ => None,
        })
        .collect()
}
