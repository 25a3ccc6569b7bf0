//! One element of a record (a field, or an element of an `each` array): its width, its
//! packing into the words, its unpacking from them and how the waveform shows it.

use crate::attr::{int_lit, option_inner, Kind};
use crate::show::Show;
use crate::{rt, rt_at};
use proc_macro2::{Span, TokenStream as Ts};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{LitInt, Type};

/// An element's value where it is used: in `Wave::word` (its `get` inline: a local there
/// costs more), in `words` (its `get`'s local, evaluated once for all the words) and in the
/// decode (the local the unpack made).
pub(crate) struct Value {
    pub word: Ts,
    pub words: Ts,
    pub decoded: Ts,
}

/// An element as the layout sees it: each part is at bit offset `__o` of word `__k` (packs)
/// or of words `__w` (unpack); and its const assertion.
pub(crate) struct Elem {
    /// Its width if known here (a literal), for the layout: the widest first; else 0.
    pub key: u32,
    pub bits: Ts,
    /// Its part of word `__k`, from `Value::word` (`Wave::word`).
    pub pack_word: Ts,
    /// Its part of word `__k`, from `Value::words` (`words`).
    pub pack_words: Ts,
    /// Its value (for derived signals and the show) from the words.
    pub unpack: Ts,
    /// Its const assertion (a bits signal no wider than its type), or nothing.
    pub check: Ts,
}

/// An element and how it is shown.
pub(crate) type Part = (Elem, Show);

/// The width of a field of type `ty` without a kind: an integer or `bool` is as wide as its
/// type.
fn type_width(ty: &Type) -> Option<u32> {
    let Type::Path(p) = ty else { return None };
    let t = p.path.get_ident().filter(|_| p.qself.is_none())?;
    match t.to_string().as_str() {
        "bool" => Some(1),
        "u8" => Some(8),
        "u16" => Some(16),
        "u32" => Some(32),
        "u64" => Some(64),
        _ => None,
    }
}

/// The element `name` of type `ty` shown as `kind`, its value `v`, its span `span`; and how
/// it is shown (from `Value::decoded`).
pub(crate) fn part(kind: &Kind, ty: &Type, name: &str, v: Value, span: Span) -> syn::Result<Part> {
    Ok(match (kind, type_width(ty)) {
        (Kind::Unset, Some(n)) => {
            let n = LitInt::new(&n.to_string(), span);
            bits_part(&syn::parse_quote!(#n), ty, name, v)?
        }
        (Kind::Bits(n), _) => bits_part(n, ty, name, v)?,
        (Kind::Name(None), _) => name_part(ty, name, v),
        (Kind::Name(Some(none)), _) => option_name_part(option_inner(ty)?, none, name, v),
        (Kind::Flatten, _) => wave_part(ty, "", v),
        (Kind::Scope(_) | Kind::Unset, _) => wave_part(ty, name, v),
    })
}

/// A bits signal of width `n`: the value `as u64`, its low `n` bits.
fn bits_part(n: &syn::Expr, ty: &Type, name: &str, v: Value) -> syn::Result<Part> {
    let rt = rt();
    let pack = |v: &Ts| quote!(#rt::part((#v) as u64, __o, #n, __k));
    let elem = Elem {
        key: int_lit(n).map_or(Ok(0), LitInt::base10_parse)?,
        bits: quote!(#n),
        pack_word: pack(&v.word),
        pack_words: pack(&v.words),
        unpack: quote!(#rt::get(__w, __o, #n)),
        // At the width (`bits = N`), where a compile error about it points.
        check: {
            let rt = rt_at(n.span());
            quote_spanned! {n.span()=> const _: () = #rt::check_width::<#ty>(#n);}
        },
    };
    let (local, one) = (v.decoded, int_lit(n).map(LitInt::base10_parse::<u32>));
    Ok(match one {
        Some(Ok(1)) => (elem, Show::Bit(name.to_string(), local)),
        _ => (elem, Show::Other(quote!(__t.bits(#name, #n, #local);))),
    })
}

/// A `WaveEnum`: its code packed, its variant's name shown.
fn name_part(ty: &Type, name: &str, v: Value) -> Part {
    let rt = rt();
    let bits = quote!(#rt::bits_for(<#ty as #rt::WaveEnum>::NAMES.len()));
    let pack = |v: &Ts| quote!(#rt::part(#rt::WaveEnum::code(&#v), __o, #bits, __k));
    let elem = Elem {
        key: 0,
        pack_word: pack(&v.word),
        pack_words: pack(&v.words),
        unpack: quote!(<#ty as #rt::WaveEnum>::from_code(#rt::get(__w, __o, #bits))),
        bits,
        check: quote!(),
    };
    let local = v.decoded;
    let show = quote!(__t.text_static(#name, #rt::WaveEnum::name(&#local)););
    (elem, Show::Other(show))
}

/// An `Option` of a `WaveEnum` (`inner`): 0 for `None` (shown as `none`), else 1 + its code.
fn option_name_part(inner: &Type, none: &syn::LitStr, name: &str, v: Value) -> Part {
    let rt = rt();
    let bits = quote!(#rt::bits_for(<#inner as #rt::WaveEnum>::NAMES.len() + 1));
    let pack = |v: &Ts| {
        let code = quote!((#v).as_ref().map_or(0, |e| 1 + #rt::WaveEnum::code(e)));
        quote!(#rt::part(#code, __o, #bits, __k))
    };
    let elem = Elem {
        key: 0,
        pack_word: pack(&v.word),
        pack_words: pack(&v.words),
        unpack: quote!(match #rt::get(__w, __o, #bits) {
            0 => None,
            c => Some(<#inner as #rt::WaveEnum>::from_code(c - 1)),
        }),
        bits,
        check: quote!(),
    };
    let local = v.decoded;
    let name_of = quote!((#local).as_ref().map_or(#none, #rt::WaveEnum::name));
    (elem, Show::Other(quote!(__t.text_static(#name, #name_of);)))
}

/// Any other `Wave` (a nested record, in scope `name`, none if `""`; an enum, its name):
/// its value in the decode is its offset, for its `show`.
fn wave_part(ty: &Type, name: &str, v: Value) -> Part {
    let rt = rt();
    let pack = |v: &Ts| quote!(#rt::Wave::word(&#v, __o, __k));
    let elem = Elem {
        key: 0,
        bits: quote!(<#ty as #rt::Wave>::BITS),
        pack_word: pack(&v.word),
        pack_words: pack(&v.words),
        unpack: quote!(__o),
        check: quote!(),
    };
    let local = v.decoded;
    let show = quote!(<#ty as #rt::Wave>::show(__w, #local, #name, __t););
    (elem, Show::Other(show))
}
