//! The CUDA side of the harness, through cudarc: a context on device 0,
//! device facts, loading CUBINs, allocating and filling an item's buffers,
//! launching, timing turns of cold and hot samples with CUDA events (the L2
//! flushed by reading one persistent buffer its size; kernels, or a
//! sequence's launches, under 10 µs inside a CUDA graph), and profiler ranges for ncu. Every CUDA failure
//! becomes a [`GpuError`] carrying the driver's error name.

use std::cell::OnceCell;
use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;

use cudarc::cublas::CudaBlas;
use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdevice_attribute as Attribute};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaGraph, CudaModule, CudaSlice, CudaStream, DevicePtr,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::config::plan::{Arg, ElementType, Instance, LaunchArg};
use crate::model::device::DriverFacts;
use crate::model::measurement::KernelResources;
use crate::model::variant::Library;

/// A CUDA failure: `during` says what gpuprof was doing.
#[derive(Debug, Clone)]
pub struct GpuError {
    pub during: String,
    pub message: String,
}

impl GpuError {
    /// Whether the error leaves the CUDA context unusable (a kernel's
    /// fault: an illegal address, a failed launch, a device-side assert):
    /// every later call of the process fails with it, so the process must
    /// end and a fresh one go on.
    pub fn is_sticky(&self) -> bool {
        const STICKY: [&str; 10] = [
            "CUDA_ERROR_ILLEGAL_ADDRESS",
            "CUDA_ERROR_LAUNCH_FAILED",
            "CUDA_ERROR_MISALIGNED_ADDRESS",
            "CUDA_ERROR_ILLEGAL_INSTRUCTION",
            "CUDA_ERROR_INVALID_ADDRESS_SPACE",
            "CUDA_ERROR_INVALID_PC",
            "CUDA_ERROR_HARDWARE_STACK_ERROR",
            "CUDA_ERROR_ASSERT",
            "CUDA_ERROR_LAUNCH_TIMEOUT",
            "CUDA_ERROR_ECC_UNCORRECTABLE",
        ];
        STICKY.iter().any(|name| self.message.starts_with(name))
    }
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
    /// What flushes the L2 before each cold sample: made for the first
    /// one, kept for the life of the process.
    flush: OnceCell<L2Flush>,
}

/// The L2 flush: a zeroed buffer the size of the L2 and the kernel that
/// reads it ([`READ_FLUSH_PTX`]), so that the L2 is left holding clean
/// lines that are none of the timed kernel's. Writing over the buffer
/// instead (a memset, as nvbench does) would leave it full of dirty
/// lines, and a short kernel's cold time would include writing them back.
struct L2Flush {
    buffer: CudaSlice<u32>,
    /// Where the kernel would store a sum it never finds.
    sink: CudaSlice<u32>,
    /// The kernel (it keeps its module loaded).
    function: CudaFunction,
    blocks: u32,
}

/// The flush kernel, in PTX that any driver since CUDA 11 compiles.
const READ_FLUSH_PTX: &str = include_str!("read_flush.ptx");

/// Threads per block and blocks per SM of the flush kernel: enough loads
/// in flight to read the buffer at the memory's full bandwidth.
const FLUSH_THREADS: u32 = 256;
const FLUSH_BLOCKS_PER_SM: u32 = 8;

/// What an item launches: the kernels of a loaded module (one per entry of
/// the variant, in order), or a library call.
pub enum Kernel {
    Module {
        module: Arc<CudaModule>,
        functions: Vec<(CudaFunction, KernelResources)>,
    },
    /// cuBLAS SGEMM on the harness's stream, in pedantic (pure FP32) math,
    /// computing C = alpha·A·B + beta·C.
    Sgemm {
        blas: CudaBlas,
        alpha: f32,
        beta: f32,
    },
}

impl Kernel {
    pub fn resources(&self) -> Option<KernelResources> {
        match self {
            Kernel::Module { functions, .. } => functions.first().map(|(_, r)| *r),
            Kernel::Sgemm { .. } => None,
        }
    }
}

/// A buffer's initial contents, copied into the buffers of every variant
/// that starts with them: from the device when they fit there (far faster
/// than another upload from host memory), else from host memory.
pub enum Staged {
    Device(CudaSlice<u8>),
    Host(Vec<u8>),
}

impl Staged {
    fn len(&self) -> usize {
        match self {
            Staged::Device(slice) => slice.len(),
            Staged::Host(bytes) => bytes.len(),
        }
    }
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
        // A stream of its own, not the legacy default one: only such a
        // stream can be captured into a CUDA graph.
        let stream = context
            .new_stream()
            .during("creating the harness's stream")?;
        Ok(Gpu {
            context,
            stream,
            flush: OnceCell::new(),
        })
    }

    /// The device's PCI bus id ("0000:4E:00.0"), by which NVML finds it.
    pub fn pci_bus_id(&self) -> Result<CString, GpuError> {
        let mut text = [0 as std::ffi::c_char; 32];
        // SAFETY: the buffer is valid for its length.
        unsafe {
            sys::cuDeviceGetPCIBusId(
                text.as_mut_ptr(),
                text.len() as i32,
                self.context.cu_device(),
            )
        }
        .result()
        .during("reading the device's PCI bus id")?;
        // SAFETY: the driver wrote a NUL-terminated string into the buffer.
        Ok(unsafe { std::ffi::CStr::from_ptr(text.as_ptr()) }.to_owned())
    }

    /// Bytes of device memory free now.
    pub fn free_memory(&self) -> Result<u64, GpuError> {
        let (free, _) = self
            .context
            .mem_get_info()
            .during("reading the free device memory")?;
        Ok(free as u64)
    }

    /// The bytes of the L2 flush buffer (the L2's size).
    pub fn l2_bytes(&self) -> Result<u64, GpuError> {
        Ok(self
            .context
            .attribute(Attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
            .during("reading the L2 size")? as u64)
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
            processes_may_share: attribute(Attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)?
                == sys::CUcomputemode::CU_COMPUTEMODE_DEFAULT as i32,
        })
    }

    /// Loads `cubin` and its kernels `symbols`, in order.
    pub fn load(&self, cubin: &Path, symbols: &[String]) -> Result<Kernel, GpuError> {
        let binary = std::fs::read(cubin).map_err(|e| GpuError {
            during: format!("reading {}", cubin.display()),
            message: e.to_string(),
        })?;
        let module = self
            .context
            .load_module(Ptx::from_binary(binary))
            .during("loading the compiled module")?;
        let functions = symbols
            .iter()
            .map(|symbol| {
                let function = module
                    .load_function(symbol)
                    .during(format!("finding kernel `{symbol}` in the compiled module"))?;
                let during = "reading the kernel's attributes";
                let resources = KernelResources {
                    registers_per_thread: function.num_regs().during(during)? as u32,
                    static_shared_bytes: function.shared_size_bytes().during(during)? as u32,
                    local_bytes_per_thread: function.local_size_bytes().during(during)? as u32,
                    max_threads_per_block: function.max_threads_per_block().during(during)? as u32,
                };
                Ok((function, resources))
            })
            .collect::<Result<_, GpuError>>()?;
        Ok(Kernel::Module { module, functions })
    }

    /// A cuBLAS handle on this stream that computes in FP32 only
    /// (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores), for `library`.
    pub fn sgemm(&self, library: Library) -> Result<Kernel, GpuError> {
        let Library::CublasSgemm { alpha, beta } = library;
        // SAFETY: only tries to dlopen the library (cudarc panics on first
        // use when it is missing).
        if !unsafe { cudarc::cublas::sys::is_culib_present() } {
            return Err(GpuError {
                during: "loading cuBLAS".into(),
                message: "libcublas.so was not found: install the CUDA toolkit's cuBLAS or add its folder to LD_LIBRARY_PATH".into(),
            });
        }
        let blas = CudaBlas::new(self.stream.clone()).map_err(|e| GpuError {
            during: "creating a cuBLAS handle".into(),
            message: format!("{e:?}"),
        })?;
        // SAFETY: the handle is live for the call.
        unsafe {
            cudarc::cublas::sys::cublasSetMathMode(
                *blas.handle(),
                cudarc::cublas::sys::cublasMath_t::CUBLAS_PEDANTIC_MATH,
            )
        }
        .result()
        .map_err(|e| GpuError {
            during: "setting cuBLAS to FP32 math".into(),
            message: format!("{e:?}"),
        })?;
        Ok(Kernel::Sgemm { blas, alpha, beta })
    }

    /// Puts a buffer's initial contents on the device, once per size.
    pub fn stage(&self, bytes: &[u8], name: &str) -> Result<Staged, GpuError> {
        self.stream
            .clone_htod(bytes)
            .map(Staged::Device)
            .during(format!(
                "uploading the initial contents of buffer `{name}` ({} bytes)",
                bytes.len()
            ))
    }

    /// Allocates every buffer of `instance` and copies its initial contents
    /// into it (`contents[i]` for argument `i`); symbol buffers go to the
    /// module's variable of that name.
    pub fn upload(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        contents: &[Option<&Staged>],
    ) -> Result<Buffers, GpuError> {
        let mut slots = Vec::with_capacity(instance.args.len());
        for (arg, staged) in instance.args.iter().zip(contents) {
            let (Arg::Buffer(buffer), Some(staged)) = (arg, staged) else {
                slots.push(None);
                continue;
            };
            if let Some(symbol) = &buffer.symbol {
                let Kernel::Module { module, .. } = kernel else {
                    return Err(GpuError {
                        during: format!("copying buffer `{}` into `{symbol}`", buffer.name),
                        message: "a library call has no module variables".into(),
                    });
                };
                let mut view = module.get_global(symbol, &self.stream).during(format!(
                    "finding the variable `{symbol}` for buffer `{}`",
                    buffer.name
                ))?;
                if view.len() != staged.len() {
                    return Err(GpuError {
                        during: format!("copying buffer `{}` into `{symbol}`", buffer.name),
                        message: format!(
                            "`{symbol}` holds {} bytes but the buffer has {}",
                            view.len(),
                            staged.len()
                        ),
                    });
                }
                match staged {
                    Staged::Device(slice) => self.stream.memcpy_dtod(slice, &mut view),
                    Staged::Host(bytes) => self.stream.memcpy_htod(bytes, &mut view),
                }
                .during(format!("copying buffer `{}` into `{symbol}`", buffer.name))?;
                slots.push(None);
                continue;
            }
            let during = format!(
                "allocating buffer `{}` ({} bytes)",
                buffer.name,
                staged.len()
            );
            let slot = match staged {
                Staged::Device(slice) => self.stream.clone_dtod(slice),
                Staged::Host(bytes) => self.stream.clone_htod(bytes),
            };
            slots.push(Some(slot.during(during)?));
        }
        Ok(Buffers { slots })
    }

    /// Copies buffer `index` back to the host, into `host` (resized to fit;
    /// reusing a buffer of the same size spares touching new host memory).
    pub fn download(
        &self,
        buffers: &Buffers,
        index: usize,
        name: &str,
        host: &mut Vec<u8>,
    ) -> Result<(), GpuError> {
        let during = || format!("copying output `{name}` back");
        match &buffers.slots[index] {
            Some(slice) => {
                host.resize(slice.len(), 0);
                self.stream.memcpy_dtoh(slice, host).during(during())
            }
            None => Err(GpuError {
                during: during(),
                message: "outputs cannot live in a symbol".into(),
            }),
        }
    }

    /// Enqueues the variant's launches: one of its kernel with `instance`'s
    /// geometry and args, or, for a sequence, each step in order.
    pub fn launch(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        let functions = match kernel {
            Kernel::Module { functions, .. } => functions,
            Kernel::Sgemm { blas, alpha, beta } => {
                return self.launch_sgemm(blas, (*alpha, *beta), instance, buffers);
            }
        };
        for launch in instance.launches() {
            let params: Vec<Param> = launch
                .args
                .into_iter()
                .map(|arg| match arg {
                    LaunchArg::Buffer {
                        index,
                        buffer,
                        offset,
                    } => Param::Buffer {
                        index,
                        bytes: offset as usize * buffer.element.size_bytes(),
                    },
                    LaunchArg::Scalar(s) => Param::Scalar(Scalar::new(s.element, s.value)),
                })
                .collect();
            let function = &functions
                .get(launch.kernel)
                .ok_or_else(|| GpuError {
                    during: "launching a step of the sequence".into(),
                    message: format!("the module has no kernel {}", launch.kernel),
                })?
                .0;
            let geometry = (launch.grid, launch.block, launch.shared_bytes);
            self.launch_one(function, geometry, &params, buffers)?;
        }
        Ok(())
    }

    /// That every launch of `instance` passes each parameter of its kernel
    /// as many bytes as the compiled kernel declares (read with
    /// `cuFuncGetParamInfo`), and as many parameters: the driver copies
    /// the declared bytes from what it is handed, so an 8-byte pointer for
    /// a 16-byte struct, or a parameter too few, would be garbage in the
    /// kernel rather than an error. Integer scalars may be wider than
    /// their parameter (the kernel reads the low bytes; the config checked
    /// the value fits). `entries` names the kernels as `instance.sequence`
    /// indexes them (the first for a single launch).
    pub fn check_parameters(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        entries: &[String],
    ) -> Result<(), GpuError> {
        let Kernel::Module { functions, .. } = kernel else {
            return Ok(());
        };
        let launches: Vec<(usize, Vec<Passed>)> = instance
            .launches()
            .into_iter()
            .map(|launch| {
                let passed = launch.args.into_iter().map(|arg| match arg {
                    LaunchArg::Buffer { buffer, .. } => (buffer.name.as_str(), 8, None),
                    LaunchArg::Scalar(scalar) => (
                        scalar.name.as_str(),
                        scalar.element.size_bytes(),
                        Some(scalar.element),
                    ),
                });
                (launch.kernel, passed.collect())
            })
            .collect();
        for (index, args) in launches {
            let Some((function, _)) = functions.get(index) else {
                continue;
            };
            let entry = entries.get(index).map_or("the kernel", String::as_str);
            let during = || format!("checking the arguments of `{entry}`");
            let declared = |at: usize| {
                let (mut offset, mut size) = (0usize, 0usize);
                // SAFETY: a loaded function and two out-pointers to locals.
                let code = unsafe {
                    sys::cuFuncGetParamInfo(function.cu_function(), at, &mut offset, &mut size)
                };
                (code == sys::CUresult::CUDA_SUCCESS).then_some(size)
            };
            for (at, (name, bytes, scalar)) in args.iter().enumerate() {
                let Some(size) = declared(at) else {
                    return Err(GpuError {
                        during: during(),
                        message: format!(
                            "`{entry}` takes {} but the launch passes {} (the extra one is `{name}`)",
                            crate::analysis::format::counted(at, "parameter"),
                            crate::analysis::format::counted(args.len(), "argument")
                        ),
                    });
                };
                let widened = scalar.is_some_and(|e| !e.is_float()) && *bytes >= size;
                if size != *bytes && !widened {
                    let what = match scalar {
                        None => format!("buffer `{name}`, an 8-byte pointer"),
                        Some(element) => {
                            format!(
                                "scalar `{name}`, {} of {bytes} bytes",
                                element.with_article()
                            )
                        }
                    };
                    let fix = match size {
                        1 | 2 | 4 | 8 => "declare the argument with the parameter's type",
                        _ => {
                            "gpuprof passes pointers and scalars only, so a kernel that takes a struct or vector by value needs a wrapper kernel that builds it from those"
                        }
                    };
                    return Err(GpuError {
                        during: during(),
                        message: format!(
                            "parameter {} of `{entry}` is {size} bytes wide, but the launch passes {what}: {fix}",
                            at + 1
                        ),
                    });
                }
            }
            if declared(args.len()).is_some() {
                let mut count = args.len() + 1;
                while declared(count).is_some() {
                    count += 1;
                }
                return Err(GpuError {
                    during: during(),
                    message: format!(
                        "`{entry}` takes {} but the launch passes {}",
                        crate::analysis::format::counted(count, "parameter"),
                        crate::analysis::format::counted(args.len(), "argument")
                    ),
                });
            }
        }
        Ok(())
    }

    /// Enqueues one launch of `function` with `(grid, block, shared
    /// bytes)` and `params` in declared order.
    fn launch_one(
        &self,
        function: &CudaFunction,
        (grid, block, shared_bytes): ([u32; 3], [u32; 3], u32),
        params: &[Param],
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        // A buffer passed from an offset on is a view into it, made before
        // the builder borrows the arguments.
        let mut views = Vec::with_capacity(params.len());
        for param in params {
            views.push(match param {
                Param::Buffer { index, bytes } if *bytes > 0 => {
                    let slice = buffers.slots[*index].as_ref().ok_or_else(|| GpuError {
                        during: "launching the kernel".into(),
                        message: format!("argument {index} has no device buffer"),
                    })?;
                    if *bytes >= slice.len() {
                        return Err(GpuError {
                            during: "launching the kernel".into(),
                            message: format!(
                                "argument {index} starts {bytes} bytes into a buffer of {}",
                                slice.len()
                            ),
                        });
                    }
                    Some(slice.slice(*bytes..))
                }
                _ => None,
            });
        }
        let mut builder = self.stream.launch_builder(function);
        for (param, view) in params.iter().zip(&views) {
            match param {
                Param::Buffer { index, .. } => match (view, &buffers.slots[*index]) {
                    (Some(view), _) => {
                        builder.arg(view);
                    }
                    (None, Some(slice)) => {
                        builder.arg(slice);
                    }
                    (None, None) => {
                        return Err(GpuError {
                            during: "launching the kernel".into(),
                            message: format!("argument {index} has no device buffer"),
                        });
                    }
                },
                Param::Scalar(Scalar::F32(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::F64(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::I8(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::U8(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::I16(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::U16(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::I32(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::U32(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::I64(v)) => {
                    builder.arg(v);
                }
                Param::Scalar(Scalar::U64(v)) => {
                    builder.arg(v);
                }
            }
        }
        let config = LaunchConfig {
            grid_dim: (grid[0], grid[1], grid[2]),
            block_dim: (block[0], block[1], block[2]),
            shared_mem_bytes: shared_bytes,
        };
        if shared_bytes > 48 * 1024 {
            function
                .set_attribute(
                    sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    shared_bytes as i32,
                )
                .during("allowing more than 48 KiB of dynamic shared memory")?;
        }
        // SAFETY: the arguments were pushed in the kernel's declared order
        // with the declared types; buffers outlive the launch because the
        // caller synchronizes before dropping them.
        unsafe { builder.launch(config) }.during("launching the kernel")?;
        Ok(())
    }

    /// Row-major C (m×n) = alpha·A (m×k) · B (k×n) + beta·C as cuBLAS's
    /// column-major Cᵀ = alpha·Bᵀ·Aᵀ + beta·Cᵀ (a row-major matrix is its
    /// transpose in column-major order, so no operand is transposed): A and
    /// B are the first two f32 inputs, C the first f32 output (config
    /// checked their sizes). With beta 0 cuBLAS does not read C; otherwise
    /// C holds its initial contents, as a kernel's read-write output does.
    fn launch_sgemm(
        &self,
        blas: &CudaBlas,
        (alpha, beta): (f32, f32),
        instance: &Instance,
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        let failed = |message: String| GpuError {
            during: "calling cublasSgemm".into(),
            message,
        };
        let [m, n, k] = instance
            .gemm
            .ok_or_else(|| failed("the plan gives no m, n, k".into()))?;
        let mut inputs = Vec::new();
        let mut output = None;
        for (index, arg) in instance.args.iter().enumerate() {
            if let (Arg::Buffer(buffer), Some(slice)) = (arg, &buffers.slots[index])
                && buffer.element == ElementType::F32
            {
                if buffer.output {
                    output = output.or(Some(slice));
                } else {
                    inputs.push(slice);
                }
            }
        }
        let (Some(a), Some(b), Some(c)) = (inputs.first(), inputs.get(1), output) else {
            return Err(failed("it needs two f32 inputs and an f32 output".into()));
        };
        let (a, _a_sync) = a.device_ptr(&self.stream);
        let (b, _b_sync) = b.device_ptr(&self.stream);
        let (c, _c_sync) = c.device_ptr(&self.stream);
        let int = |v: u32| v as std::ffi::c_int;
        let none = cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the pointers are live device buffers of the sizes the
        // config checked (A m×k, B k×n, C m×n floats), on the handle's stream.
        unsafe {
            cudarc::cublas::result::sgemm(
                *blas.handle(),
                none,
                none,
                int(n),
                int(m),
                int(k),
                &alpha,
                b as *const f32,
                int(n),
                a as *const f32,
                int(k),
                &beta,
                c as *mut f32,
                int(n),
            )
        }
        .map_err(|e| failed(format!("{e:?}")))
    }

    pub fn synchronize(&self, what: &str) -> Result<(), GpuError> {
        self.stream.synchronize().during(what.to_string())
    }

    fn event(&self) -> Result<CudaEvent, GpuError> {
        self.context
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .during("creating timing events")
    }

    /// Records `event` on the stream; while the stream is captured, as an
    /// event node of the graph.
    fn record(&self, event: &CudaEvent, captured: bool) -> Result<(), GpuError> {
        let flags = match captured {
            true => sys::CUevent_record_flags::CU_EVENT_RECORD_EXTERNAL as u32,
            false => sys::CUevent_record_flags::CU_EVENT_RECORD_DEFAULT as u32,
        };
        // SAFETY: a live event and stream of this context.
        unsafe { sys::cuEventRecordWithFlags(event.cu_event(), self.stream.cu_stream(), flags) }
            .result()
            .during("recording a timing event")
    }

    /// Reads the L2 flush buffer (made on first use), so that the next
    /// launch finds none of its data in L2 and no dirty lines to write
    /// back.
    fn flush_l2(&self) -> Result<(), GpuError> {
        let flush = match self.flush.get() {
            Some(flush) => flush,
            None => {
                let flush = self.make_flush()?;
                self.flush.get_or_init(|| flush)
            }
        };
        let words = flush.buffer.len() as u64 / 4;
        let config = LaunchConfig {
            grid_dim: (flush.blocks, 1, 1),
            block_dim: (FLUSH_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut builder = self.stream.launch_builder(&flush.function);
        builder.arg(&flush.buffer).arg(&words).arg(&flush.sink);
        // SAFETY: read_flush takes (buffer, 16-byte words in it, sink),
        // and the buffer holds `words` of them.
        unsafe { builder.launch(config) }
            .map(|_| ())
            .during("flushing the L2")
    }

    /// Allocates the flush buffer (the L2's size, in whole 16-byte words)
    /// and loads the kernel that reads it.
    fn make_flush(&self) -> Result<L2Flush, GpuError> {
        let words = (self.l2_bytes()? as usize).div_ceil(16).max(1);
        let buffer = self
            .stream
            .alloc_zeros::<u32>(words * 4)
            .during("allocating the L2 flush buffer")?;
        let sink = self
            .stream
            .alloc_zeros::<u32>(1)
            .during("allocating the L2 flush buffer")?;
        let module = self
            .context
            .load_module(Ptx::from_src(READ_FLUSH_PTX))
            .during("loading the L2 flush kernel")?;
        let function = module
            .load_function("read_flush")
            .during("loading the L2 flush kernel")?;
        let sms = self
            .context
            .attribute(Attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .during("reading the SM count")? as u32;
        Ok(L2Flush {
            buffer,
            sink,
            function,
            blocks: sms.max(1) * FLUSH_BLOCKS_PER_SM,
        })
    }

    /// Enqueues one turn: `events.cold` samples, each a flush then one
    /// launch between its events; then one untimed launch (so that the L2
    /// holds this kernel's data) and `events.hot` samples, each
    /// `launches_per_hot_sample` launches between its events.
    fn enqueue_turn(
        &self,
        launch: &dyn Fn() -> Result<(), GpuError>,
        events: &TurnEvents,
        launches_per_hot_sample: u32,
        captured: bool,
    ) -> Result<(), GpuError> {
        for (start, stop) in &events.cold {
            self.flush_l2()?;
            self.record(start, captured)?;
            launch()?;
            self.record(stop, captured)?;
        }
        launch()?;
        for (start, stop) in &events.hot {
            self.record(start, captured)?;
            for _ in 0..launches_per_hot_sample {
                launch()?;
            }
            self.record(stop, captured)?;
        }
        Ok(())
    }

    /// Prepares the turns of an item: makes its `warmup` launches (at
    /// least one; of a slow kernel two, and more only as far as they fit
    /// in a quarter of `time_limit_s`, [`warm_ups_within`]), each between
    /// events, and from their median (of those cut short, the median
    /// after the first) chooses the method and the turn. On an idle GPU
    /// those events also span the host's work of launching, so a median
    /// under [`GAP_CHECK_BELOW_MS`] is taken again without gaps: the
    /// warm-ups back to back inside a CUDA graph. A kernel under [`GRAPH_BELOW_MS`] (a sequence whose
    /// launches take that long on average) is then captured in a CUDA
    /// graph of `samples_per_turn` cold and hot samples (falling back to
    /// events around each launch, with the reason, when the capture
    /// fails); a longer one is timed by events around each cold launch and
    /// around [`HOT_SAMPLE_MS`] or more of back-to-back hot launches, in
    /// turns of at most `samples_per_turn` of each kind and at most a
    /// quarter of `time_limit_s`, so that a slow kernel does not overrun
    /// its time limit by a whole turn.
    pub fn sampler(
        &self,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
        warmup: u32,
        samples_per_turn: usize,
        time_limit_s: f64,
    ) -> Result<Sampler, GpuError> {
        let launch = || self.launch(kernel, instance, buffers);
        let warm_up = |count: usize| -> Result<Vec<f64>, GpuError> {
            let events = TurnEvents::new(self, 0, count)?;
            for (start, stop) in &events.hot {
                self.record(start, false)?;
                launch()?;
                self.record(stop, false)?;
            }
            self.synchronize("warming up")?;
            events.read(&events.hot, 1)
        };
        // The first two warm-ups alone: the second, without the first's
        // one-off costs (loading the kernel, a library's set-up), says
        // what the others would cost.
        let mut warm_up_ms = warm_up(1)?;
        let mut warm_ups_made = 1;
        if warmup >= 2 {
            let second_ms = warm_up(1)?[0];
            warm_up_ms.push(second_ms);
            warm_ups_made = warm_ups_within(warmup, second_ms, time_limit_s);
            if warm_ups_made > 2 {
                warm_up_ms.extend(warm_up(warm_ups_made as usize - 2)?);
            }
        }
        // Cut short, the median leaves out the first, whose one-off costs
        // would weigh among so few.
        let steady = match warm_ups_made < warmup {
            true => &mut warm_up_ms[1..],
            false => &mut warm_up_ms[..],
        };
        steady.sort_by(f64::total_cmp);
        let mut typical_ms = steady[steady.len() / 2];
        // A sequence's launches each leave a gap for the CPU to fill: it
        // is the time per launch that says whether the gaps show.
        let sequence = instance.sequence.len().max(1) as f64;
        if typical_ms / sequence < GAP_CHECK_BELOW_MS {
            let launches = launches_spanning(GRAPH_SAMPLE_MS, typical_ms, warmup.max(2));
            match self.graph_ms(&launch, launches) {
                Ok(ms) => typical_ms = ms,
                // A fault ends the process wherever it surfaces.
                Err(error) if error.is_sticky() => return Err(error),
                // No graph: the events' median decides, as for a longer
                // kernel, and a short one meets the refusal again below,
                // where it is reported.
                Err(_) => {}
            }
        }
        let per_launch_ms = typical_ms / sequence;
        if per_launch_ms >= GRAPH_BELOW_MS {
            let launches = launches_spanning(HOT_SAMPLE_MS, typical_ms, 1);
            let per_turn = (time_limit_s * 1000.0 / 4.0 / ((1 + launches) as f64 * typical_ms))
                .floor() as usize;
            return Ok(Sampler {
                events: TurnEvents::new(
                    self,
                    per_turn.clamp(1, samples_per_turn),
                    per_turn.clamp(1, samples_per_turn),
                )?,
                graph: None,
                launches_per_hot_sample: launches,
                graph_refused: None,
                warm_ups_made,
            });
        }
        let events = TurnEvents::new(self, samples_per_turn, samples_per_turn)?;
        // Enough back-to-back launches per hot sample to fill ~50 µs.
        let launches = launches_spanning(GRAPH_SAMPLE_MS, typical_ms, 2);
        match self.capture(&launch, &events, launches) {
            Ok(graph) => Ok(Sampler {
                events,
                graph: Some(graph),
                launches_per_hot_sample: launches,
                graph_refused: None,
                warm_ups_made,
            }),
            Err(error) => Ok(Sampler {
                events,
                graph: None,
                launches_per_hot_sample: 1,
                graph_refused: Some(error.to_string()),
                warm_ups_made,
            }),
        }
    }

    /// The milliseconds of one launch (or sequence) timed without gaps:
    /// `launches` back to back between one pair of events, inside a CUDA
    /// graph, after one untimed launch.
    fn graph_ms(
        &self,
        launch: &dyn Fn() -> Result<(), GpuError>,
        launches: u32,
    ) -> Result<f64, GpuError> {
        let events = TurnEvents::new(self, 0, 1)?;
        let graph = self.capture(launch, &events, launches)?;
        graph.launch().during("launching a CUDA graph")?;
        self.synchronize("timing the warm-ups in a CUDA graph")?;
        Ok(events.read(&events.hot, launches)?[0])
    }

    /// A CUDA graph of one turn; the stream leaves capture mode either way.
    fn capture(
        &self,
        launch: &dyn Fn() -> Result<(), GpuError>,
        events: &TurnEvents,
        launches_per_hot_sample: u32,
    ) -> Result<CudaGraph, GpuError> {
        self.flush_l2()?;
        self.synchronize("allocating the L2 flush buffer")?;
        self.stream
            .begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .during("capturing a CUDA graph")?;
        let enqueued = self.enqueue_turn(launch, events, launches_per_hot_sample, true);
        let graph = self
            .stream
            .end_capture(sys::CUgraphInstantiate_flags(0))
            .during("capturing a CUDA graph");
        enqueued?;
        let graph = graph?.ok_or_else(|| GpuError {
            during: "capturing a CUDA graph".into(),
            message: "the capture recorded nothing".into(),
        })?;
        graph.upload().during("uploading a CUDA graph")?;
        Ok(graph)
    }

    /// Enqueues one turn of `sampler`'s samples; [`Gpu::finish_turn`]
    /// waits for it and reads them.
    pub fn start_turn(
        &self,
        sampler: &Sampler,
        kernel: &Kernel,
        instance: &Instance,
        buffers: &Buffers,
    ) -> Result<(), GpuError> {
        match &sampler.graph {
            Some(graph) => graph.launch().during("launching a CUDA graph"),
            None => self.enqueue_turn(
                &|| self.launch(kernel, instance, buffers),
                &sampler.events,
                sampler.launches_per_hot_sample,
                false,
            ),
        }
    }

    /// Waits for the turn and returns its cold and hot samples in
    /// milliseconds (a hot sample per launch).
    pub fn finish_turn(&self, sampler: &Sampler) -> Result<(Vec<f64>, Vec<f64>), GpuError> {
        self.synchronize("running the timed launches")?;
        let events = &sampler.events;
        Ok((
            events.read(&events.cold, 1)?,
            events.read(&events.hot, sampler.launches_per_hot_sample)?,
        ))
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

/// Kernels whose launch takes less than this are timed in a CUDA graph.
const GRAPH_BELOW_MS: f64 = 0.010;

/// Warm-ups whose events give less than this per launch are timed again
/// in a CUDA graph before the method is chosen: the host's own launching
/// can make a 3 µs kernel look longer than [`GRAPH_BELOW_MS`] while the GPU
/// is idle (on the lent H100, kernels that a graph times at 1.0–3.7 µs got
/// events that way, which timed them at 3.3–5.8 µs).
const GAP_CHECK_BELOW_MS: f64 = 0.100;

/// The time a hot sample of the graph method spans, in back-to-back
/// launches.
const GRAPH_SAMPLE_MS: f64 = 0.050;

/// The least time a hot sample of the events method spans, in
/// back-to-back launches: a pair of events around one launch adds up to a
/// few µs to it (on the lent H100 cold launches timed 1.3–2.7 µs above
/// ncu's durations, and ten launches a sample took 0.65 µs off a 23 µs hot
/// one), which over 0.2 ms is about 1% at most.
const HOT_SAMPLE_MS: f64 = 0.200;

/// How many of `warmup` warm-ups a kernel makes whose steady launch (its
/// second) takes `launch_ms`: as many as fit within a quarter of
/// `time_limit_s`, as a turn does (a 277 ms kernel made 0.83 s of
/// warm-ups against a 1 s time limit), but never fewer than two of two or
/// more asked, nor than one.
fn warm_ups_within(warmup: u32, launch_ms: f64, time_limit_s: f64) -> u32 {
    let affordable = (time_limit_s * 1000.0 / 4.0 / launch_ms.max(1e-6)).floor();
    let fewest = warmup.clamp(1, 2);
    (affordable.min(f64::from(warmup)) as u32).clamp(fewest, warmup.max(1))
}

/// The most launches one sample spans.
const MOST_LAUNCHES_PER_SAMPLE: u32 = 1000;

/// How many back-to-back launches of `typical_ms` each span `span_ms`: at
/// least `fewest` (a `warmup` above the most is held to it), at most
/// [`MOST_LAUNCHES_PER_SAMPLE`].
fn launches_spanning(span_ms: f64, typical_ms: f64, fewest: u32) -> u32 {
    let most = MOST_LAUNCHES_PER_SAMPLE;
    ((span_ms / typical_ms.max(1e-4)).ceil() as u32).clamp(fewest.min(most), most)
}

/// The event pairs of one turn, cold samples then hot ones.
pub struct TurnEvents {
    cold: Vec<(CudaEvent, CudaEvent)>,
    hot: Vec<(CudaEvent, CudaEvent)>,
}

impl TurnEvents {
    fn new(gpu: &Gpu, cold: usize, hot: usize) -> Result<TurnEvents, GpuError> {
        let pairs = |count: usize| -> Result<Vec<_>, GpuError> {
            (0..count)
                .map(|_| Ok((gpu.event()?, gpu.event()?)))
                .collect()
        };
        Ok(TurnEvents {
            cold: pairs(cold)?,
            hot: pairs(hot)?,
        })
    }

    /// Each pair's milliseconds over `launches`.
    fn read(&self, pairs: &[(CudaEvent, CudaEvent)], launches: u32) -> Result<Vec<f64>, GpuError> {
        pairs
            .iter()
            .map(|(start, stop)| {
                start
                    .elapsed_ms(stop)
                    .map(|ms| f64::from(ms) / f64::from(launches))
                    .during("reading a timing event")
            })
            .collect()
    }
}

/// How an item's turns are taken: its events, and its CUDA graph when it
/// is timed by one.
pub struct Sampler {
    events: TurnEvents,
    graph: Option<CudaGraph>,
    pub launches_per_hot_sample: u32,
    /// Why the graph method was wanted but refused.
    pub graph_refused: Option<String>,
    /// The warm-up launches made (fewer than asked for a slow kernel).
    pub warm_ups_made: u32,
}

impl Sampler {
    pub fn uses_graph(&self) -> bool {
        self.graph.is_some()
    }
}

/// One kernel parameter: a device buffer (by argument index) or a scalar.
enum Param {
    /// Buffer `index` of the instance, from `bytes` into it on.
    Buffer {
        index: usize,
        bytes: usize,
    },
    Scalar(Scalar),
}

/// One argument as a launch passes it: its name, how many bytes (8 for a
/// buffer's pointer) and, for a scalar, its type.
type Passed<'a> = (&'a str, usize, Option<ElementType>);

/// A scalar argument in its C type, kept alive for the launch builder: its
/// width is the parameter's (1 byte for `i8`/`u8`, 2 for `i16`/`u16` and
/// the 2-byte floats), since the driver copies as many bytes as the kernel
/// declares. An f16 or bf16 travels as its 16 bits (`__half` and
/// `__nv_bfloat16` are 2-byte, 2-aligned structs of exactly those bits).
enum Scalar {
    F32(f32),
    F64(f64),
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
}

impl Scalar {
    fn new(element: ElementType, value: f64) -> Scalar {
        match element {
            ElementType::F16 => Scalar::U16(half::f16::from_f64(value).to_bits()),
            ElementType::Bf16 => Scalar::U16(half::bf16::from_f64(value).to_bits()),
            ElementType::F32 => Scalar::F32(value as f32),
            ElementType::F64 => Scalar::F64(value),
            ElementType::I8 => Scalar::I8(value as i8),
            ElementType::U8 => Scalar::U8(value as u8),
            ElementType::I16 => Scalar::I16(value as i16),
            ElementType::U16 => Scalar::U16(value as u16),
            ElementType::I32 => Scalar::I32(value as i32),
            ElementType::U32 => Scalar::U32(value as u32),
            ElementType::I64 => Scalar::I64(value as i64),
            ElementType::U64 => Scalar::U64(value as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_spans_enough_launches_within_the_bounds() {
        // 0.2 ms of a 23 µs kernel: 9 launches; of a 1 ms kernel: one.
        assert_eq!(launches_spanning(HOT_SAMPLE_MS, 0.023, 1), 9);
        assert_eq!(launches_spanning(HOT_SAMPLE_MS, 1.0, 1), 1);
        assert_eq!(launches_spanning(GRAPH_SAMPLE_MS, 1.0, 2), 2);
        // A kernel too short to time still gets the most, not infinity.
        assert_eq!(launches_spanning(GRAPH_SAMPLE_MS, 0.0, 2), 500);
        assert_eq!(launches_spanning(HOT_SAMPLE_MS, 1e-6, 1), 1000);
        // A warm-up count above the most is held to it (clamp would panic
        // with its least above its most).
        assert_eq!(launches_spanning(GRAPH_SAMPLE_MS, 0.004, 5000), 1000);
    }

    #[test]
    fn a_slow_kernel_makes_only_the_warm_ups_a_quarter_of_its_time_limit_holds() {
        // A 277 ms kernel against a 1 s limit: two warm-ups, not three or
        // five (the second is the one that shows its steady time).
        assert_eq!(warm_ups_within(3, 277.0, 1.0), 2);
        assert_eq!(warm_ups_within(5, 277.0, 1.0), 2);
        // 60 ms: four fit in 250 ms; 10 ms: all five; a longer limit
        // holds more.
        assert_eq!(warm_ups_within(5, 60.0, 1.0), 4);
        assert_eq!(warm_ups_within(5, 10.0, 1.0), 5);
        assert_eq!(warm_ups_within(5, 277.0, 10.0), 5);
        // Never fewer than asked up to two, nor than one.
        assert_eq!(warm_ups_within(0, 0.01, 1.0), 1);
        assert_eq!(warm_ups_within(1, 5000.0, 1.0), 1);
        assert_eq!(warm_ups_within(2, 5000.0, 1.0), 2);
        assert_eq!(warm_ups_within(3, 0.0, 1.0), 3);
    }
}
