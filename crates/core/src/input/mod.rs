//! What the user gives: the fields and their declaration, the shared link and
//! the page's form as data.
//!
//! Text enters here and leaves as a [`Config`](crate::config::Config): the link
//! codec ([`link`]) and the form ([`form`]) both read each field through its
//! one declaration ([`field`]).

pub mod field;
pub mod form;
pub mod link;
pub mod problems;

pub use field::*;
