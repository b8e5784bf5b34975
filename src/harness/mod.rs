//! The harness: runs a [`Job`] on the GPU — for every item of a size,
//! fill the buffers (outputs poisoned), launch once and verify the outputs
//! against the reference variant and warm up; then the items of the size
//! take turns of cold and hot samples, round-robin, until each has enough
//! (see [`sampling`]), with the SM clock read through NVML (see [`clock`]);
//! their buffers stay on the device meanwhile, or, when they do not all
//! fit, each item is timed on its own. Under ncu, it launches each item
//! once inside a profiler range. It runs in its own process (`gpuprof
//! harness`), reporting [`Event`]s on a pipe of their own (see
//! [`capture`]), so that a kernel that faults or hangs cannot take the
//! pipeline's results with it.

pub mod capture;
mod clock;
pub mod data;
mod gpu;
pub mod protocol;
mod sampling;

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::config::plan::{
    Arg, Buffer, Compare, ElementType, Fill, Instance, Plan, Variant, VariantKind, Verify,
};
use crate::model::measurement::Check;
use crate::model::results::Stage;
use crate::model::timing::{Schedule, Stop, TimingMethod, TimingRecord};
use clock::Nvml;
use gpu::{Buffers, Gpu, Kernel, Sampler, Staged};
pub use gpu::{GpuError, driver_available};
pub use protocol::{Event, Item, Job, Mode, Module};
use sampling::{Collected, Goal, Turn};

/// Opens device 0 and reads its facts (for `gpuprof doctor`; a report asks
/// a harness process instead, so that its own process holds no context).
pub fn device_facts() -> Result<crate::model::device::DriverFacts, GpuError> {
    Gpu::open()?.facts()
}

/// A CUDA context a harness opened while it waited for its job (`gpuprof
/// harness --open-on`), for the job to run on.
pub struct OpenedEarly(Gpu);

/// Opens the device's context before the job is known.
pub fn open_early() -> Result<OpenedEarly, GpuError> {
    Gpu::open().map(OpenedEarly)
}

/// Runs `job` on the context `opened` early, or on one it opens, calling
/// `emit` for every event; a job with no items opens no GPU (and closes
/// one opened early). Returns `Err` after a fatal CUDA error (already
/// reported as an [`Event::Failed`]).
pub fn run(
    job: &Job,
    opened: Option<OpenedEarly>,
    emit: &mut dyn FnMut(Event),
) -> Result<(), GpuError> {
    if job.items.is_empty() && job.mode != Mode::Device {
        // Nothing to run (an ncu process started early and not needed).
        return Ok(());
    }
    let gpu = match opened {
        Some(OpenedEarly(gpu)) => gpu,
        None => Gpu::open()?,
    };
    if job.mode == Mode::Device {
        emit(Event::Device(gpu.facts()?));
        return Ok(());
    }
    let mut runner = Runner {
        contents: BTreeMap::new(),
        spare_outputs: Vec::new(),
        stage_on_device: false,
        job,
        gpu,
        kernels: BTreeMap::new(),
        outputs: BTreeMap::new(),
        unrunnable: BTreeMap::new(),
        sequence: 0,
        nvml: OnceCell::new(),
    };
    for (size_index, size) in job.plan.suite.sizes.iter().enumerate() {
        runner.outputs.clear();
        runner.contents.clear();
        runner.spare_outputs.clear();
        runner.unrunnable = job
            .failed
            .iter()
            .filter(|(item, _)| item.size == size.label)
            .map(|(item, message)| (item.variant.clone(), could_not_run(&item.variant, message)))
            .collect();
        let items: Vec<&Item> = job.items.iter().filter(|i| i.size == size.label).collect();
        match job.mode {
            Mode::Device => unreachable!("the device mode runs no items"),
            Mode::Profile => {
                runner.plan_memory(&items, size_index)?;
                for item in items {
                    emit(Event::Started { item: item.clone() });
                    match runner.profile_item(item, size_index, emit) {
                        Ok(event) => emit(event),
                        Err(failure) => failed(item, failure, emit)?,
                    }
                }
            }
            Mode::Time => runner.time_size(&items, size_index, emit)?,
        }
    }
    if job.mode == Mode::Profile {
        emit(Event::Finished);
    }
    Ok(())
}

/// Why a variant that verifies against `reference` is not checked.
fn could_not_run(reference: &str, why: &str) -> String {
    format!("the reference `{reference}` could not run: {why}")
}

/// Reports `failure` of `item`; `Err` when it was fatal. An error that
/// leaves the context unusable is fatal wherever it surfaces (the process
/// ends and the pipeline starts a fresh one for the items left); met
/// before the item launched anything (loading its module, uploading its
/// buffers), it is an earlier launch's fault, and the message says so.
fn failed(item: &Item, failure: Failure, emit: &mut dyn FnMut(Event)) -> Result<(), GpuError> {
    let sticky = failure.error.is_sticky();
    let before_launch = matches!(failure.stage, Stage::Load | Stage::Upload);
    let message = match sticky && before_launch {
        true => format!(
            "{}; an earlier kernel of this run faulted (CUDA reports a fault at the next call), before this one ran",
            failure.error
        ),
        false => failure.error.to_string(),
    };
    let fatal = failure.fatal || sticky;
    emit(Event::Failed {
        item: item.clone(),
        stage: failure.stage,
        message,
        fatal,
    });
    match fatal {
        true => Err(failure.error),
        false => Ok(()),
    }
}

/// Cold and hot samples per turn of an item.
const SAMPLES_PER_TURN: usize = 5;

/// Device memory left free beyond the buffers when the variants of a size
/// keep theirs resident (the driver, the kernels' local memory).
const MEMORY_MARGIN_BYTES: u64 = 512 << 20;

/// An item verified and ready to take its turns: its buffers stay on the
/// device until it has all its samples.
struct Prepared {
    item: Item,
    variant: Variant,
    key: KernelKey,
    buffers: Buffers,
    check: Check,
    sampler: Sampler,
    collected: Collected,
    stopped: Option<Stop>,
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
    /// The references that could not run at the current size (here or in
    /// an earlier process), with why.
    unrunnable: BTreeMap<String, String>,
    /// Initial buffer contents at the current size, staged on the device,
    /// by everything that decides them ([`content_key`]), so that each is
    /// generated and uploaded once per size.
    contents: BTreeMap<String, Rc<Staged>>,
    /// Host buffers of outputs already compared at the current size, kept
    /// to download the next variant's outputs into.
    spare_outputs: Vec<Vec<u8>>,
    /// Whether the current size's initial contents are staged on the device
    /// (see [`Runner::plan_memory`]) or kept in host memory.
    stage_on_device: bool,
    sequence: u32,
    /// NVML for the SM clock, opened when timing first needs it.
    nvml: OnceCell<Result<Nvml, String>>,
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
                VariantKind::Library { library } => {
                    let kernel = self.gpu.sgemm(*library).map_err(|error| Failure {
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

    /// Launches `item` once inside a profiler range, for ncu.
    fn profile_item(
        &mut self,
        item: &Item,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<Event, Failure> {
        let variant = self.variant(&item.variant)?.clone();
        let instance = &variant.instances[size_index];
        let key = self.load(&item.variant, size_index, emit)?;
        let contents = self
            .initial_contents(instance)
            .map_err(Failure::fatal(Stage::Upload))?;
        let (gpu, kernel) = (&self.gpu, &self.kernels[&key]);
        let buffers = gpu
            .upload(kernel, instance, &borrowed(&contents))
            .map_err(Failure::fatal(Stage::Upload))?;
        gpu.profiled(kernel, instance, &buffers)
            .map_err(Failure::fatal(Stage::Profile))?;
        // One profiled launch per kernel launched: a sequence's
        // steps in order.
        let entries = variant
            .kernel()
            .map(|k| k.entries_at(instance))
            .unwrap_or_default();
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

    /// The initial contents of every buffer argument (None for scalars),
    /// generated and staged once per size and shared by the variants that
    /// use them.
    fn initial_contents(
        &mut self,
        instance: &Instance,
    ) -> Result<Vec<Option<Rc<Staged>>>, GpuError> {
        let seed = self.job.plan.suite.seed;
        let mut contents = Vec::with_capacity(instance.args.len());
        for arg in &instance.args {
            let Arg::Buffer(buffer) = arg else {
                contents.push(None);
                continue;
            };
            let key = content_key(buffer);
            let staged = match self.contents.get(&key) {
                Some(staged) => Rc::clone(staged),
                None => {
                    let bytes = data::initial_bytes(buffer, seed);
                    let staged = match self.stage_on_device {
                        true => self.gpu.stage(&bytes, &buffer.name)?,
                        false => Staged::Host(bytes),
                    };
                    let staged = Rc::new(staged);
                    self.contents.insert(key, Rc::clone(&staged));
                    staged
                }
            };
            contents.push(Some(staged));
        }
        Ok(contents)
    }

    /// The element type of each output of variant `name` at size
    /// `size_index`, by output name.
    fn output_elements(
        &self,
        name: &str,
        size_index: usize,
    ) -> Result<BTreeMap<String, ElementType>, Failure> {
        Ok(self.variant(name)?.instances[size_index]
            .args
            .iter()
            .filter_map(|arg| match arg {
                Arg::Buffer(b) if b.output => Some((b.name.clone(), b.element)),
                _ => None,
            })
            .collect())
    }

    fn is_reference(&self, name: &str) -> bool {
        self.job
            .plan
            .variants
            .iter()
            .any(|v| v.verify == Verify::Against(name.to_string()))
    }

    /// Makes sure the reference's outputs at this size are at hand, running
    /// it (untimed) first if it has not run yet; a reference that could not
    /// run (here or in an earlier process) is not run again. `Err` when its
    /// failure left the CUDA context unusable: reported as the reference's
    /// own failure, and this process ends so that a fresh one runs the
    /// item that asked for it, not checked.
    fn ensure_reference(
        &mut self,
        reference: &str,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), GpuError> {
        if self.outputs.contains_key(reference) || self.unrunnable.contains_key(reference) {
            return Ok(());
        }
        let variant = match self.variant(reference) {
            Ok(variant) => variant.clone(),
            Err(failure) => {
                let message = could_not_run(reference, &failure.error.to_string());
                self.unrunnable.insert(reference.to_string(), message);
                return Ok(());
            }
        };
        match self.execute(&variant, size_index, emit) {
            Ok((outputs, ..)) => {
                self.outputs.insert(reference.to_string(), outputs);
                Ok(())
            }
            Err(failure) => {
                let message = could_not_run(reference, &failure.error.to_string());
                self.unrunnable.insert(reference.to_string(), message);
                match failure.error.is_sticky() {
                    // Its fault leaves this process unusable: reported as
                    // the reference's own failure, and the next process
                    // runs the item that asked for it without it.
                    true => {
                        let size = self.plan().suite.sizes[size_index].label.clone();
                        let item = Item {
                            variant: reference.to_string(),
                            size,
                        };
                        failed(&item, failure, emit)
                    }
                    false => Ok(()),
                }
            }
        }
    }

    /// Whether the reference ran at the current size ([`Runner::ensure_reference`]), or why not.
    fn reference_outcome(&self, reference: &str) -> Result<(), String> {
        match self.unrunnable.get(reference) {
            Some(message) => Err(message.clone()),
            None => Ok(()),
        }
    }

    /// One verification launch (outputs poisoned first): the outputs, the
    /// key of the loaded kernel and the buffers, still on the device.
    fn execute(
        &mut self,
        variant: &Variant,
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(Outputs, KernelKey, Buffers), Failure> {
        let instance = &variant.instances[size_index];
        let key = self.load(&variant.name, size_index, emit)?;
        let contents = self
            .initial_contents(instance)
            .map_err(Failure::fatal(Stage::Upload))?;
        let (gpu, kernel) = (&self.gpu, &self.kernels[&key]);
        let entries = variant
            .kernel()
            .map(|k| k.entries_at(instance))
            .unwrap_or_default();
        gpu.check_parameters(kernel, instance, &entries)
            .map_err(|error| Failure {
                stage: Stage::Launch,
                error,
                fatal: false,
            })?;
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
                let mut bytes = self.spare_outputs.pop().unwrap_or_default();
                gpu.download(&buffers, index, &buffer.name, &mut bytes)
                    .map_err(Failure::fatal(Stage::Download))?;
                outputs.insert(buffer.name.clone(), bytes);
            }
        }
        Ok((outputs, key, buffers))
    }

    /// Verifies `item` against its reference, warms it up and prepares its
    /// turns; its buffers stay on the device.
    fn prepare(
        &mut self,
        item: &Item,
        size_index: usize,
        goal: &Goal,
        emit: &mut dyn FnMut(Event),
    ) -> Result<Prepared, Failure> {
        let variant = self.variant(&item.variant)?.clone();
        let instance = &variant.instances[size_index];
        let reference = match &variant.verify {
            Verify::Skip => None,
            Verify::Against(name) => Some((name, self.reference_outcome(name))),
        };
        let (outputs, key, buffers) = self.execute(&variant, size_index, emit)?;
        let check = match (read_before_written(instance, &outputs, None), reference) {
            (Some(reason), _) | (None, Some((_, Err(reason)))) => Check::NotChecked { reason },
            (None, None) => Check::NotChecked {
                reason: "verification is off for this variant (verify = \"none\")".into(),
            },
            (None, Some((against, Ok(())))) => {
                // The reference's outputs are read as its own buffers (an
                // f32 reference of an f16 variant is read as f32).
                let reference_instance = &self.variant(against)?.instances[size_index];
                match read_before_written(reference_instance, &self.outputs[against], Some(against))
                {
                    Some(reason) => Check::NotChecked { reason },
                    None => {
                        let elements = self.output_elements(against, size_index)?;
                        verify(
                            &variant,
                            instance,
                            &outputs,
                            (&self.outputs[against], &elements),
                            against,
                        )
                    }
                }
            }
        };
        // Keep the outputs only of variants others are compared with; the
        // others' host buffers take the next variant's outputs.
        if self.is_reference(&variant.name) {
            self.outputs.insert(variant.name.clone(), outputs);
        } else {
            self.spare_outputs.extend(outputs.into_values());
        }
        let (gpu, kernel) = (&self.gpu, &self.kernels[&key]);
        let sampler = gpu
            .sampler(
                kernel,
                instance,
                &buffers,
                self.job.plan.timing.warmup,
                SAMPLES_PER_TURN,
                goal.time_limit_s,
            )
            .map_err(Failure::fatal(Stage::Timing))?;
        Ok(Prepared {
            item: item.clone(),
            variant,
            key,
            buffers,
            check,
            sampler,
            collected: Collected::default(),
            stopped: None,
        })
    }

    /// Where the size's initial contents are staged (on the device when
    /// they fit there beside every variant's buffers, else in host memory),
    /// and whether the items of the size can keep their buffers on the
    /// device together (and so take turns) or must be timed one at a time.
    fn plan_memory(&mut self, items: &[&Item], size_index: usize) -> Result<Schedule, GpuError> {
        let instances: Vec<&Instance> = items
            .iter()
            .filter_map(|item| self.plan().variant(&item.variant))
            .map(|variant| &variant.instances[size_index])
            .collect();
        let needed = instances
            .iter()
            .map(|instance| instance.buffer_bytes().unwrap_or(u64::MAX))
            .fold(0, u64::saturating_add);
        let contents: BTreeMap<String, u64> = instances
            .iter()
            .flat_map(|instance| &instance.args)
            .filter_map(|arg| match arg {
                Arg::Buffer(buffer) => Some((
                    content_key(buffer),
                    buffer
                        .count
                        .saturating_mul(buffer.element.size_bytes() as u64),
                )),
                Arg::Scalar(_) => None,
            })
            .collect();
        let staged = contents
            .values()
            .fold(0u64, |sum, &bytes| sum.saturating_add(bytes));
        let free = self.gpu.free_memory()?;
        let flush = self.gpu.l2_bytes()?;
        let fits = |bytes: u64| bytes.saturating_add(flush + MEMORY_MARGIN_BYTES) <= free;
        self.stage_on_device = fits(needed.saturating_add(staged));
        if items.len() <= 1 || fits(needed) {
            return Ok(Schedule::Interleaved {
                variants: items.len() as u32,
            });
        }
        let mib = |bytes: u64| bytes as f64 / f64::from(1 << 20);
        Ok(Schedule::OneAtATime {
            reason: format!(
                "the buffers of the {} variants of this size need {:.0} MiB together and the device had {:.0} MiB free",
                items.len(),
                mib(needed),
                mib(free)
            ),
        })
    }

    /// Verifies and times the items of one size: all together, taking
    /// turns, or one at a time when their buffers do not fit together.
    fn time_size(
        &mut self,
        items: &[&Item],
        size_index: usize,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), GpuError> {
        let goal = self.goal()?;
        let schedule = self.plan_memory(items, size_index)?;
        let groups: Vec<Vec<&Item>> = match schedule {
            Schedule::Interleaved { .. } => vec![items.to_vec()],
            Schedule::OneAtATime { .. } => items.iter().map(|item| vec![*item]).collect(),
        };
        for group in groups {
            let mut prepared = Vec::new();
            for item in group {
                emit(Event::Started { item: item.clone() });
                if let Some(Verify::Against(reference)) =
                    self.plan().variant(&item.variant).map(|v| v.verify.clone())
                {
                    self.ensure_reference(&reference, size_index, emit)?;
                }
                match self.prepare(item, size_index, &goal, emit) {
                    Ok(ready) => prepared.push(ready),
                    Err(failure) => failed(item, failure, emit)?,
                }
            }
            self.take_turns(&mut prepared, size_index, &goal, emit)?;
            for ready in prepared {
                let event = self.measured(ready, &schedule, &goal);
                emit(event);
            }
        }
        Ok(())
    }

    /// NVML, opened on first use (once per process), or why it cannot be.
    fn nvml(&self) -> Result<&Nvml, &str> {
        self.nvml
            .get_or_init(|| {
                let bus_id = self.gpu.pci_bus_id().map_err(|e| e.to_string())?;
                Nvml::open(&bus_id)
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The SM clock now, when NVML can say.
    fn sm_mhz(&self) -> Option<u32> {
        self.nvml().ok().and_then(Nvml::sm_mhz)
    }

    /// What every run's samples must reach, from the plan's timing (which
    /// `gpuprof report` always resolves with a target spread and a time
    /// limit).
    fn goal(&self) -> Result<Goal, GpuError> {
        let timing = self.plan().timing;
        match (timing.target_spread, timing.time_limit_s) {
            (Some(target_spread), Some(time_limit_s)) => Ok(Goal {
                min_samples: timing.repetitions as usize,
                target_spread,
                time_limit_s,
            }),
            _ => Err(GpuError {
                during: "planning the timing".into(),
                message: "the job gives no target spread or time limit".into(),
            }),
        }
    }

    /// Turns of samples, round-robin, until every item reaches `goal`.
    fn take_turns(
        &self,
        prepared: &mut [Prepared],
        size_index: usize,
        goal: &Goal,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), GpuError> {
        let max_mhz = self.nvml().ok().map(|nvml| nvml.max_sm_mhz);
        let mut reported = Instant::now();
        let outcome = sampling::round_robin(
            prepared,
            |ready| ready.stopped.is_some(),
            |ready| {
                if reported.elapsed() >= Duration::from_secs(1) {
                    emit(Event::Sampling {
                        item: ready.item.clone(),
                    });
                    reported = Instant::now();
                }
                let started = Instant::now();
                let (kernel, instance) = (
                    &self.kernels[&ready.key],
                    &ready.variant.instances[size_index],
                );
                let fail = |error| (ready.item.clone(), error);
                self.gpu
                    .start_turn(&ready.sampler, kernel, instance, &ready.buffers)
                    .map_err(fail)?;
                let while_running = self.sm_mhz();
                let (cold, hot) = self.gpu.finish_turn(&ready.sampler).map_err(fail)?;
                let sm_mhz = [while_running, self.sm_mhz()].into_iter().flatten().min();
                let turn = Turn {
                    cold,
                    hot,
                    sm_mhz,
                    seconds: started.elapsed().as_secs_f64(),
                };
                ready.collected.add(turn, max_mhz);
                ready.stopped = ready.collected.stop(goal);
                Ok(())
            },
        );
        match outcome {
            Ok(()) => Ok(()),
            Err((item, error)) => {
                emit(Event::Failed {
                    item,
                    stage: Stage::Timing,
                    message: error.to_string(),
                    fatal: true,
                });
                Err(error)
            }
        }
    }

    /// The event that reports a prepared item's samples.
    fn measured(&self, ready: Prepared, schedule: &Schedule, goal: &Goal) -> Event {
        let method = match ready.sampler.uses_graph() {
            true => TimingMethod::Graph {
                launches_per_hot_sample: ready.sampler.launches_per_hot_sample,
            },
            false => TimingMethod::Events {
                graph_refused: ready.sampler.graph_refused.clone(),
                launches_per_hot_sample: ready.sampler.launches_per_hot_sample,
            },
        };
        let record = TimingRecord {
            method,
            stopped: ready.stopped.unwrap_or(Stop::TimeLimit),
            target_spread: goal.target_spread,
            time_limit_s: goal.time_limit_s,
            throttled_samples: ready.collected.left_out(),
            clock: ready
                .collected
                .clock(self.nvml().map(|nvml| nvml.max_sm_mhz)),
            schedule: schedule.clone(),
            seconds: ready.collected.seconds,
            warm_ups_cut_to: (ready.sampler.warm_ups_made < self.plan().timing.warmup)
                .then_some(ready.sampler.warm_ups_made),
        };
        let (cold, hot) = ready.collected.into_samples();
        Event::Measured {
            item: ready.item,
            samples_ms: hot,
            cold_samples_ms: cold,
            timing: Some(Box::new(record)),
            check: ready.check,
        }
    }
}

fn borrowed(contents: &[Option<Rc<Staged>>]) -> Vec<Option<&Staged>> {
    contents.iter().map(Option::as_deref).collect()
}

/// What decides a buffer's initial contents: buffers with the same key
/// start with the same bytes.
fn content_key(buffer: &Buffer) -> String {
    format!(
        "{}/{:?}/{}/{:?}",
        buffer.name, buffer.element, buffer.count, buffer.fill
    )
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
    (reference, reference_elements): (&Outputs, &BTreeMap<String, ElementType>),
    against: &str,
) -> Check {
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
        // The reference's output may be of another float type (config
        // checks.rs); f16 and bf16 take their own default tolerance
        // (plan.rs), the coarser of the two types' here.
        let elements = data::Elements {
            got: buffer.element,
            want: reference_elements
                .get(&buffer.name)
                .copied()
                .unwrap_or(buffer.element),
        };
        let tolerance = variant.tolerance.for_elements(elements.got, elements.want);
        let result = match data::compare(elements, buffer.compare, got, want, tolerance) {
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
        let unwritten = match buffer.compare {
            Compare::Elementwise => data::left_unwritten(elements, got, want),
            Compare::Sum => 0,
        };
        if result.first_mismatch.is_some() && unwritten > 0 {
            return Check::NotChecked {
                reason: format!(
                    "the reference `{against}` left {unwritten} elements of output `{}` unwritten (still gpuprof's NaN poison) that this variant writes: the reference's grid or block does not cover the output (check its geometry), or the output is larger than it writes (check its count)",
                    buffer.name
                ),
            };
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plan::{Compare, instance_of};

    fn poisoned_output(element: ElementType) -> Instance {
        instance_of(vec![Arg::Buffer(Buffer {
            name: "y".into(),
            element,
            count: 4,
            fill: Fill::Poison,
            output: true,
            compare: Compare::Elementwise,
            symbol: None,
        })])
    }

    #[test]
    fn a_fault_that_surfaces_before_a_kernel_ran_ends_the_process_and_is_not_its_own() {
        let item = Item {
            variant: "col".into(),
            size: "N=1024".into(),
        };
        let failure = |stage: Stage, message: &str| Failure {
            stage,
            error: GpuError {
                during: "loading the compiled module".into(),
                message: message.into(),
            },
            fatal: false,
        };
        let mut events = Vec::new();
        let illegal = "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)";
        let outcome = failed(&item, failure(Stage::Load, illegal), &mut |e| {
            events.push(e)
        });
        assert!(outcome.is_err(), "the process must end");
        let Event::Failed { message, fatal, .. } = &events[0] else {
            panic!("{events:?}");
        };
        assert!(
            *fatal && message.contains("an earlier kernel of this run faulted"),
            "{message}"
        );
        // An error of the kernel's own that leaves the context usable goes on.
        events.clear();
        let missing = "CUDA_ERROR_NOT_FOUND (named symbol not found)";
        assert!(
            failed(&item, failure(Stage::Load, missing), &mut |e| events
                .push(e))
            .is_ok()
        );
        assert!(
            matches!(&events[0], Event::Failed { fatal: false, message, .. } if !message.contains("earlier"))
        );
    }

    #[test]
    fn outputs_are_read_as_the_buffers_of_the_variant_that_wrote_them() {
        // Four f32 values whose low halves, read as f16, are NaN.
        let values = [1.0f32 + f32::EPSILON * 0x3FF as f32, -0.5, 0.25, 2.0];
        let mut bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        bytes[0..2].copy_from_slice(&0x7E01u16.to_le_bytes());
        let outputs: Outputs = [("y".to_string(), bytes)].into();
        // As the f32 reference's own output: no NaN at all.
        assert_eq!(
            read_before_written(&poisoned_output(ElementType::F32), &outputs, Some("f32")),
            None
        );
        // Read as an f16 variant's buffer, its bytes would look computed
        // from the poison: the reference's outputs must not be read so.
        let misread = read_before_written(&poisoned_output(ElementType::F16), &outputs, None);
        assert!(misread.is_some_and(|reason| reason.starts_with("1 elements of output `y`")));
    }
}
