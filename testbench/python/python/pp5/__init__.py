"""The Pixel-Planes 5 Renderer model: boards, microcode images, command streams, render
studies (``pp5.render``) and parameter sweeps of them on Dask (``pp5.sweep``,
``pp5.sweep_runs``; docs/python.md, docs/sweeps.md).

The model is the extension module ``pp5._pp5`` (Rust, PyO3); everything in it is here. The
sweeps are Python (``pp5/sweep``) and need the ``sweep`` extra: ``pip install pp5[sweep]``
(Dask's distributed scheduler and pandas), imported only when a sweep runs."""

from ._pp5 import *  # noqa: F401,F403  (the model: Board, Image, render, ...)
from ._pp5 import __version__  # noqa: F401
from . import sweep  # noqa: F401  (a callable module: pp5.sweep(grid) runs a sweep)
from .sweep import sweep_runs  # noqa: F401
