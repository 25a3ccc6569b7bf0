//! The decode's signals: each element's and each derived signal's call on the tracer, runs
//! of 1-bit signals shown at once.

use crate::attr::{Derived, DerivedKind};
use crate::rt;
use proc_macro2::TokenStream as Ts;
use quote::quote;

/// A signal (or a nested record) of the decode.
pub(crate) enum Show {
    /// A 1-bit signal and its value (a `u64`, 0 or 1): consecutive ones are shown at once.
    Bit(String, Ts),
    Other(Ts),
}

/// The derived signals `d` (`then` / `before`), computed from the decode's locals.
pub(crate) fn derived(d: &[Derived], show: &mut Vec<Show>) {
    let rt = rt();
    for d in d {
        let (name, e) = (&d.name, &d.expr);
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

/// A run of 1-bit signals (names and values) as one call: `bits` for one, else
/// `Tracer::bits_packed`; the run emptied.
fn flush(run: &mut Vec<(String, Ts)>, out: &mut Ts) {
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
}

/// The decode's calls: runs of up to 64 1-bit signals shown at once.
pub(crate) fn show_calls(show: Vec<Show>) -> Ts {
    let mut out = Ts::new();
    let mut run: Vec<(String, Ts)> = vec![];
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
