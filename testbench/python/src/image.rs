//! Microcode images and the assembler: `pp5.Image`, `pp5.assemble`, and how a `microcode=`
//! argument (a path, source text, an image, or several of them) becomes an image, exactly as
//! `pp5 run --microcode` makes one.

use crate::errors::{asm_error, os_error, type_error, value_error};
use pp5_sim::asm::header::{c_header, table_text};
use pp5_sim::asm::microcode::{self, McImage};
use pp5_sim::asm::opcodes::{ArgKind, CommandSpec, Form, OperandClass};
use pp5_sim::microcode_view::MicrocodeSources;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use std::sync::{Arc, OnceLock};

/// An assembled microcode image: the store words and the opcode table it declares.
#[pyclass(module = "pp5", frozen)]
#[derive(Clone)]
pub struct Image {
    pub inner: Arc<McImage>,
}

/// One command of an opcode table (what `pp5 asm` prints per line).
#[pyclass(module = "pp5", frozen, get_all)]
#[derive(Clone)]
pub struct CommandInfo {
    /// The mnemonic (`MEMplusMEM`).
    pub name: String,
    /// The CMD field (dispatch index), bits 7:0 of the opcode word.
    pub cmd: u8,
    /// `(name, kind)` of each argument, kind as `pp5 asm` prints it (`addr`, `len`, ...).
    pub args: Vec<(String, String)>,
    /// `plain`, `scalar` (takes `sca`: forms _S0 _S1 _TBL), `tree` (uses the QEE) or
    /// `hardwired_c` (MCWRITE).
    pub operand_class: String,
    /// Microcode entry address (`None` for the hardwired commands).
    pub entry: Option<u32>,
    /// Whether the command has a P word.
    pub long: bool,
    /// The macro names a stream may use (`SCAIntoMEM_S0`, `SCAIntoMEM_S1`, ...).
    pub forms: Vec<String>,
}

#[pymethods]
impl CommandInfo {
    fn __repr__(&self) -> String {
        let args: Vec<&str> = self.args.iter().map(|a| a.0.as_str()).collect();
        format!(
            "CommandInfo({} CMD {:#04x}, args [{}], forms [{}])",
            self.name,
            self.cmd,
            args.join(", "),
            self.forms.join(", ")
        )
    }
}

fn kind_name(k: ArgKind) -> String {
    format!("{k:?}").to_lowercase()
}

fn class_name(c: OperandClass) -> &'static str {
    match c {
        OperandClass::Plain => "plain",
        OperandClass::Scalar => "scalar",
        OperandClass::Tree => "tree",
        OperandClass::HardwiredC => "hardwired_c",
    }
}

impl CommandInfo {
    fn of(c: &CommandSpec) -> CommandInfo {
        CommandInfo {
            name: c.name.clone(),
            cmd: c.cmd,
            args: c
                .args
                .iter()
                .map(|a| (a.name.clone(), kind_name(a.kind)))
                .collect(),
            operand_class: class_name(c.class).into(),
            entry: c.entry,
            long: c.long(),
            forms: Form::all_for(c.class)
                .iter()
                .map(|f| format!("{}{}", c.name, f.suffix()))
                .collect(),
        }
    }
}

#[pymethods]
impl Image {
    /// Read an image file (`pp5 asm -o IMG.json`) or assemble a source file (`.pp5uc`).
    #[staticmethod]
    fn load(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Image> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path).map_err(|e| os_error(&name, &e))?;
        load_text(py, &text, &name).map(Image::from)
    }

    /// The image `Board()` boots when no microcode is given: the standard microcode
    /// (standard.pp5uc + qee.pp5uc) and flow.pp5uc, as `pp5 run` boots by default.
    #[staticmethod]
    fn default() -> Image {
        Image::from(default_image().clone())
    }

    /// Number of microinstructions.
    #[getter]
    fn uinsts(&self) -> u32 {
        self.inner.uinsts
    }

    /// The `(store address, word)` pairs, in the order the boot's MCWRITEs send them.
    #[getter]
    fn words(&self) -> Vec<(u32, u32)> {
        self.inner.words.clone()
    }

    /// Label name → microinstruction address.
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, at) in &self.inner.labels {
            d.set_item(name, at)?;
        }
        Ok(d)
    }

    /// The opcode table: every command the image implements, plus the hardwired ones.
    #[getter]
    fn commands(&self) -> Vec<CommandInfo> {
        self.inner
            .table
            .commands
            .iter()
            .map(CommandInfo::of)
            .collect()
    }

    /// The command `name` (a mnemonic, or a macro name such as `SCAIntoMEM_S1`).
    fn command(&self, name: &str) -> PyResult<CommandInfo> {
        let t = &self.inner.table;
        t.get(name)
            .or_else(|| t.resolve(name).map(|(c, _)| c))
            .map(CommandInfo::of)
            .ok_or_else(|| {
                pyo3::exceptions::PyKeyError::new_err(format!(
                    "{name}: not a command of this image's opcode table"
                ))
            })
    }

    /// encode(macro, args, coefs=()) -> list[int]
    ///
    /// The stream words of one command (opcode, P word, coefficient words), as the seed's
    /// `IGC_*` macros build them: `encode("SCAIntoMEM_S1", [0, 8], [0x77])`. Coefficients
    /// are raw 32-bit words (floats as their IEEE bits).
    #[pyo3(signature = (r#macro, args, coefs = Vec::new()))]
    fn encode(&self, r#macro: &str, args: Vec<u32>, coefs: Vec<u32>) -> PyResult<Vec<u32>> {
        let (spec, form) = self.inner.table.resolve(r#macro).ok_or_else(|| {
            value_error(format!(
                "{}: not a macro of this image's opcode table",
                r#macro
            ))
        })?;
        spec.encode(form, &args, &coefs)
            .map_err(|e| value_error(e.to_string()))
    }

    fn __contains__(&self, name: &str) -> bool {
        let t = &self.inner.table;
        t.get(name).is_some() || t.resolve(name).is_some()
    }

    /// The opcode table as `pp5 asm` prints it.
    fn opcode_table(&self) -> String {
        table_text(&self.inner)
    }

    /// The C header `pp5 asm --header` writes (our `igc_opcodes.h`: I_, P_, Ix_ macros).
    fn c_header(&self) -> String {
        c_header(&self.inner.table)
    }

    /// The image as JSON (the file `pp5 asm -o` writes).
    fn to_json(&self) -> PyResult<String> {
        serde_json_string(&self.inner)
    }

    /// Write the image as JSON (`pp5 run --microcode PATH` and `Board(PATH)` read it).
    fn save(&self, path: std::path::PathBuf) -> PyResult<()> {
        let json = serde_json_string(&self.inner)?;
        std::fs::write(&path, json).map_err(|e| os_error(&path.display().to_string(), &e))
    }

    /// The boot's command-stream message bodies (NOOP, NOOP, RMODEON, MCWRITE..., NOOP,
    /// RMODEOFF), each at most 1023 words, as lists of 32-bit words.
    fn boot_messages(&self) -> Vec<Vec<u32>> {
        self.inner
            .boot_messages(pp5_rtl::igc_port::MAX_MESSAGE_WORDS - 1)
    }

    fn __len__(&self) -> usize {
        self.inner.table.commands.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<pp5.Image: {} commands, {} microinstructions, {} store words>",
            self.inner.table.commands.len(),
            self.inner.uinsts,
            self.inner.words.len()
        )
    }
}

/// The JSON of an image, as `pp5 asm -o` writes it.
fn serde_json_string(img: &McImage) -> PyResult<String> {
    serde_json::to_string_pretty(img).map_err(|e| value_error(e.to_string()))
}

impl From<McImage> for Image {
    fn from(m: McImage) -> Image {
        Image { inner: Arc::new(m) }
    }
}

/// The default image, assembled once per process.
pub fn default_image() -> &'static McImage {
    static IMG: OnceLock<McImage> = OnceLock::new();
    IMG.get_or_init(microcode::default_image)
}

/// An image from a file's text: JSON image or source, by content (as `--microcode FILE`).
fn load_text(py: Python<'_>, text: &str, name: &str) -> PyResult<McImage> {
    if text.trim_start().starts_with('{') {
        McImage::load(text, name).map_err(value_error)
    } else {
        microcode::assemble(text, name).map_err(|e| asm_error(py, &e))
    }
}

/// One part of a `microcode=` argument: (name, text).
fn part(obj: &Bound<'_, PyAny>, k: usize) -> PyResult<(String, String)> {
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_str()?;
        if s.contains('\n') {
            // A shipped source's text is named by its file, as the CLI names it.
            let name = microcode::default_parts()
                .into_iter()
                .chain([(
                    "shade.pp5uc".to_string(),
                    microcode::SHADE_SOURCE.to_string(),
                )])
                .find(|(_, t)| t == s)
                .map_or_else(|| format!("<microcode {k}>"), |(f, _)| f);
            return Ok((name, s.to_string()));
        }
        return read_path(std::path::Path::new(s));
    }
    if obj.hasattr("__fspath__")? {
        let p: std::path::PathBuf = obj.extract()?;
        return read_path(&p);
    }
    Err(type_error(format!(
        "microcode: expected a path, source text (a str with a newline), a pp5.Image or a list \
         of paths/sources, got {}",
        obj.get_type().name()?
    )))
}

fn read_path(p: &std::path::Path) -> PyResult<(String, String)> {
    let name = p.display().to_string();
    let text = std::fs::read_to_string(p).map_err(|e| os_error(&name, &e))?;
    Ok((name, text))
}

/// The image a `microcode=` argument names: `None` (the default image), an [`Image`], a path
/// (`str` without a newline, or `os.PathLike`: a `.json` image or a `.pp5uc` source), source
/// text (a `str` holding a newline), or a list of paths and sources assembled together in
/// order (as a repeated `pp5 run --microcode`).
pub fn image_arg(py: Python<'_>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<McImage> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(default_image().clone());
    };
    if let Ok(img) = obj.cast::<Image>() {
        return Ok((*img.get().inner).clone());
    }
    image_of_parts(py, &parts_arg(obj)?)
}

/// [`image_arg`] with the image's sources and source map: the shipped sources for `None`,
/// `None` for an image (a `pp5.Image` or a `.json` file), which has none. Each file is read
/// once and assembled once.
pub fn image_and_sources(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<(McImage, Option<Arc<MicrocodeSources>>)> {
    static DEFAULT: OnceLock<Arc<MicrocodeSources>> = OnceLock::new();
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        let d = DEFAULT.get_or_init(|| Arc::new(MicrocodeSources::default_image().1));
        return Ok((default_image().clone(), Some(d.clone())));
    };
    if let Ok(img) = obj.cast::<Image>() {
        return Ok(((*img.get().inner).clone(), None));
    }
    let parts = parts_arg(obj)?;
    if parts.is_empty() || parts.iter().any(|(_, t)| t.trim_start().starts_with('{')) {
        // An image (or a refused list): no sources.
        return Ok((image_of_parts(py, &parts)?, None));
    }
    // Sources: assembled once, with their map (the same assembler and messages as
    // `image_of_parts`).
    let (image, sources) = MicrocodeSources::assemble(parts).map_err(|e| asm_error(py, &e))?;
    Ok((image, Some(Arc::new(sources))))
}

/// The `(name, text)` parts a `microcode=` argument other than `None` or an Image names: a
/// list's items, or one path or source text.
fn parts_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut parts = Vec::new();
        for (k, item) in obj.try_iter()?.enumerate() {
            parts.push(part(&item?, k)?);
        }
        return Ok(parts);
    }
    let (name, text) = part(obj, 0)?;
    let name = if name.starts_with("<microcode") {
        "<microcode>".to_string()
    } else {
        name
    };
    Ok(vec![(name, text)])
}

/// The image `parts` make: one image or source, or several sources assembled together.
fn image_of_parts(py: Python<'_>, parts: &[(String, String)]) -> PyResult<McImage> {
    match parts {
        [] => Err(value_error("microcode: the list is empty")),
        [(name, text)] => load_text(py, text, name),
        _ if parts.iter().any(|(_, t)| t.trim_start().starts_with('{')) => Err(value_error(
            "microcode: an image (.json) must be the only microcode, not part of a list",
        )),
        _ => microcode::assemble_files(parts).map_err(|e| asm_error(py, &e)),
    }
}

/// assemble(source, name="<microcode>") -> Image
///
/// Assemble microcode source text (the language of docs/microcode.md). Errors raise
/// `pp5.AsmError` listing `name:line: message` for each.
#[pyfunction]
#[pyo3(signature = (source, name = "<microcode>"))]
pub fn assemble(py: Python<'_>, source: &str, name: &str) -> PyResult<Image> {
    microcode::assemble(source, name)
        .map(Image::from)
        .map_err(|e| asm_error(py, &e))
}

/// assemble_files(parts) -> Image
///
/// Assemble several sources as one, in order, as a repeated `pp5 run --microcode` does:
/// `parts` holds paths or `(name, source)` tuples. Errors name the part's file and line.
#[pyfunction]
pub fn assemble_files(py: Python<'_>, parts: &Bound<'_, PyAny>) -> PyResult<Image> {
    let mut all = Vec::new();
    for item in parts.try_iter()? {
        let item = item?;
        if let Ok((name, src)) = item.extract::<(String, String)>() {
            all.push((name, src));
        } else {
            let p: std::path::PathBuf = item.extract().map_err(|_| {
                type_error("assemble_files: each part is a path or a (name, source) tuple")
            })?;
            all.push(read_path(&p)?);
        }
    }
    if all.is_empty() {
        return Err(value_error("assemble_files: no sources"));
    }
    microcode::assemble_files(&all)
        .map(Image::from)
        .map_err(|e| asm_error(py, &e))
}

/// The source text of one shipped microcode file: `standard` (standard.pp5uc), `qee`
/// (qee.pp5uc: the QEE commands), `flow` (flow.pp5uc) or `shade` (shade.pp5uc), to copy and
/// alter. (Before, `standard` was standard.pp5uc and qee.pp5uc joined: its lines were
/// nobody's file's.) A text equal to a shipped file is named by that file in messages, the
/// waveform and coverage.
#[pyfunction]
pub fn microcode_source(which: &str) -> PyResult<&'static str> {
    match which {
        "standard" => Ok(microcode::STANDARD_PP5UC),
        "qee" => Ok(microcode::QEE_PP5UC),
        "flow" => Ok(microcode::FLOW_SOURCE),
        "shade" => Ok(microcode::SHADE_SOURCE),
        _ => Err(value_error(format!(
            "microcode_source: `{which}` is not one of standard, qee, flow, shade"
        ))),
    }
}
