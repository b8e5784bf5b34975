//! Host-side buffer contents: seeded random, constant and poison fills in
//! each element type, and the comparison of a variant's outputs with its
//! reference's (elementwise with a tolerance, or by sum). Pure: no GPU.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use crate::config::plan::{Buffer, Compare, ElementType, Fill, Tolerance};

/// Buffers are filled and compared in chunks of this many elements, on
/// every core. Random contents are drawn from a generator per chunk seeded
/// by the buffer's seed and the chunk's index, and comparisons are combined
/// chunk by chunk in order, so neither depends on how many threads there
/// are.
const CHUNK_ELEMENTS: usize = 1 << 18;

/// `work` applied to every item, the items shared out in contiguous runs
/// over the machine's cores; the results in the items' order.
fn on_every_core<T: Send, R: Send>(items: Vec<T>, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_thread = items.len().div_ceil(threads).max(1);
    let mut items = items.into_iter();
    let work = &work;
    std::thread::scope(|scope| {
        let mut running = Vec::new();
        loop {
            let share: Vec<T> = items.by_ref().take(per_thread).collect();
            if share.is_empty() {
                break;
            }
            running.push(scope.spawn(move || share.into_iter().map(work).collect::<Vec<R>>()));
        }
        running
            .into_iter()
            .flat_map(|thread| thread.join().expect("a fill or comparison thread panicked"))
            .collect()
    })
}

/// The element ranges, CHUNK_ELEMENTS long, that cover `count` elements.
fn element_chunks(count: usize) -> Vec<std::ops::Range<usize>> {
    (0..count)
        .step_by(CHUNK_ELEMENTS)
        .map(|start| start..count.min(start + CHUNK_ELEMENTS))
        .collect()
}

/// The bytes a buffer starts with. Random contents depend only on the seed
/// and the buffer's name, so every variant sees the same inputs; they are
/// drawn on every core (a 64-million-element input took a second on one).
pub fn initial_bytes(buffer: &Buffer, seed: u64) -> Vec<u8> {
    let width = buffer.element.size_bytes();
    let element = buffer.element;
    let mut bytes = vec![0u8; buffer.count as usize * width];
    match buffer.fill {
        Fill::Poison => bytes.fill(0xFF),
        Fill::Constant { value } => bytes
            .chunks_exact_mut(width)
            .for_each(|raw| write(element, value, raw)),
        Fill::Random { low, high } => {
            let buffer_seed = buffer_seed(seed, &buffer.name);
            let chunks: Vec<(usize, &mut [u8])> = bytes
                .chunks_mut(CHUNK_ELEMENTS * width)
                .enumerate()
                .collect();
            on_every_core(chunks, |(index, chunk)| {
                let mut rng = SmallRng::seed_from_u64(buffer_seed.wrapping_add(index as u64));
                for raw in chunk.chunks_exact_mut(width) {
                    let value = rng.random_range(low..high);
                    let value = if element.is_float() {
                        value
                    } else {
                        value.floor()
                    };
                    write(element, value, raw);
                }
            });
        }
    }
    bytes
}

fn buffer_seed(seed: u64, name: &str) -> u64 {
    let digest = Sha256::new()
        .chain_update(seed.to_le_bytes())
        .chain_update(name.as_bytes())
        .finalize();
    u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// Writes `value` as one element of the buffer's type, little-endian, into
/// `raw` (exactly the element's width). Floats round to the nearest value
/// of the type (f16 and bf16 through the `half` crate, as CUDA's
/// `__float2half_rn` does); integers were checked to fit by the config.
fn write(element: ElementType, value: f64, raw: &mut [u8]) {
    match element {
        ElementType::F16 => raw.copy_from_slice(&half::f16::from_f64(value).to_le_bytes()),
        ElementType::Bf16 => raw.copy_from_slice(&half::bf16::from_f64(value).to_le_bytes()),
        ElementType::F32 => raw.copy_from_slice(&(value as f32).to_le_bytes()),
        ElementType::F64 => raw.copy_from_slice(&value.to_le_bytes()),
        ElementType::I8 => raw.copy_from_slice(&(value as i8).to_le_bytes()),
        ElementType::U8 => raw.copy_from_slice(&(value as u8).to_le_bytes()),
        ElementType::I16 => raw.copy_from_slice(&(value as i16).to_le_bytes()),
        ElementType::U16 => raw.copy_from_slice(&(value as u16).to_le_bytes()),
        ElementType::I32 => raw.copy_from_slice(&(value as i32).to_le_bytes()),
        ElementType::U32 => raw.copy_from_slice(&(value as u32).to_le_bytes()),
        ElementType::I64 => raw.copy_from_slice(&(value as i64).to_le_bytes()),
        ElementType::U64 => raw.copy_from_slice(&(value as u64).to_le_bytes()),
    }
}

/// Element `index` of `bytes` as f64 (exact for every type but the
/// 64-bit integers past 2^53).
fn decode(element: ElementType, bytes: &[u8], index: usize) -> f64 {
    let width = element.size_bytes();
    let raw = &bytes[index * width..(index + 1) * width];
    let two = || -> [u8; 2] { raw.try_into().expect("2 bytes") };
    let four = || -> [u8; 4] { raw.try_into().expect("4 bytes") };
    let eight = || -> [u8; 8] { raw.try_into().expect("8 bytes") };
    match element {
        ElementType::F16 => half::f16::from_le_bytes(two()).to_f64(),
        ElementType::Bf16 => half::bf16::from_le_bytes(two()).to_f64(),
        ElementType::F32 => f64::from(f32::from_le_bytes(four())),
        ElementType::F64 => f64::from_le_bytes(eight()),
        ElementType::I8 => f64::from(raw[0] as i8),
        ElementType::U8 => f64::from(raw[0]),
        ElementType::I16 => f64::from(i16::from_le_bytes(two())),
        ElementType::U16 => f64::from(u16::from_le_bytes(two())),
        ElementType::I32 => f64::from(i32::from_le_bytes(four())),
        ElementType::U32 => f64::from(u32::from_le_bytes(four())),
        ElementType::I64 => i64::from_le_bytes(eight()) as f64,
        ElementType::U64 => u64::from_le_bytes(eight()) as f64,
    }
}

/// How many elements of a poisoned float output are NaN without being the
/// poison itself: values computed from the poison, so the kernel read the
/// buffer before writing it (`C = alpha*A*B + beta*C` reads C). The poison
/// is all one bits (a NaN in every float type: f16 and bf16 too, whose
/// exponent bits are all ones and mantissa not zero); the GPU's arithmetic
/// on NaN gives another NaN, its canonical one (0x7FFF for f16 and bf16,
/// 0x7FFFFFFF for f32), not the poison's bits.
pub fn computed_from_poison(element: ElementType, bytes: &[u8]) -> u64 {
    let width = element.size_bytes();
    if !element.is_float() {
        return 0;
    }
    let counts = on_every_core(element_chunks(bytes.len() / width), |range| {
        range
            .filter(|&index| {
                !is_poison(bytes, width, index) && decode(element, bytes, index).is_nan()
            })
            .count() as u64
    });
    counts.into_iter().sum()
}

/// How many elements of a float output the reference left unwritten (still
/// the poison: every byte 0xFF, a NaN no arithmetic makes) where the
/// compared output, `got`, holds a value: the reference's geometry does not
/// cover the output, so a mismatch there says nothing of `got`.
pub fn left_unwritten(elements: Elements, got: &[u8], want: &[u8]) -> u64 {
    let (got_width, want_width) = (elements.got.size_bytes(), elements.want.size_bytes());
    if !elements.want.is_float() {
        return 0;
    }
    let count = (got.len() / got_width).min(want.len() / want_width);
    let counts = on_every_core(element_chunks(count), |range| {
        range
            .filter(|&index| {
                is_poison(want, want_width, index) && !is_poison(got, got_width, index)
            })
            .count() as u64
    });
    counts.into_iter().sum()
}

/// Whether element `index` of `bytes` (elements `width` bytes wide) is
/// still the poison: every byte 0xFF.
fn is_poison(bytes: &[u8], width: usize, index: usize) -> bool {
    bytes[index * width..(index + 1) * width]
        .iter()
        .all(|&b| b == 0xFF)
}

/// How one output compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub compared: u64,
    pub mismatches: u64,
    pub first_mismatch: Option<(u64, f64, f64)>,
    pub max_abs_error: f64,
    pub relative_l2_error: f64,
}

/// The two element types of a comparison: the output's and its
/// reference's (two float types may differ: an f16 kernel checked against
/// an f32 one).
#[derive(Debug, Clone, Copy)]
pub struct Elements {
    pub got: ElementType,
    pub want: ElementType,
}

impl Elements {
    pub fn same(element: ElementType) -> Elements {
        Elements {
            got: element,
            want: element,
        }
    }
}

/// Compares `got` with `want` (bytes of `elements.got` and `elements.want`)
/// as `compare` says, each element read as f64.
pub fn compare(
    elements: Elements,
    compare: Compare,
    got: &[u8],
    want: &[u8],
    tolerance: Tolerance,
) -> Result<Comparison, String> {
    let count = |element: ElementType, bytes: &[u8]| bytes.len() / element.size_bytes();
    match compare {
        Compare::Elementwise => {
            if count(elements.got, got) != count(elements.want, want) {
                return Err(format!(
                    "the output has {} elements but the reference has {}",
                    count(elements.got, got),
                    count(elements.want, want)
                ));
            }
            Ok(compare_elements(elements, got, want, tolerance))
        }
        Compare::Sum => {
            let sum = |element: ElementType, bytes: &[u8]| {
                (0..count(element, bytes))
                    .map(|i| decode(element, bytes, i))
                    .sum::<f64>()
            };
            let (got_sum, want_sum) = (sum(elements.got, got), sum(elements.want, want));
            let error = (got_sum - want_sum).abs();
            let ok = error <= tolerance.abs + tolerance.rel * want_sum.abs();
            Ok(Comparison {
                compared: 1,
                mismatches: u64::from(!ok),
                first_mismatch: (!ok).then_some((0, got_sum, want_sum)),
                max_abs_error: if error.is_nan() { f64::INFINITY } else { error },
                relative_l2_error: error / want_sum.abs().max(f64::MIN_POSITIVE),
            })
        }
    }
}

fn compare_elements(
    elements: Elements,
    got: &[u8],
    want: &[u8],
    tolerance: Tolerance,
) -> Comparison {
    let count = got.len() / elements.got.size_bytes();
    let parts = on_every_core(element_chunks(count), |range| {
        compare_range(elements, got, want, tolerance, range)
    });
    let mut whole = Partial::default();
    for part in parts {
        whole.mismatches += part.mismatches;
        whole.first_mismatch = whole.first_mismatch.or(part.first_mismatch);
        whole.max_abs_error = whole.max_abs_error.max(part.max_abs_error);
        whole.error_squares += part.error_squares;
        whole.want_squares += part.want_squares;
    }
    let relative_l2_error = if whole.want_squares > 0.0 {
        (whole.error_squares / whole.want_squares).sqrt()
    } else {
        whole.error_squares.sqrt()
    };
    Comparison {
        compared: count as u64,
        mismatches: whole.mismatches,
        first_mismatch: whole.first_mismatch,
        max_abs_error: whole.max_abs_error,
        relative_l2_error,
    }
}

/// What a comparison of some of the elements found, before it is combined
/// with the rest.
#[derive(Default)]
struct Partial {
    mismatches: u64,
    first_mismatch: Option<(u64, f64, f64)>,
    max_abs_error: f64,
    error_squares: f64,
    want_squares: f64,
}

fn compare_range(
    elements: Elements,
    got: &[u8],
    want: &[u8],
    tolerance: Tolerance,
    range: std::ops::Range<usize>,
) -> Partial {
    let mut part = Partial::default();
    for index in range {
        let g = decode(elements.got, got, index);
        let w = decode(elements.want, want, index);
        // An element neither wrote (poison in both) matches; poison against
        // a value, or a NaN the reference does not have, does not.
        let both_nan = g.is_nan() && w.is_nan();
        let error = (g - w).abs();
        let ok = both_nan || error <= tolerance.abs + tolerance.rel * w.abs();
        if !both_nan {
            part.max_abs_error =
                part.max_abs_error
                    .max(if error.is_nan() { f64::INFINITY } else { error });
            if error.is_finite() && w.is_finite() {
                part.error_squares += error * error;
                part.want_squares += w * w;
            }
        }
        if !ok {
            part.mismatches += 1;
            if part.first_mismatch.is_none() {
                part.first_mismatch = Some((index as u64, g, w));
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_the_reference_left_unwritten_are_counted_where_the_other_wrote() {
        let floats = |values: &[Option<f32>]| -> Vec<u8> {
            values
                .iter()
                .flat_map(|v| match v {
                    Some(v) => v.to_le_bytes(),
                    None => [0xFF; 4],
                })
                .collect()
        };
        let want = floats(&[Some(1.0), None, None, Some(4.0)]);
        let got = floats(&[Some(1.0), Some(2.0), None, Some(4.0)]);
        let same = Elements {
            got: ElementType::F32,
            want: ElementType::F32,
        };
        assert_eq!(left_unwritten(same, &got, &want), 1);
        assert_eq!(left_unwritten(same, &want, &got), 0);
        // Integers have no poison to tell: all ones is a value.
        let integers = Elements {
            got: ElementType::I32,
            want: ElementType::I32,
        };
        assert_eq!(left_unwritten(integers, &got, &want), 0);
        // An f16 output against an f32 reference: by element, not by byte.
        let half: Vec<u8> = [0x3C00u16, 0x4000, 0xFFFF, 0x4400]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mixed = Elements {
            got: ElementType::F16,
            want: ElementType::F32,
        };
        assert_eq!(left_unwritten(mixed, &half, &want), 1);
    }

    #[test]
    fn nan_computed_from_the_poison_is_told_from_the_poison_itself() {
        let mut bytes = vec![0xFF; 4 * 4];
        bytes[4..8].copy_from_slice(&f32::NAN.to_le_bytes());
        bytes[8..12].copy_from_slice(&1.5f32.to_le_bytes());
        assert_eq!(computed_from_poison(ElementType::F32, &bytes), 1);
        assert_eq!(computed_from_poison(ElementType::I32, &bytes), 0);
        assert_eq!(computed_from_poison(ElementType::F32, &[0xFF; 8]), 0);
    }

    fn buffer(element: ElementType, count: u64, fill: Fill) -> Buffer {
        Buffer {
            name: "in".into(),
            element,
            count,
            fill,
            output: false,
            compare: Compare::Elementwise,
            symbol: None,
        }
    }

    fn floats(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    const TIGHT: Tolerance = Tolerance {
        rel: 1e-5,
        abs: 1e-6,
    };

    #[test]
    fn random_fill_is_seeded_by_seed_and_name_and_stays_in_range() {
        let random = Fill::Random {
            low: -1.0,
            high: 1.0,
        };
        let a = initial_bytes(&buffer(ElementType::F32, 1000, random), 7);
        assert_eq!(a, initial_bytes(&buffer(ElementType::F32, 1000, random), 7));
        assert_ne!(a, initial_bytes(&buffer(ElementType::F32, 1000, random), 8));
        let mut other = buffer(ElementType::F32, 1000, random);
        other.name = "b".into();
        assert_ne!(a, initial_bytes(&other, 7));
        let values: Vec<f64> = (0..1000).map(|i| decode(ElementType::F32, &a, i)).collect();
        assert!(values.iter().all(|v| (-1.0..1.0).contains(v)));
        assert!(values.iter().any(|v| *v < -0.5) && values.iter().any(|v| *v > 0.5));
        let ints = initial_bytes(
            &buffer(
                ElementType::I32,
                100,
                Fill::Random {
                    low: 0.0,
                    high: 100.0,
                },
            ),
            7,
        );
        assert!((0..100).all(|i| {
            let v = decode(ElementType::I32, &ints, i);
            v.fract() == 0.0 && (0.0..100.0).contains(&v)
        }));
    }

    #[test]
    fn random_chunks_are_distinct_and_independent_of_the_buffer_length() {
        let random = Fill::Random {
            low: 0.0,
            high: 1.0,
        };
        let chunk_bytes = CHUNK_ELEMENTS * 4;
        let long = initial_bytes(
            &buffer(ElementType::F32, 3 * CHUNK_ELEMENTS as u64 + 5, random),
            7,
        );
        let short = initial_bytes(
            &buffer(ElementType::F32, CHUNK_ELEMENTS as u64 + 9, random),
            7,
        );
        assert_eq!(long[..short.len()], short[..]);
        assert_ne!(long[..chunk_bytes], long[chunk_bytes..2 * chunk_bytes]);
        assert_ne!(
            long[chunk_bytes..chunk_bytes + 64],
            long[2 * chunk_bytes..2 * chunk_bytes + 64]
        );
        let tail = &long[3 * chunk_bytes..];
        assert_eq!(tail.len(), 20);
        assert!((0..5).all(|i| (0.0..1.0).contains(&decode(ElementType::F32, tail, i))));
    }

    #[test]
    fn poison_is_nan_for_floats_and_constant_fills_every_element() {
        let poison = initial_bytes(&buffer(ElementType::F32, 3, Fill::Poison), 0);
        assert!((0..3).all(|i| decode(ElementType::F32, &poison, i).is_nan()));
        let sevens = initial_bytes(
            &buffer(ElementType::F64, 4, Fill::Constant { value: 7.5 }),
            0,
        );
        assert_eq!(sevens.len(), 32);
        assert!((0..4).all(|i| decode(ElementType::F64, &sevens, i) == 7.5));
    }

    #[test]
    fn elementwise_finds_the_first_mismatch_and_the_largest_error() {
        let want = floats(&[1.0, 2.0, 3.0, 4.0]);
        let got = floats(&[1.0, 2.5, 3.0, 2.0]);
        let result = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &got,
            &want,
            TIGHT,
        )
        .unwrap();
        assert_eq!(result.mismatches, 2);
        assert_eq!(result.first_mismatch, Some((1, 2.5, 2.0)));
        assert_eq!(result.max_abs_error, 2.0);
        assert!((result.relative_l2_error - (4.25f64 / 30.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn an_unwritten_element_fails_unless_the_reference_left_it_too() {
        let nan = f32::from_le_bytes([0xFF; 4]);
        let want = floats(&[1.0, 2.0, nan]);
        let got = floats(&[1.0, nan, nan]);
        let result = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &got,
            &want,
            TIGHT,
        )
        .unwrap();
        assert_eq!(result.mismatches, 1);
        assert_eq!(result.first_mismatch.map(|m| m.0), Some(1));
        assert_eq!(result.max_abs_error, f64::INFINITY);
    }

    #[test]
    fn tolerance_is_absolute_plus_relative() {
        let want = floats(&[1000.0]);
        let loose = Tolerance {
            rel: 1e-3,
            abs: 0.0,
        };
        let ok = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &floats(&[1000.9]),
            &want,
            loose,
        )
        .unwrap();
        assert_eq!(ok.mismatches, 0);
        let bad = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &floats(&[1001.1]),
            &want,
            loose,
        )
        .unwrap();
        assert_eq!(bad.mismatches, 1);
    }

    #[test]
    fn sum_comparison_ignores_layout_and_counts() {
        let want = floats(&[1.0, 2.0, 3.0, 4.0]);
        let got = floats(&[6.0, 4.0]);
        let same = compare(
            Elements::same(ElementType::F32),
            Compare::Sum,
            &got,
            &want,
            TIGHT,
        )
        .unwrap();
        assert_eq!(same.mismatches, 0);
        let off = compare(
            Elements::same(ElementType::F32),
            Compare::Sum,
            &floats(&[6.0, 4.5]),
            &want,
            TIGHT,
        )
        .unwrap();
        assert_eq!(off.mismatches, 1);
        assert_eq!(off.first_mismatch, Some((0, 10.5, 10.0)));
    }

    #[test]
    fn an_f16_output_compares_with_an_f32_reference_at_f16_precision() {
        let values = [1.0f64, -2.5, 1000.1, 3.3e-3, 0.0];
        let bytes = |element: ElementType, scale: f64| {
            let mut out = vec![0u8; values.len() * element.size_bytes()];
            for (raw, value) in out.chunks_exact_mut(element.size_bytes()).zip(values) {
                write(element, value * scale, raw);
            }
            out
        };
        let want = bytes(ElementType::F32, 1.0);
        let elements = Elements {
            got: ElementType::F16,
            want: ElementType::F32,
        };
        let tolerance = Tolerance::DEFAULT.for_elements(ElementType::F16, ElementType::F32);
        assert_eq!(tolerance.rel, 2e-3);
        // The f32 values rounded to f16 (1000.1 becomes 1000.0) match.
        let rounded = compare(
            elements,
            Compare::Elementwise,
            &bytes(ElementType::F16, 1.0),
            &want,
            tolerance,
        )
        .unwrap();
        assert_eq!((rounded.compared, rounded.mismatches), (5, 0));
        // 1% off is beyond f16's precision.
        let off = compare(
            elements,
            Compare::Elementwise,
            &bytes(ElementType::F16, 1.01),
            &want,
            tolerance,
        )
        .unwrap();
        assert_eq!(off.mismatches, 4);
        // At the f32 default, the rounding of 1000.1 alone is a mismatch.
        let strict = compare(
            elements,
            Compare::Elementwise,
            &bytes(ElementType::F16, 1.0),
            &want,
            Tolerance::DEFAULT,
        )
        .unwrap();
        assert!(strict.mismatches > 0);
    }

    #[test]
    fn different_lengths_are_an_error_for_elementwise() {
        let error = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &floats(&[1.0]),
            &floats(&[1.0, 2.0]),
            TIGHT,
        );
        assert_eq!(
            error.unwrap_err(),
            "the output has 1 elements but the reference has 2"
        );
    }

    #[test]
    fn a_comparison_over_many_chunks_counts_every_mismatch_and_finds_the_first() {
        let count = 3 * CHUNK_ELEMENTS + 5;
        let want: Vec<f32> = (0..count).map(|i| (i % 97) as f32).collect();
        let mut got = want.clone();
        got[2 * CHUNK_ELEMENTS + 1] += 4.0;
        got[CHUNK_ELEMENTS + 7] += 3.0;
        got[count - 1] = f32::NAN;
        let result = compare(
            Elements::same(ElementType::F32),
            Compare::Elementwise,
            &floats(&got),
            &floats(&want),
            TIGHT,
        )
        .unwrap();
        assert_eq!(result.compared, count as u64);
        assert_eq!(result.mismatches, 3);
        let first = CHUNK_ELEMENTS + 7;
        assert_eq!(
            result.first_mismatch,
            Some((first as u64, f64::from(got[first]), f64::from(want[first])))
        );
        assert_eq!(result.max_abs_error, f64::INFINITY);
        let want_squares: f64 = want[..count - 1]
            .iter()
            .map(|&w| f64::from(w).powi(2))
            .sum();
        let expected = (25.0 / want_squares).sqrt();
        assert!((result.relative_l2_error - expected).abs() < 1e-12 * expected);
    }

    #[test]
    fn nan_computed_from_the_poison_is_counted_in_every_chunk() {
        let mut bytes = vec![0xFF; 4 * (2 * CHUNK_ELEMENTS + 3)];
        for index in [3, CHUNK_ELEMENTS + 1, 2 * CHUNK_ELEMENTS + 2] {
            bytes[4 * index..4 * index + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        }
        assert_eq!(computed_from_poison(ElementType::F32, &bytes), 3);
    }

    /// `values` written as `element`, one after another.
    fn written(element: ElementType, values: &[f64]) -> Vec<u8> {
        let width = element.size_bytes();
        let mut bytes = vec![0u8; values.len() * width];
        for (raw, &value) in bytes.chunks_exact_mut(width).zip(values) {
            write(element, value, raw);
        }
        bytes
    }

    fn decoded(element: ElementType, bytes: &[u8]) -> Vec<f64> {
        (0..bytes.len() / element.size_bytes())
            .map(|i| decode(element, bytes, i))
            .collect()
    }

    #[test]
    fn every_type_round_trips_its_extremes_and_ordinary_values() {
        let cases: [(ElementType, &[f64]); 12] = [
            (
                ElementType::F16,
                &[0.0, -1.5, 0.25, 65504.0, -65504.0, 6.103515625e-5],
            ),
            (
                ElementType::Bf16,
                &[
                    0.0,
                    -1.5,
                    0.25,
                    3.3895313892515355e38,
                    1.1754943508222875e-38,
                ],
            ),
            (
                ElementType::F32,
                &[0.0, -1.5, 0.1f32 as f64, f32::MAX as f64],
            ),
            (ElementType::F64, &[0.0, -1.5, 0.1, f64::MAX]),
            (ElementType::I8, &[0.0, -1.0, -128.0, 127.0]),
            (ElementType::U8, &[0.0, 1.0, 200.0, 255.0]),
            (ElementType::I16, &[0.0, -1.0, -32768.0, 32767.0]),
            (ElementType::U16, &[0.0, 1.0, 40000.0, 65535.0]),
            (ElementType::I32, &[0.0, -1.0, -2147483648.0, 2147483647.0]),
            (ElementType::U32, &[0.0, 1.0, 4294967295.0]),
            (ElementType::I64, &[0.0, -1.0, -(2f64.powi(63))]),
            (ElementType::U64, &[0.0, 1.0, 2f64.powi(53)]),
        ];
        for (element, values) in cases {
            let bytes = written(element, values);
            assert_eq!(bytes.len(), values.len() * element.size_bytes());
            assert_eq!(decoded(element, &bytes), values, "{}", element.name());
        }
    }

    #[test]
    fn two_byte_floats_are_laid_out_as_cuda_lays_out_half_and_bfloat16() {
        // 1.0 is 0x3C00 in binary16 and 0x3F80 in bfloat16, little-endian.
        assert_eq!(
            written(ElementType::F16, &[1.0, -2.0]),
            [0x00, 0x3C, 0x00, 0xC0]
        );
        assert_eq!(
            written(ElementType::Bf16, &[1.0, -2.0]),
            [0x80, 0x3F, 0x00, 0xC0]
        );
        // Values round to the nearest of the type, as __float2half_rn does:
        // 0.1 is 0x2E66 in f16 (0.0999755859375), 0x3DCD in bf16.
        assert_eq!(written(ElementType::F16, &[0.1]), [0x66, 0x2E]);
        assert_eq!(decoded(ElementType::F16, &[0x66, 0x2E]), [0.0999755859375]);
        assert_eq!(written(ElementType::Bf16, &[0.1]), [0xCD, 0x3D]);
        // Narrow integers are their bytes, two's complement for the signed.
        assert_eq!(written(ElementType::I8, &[-2.0, 5.0]), [0xFE, 0x05]);
        assert_eq!(written(ElementType::U16, &[0x1234 as f64]), [0x34, 0x12]);
        assert_eq!(written(ElementType::I16, &[-2.0]), [0xFE, 0xFF]);
    }

    #[test]
    fn poison_is_nan_in_every_float_type_and_all_ones_in_every_integer_type() {
        for element in ElementType::ALL {
            let poison = initial_bytes(&buffer(element, 3, Fill::Poison), 0);
            assert_eq!(poison.len(), 3 * element.size_bytes());
            let values = decoded(element, &poison);
            if element.is_float() {
                assert!(values.iter().all(|v| v.is_nan()), "{}", element.name());
            } else {
                // -1 in the signed types, the largest value in the unsigned.
                let all_ones = match element {
                    ElementType::U8 => 255.0,
                    ElementType::U16 => 65535.0,
                    ElementType::U32 => 4294967295.0,
                    ElementType::U64 => 2f64.powi(64),
                    _ => -1.0,
                };
                assert!(values.iter().all(|&v| v == all_ones), "{}", element.name());
            }
        }
    }

    #[test]
    fn nan_computed_from_the_poison_is_told_from_the_poison_in_two_byte_floats() {
        // [poison, the GPU's canonical NaN 0x7FFF, 1.0, a negative NaN not
        // all ones (0xFE00 in f16 is -NaN; 0xFFC0 in bf16 is -NaN)].
        let f16: Vec<u8> = [0xFFFFu16, 0x7FFF, 0x3C00, 0xFE00]
            .iter()
            .flat_map(|b| b.to_le_bytes())
            .collect();
        assert_eq!(computed_from_poison(ElementType::F16, &f16), 2);
        let bf16: Vec<u8> = [0xFFFFu16, 0x7FFF, 0x3F80, 0xFFC0]
            .iter()
            .flat_map(|b| b.to_le_bytes())
            .collect();
        assert_eq!(computed_from_poison(ElementType::Bf16, &bf16), 2);
        // 0x7C00 is +infinity in f16 and 0x7F80 in bf16: not NaN.
        assert_eq!(computed_from_poison(ElementType::F16, &[0x00, 0x7C]), 0);
        assert_eq!(computed_from_poison(ElementType::Bf16, &[0x80, 0x7F]), 0);
        // Integers have no NaN: nothing is counted.
        for element in [
            ElementType::I8,
            ElementType::U8,
            ElementType::I16,
            ElementType::U16,
        ] {
            assert_eq!(computed_from_poison(element, &[0x7F, 0xFF, 0x00, 0xFE]), 0);
        }
        // Whole buffers of the poison count nothing in any type.
        for element in ElementType::ALL {
            assert_eq!(computed_from_poison(element, &[0xFF; 16]), 0);
        }
    }

    #[test]
    fn random_narrow_contents_stay_in_their_range_and_are_whole_for_integers() {
        let random = |element, low: f64, high: f64| {
            let bytes = initial_bytes(&buffer(element, 4096, Fill::Random { low, high }), 7);
            decoded(element, &bytes)
        };
        for (element, low, high) in [
            (ElementType::U8, 0.0, 256.0),
            (ElementType::I8, -128.0, 128.0),
            (ElementType::I16, -32768.0, 32768.0),
            (ElementType::U16, 0.0, 100.0),
        ] {
            let values = random(element, low, high);
            assert!(
                values
                    .iter()
                    .all(|v| v.fract() == 0.0 && (low..high).contains(v)),
                "{}",
                element.name()
            );
            // Over a small range (a byte's), 4096 draws reach both ends.
            if high - low <= 256.0 {
                assert!(values.contains(&low) && values.contains(&(high - 1.0)));
            }
        }
        for element in [ElementType::F16, ElementType::Bf16] {
            let values = random(element, -1.0, 1.0);
            assert!(values.iter().all(|v| (-1.0..=1.0).contains(v)));
            assert!(values.iter().any(|v| *v < -0.5) && values.iter().any(|v| *v > 0.5));
            assert!(values.iter().any(|v| v.fract() != 0.0));
        }
    }

    #[test]
    fn two_byte_float_outputs_compare_within_their_own_default_tolerance() {
        // The f32 default tolerance, as a variant gets it when it gives none.
        let default = Tolerance::DEFAULT;
        let one_step_f16 = 1.0 + 2f64.powi(-10);
        let check = |element, got: f64, want: f64| {
            compare(
                Elements::same(element),
                Compare::Elementwise,
                &written(element, &[got]),
                &written(element, &[want]),
                default.for_element(element),
            )
            .unwrap()
            .mismatches
        };
        assert_eq!(check(ElementType::F16, one_step_f16, 1.0), 0);
        assert_eq!(check(ElementType::F16, 1.0 + 3.0 * 2f64.powi(-10), 1.0), 1);
        assert_eq!(check(ElementType::Bf16, 1.0 + 2f64.powi(-7), 1.0), 0);
        assert_eq!(check(ElementType::Bf16, 1.0 + 3.0 * 2f64.powi(-7), 1.0), 1);
        // f32 keeps its tight default: one f16 step is a mismatch there.
        assert_eq!(check(ElementType::F32, one_step_f16, 1.0), 1);
        // An explicit tolerance is kept: rel = 0 asks for the same bits.
        let exact = Tolerance { rel: 0.0, abs: 0.0 };
        let strict = compare(
            Elements::same(ElementType::F16),
            Compare::Elementwise,
            &written(ElementType::F16, &[one_step_f16]),
            &written(ElementType::F16, &[1.0]),
            exact.for_element(ElementType::F16),
        )
        .unwrap();
        assert_eq!(strict.mismatches, 1);
        assert_eq!(strict.first_mismatch, Some((0, one_step_f16, 1.0)));
        // A poisoned element of both matches; against a value it does not.
        let poison = [0xFF, 0xFF];
        let both = compare(
            Elements::same(ElementType::Bf16),
            Compare::Elementwise,
            &poison,
            &poison,
            default.for_element(ElementType::Bf16),
        )
        .unwrap();
        assert_eq!(both.mismatches, 0);
        let one = compare(
            Elements::same(ElementType::Bf16),
            Compare::Elementwise,
            &poison,
            &written(ElementType::Bf16, &[1.0]),
            default.for_element(ElementType::Bf16),
        )
        .unwrap();
        assert_eq!((one.mismatches, one.max_abs_error), (1, f64::INFINITY));
    }

    #[test]
    fn a_large_integer_sum_off_by_one_is_a_mismatch_by_default() {
        let want = written(ElementType::I32, &[2_000_000_000.0]);
        let got = written(ElementType::I32, &[1_999_999_999.0]);
        let result = compare(
            Elements::same(ElementType::I32),
            Compare::Elementwise,
            &got,
            &want,
            Tolerance::DEFAULT.for_element(ElementType::I32),
        )
        .unwrap();
        assert_eq!(result.mismatches, 1);
    }

    #[test]
    fn narrow_integer_outputs_compare_exactly_and_by_sum() {
        let want = written(ElementType::U8, &[0.0, 255.0, 7.0]);
        let got = written(ElementType::U8, &[0.0, 254.0, 7.0]);
        let result = compare(
            Elements::same(ElementType::U8),
            Compare::Elementwise,
            &got,
            &want,
            Tolerance::DEFAULT.for_element(ElementType::U8),
        )
        .unwrap();
        assert_eq!(result.first_mismatch, Some((1, 254.0, 255.0)));
        let sum = compare(
            Elements::same(ElementType::I8),
            Compare::Sum,
            &written(ElementType::I8, &[-100.0, -100.0]),
            &written(ElementType::I8, &[-100.0, -50.0, -50.0]),
            Tolerance::DEFAULT,
        )
        .unwrap();
        assert_eq!((sum.mismatches, sum.first_mismatch), (0, None));
    }
}
