"""The Pixel-Planes 5 Renderer model: boards, microcode images, command streams, render
studies (``pp5.render``; docs/python.md).

The model is the extension module ``pp5._pp5`` (Rust, PyO3); everything in it is here."""

from ._pp5 import *  # noqa: F401,F403  (the model: Board, Image, render, ...)
from ._pp5 import __version__  # noqa: F401
