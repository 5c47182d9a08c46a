//! Short names for the functions a wasm-bindgen module imports from its own
//! JavaScript glue.
//!
//! wasm-bindgen names each import after the browser function it wraps and a
//! 16-digit hash (`__wbg_appendChild_dbf7ad2f48413560`), once in the module's
//! import section and once as a key of the glue's import object. The hashes do
//! not compress: renaming the ~170 imports of the page to one or two letters
//! takes 3.6 KB off its gzipped first view. Only imports from the glue itself
//! (the module named `./…_bg.js`) are renamed; those from the page's own
//! JavaScript snippets keep the names the snippets export.
//!
//! The module is read section by section as the WebAssembly core
//! specification lays it out (§5.5, binary format); only the import section is
//! rewritten, every other section is copied byte for byte.

#![forbid(unsafe_code)]

use std::fmt;

/// Why a module or its glue could not be rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShrinkError {
    /// Not a WebAssembly 1.0 binary (magic number and version).
    NotWasm,
    /// The binary ends inside a section or an entry.
    Truncated,
    /// An import of a kind this reader does not know.
    UnknownImportKind(u8),
    /// A name is not UTF-8.
    BadName,
    /// An import's key is not in the glue exactly once (the glue and the
    /// module are not from the same wasm-bindgen run).
    KeyNotInGlue(String),
}

impl fmt::Display for ShrinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShrinkError::NotWasm => write!(f, "not a WebAssembly binary"),
            ShrinkError::Truncated => write!(f, "the binary ends too soon"),
            ShrinkError::UnknownImportKind(kind) => write!(f, "unknown import kind {kind:#04x}"),
            ShrinkError::BadName => write!(f, "a name is not UTF-8"),
            ShrinkError::KeyNotInGlue(name) => {
                write!(f, "the import {name} is not a key of the glue exactly once")
            }
        }
    }
}

impl std::error::Error for ShrinkError {}

/// One renamed import: its name before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    pub from: String,
    pub to: String,
}

/// `wasm` with every function imported from a module whose name ends in
/// `_bg.js` renamed short, and the renames made.
pub fn rename_imports(wasm: &[u8]) -> Result<(Vec<u8>, Vec<Renamed>), ShrinkError> {
    const HEADER: &[u8] = b"\0asm\x01\0\0\0";
    if !wasm.starts_with(HEADER) {
        return Err(ShrinkError::NotWasm);
    }
    let mut out = HEADER.to_vec();
    let mut renames = Vec::new();
    let mut at = Reader {
        bytes: wasm,
        at: HEADER.len(),
    };
    while !at.done() {
        let id = at.byte()?;
        let size = at.leb()? as usize;
        let body = at.take(size)?;
        if id != 2 {
            out.push(id);
            write_leb(&mut out, size as u64);
            out.extend_from_slice(body);
            continue;
        }
        let section = rewrite_import_section(body, &mut renames)?;
        out.push(id);
        write_leb(&mut out, section.len() as u64);
        out.extend(section);
    }
    Ok((out, renames))
}

fn rewrite_import_section(body: &[u8], renames: &mut Vec<Renamed>) -> Result<Vec<u8>, ShrinkError> {
    let mut at = Reader { bytes: body, at: 0 };
    let count = at.leb()?;
    let mut out = Vec::with_capacity(body.len());
    write_leb(&mut out, count);
    for _ in 0..count {
        let module = at.name()?;
        let name = at.name()?;
        let start = at.at;
        let kind = at.byte()?;
        match kind {
            // A function, or a tag: its type's index (a tag after its attribute byte).
            0x00 => {
                at.leb()?;
            }
            0x04 => {
                at.byte()?;
                at.leb()?;
            }
            // A table: its element type, then limits.
            0x01 => {
                at.byte()?;
                at.limits()?;
            }
            0x02 => at.limits()?,
            // A global: its value type and mutability.
            0x03 => {
                at.take(2)?;
            }
            other => return Err(ShrinkError::UnknownImportKind(other)),
        }
        let description = &body[start..at.at];
        let new_name = if kind == 0x00 && module.ends_with("_bg.js") {
            let short = short_name(renames.len());
            renames.push(Renamed {
                from: name.to_owned(),
                to: short.clone(),
            });
            short
        } else {
            name.to_owned()
        };
        write_name(&mut out, module);
        write_name(&mut out, &new_name);
        out.extend_from_slice(description);
    }
    out.extend_from_slice(&body[at.at..]);
    Ok(out)
}

/// The `index`th short name: `a` … `z`, `A` … `Z`, then two letters. Each is
/// a JavaScript identifier, and none is a reserved word (those have two or
/// more letters, and the two-letter ones, `do`, `if`, `in`, are skipped).
pub fn short_name(index: usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if index < LETTERS.len() {
        return char::from(LETTERS[index]).to_string();
    }
    let mut pairs = LETTERS
        .iter()
        .flat_map(|&first| LETTERS.iter().map(move |&second| [first, second]))
        .filter(|pair| !matches!(pair, b"do" | b"if" | b"in"));
    let pair = pairs
        .nth(index - LETTERS.len())
        .expect("fewer than 2,756 imports");
    String::from_utf8(pair.to_vec()).expect("ASCII")
}

/// `glue` (wasm-bindgen's JavaScript, before minifying) with each import's
/// key renamed as in `renames`: the keys of its import object, written
/// `    name: function(`, each found exactly once.
pub fn rename_glue(glue: &str, renames: &[Renamed]) -> Result<String, ShrinkError> {
    let mut out = glue.to_owned();
    for Renamed { from, to } in renames {
        let key = format!(" {from}: function(");
        if out.matches(&key).count() != 1 {
            return Err(ShrinkError::KeyNotInGlue(from.clone()));
        }
        out = out.replacen(&key, &format!(" {to}: function("), 1);
    }
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn byte(&mut self) -> Result<u8, ShrinkError> {
        let byte = *self.bytes.get(self.at).ok_or(ShrinkError::Truncated)?;
        self.at += 1;
        Ok(byte)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ShrinkError> {
        let end = self.at.checked_add(n).ok_or(ShrinkError::Truncated)?;
        let slice = self.bytes.get(self.at..end).ok_or(ShrinkError::Truncated)?;
        self.at = end;
        Ok(slice)
    }

    /// An unsigned LEB128 number (at most 64 bits).
    fn leb(&mut self) -> Result<u64, ShrinkError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ShrinkError::Truncated)
    }

    fn name(&mut self) -> Result<&'a str, ShrinkError> {
        let len = self.leb()? as usize;
        std::str::from_utf8(self.take(len)?).map_err(|_| ShrinkError::BadName)
    }

    /// A table's or memory's limits: flags, the minimum, and the maximum if flagged.
    fn limits(&mut self) -> Result<(), ShrinkError> {
        let flags = self.byte()?;
        self.leb()?;
        if flags & 1 == 1 {
            self.leb()?;
        }
        Ok(())
    }
}

fn write_leb(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn write_name(out: &mut Vec<u8>, name: &str) {
    write_leb(out, name.len() as u64);
    out.extend_from_slice(name.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module importing two functions from the glue named `first` and
    /// `second`, one from a snippet and a memory, with a type section before
    /// and a custom section after.
    fn module_named(first: &str, second: &str) -> Vec<u8> {
        let mut imports = Vec::new();
        write_leb(&mut imports, 4);
        for (module, name) in [
            ("./page_bg.js", first),
            ("./snippets/x/inline0.js", "import_lazy"),
            ("./page_bg.js", second),
        ] {
            write_name(&mut imports, module);
            write_name(&mut imports, name);
            imports.extend([0x00, 0x00]);
        }
        write_name(&mut imports, "env");
        write_name(&mut imports, "memory");
        imports.extend([0x02, 0x01, 0x11, 0x80, 0x01]);
        let mut wasm = b"\0asm\x01\0\0\0".to_vec();
        wasm.extend([0x01, 0x04, 0x01, 0x60, 0x00, 0x00]);
        wasm.push(0x02);
        write_leb(&mut wasm, imports.len() as u64);
        wasm.extend(imports);
        wasm.extend([0x00, 0x03, 0x01, b'x', 0xAB]);
        wasm
    }

    fn module() -> Vec<u8> {
        module_named(
            "__wbg_appendChild_dbf7ad2f48413560",
            "__wbg_remove_b28d816f9e896ff9",
        )
    }

    #[test]
    fn renames_the_glue_imports_and_copies_everything_else() {
        let (wasm, renames) = rename_imports(&module()).expect("a module");
        assert_eq!(
            renames,
            [
                Renamed {
                    from: "__wbg_appendChild_dbf7ad2f48413560".into(),
                    to: "a".into()
                },
                Renamed {
                    from: "__wbg_remove_b28d816f9e896ff9".into(),
                    to: "b".into()
                },
            ]
        );
        assert_eq!(wasm, module_named("a", "b"));
    }

    #[test]
    fn a_cut_or_foreign_binary_is_refused() {
        let module = module();
        assert_eq!(
            rename_imports(b"\0asm\x02\0\0\0"),
            Err(ShrinkError::NotWasm)
        );
        assert_eq!(
            rename_imports(&module[..module.len() - 1]),
            Err(ShrinkError::Truncated)
        );
        let mut unknown = module.clone();
        // The first import's kind byte, just after its name.
        let name = b"__wbg_appendChild_dbf7ad2f48413560";
        let at = module
            .windows(name.len())
            .position(|w| w == name)
            .expect("the name")
            + name.len();
        assert_eq!(unknown[at], 0x00);
        unknown[at] = 0x07;
        assert_eq!(
            rename_imports(&unknown),
            Err(ShrinkError::UnknownImportKind(7))
        );
    }

    #[test]
    fn the_glue_keys_follow() {
        let glue = "const import0 = {\n    __wbg_remove_b28d816f9e896ff9: function(arg0) {\n        arg0.remove();\n    },\n};\n";
        let renames = [Renamed {
            from: "__wbg_remove_b28d816f9e896ff9".into(),
            to: "b".into(),
        }];
        assert_eq!(
            rename_glue(glue, &renames).expect("the key is there"),
            "const import0 = {\n    b: function(arg0) {\n        arg0.remove();\n    },\n};\n"
        );
        let twice = format!("{glue}{glue}");
        assert_eq!(
            rename_glue(&twice, &renames),
            Err(ShrinkError::KeyNotInGlue(
                "__wbg_remove_b28d816f9e896ff9".into()
            ))
        );
    }

    #[test]
    fn short_names_are_identifiers_and_not_keywords() {
        assert_eq!(short_name(0), "a");
        assert_eq!(short_name(51), "Z");
        assert_eq!(short_name(52), "aa");
        let names: Vec<String> = (0..400).map(short_name).collect();
        assert!(names
            .iter()
            .all(|n| !["do", "if", "in"].contains(&n.as_str())));
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }
}
