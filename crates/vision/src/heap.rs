//! How the process's heap treats frame-sized buffers. Programs that analyse frames (the
//! `koanscope` binary, the benchmarks) call [`keep_frame_buffers`] once at start.
//!
//! Each analysed frame allocates a few buffers of megabytes (the Lab frame, the table's colour,
//! the classes) and frees them again. By default glibc serves such blocks with `mmap` and hands
//! them back to the kernel on `free`, so every frame pays thousands of page faults to get fresh
//! zeroed pages: about 4 ms of a 30 ms analysis on the bench table (and more than a third of
//! the Lab conversion itself). Served from the heap and kept there, the same pages are reused
//! frame after frame; the heap stays as large as the largest frame's working set.

/// Serve blocks up to 32 MiB from the heap and return freed memory to the kernel only when
/// more than 256 MiB of it sits unused at the heap's top. Call once, before the first frame. It
/// sets the whole process's allocator (on glibc; elsewhere it does nothing).
pub fn keep_frame_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets allocator parameters, under the allocator's own lock; a
    // refused value (returned as 0) leaves glibc's default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}
