//! The SM clock while samples run, read through NVML: `libnvidia-ml.so.1`
//! is loaded when the harness starts timing (it ships with the driver, but
//! a container may lack it), so that a harness without it still times and
//! says why no clock was checked. Also the one rule for a throttled
//! sample: taken while the SM clock was below [`THROTTLE_THRESHOLD`] of
//! the device's maximum SM clock.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

/// A sample counts as throttled below this share of the maximum SM clock.
pub const THROTTLE_THRESHOLD: f64 = 0.9;

/// Whether a sample taken at `mhz` on a device whose SM clock reaches
/// `max_mhz` ran throttled.
pub fn throttled(mhz: u32, max_mhz: u32) -> bool {
    (mhz as f64) < THROTTLE_THRESHOLD * max_mhz as f64
}

/// NVML's `nvmlClockType_t` for the SM clock.
const NVML_CLOCK_SM: c_int = 1;
const NVML_SUCCESS: c_int = 0;

type Device = *mut c_void;
type Init = unsafe extern "C" fn() -> c_int;
type HandleByPciBusId = unsafe extern "C" fn(*const c_char, *mut Device) -> c_int;
type ClockInfo = unsafe extern "C" fn(Device, c_int, *mut c_uint) -> c_int;
type ErrorString = unsafe extern "C" fn(c_int) -> *const c_char;
type Shutdown = unsafe extern "C" fn() -> c_int;

/// NVML, initialised, with the handle of the harness's device.
pub struct Nvml {
    device: Device,
    clock: ClockInfo,
    shutdown: Shutdown,
    /// The device's maximum SM clock.
    pub max_sm_mhz: u32,
    // Last: the functions above point into it.
    _library: libloading::Library,
}

impl Nvml {
    /// Loads NVML and finds the device on PCI bus `pci_bus_id` (as CUDA
    /// names it, so that CUDA_VISIBLE_DEVICES is respected); the reason in
    /// words when it cannot.
    pub fn open(pci_bus_id: &CStr) -> Result<Nvml, String> {
        // SAFETY: loading NVML runs no initialiser with requirements.
        let library = unsafe { libloading::Library::new("libnvidia-ml.so.1") }
            .map_err(|e| format!("libnvidia-ml.so.1 could not be loaded: {e}"))?;
        let symbol = |name: &str| format!("NVML has no {name}");
        // SAFETY: the types are those of nvml.h for these symbols.
        let (init, by_bus_id, clock, max_clock, error_string, shutdown) = unsafe {
            (
                *library
                    .get::<Init>(b"nvmlInit_v2")
                    .map_err(|_| symbol("nvmlInit_v2"))?,
                *library
                    .get::<HandleByPciBusId>(b"nvmlDeviceGetHandleByPciBusId_v2")
                    .map_err(|_| symbol("nvmlDeviceGetHandleByPciBusId_v2"))?,
                *library
                    .get::<ClockInfo>(b"nvmlDeviceGetClockInfo")
                    .map_err(|_| symbol("nvmlDeviceGetClockInfo"))?,
                *library
                    .get::<ClockInfo>(b"nvmlDeviceGetMaxClockInfo")
                    .map_err(|_| symbol("nvmlDeviceGetMaxClockInfo"))?,
                *library
                    .get::<ErrorString>(b"nvmlErrorString")
                    .map_err(|_| symbol("nvmlErrorString"))?,
                *library
                    .get::<Shutdown>(b"nvmlShutdown")
                    .map_err(|_| symbol("nvmlShutdown"))?,
            )
        };
        let explain = |what: &str, code: c_int| {
            // SAFETY: nvmlErrorString returns a static string for any code.
            let text = unsafe { CStr::from_ptr(error_string(code)) };
            format!("{what}: {}", text.to_string_lossy())
        };
        // SAFETY: plain NVML calls with valid out-pointers.
        let code = unsafe { init() };
        if code != NVML_SUCCESS {
            return Err(explain("nvmlInit failed", code));
        }
        let mut device: Device = std::ptr::null_mut();
        let mut max_sm_mhz: c_uint = 0;
        // SAFETY: as above; shut down again on failure.
        let found = unsafe {
            match by_bus_id(pci_bus_id.as_ptr(), &mut device) {
                NVML_SUCCESS => match max_clock(device, NVML_CLOCK_SM, &mut max_sm_mhz) {
                    NVML_SUCCESS if max_sm_mhz > 0 => Ok(()),
                    NVML_SUCCESS => Err("NVML gives no maximum SM clock".to_string()),
                    code => Err(explain("reading the maximum SM clock failed", code)),
                },
                code => Err(explain(
                    &format!(
                        "NVML does not know the device {}",
                        pci_bus_id.to_string_lossy()
                    ),
                    code,
                )),
            }
        };
        if let Err(reason) = found {
            // SAFETY: NVML was initialised above.
            unsafe { shutdown() };
            return Err(reason);
        }
        Ok(Nvml {
            device,
            clock,
            shutdown,
            max_sm_mhz,
            _library: library,
        })
    }

    /// The SM clock now, in MHz (None when NVML cannot say).
    pub fn sm_mhz(&self) -> Option<u32> {
        let mut mhz: c_uint = 0;
        // SAFETY: the handle is live until drop; the pointer is valid.
        let code = unsafe { (self.clock)(self.device, NVML_CLOCK_SM, &mut mhz) };
        (code == NVML_SUCCESS && mhz > 0).then_some(mhz)
    }
}

impl Drop for Nvml {
    fn drop(&mut self) {
        // SAFETY: NVML was initialised in `open`.
        unsafe { (self.shutdown)() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_throttled_below_ninety_percent_of_the_maximum() {
        assert!(!throttled(1980, 1980));
        assert!(!throttled(1782, 1980));
        assert!(throttled(1781, 1980));
        assert!(throttled(345, 1980));
    }
}
