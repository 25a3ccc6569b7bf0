//! `#[derive(Wave)]` and `#[derive(WaveEnum)]`: a block's waveform record from one description.
//!
//! A struct deriving `Wave` is a record: its fields, in order, are the signals the waveform
//! shows, and the derive generates the packing into words (`words`), the decode that shows
//! the signals from them (`decode`, a `pp5_rtl::trace::Decode`) and so the declaration (the
//! declaration walk is a decode), so the two sides cannot disagree; `record(t, name)` and
//! `record_group(t)` hand the words to a tracer with their decode (`#[wave(part)]` on a struct
//! that is only ever a part of a record: none of these, only the `Wave` impl). Field
//! attributes:
//!
//! - `#[wave(bits = N)]`: a bits signal of N bits (1..=64) named as the field; the field is
//!   any integer or `bool` (`as u64`, then the low N bits).
//! - `#[wave(name)]`: a text signal, the name of the field's [`WaveEnum`] variant;
//!   `#[wave(name, none = "IDLE")]` for an `Option` of one (`None` shown as that text).
//! - `#[wave(scope)]` / `#[wave(scope = "s")]`: a nested `Wave` struct in a scope of the
//!   field's name (or `s`); `#[wave(flatten)]`: its signals in the current scope.
//! - `#[wave(each = "opr{}")]` with any of the above on an array `[T; N]`: one per element,
//!   named with `{}` replaced by the index (`{A}`: by a letter from A).
//! - `#[wave(rename = "RxReady")]`: the signal's name; `#[wave(hide)]`: packed, not shown
//!   (for derived signals); `#[wave(skip)]`: neither (a field `Default` builds).
//! - `then(sig: W = expr, ...)` / `before(...)`: derived signals shown after (before) the
//!   field, of width `W` or `text`, computed on decode from the fields (a bits field is its
//!   `u64` value, a `name` field its enum value, a `hide` field too); `then(s: T = expr)`
//!   with `T` a `Wave` record: its signals, in scope `s` (`""`: in the record's), a record
//!   the waveform shows decoded from another's words.
//! - `#[wave(get = expr)]`: the signal is `expr` (of `self`, when packed) instead of the
//!   field, a value of the field's type or of `#[wave(ty = T)]` (with `each`, an array): a
//!   register struct is its own record with a computed signal (a method's value, a saturated
//!   count) in a field's place. A record's `words` evaluates each `get` once.
//!
//! A struct with lifetime parameters may hold its parts by reference (`&'a T`, `T: Wave`): a
//! record of several blocks' registers, none copied.
//!
//! `#[wave_view(T)]` instead of the derive: the struct's fields describe a record of a `T`'s
//! registers (`self` in a `get` is the `T`; a field without one is `T`'s of its name), and the
//! struct becomes `Name<'a>(pub &'a T)`: a block's records in orders of their own, with the
//! values computed from its registers, built by `Name(&block)`, nothing copied.
//!
//! Compile-time checks: a width outside 1..=64 (an error at the attribute), a width wider
//! than the field's type, a record wider than `#[wave(words = N)]` (const assertions).
//!
//! `#[derive(WaveEnum)]` on an enum: its variants' names (`#[wave(name = "...")]`, by default
//! the variant's name in SCREAMING_SNAKE_CASE, or `#[wave(uppercase)]` on the enum: in
//! UPPERCASE), its code (the variant's index) and the
//! variant of a code (payload fields `Default`). An enum of unit variants without
//! discriminants must be `Copy` (its code is its discriminant).

mod attr;
mod enums;
mod part;
mod record;
mod show;
mod view;

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Ts};
use quote::quote_spanned;
use syn::{parse_macro_input, DeriveInput, Error, Type};

/// `#[derive(Wave)]` on a struct: its `Wave` impl and its record's methods.
#[proc_macro_derive(Wave, attributes(wave))]
pub fn derive_wave(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    record::wave_struct(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// `#[wave_view(T)]` on a struct: a record of a `T`'s registers whose fields are only a
/// description (each signal's name, type and attributes, as for `derive(Wave)`, in the
/// waveform's order): the struct becomes `Name<'a>(pub &'a T)`, which derefs to `T`, so a
/// field's value is `T`'s field of its name, or its `get` (of `self`, that is of `T`).
/// A record of a block's registers and the values computed from them, without copying them
/// into a struct, in an order of its own, one record of several per block.
#[proc_macro_attribute]
pub fn wave_view(attr: TokenStream, item: TokenStream) -> TokenStream {
    let target = parse_macro_input!(attr as Type);
    let input = parse_macro_input!(item as DeriveInput);
    view::wave_view_of(&target, input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// `#[derive(WaveEnum)]` on an enum: its `WaveEnum` and `Wave` impls.
#[proc_macro_derive(WaveEnum, attributes(wave))]
pub fn derive_wave_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    enums::wave_enum(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// The path of the runtime support, `pp5_rtl::trace`.
fn rt() -> Ts {
    rt_at(Span::call_site())
}

/// The path of the runtime support at `span` (where an error in a call through it points).
fn rt_at(span: Span) -> Ts {
    quote_spanned!(span=> ::pp5_rtl::trace)
}
