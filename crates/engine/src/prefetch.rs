//! A cache prefetch hint, for the few places where the engine knows which memory it
//! will read next but not soon enough for the CPU to guess: the pooled packet an
//! endpoint will read on arrival, and the next entry of a link's pipe. With a
//! bandwidth-delay product of packets in flight, both live far outside the caches.

/// Asks the CPU to start loading every cache line `value` spans (a pooled packet
/// straddles two or three). Only a hint: it changes no state and cannot fail. A no-op
/// off x86-64.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = value as *const T as usize;
        let mut line = start & !(LINE - 1);
        while line < start + std::mem::size_of::<T>() {
            // SAFETY: a prefetch never faults, whatever the address, and SSE is part
            // of the x86-64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
