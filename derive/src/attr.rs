//! The `#[wave(...)]` attributes of a `derive(Wave)` struct and of its fields, parsed.

use syn::meta::ParseNestedMeta;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Error, Expr, Ident, LitInt, LitStr, Token, Type};

/// A derived signal: `name: width = expr` or `name: text = expr`; or a derived record,
/// `name: Type = expr` (a `Wave` record's signals, in scope `name`, none if `""`).
pub(crate) struct Derived {
    pub name: String,
    pub width: DerivedKind,
    pub expr: Expr,
}

/// What a derived signal is: bits of a literal width, a text, or a `Wave` record's signals.
pub(crate) enum DerivedKind {
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

/// How a field is shown: `bits = N`, `name` (with `none`'s text for an `Option`), `scope`
/// (with its name), `flatten`, or unset (as wide as its integer type, or a nested `Wave`).
#[derive(Default)]
pub(crate) enum Kind {
    #[default]
    Unset,
    Bits(Expr),
    Name(Option<LitStr>),
    Scope(Option<String>),
    Flatten,
}

/// A field's `#[wave(...)]` attributes.
#[derive(Default)]
pub(crate) struct FieldAttr {
    pub kind: Kind,
    pub rename: Option<String>,
    pub each: Option<String>,
    pub hide: bool,
    pub skip: bool,
    pub get: Option<Expr>,
    pub ty: Option<Type>,
    pub before: Vec<Derived>,
    pub then: Vec<Derived>,
}

/// The struct's `#[wave(...)]` attributes: `words = N` (a bound on the record's words, checked
/// at compile time) and `part` (only ever a part of a record: no record methods).
#[derive(Default)]
pub(crate) struct StructAttr {
    pub words: Option<LitInt>,
    pub part: bool,
}

/// The struct's attributes; an error at an unknown one.
pub(crate) fn struct_attr(attrs: &[syn::Attribute]) -> syn::Result<StructAttr> {
    let mut a = StructAttr::default();
    wave_attrs(attrs, |name, m| {
        match name {
            Some("words") => a.words = Some(m.value()?.parse::<LitInt>()?),
            Some("part") => a.part = true,
            _ => return Err(m.error("unknown wave attribute (a struct's: `words`, `part`)")),
        }
        Ok(())
    })?;
    Ok(a)
}

/// The items of the `#[wave(...)]` attributes among `attrs` to `f`, each with its name
/// (`None` if its path is not one identifier); the first error `f` gives.
pub(crate) fn wave_attrs(
    attrs: &[syn::Attribute],
    mut f: impl FnMut(Option<&str>, &ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    for attr in attrs.iter().filter(|x| x.path().is_ident("wave")) {
        attr.parse_nested_meta(|m| f(m.path.get_ident().map(Ident::to_string).as_deref(), &m))?;
    }
    Ok(())
}

/// `then(...)` / `before(...)`: the derived signals, comma-separated.
fn derived_list(meta: &ParseNestedMeta) -> syn::Result<Vec<Derived>> {
    let content;
    syn::parenthesized!(content in meta.input);
    Ok(content
        .parse_terminated(Derived::parse, Token![,])?
        .into_iter()
        .collect())
}

/// `bits = N`: a literal `N` must be 1..=64 (an error at it); any other expression is
/// checked by a const assertion (`check_width`).
fn bits(m: &ParseNestedMeta) -> syn::Result<Kind> {
    let n: Expr = m.value()?.parse()?;
    if let Some(k) = int_lit(&n) {
        if !(1..=64).contains(&k.base10_parse::<u32>()?) {
            return Err(Error::new(k.span(), "a signal's width is 1..=64"));
        }
    }
    Ok(Kind::Bits(n))
}

/// The integer literal `e` is, if it is one.
pub(crate) fn int_lit(e: &Expr) -> Option<&LitInt> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(k),
            ..
        }) => Some(k),
        _ => None,
    }
}

/// A field's attributes; an error at an unknown one.
pub(crate) fn field_attr(attrs: &[syn::Attribute]) -> syn::Result<FieldAttr> {
    let mut a = FieldAttr::default();
    let mut none = None;
    wave_attrs(attrs, |name, m| {
        let string = || Ok::<_, Error>(m.value()?.parse::<LitStr>()?.value());
        match name {
            Some("bits") => a.kind = bits(m)?,
            Some("name") => a.kind = Kind::Name(None),
            Some("none") => none = Some(m.value()?.parse::<LitStr>()?),
            Some("scope") if m.input.peek(Token![=]) => a.kind = Kind::Scope(Some(string()?)),
            Some("scope") => a.kind = Kind::Scope(None),
            Some("flatten") => a.kind = Kind::Flatten,
            Some("rename") => a.rename = Some(string()?),
            Some("each") => a.each = Some(string()?),
            Some("hide") => a.hide = true,
            Some("skip") => a.skip = true,
            Some("get") => a.get = Some(m.value()?.parse()?),
            Some("ty") => a.ty = Some(m.value()?.parse()?),
            Some("then") => a.then.extend(derived_list(m)?),
            Some("before") => a.before.extend(derived_list(m)?),
            _ => return Err(m.error("unknown wave attribute")),
        }
        Ok(())
    })?;
    if let (Some(n), Kind::Name(x)) = (none, &mut a.kind) {
        *x = Some(n);
    }
    Ok(a)
}

/// `T` of `Option<T>`.
pub(crate) fn option_inner(ty: &Type) -> syn::Result<&Type> {
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
