//! `#[derive(WaveEnum)]`: an enum's variants' names and codes, and its `Wave` impl (its
//! variant's name, as text).

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

/// The `Wave` and `WaveEnum` impls of the enum `input`.
pub(crate) fn wave_enum(input: &DeriveInput) -> syn::Result<Ts> {
    let rt = rt();
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
