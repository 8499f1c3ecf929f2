"""Lets the entry point run by path use the package: `python3 <source>/study` (Python runs
__main__.py as a script; `kith study` runs it so). Imported as a plain module (a script's own
folder is first on sys.path), it loads this folder as the package `study`; the script then
sets `__package__ = "study"` so that its relative imports resolve. Only for the entry
point; the modules import each other relatively."""

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
