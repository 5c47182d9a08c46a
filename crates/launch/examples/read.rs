//! Reads each launch script or configuration named on the command line as
//! `vram --import` does, and prints the link's keys it gives and what it
//! did not read, one file a paragraph: how a contributor checks a new real
//! input before writing its line in `tests/inputs/inputs.json`.
//!
//! `cargo run -p vram-launch --example read -- FILE…`

fn main() {
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) => {
                println!("{path}: {error}\n");
                continue;
            }
        };
        match vram_launch::import::import_launch(&text) {
            Ok(imported) => {
                println!("{path}: {:?}", imported.engine);
                println!("  keys: {}", imported.query());
                for unread in &imported.unread {
                    println!("  not read: {unread}");
                }
            }
            Err(error) => println!("{path}: {error:?}"),
        }
        println!();
    }
}
