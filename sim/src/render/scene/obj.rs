//! Wavefront OBJ files, read with `tobj`.
//!
//! Every model of the file is merged into one [`Mesh`]; polygons are split into triangle
//! fans, points and polylines are ignored. Colours: the vertex colours of the file
//! (`v x y z r g b`) if every vertex has one, else the diffuse colour (`Kd`) of the face's
//! `.mtl` material, else [`DEFAULT_ALBEDO`]; a `.mtl` library that is missing or does not
//! parse is not an error (its materials are then not used). Normals: those of the file
//! (`vn`, normalised) if every vertex of a model has one, else the area-weighted average of
//! the face normals.
//!
//! What `tobj` 4 does with bad input, and what this module makes of it:
//! - a face index with no vertex behind it (`f 1 2 9` with eight `v`, `f 0 ...`, a relative
//!   index before the first vertex): `tobj` accepts the face when it reads it and fails the
//!   whole load with `FaceVertexOutOfBounds` when it builds the model (at the next `o`, `g`,
//!   `usemtl` or the end of the file), without a line number: reported as
//!   [`SceneError::MissingVertex`], with the first such face's line found by a second look
//!   at the file. The same for normal and texture-coordinate indices; vertex colours on some
//!   `v` lines but not all fail the same way (`FaceColorOutOfBounds`) when a face uses a
//!   vertex past the number of colours (`tobj` numbers the colours on their own). An index
//!   of more than 15 digits, or a relative (negative) texture-coordinate or normal index
//!   before the first one, makes `tobj` overflow (a panic in builds with overflow checks):
//!   such faces are looked for before `tobj` reads the file.
//! - a statement that does not parse (`v 1 two 3`, `f 1 x 3`): `tobj` stops with a parse
//!   error: [`SceneError::Malformed`] with the line (the reader is counted).
//! - `nan`, `inf` or huge coordinates parse as `f32` in `tobj`: [`Mesh::validate`] refuses
//!   them ([`SceneError::Invalid`], naming the `v` line).
//! - `tobj` reads a polyline `l 1 2 3` like a face `f 1 2 3`: `l` statements are commented
//!   out before `tobj` sees the file. Points (`p`) and two-vertex faces are ignored.
//! - unknown statements are ignored; an empty file or one without faces is
//!   [`SceneError::Empty`].
//! - a colour that is not a finite number (`Kd nan 0 0` in the `.mtl`, `v 0 0 0 nan 0 0`) is
//!   refused ([`SceneError::Invalid`]) as a coordinate is; a finite one out of 0..=1 is
//!   clamped.
//! - `tobj` 4.0.5 panics on an `.mtl` colour with fewer than three numbers (`Kd 0.5`): the
//!   `.mtl` is read here first, a single value repeated (`Kd 0.5 0.5 0.5`, as the MTL format
//!   defines it) and two values refused. A panic inside `tobj` is caught and reported as
//!   [`SceneError::Malformed`] all the same.

use std::io::Cursor;
use std::path::Path;

use super::{face_normals, Mesh, SceneError, DEFAULT_ALBEDO, MAX_COORD, MAX_TRIANGLES};

/// Read the Wavefront OBJ file `path` (and the `.mtl` libraries it names, relative to its
/// folder) into one mesh named after the path. Errors: the file cannot be read
/// ([`SceneError::Io`]), a statement does not parse ([`SceneError::Malformed`]), a face refers
/// to a vertex that does not exist ([`SceneError::MissingVertex`]), no faces
/// ([`SceneError::Empty`]), a non-finite or huge coordinate or non-finite normal
/// ([`SceneError::Invalid`]), more than [`MAX_TRIANGLES`] triangles
/// ([`SceneError::TooLarge`]).
pub fn load_obj(path: &Path) -> Result<Mesh, SceneError> {
    load_obj_bytes(path, read_obj(path)?)
}

/// [`load_obj`] of the bytes `data` of the OBJ file `path` (read once by [`read_obj`]: a pipe
/// or a FIFO cannot be read twice); the `.mtl` libraries it names are read relative to the
/// file's folder.
pub fn load_obj_bytes(path: &Path, mut data: Vec<u8>) -> Result<Mesh, SceneError> {
    blank_polylines(&mut data);
    if let Some(e) = absurd_index(path, &data) {
        return Err(e);
    }
    let (models, materials) = parse_obj(path, &data)?;
    let mesh = build_mesh(path, &models, &materials)?;

    match mesh.validate() {
        Err(SceneError::Invalid { scene, reason }) => {
            // Name the `v` line if a coordinate is the problem.
            let reason = match bad_coordinate_line(&data, &mesh) {
                Some((line, what)) => format!("line {line}: {what}"),
                None => reason,
            };
            Err(SceneError::Invalid { scene, reason })
        }
        other => other.map(|()| mesh),
    }
}

/// The bytes of the OBJ file `path`, as read (at most the input limit): a directory or a file
/// that cannot be read is [`SceneError::Io`], a larger one [`SceneError::Malformed`].
pub fn read_obj(path: &Path) -> Result<Vec<u8>, SceneError> {
    let io_error = |error| SceneError::Io {
        path: path.to_path_buf(),
        error,
    };
    if path.is_dir() {
        return Err(io_error(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a directory",
        )));
    }
    crate::input::read_file(path).map_err(|e| match e {
        crate::input::ReadError::Io(e) => io_error(e),
        crate::input::ReadError::TooLarge => SceneError::Malformed {
            path: path.to_path_buf(),
            line: None,
            reason: e.to_string(),
        },
    })
}

/// The models and materials `tobj` reads from `data` (the file `path`).
fn parse_obj(
    path: &Path,
    data: &[u8],
) -> Result<(Vec<tobj::Model>, Vec<tobj::Material>), SceneError> {
    // `..Default::default()`: tobj has more fields with its `merging` and `reordering`
    // features, which another crate of a build may turn on.
    #[allow(clippy::needless_update)]
    let options = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut reader = Cursor::new(data);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tobj::load_obj_buf(&mut reader, &options, |mtl| load_mtl(&dir.join(mtl)))
    }));
    let (models, materials) = match result {
        Ok(Ok(loaded)) => loaded,
        Ok(Err(e)) => return Err(load_error(path, data, reader.position(), e)),
        Err(_) => {
            return Err(SceneError::Malformed {
                path: path.to_path_buf(),
                line: None,
                reason: "the OBJ reader (tobj) failed on this file".into(),
            })
        }
    };
    Ok((models, materials.unwrap_or_default()))
}

/// The models merged into one mesh named after `path`, not yet validated.
fn build_mesh(
    path: &Path,
    models: &[tobj::Model],
    materials: &[tobj::Material],
) -> Result<Mesh, SceneError> {
    let triangles: u64 = models
        .iter()
        .map(|m| (m.mesh.indices.len() / 3) as u64)
        .sum();
    if triangles > MAX_TRIANGLES {
        return Err(SceneError::TooLarge {
            scene: path.display().to_string(),
            triangles,
        });
    }
    let vertices: usize = models.iter().map(|m| m.mesh.positions.len() / 3).sum();
    let mut mesh = Mesh {
        name: path.display().to_string(),
        positions: Vec::with_capacity(vertices),
        normals: Vec::with_capacity(vertices),
        colors: Vec::with_capacity(vertices),
        triangles: Vec::with_capacity(triangles as usize),
    };
    if u32::try_from(vertices).is_err() {
        return Err(SceneError::TooLarge {
            scene: mesh.name,
            triangles,
        });
    }
    // Per vertex: the file's normal, or `None` where it has to be computed.
    let mut file_normals: Vec<Option<[f32; 3]>> = Vec::with_capacity(vertices);
    for model in models {
        append_model(&mut mesh, &mut file_normals, &model.mesh, materials)?;
    }
    if file_normals.iter().all(Option::is_some) {
        mesh.normals = file_normals.into_iter().flatten().collect();
    } else {
        let computed = face_normals(&mesh.positions, &mesh.triangles);
        mesh.normals = file_normals
            .into_iter()
            .zip(computed)
            .map(|(f, c)| f.unwrap_or(c))
            .collect();
    }
    Ok(mesh)
}

/// Append the positions, colours and triangles of one model `m` to `mesh`, and its normals
/// (`None` where it has none) to `file_normals`. A colour that is not a finite number (a
/// vertex colour, or the `Kd` of the material it uses) is refused as a coordinate is
/// ([`SceneError::Invalid`]).
fn append_model(
    mesh: &mut Mesh,
    file_normals: &mut Vec<Option<[f32; 3]>>,
    m: &tobj::Mesh,
    materials: &[tobj::Material],
) -> Result<(), SceneError> {
    let invalid = |reason: String| SceneError::Invalid {
        scene: mesh.name.clone(),
        reason,
    };
    let base = mesh.positions.len() as u32;
    let n = m.positions.len() / 3;
    mesh.positions
        .extend(m.positions.chunks_exact(3).map(|p| [p[0], p[1], p[2]]));
    if m.normals.len() == 3 * n {
        file_normals.extend(m.normals.chunks_exact(3).map(|v| unit(&[v[0], v[1], v[2]])));
    } else {
        file_normals.extend(std::iter::repeat_n(None, n));
    }
    if m.vertex_color.len() == 3 * n {
        if let Some(v) = m.vertex_color.iter().position(|c| !c.is_finite()) {
            let c = &m.vertex_color[v / 3 * 3..][..3];
            return Err(invalid(format!(
                "vertex {} has a colour that is not a finite number: {c:?}",
                base as usize + v / 3
            )));
        }
        mesh.colors.extend(
            m.vertex_color
                .chunks_exact(3)
                .map(|c| albedo(&[c[0], c[1], c[2]])),
        );
    } else {
        let material = m.material_id.and_then(|id| materials.get(id));
        let diffuse = material.and_then(|mat| mat.diffuse.map(|c| (&mat.name, c)));
        if let Some((name, c)) = diffuse.filter(|(_, c)| !c.iter().all(|x| x.is_finite())) {
            return Err(invalid(format!(
                "material {name:?}: its diffuse colour Kd {c:?} is not a finite number"
            )));
        }
        let diffuse = diffuse.map_or(DEFAULT_ALBEDO, |(_, c)| albedo(&c));
        mesh.colors.extend(std::iter::repeat_n(diffuse, n));
    }
    mesh.triangles.extend(
        m.indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| base.saturating_add(t[k]))),
    );
    Ok(())
}

/// Blank out the polyline statements (`l v1 v2 ...`), keeping the line count: `tobj` reads
/// `l` like `f`, and would make a triangle of a three-point polyline.
fn blank_polylines(data: &mut [u8]) {
    let mut start = 0;
    while start < data.len() {
        let end = data[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |i| start + i);
        let line = &mut data[start..end];
        let first = line.iter().position(|b| !b.is_ascii_whitespace());
        if let Some(i) = first {
            let is_l = line[i] == b'l' && line.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
            if is_l {
                line[i] = b'#';
            }
        }
        start = end + 1;
    }
}

/// A file normal scaled to unit length; `None` if it is zero (to be computed); left as it is
/// if it is not finite (for [`Mesh::validate`] to refuse).
fn unit(v: &[f32; 3]) -> Option<[f32; 3]> {
    let w = v.map(f64::from);
    let len = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
    if !len.is_finite() {
        Some(*v)
    } else if len > 1e-30 {
        Some(w.map(|c| (c / len) as f32))
    } else {
        None
    }
}

/// A (finite) colour from the file clamped to 0..=1.
fn albedo(c: &[f32; 3]) -> [f32; 3] {
    c.map(|x| x.clamp(0.0, 1.0))
}

/// The material loader given to `tobj`: the `.mtl` file with colours of one value repeated to
/// three (`tobj` 4.0.5 panics on fewer than three).
fn load_mtl(path: &Path) -> tobj::MTLLoadResult {
    let bytes = crate::input::read_file(path).map_err(|_| tobj::LoadError::OpenFileFailed)?;
    let text = String::from_utf8(bytes).map_err(|_| tobj::LoadError::ReadError)?;
    let mut fixed = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some(key @ ("Ka" | "Kd" | "Ks" | "Ke")) => {
                let values: Vec<&str> = words.collect();
                match values[..] {
                    [v] => fixed.push_str(&format!("{key} {v} {v} {v}")),
                    [_, _, _, ..] => fixed.push_str(line),
                    _ => return Err(tobj::LoadError::MaterialParseError),
                }
            }
            _ => fixed.push_str(line),
        }
        fixed.push('\n');
    }
    tobj::load_mtl_buf(&mut Cursor::new(fixed.as_bytes()))
}

/// The 1-based line `tobj` stopped at: it reads line by line and fails on the line it has
/// just consumed.
fn line_at(data: &[u8], position: u64) -> usize {
    let end = usize::try_from(position)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let consumed = &data[..end];
    let consumed = consumed.strip_suffix(b"\n").unwrap_or(consumed);
    consumed.iter().filter(|&&b| b == b'\n').count() + 1
}

/// A `tobj` error as a [`SceneError`].
fn load_error(path: &Path, data: &[u8], position: u64, e: tobj::LoadError) -> SceneError {
    use tobj::LoadError as E;
    let malformed = |reason: &str| SceneError::Malformed {
        path: path.to_path_buf(),
        line: Some(line_at(data, position)),
        reason: reason.to_string(),
    };
    let missing = |kind: Kind| missing_error(path, data, kind);
    match e {
        E::PositionParseError => {
            malformed("bad vertex: `v` takes three numbers x y z (and w, or r g b)")
        }
        E::ScalingByZeroError => malformed("bad vertex: its w is 0"),
        E::ColorParseError => malformed("bad vertex: `v` takes x y z, then either w or r g b"),
        E::NormalParseError => malformed("bad normal: `vn` takes three numbers"),
        E::TexcoordParseError => malformed("bad texture coordinate: `vt` takes two numbers"),
        E::FaceParseError => malformed(
            "bad face: `f` takes vertex references v, v/vt, v//vn or v/vt/vn (whole numbers)",
        ),
        E::MaterialParseError => malformed("bad `usemtl`: no material name"),
        E::ReadError => malformed("not UTF-8 text"),
        E::FaceVertexOutOfBounds => missing(Kind::Vertex),
        E::FaceNormalOutOfBounds => missing(Kind::Normal),
        E::FaceTexCoordOutOfBounds => missing(Kind::Texcoord),
        E::FaceColorOutOfBounds => SceneError::MissingVertex {
            path: path.to_path_buf(),
            reason: "vertex colours are given for some vertices but not all \
                     (`v x y z r g b` on every `v` line or on none)"
                .into(),
        },
        other => SceneError::Malformed {
            path: path.to_path_buf(),
            line: Some(line_at(data, position)),
            reason: format!("{other}"),
        },
    }
}

/// [`SceneError::MissingVertex`] for a face index of `kind` out of range, naming the first
/// such face's line if it can be found.
fn missing_error(path: &Path, data: &[u8], kind: Kind) -> SceneError {
    let what = ["vertex", "texture coordinate", "normal"][kind as usize];
    let reason = match first_bad_index(data, kind) {
        Some((line, index, count)) => {
            format!("line {line}: a face refers to {what} {index}, but the file defines {count}")
        }
        None => format!("a face refers to a {what} the file does not define"),
    };
    SceneError::MissingVertex {
        path: path.to_path_buf(),
        reason,
    }
}

/// Face indices on which `tobj` 4.0.5 overflows (`usize` multiplication: a panic with
/// overflow checks on, garbage without): an index of more than 15 digits, which no file can
/// satisfy, or a relative texture-coordinate or normal index reaching before the first one.
/// Found before `tobj` sees them (a quick look for long numbers and `/-` in faces first), and
/// reported as [`SceneError::MissingVertex`] with the line.
fn absurd_index(path: &Path, data: &[u8]) -> Option<SceneError> {
    let suspicious = data.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii_start();
        line.first() == Some(&b'f')
            && line.get(1).is_some_and(u8::is_ascii_whitespace)
            && (line.windows(2).any(|w| w == b"/-")
                || line
                    .split(|b| !b.is_ascii_digit())
                    .any(|digits| digits.len() > 15))
    });
    if !suspicious {
        return None;
    }
    [Kind::Vertex, Kind::Texcoord, Kind::Normal]
        .into_iter()
        .filter_map(|kind| first_bad_index(data, kind).map(|(line, ..)| (line, kind)))
        .min_by_key(|&(line, _)| line)
        .map(|(_, kind)| missing_error(path, data, kind))
}

/// Which part of a face's vertex reference `v/vt/vn`.
#[derive(Clone, Copy)]
enum Kind {
    Vertex = 0,
    Texcoord = 1,
    Normal = 2,
}

/// For the error message only, after `tobj` found a face index out of range: the first face
/// line whose `kind` index has nothing behind it, as (line, index as written, how many the
/// file defines). Positive indices count from the first definition in the file; negative
/// ones back from the definitions so far.
fn first_bad_index(data: &[u8], kind: Kind) -> Option<(usize, i64, usize)> {
    let text = String::from_utf8_lossy(data);
    let keyword = ["v", "vt", "vn"][kind as usize];
    let total = text
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(keyword))
        .count();
    let mut so_far = 0usize;
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some(k) if k == keyword => so_far += 1,
            Some("f") => {
                for reference in words {
                    let Some(field) = reference.split('/').nth(kind as usize) else {
                        continue;
                    };
                    if field.is_empty() {
                        continue;
                    }
                    let Ok(index) = field.parse::<i64>() else {
                        continue;
                    };
                    let ok = match index {
                        0 => false,
                        i if i > 0 => i.unsigned_abs() <= total as u64,
                        i => i.unsigned_abs() <= so_far as u64,
                    };
                    if !ok {
                        return Some((n + 1, index, total));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether a position fails [`Mesh::validate`].
fn bad_position(p: &[f32; 3]) -> bool {
    p.iter().any(|c| !c.is_finite() || c.abs() > MAX_COORD)
}

/// For the error message only, after [`Mesh::validate`] refused the mesh: the first `v` line
/// whose position (after the division by w, as `tobj` does it) is a bad position of the mesh,
/// and what is wrong with it.
fn bad_coordinate_line(data: &[u8], mesh: &Mesh) -> Option<(usize, String)> {
    let bits = |p: &[f32; 3]| p.map(f32::to_bits);
    let bad: std::collections::HashSet<[u32; 3]> = mesh
        .positions
        .iter()
        .filter(|p| bad_position(p))
        .map(bits)
        .collect();
    if bad.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(data);
    for (n, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() != Some("v") {
            continue;
        }
        let numbers: Vec<f32> = words.map_while(|w| w.parse().ok()).collect();
        let xyz = match numbers[..] {
            [x, y, z, w] => [x / w, y / w, z / w],
            [x, y, z, ..] => [x, y, z],
            _ => continue,
        };
        if !bad.contains(&bits(&xyz)) {
            continue;
        }
        for (axis, c) in ['x', 'y', 'z'].into_iter().zip(xyz) {
            if !c.is_finite() {
                return Some((
                    n + 1,
                    format!("vertex coordinate {axis} = {c} is not a finite number"),
                ));
            }
            if c.abs() > MAX_COORD {
                return Some((
                    n + 1,
                    format!(
                        "vertex coordinate {axis} = {c:e} is huge (the limit is ±{MAX_COORD:e})"
                    ),
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::test_util::*;
    use super::*;
    use std::path::PathBuf;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../testbench/fixtures/scenes")
            .join(name)
    }

    /// A file in the temporary folder with `text`, unique to this process and `name`.
    fn temp(name: &str, text: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!("pp5-scene-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    fn load_text(name: &str, text: &str) -> Result<Mesh, SceneError> {
        let path = temp(name, text.as_bytes());
        let result = load_obj(&path);
        let _ = std::fs::remove_file(&path);
        result
    }

    #[test]
    fn cube_with_materials_and_normals() {
        let m = load_obj(&fixture("cube.obj")).unwrap();
        assert!(m.name.ends_with("cube.obj"));
        assert_eq!(m.triangle_count(), 12);
        // One vertex per (position, normal) pair: 6 faces x 4 corners.
        assert_eq!(m.vertex_count(), 24);
        assert_eq!(m.bounds(), ([-0.5; 3], [0.5; 3]));
        assert_unit_normals(&m);
        assert_winding_agrees_with_normals(&m);
        for t in 0..m.triangle_count() {
            let n = winding_normal(&m, t);
            assert!(dot(n, centroid(&m, t)) > 0.0, "triangle {t} faces inwards");
            let [a, _, _] = m.triangles[t];
            let normal = m.normals[a as usize];
            // The file's normals, each face its material's colour.
            let want = match normal.map(|c| c.abs()) {
                [_, _, 1.0] => [0.8, 0.1, 0.1],
                [1.0, _, _] => [0.1, 0.8, 0.1],
                _ => [0.1, 0.1, 0.8],
            };
            for &i in &m.triangles[t] {
                assert_eq!(m.normals[i as usize], normal);
                assert_eq!(m.colors[i as usize], want, "triangle {t}");
            }
        }
    }

    #[test]
    fn cube_without_normals_or_material_file() {
        let m = load_obj(&fixture("cube_no_normals.obj")).unwrap();
        assert_eq!(m.triangle_count(), 12);
        assert_eq!(m.vertex_count(), 8);
        assert_unit_normals(&m);
        assert_winding_agrees_with_normals(&m);
        for (p, n) in m.positions.iter().zip(&m.normals) {
            // Computed corner normals point outwards, into the corner's octant.
            for k in 0..3 {
                assert!(p[k] * n[k] > 0.0, "{p:?} {n:?}");
            }
        }
        assert!(m.colors.iter().all(|&c| c == DEFAULT_ALBEDO));
    }

    #[test]
    fn vertex_colours_and_polygons() {
        let m = load_obj(&fixture("vertex_colors.obj")).unwrap();
        assert_eq!(m.triangle_count(), 3);
        assert_eq!(m.vertex_count(), 5);
        assert_eq!(m.colors[0], [1.0, 0.0, 0.0]);
        assert_eq!(m.colors[4], [0.0, 1.0, 1.0]);
        assert!(m.normals.iter().all(|&n| n == [0.0, 0.0, 1.0]));
        assert_winding_agrees_with_normals(&m);
    }

    #[test]
    fn single_value_mtl_colour_does_not_panic() {
        let m = load_obj(&fixture("kd_single.obj")).unwrap();
        assert_eq!(m.colors, vec![[0.5; 3]; 3]);
        // Two values: the .mtl is refused, the default colour used, no panic.
        let obj = temp(
            "kd_two.obj",
            b"mtllib kd_two.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
        );
        let mtl = obj.with_file_name(format!("pp5-scene-{}-kd_two.mtl", std::process::id()));
        std::fs::write(&mtl, "newmtl a\nKd 0.1 0.2\n").unwrap();
        let text = format!(
            "mtllib {}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
            mtl.file_name().unwrap().to_string_lossy()
        );
        std::fs::write(&obj, text).unwrap();
        let m = load_obj(&obj).unwrap();
        assert_eq!(m.colors, vec![DEFAULT_ALBEDO; 3]);
        // Out-of-range colours are clamped, zero-length normals computed.
        std::fs::write(&mtl, "newmtl a\nKd 2 -1 0.5\n").unwrap();
        let text = format!(
            "mtllib {}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 0\nusemtl a\nf 1//1 2//1 3//1\n",
            mtl.file_name().unwrap().to_string_lossy()
        );
        std::fs::write(&obj, text).unwrap();
        let m = load_obj(&obj).unwrap();
        assert_eq!(m.colors, vec![[1.0, 0.0, 0.5]; 3]);
        assert_eq!(m.normals, vec![[0.0, 0.0, 1.0]; 3]);
        let _ = std::fs::remove_file(&obj);
        let _ = std::fs::remove_file(&mtl);
    }

    /// A colour that is not a number is refused as a coordinate is, not replaced by the
    /// default (issue 27 item 5).
    #[test]
    fn non_finite_colours_are_refused() {
        let obj = temp("kd_nan.obj", b"");
        let mtl = obj.with_file_name(format!("pp5-scene-{}-kd_nan.mtl", std::process::id()));
        let text = format!(
            "mtllib {}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
            mtl.file_name().unwrap().to_string_lossy()
        );
        std::fs::write(&obj, text).unwrap();
        for kd in ["nan", "nan 0 0", "0 inf 0"] {
            std::fs::write(&mtl, format!("newmtl a\nKd {kd}\n")).unwrap();
            let e = load_obj(&obj).unwrap_err();
            assert!(matches!(e, SceneError::Invalid { .. }), "Kd {kd}: {e:?}");
            let e = e.to_string();
            assert!(e.contains("material \"a\": its diffuse colour Kd"), "{e}");
            assert!(e.contains("is not a finite number"), "{e}");
        }
        let _ = std::fs::remove_file(&obj);
        let _ = std::fs::remove_file(&mtl);
        let e = load_text(
            "vc_nan.obj",
            "v 0 0 0 1 0 0\nv 1 0 0 0 NaN 0\nv 0 1 0 0 0 1\nf 1 2 3\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("vertex 1 has a colour that is not a finite number"),
            "{e}"
        );
    }

    #[test]
    fn file_normals_are_normalised_and_models_merged() {
        let m = load_text(
            "merge.obj",
            "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 5\nf 1//1 2//1 3//1\n\
             o b\nv 0 0 1\nv -1 0 1\nv 0 -1 1\nf -3 -2 -1\n",
        )
        .unwrap();
        assert_eq!(m.triangle_count(), 2);
        assert_eq!(m.vertex_count(), 6);
        assert_eq!(m.triangles, vec![[0, 1, 2], [3, 4, 5]]);
        assert!(m.normals.iter().all(|&n| n == [0.0, 0.0, 1.0]));
        m.validate().unwrap();
        // Windows line ends.
        let m = load_text("crlf.obj", "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n").unwrap();
        assert_eq!(m.triangle_count(), 1);
        let e = load_text("crlf_bad.obj", "v 0 0 0\r\nv 1 x 0\r\n").unwrap_err();
        assert!(
            matches!(e, SceneError::Malformed { line: Some(2), .. }),
            "{e:?}"
        );
    }

    #[test]
    fn missing_or_unreadable_file() {
        let e = load_obj(&fixture("no_such_file.obj")).unwrap_err();
        assert!(matches!(e, SceneError::Io { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("no_such_file.obj: cannot read:"), "{msg}");
        let e = load_obj(&fixture("")).unwrap_err();
        assert!(e.to_string().contains("is a directory"), "{e}");
    }

    #[test]
    fn empty_files_and_files_without_faces() {
        let e = load_obj(&fixture("empty.obj")).unwrap_err();
        assert!(matches!(e, SceneError::Empty { .. }), "{e:?}");
        assert!(
            e.to_string()
                .ends_with("empty.obj\": no triangles (nothing to draw)"),
            "{e}"
        );
        for (name, text) in [
            ("vertices.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"),
            (
                "lines.obj",
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\np 1\nf 1\nf 1 2\n",
            ),
            ("comments.obj", "# nothing\n\n   \nunknown statement\n"),
        ] {
            let e = load_text(name, text).unwrap_err();
            assert!(matches!(e, SceneError::Empty { .. }), "{name}: {e:?}");
        }
    }

    #[test]
    fn malformed_statements_name_their_line() {
        let e = load_obj(&fixture("malformed.obj")).unwrap_err();
        assert!(
            matches!(e, SceneError::Malformed { line: Some(3), .. }),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(msg.contains("malformed.obj line 3: bad vertex"), "{msg}");
        for (text, line, what) in [
            ("v 0 0 0\nv 1 0\n", 2, "bad vertex"),
            ("v 0 0 0\nvn 0 x 1\n", 2, "bad normal"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n", 4, "bad face"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/3/4 2 3\n", 4, "bad face"),
            ("v 0 0 0 0\n", 1, "w is 0"),
            ("v 0 0 0 1 1\n", 1, "either w or r g b"),
            ("v 0 0 0\nusemtl\n", 2, "usemtl"),
            ("# no newline at the end\nv 1 2", 2, "bad vertex"),
        ] {
            let e = load_text("bad.obj", text).unwrap_err();
            match &e {
                SceneError::Malformed { line: Some(l), .. } => assert_eq!(*l, line, "{text:?}"),
                _ => panic!("{text:?}: {e:?}"),
            }
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
        let path = temp("latin1.obj", b"v 0 0 0\n# caf\xe9\nv 1 0 0\n");
        let e = load_obj(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert!(
            matches!(e, SceneError::Malformed { line: Some(2), .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }

    #[test]
    fn faces_with_missing_vertices() {
        // tobj accepts such a face when it reads it and fails the load when it builds the
        // model, with FaceVertexOutOfBounds; the line is found afterwards.
        let e = load_obj(&fixture("missing_vertex.obj")).unwrap_err();
        assert!(matches!(e, SceneError::MissingVertex { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.ends_with(
                "missing_vertex.obj: line 6: a face refers to vertex 4, but the file defines 3"
            ),
            "{msg}"
        );
        for (text, what) in [
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n",
                "line 4: a face refers to vertex 0,",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n",
                "vertex -4, but the file defines 3",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//2\n",
                "line 5: a face refers to normal 2, but the file defines 1",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/1 3/3\n",
                "a face refers to texture coordinate 3",
            ),
            (
                "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
                "vertex colours are given for some vertices but not all",
            ),
            // A vertex after the next object: tobj builds the first model without it.
            (
                "v 0 0 0\nv 1 0 0\nf 1 2 3\no b\nv 0 1 0\n",
                "a face refers to a vertex the file",
            ),
        ] {
            let e = load_text("missing.obj", text).unwrap_err();
            assert!(
                matches!(e, SceneError::MissingVertex { .. }),
                "{text:?}: {e:?}"
            );
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
        // A normal index so large that tobj's bounds check overflows: an error, not a crash.
        let e = load_text(
            "overflow.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//7000000000000000000 2//1 3//1\n",
        )
        .unwrap_err();
        assert!(matches!(e, SceneError::MissingVertex { .. }), "{e:?}");
        assert!(
            e.to_string()
                .contains("line 5: a face refers to normal 7000000000000000000,"),
            "{e}"
        );
        // Relative indices before the first texture coordinate or normal: the same overflow.
        for (text, what) in [
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/-3 2/1 3/1\n",
                "line 5: a face refers to texture coordinate -3, but the file defines 1",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//-2 3//1\n",
                "line 5: a face refers to normal -2, but the file defines 1",
            ),
        ] {
            let e = load_text("relative.obj", text).unwrap_err();
            assert!(matches!(e, SceneError::MissingVertex { .. }), "{e:?}");
            assert!(e.to_string().contains(what), "{e}");
        }
        // Long but harmless: leading zeros.
        let m = load_text(
            "zeros.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0000000000000000003\n",
        );
        assert_eq!(m.unwrap().triangle_count(), 1);
        // A face referring to a vertex defined later in the same object is fine with tobj.
        let m = load_text("forward.obj", "v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n").unwrap();
        assert_eq!(m.triangle_count(), 1);
    }

    #[test]
    fn bad_coordinates_are_refused() {
        let e = load_obj(&fixture("nan.obj")).unwrap_err();
        assert!(matches!(e, SceneError::Invalid { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.ends_with("nan.obj\": line 3: vertex coordinate y = NaN is not a finite number"),
            "{msg}"
        );
        let e = load_obj(&fixture("huge.obj")).unwrap_err();
        assert!(matches!(e, SceneError::Invalid { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.ends_with(
                "huge.obj\": line 4: vertex coordinate y = 1e9 is huge (the limit is ±1e6)"
            ),
            "{msg}"
        );
        for (text, what) in [
            (
                "v 0 0 0\nv 1 0 0\nv 0 inf 0\nf 1 2 3\n",
                "line 3: vertex coordinate y = inf",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1e39 0\nf 1 2 3\n",
                "line 3: vertex coordinate y = inf",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1e7 0 2\nf 1 2 3\n",
                "line 3: vertex coordinate y = 5e6",
            ),
            // An unused bad vertex is no problem; the used one is named.
            (
                "v nan 0 0\nv 0 0 0\nv 1 0 0\nv 0 0 -1e8\nf 2 3 4\n",
                "line 4: vertex coordinate z",
            ),
            (
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn nan 0 1\nf 1//1 2//1 3//1\n",
                "has a non-finite normal",
            ),
        ] {
            let e = load_text("coords.obj", text).unwrap_err();
            assert!(matches!(e, SceneError::Invalid { .. }), "{text:?}: {e:?}");
            assert!(e.to_string().contains(what), "{text:?}: {e}");
        }
        load_text(
            "unused.obj",
            "v nan 0 0\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 2 3 4\n",
        )
        .unwrap();
    }
}
