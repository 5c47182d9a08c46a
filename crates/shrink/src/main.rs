//! `vram-shrink MODULE.wasm GLUE.js`: renames the module's imports from its
//! glue short, in both files, in place (`scripts/post-build`, release builds).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [wasm_path, glue_path] = args.as_slice() else {
        eprintln!("usage: vram-shrink MODULE.wasm GLUE.js");
        return ExitCode::from(2);
    };
    let run = || -> Result<usize, Box<dyn std::error::Error>> {
        let (wasm, renames) = vram_shrink::rename_imports(&std::fs::read(wasm_path)?)?;
        let glue = vram_shrink::rename_glue(&std::fs::read_to_string(glue_path)?, &renames)?;
        std::fs::write(wasm_path, wasm)?;
        std::fs::write(glue_path, glue)?;
        Ok(renames.len())
    };
    match run() {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("vram-shrink: {}: {error}", wasm_path.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}
