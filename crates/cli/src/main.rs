//! `vram`: see `vram --help`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use vram_cli::{run, RunError};

fn main() -> ExitCode {
    let terminal = std::io::stdout().is_terminal();
    match run(std::env::args_os(), terminal) {
        Ok(text) => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (`vram | head -1`) is not an error worth a message.
            let _ = stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush());
            ExitCode::SUCCESS
        }
        // A malformed command line in one line, as every other error.
        Err(RunError::Clap(error)) if error.use_stderr() => {
            eprintln!("{}", vram_cli::usage_line(&error));
            ExitCode::from(error.exit_code().clamp(0, 255) as u8)
        }
        Err(RunError::Clap(error)) => {
            let _ = error.print();
            ExitCode::from(error.exit_code().clamp(0, 255) as u8)
        }
        Err(RunError::Usage(error)) => {
            for message in error.0 {
                eprintln!("error: {message}");
            }
            ExitCode::from(2)
        }
    }
}
