// Patched for vram-calculator (vendor/README.md): the published crate uses web-sys
// setters that newer web-sys marks deprecated; as a path dependency it would be linted.
#![allow(deprecated, clippy::all)]
/*!
   The Plotters HTML5 Canvas backend.

   This backend allows Plotters operates the HTML5 Canvas when targeted to Webassembly.

   See the documentation for [CanvasBackend](struct.CanvasBackend.html) for more details.
*/
mod canvas;

pub use canvas::CanvasBackend;
