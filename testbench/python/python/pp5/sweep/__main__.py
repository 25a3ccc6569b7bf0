"""``python -m pp5.sweep SPEC.toml``: a sweep described in a TOML file (pp5.sweep.spec)."""

import sys

from .spec import main

sys.exit(main())
