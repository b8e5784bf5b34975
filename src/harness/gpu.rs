//! The CUDA side of the harness, through cudarc: a context on device 0,
//! device facts, loading CUBINs, allocating and filling an item's buffers,
//! launching, event timing, and profiler ranges for ncu. Every CUDA failure
//! becomes a [`GpuError`] carrying the driver's error name.

use std::path::Path;
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdevice_attribute as Attribute};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::protocol::{DriverFacts, KernelResources};
use crate::config::plan::{Arg, ElementType, Instance};

/// A CUDA failure: `during` says what gpuprof was doing.
#[derive(Debug, Clone)]
pub struct GpuError {
    pub during: String,
    pub message: String,
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.during, self.message)
    }
}

fn describe(error: &DriverError) -> String {
    let name = error.error_name().map(|n| n.to_string_lossy().into_owned());
    let text = error
        .error_string()
        .map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(name), Ok(text)) => format!("{name} ({text})"),
        _ => format!("{:?}", error.0),
    }
}

trait During<T> {
    fn during(self, what: impl Into<String>) -> Result<T, GpuError>;
}

impl<T> During<T> for Result<T, DriverError> {
    fn during(self, what: impl Into<String>) -> Result<T, GpuError> {
        self.map_err(|e| GpuError {
            during: what.into(),
            message: describe(&e),
        })
    }
}

pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

pub struct Kernel {
    module: Arc<CudaModule>,
    function: CudaFunction,
    pub resources: KernelResources,
}

/// An item's device buffers, in argument order (scalars hold no buffer).
pub struct Buffers {
    slots: Vec<Option<CudaSlice<u8>>>,
}

/// Whether libcuda can be loaded (cudarc panics on first use otherwise).
pub fn driver_available() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

impl Gpu {
    pub fn open() -> Result<Gpu, GpuError> {
        let context = CudaContext::new(0).during("creating a CUDA context on device 0")?;
        // One stream, so cudarc's per-buffer event tracking is not needed and
        // would add event records to every timed launch.
        // SAFETY: nothing has been allocated on the context yet.
        unsafe { context.disable_event_tracking() };
        let stream = context.default_stream();
        Ok(Gpu { context, stream })
    }

    pub fn facts(&self) -> Result<DriverFacts, GpuError> {
        let attribute = |a: Attribute| {
            self.context
                .attribute(a)
                .during("reading device attributes")
        };
        let mut driver_version = 0;
        // SAFETY: the pointer is valid for one write.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .during("reading the driver version")?;
        let (major, minor) = self
            .context
            .compute_capability()
            .during("reading the compute capability")?;
        Ok(DriverFacts {
            name: self.context.name().during("reading the device name")?,
            compute_capability: (major as u32, minor as u32),
            multiprocessors: attribute(Attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
            sm_clock_khz: attribute(Attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)? as u64,
            memory_clock_khz: attribute(Attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as u64,
            memory_bus_width_bits: attribute(
                Attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
            )? as u32,
            l2_cache_bytes: attribute(Attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64,
            total_memory_bytes: self.context.total_mem().during("reading the memory size")? as u64,
            shared_memory_per_sm_bytes: attribute(
                Attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
            )? as u64,
            max_threads_per_sm: attribute(
                Attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            )? as u32,
            driver_cuda_version: format!(
                "{}.{}",
                driver_version / 1000,
                (driver_version % 1000) / 10
            ),
        })
    }

    pub fn load(&self, cubin: &Path, entry: &str) -> Result<Kernel, GpuError> {
        let binary = std::fs::read(cubin).map_err(|e| GpuError {
            during: format!("reading {}", cubin.display()),
            message: e.to_string(),
        })?;
        let module = self
            .context
            .load_module(Ptx::from_binary(binary))
            .during("loading the compiled module")?;
        let function = module
            .load_function(entry)
            .during(format!("finding kernel `{entry}` in the compiled module"))?;
        let during = "reading the kernel's attributes";
        let resources = KernelResources {
            registers_per_thread: function.num_regs().during(during)? as u32,
            static_shared_bytes: function.shared_size_bytes().during(during)? as u32,
            local_bytes_per_thread: function.local_size_bytes().during(during)? as u32,
            max_threads_per_block: function.max_threads_per_block().during(during)? as u32,
        };
        Ok(Kernel {
            module,
            function,
            resources,
        })
    }

    /// Allocates every buffer of `instance` and uploads its initial
    /// contents (`contents[i]` for argument `i`); symbol buffers go to the
    /// module's variable of that name.
    pub fn upload(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        contents: &[Option<&[u8]>],
    ) -> Result<Buffers, GpuError> {
        let mut slots = Vec::with_capacity(instance.args.len());
        for (arg, bytes) in instance.args.iter().zip(contents) {
            let (Arg::Buffer(buffer), Some(bytes)) = (arg, bytes) else {
                slots.push(None);
                continue;
            };
            if let Some(symbol) = &buffer.symbol {
                let mut view = kernel
                    .module
                    .get_global(symbol, &self.stream)
                    .during(format!(
                        "finding the variable `{symbol}` for buffer `{}`",
                        buffer.name
                    ))?;
                if view.len() != bytes.len() {
                    return Err(GpuError {
                        during: format!("copying buffer `{}` into `{symbol}`", buffer.name),
                        message: format!(
                            "`{symbol}` holds {} bytes but the buffer has {}",
                            view.len(),
                            bytes.len()
                        ),
                    });
                }
                self.stream
                    .memcpy_htod(*bytes, &mut view)
                    .during(format!("copying buffer `{}` into `{symbol}`", buffer.name))?;
                slots.push(None);
                continue;
            }
            let during = format!(
                "allocating buffer `{}` ({} bytes)",
                buffer.name,
                bytes.len()
            );
            slots.push(Some(self.stream.clone_htod(*bytes).during(during)?));
        }
        Ok(Buffers { slots })
    }

    /// Copies buffer `index` back to the host.
    pub fn download(
        &self,
        buffers: &Buffers,
        index: usize,
        name: &str,
    ) -> Result<Vec<u8>, GpuError> {
        match &buffers.slots[index] {
            Some(slice) => self
                .stream
                .clone_dtoh(slice)
                .during(format!("copying output `{name}` back")),
            None => Err(GpuError {
                during: format!("copying output `{name}` back"),
                message: "outputs cannot live in a symbol".into(),
            }),
        }
    }

    /// Enqueues one launch of `kernel` with `instance`'s geometry and args.
    pub fn launch(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        let scalars: Vec<Scalar> = instance
            .args
            .iter()
            .map(|arg| match arg {
                Arg::Scalar(s) => Scalar::new(s.element, s.value),
                Arg::Buffer(_) => Scalar::None,
            })
            .collect();
        let mut builder = self.stream.launch_builder(&kernel.function);
        for (index, arg) in instance.args.iter().enumerate() {
            match (arg, &buffers.slots[index], &scalars[index]) {
                (Arg::Buffer(b), _, _) if b.symbol.is_some() => {}
                (Arg::Buffer(_), Some(slice), _) => {
                    builder.arg(slice);
                }
                (_, _, Scalar::F32(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::F64(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::I32(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::U32(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::I64(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::U64(v)) => {
                    builder.arg(v);
                }
                (_, _, Scalar::None) => {}
            }
        }
        let config = LaunchConfig {
            grid_dim: (instance.grid[0], instance.grid[1], instance.grid[2]),
            block_dim: (instance.block[0], instance.block[1], instance.block[2]),
            shared_mem_bytes: instance.shared_bytes,
        };
        if instance.shared_bytes > 48 * 1024 {
            kernel
                .function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    instance.shared_bytes as i32,
                )
                .during("allowing more than 48 KiB of dynamic shared memory")?;
        }
        // SAFETY: the arguments were pushed in the kernel's declared order
        // with the declared types; buffers outlive the launch because the
        // caller synchronizes before dropping them.
        unsafe { builder.launch(config) }.during("launching the kernel")?;
        Ok(())
    }

    pub fn synchronize(&self, what: &str) -> Result<(), GpuError> {
        self.stream.synchronize().during(what.to_string())
    }

    /// Launches `warmup` times untimed, then `repetitions` times each
    /// between its own pair of events; returns every launch's milliseconds.
    pub fn time(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
        warmup: u32,
        repetitions: u32,
    ) -> Result<Vec<f64>, GpuError> {
        for _ in 0..warmup {
            self.launch(kernel, instance, buffers)?;
        }
        let event = || {
            self.context
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .during("creating timing events")
        };
        let mut pairs = Vec::with_capacity(repetitions as usize);
        for _ in 0..repetitions {
            pairs.push((event()?, event()?));
        }
        for (start, stop) in &pairs {
            start
                .record(&self.stream)
                .during("recording a timing event")?;
            self.launch(kernel, instance, buffers)?;
            stop.record(&self.stream)
                .during("recording a timing event")?;
        }
        self.synchronize("running the timed launches")?;
        pairs
            .iter()
            .map(|(start, stop)| {
                start
                    .elapsed_ms(stop)
                    .map(f64::from)
                    .during("reading a timing event")
            })
            .collect()
    }

    /// Runs `launch` inside cuProfilerStart/Stop: with
    /// `--profile-from-start off`, ncu profiles exactly this launch.
    pub fn profiled(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        self.synchronize("finishing work before the profiled launch")?;
        // SAFETY: plain driver calls on the current context.
        unsafe { sys::cuProfilerStart() }
            .result()
            .during("starting the profiler range")?;
        let launched = self
            .launch(kernel, instance, buffers)
            .and_then(|_| self.synchronize("running the profiled launch"));
        // SAFETY: as above; stopped even when the launch failed.
        let stopped = unsafe { sys::cuProfilerStop() }
            .result()
            .during("stopping the profiler range");
        launched.and(stopped)
    }
}

/// A scalar argument in its C type, kept alive for the launch builder.
enum Scalar {
    None,
    F32(f32),
    F64(f64),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
}

impl Scalar {
    fn new(element: ElementType, value: f64) -> Scalar {
        match element {
            ElementType::F32 => Scalar::F32(value as f32),
            ElementType::F64 => Scalar::F64(value),
            ElementType::I32 => Scalar::I32(value as i32),
            ElementType::U32 => Scalar::U32(value as u32),
            ElementType::I64 => Scalar::I64(value as i64),
            ElementType::U64 => Scalar::U64(value as u64),
        }
    }
}
