//! Device facts: what `nvidia-smi -q -x` prints (driver, CUDA version,
//! clocks, memory, power; read with quick-xml) merged with what the CUDA
//! driver reports to the harness, and the peaks derived from them.

use serde::{Deserialize, Serialize};

/// Device facts the harness reads from the CUDA driver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverFacts {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub sm_clock_khz: u64,
    pub memory_clock_khz: u64,
    pub memory_bus_width_bits: u32,
    pub l2_cache_bytes: u64,
    pub total_memory_bytes: u64,
    pub shared_memory_per_sm_bytes: u64,
    pub max_threads_per_sm: u32,
    pub driver_cuda_version: String,
    /// Whether other processes may hold a context on the device beside
    /// this one (its compute mode is the default): absent from facts read
    /// before gpuprof asked, and then taken as no.
    #[serde(default)]
    pub processes_may_share: bool,
}

/// The device a suite ran on, as recorded in results.json.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    pub name: String,
    /// `major.minor`, e.g. `9.0`.
    pub compute_capability: String,
    pub multiprocessors: u32,
    pub sm_clock_max_mhz: f64,
    pub memory_clock_max_mhz: f64,
    pub memory_bus_width_bits: u32,
    pub l2_cache_bytes: u64,
    pub memory_bytes: u64,
    /// CUDA version the driver supports.
    pub cuda_version: String,
    pub driver_version: Option<String>,
    /// Memory clock × 2 (double data rate) × bus width.
    pub peak_dram_bytes_per_second: f64,
    /// Multiprocessors × FP32 lanes per SM × 2 (an FMA is two operations) ×
    /// SM clock; `None` for an architecture gpuprof has no lane count for.
    pub peak_fp32_flops_per_second: Option<f64>,
    pub nvidia_smi: Option<SmiFacts>,
}

/// The subset of `nvidia-smi -q -x` gpuprof records. Clocks are those read
/// just before the suite ran; `N/A` fields are `None`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SmiFacts {
    pub driver_version: Option<String>,
    pub cuda_version: Option<String>,
    pub product_name: Option<String>,
    pub architecture: Option<String>,
    pub persistence_mode: Option<String>,
    pub performance_state: Option<String>,
    pub sm_clock_mhz: Option<f64>,
    pub memory_clock_mhz: Option<f64>,
    pub sm_clock_max_mhz: Option<f64>,
    pub memory_clock_max_mhz: Option<f64>,
    pub memory_total_mib: Option<f64>,
    pub power_limit_watts: Option<f64>,
    pub temperature_celsius: Option<f64>,
    /// The GPU's UUID (`GPU-…`), which names it among the GPUs of a host
    /// (absent in runs recorded before gpuprof kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
}

/// FP32 lanes per multiprocessor by compute capability.
fn fp32_lanes_per_sm(major: u32, minor: u32) -> Option<u32> {
    match (major, minor) {
        (7, _) => Some(64),
        (8, 0) => Some(64),
        (8, _) | (9, 0) | (10, _) | (12, _) => Some(128),
        _ => None,
    }
}

impl Device {
    pub fn from_facts(facts: &DriverFacts, smi: Option<SmiFacts>) -> Device {
        let (major, minor) = facts.compute_capability;
        let sm_clock_hz = facts.sm_clock_khz as f64 * 1e3;
        let memory_clock_hz = facts.memory_clock_khz as f64 * 1e3;
        Device {
            name: facts.name.clone(),
            compute_capability: format!("{major}.{minor}"),
            multiprocessors: facts.multiprocessors,
            sm_clock_max_mhz: sm_clock_hz / 1e6,
            memory_clock_max_mhz: memory_clock_hz / 1e6,
            memory_bus_width_bits: facts.memory_bus_width_bits,
            l2_cache_bytes: facts.l2_cache_bytes,
            memory_bytes: facts.total_memory_bytes,
            cuda_version: facts.driver_cuda_version.clone(),
            driver_version: smi.as_ref().and_then(|s| s.driver_version.clone()),
            peak_dram_bytes_per_second: memory_clock_hz
                * 2.0
                * f64::from(facts.memory_bus_width_bits)
                / 8.0,
            peak_fp32_flops_per_second: fp32_lanes_per_sm(major, minor).map(|lanes| {
                f64::from(facts.multiprocessors) * f64::from(lanes) * 2.0 * sm_clock_hz
            }),
            nvidia_smi: smi,
        }
    }
}

#[derive(Debug, Deserialize)]
struct SmiLog {
    driver_version: Option<String>,
    cuda_version: Option<String>,
    #[serde(default)]
    gpu: Vec<SmiGpu>,
}

#[derive(Debug, Deserialize)]
struct SmiGpu {
    uuid: Option<String>,
    product_name: Option<String>,
    product_architecture: Option<String>,
    persistence_mode: Option<String>,
    performance_state: Option<String>,
    fb_memory_usage: Option<SmiMemory>,
    clocks: Option<SmiClocks>,
    max_clocks: Option<SmiClocks>,
    temperature: Option<SmiTemperature>,
    gpu_power_readings: Option<SmiPower>,
}

#[derive(Debug, Deserialize)]
struct SmiMemory {
    total: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SmiClocks {
    sm_clock: Option<String>,
    mem_clock: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SmiTemperature {
    gpu_temp: Option<String>,
}

#[derive(Debug, Deserialize)]
struct SmiPower {
    current_power_limit: Option<String>,
}

/// `"1980 MHz"` → 1980; `"N/A"` → None.
fn leading_number(text: &Option<String>) -> Option<f64> {
    text.as_deref()?.split_whitespace().next()?.parse().ok()
}

fn known(text: &Option<String>) -> Option<String> {
    text.clone().filter(|t| t != "N/A" && !t.trim().is_empty())
}

/// Parses `nvidia-smi -q -x` output for the GPU that CUDA's first visible
/// device is: `visible` is the first entry of `CUDA_VISIBLE_DEVICES`, a
/// UUID (`GPU-…`) or an index in nvidia-smi's (PCI bus) order; without
/// it, the first GPU.
pub fn parse_nvidia_smi(xml: &str, visible: Option<&str>) -> Result<SmiFacts, String> {
    let log: SmiLog = quick_xml::de::from_str(xml)
        .map_err(|e| format!("nvidia-smi XML could not be read: {e}"))?;
    let gpu = match visible.map(str::trim) {
        Some(uuid) if uuid.starts_with("GPU-") => log
            .gpu
            .iter()
            .find(|gpu| gpu.uuid.as_deref().is_some_and(|id| id.starts_with(uuid))),
        Some(index) => index.parse::<usize>().ok().and_then(|i| log.gpu.get(i)),
        None => log.gpu.first(),
    }
    .ok_or("nvidia-smi lists no GPU that CUDA_VISIBLE_DEVICES names")?;
    let clock = |clocks: &Option<SmiClocks>, pick: fn(&SmiClocks) -> &Option<String>| {
        clocks.as_ref().and_then(|c| leading_number(pick(c)))
    };
    Ok(SmiFacts {
        driver_version: known(&log.driver_version),
        cuda_version: known(&log.cuda_version),
        product_name: known(&gpu.product_name),
        architecture: known(&gpu.product_architecture),
        persistence_mode: known(&gpu.persistence_mode),
        performance_state: known(&gpu.performance_state),
        sm_clock_mhz: clock(&gpu.clocks, |c| &c.sm_clock),
        memory_clock_mhz: clock(&gpu.clocks, |c| &c.mem_clock),
        sm_clock_max_mhz: clock(&gpu.max_clocks, |c| &c.sm_clock),
        memory_clock_max_mhz: clock(&gpu.max_clocks, |c| &c.mem_clock),
        memory_total_mib: gpu
            .fb_memory_usage
            .as_ref()
            .and_then(|m| leading_number(&m.total)),
        power_limit_watts: gpu
            .gpu_power_readings
            .as_ref()
            .and_then(|p| leading_number(&p.current_power_limit)),
        temperature_celsius: gpu
            .temperature
            .as_ref()
            .and_then(|t| leading_number(&t.gpu_temp)),
        uuid: known(&gpu.uuid),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = include_str!("../../tests/fixtures/h200-probe/nvidia-smi.xml");
    const H200_UUID: &str = "GPU-e8de711c-26af-759a-4f16-3a9f2b9c0c7b";

    #[test]
    fn reads_the_h200_facts() {
        let smi = parse_nvidia_smi(XML, None).unwrap();
        assert_eq!(smi.uuid.as_deref(), Some(H200_UUID));
        assert_eq!(parse_nvidia_smi(XML, Some("GPU-")).unwrap(), smi);
        assert_eq!(parse_nvidia_smi(XML, Some("0")).unwrap(), smi);
        assert!(parse_nvidia_smi(XML, Some("1")).is_err());
        assert_eq!(smi.driver_version.as_deref(), Some("580.159.04"));
        assert_eq!(smi.cuda_version.as_deref(), Some("13.0"));
        assert_eq!(smi.product_name.as_deref(), Some("NVIDIA H200"));
        assert_eq!(smi.architecture.as_deref(), Some("Hopper"));
        assert_eq!(smi.sm_clock_mhz, Some(345.0));
        assert_eq!(smi.sm_clock_max_mhz, Some(1980.0));
        assert_eq!(smi.memory_clock_max_mhz, Some(3201.0));
        assert_eq!(smi.memory_total_mib, Some(143771.0));
        assert_eq!(smi.power_limit_watts, Some(700.0));
        assert_eq!(smi.temperature_celsius, Some(36.0));
    }

    #[test]
    fn broken_xml_is_an_error_not_a_panic() {
        assert!(parse_nvidia_smi("<nvidia_smi_log><gpu>", None).is_err());
        assert_eq!(
            parse_nvidia_smi("<nvidia_smi_log></nvidia_smi_log>", None).unwrap_err(),
            "nvidia-smi lists no GPU that CUDA_VISIBLE_DEVICES names"
        );
    }

    #[test]
    fn peaks_follow_from_the_h200_attributes() {
        // The attributes ncu recorded for the probe (tests/fixtures/h200-probe/raw.csv).
        let facts = DriverFacts {
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            sm_clock_khz: 1_980_000,
            memory_clock_khz: 3_201_000,
            memory_bus_width_bits: 6016,
            l2_cache_bytes: 62_914_560,
            total_memory_bytes: 150_109_880_320,
            shared_memory_per_sm_bytes: 233_472,
            max_threads_per_sm: 2048,
            driver_cuda_version: "13.0".into(),
            processes_may_share: true,
        };
        let device = Device::from_facts(&facts, None);
        assert!((device.peak_dram_bytes_per_second - 4.814e12).abs() < 1e9);
        let flops = device.peak_fp32_flops_per_second.unwrap();
        assert!((flops - 66.9e12).abs() < 0.1e12, "{flops}");
    }
}
