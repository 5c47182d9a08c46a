//! `vram-prerender INDEX.html`: writes the page's default view into the built
//! page, in place (`scripts/post-build`, release builds).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [index] = args.as_slice() else {
        eprintln!("usage: vram-prerender INDEX.html");
        return ExitCode::from(2);
    };
    let run = || -> Result<(), Box<dyn std::error::Error>> {
        let page = std::fs::read_to_string(index)?;
        let guard = vram_prerender::guard(&vram_prerender::default_query());
        let placed = vram_prerender::place(&page, &vram_prerender::default_view(), &guard)?;
        std::fs::write(index, placed)?;
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("vram-prerender: {}: {error}", index.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}
