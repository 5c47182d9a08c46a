//! `vram-prerender INDEX.html`: writes the page's default view into the built
//! page, in place, its style sheet inlined and Trunk's loader moved to the end
//! of the body (`scripts/post-build`, release builds).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [index] = args.as_slice() else {
        eprintln!("usage: vram-prerender INDEX.html");
        return ExitCode::from(2);
    };
    let run = || -> Result<(), Box<dyn std::error::Error>> {
        let page = std::fs::read_to_string(index)?;
        let guard = vram_prerender::guard(&vram_prerender::WrittenFor::defaults());
        let placed = vram_prerender::place(&page, &vram_prerender::default_view(), &guard)?;
        // The style sheet inlined (its file removed: nothing else links it).
        let href = vram_prerender::stylesheet_href(&placed)
            .ok_or(vram_prerender::PlaceError::NoStyleSheet)?;
        let sheet = std::path::Path::new(index)
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join(href.trim_start_matches("./"));
        let css = std::fs::read_to_string(&sheet)?;
        let page = vram_prerender::with_style_inlined(&placed, &css)?;
        let page = vram_prerender::with_first_paint(&vram_prerender::with_loader_last(&page))?;
        std::fs::write(index, page)?;
        std::fs::remove_file(&sheet)?;
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
