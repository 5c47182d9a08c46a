//! Entry point of the page that Trunk builds: mounts the calculator on `<body>`.

fn main() {
    vram_app::install_panic_hook();
    vram_app::mount();
}
