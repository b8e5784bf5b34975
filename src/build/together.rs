//! Building a suite's kernel variants at every size in as few compiler runs
//! as give the same binaries: the variants (and sizes) that compile one
//! source file with one compiler and the same options share one run that
//! builds the union of their entries, since each such run compiles the
//! whole file anyway (ten templated reductions in one file with host code
//! were ten nvcc runs of that file). The runs go side by side on the
//! machine's cores; a shared run that fails is
//! retried variant by variant, so that one variant's bad entry or
//! instance stays its own error. Each variant's build is recorded
//! (compiler, options, command, log, seconds, the variants it was compiled
//! with) and its arguments are checked against the compiled symbols.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::ProgressBar;

use super::{
    BuildError, Cache, Compiled, Request, Settings, check_arguments, compile, options_for,
};
use crate::config::plan::{Instance, KernelSource};
use crate::model::results::BuildRecord;
use crate::model::variant::Compiler;

/// One kernel variant to build at every size of `instances`, and the
/// record its build is written into.
pub struct VariantBuild<'a> {
    pub name: &'a str,
    pub kernel: &'a KernelSource,
    pub instances: &'a [Instance],
    pub record: &'a mut BuildRecord,
}

/// What building one variant gave: a binary per size, in size order, or
/// the first size's error.
pub type Built = Result<Vec<Compiled>, BuildError>;

/// Builds every variant of `variants` for compute capability
/// `compute_capability`, through `cache`, moving `progress` once per
/// compiler run (its length grows by the runs planned); the outcomes in
/// the order of `variants`.
pub fn compile_variants(
    variants: &mut [VariantBuild],
    compute_capability: (u32, u32),
    cache: &Cache,
    progress: &ProgressBar,
) -> Vec<Built> {
    let mut runs = shared_runs(variants, compute_capability);
    let mut served: Vec<Vec<Option<Served>>> = variants
        .iter()
        .map(|v| v.instances.iter().map(|_| None).collect())
        .collect();
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    let compile_on_cores = |runs: &[Run]| {
        progress.inc_length(runs.len() as u64);
        on_cores(runs, |run| {
            let outcome = run.compile(cache);
            let built: Vec<&str> = run.variants().iter().map(|&v| names[v]).collect();
            progress.set_message(built.join(", "));
            progress.inc(1);
            outcome
        })
    };
    // A shared run that failed is retried for each of its variants alone.
    let mut retries: Vec<Run> = Vec::new();
    for (index, outcome) in compile_on_cores(&runs).into_iter().enumerate() {
        let run = &runs[index];
        match outcome {
            Err(_) if run.variants().len() > 1 => {
                retries.extend(run.variants().into_iter().map(|v| run.only(v)));
            }
            outcome => run.serve(index, outcome, &mut served),
        }
    }
    let first_retry = runs.len();
    runs.extend(retries);
    for (offset, outcome) in compile_on_cores(&runs[first_retry..])
        .into_iter()
        .enumerate()
    {
        runs[first_retry + offset].serve(first_retry + offset, outcome, &mut served);
    }
    variants
        .iter_mut()
        .zip(served)
        .map(|(variant, sizes)| {
            let sizes = sizes
                .into_iter()
                .map(|size| size.expect("every size of every variant is in one compiler run"))
                .collect();
            record(variant, &names, sizes, &runs)
        })
        .collect()
}

/// What building one size of a variant gave, with the index of the
/// compiler run that built it.
type Served = (usize, Result<Compiled, BuildError>);

/// Writes `variant`'s record from what built each of its sizes, and gives
/// its binaries or its first size's error.
fn record(variant: &mut VariantBuild, names: &[&str], sizes: Vec<Served>, runs: &[Run]) -> Built {
    let record = &mut *variant.record;
    record.compiler = Some(variant.kernel.compiler);
    record.compiler_reason = Some(variant.kernel.compiler_reason.clone());
    let mut counted_runs: Vec<usize> = Vec::new();
    let mut compiled_sizes = Vec::with_capacity(sizes.len());
    for (size, (run_index, outcome)) in sizes.into_iter().enumerate() {
        let run = &runs[run_index];
        if size == 0 {
            record.options = run.options.clone();
        }
        let compiled = outcome?;
        check_arguments(&variant.instances[size], &compiled.functions)?;
        if !counted_runs.contains(&run_index) {
            counted_runs.push(run_index);
            record.seconds += compiled.seconds;
        }
        if size == 0 {
            record.command = Some(compiled.command.clone());
            record.log = compiled.log.clone();
        }
        for other in run.variants() {
            let name = names[other].to_string();
            if name != variant.name && !record.compiled_with.contains(&name) {
                record.compiled_with.push(name);
            }
        }
        compiled_sizes.push(compiled);
    }
    Ok(compiled_sizes)
}

/// One compiler run: `source` (its device code alone where `device_only`)
/// by `compiler` with `options`, building the
/// union of its members' entries.
struct Run<'a> {
    source: &'a Path,
    compiler: Compiler,
    device_only: bool,
    options: Vec<String>,
    entries: Vec<String>,
    members: Vec<Member>,
}

/// A variant's size that a run builds, with the entries it loads.
#[derive(Clone)]
struct Member {
    variant: usize,
    size: usize,
    entries: Vec<String>,
}

impl<'a> Run<'a> {
    fn compile(&self, cache: &Cache) -> Result<Compiled, BuildError> {
        compile(
            Request {
                source: self.source,
                entries: &self.entries,
                compiler: self.compiler,
                device_only: self.device_only,
                options: &self.options,
            },
            cache,
        )
    }

    /// The variants it builds, each once, in order.
    fn variants(&self) -> Vec<usize> {
        let mut variants: Vec<usize> = self.members.iter().map(|m| m.variant).collect();
        variants.dedup();
        variants
    }

    /// The same run for the members of `variant` alone.
    fn only(&self, variant: usize) -> Run<'a> {
        let members: Vec<Member> = self
            .members
            .iter()
            .filter(|m| m.variant == variant)
            .cloned()
            .collect();
        Run {
            source: self.source,
            compiler: self.compiler,
            device_only: self.device_only,
            options: self.options.clone(),
            entries: union(&members),
            members,
        }
    }

    /// Gives each member what the run's `outcome` (the run at `index`)
    /// holds for it: the binary with the symbols of the member's own
    /// entries, or the run's error.
    fn serve(
        &self,
        index: usize,
        outcome: Result<Compiled, BuildError>,
        served: &mut [Vec<Option<Served>>],
    ) {
        for member in &self.members {
            let own = outcome.as_ref().map_err(Clone::clone).map(|compiled| {
                let functions = member
                    .entries
                    .iter()
                    .map(|entry| {
                        let at = self.entries.iter().position(|e| e == entry);
                        compiled.functions[at.expect("a member's entries are in its run's union")]
                            .clone()
                    })
                    .collect();
                Compiled {
                    functions,
                    ..compiled.clone()
                }
            });
            served[member.variant][member.size] = Some((index, own));
        }
    }
}

/// Every entry of `members`, each once, in the order first met.
fn union(members: &[Member]) -> Vec<String> {
    let mut entries: Vec<String> = Vec::new();
    for entry in members.iter().flat_map(|m| &m.entries) {
        if !entries.contains(entry) {
            entries.push(entry.clone());
        }
    }
    entries
}

/// The compiler runs that build every variant at every size: one per
/// source file, compiler and options (which carry the size's defines), in
/// the order first needed.
fn shared_runs<'a>(variants: &[VariantBuild<'a>], compute_capability: (u32, u32)) -> Vec<Run<'a>> {
    let mut runs: Vec<Run<'a>> = Vec::new();
    for (index, variant) in variants.iter().enumerate() {
        let kernel: &'a KernelSource = variant.kernel;
        for (size, instance) in variant.instances.iter().enumerate() {
            let settings = Settings {
                extra: &kernel.compile_options,
                include_dirs: &kernel.include_dirs,
                defines: &instance.defines,
            };
            let options = options_for(compute_capability, kernel.compiler, settings);
            let member = Member {
                variant: index,
                size,
                entries: kernel.entries_at(instance),
            };
            let same = runs.iter_mut().find(|run| {
                run.source == kernel.path.as_path()
                    && run.compiler == kernel.compiler
                    && run.device_only == kernel.device_only
                    && run.options == options
            });
            match same {
                Some(run) => run.members.push(member),
                None => runs.push(Run {
                    source: &kernel.path,
                    compiler: kernel.compiler,
                    device_only: kernel.device_only,
                    options,
                    entries: Vec::new(),
                    members: vec![member],
                }),
            }
        }
    }
    for run in &mut runs {
        run.entries = union(&run.members);
    }
    runs
}

/// `work` over every item on the machine's cores (at most 16 at once),
/// each thread taking the next item when it is done with one, so that a
/// long compile does not hold back a share of short ones; the results in
/// the order of `items`.
fn on_cores<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .clamp(1, 16)
        .min(items.len());
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = work(item);
                    *results[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item was worked on")
        })
        .collect()
}
