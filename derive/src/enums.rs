//! `#[derive(WaveEnum)]`: an enum's variants' names and codes, and its `Wave` impl (its
//! variant's name, as text).

use crate::attr::wave_attrs;
use crate::rt;
use proc_macro2::TokenStream as Ts;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, Fields, LitStr};

/// `s` (a variant's name, CamelCase) in SCREAMING_SNAKE_CASE.
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

/// The enum's `#[wave(uppercase)]`: its variants' names in UPPERCASE.
fn uppercase(input: &DeriveInput) -> syn::Result<bool> {
    let mut upper = false;
    wave_attrs(&input.attrs, |name, m| {
        match name {
            Some("uppercase") => upper = true,
            _ => return Err(m.error("unknown wave attribute (an enum's: `uppercase`)")),
        }
        Ok(())
    })?;
    Ok(upper)
}

/// The variant's name: its `#[wave(name = "...")]`, else its identifier in UPPERCASE
/// (`upper`) or SCREAMING_SNAKE_CASE.
fn variant_name(v: &syn::Variant, upper: bool) -> syn::Result<String> {
    let mut name = match upper {
        true => v.ident.to_string().to_uppercase(),
        false => screaming_snake(&v.ident.to_string()),
    };
    wave_attrs(&v.attrs, |item, m| {
        match item {
            Some("name") => name = m.value()?.parse::<LitStr>()?.value(),
            _ => return Err(m.error("unknown wave attribute (a variant's: `name`)")),
        }
        Ok(())
    })?;
    Ok(name)
}

/// The variant's pattern (any payload) and the variant built with its payload `Default`.
fn pattern_and_build(ident: &syn::Ident, v: &syn::Variant) -> (Ts, Ts) {
    let vi = &v.ident;
    match &v.fields {
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
    }
}

/// The `Wave` and `WaveEnum` impls of the enum `input`.
pub(crate) fn wave_enum(input: &DeriveInput) -> syn::Result<Ts> {
    let ident = &input.ident;
    let Data::Enum(e) = &input.data else {
        return Err(Error::new(input.span(), "derive(WaveEnum) is for enums"));
    };
    let upper = uppercase(input)?;
    let Some(first) = e.variants.first() else {
        return Err(Error::new(input.span(), "an enum without variants"));
    };
    // A code without a variant: the first variant.
    let fallback = pattern_and_build(ident, first).1;
    let (mut names, mut code, mut from) = (vec![], vec![], vec![]);
    for (k, v) in e.variants.iter().enumerate() {
        names.push(variant_name(v, upper)?);
        let k = k as u64;
        let (pat, build) = pattern_and_build(ident, v);
        code.push(quote!(#pat => #k));
        from.push(quote!(#k => #build));
    }
    // Unit variants numbered as declared: the code is the discriminant (the enum is `Copy`).
    let plain = e
        .variants
        .iter()
        .all(|v| matches!(v.fields, Fields::Unit) && v.discriminant.is_none());
    let code = match plain {
        true => quote!(*self as u64),
        false => quote!(match self { #(#code),* }),
    };
    let from = quote!(match code { #(#from,)* _ => #fallback });
    Ok(impls(ident, &names, &code, &from))
}

/// The impls: `Wave` (the code in `BITS` bits; shown as its name) and `WaveEnum` (the
/// `names`, `code` and `from_code`'s body `from`).
fn impls(ident: &syn::Ident, names: &[String], code: &Ts, from: &Ts) -> Ts {
    let rt = rt();
    quote! {
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
                #code
            }
            fn from_code(code: u64) -> Self {
                #from
            }
        }
    }
}
