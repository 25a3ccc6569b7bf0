//! `#[derive(Wave)]` on a struct: its elements laid out in words, the `Wave` impl (packing
//! and decode) and the record's methods (`WORDS`, `words`, `decode`, `record`,
//! `record_group`).

use crate::attr::{field_attr, int_lit, struct_attr, FieldAttr, Kind};
use crate::part::{part, Elem, Value};
use crate::show::{derived, show_calls, Show};
use crate::{rt, rt_at};
use proc_macro2::TokenStream as Ts;
use quote::{format_ident, quote, quote_spanned};
use std::ops::Range;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Error, Field, Fields, Ident, Type};

/// The `Wave` impl of the struct `input` and, unless it is `#[wave(part)]`, its record methods.
pub(crate) fn wave_struct(input: &DeriveInput) -> syn::Result<Ts> {
    let fields = named_fields(input)?;
    let stat = static_type(input)?;
    let attr = struct_attr(&input.attrs)?;
    let mut c = Collected::default();
    for f in fields {
        c.field(f)?;
    }
    let layout = Layout::of(&c.elems);
    // At `words = N`, where a compile error about it points.
    let words_check = attr.words.map(|n| {
        let rt = rt_at(n.span());
        quote_spanned! {n.span()=>
            const _: () = #rt::check_words(<#stat as #rt::Wave>::BITS, #n);
        }
    });
    let pack_word = layout.packs(&c.elems, |e| &e.pack_word);
    let unpack = layout.unpacks(&c.elems, &c.owners);
    let wave = wave_impl(input, &layout.bits, &pack_word, &unpack, show_calls(c.show));
    let methods = (!attr.part).then(|| {
        let pack_words = layout.packs(&c.elems, |e| &e.pack_words);
        record_methods(input, &stat, &c.lets, &pack_words)
    });
    let checks = c.elems.iter().map(|e| &e.check);
    Ok(quote! {
        #(#checks)*
        #words_check
        #wave
        #methods
    })
}

/// The struct's fields: a struct with named fields, or an error.
fn named_fields(input: &DeriveInput) -> syn::Result<impl Iterator<Item = &Field>> {
    let Data::Struct(s) = &input.data else {
        return Err(Error::new(input.span(), "derive(Wave) is for structs"));
    };
    let Fields::Named(fields) = &s.fields else {
        return Err(Error::new(input.span(), "derive(Wave) needs named fields"));
    };
    Ok(fields.named.iter())
}

/// The struct with `'static` for each of its lifetimes (the layout is the same for every
/// lifetime); an error if it has other generic parameters.
fn static_type(input: &DeriveInput) -> syn::Result<Ts> {
    let (ident, g) = (&input.ident, &input.generics);
    if g.type_params().next().is_some() || g.const_params().next().is_some() {
        return Err(Error::new(
            g.span(),
            "derive(Wave): lifetime parameters only",
        ));
    }
    let statics = g.lifetimes().map(|_| quote!('static));
    Ok(match g.lifetimes().next() {
        Some(_) => quote!(#ident<#(#statics),*>),
        None => quote!(#ident),
    })
}

/// A field's elements: its name, whether an array (`each`), the range of its elements.
struct Owner<'a> {
    field: &'a Ident,
    array: bool,
    elems: Range<usize>,
}

/// What the fields make, in the fields' order: the elements, per field its elements, the
/// signals shown and the `get`s' locals of `words`.
#[derive(Default)]
struct Collected<'a> {
    elems: Vec<Elem>,
    owners: Vec<Owner<'a>>,
    show: Vec<Show>,
    lets: Vec<Ts>,
}

impl<'a> Collected<'a> {
    /// The field `f`'s elements and signals (its derived ones before and after), unless
    /// it is `skip`.
    fn field(&mut self, f: &'a Field) -> syn::Result<()> {
        let a = field_attr(&f.attrs)?;
        if a.skip {
            return Ok(());
        }
        let fid = f
            .ident
            .as_ref()
            .ok_or_else(|| Error::new(f.span(), "a named field"))?;
        derived(&a.before, &mut self.show);
        let value = self.value(&a, f, fid);
        let (ty, elements) = elements(&a, f, fid, value)?;
        let first = self.elems.len();
        for (name, value) in elements {
            let (elem, show) = part(&a.kind, ty, &name, value, f.ty.span())?;
            self.elems.push(elem);
            if !a.hide {
                self.show.push(show);
            }
        }
        let (array, elems) = (a.each.is_some(), first..self.elems.len());
        self.owners.push(Owner {
            field: fid,
            array,
            elems,
        });
        derived(&a.then, &mut self.show);
        Ok(())
    }

    /// The field's value: the field, or its `get`: inline in `Wave::word`, in a local of
    /// `words` (evaluated once for all the words; in `word`, a local costs more).
    fn value(&mut self, a: &FieldAttr, f: &Field, fid: &Ident) -> Value {
        let (word, words) = match &a.get {
            None => (quote!(self.#fid), quote!(self.#fid)),
            Some(g) => {
                let local = format_ident!("__get_{}", fid);
                let ty = a.ty.as_ref().unwrap_or(&f.ty);
                self.lets.push(quote!(let #local: #ty = #g;));
                (quote!({ let __get: #ty = #g; __get }), quote!(#local))
            }
        };
        let decoded = quote!(#fid);
        Value {
            word,
            words,
            decoded,
        }
    }
}

/// The field's elements (each named, with its value) and their type: the field, or with
/// `each` those of an array, named by the pattern with `{}` replaced by the index (`{A}`: by
/// a letter from A).
fn elements<'f>(
    a: &'f FieldAttr,
    f: &'f Field,
    fid: &Ident,
    v: Value,
) -> syn::Result<(&'f Type, Vec<(String, Value)>)> {
    let Some(each) = &a.each else {
        let name = match &a.kind {
            Kind::Scope(Some(s)) => s.clone(),
            _ => a.rename.clone().unwrap_or_else(|| fid.to_string()),
        };
        return Ok((a.ty.as_ref().unwrap_or(&f.ty), vec![(name, v)]));
    };
    let Type::Array(arr) = &f.ty else {
        return Err(Error::new(f.ty.span(), "`each` is for an array field"));
    };
    let Some(n) = int_lit(&arr.len) else {
        return Err(Error::new(arr.len.span(), "`each` needs a literal length"));
    };
    let pattern = match &a.kind {
        Kind::Scope(Some(s)) => s,
        _ => each,
    };
    let (word, words) = (&v.word, &v.words);
    let elements = (0..n.base10_parse::<usize>()?).map(|k| {
        let letter = char::from(b'A' + k as u8).to_string();
        let name = pattern
            .replace("{}", &k.to_string())
            .replace("{A}", &letter);
        let value = Value {
            word: quote!(#word[#k]),
            words: quote!(#words[#k]),
            decoded: quote!(#fid[#k]),
        };
        (name, value)
    });
    Ok((&*arr.elem, elements.collect()))
}

/// The layout: the widest elements first (whole words stay aligned), stable in the fields'
/// order, each at the sum of the bits before it; the signals' order is the fields' whatever
/// the layout.
struct Layout {
    /// The elements' indices in the layout's order.
    order: Vec<usize>,
    /// Each element's offset (by index).
    offsets: Vec<Ts>,
    /// The record's width.
    bits: Ts,
}

impl Layout {
    /// The layout of `elems`.
    fn of(elems: &[Elem]) -> Layout {
        let mut order: Vec<usize> = (0..elems.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(elems[k].key));
        let mut offsets = vec![quote!(0); elems.len()];
        let mut sum = quote!(0);
        for &k in &order {
            offsets[k] = sum.clone();
            let b = &elems[k].bits;
            sum = quote!(#sum + #b);
        }
        Layout {
            order,
            offsets,
            bits: sum,
        }
    }

    /// Word `__k` as one expression: the parts (`pack`) of every element (those not in it are
    /// 0 once `at` and `__k` are constants, so each word is built in registers, stored once).
    fn packs(&self, elems: &[Elem], pack: fn(&Elem) -> &Ts) -> Vec<Ts> {
        let part = |&k: &usize| {
            let (o, pk) = (&self.offsets[k], pack(&elems[k]));
            quote! { | { let __o = at + (#o); #pk } }
        };
        self.order.iter().map(part).collect()
    }

    /// The decode's locals: each field's value (an array's: its elements') from the words.
    fn unpacks(&self, elems: &[Elem], owners: &[Owner]) -> Vec<Ts> {
        let unpack = |o: &Owner| {
            let values = o.elems.clone().map(|k| {
                let (o, u) = (&self.offsets[k], &elems[k].unpack);
                quote! { { let __o = at + (#o); #u } }
            });
            let fid = o.field;
            match o.array {
                true => quote! { let #fid = [#(#values),*]; },
                false => quote! { let #fid = #(#values)*; },
            }
        };
        owners.iter().map(unpack).collect()
    }
}

/// The `Wave` impl: the record's width `bits`, word `__k` from the parts `pack`, and the
/// decode (`show`): the locals `unpack`, then the signals `show`, in scope `__name`.
fn wave_impl(input: &DeriveInput, bits: &Ts, pack: &[Ts], unpack: &[Ts], show: Ts) -> Ts {
    let rt = rt();
    let ident = &input.ident;
    let (ig, tg, wc) = input.generics.split_for_impl();
    quote! {
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
    }
}

/// The record's methods: `WORDS`, `words` (each `get` evaluated once, into `lets`; word
/// `__k` from the parts `pack`), `decode`, `record`, `record_group`. `stat` is the struct
/// with `'static` lifetimes.
fn record_methods(input: &DeriveInput, stat: &Ts, lets: &[Ts], pack: &[Ts]) -> Ts {
    let rt = rt();
    let ident = &input.ident;
    let (ig, tg, wc) = input.generics.split_for_impl();
    // The first 8 words written out, so that each is built in registers from the locals
    // whatever the optimiser's unrolling (a closure called per word is not inlined).
    let unrolled = (0..8usize).map(|k| {
        quote! {
            if let Some(__v) = __words.get_mut(#k) {
                let __k = #k;
                *__v = 0 #(#pack)*;
            }
        }
    });
    quote! {
        impl #ig #ident #tg #wc {
            /// Words of the record.
            pub const WORDS: usize =
                (<#stat as #rt::Wave>::BITS as usize).div_ceil(64);
            /// The record's words: each `get` evaluated once.
            #[inline(always)]
            #[allow(clippy::identity_op)]
            pub fn words(&self) -> [u64; <#stat>::WORDS] {
                #(#lets)*
                let at = 0u32;
                let mut __words = [0u64; <#stat>::WORDS];
                #(#unrolled)*
                for (__k, __v) in __words.iter_mut().enumerate().skip(8) {
                    *__v = 0 #(#pack)*;
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
}
