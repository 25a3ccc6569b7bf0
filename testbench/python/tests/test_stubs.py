"""The type stubs (pp5.pyi) describe the module as it is: every name they declare exists,
and every public name of the module is declared."""

import ast
import pathlib

import pp5

STUB = pathlib.Path(__file__).resolve().parents[1] / "pp5.pyi"
ALIASES = {"MicrocodePart", "Microcode", "StreamInput", "StopName", "Vec3", "Grid"}


def declared():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            top.add(node.name)
        elif isinstance(node, (ast.AnnAssign, ast.Assign)):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            top.add(target.id)
        if isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    names.add(item.target.id)
            members[node.name] = names
    return top - ALIASES, members


def test_stub_names_exist():
    top, members = declared()
    for name in top:
        assert hasattr(pp5, name), name
    for cls, names in members.items():
        if issubclass(getattr(pp5, cls), BaseException):
            continue  # their attributes are set on each instance
        for name in names - {"__init__"}:
            assert hasattr(getattr(pp5, cls), name), f"{cls}.{name}"


def test_module_names_are_declared():
    top, members = declared()
    public = {n for n in dir(pp5) if not n.startswith("_")} | {"__version__"}
    assert public - {"pp5"} <= top, public - top
    for cls, names in members.items():
        attrs = {n for n in dir(getattr(pp5, cls)) if not n.startswith("_")}
        base = {n for n in dir(Exception)}
        assert attrs - base <= names, (cls, attrs - base - names)


def test_everything_has_a_docstring():
    for name in dir(pp5):
        obj = getattr(pp5, name)
        if name.startswith("_") or not callable(obj):
            continue
        assert obj.__doc__, name
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            for attr in dir(obj):
                if not attr.startswith("_"):
                    assert getattr(obj, attr).__doc__, f"{name}.{attr}"
