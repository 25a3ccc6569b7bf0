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

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Ts};
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Data, DeriveInput, Error, Expr, Fields, Ident, LitInt, LitStr, Token, Type,
};

#[proc_macro_derive(Wave, attributes(wave))]
pub fn derive_wave(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    wave_struct(&input)
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
    wave_view_of(&target, input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn wave_view_of(target: &Type, mut input: DeriveInput) -> syn::Result<Ts> {
    if !input.generics.params.is_empty() {
        return Err(Error::new(input.generics.span(), "wave_view: no generics"));
    }
    input.generics = syn::parse_quote!(<'a>);
    let wave = wave_struct(&input)?;
    let (vis, ident) = (&input.vis, &input.ident);
    let docs = input.attrs.iter().filter(|a| a.path().is_ident("doc"));
    Ok(quote! {
        #(#docs)*
        #[derive(Clone, Copy)]
        #vis struct #ident<'a>(pub &'a #target);
        impl ::core::ops::Deref for #ident<'_> {
            type Target = #target;
            #[inline(always)]
            fn deref(&self) -> &#target {
                self.0
            }
        }
        #wave
    })
}

#[proc_macro_derive(WaveEnum, attributes(wave))]
pub fn derive_wave_enum(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    wave_enum(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

/// A derived signal: `name: width = expr` or `name: text = expr`; or a derived record,
/// `name: Type = expr` (a `Wave` record's signals, in scope `name`, none if `""`).
struct Derived {
    name: String,
    width: DerivedKind,
    expr: Expr,
}

enum DerivedKind {
    Bits(LitInt),
    Text,
    Record(Box<Type>),
}

impl Parse for Derived {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name = if input.peek(LitStr) {
            input.parse::<LitStr>()?.value()
        } else {
            input.parse::<Ident>()?.to_string()
        };
        input.parse::<Token![:]>()?;
        let width = if input.peek(LitInt) {
            DerivedKind::Bits(input.parse()?)
        } else {
            match input.parse::<Type>()? {
                Type::Path(p) if p.path.is_ident("text") => DerivedKind::Text,
                ty => DerivedKind::Record(Box::new(ty)),
            }
        };
        input.parse::<Token![=]>()?;
        Ok(Derived {
            name,
            width,
            expr: input.parse()?,
        })
    }
}

#[derive(Default)]
enum Kind {
    #[default]
    Unset,
    Bits(Expr),
    Name(Option<LitStr>),
    Scope(Option<String>),
    Flatten,
}

#[derive(Default)]
struct FieldAttr {
    kind: Kind,
    rename: Option<String>,
    each: Option<String>,
    hide: bool,
    skip: bool,
    get: Option<Expr>,
    ty: Option<Type>,
    before: Vec<Derived>,
    then: Vec<Derived>,
}

fn derived_list(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Vec<Derived>> {
    let content;
    syn::parenthesized!(content in meta.input);
    Ok(content
        .parse_terminated(Derived::parse, Token![,])?
        .into_iter()
        .collect())
}

fn field_attr(attrs: &[syn::Attribute]) -> syn::Result<FieldAttr> {
    let mut a = FieldAttr::default();
    let mut none = None;
    for attr in attrs.iter().filter(|x| x.path().is_ident("wave")) {
        attr.parse_nested_meta(|m| {
            let p = &m.path;
            if p.is_ident("bits") {
                let n: Expr = m.value()?.parse()?;
                if let Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(k),
                    ..
                }) = &n
                {
                    if !(1..=64).contains(&k.base10_parse::<u32>()?) {
                        return Err(Error::new(k.span(), "a signal's width is 1..=64"));
                    }
                }
                a.kind = Kind::Bits(n);
            } else if p.is_ident("name") {
                a.kind = Kind::Name(None);
            } else if p.is_ident("none") {
                none = Some(m.value()?.parse::<LitStr>()?);
            } else if p.is_ident("scope") {
                let s = if m.input.peek(Token![=]) {
                    Some(m.value()?.parse::<LitStr>()?.value())
                } else {
                    None
                };
                a.kind = Kind::Scope(s);
            } else if p.is_ident("flatten") {
                a.kind = Kind::Flatten;
            } else if p.is_ident("rename") {
                a.rename = Some(m.value()?.parse::<LitStr>()?.value());
            } else if p.is_ident("each") {
                a.each = Some(m.value()?.parse::<LitStr>()?.value());
            } else if p.is_ident("hide") {
                a.hide = true;
            } else if p.is_ident("skip") {
                a.skip = true;
            } else if p.is_ident("get") {
                a.get = Some(m.value()?.parse()?);
            } else if p.is_ident("ty") {
                a.ty = Some(m.value()?.parse()?);
            } else if p.is_ident("then") {
                a.then.extend(derived_list(&m)?);
            } else if p.is_ident("before") {
                a.before.extend(derived_list(&m)?);
            } else {
                return Err(m.error("unknown wave attribute"));
            }
            Ok(())
        })?;
    }
    if let (Some(n), Kind::Name(x)) = (none, &mut a.kind) {
        *x = Some(n);
    }
    Ok(a)
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> syn::Result<&Type> {
    if let Type::Path(p) = ty {
        if let Some(seg) = p.path.segments.last() {
            if seg.ident == "Option" {
                if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = args.args.first() {
                        return Ok(t);
                    }
                }
            }
        }
    }
    Err(Error::new(ty.span(), "`none` needs an `Option<_>` field"))
}

/// A signal (or a nested record) of the decode.
enum Show {
    /// A 1-bit signal and its value (a `u64`, 0 or 1): consecutive ones are shown at once.
    Bit(String, Ts),
    Other(Ts),
}

/// One element of a field: its bits, its pack (its part of word `__k`) and unpack (to its
/// value for derived signals) at bit offset `__o` of words `__w`, and how it is shown from
/// its value `local`.
struct Part {
    /// Its width if known here (a literal), for the layout: the widest first.
    key: u32,
    bits: Ts,
    pack: Ts,
    unpack: Ts,
    show: Show,
    check: Ts,
}

/// An element of a record: its layout key, bits, pack (its `get` inline), unpack, and pack
/// from its `get`'s local (`words`).
type Elem = (u32, Ts, Ts, Ts, Ts);

fn is_one(e: &Expr) -> bool {
    matches!(e, Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(n), .. })
        if n.base10_parse::<u32>().ok() == Some(1))
}

fn part(kind: &Kind, ty: &Type, name: &str, value: Ts, local: Ts, span: Span) -> syn::Result<Part> {
    let rt = quote!(::pp5_rtl::trace);
    // A field without a kind: an integer or `bool` is as wide as its type.
    let width = match ty {
        Type::Path(p) if p.qself.is_none() => match p.path.get_ident().map(|i| i.to_string()) {
            Some(t) if t == "bool" => Some(1u32),
            Some(t) if t == "u8" => Some(8),
            Some(t) if t == "u16" => Some(16),
            Some(t) if t == "u32" => Some(32),
            Some(t) if t == "u64" => Some(64),
            _ => None,
        },
        _ => None,
    };
    let default;
    let kind = match (kind, width) {
        (Kind::Unset, Some(n)) => {
            let n = LitInt::new(&n.to_string(), span);
            default = Kind::Bits(syn::parse_quote!(#n));
            &default
        }
        _ => kind,
    };
    Ok(match kind {
        Kind::Bits(n) => Part {
            key: match n {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(k),
                    ..
                }) => k.base10_parse()?,
                _ => 0,
            },
            bits: quote!(#n),
            pack: quote!(#rt::part((#value) as u64, __o, #n, __k)),
            unpack: quote!(#rt::get(__w, __o, #n)),
            show: match is_one(n) {
                true => Show::Bit(name.to_string(), local),
                false => Show::Other(quote!(__t.bits(#name, #n, #local);)),
            },
            check: quote_spanned! {span=>
                const _: () = #rt::check_width::<#ty>(#n);
            },
        },
        Kind::Name(None) => {
            let bits = quote!(#rt::bits_for(<#ty as #rt::WaveEnum>::NAMES.len()));
            Part {
                pack: quote!(#rt::part(#rt::WaveEnum::code(&#value), __o, #bits, __k)),
                unpack: quote!(<#ty as #rt::WaveEnum>::from_code(#rt::get(__w, __o, #bits))),
                show: Show::Other(quote!(__t.text_static(#name, #rt::WaveEnum::name(&#local));)),
                bits,
                key: 0,
                check: quote!(),
            }
        }
        Kind::Name(Some(none)) => {
            let inner = option_inner(ty)?;
            let bits = quote!(#rt::bits_for(<#inner as #rt::WaveEnum>::NAMES.len() + 1));
            Part {
                pack: quote!(#rt::part(
                    (#value).as_ref().map_or(0, |e| 1 + #rt::WaveEnum::code(e)),
                    __o,
                    #bits,
                    __k
                )),
                unpack: quote!(match #rt::get(__w, __o, #bits) {
                    0 => None,
                    c => Some(<#inner as #rt::WaveEnum>::from_code(c - 1)),
                }),
                show: Show::Other(quote!(__t.text_static(
                    #name,
                    (#local).as_ref().map_or(#none, #rt::WaveEnum::name)
                );)),
                bits,
                key: 0,
                check: quote!(),
            }
        }
        // Any other `Wave` (a nested record, in a scope of its own unless flattened; an
        // enum, its name): its value in the decode is its offset, for its `show`.
        Kind::Scope(_) | Kind::Flatten | Kind::Unset => {
            let name = if matches!(kind, Kind::Flatten) {
                ""
            } else {
                name
            };
            Part {
                key: 0,
                bits: quote!(<#ty as #rt::Wave>::BITS),
                pack: quote!(#rt::Wave::word(&#value, __o, __k)),
                unpack: quote!(__o),
                show: Show::Other(quote!(<#ty as #rt::Wave>::show(__w, #local, #name, __t);)),
                check: quote!(),
            }
        }
    })
}

fn derived(d: &[Derived], show: &mut Vec<Show>) {
    for d in d {
        let (name, e) = (&d.name, &d.expr);
        let rt = quote!(::pp5_rtl::trace);
        show.push(match &d.width {
            DerivedKind::Bits(n) if n.base10_parse::<u32>().ok() == Some(1) => {
                Show::Bit(name.clone(), quote!(((#e) as u64 & 1)))
            }
            DerivedKind::Bits(n) => Show::Other(quote!(__t.bits(#name, #n, (#e) as u64);)),
            DerivedKind::Text => Show::Other(quote!(__t.text_static(#name, #e);)),
            DerivedKind::Record(ty) => Show::Other(quote! {{
                const N: usize = (<#ty as #rt::Wave>::BITS as usize).div_ceil(64);
                let r: #ty = #e;
                <#ty as #rt::Wave>::show(&#rt::words::<_, N>(&r), 0, #name, __t);
            }}),
        });
    }
}

/// The decode's calls: runs of 1-bit signals shown at once (`Tracer::bits_packed`).
fn show_calls(show: Vec<Show>) -> Ts {
    let mut out = Ts::new();
    let mut run: Vec<(String, Ts)> = vec![];
    let flush = |run: &mut Vec<(String, Ts)>, out: &mut Ts| {
        match run.len() {
            0 => {}
            1 => {
                let (n, v) = &run[0];
                out.extend(quote!(__t.bits(#n, 1, #v);));
            }
            _ => {
                let names = run.iter().map(|r| &r.0);
                let vals = run.iter().enumerate().map(|(k, r)| {
                    let v = &r.1;
                    quote!((#v) << #k)
                });
                out.extend(quote!(__t.bits_packed(&[#(#names),*], 0 #(| #vals)*);));
            }
        }
        run.clear();
    };
    for s in show {
        match s {
            Show::Bit(n, v) => {
                if run.len() == 64 {
                    flush(&mut run, &mut out);
                }
                run.push((n, v));
            }
            Show::Other(t) => {
                flush(&mut run, &mut out);
                out.extend(t);
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

fn wave_struct(input: &DeriveInput) -> syn::Result<Ts> {
    let rt = quote!(::pp5_rtl::trace);
    let ident = &input.ident;
    let Data::Struct(s) = &input.data else {
        return Err(Error::new(input.span(), "derive(Wave) is for structs"));
    };
    let Fields::Named(fields) = &s.fields else {
        return Err(Error::new(input.span(), "derive(Wave) needs named fields"));
    };
    // Lifetime parameters only: the layout is the same for every lifetime (`'static`'s).
    let g = &input.generics;
    if g.type_params().next().is_some() || g.const_params().next().is_some() {
        return Err(Error::new(
            g.span(),
            "derive(Wave): lifetime parameters only",
        ));
    }
    let (ig, tg, wc) = g.split_for_impl();
    let statics = g.lifetimes().map(|_| quote!('static));
    let stat = match g.lifetimes().next() {
        Some(_) => quote!(#ident<#(#statics),*>),
        None => quote!(#ident),
    };
    let (mut words, mut record) = (None, true);
    for attr in input.attrs.iter().filter(|x| x.path().is_ident("wave")) {
        attr.parse_nested_meta(|m| {
            if m.path.is_ident("words") {
                words = Some(m.value()?.parse::<LitInt>()?);
                Ok(())
            } else if m.path.is_ident("part") {
                record = false;
                Ok(())
            } else {
                Err(m.error("unknown wave attribute"))
            }
        })?;
    }
    // Every element's layout key, bits, pack and unpack (at `__o`); per field, its elements;
    // the `get`s, each evaluated once into a local before the words are built.
    let (mut owners, mut show, mut checks) = (vec![], vec![], vec![]);
    let mut elems: Vec<Elem> = vec![];
    let mut lets = vec![];
    for f in &fields.named {
        let a = field_attr(&f.attrs)?;
        if a.skip {
            continue;
        }
        let fid = f
            .ident
            .as_ref()
            .ok_or_else(|| Error::new(f.span(), "a named field"))?;
        let fname = match &a.kind {
            Kind::Scope(Some(s)) => s.clone(),
            _ => a.rename.clone().unwrap_or_else(|| fid.to_string()),
        };
        let span = f.ty.span();
        derived(&a.before, &mut show);
        // The field's value: the field, or its `get`: inline in `Wave::word`, in a local of
        // `words` (evaluated once for all the words; in `word`, a local costs more).
        let (value, once) = match &a.get {
            Some(g) => {
                let local = format_ident!("__get_{}", fid);
                let ty = a.ty.as_ref().unwrap_or(&f.ty);
                lets.push(quote!(let #local: #ty = #g;));
                (quote!({ let __get: #ty = #g; __get }), quote!(#local))
            }
            None => (quote!(self.#fid), quote!(self.#fid)),
        };
        // The elements: the field, or with `each` those of an array.
        let (ty, els) = match &a.each {
            Some(each) => {
                let Type::Array(arr) = &f.ty else {
                    return Err(Error::new(span, "`each` is for an array field"));
                };
                let n: usize = match &arr.len {
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => n.base10_parse()?,
                    e => return Err(Error::new(e.span(), "`each` needs a literal length")),
                };
                let name = match &a.kind {
                    Kind::Scope(Some(s)) => s,
                    _ => each,
                };
                let elems = (0..n).map(|k| {
                    let letter = char::from(b'A' + k as u8).to_string();
                    let name = name.replace("{}", &k.to_string()).replace("{A}", &letter);
                    (
                        name,
                        quote!(#value[#k]),
                        quote!(#once[#k]),
                        quote!(#fid[#k]),
                    )
                });
                (&*arr.elem, elems.collect::<Vec<_>>())
            }
            None => {
                let ty = a.ty.as_ref().unwrap_or(&f.ty);
                (ty, vec![(fname, value, once, quote!(#fid))])
            }
        };
        let first = elems.len();
        for (name, value, once, local) in els {
            let pack_once = part(&a.kind, ty, &name, once, local.clone(), span)?.pack;
            let p = part(&a.kind, ty, &name, value, local, span)?;
            checks.push(p.check);
            elems.push((p.key, p.bits, p.pack, p.unpack, pack_once));
            if !a.hide {
                show.push(p.show);
            }
        }
        owners.push((fid, a.each.is_some(), first..elems.len()));
        derived(&a.then, &mut show);
    }
    let show = show_calls(show);
    // The layout: the widest elements first (whole words stay aligned), each at the sum of
    // the bits before it; the signals' order is the fields' whatever the layout.
    let mut order: Vec<usize> = (0..elems.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(elems[k].0));
    let mut off = vec![quote!(0); elems.len()];
    let mut sum = quote!(0);
    for &k in &order {
        off[k] = sum.clone();
        let b = &elems[k].1;
        sum = quote!(#sum + #b);
    }
    let bits = sum;
    // Each word is one expression: the parts of every element (those not in it are 0 once
    // `at` and `__k` are constants, so each word is built in registers and stored once).
    let pack = |pk: fn(&Elem) -> &Ts| -> Vec<Ts> {
        let part = |&k: &usize| {
            let (o, pk) = (&off[k], pk(&elems[k]));
            quote! { | { let __o = at + (#o); #pk } }
        };
        order.iter().map(part).collect()
    };
    let (pack, pack_once) = (pack(|e| &e.2), pack(|e| &e.4));
    // The first 8 words written out, so that each is built in registers from the locals
    // whatever the optimiser's unrolling (a closure called per word is not inlined).
    let unrolled = (0..8usize).map(|k| {
        quote! {
            if let Some(__v) = __words.get_mut(#k) {
                let __k = #k;
                *__v = 0 #(#pack_once)*;
            }
        }
    });
    let unpack = owners.iter().map(|(fid, array, range)| {
        let values = range.clone().map(|k| {
            let (o, u) = (&off[k], &elems[k].3);
            quote! { { let __o = at + (#o); #u } }
        });
        match array {
            true => quote! { let #fid = [#(#values),*]; },
            false => quote! { let #fid = #(#values)*; },
        }
    });
    let words_check = words.map(|n| {
        quote! {
            const _: () = #rt::check_words(<#stat as #rt::Wave>::BITS, #n);
        }
    });
    let words_ident = format_ident!("WORDS");
    let methods = record.then(|| {
        quote! {
            impl #ig #ident #tg #wc {
                /// Words of the record.
                pub const #words_ident: usize =
                    (<#stat as #rt::Wave>::BITS as usize).div_ceil(64);
                /// The record's words: each `get` evaluated once.
                #[inline(always)]
                #[allow(clippy::identity_op)]
                pub fn words(&self) -> [u64; <#stat>::#words_ident] {
                    #(#lets)*
                    let at = 0u32;
                    let mut __words = [0u64; <#stat>::#words_ident];
                    #(#unrolled)*
                    for (__k, __v) in __words.iter_mut().enumerate().skip(8) {
                        *__v = 0 #(#pack_once)*;
                    }
                    __words
                }
                /// The record's signals from its words (a `Decode`).
                pub fn decode(w: &[u64], t: &mut dyn #rt::Tracer) {
                    <#stat as #rt::Wave>::show(w, 0, "", t)
                }
                /// The record as scope `name` of `t`'s (`Tracer::record`).
                #[inline(always)]
                pub fn record<__T: #rt::Tracer + ?Sized>(&self, t: &mut __T, name: &str) {
                    t.record(name, &self.words(), <#stat>::decode)
                }
                /// The record's signals in `t`'s scope (`Tracer::record_group`).
                #[inline(always)]
                pub fn record_group<__T: #rt::Tracer + ?Sized>(&self, t: &mut __T) {
                    t.record_group(&self.words(), <#stat>::decode)
                }
            }
        }
    });
    Ok(quote! {
        #(#checks)*
        #words_check
        impl #ig #rt::Wave for #ident #tg #wc {
            const BITS: u32 = #bits;
            #[inline(always)]
            #[allow(clippy::identity_op)]
            fn word(&self, at: u32, __k: usize) -> u64 {
                0 #(#pack)*
            }
            #[allow(unused_assignments, unused_variables, clippy::unnecessary_cast)]
            fn show(__w: &[u64], at: u32, __name: &str, __t: &mut dyn #rt::Tracer) {
                #(#unpack)*
                if !__name.is_empty() {
                    __t.push_scope(__name);
                }
                #show
                if !__name.is_empty() {
                    __t.pop_scope();
                }
            }
        }
        #methods
    })
}

fn screaming_snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_uppercase());
    }
    out
}

fn wave_enum(input: &DeriveInput) -> syn::Result<Ts> {
    let rt = quote!(::pp5_rtl::trace);
    let ident = &input.ident;
    let Data::Enum(e) = &input.data else {
        return Err(Error::new(input.span(), "derive(WaveEnum) is for enums"));
    };
    let mut upper = false;
    for attr in input.attrs.iter().filter(|x| x.path().is_ident("wave")) {
        attr.parse_nested_meta(|m| {
            upper = m.path.is_ident("uppercase");
            match upper {
                true => Ok(()),
                false => Err(m.error("unknown wave attribute")),
            }
        })?;
    }
    let (mut names, mut code, mut from, mut builds) = (vec![], vec![], vec![], vec![]);
    for (k, v) in e.variants.iter().enumerate() {
        let mut name = match upper {
            true => v.ident.to_string().to_uppercase(),
            false => screaming_snake(&v.ident.to_string()),
        };
        for attr in v.attrs.iter().filter(|x| x.path().is_ident("wave")) {
            attr.parse_nested_meta(|m| {
                if m.path.is_ident("name") {
                    name = m.value()?.parse::<LitStr>()?.value();
                    Ok(())
                } else {
                    Err(m.error("unknown wave attribute"))
                }
            })?;
        }
        names.push(name);
        let vi = &v.ident;
        let k = k as u64;
        let (pat, build) = match &v.fields {
            Fields::Unit => (quote!(#ident::#vi), quote!(#ident::#vi)),
            Fields::Unnamed(f) => {
                let d = f.unnamed.iter().map(|_| quote!(Default::default()));
                (quote!(#ident::#vi(..)), quote!(#ident::#vi(#(#d),*)))
            }
            Fields::Named(f) => {
                let d = f
                    .named
                    .iter()
                    .map(|f| f.ident.as_ref())
                    .map(|i| quote!(#i: Default::default()));
                (quote!(#ident::#vi { .. }), quote!(#ident::#vi { #(#d),* }))
            }
        };
        code.push(quote!(#pat => #k));
        from.push(quote!(#k => #build));
        builds.push(build);
    }
    let Some(fallback_build) = builds.first().cloned() else {
        return Err(Error::new(input.span(), "an enum without variants"));
    };
    // Unit variants numbered as declared: the code is the discriminant (the enum is `Copy`).
    let plain = e
        .variants
        .iter()
        .all(|v| matches!(v.fields, Fields::Unit) && v.discriminant.is_none());
    let code_body = match plain {
        true => quote!(*self as u64),
        false => quote!(match self { #(#code),* }),
    };
    Ok(quote! {
        impl #rt::Wave for #ident {
            const BITS: u32 = #rt::bits_for(<#ident as #rt::WaveEnum>::NAMES.len());
            #[inline(always)]
            fn word(&self, at: u32, k: usize) -> u64 {
                #rt::part(#rt::WaveEnum::code(self), at, <Self as #rt::Wave>::BITS, k)
            }
            fn show(w: &[u64], at: u32, name: &str, t: &mut dyn #rt::Tracer) {
                let code = #rt::get(w, at, <Self as #rt::Wave>::BITS) as usize;
                let names = <Self as #rt::WaveEnum>::NAMES;
                t.text_static(name, names.get(code).copied().unwrap_or("?"))
            }
        }
        impl #rt::WaveEnum for #ident {
            const NAMES: &'static [&'static str] = &[#(#names),*];
            #[inline(always)]
            fn code(&self) -> u64 {
                #code_body
            }
            fn from_code(code: u64) -> Self {
                match code { #(#from,)* _ => #fallback_build }
            }
        }
    })
}
