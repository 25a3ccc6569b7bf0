//! `#[wave_view(T)]`: a struct describing a record of a `T`'s registers becomes a view of one
//! (`Name<'a>(pub &'a T)`) with that record.

use crate::record::wave_struct;
use proc_macro2::TokenStream as Ts;
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, Error, Type};

/// The struct `input` as a view of a `target` (`Name<'a>(pub &'a T)`, deref to `T`) and
/// its record.
pub(crate) fn wave_view_of(target: &Type, mut input: DeriveInput) -> syn::Result<Ts> {
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
