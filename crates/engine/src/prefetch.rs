//! A cache prefetch hint, for the few places where the engine knows which memory it
//! will read next but not soon enough for the CPU to guess: the pooled packet an
//! endpoint will read on arrival, and the next entry of a link's pipe. With a
//! bandwidth-delay product of packets in flight, both live far outside the caches.

/// Asks the CPU to start loading the cache lines `value` spans (all of them for values
/// up to 128 bytes, such as a pooled packet, which straddles two or three). Only a
/// hint: it changes no state and cannot fail. A no-op off x86-64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = value as *const T as usize;
        let last = start + std::mem::size_of::<T>().max(1) - 1;
        // First and last byte, and one line in between for values of up to three
        // lines (a pooled packet): branch-free, which matters when all is cached.
        for at in [start, start + LINE, last] {
            // SAFETY: a prefetch never faults, whatever the address, and SSE is part
            // of the x86-64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(at.min(last) as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
