//! Entry point of the page that Trunk builds: mounts the calculator on `<body>`.

fn main() {
    vram_app::install_panic_hook();
    vram_app::mount();
    vram_app::timing::mark(vram_app::timing::FIRST_FIGURE);
}

/// A free-list allocator (sorted by address, neighbours merged) instead of the
/// standard library's dlmalloc: 1.25 KB of the page's gzipped size budget less,
/// measured with `scripts/bench` as fast (update p50 1.5 ms either way) and as
/// frugal (linear memory 1.44 MB against 1.38 MB, unchanged after 2,000 updates).
// SAFETY: the page is built without threads (no `atomics` target feature), so
// every allocation and free happens on the one thread.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };
