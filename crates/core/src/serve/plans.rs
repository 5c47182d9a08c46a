//! The serving layouts ranked (filled below).
