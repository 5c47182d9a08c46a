//! Entry point of the page that Trunk builds: mounts the calculator on `<body>`.

fn main() {
    console_error_panic_hook::set_once();
    vram_app::mount();
}
