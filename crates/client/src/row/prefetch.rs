//! A cache prefetch hint: the crate's one `unsafe` block.
//!
//! `_mm_prefetch` is an `unsafe fn` only because it is declared for a target feature
//! (SSE, which every x86-64 processor has); it reads nothing the program can observe
//! and never faults, whatever the address.

/// Asks the processor to start loading the cache line holding `at` (a hint: nothing
/// else happens, and nothing at all on targets other than x86-64).
#[inline]
pub(crate) fn cache_line(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: a prefetch has no effect the program can observe and never faults, even
    // for an address that is not mapped; SSE is part of every x86-64 target.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::cache_line;

    #[test]
    fn a_hint_for_any_address_is_harmless() {
        let bytes = vec![7u8; 256];
        cache_line(bytes.as_ptr());
        cache_line(bytes.as_ptr().wrapping_add(200));
        cache_line(std::ptr::null());
        assert_eq!(bytes[200], 7);
    }
}
