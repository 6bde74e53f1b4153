"""The checkout this package runs from. An installed wheel replaces this
file with the checkout recorded at build time; in the source tree (or an
editable install) the checkout is the folder two levels above it."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
