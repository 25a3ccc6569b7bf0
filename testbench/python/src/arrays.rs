//! Pixel memory, Enable and Carry as NumPy arrays, read from and written to the array's bit
//! planes (the Rust testbench's back door).
//!
//! Orientation: every array is indexed `[y, x]` (row y, column x), as the PNG pictures
//! (`--image`) and `pp5 run --dump-mem` lay the array out: row 0 is y = 0, the top of the
//! picture. `memory()[y, x, k]` is byte k of pixel (x, y): pixel-memory bits 8k..8k+7, bit 8k
//! in the byte's LSB, exactly the bytes `--dump-mem` writes.

use crate::errors::{type_error, value_error};
use numpy::ndarray::{Array2, Array3};
use numpy::{PyReadonlyArray2, PyReadonlyArray3};
use pp5_rtl::emc_array::plane::{self, Plane, ARRAY_DIM};
use pp5_rtl::emc_array::{EmcArray, MEM_BITS};
use pyo3::prelude::*;

/// Bytes of pixel memory per pixel (208 bits).
pub const MEM_BYTES: usize = MEM_BITS / 8;

/// All pixel memory: `[y, x, byte]`.
pub fn memory(a: &EmcArray) -> Array3<u8> {
    let mut out = Array3::<u8>::zeros((ARRAY_DIM, ARRAY_DIM, MEM_BYTES));
    for (b, p) in a.mem.iter().enumerate() {
        let (byte, bit) = (b / 8, b % 8);
        for_each_set(p, |x, y| out[[y, x, byte]] |= 1 << bit);
    }
    out
}

/// Call `f(x, y)` for every set pixel of a plane.
fn for_each_set(p: &Plane, mut f: impl FnMut(usize, usize)) {
    for (w, &word) in p.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            f(64 * (w % 2) + i, w / 2);
        }
    }
}

/// A plane whose pixel (x, y) is `f(x, y)`.
fn plane_from(f: impl Fn(usize, usize) -> bool) -> Plane {
    let mut p = plane::ZERO_PLANE;
    for y in 0..ARRAY_DIM {
        for x in 0..ARRAY_DIM {
            if f(x, y) {
                plane::set(&mut p, x, y, true);
            }
        }
    }
    p
}

/// Check a field `mem[addr:len]`: inside the 208 bits, 1..=64 bits (1..=63 unsigned, so that
/// every value fits an int64).
pub fn check_field(addr: i64, len: i64, signed: bool) -> PyResult<(usize, usize)> {
    let max = if signed { 64 } else { 63 };
    if !(1..=max).contains(&len) {
        return Err(value_error(format!(
            "field length {len}: use 1..={max} bits{}",
            if signed {
                ""
            } else {
                " unsigned (64 with signed=True), so that every value fits an int64"
            }
        )));
    }
    // `len` is 1..=64 here; compare without adding, so no address overflows.
    if addr < 0 || addr > MEM_BITS as i64 - len {
        return Err(value_error(format!(
            "field mem[{addr}:{len}] is not inside pixel memory: bits 0..={}",
            MEM_BITS - 1
        )));
    }
    Ok((addr as usize, len as usize))
}

/// `mem[addr:len]` of every pixel, `[y, x]`, sign-extended when `signed`.
pub fn field(a: &EmcArray, addr: usize, len: usize, signed: bool) -> Array2<i64> {
    let mut out = Array2::<i64>::zeros((ARRAY_DIM, ARRAY_DIM));
    for i in 0..len {
        let bit = 1i64.wrapping_shl(i as u32);
        for_each_set(&a.mem[addr + i], |x, y| out[[y, x]] |= bit);
    }
    if signed && len < 64 {
        let shift = 64 - len as u32;
        out.mapv_inplace(|v| (v << shift) >> shift);
    }
    out
}

/// Write `mem[addr:len]` of every pixel from `values` (`[y, x]`, already range-checked).
pub fn set_field(a: &mut EmcArray, addr: usize, len: usize, values: &Array2<i64>) {
    for i in 0..len {
        a.mem[addr + i].0 = plane_from(|x, y| values[[y, x]] >> i & 1 != 0);
    }
}

/// Write all pixel memory from `[y, x, byte]`.
pub fn set_memory(a: &mut EmcArray, bytes: &Array3<u8>) {
    for b in 0..MEM_BITS {
        let (byte, bit) = (b / 8, b % 8);
        a.mem[b].0 = plane_from(|x, y| bytes[[y, x, byte]] >> bit & 1 != 0);
    }
}

/// A plane as `bool[y, x]`.
pub fn plane_array(p: &Plane) -> Array2<bool> {
    let mut out = Array2::<bool>::from_elem((ARRAY_DIM, ARRAY_DIM), false);
    for_each_set(p, |x, y| out[[y, x]] = true);
    out
}

/// A plane from `bool[y, x]`.
pub fn array_plane(v: &Array2<bool>) -> Plane {
    plane_from(|x, y| v[[y, x]])
}

/// `numpy.asarray(obj)` broadcast to `shape`, checked to hold numbers of the dtype kinds
/// `kinds` (`b` bool, `i` signed, `u` unsigned), described as `what` in errors.
fn as_array<'py>(
    obj: &Bound<'py, PyAny>,
    shape: &[usize],
    kinds: &str,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if !kinds.contains(kind.as_str()) {
        let dtype = arr.getattr("dtype")?.str()?.to_string();
        return Err(type_error(format!(
            "{what}: expected {} values, got an array of dtype {dtype}",
            if kinds == "b" {
                "bool"
            } else {
                "integer (or bool)"
            }
        )));
    }
    let shape_t = pyo3::types::PyTuple::new(obj.py(), shape)?;
    np.call_method1("broadcast_to", (&arr, &shape_t))
        .map_err(|_| {
            let got = arr
                .getattr("shape")
                .and_then(|s| s.str().map(|s| s.to_string()))
                .unwrap_or_else(|_| "?".into());
            value_error(format!(
                "{what}: shape {got} does not broadcast to {shape:?} (arrays are indexed [y, x])"
            ))
        })
}

/// Values for a field from any integer array-like or scalar, broadcast to `[128, 128]` and
/// checked to fit `len` bits (as unsigned 0..2^len, or as signed -2^(len-1)..).
pub fn field_values(obj: &Bound<'_, PyAny>, len: usize) -> PyResult<Array2<i64>> {
    let lo = -(1i128 << (len - 1));
    let hi = (1i128 << len) - 1;
    if obj.is_instance_of::<pyo3::types::PyInt>() && !obj.is_instance_of::<pyo3::types::PyBool>() {
        // One int for every pixel: checked as `poke` checks it, whatever its size.
        return match obj.extract::<i128>() {
            Ok(v) if (lo..=hi).contains(&v) => {
                Ok(Array2::from_elem((ARRAY_DIM, ARRAY_DIM), v as i64))
            }
            _ => Err(value_error(format!(
                "value {} does not fit a {len}-bit field ({lo}..={hi})",
                obj.str()?
            ))),
        };
    }
    let arr = as_array(obj, &[ARRAY_DIM, ARRAY_DIM], "biu", "values")?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    let wide: Array2<i128> = if kind == "u" {
        let a: PyReadonlyArray2<u64> = arr.call_method1("astype", ("uint64",))?.extract()?;
        a.as_array().mapv(i128::from)
    } else {
        let a: PyReadonlyArray2<i64> = arr.call_method1("astype", ("int64",))?.extract()?;
        a.as_array().mapv(i128::from)
    };
    if let Some(((y, x), v)) = wide.indexed_iter().find(|(_, &v)| v < lo || v > hi) {
        return Err(value_error(format!(
            "values: {v} at [y={y}, x={x}] does not fit a {len}-bit field ({lo}..={hi})"
        )));
    }
    Ok(wide.mapv(|v| v as i64))
}

/// A bool plane from any bool array-like or scalar, broadcast to `[128, 128]`.
pub fn bool_values(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Array2<bool>> {
    let arr = as_array(obj, &[ARRAY_DIM, ARRAY_DIM], "b", what)?;
    let a: PyReadonlyArray2<bool> = arr.call_method1("astype", ("bool",))?.extract()?;
    Ok(a.as_array().to_owned())
}

/// Memory bytes from an integer array-like broadcast to `[128, 128, 26]`, each 0..=255.
pub fn memory_values(obj: &Bound<'_, PyAny>) -> PyResult<Array3<u8>> {
    let arr = as_array(obj, &[ARRAY_DIM, ARRAY_DIM, MEM_BYTES], "biu", "memory")?;
    let int = obj.py().import("builtins")?.getattr("int")?;
    let min: i128 = int.call1((arr.call_method0("min")?,))?.extract()?;
    let max: i128 = int.call1((arr.call_method0("max")?,))?.extract()?;
    if min < 0 || max > 255 {
        return Err(value_error(format!(
            "memory: bytes must be 0..=255, got values in {min}..={max}"
        )));
    }
    let a: PyReadonlyArray3<u8> = arr.call_method1("astype", ("uint8",))?.extract()?;
    Ok(a.as_array().to_owned())
}

/// Check a pixel coordinate pair.
pub fn check_xy(x: i64, y: i64) -> PyResult<(usize, usize)> {
    let r = 0..ARRAY_DIM as i64;
    if !r.contains(&x) || !r.contains(&y) {
        return Err(value_error(format!(
            "pixel ({x}, {y}) is outside the array: x and y are 0..={}",
            ARRAY_DIM - 1
        )));
    }
    Ok((x as usize, y as usize))
}
