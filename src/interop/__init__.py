"""Bridges from xenophon's games to other frameworks.

- `xenophon.interop.openspiel`: both games registered with OpenSpiel's Python
  game API, for OpenSpiel's Python algorithms (needs ``pip install
  'xenophon[openspiel]'``).
- `xenophon.interop.native`: both games as native OpenSpiel C++ games over our
  C core (built on demand from a source checkout), for OpenSpiel's C++
  algorithms; `OpenSpielISMCTSBot` plays with OpenSpiel's C++ ISMCTS.
"""
