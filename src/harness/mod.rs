//! The harness: runs a [`Job`] on the GPU — for every item, fill the
//! buffers (outputs poisoned), launch once and verify the outputs against
//! the reference variant, warm up, then time every launch with CUDA events;
//! or, under ncu, launch each item once inside a profiler range. It runs in
//! its own process (`gpuprof harness`), reporting [`Event`]s on a pipe of
//! their own (see [`capture`]), so that a
//! kernel that faults or hangs cannot take the pipeline's results with it.

pub mod capture;
pub mod data;
mod gpu;
pub mod protocol;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::config::plan::{
    Arg, Buffer, Compare, Fill, Instance, Plan, Variant, VariantKind, Verify,
};
use crate::model::measurement::Check;
use crate::model::results::Stage;
use gpu::{Gpu, Kernel};
pub use gpu::{GpuError, driver_available};
pub use protocol::{Event, Item, Job, Mode, Module};

/// Opens device 0 and reads its facts (for `gpuprof doctor`; a report asks
/// a harness process instead, so that its own process holds no context).
pub fn device_facts() -> Result<crate::model::device::DriverFacts, GpuError> {
    Gpu::open()?.facts()
}

/// Runs `job`, calling `emit` for every event. Returns `Err` after a fatal
/// CUDA error (already reported as an [`Event::Failed`]).
pub fn run(job: &Job, emit: &mut dyn FnMut(Event)) -> Result<(), GpuError> {
    let gpu = Gpu::open()?;
    if job.mode == Mode::Device {
        emit(Event::Device(gpu.facts()?));
        return Ok(());
    }
    let mut runner = Runner {
        contents: BTreeMap::new(),
        job,
        gpu,
        kernels: BTreeMap::new(),
        outputs: BTreeMap::new(),
        sequence: 0,
    };
    for (size_index, size) in job.plan.suite.sizes.iter().enumerate() {
        runner.outputs.clear();
        runner.contents.clear();
        let items: Vec<&Item> = job.items.iter().filter(|i| i.size == size.label).collect();
        for item in items {
            emit(Event::Started { item: item.clone() });
            match runner.run_item(item, size_index, emit) {
                Ok(event) => emit(event),
                Err(Failure {
                    stage,
                    error,
                    fatal,
                }) => {
                    emit(Event::Failed {
                        item: item.clone(),
                        stage,
                        message: error.to_string(),
                        fatal,
                    });
                    if fatal {
                        return Err(error);
                    }
                }
            }
        }
    }
    Ok(())
}

struct Failure {
    stage: Stage,
    error: GpuError,
    fatal: bool,
}

impl Failure {
    fn fatal(stage: Stage) -> impl FnOnce(GpuError) -> Failure {
        move |error| Failure {
            stage,
            error,
            fatal: true,
        }
    }
}

/// A loaded kernel's key: its variant and CUBIN (sizes that share a CUBIN
/// share the kernel; a library call has none).
type KernelKey = (String, std::path::PathBuf);

/// Output bytes of one variant at the current size, by buffer name.
type Outputs = BTreeMap<String, Vec<u8>>;

struct Runner<'a> {
    job: &'a Job,
    gpu: Gpu,
    kernels: BTreeMap<KernelKey, Kernel>,
    /// Outputs of the variants run at the current size.
    outputs: BTreeMap<String, Outputs>,
    /// Initial buffer contents at the current size, by everything that
    /// decides them, so that each is generated once per size.
    contents: BTreeMap<String, Rc<Vec<u8>>>,
    sequence: u32,
}

impl Runner<'_> {
    fn plan(&self) -> &Plan {
        &self.job.plan
    }

    fn variant(&self, name: &str) -> Result<&Variant, Failure> {
        self.plan().variant(name).ok_or_else(|| Failure {
            stage: Stage::Plan,
            error: GpuError {
                during: "looking up the variant".into(),
                message: format!("no variant `{name}`"),
            },
            fatal: false,
        })
    }

    /// Loads the variant's module for size `size_index` on first use; the
    /// key it is kept under.
    fn load(
        &mut self,
        name: &str,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<KernelKey, Failure> {
        let module = self
            .job
            .modules
            .get(name)
            .and_then(|modules| modules.get(size_index));
        let key = (
            name.to_string(),
            module.map(|m| m.cubin.clone()).unwrap_or_default(),
        );
        if !self.kernels.contains_key(&key) {
            match &self.variant(name)?.kind {
                VariantKind::Kernel(_) => {}
                VariantKind::Library { .. } => {
                    let kernel = self.gpu.sgemm().map_err(|error| Failure {
                        stage: Stage::Load,
                        error,
                        fatal: false,
                    })?;
                    self.kernels.insert(key.clone(), kernel);
                    return Ok(key);
                }
                VariantKind::Command(_) => {
                    return Err(Failure {
                        stage: Stage::Plan,
                        error: GpuError {
                            during: "loading the kernel".into(),
                            message: "a command variant runs its own program under ncu, not in the harness".into(),
                        },
                        fatal: false,
                    });
                }
            };
            let Some(module) = module else {
                return Err(Failure {
                    stage: Stage::Build,
                    error: GpuError {
                        during: "loading the kernel".into(),
                        message: "it did not compile".into(),
                    },
                    fatal: false,
                });
            };
            let kernel = self
                .gpu
                .load(&module.cubin, &module.functions)
                .map_err(|error| Failure {
                    stage: Stage::Load,
                    error,
                    fatal: false,
                })?;
            if let Some(resources) = kernel.resources() {
                emit(Event::Loaded {
                    variant: name.to_string(),
                    resources,
                });
            }
            self.kernels.insert(key.clone(), kernel);
        }
        Ok(key)
    }

    fn run_item(
        &mut self,
        item: &Item,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<Event, Failure> {
        let variant = self.variant(&item.variant)?.clone();
        let instance = &variant.instances[size_index];
        match self.job.mode {
            Mode::Device => unreachable!("the device mode runs no items"),
            Mode::Profile => {
                let key = self.load(&item.variant, size_index, emit)?;
                let contents = self.initial_contents(instance);
                let (gpu, kernel) = (&self.gpu, &self.kernels[&key]);
                let buffers = gpu
                    .upload(kernel, instance, &borrowed(&contents))
                    .map_err(Failure::fatal(Stage::Upload))?;
                gpu.profiled(kernel, instance, &buffers)
                    .map_err(Failure::fatal(Stage::Profile))?;
                // One profiled launch per kernel launched: a sequence's
                // steps in order.
                let entries = variant.kernel().map(|k| k.entries()).unwrap_or_default();
                let launched: Vec<String> = match instance.sequence.is_empty() {
                    true => entries.first().cloned().into_iter().collect(),
                    false => instance
                        .sequence
                        .iter()
                        .map(|step| entries.get(step.kernel).cloned().unwrap_or_default())
                        .collect(),
                };
                let mut events: Vec<Event> = launched
                    .into_iter()
                    .map(|kernel| {
                        self.sequence += 1;
                        Event::Profiled {
                            item: item.clone(),
                            sequence: self.sequence - 1,
                            kernel,
                        }
                    })
                    .collect();
                let last = events.pop().ok_or_else(|| Failure {
                    stage: Stage::Profile,
                    error: GpuError {
                        during: "profiling".into(),
                        message: "the variant launches no kernel".into(),
                    },
                    fatal: false,
                })?;
                events.into_iter().for_each(&mut *emit);
                Ok(last)
            }
            Mode::Time => {
                let reference = match &variant.verify {
                    Verify::Skip => None,
                    Verify::Against(name) => {
                        Some((name, self.ensure_reference(name, size_index, emit)))
                    }
                };
                let (outputs, samples_ms) = self.execute(&variant, size_index, true, emit)?;
                let check = match (read_before_written(instance, &outputs, None), reference) {
                    (Some(reason), _) | (None, Some((_, Err(reason)))) => {
                        Check::NotChecked { reason }
                    }
                    (None, None) => Check::NotChecked {
                        reason: "verification is off for this variant (verify = \"none\")".into(),
                    },
                    (None, Some((against, Ok(())))) => verify(
                        &variant,
                        instance,
                        &outputs,
                        &self.outputs[against],
                        against,
                    ),
                };
                // Keep the outputs only of variants others are compared with.
                if self.is_reference(&variant.name) {
                    self.outputs.insert(variant.name.clone(), outputs);
                }
                Ok(Event::Measured {
                    item: item.clone(),
                    samples_ms,
                    check,
                })
            }
        }
    }

    /// The initial bytes of every buffer argument (None for scalars),
    /// generated once per size and shared by the variants that use them.
    fn initial_contents(&mut self, instance: &Instance) -> Vec<Option<Rc<Vec<u8>>>> {
        let seed = self.job.plan.suite.seed;
        instance
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Buffer(buffer) => {
                    let key = format!(
                        "{}/{:?}/{}/{:?}",
                        buffer.name, buffer.element, buffer.count, buffer.fill
                    );
                    let bytes = self
                        .contents
                        .entry(key)
                        .or_insert_with(|| Rc::new(data::initial_bytes(buffer, seed)));
                    Some(Rc::clone(bytes))
                }
                Arg::Scalar(_) => None,
            })
            .collect()
    }

    fn is_reference(&self, name: &str) -> bool {
        self.job
            .plan
            .variants
            .iter()
            .any(|v| v.verify == Verify::Against(name.to_string()))
    }

    /// Makes sure the reference's outputs at this size are at hand, running
    /// it (untimed) first if it has not run yet.
    fn ensure_reference(
        &mut self,
        reference: &str,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), String> {
        if self.outputs.contains_key(reference) {
            return Ok(());
        }
        let variant = self
            .variant(reference)
            .map_err(|f| f.error.to_string())?
            .clone();
        match self.execute(&variant, size_index, false, emit) {
            Ok((outputs, _)) => {
                self.outputs.insert(reference.to_string(), outputs);
                Ok(())
            }
            Err(failure) => Err(format!(
                "the reference `{reference}` could not run: {}",
                failure.error
            )),
        }
    }

    /// One verification launch (outputs poisoned first), then the timed
    /// launches when `timed`.
    fn execute(
        &mut self,
        variant: &Variant,
        size_index: usize,
        timed: bool,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(Outputs, Vec<f64>), Failure> {
        let instance = &variant.instances[size_index];
        let timing = self.job.plan.timing;
        let key = self.load(&variant.name, size_index, emit)?;
        let contents = self.initial_contents(instance);
        let (gpu, kernel) = (&self.gpu, &self.kernels[&key]);
        let buffers = gpu
            .upload(kernel, instance, &borrowed(&contents))
            .map_err(Failure::fatal(Stage::Upload))?;
        gpu.launch(kernel, instance, &buffers)
            .map_err(Failure::fatal(Stage::Launch))?;
        gpu.synchronize("running the kernel")
            .map_err(Failure::fatal(Stage::Launch))?;
        let mut outputs = Outputs::new();
        for (index, arg) in instance.args.iter().enumerate() {
            if let Arg::Buffer(buffer) = arg
                && buffer.output
            {
                let bytes = gpu
                    .download(&buffers, index, &buffer.name)
                    .map_err(Failure::fatal(Stage::Download))?;
                outputs.insert(buffer.name.clone(), bytes);
            }
        }
        let samples = if timed {
            gpu.time(
                kernel,
                instance,
                &buffers,
                timing.warmup,
                timing.repetitions,
            )
            .map_err(Failure::fatal(Stage::Timing))?
        } else {
            Vec::new()
        };
        Ok((outputs, samples))
    }
}

fn borrowed(contents: &[Option<Rc<Vec<u8>>>]) -> Vec<Option<&[u8]>> {
    contents
        .iter()
        .map(|c| c.as_deref().map(Vec::as_slice))
        .collect()
}

/// Why the outputs cannot be trusted when a poisoned output was read
/// before it was written (by this variant, or by the reference `against`
/// whose outputs these are).
fn read_before_written(
    instance: &Instance,
    outputs: &Outputs,
    against: Option<&str>,
) -> Option<String> {
    let who = match against {
        Some(reference) => format!("the reference `{reference}`"),
        None => "the kernel".to_string(),
    };
    instance.args.iter().find_map(|arg| {
        let Arg::Buffer(buffer) = arg else {
            return None;
        };
        if buffer.fill != Fill::Poison {
            return None;
        }
        let bytes = outputs.get(&buffer.name)?;
        let computed = data::computed_from_poison(buffer.element, bytes);
        (computed > 0).then(|| {
            format!(
                "{computed} elements of output `{}` are NaN computed from the NaN poison gpuprof fills outputs with: {who} reads `{0}` before writing it (as C = alpha*A*B + beta*C reads C). Declare it read-write: output = true with fill = \"random\" (or \"zeros\")",
                buffer.name
            )
        })
    })
}

fn verify(
    variant: &Variant,
    instance: &Instance,
    outputs: &Outputs,
    reference: &Outputs,
    against: &str,
) -> Check {
    if let Some(reason) = read_before_written(instance, reference, Some(against)) {
        return Check::NotChecked { reason };
    }
    let buffers: Vec<&Buffer> = instance
        .args
        .iter()
        .filter_map(|arg| match arg {
            Arg::Buffer(b) if b.output => Some(b),
            _ => None,
        })
        .collect();
    if buffers.is_empty() {
        return Check::NotChecked {
            reason: "the variant has no output buffer".into(),
        };
    }
    let (mut compared, mut max_abs_error, mut worst_l2) = (0u64, 0.0f64, 0.0f64);
    let mut checked = BTreeSet::new();
    for buffer in buffers {
        let (Some(got), Some(want)) = (outputs.get(&buffer.name), reference.get(&buffer.name))
        else {
            return Check::NotChecked {
                reason: format!("the reference `{against}` has no output `{}`", buffer.name),
            };
        };
        let result =
            match data::compare(buffer.element, buffer.compare, got, want, variant.tolerance) {
                Ok(result) => result,
                Err(reason) => {
                    return Check::NotChecked {
                        reason: format!("output `{}`: {reason}", buffer.name),
                    };
                }
            };
        checked.insert(buffer.name.clone());
        compared += result.compared;
        max_abs_error = max_abs_error.max(result.max_abs_error);
        worst_l2 = worst_l2.max(result.relative_l2_error);
        if let Some((index, got, want)) = result.first_mismatch {
            return Check::Failed {
                against: against.to_string(),
                buffer: buffer.name.clone(),
                mismatches: result.mismatches,
                compared: result.compared,
                first_mismatch_index: (buffer.compare == Compare::Elementwise).then_some(index),
                got,
                want,
                max_abs_error: result.max_abs_error,
                relative_l2_error: result.relative_l2_error,
            };
        }
    }
    Check::Passed {
        against: against.to_string(),
        max_abs_error,
        relative_l2_error: worst_l2,
        compared,
    }
}
