//! The network's inner loops: accumulator updates and the output layer.
//!
//! The output layer uses `std::arch` intrinsics for the best the build's target has (the build
//! targets the CPU it is built on, see .cargo/config.toml): AVX-512 (BW), else AVX2; without
//! either, or with the `scalar-eval` feature, portable loops give bit-identical results. The
//! accumulator updates are plain loops over fixed-size arrays, which the compiler vectorises
//! for whatever the target has (512-bit `vpaddw`/`vpsubw` on an AVX-512 machine).

use super::{HIDDEN, QA};

/// `out = input + added - removed`, element by element, for any number of rows (up to 2 each).
#[inline(always)]
pub fn apply(
    out: &mut [i16; HIDDEN],
    input: &[i16; HIDDEN],
    added: &[&[i16; HIDDEN]],
    removed: &[&[i16; HIDDEN]],
) {
    match (added, removed) {
        ([a], [r]) => {
            for i in 0..HIDDEN {
                out[i] = input[i].wrapping_add(a[i]).wrapping_sub(r[i]);
            }
        }
        ([a], [r1, r2]) => {
            for i in 0..HIDDEN {
                out[i] = input[i].wrapping_add(a[i]).wrapping_sub(r1[i]).wrapping_sub(r2[i]);
            }
        }
        ([a1, a2], [r1, r2]) => {
            for i in 0..HIDDEN {
                out[i] = input[i]
                    .wrapping_add(a1[i])
                    .wrapping_add(a2[i])
                    .wrapping_sub(r1[i])
                    .wrapping_sub(r2[i]);
            }
        }
        _ => {
            *out = *input;
            for a in added {
                add_in_place(out, a);
            }
            for r in removed {
                sub_in_place(out, r);
            }
        }
    }
}

#[inline(always)]
pub fn add_in_place(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for i in 0..HIDDEN {
        acc[i] = acc[i].wrapping_add(row[i]);
    }
}

#[inline(always)]
pub fn sub_in_place(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for i in 0..HIDDEN {
        acc[i] = acc[i].wrapping_sub(row[i]);
    }
}

/// `sum (clamp(us, 0, QA)^2 >> 1) * w[..HIDDEN] + (clamp(them, 0, QA)^2 >> 1) * w[HIDDEN..]`:
/// half the squared activations (so that they fit an i16) times the output weights.
#[inline(always)]
pub fn screlu_output(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16]) -> i32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx512bw", not(feature = "scalar-eval")))]
    {
        // SAFETY: the build enables AVX-512 BW for the target CPU, checked by the cfg above.
        unsafe { avx512::screlu_output(us, them, weights) }
    }
    #[cfg(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        not(target_feature = "avx512bw"),
        not(feature = "scalar-eval")
    ))]
    {
        // SAFETY: the build enables AVX2 for the target CPU, checked by the cfg above.
        unsafe { avx2::screlu_output(us, them, weights) }
    }
    #[cfg(not(all(
        target_arch = "x86_64",
        any(target_feature = "avx2", target_feature = "avx512bw"),
        not(feature = "scalar-eval")
    )))]
    {
        scalar::screlu_output(us, them, weights)
    }
}

pub mod scalar {
    use super::{HIDDEN, QA};

    pub fn screlu_output(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16]) -> i32 {
        // Wrapping like the SIMD lanes, so that both paths agree on any input.
        let half = |acc: &[i16; HIDDEN], w: &[i16]| -> i32 {
            acc.iter().zip(w).fold(0i32, |sum, (&x, &w)| {
                let v = i32::from(x).clamp(0, QA);
                sum.wrapping_add(((v * v) >> 1) * i32::from(w))
            })
        };
        half(us, &weights[..HIDDEN]).wrapping_add(half(them, &weights[HIDDEN..2 * HIDDEN]))
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
pub mod avx2 {
    use std::arch::x86_64::*;

    use super::{HIDDEN, QA};

    /// Squared clipped ReLU dot product: v = clamp(x, 0, QA); v * v <= 65025 fits 16 unsigned
    /// bits, so half of it is a non-negative i16 and `madd(v * v >> 1, w)` sums pairs of
    /// products in i32 lanes. With |w| <= 1.98 * QB = 507 a lane's 32 pair sums stay below
    /// 32 * 2 * 32512 * 507 < 2^31.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_output(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16]) -> i32 {
        assert!(weights.len() >= 2 * HIDDEN);
        let zero = _mm256_setzero_si256();
        let max = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for (acc, w) in [(us, &weights[..HIDDEN]), (them, &weights[HIDDEN..2 * HIDDEN])] {
            for i in (0..HIDDEN).step_by(16) {
                // SAFETY: i + 16 <= HIDDEN for both slices (HIDDEN is a multiple of 16);
                // unaligned loads have no alignment requirement.
                let (x, w) = unsafe {
                    (
                        _mm256_loadu_si256(acc.as_ptr().add(i).cast()),
                        _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                    )
                };
                let v = _mm256_min_epi16(_mm256_max_epi16(x, zero), max);
                let half_square = _mm256_srli_epi16(_mm256_mullo_epi16(v, v), 1);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(half_square, w));
            }
        }
        let high = _mm256_extracti128_si256(sum, 1);
        let quad = _mm_add_epi32(_mm256_castsi256_si128(sum), high);
        let pair = _mm_add_epi32(quad, _mm_shuffle_epi32(quad, 0b01_00_11_10));
        let one = _mm_add_epi32(pair, _mm_shuffle_epi32(pair, 0b10_11_00_01));
        _mm_cvtsi128_si32(one)
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512bw"))]
pub mod avx512 {
    use std::arch::x86_64::*;

    use super::{HIDDEN, QA};

    /// The AVX2 kernel's arithmetic 32 values at a time: each i32 lane sums half as many
    /// pair products as there.
    ///
    /// # Safety
    /// The CPU must support AVX-512 BW.
    #[target_feature(enable = "avx512bw")]
    pub unsafe fn screlu_output(us: &[i16; HIDDEN], them: &[i16; HIDDEN], weights: &[i16]) -> i32 {
        assert!(weights.len() >= 2 * HIDDEN);
        let zero = _mm512_setzero_si512();
        let max = _mm512_set1_epi16(QA as i16);
        let mut sum = _mm512_setzero_si512();
        for (acc, w) in [(us, &weights[..HIDDEN]), (them, &weights[HIDDEN..2 * HIDDEN])] {
            for i in (0..HIDDEN).step_by(32) {
                // SAFETY: i + 32 <= HIDDEN for both slices (HIDDEN is a multiple of 32);
                // unaligned loads have no alignment requirement.
                let (x, w) = unsafe {
                    (
                        _mm512_loadu_si512(acc.as_ptr().add(i).cast()),
                        _mm512_loadu_si512(w.as_ptr().add(i).cast()),
                    )
                };
                let v = _mm512_min_epi16(_mm512_max_epi16(x, zero), max);
                let half_square = _mm512_srli_epi16(_mm512_mullo_epi16(v, v), 1);
                sum = _mm512_add_epi32(sum, _mm512_madd_epi16(half_square, w));
            }
        }
        _mm512_reduce_add_epi32(sum)
    }
}

const _: () = assert!(HIDDEN.is_multiple_of(32), "the SIMD loops take up to 32 values at a time");
