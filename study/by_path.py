"""Lets a study file run by path (study/kith_study.py, study/alloc_cost.py) use the package:
imported as a plain module (a script's own folder is first on sys.path), it loads this
folder as the package `study`; the script then sets `__package__ = "study"` so that its
relative imports resolve. Only for scripts; the modules import each other relatively."""

import importlib.util
import os
import sys

if "study" not in sys.modules:
    _folder = os.path.dirname(os.path.abspath(__file__))
    _spec = importlib.util.spec_from_file_location("study", os.path.join(_folder, "__init__.py"),
                                                   submodule_search_locations=[_folder])
    _package = importlib.util.module_from_spec(_spec)
    sys.modules["study"] = _package
    _spec.loader.exec_module(_package)
